//go:build amd64 && !purego

package imege

// The level bounds in SSE2 (part of every amd64 processor): one block's
// four statistics per vector instruction. They sum the same squared
// differences as boundGo and boundPartsGo in another order, which the
// bounds' slack covers (see matcher.flim); the search's result is the
// same either way.

// boundSSE is boundGo.
//
//go:noescape
func boundSSE(bs []tblock, st []stat4, base int, f float32) float32

// boundPartsSSE is boundPartsGo.
//
//go:noescape
func boundPartsSSE(bs []tblock, st []stat4, base int, f float32, out []float32) float32

// bound is a level's bound (blocks bs) for the reference window whose
// corner position is base, or any value above f once it exceeds it.
func bound(bs []tblock, st []stat4, base int, f float32) float32 {
	return boundSSE(bs, st, base, f)
}

// boundParts is bound, leaving each block's part in out (in the order of
// bs) when it does not exceed f.
func boundParts(bs []tblock, st []stat4, base int, f float32, out []float32) float32 {
	_ = out[:len(bs)] // the kernel writes without bounds checks
	return boundPartsSSE(bs, st, base, f, out)
}

// rowsSSDSSE is rowsSSDGo, eight features per vector instruction (PMADDWD
// squares and pairs the 16-bit differences exactly).
//
//go:noescape
func rowsSSDSSE(a, b []int16, n, astride, bstride, rows int) int64

// rowsSSD is Σ(a−b)² over rows rows of n interleaved features each, the
// rows astride apart in a and bstride apart in b.
func rowsSSD(a, b []int16, n, astride, bstride, rows int) int64 {
	if rows <= 0 {
		return 0
	}
	// The kernel reads without bounds checks.
	_ = a[(rows-1)*astride+n-1]
	_ = b[(rows-1)*bstride+n-1]
	return rowsSSDSSE(a, b, n, astride, bstride, rows)
}

// scanRowSSE is scanRowGo.
//
//go:noescape
func scanRowSSE(st []stat4, c0, n, off0 int, t0 *stat4, mid []tblock, f float32, out []int32) int

// scanRow writes to out the indices k < n of the candidates whose
// first-level bound (the statistics st[c0+k+off0] against t0) and
// second-level bound (blocks mid, from corner position c0+k) do not
// exceed f, and returns their count. The kernel reads st without bounds
// checks: the caller checks that c0+n−1 plus the layout's largest offset
// is in st.
func scanRow(st []stat4, c0, n, off0 int, t0 *stat4, mid []tblock, f float32, out []int32) int {
	_ = out[:n] // the kernel writes without bounds checks
	return scanRowSSE(st, c0, n, off0, t0, mid, f, out)
}
