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

// boundParts is bound, leaving each block's part in out (by its index in
// the layout) when it does not exceed f.
func boundParts(bs []tblock, st []stat4, base int, f float32, out []float32) float32 {
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

// scanRowSSE is scanRowGo without branches.
//
//go:noescape
func scanRowSSE(row []stat4, t *stat4, f float32, out []int32) int

// scanRow writes to out the indices k of the statistics in row whose
// squared distance from t does not exceed f, and returns their count.
func scanRow(row []stat4, t *stat4, f float32, out []int32) int {
	_ = out[:len(row)] // the kernel writes without bounds checks
	return scanRowSSE(row, t, f, out)
}
