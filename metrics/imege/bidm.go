package imege

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Params are BIDM's parameters.
type Params struct {
	// Warp is w: a test pixel may map anywhere within ±w pixels (both
	// axes) of its proportional position in the reference.
	Warp int
	// Context is c (odd): the c×c window of derivative features compared.
	Context int
	// Interp is the original's -i level: 0 matches every pixel; 1 every
	// 2nd and 2 every 3rd column and row, interpolating the rest.
	Interp int
	// Size is the original's -d: the derivative cell is 1+2·Size pixels.
	Size int
}

// DefaultParams is the call IMEGE's released script makes: bidm … 35 31 -i 2.
var DefaultParams = Params{Warp: 35, Context: 31, Interp: 2, Size: 3}

// PaperParams is the setting the IbPRIA 2013 paper tuned (w 40, c 27, no
// interpolation).
var PaperParams = Params{Warp: 40, Context: 27, Interp: 0, Size: 3}

func (p Params) validate() error {
	switch {
	case p.Warp < 1 || p.Warp > 1000:
		return fmt.Errorf("imege: warp %d outside 1…1000", p.Warp)
	case p.Context < 1 || p.Context%2 == 0 || p.Context > 201:
		return fmt.Errorf("imege: context %d must be odd, 1…201", p.Context)
	case p.Interp < 0 || p.Interp > 2:
		return fmt.Errorf("imege: interpolation level %d must be 0, 1 or 2", p.Interp)
	case p.Size < 1 || p.Size > 50:
		return fmt.Errorf("imege: derivative size %d outside 1…50", p.Size)
	}
	return nil
}

// termScale is the factor that turns a squared feature difference into a
// distance term, in double precision as the original multiplies.
const termScale = 1.0 / (255 * 255)

// plane is a derivative-feature image with the flat value 127 subtracted,
// the two derivatives interleaved per pixel, and a border of pad pixels of
// flat value (0 after the subtraction) all around, so that a context
// window never needs a bounds check.
type plane struct {
	w, h, pad, stride int
	v                 []int32
	// cum[(y)·pw + x] is the energy (sum of squares) of the row segments
	// of width c centred on column x, summed over the padded rows above y:
	// the energy of any band of rows of a context window in two lookups.
	cum []int64
	// rowSeg and colSeg describe the row segment (width c) and the
	// column segment (height c) centred on each padded pixel, for the
	// bounds (see seg).
	rowSeg, colSeg []seg
}

// seg is a segment's sum and centred norm in each channel. For segments a
// and b of n values, Σ(a−b)² = Σ((a−ā)−(b−b̄))² + (Σa−Σb)²/n, so
// Σ(a−b)² ≥ (‖a−ā‖−‖b−b̄‖)² + (Σa−Σb)²/n per channel.
type seg struct{ sh, sv, nh, nv float64 }

func (a *seg) bound(b *seg, n float64) float64 {
	d1, d2, d3, d4 := a.sh-b.sh, a.sv-b.sv, a.nh-b.nh, a.nv-b.nv
	return (d1*d1+d2*d2)/n + d3*d3 + d4*d4
}

// segStats computes the segments of length c through each padded pixel
// along one axis: at(k) is the k-th pixel's offset in p.v of a line of
// length n; out receives, for the pixel at k, the segment k−c/2 … k+c/2.
func segStats(v []int32, at func(k int) int, n, c int, out func(k int, s seg)) {
	hc := c / 2
	var s1h, s1v, s2h, s2v int64
	add := func(k int, sign int64) {
		if k < 0 || k >= n {
			return
		}
		h, w := int64(v[at(k)]), int64(v[at(k)+1])
		s1h, s1v, s2h, s2v = s1h+sign*h, s1v+sign*w, s2h+sign*h*h, s2v+sign*w*w
	}
	for k := -hc; k < hc; k++ {
		add(k, 1)
	}
	fc := float64(c)
	cn := func(s1, s2 int64) float64 {
		return math.Sqrt(max(0, float64(s2)-float64(s1)*float64(s1)/fc))
	}
	for k := range n {
		add(k+hc, 1)
		out(k, seg{float64(s1h), float64(s1v), cn(s1h, s2h), cn(s1v, s2v)})
		add(k-hc, -1)
	}
}

func newPlane(f *features, pad int) plane {
	p := plane{w: f.w, h: f.h, pad: pad, stride: 2 * (f.w + 2*pad)}
	p.v = make([]int32, p.stride*(f.h+2*pad))
	for y := range f.h {
		row := p.v[(y+pad)*p.stride+2*pad:]
		for x := range f.w {
			row[2*x] = f.dh[y*f.w+x] - 127
			row[2*x+1] = f.dv[y*f.w+x] - 127
		}
	}
	return p
}

// energies fills p.cum for context windows of width c.
func (p *plane) energies(c int) {
	hc := c / 2
	pw, ph := p.w+2*p.pad, p.h+2*p.pad
	p.cum = make([]int64, (ph+1)*pw)
	for y := range ph {
		row := p.v[y*p.stride : (y+1)*p.stride]
		var run int64 // energy of columns x−hc … x+hc
		sq := func(x int) int64 {
			if x < 0 || x >= pw {
				return 0
			}
			a, b := int64(row[2*x]), int64(row[2*x+1])
			return a*a + b*b
		}
		for x := -hc; x < hc; x++ {
			run += sq(x)
		}
		for x := range pw {
			run += sq(x + hc)
			p.cum[(y+1)*pw+x] = p.cum[y*pw+x] + run
			run -= sq(x - hc)
		}
	}
	p.rowSeg = make([]seg, ph*pw)
	p.colSeg = make([]seg, ph*pw)
	for y := range ph {
		segStats(p.v, func(k int) int { return y*p.stride + 2*k }, pw, c, func(k int, s seg) { p.rowSeg[y*pw+k] = s })
	}
	for x := range pw {
		segStats(p.v, func(k int) int { return k*p.stride + 2*x }, ph, c, func(k int, s seg) { p.colSeg[k*pw+x] = s })
	}
}

// band is the energy of rows y0 … y1−1 (plane coordinates, padded) of the
// window centred on padded column x.
func (p *plane) band(x, y0, y1 int) int64 {
	pw := p.w + 2*p.pad
	return p.cum[y1*pw+x] - p.cum[y0*pw+x]
}

// at is the offset of the top-left corner of the context window of
// half-size hc centred on (x, y).
func (p *plane) at(x, y, hc int) int {
	return (y+p.pad-hc)*p.stride + 2*(x+p.pad-hc)
}

// matcher holds what every pixel's search shares.
type matcher struct {
	test, ref plane
	c         int
	w         int
	xi, yj    float32 // X/I and Y/J in single precision
	rel       float64 // relative bound on single-precision accumulation error
}

// ssd is the exact integer distance between two context windows (in units
// of 1/255²), or any value above limit once it is known to exceed it.
func (m *matcher) ssd(tb, rb int, limit int64) int64 {
	n := 2 * m.c
	var s int64
	for range m.c {
		s += int64(rowSSD(m.test.v[tb:tb+n], m.ref.v[rb:rb+n]))
		if s > limit {
			return s
		}
		tb += m.test.stride
		rb += m.ref.stride
	}
	return s
}

// dist is the distance as the original accumulates it: term by term, row
// by row, each term added in double precision to a single-precision sum.
// With prune it stops as soon as the sum reaches stop, returning the
// partial sum, as the original's loops do.
func (m *matcher) dist(tb, rb int, stop float32, prune bool) float32 {
	var d float32
	for range m.c {
		a := m.test.v[tb : tb+2*m.c]
		b := m.ref.v[rb : rb+2*m.c]
		for k := 0; k < len(a); k += 2 {
			if prune && !(d < stop) {
				return d
			}
			dh, dv := a[k]-b[k], a[k+1]-b[k+1]
			t := float64(float64(dh*dh+dv*dv) * termScale)
			d = float32(float64(d) + t)
		}
		tb += m.test.stride
		rb += m.ref.stride
	}
	return d
}

// bands are the row bands of the middle bound level.
const bands = 4

// bounds are a test window's norms at three levels of row partition: the
// whole window, a few bands, and single rows. By the triangle inequality,
// for any partition of the window into parts k,
// ssd ≥ Σₖ (‖testₖ‖ − ‖refₖ‖)², so a candidate whose bound exceeds the
// limit is passed over without computing its distance.
type bounds struct {
	whole  float64
	edges  [bands + 1]int
	band   [bands]float64
	rows   []seg
	cols   []seg
	rowN   []float64 // each row's energy, to order the rows
	order  []int     // rows by decreasing test norm: the likeliest to exceed a limit first
	rest   []float64 // see mayReach
	tx, ty int       // the window's padded column and first padded row
}

func (m *matcher) testBounds(i, j int, b *bounds) {
	hc := m.c / 2
	t := &m.test
	b.tx, b.ty = i+t.pad, j+t.pad-hc
	b.whole = math.Sqrt(float64(t.band(b.tx, b.ty, b.ty+m.c)))
	for k := range bands + 1 {
		b.edges[k] = k * m.c / bands
	}
	for k := range bands {
		b.band[k] = math.Sqrt(float64(t.band(b.tx, b.ty+b.edges[k], b.ty+b.edges[k+1])))
	}
	pw := t.w + 2*t.pad
	b.rows, b.rowN = b.rows[:0], b.rowN[:0]
	for r := range m.c {
		b.rows = append(b.rows, t.rowSeg[(b.ty+r)*pw+b.tx])
		b.rowN = append(b.rowN, float64(t.band(b.tx, b.ty+r, b.ty+r+1)))
	}
	b.cols = b.cols[:0]
	for n := range m.c {
		b.cols = append(b.cols, t.colSeg[(b.ty+hc)*pw+b.tx-hc+n])
	}
	b.order = b.order[:0]
	for r := range m.c {
		b.order = append(b.order, r)
	}
	slices.SortStableFunc(b.order, func(p, q int) int { return cmp.Compare(b.rowN[q], b.rowN[p]) })
	if cap(b.rest) < m.c+1 {
		b.rest = make([]float64, m.c+1)
	}
}

// mayReach reports whether candidate (x, y) may have a distance ≤ lim,
// leaving in b.rest the bound on the rows not yet summed, row by row in
// b.order, for ssdRows.
func (m *matcher) mayReach(b *bounds, x, y int, lim int64) bool {
	hc := m.c / 2
	r := &m.ref
	rx, ry := x+r.pad, y+r.pad-hc
	flim := float64(lim)*(1+1e-9) + 1
	d := b.whole - math.Sqrt(float64(r.band(rx, ry, ry+m.c)))
	if d*d > flim {
		return false
	}
	var lb float64
	for k := range bands {
		d := b.band[k] - math.Sqrt(float64(r.band(rx, ry+b.edges[k], ry+b.edges[k+1])))
		lb += d * d
	}
	if lb > flim {
		return false
	}
	pw := r.w + 2*r.pad
	fc := float64(m.c)
	rs := r.rowSeg[ry*pw+rx:]
	// Prefix sums first, to give up as soon as they exceed the limit; then
	// what is left after each row (rounding is within flim's slack).
	rest := b.rest[:len(b.order)+1]
	var acc float64
	for k, q := range b.order {
		acc += b.rows[q].bound(&rs[q*pw], fc)
		if acc > flim {
			return false
		}
		rest[k+1] = acc
	}
	for k := range rest {
		rest[k] = max(0, acc-rest[k])
	}
	rest[0] = acc
	cs := r.colSeg[(ry+hc)*pw+rx-hc:][:len(b.cols)]
	lb = 0
	for n := range b.cols {
		lb += b.cols[n].bound(&cs[n], fc)
	}
	return lb <= flim
}

// ssdRows is ssd with the rows in b.order, stopping once the rows summed
// plus the bound on the others exceed lim.
func (m *matcher) ssdRows(b *bounds, tb, rb int, lim int64) int64 {
	n := 2 * m.c
	flim := float64(lim)*(1+1e-9) + 1
	var s int64
	for k, q := range b.order {
		a := m.test.v[tb+q*m.test.stride:][:n]
		bb := m.ref.v[rb+q*m.ref.stride:][:n]
		s += int64(rowSSD(a, bb))
		if s > lim || float64(s)+b.rest[k+1] > flim {
			return lim + 1 + s
		}
	}
	return s
}

// rowSSD is Σ(a−b)² over a row of interleaved features, four at a time
// into independent sums.
func rowSSD(a, b []int32) int32 {
	b = b[:len(a)]
	var r0, r1, r2, r3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		r0 += d0 * d0
		r1 += d1 * d1
		r2 += d2 * d2
		r3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		r0 += d * d
	}
	return r0 + r1 + r2 + r3
}

type candidate struct {
	x, y int
	s    int64
}

// pixel returns the value the original stores for test pixel (i, j): 0 if
// some candidate matches exactly; otherwise the distance of the last
// candidate it evaluates, cut short where it reaches the minimum of the
// earlier ones. The earlier candidates' minimum is found with exact
// integer distances (any order, pruned by the best so far), and only the
// candidates within rounding error of it are summed in single precision.
func (m *matcher) pixel(i, j int, hint *[2]int, keep []candidate, bd *bounds) (float32, []candidate) {
	hc := m.c / 2
	ip := int(float64(float32(float32(i)*m.xi)) + 0.5)
	jp := int(float64(float32(float32(j)*m.yj)) + 0.5)
	tb := m.test.at(i, j, hc)
	X, Y := m.ref.w, m.ref.h
	x0, x1 := max(ip-m.w, 0), min(ip+m.w, X-1)
	y0, y1 := max(jp-m.w, 0), min(jp+m.w, Y-1)

	keep = keep[:0]
	best := m.ssd(tb, m.ref.at(ip, jp, hc), math.MaxInt64)
	keep = append(keep, candidate{ip, jp, best})
	if best == 0 {
		*hint = [2]int{0, 0}
		return 0, keep
	}
	if x0 > x1 || y0 > y1 { // no candidate in the image: the direct mapping's distance stays
		return m.dist(tb, m.ref.at(ip, jp, hc), 0, false), keep
	}
	cut := func(s int64) int64 { return s + int64(float64(s)*m.rel) + 1 }
	bestAt := [2]int{ip, jp}
	m.testBounds(i, j, bd)
	try := func(x, y int) bool {
		lim := cut(best)
		if !m.mayReach(bd, x, y, lim) {
			return false
		}
		s := m.ssdRows(bd, tb, m.ref.at(x, y, hc), lim)
		if s <= lim {
			keep = append(keep, candidate{x, y, s})
			if s < best {
				best, bestAt = s, [2]int{x, y}
			}
		}
		return s == 0
	}
	// A candidate at distance 0 ends the search; its window's energy
	// equals the test window's, exactly, which few others' do.
	whole := m.test.band(bd.tx, bd.ty, bd.ty+m.c)
	for x := x0; x <= x1; x++ {
		rx := x + m.ref.pad
		for y := y0; y <= y1; y++ {
			ry := y + m.ref.pad - hc
			if m.ref.band(rx, ry, ry+m.c) == whole && m.ssd(tb, m.ref.at(x, y, hc), 0) == 0 {
				*hint = [2]int{x - ip, y - jp}
				return 0, keep
			}
		}
	}
	zero := false
	if hx, hy := ip+hint[0], jp+hint[1]; hx >= x0 && hx <= x1 && hy >= y0 && hy <= y1 && (hx != x1 || hy != y1) {
		zero = try(hx, hy)
	}
	for x := x0; x <= x1 && !zero; x++ {
		for y := y0; y <= y1 && !zero; y++ {
			if x == x1 && y == y1 {
				continue
			}
			zero = try(x, y)
		}
	}
	*hint = [2]int{bestAt[0] - ip, bestAt[1] - jp}
	last := m.ref.at(x1, y1, hc)
	if zero || m.ssd(tb, last, 0) == 0 {
		return 0, keep
	}
	// The earlier candidates' single-precision minimum lies within
	// rounding of best/255²; the last candidate's sum usually crosses
	// that whole interval in one term, which decides where it stops
	// without the minimum itself.
	g := m.rel / 2
	lo, hi := float64(best)*termScale*(1-g), float64(best)*termScale*(1+g)
	if d, ok := m.crossing(tb, last, lo, hi); ok {
		return d, keep
	}
	lim := cut(best)
	minD := float32(math.MaxFloat32)
	for _, c := range keep {
		if c.s <= lim {
			minD = min(minD, m.dist(tb, m.ref.at(c.x, c.y, hc), 0, false))
		}
	}
	return m.dist(tb, last, minD, true), keep
}

// crossing is dist(tb, rb, stop, true) for any stop in [lo, hi], when
// that does not depend on where stop lies in the interval: the first
// partial sum at or above lo is also at or above hi, or the whole sum is
// below lo.
func (m *matcher) crossing(tb, rb int, lo, hi float64) (float32, bool) {
	var d float32
	for range m.c {
		a := m.test.v[tb : tb+2*m.c]
		b := m.ref.v[rb : rb+2*m.c]
		for k := 0; k < len(a); k += 2 {
			if float64(d) >= lo {
				return d, float64(d) >= hi
			}
			dh, dv := a[k]-b[k], a[k+1]-b[k+1]
			t := float64(float64(dh*dh+dv*dv) * termScale)
			d = float32(float64(d) + t)
		}
		tb += m.test.stride
		rb += m.ref.stride
	}
	if float64(d) >= lo {
		return d, float64(d) >= hi
	}
	return d, true
}

// warpMap computes the original's per-pixel values for every pixel it
// matches (every (1+Interp)-th column and row), rows in parallel, and
// returns the map (row-major, test size) and its maximum.
func warpMap(tf, rf *features, p Params) ([]float32, float32) {
	hc := p.Context / 2
	m := &matcher{
		test: newPlane(tf, hc+1),
		ref:  newPlane(rf, hc+2),
		c:    p.Context, w: p.Warp,
		xi:  float32(rf.w) / float32(tf.w),
		yj:  float32(rf.h) / float32(tf.h),
		rel: 4 * float64(p.Context*p.Context) * 0x1p-24,
	}
	m.test.energies(p.Context)
	m.ref.energies(p.Context)
	I, J := tf.w, tf.h
	step := 1 + p.Interp
	warp := make([]float32, I*J)
	rows := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (J+step-1)/step) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keep []candidate
			var bd bounds
			for j := range rows {
				var hint [2]int
				for i := 0; i < I; i += step {
					warp[j*I+i], keep = m.pixel(i, j, &hint, keep, &bd)
				}
			}
		}()
	}
	for j := 0; j < J; j += step {
		rows <- j
	}
	close(rows)
	wg.Wait()
	var mx float32
	for j := 0; j < J; j += step {
		for i := 0; i < I; i += step {
			if d := warp[j*I+i]; d > mx {
				mx = d
			}
		}
	}
	return warp, mx
}

// interpolate fills the pixels not matched, along rows then along columns,
// as the original does for its -i level.
func interpolate(warp []float32, I, J, level int) {
	switch level {
	case 1:
		for j := 0; j < J; j += 2 {
			row := warp[j*I : (j+1)*I]
			for i := 1; i < I; i += 2 {
				var v2 float32
				if i+1 < I {
					v2 = row[i+1]
				}
				row[i] = (row[i-1] + v2) / 2
			}
		}
		for j := 1; j < J; j += 2 {
			for i := range I {
				var v2 float32
				if j+1 < J {
					v2 = warp[(j+1)*I+i]
				}
				warp[j*I+i] = (warp[(j-1)*I+i] + v2) / 2
			}
		}
	case 2:
		for j := 0; j < J; j += 3 {
			row := warp[j*I : (j+1)*I]
			for i := 1; i < I; i += 3 {
				v1 := row[i-1]
				var v2 float32
				if i+2 < I {
					v2 = row[i+2]
				}
				aux := (v2 - v1) / 3
				row[i] = v1 + aux
				if i+1 < I {
					row[i+1] = v2 - aux
				}
			}
		}
		for j := 1; j < J; j += 3 {
			for i := range I {
				v1 := warp[(j-1)*I+i]
				var v2 float32
				if j+2 < J {
					v2 = warp[(j+2)*I+i]
				}
				aux := (v2 - v1) / 3
				warp[j*I+i] = v1 + aux
				if j+1 < J {
					warp[(j+1)*I+i] = v2 - aux
				}
			}
		}
	}
}

// otsuZero scales the map to 0…255 by mx, thresholds it with Otsu's
// method in single precision (the first strictly largest between-class
// variance), and reports for each pixel whether it falls at or below the
// threshold: matched well enough to count as correct.
func otsuZero(warp []float32, mx float32) []bool {
	const maxv = float32(255)
	for k, v := range warp {
		warp[k] = 255 * (v / mx)
	}
	var pdf, cdf, myu [256]float32
	for _, v := range warp {
		pdf[int(255*(v/maxv))]++
	}
	n := float32(len(warp))
	for k := range pdf {
		pdf[k] /= n
	}
	cdf[0] = pdf[0]
	for k := 1; k < 256; k++ {
		cdf[k] = cdf[k-1] + pdf[k]
		myu[k] = myu[k-1] + float32(float32(k)*pdf[k])
	}
	threshold := 0
	var maxSigma float32
	for k := range 255 {
		var sigma float32
		if cdf[k] != 0 && cdf[k] != 1 {
			p1p2 := float32(float64(cdf[k]) * (1.0 - float64(cdf[k])))
			diff := float32(myu[255]*cdf[k]) - myu[k]
			sigma = float32(diff*diff) / p1p2
		}
		if sigma > maxSigma {
			maxSigma, threshold = sigma, k
		}
	}
	ok := make([]bool, len(warp))
	th := float32(threshold)
	for k, v := range warp {
		ok[k] = !(255*(v/maxv) > th)
	}
	return ok
}

// BIDM is the share of the test image's ink pixels (gray below 255) that
// BIDM maps onto the reference well enough: the original's printed
// number, a single-precision quotient. It is 1 when every matched pixel
// has an exact match, and NaN when the test image has no ink but some
// pixel has none (the original prints nan).
func BIDM(test, ref *Image, p Params, l Limits) (float64, error) {
	if err := p.validate(); err != nil {
		return 0, err
	}
	for _, g := range []*Image{test, ref} {
		if err := g.check(l); err != nil {
			return 0, err
		}
	}
	tf, rf := derive(test, p.Size), derive(ref, p.Size)
	warp, mx := warpMap(tf, rf, p)
	if !(mx > 0) {
		return 1, nil
	}
	interpolate(warp, test.W, test.H, p.Interp)
	ok := otsuZero(warp, mx)
	var cp, fg int
	for k, v := range test.Pix {
		if v < 255 {
			fg++
			if ok[k] {
				cp++
			}
		}
	}
	return float64(float32(cp) / float32(fg)), nil
}
