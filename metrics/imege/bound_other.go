//go:build !amd64 || purego

package imege

// bound is a level's bound (blocks bs) for the reference window whose
// corner position is base, or any value above f once it exceeds it.
func bound(bs []tblock, st []stat4, base int, f float32) float32 {
	return boundGo(bs, st, base, f)
}

// boundParts is bound, leaving each block's part in out (in the order of
// bs) when it does not exceed f.
func boundParts(bs []tblock, st []stat4, base int, f float32, out []float32) float32 {
	return boundPartsGo(bs, st, base, f, out)
}

// rowsSSD is Σ(a−b)² over rows rows of n interleaved features each, the
// rows astride apart in a and bstride apart in b.
func rowsSSD(a, b []int16, n, astride, bstride, rows int) int64 {
	return rowsSSDGo(a, b, n, astride, bstride, rows)
}

// scanRow writes to out the indices k < n of the candidates whose
// first-level bound (the statistics st[c0+k+off0] against t0) and
// second-level bound (blocks mid, from corner position c0+k) do not
// exceed f, and returns their count.
func scanRow(st []stat4, c0, n, off0 int, t0 *stat4, mid []tblock, f float32, out []int32) int {
	return scanRowGo(st, c0, n, off0, t0, mid, f, out)
}
