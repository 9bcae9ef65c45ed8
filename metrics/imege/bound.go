package imege

// boundGo is a level's bound (blocks bs) for the reference window whose
// corner position is base, or any value above f once it exceeds it.
func boundGo(bs []tblock, st []stat4, base int, f float32) float32 {
	var lb0, lb1 float32
	k := 0
	for ; k+1 < len(bs); k += 2 {
		a, b := &bs[k], &bs[k+1]
		r, q := &st[base+int(a.off)], &st[base+int(b.off)]
		d0, d1, d2, d3 := a.t[0]-r[0], a.t[1]-r[1], a.t[2]-r[2], a.t[3]-r[3]
		e0, e1, e2, e3 := b.t[0]-q[0], b.t[1]-q[1], b.t[2]-q[2], b.t[3]-q[3]
		lb0 += (d0*d0 + d1*d1) + (d2*d2 + d3*d3)
		lb1 += (e0*e0 + e1*e1) + (e2*e2 + e3*e3)
		if lb0+lb1 > f {
			return lb0 + lb1
		}
	}
	if k < len(bs) {
		a := &bs[k]
		r := &st[base+int(a.off)]
		d0, d1, d2, d3 := a.t[0]-r[0], a.t[1]-r[1], a.t[2]-r[2], a.t[3]-r[3]
		lb0 += (d0*d0 + d1*d1) + (d2*d2 + d3*d3)
	}
	return lb0 + lb1
}

// boundPartsGo is boundGo, leaving each block's part in out (in the order
// of bs) when it does not exceed f.
func boundPartsGo(bs []tblock, st []stat4, base int, f float32, out []float32) float32 {
	out = out[:len(bs)]
	var lb float32
	for k := range bs {
		b := &bs[k]
		r := &st[base+int(b.off)]
		d0, d1, d2, d3 := b.t[0]-r[0], b.t[1]-r[1], b.t[2]-r[2], b.t[3]-r[3]
		v := (d0*d0 + d1*d1) + (d2*d2 + d3*d3)
		out[k] = v
		lb += v
		if lb > f {
			break
		}
	}
	return lb
}

// rowsSSDGo is Σ(a−b)² over rows rows of n interleaved features each, the
// rows astride apart in a and bstride apart in b.
func rowsSSDGo(a, b []int16, n, astride, bstride, rows int) int64 {
	var s int64
	for r := range rows {
		if r > 0 {
			a, b = a[astride:], b[bstride:]
		}
		x, y := a[:n], b[:n]
		var r0, r1, r2, r3 int32
		i := 0
		for ; i+4 <= n; i += 4 {
			d0, d1 := int32(x[i])-int32(y[i]), int32(x[i+1])-int32(y[i+1])
			d2, d3 := int32(x[i+2])-int32(y[i+2]), int32(x[i+3])-int32(y[i+3])
			r0 += d0 * d0
			r1 += d1 * d1
			r2 += d2 * d2
			r3 += d3 * d3
		}
		for ; i < n; i++ {
			d := int32(x[i]) - int32(y[i])
			r0 += d * d
		}
		s += int64(r0 + r1 + r2 + r3)
	}
	return s
}

// scanRowGo writes to out the indices k < n of the candidates whose
// first-level bound (the statistics st[c0+k+off0] against t0) and
// second-level bound (blocks mid, from corner position c0+k) do not
// exceed f, and returns their count.
func scanRowGo(st []stat4, c0, n, off0 int, t0 *stat4, mid []tblock, f float32, out []int32) int {
	out = out[:n]
	row := st[c0+off0 : c0+off0+n]
	t := *t0
	cnt := 0
	for k := range row {
		r := &row[k]
		d0, d1, d2, d3 := t[0]-r[0], t[1]-r[1], t[2]-r[2], t[3]-r[3]
		if d0*d0+d1*d1+d2*d2+d3*d3 > f || boundGo(mid, st, c0+k, f) > f {
			continue
		}
		out[cnt] = int32(k)
		cnt++
	}
	return cnt
}
