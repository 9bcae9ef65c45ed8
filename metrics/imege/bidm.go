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
	pw, ph            int // the padded size
	v                 []int32
	v16               []int16 // v in 16 bits, for sums of squared differences
	// sums is the integral image of each channel and of its square:
	// sums[y·(pw+1) + x] sums the padded pixels above row y and left of
	// column x.
	sums [][4]int64
	// energy[y·pw + x] is the energy (sum of squares) of the context
	// window whose top-left corner is the padded pixel (x, y).
	energy []int64
	// stats holds, for each block size of the layout, every padded
	// position's block statistics (see stat); the block of size t whose
	// top-left corner is position p has them at stats[t·tab + p].
	stats []stat4
	tab   int
	// blank is the integral image of the windows without ink (energy 0),
	// by corner position.
	blank []int32
}

func newPlane(f *features, pad int) plane {
	p := plane{w: f.w, h: f.h, pad: pad, pw: f.w + 2*pad, ph: f.h + 2*pad}
	p.stride = 2 * p.pw
	p.v = make([]int32, p.stride*p.ph)
	for y := range f.h {
		row := p.v[(y+pad)*p.stride+2*pad:]
		for x := range f.w {
			row[2*x] = f.dh[y*f.w+x] - 127
			row[2*x+1] = f.dv[y*f.w+x] - 127
		}
	}
	p.v16 = make([]int16, len(p.v))
	for k, x := range p.v {
		p.v16[k] = int16(x)
	}
	iw := p.pw + 1
	p.sums = make([][4]int64, iw*(p.ph+1))
	for y := range p.ph {
		var run [4]int64
		for x := range p.pw {
			a, b := int64(p.v[y*p.stride+2*x]), int64(p.v[y*p.stride+2*x+1])
			run[0] += a
			run[1] += b
			run[2] += a * a
			run[3] += b * b
			up := &p.sums[y*iw+x+1]
			p.sums[(y+1)*iw+x+1] = [4]int64{up[0] + run[0], up[1] + run[1], up[2] + run[2], up[3] + run[3]}
		}
	}
	return p
}

// box returns the sums of each channel and of its square over the bw×bh
// block whose top-left corner is the padded pixel (x, y).
func (p *plane) box(x, y, bw, bh int) [4]int64 {
	iw := p.pw + 1
	a, b := &p.sums[y*iw+x], &p.sums[y*iw+x+bw]
	c, d := &p.sums[(y+bh)*iw+x], &p.sums[(y+bh)*iw+x+bw]
	return [4]int64{d[0] - b[0] - c[0] + a[0], d[1] - b[1] - c[1] + a[1], d[2] - b[2] - c[2] + a[2], d[3] - b[3] - c[3] + a[3]}
}

// boxEnergy is the energy of the block: both channels' sums of squares.
func (p *plane) boxEnergy(x, y, bw, bh int) int64 {
	s := p.box(x, y, bw, bh)
	return s[2] + s[3]
}

// at is the offset in v of the top-left corner of the context window of
// half-size hc centred on (x, y).
func (p *plane) at(x, y, hc int) int {
	return (y+p.pad-hc)*p.stride + 2*(x+p.pad-hc)
}

// corner is the padded position (y·pw + x) of the top-left corner of the
// context window of half-size hc centred on (x, y).
func (p *plane) corner(x, y, hc int) int {
	return (y+p.pad-hc)*p.pw + x + p.pad - hc
}

// A block's statistics are four numbers: per channel, the sum of its n
// values divided by √n, and the centred norm ‖a − ā‖. For blocks a and b,
// Σ(a−b)² = Σ((a−ā)−(b−b̄))² + (Σa−Σb)²/n ≥ (‖a−ā‖−‖b−b̄‖)² + (Σa−Σb)²/n
// per channel: the squared Euclidean distance between two blocks'
// statistics is a lower bound on their distance, and so is its sum over
// the blocks of any partition of the window. They are stored in single
// precision; slack (see matcher.flim) covers the rounding.
const nstat = 4

// stat4 is one block's statistics.
type stat4 = [nstat]float32

// stat computes the statistics of a block of n values from its sums (see
// box), rn being 1/√n. The centred norm is √(n·Σa² − (Σa)²)/√n, from an
// exact integer.
func stat(s [4]int64, n int64, rn float64, out *stat4) {
	out[0] = float32(float64(s[0]) * rn)
	out[1] = float32(float64(s[1]) * rn)
	out[2] = float32(math.Sqrt(float64(n*s[2]-s[0]*s[0])) * rn)
	out[3] = float32(math.Sqrt(float64(n*s[3]-s[1]*s[1])) * rn)
}

// index fills the energy and statistics tables of a reference plane.
func (p *plane) index(l *layout) {
	pw, ph := p.pw, p.ph
	iw := pw + 1
	c := l.c
	p.energy = make([]int64, pw*ph)
	p.blank = make([]int32, (pw+1)*(ph+1))
	for y := range ph {
		var run int32
		for x := range pw {
			if x+c <= pw && y+c <= ph {
				e := p.boxEnergy(x, y, c, c)
				p.energy[y*pw+x] = e
				if e == 0 {
					run++
				}
			}
			p.blank[(y+1)*iw+x+1] = p.blank[y*iw+x+1] + run
		}
	}
	p.tab = pw * ph
	p.stats = make([]stat4, len(l.sizes)*p.tab)
	for t, sz := range l.sizes {
		bw, bh := sz[0], sz[1]
		n := int64(bw * bh)
		rn := 1 / math.Sqrt(float64(n))
		st := p.stats[t*p.tab : (t+1)*p.tab]
		for y := 0; y+bh <= ph; y++ {
			top := p.sums[y*iw : (y+1)*iw]
			bot := p.sums[(y+bh)*iw : (y+bh+1)*iw]
			out := st[y*pw : (y+1)*pw]
			for x := 0; x+bw <= pw; x++ {
				a, b, c, d := &top[x], &top[x+bw], &bot[x], &bot[x+bw]
				sh, sv := d[0]-b[0]-c[0]+a[0], d[1]-b[1]-c[1]+a[1]
				qh, qv := d[2]-b[2]-c[2]+a[2], d[3]-b[3]-c[3]+a[3]
				o := &out[x]
				o[0] = float32(float64(sh) * rn)
				o[1] = float32(float64(sv) * rn)
				o[2] = float32(math.Sqrt(float64(n*qh-sh*sh)) * rn)
				o[3] = float32(math.Sqrt(float64(n*qv-sv*sv)) * rn)
			}
		}
	}
	p.sums = nil // no longer needed: a reference plane's blocks are in the tables
}

// blanks counts the windows without ink whose corner positions lie in the
// w×h rectangle of corner positions from rc.
func (p *plane) blanks(rc, w, h int) int32 {
	x, y := rc%p.pw, rc/p.pw
	iw := p.pw + 1
	return p.blank[(y+h)*iw+x+w] - p.blank[y*iw+x+w] - p.blank[(y+h)*iw+x] + p.blank[y*iw+x]
}

// layout partitions the context window into blocks at a few levels,
// coarse to fine: k×k blocks for each k of blocksPerSide not above c.
// A candidate is checked against each level's bound in turn, and then
// summed exactly band by band, a band being a row of the finest level's
// blocks.
type layout struct {
	c      int
	levels []level
	sizes  [][2]int // the distinct block sizes (width, height)
	edges  []int    // the finest level's block edges, 0 … c
}

type level struct {
	k          int   // blocks per side
	x, y, size []int // each block's top-left corner in the window, and its size (an index into layout.sizes)
	off        []int // the index of each block's statistics in the reference plane's stats less the window's corner position
}

// blocksPerSide are the levels' partitions. Others (1, 2, 4, 8; 1, 2, 4,
// 6; 1, 3, 6, 10; …) measured within 10%, none faster on the example pair.
var blocksPerSide = []int{1, 3, 6}

func newLayout(c int) layout {
	l := layout{c: c}
	idx := map[[2]int]int{}
	for _, k := range blocksPerSide {
		if k > c {
			break
		}
		e := make([]int, k+1)
		for i := range e {
			e[i] = i * c / k
		}
		lv := level{k: k}
		for by := range k {
			for bx := range k {
				sz := [2]int{e[bx+1] - e[bx], e[by+1] - e[by]}
				t, ok := idx[sz]
				if !ok {
					t = len(l.sizes)
					idx[sz] = t
					l.sizes = append(l.sizes, sz)
				}
				lv.x = append(lv.x, e[bx])
				lv.y = append(lv.y, e[by])
				lv.size = append(lv.size, t)
			}
		}
		l.levels = append(l.levels, lv)
		l.edges = e
	}
	return l
}

// matcher holds what every pixel's search shares.
type matcher struct {
	test, ref plane
	c         int
	w         int
	xi, yj    float32 // X/I and Y/J in single precision
	rel       float64 // relative bound on single-precision accumulation error
	lay       layout
	maxOff    int // the largest block offset of the layout (see level.off)
	// slack terms for the bounds' single-precision rounding (see flim)
	slackRel, slackSqrt float64
}

func newMatcher(tf, rf *features, p Params) *matcher {
	hc := p.Context / 2
	m := &matcher{
		test: newPlane(tf, hc+1),
		ref:  newPlane(rf, hc+2),
		c:    p.Context, w: p.Warp,
		xi:  float32(rf.w) / float32(tf.w),
		yj:  float32(rf.h) / float32(tf.h),
		rel: 4 * float64(p.Context*p.Context) * 0x1p-24,
		lay: newLayout(p.Context),
	}
	m.ref.index(&m.lay)
	for li := range m.lay.levels {
		lv := &m.lay.levels[li]
		for b := range lv.x {
			lv.off = append(lv.off, lv.size[b]*m.ref.tab+lv.y[b]*m.ref.pw+lv.x[b])
			m.maxOff = max(m.maxOff, lv.off[b])
		}
	}
	// A level's bound sums K (at most nstat times the finest level's
	// blocks) squared differences of stored statistics of magnitude at
	// most M = 128·c (a channel's values lie in −127 … 128). Each stored
	// value is within u·M of its own (u = 2⁻²⁴), each difference within
	// about 4u·M, so the computed bound is at most
	// (1 + (K+1)u)(B + 8u·M·√(K·B) + 16K·u²M²) for a true bound B:
	// flim(lim) is at least that for every B ≤ lim.
	const u = 0x1p-24
	k := float64(nstat * len(m.lay.levels[len(m.lay.levels)-1].x))
	mm := 128 * float64(p.Context)
	m.slackRel = (k+2)*u + 1e-9
	m.slackSqrt = 8 * u * mm * math.Sqrt(k) * (1 + 1e-3)
	return m
}

// flim is the limit a computed bound must exceed for the candidate's
// distance to exceed lim.
func (m *matcher) flim(lim int64) float64 {
	l := float64(lim)
	return l*(1+m.slackRel) + m.slackSqrt*math.Sqrt(l) + 1
}

// ssd is the exact integer distance between two context windows (in units
// of 1/255²), or any value above limit once it is known to exceed it.
func (m *matcher) ssd(tb, rb int, limit int64) int64 {
	n := 2 * m.c
	var s int64
	for range m.c {
		s += rowsSSD(m.test.v16[tb:], m.ref.v16[rb:], n, 0, 0, 1)
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

// blankDist is dist(tb, rb, 0, false) for a reference window without ink
// (all features flat).
func (m *matcher) blankDist(tb int) float32 {
	var d float32
	for range m.c {
		a := m.test.v[tb : tb+2*m.c]
		for k := 0; k < len(a); k += 2 {
			dh, dv := a[k], a[k+1]
			t := float64(float64(dh*dh+dv*dv) * termScale)
			d = float32(float64(d) + t)
		}
		tb += m.test.stride
	}
	return d
}

// probe is one test window's statistics at every level, and the scratch
// space of its search.
type probe struct {
	blocks [][]tblock // per level
	lb     []float32  // the current candidate's bound per block of the finest level, in the order of blocks
	band   []float64  // the same per band (block row)
	bands  []int      // the finest level's block rows, by decreasing test energy
	tb     int        // the test window's offset in test.v
	cand   []int32    // candidates left by the first level: x, y pairs
	pass   []int32    // scratch: a row's candidates the first level leaves
	keys   []float32  // scratch for sortByInk
}

// tblock is one block of a test window at some level: its statistics, the
// index of the matching block's statistics in ref.stats less the candidate
// window's corner position, and its index in the level's layout.
type tblock struct {
	t    stat4
	off  int32
	part int32
}

func (m *matcher) prepare(i, j int, pr *probe) {
	hc := m.c / 2
	t := &m.test
	pr.tb = t.at(i, j, hc)
	x0, y0 := i+t.pad-hc, j+t.pad-hc
	if pr.blocks == nil {
		pr.blocks = make([][]tblock, len(m.lay.levels))
	}
	var st stat4
	for li, lv := range m.lay.levels {
		bs := pr.blocks[li][:0]
		for b := range lv.x {
			sz := m.lay.sizes[lv.size[b]]
			n := sz[0] * sz[1]
			stat(t.box(x0+lv.x[b], y0+lv.y[b], sz[0], sz[1]), int64(n), 1/math.Sqrt(float64(n)), &st)
			bs = append(bs, tblock{st, int32(lv.off[b]), int32(b)})
		}
		// Blocks with much ink first: they tend to decide a bound
		// earliest. (The order changes only the rounding of the sum, which
		// the slack covers.)
		if li > 0 {
			sortByInk(bs, &pr.keys)
		}
		pr.blocks[li] = bs
	}
	fine := m.lay.levels[len(m.lay.levels)-1]
	pr.lb = slices.Grow(pr.lb[:0], len(fine.x))[:len(fine.x)]
	pr.band = slices.Grow(pr.band[:0], fine.k)[:fine.k]
	e := m.lay.edges
	pr.bands = pr.bands[:0]
	for k := range len(e) - 1 {
		pr.bands = append(pr.bands, k)
	}
	energy := func(k int) int64 { return t.boxEnergy(x0, y0+e[k], m.c, e[k+1]-e[k]) }
	slices.SortStableFunc(pr.bands, func(p, q int) int { return cmp.Compare(energy(q), energy(p)) })
}

// sortByInk orders blocks by decreasing squared statistics (ties in
// layout order), keys being scratch space: an insertion sort, the levels
// having few blocks.
func sortByInk(bs []tblock, keys *[]float32) {
	k := slices.Grow((*keys)[:0], len(bs))[:len(bs)]
	*keys = k
	for i := range bs {
		t := &bs[i].t
		key := t[0]*t[0] + t[1]*t[1] + t[2]*t[2] + t[3]*t[3]
		b := bs[i]
		j := i
		for ; j > 0 && k[j-1] < key; j-- {
			k[j], bs[j] = k[j-1], bs[j-1]
		}
		k[j], bs[j] = key, b
	}
}

// within returns the exact distance between the probe's test window and
// the reference window at corner position rc (offset rb in ref.v), and
// true, if it is at most lim; false if it is not. The bounds of the
// levels from level from up to the finest pass over most candidates
// (the first pass checks the others); the others are
// summed band by band, largest test bands first, until the sum plus the
// bound on the bands left exceeds lim.
func (m *matcher) within(pr *probe, rc, rb, from int, lim int64, flim float64) (int64, bool) {
	nl := len(pr.blocks)
	f := float32(flim)
	base := rc
	st := m.ref.stats
	_ = st[base+m.maxOff] // the bound kernels read st without bounds checks
	for li := from; li < nl-1; li++ {
		if bound(pr.blocks[li], st, base, f) > f {
			return 0, false
		}
	}
	lb := float64(boundParts(pr.blocks[nl-1], st, base, f, pr.lb))
	if lb > flim {
		return 0, false
	}
	k := m.lay.levels[nl-1].k
	e := m.lay.edges
	n := 2 * m.c
	band := pr.band
	clear(band)
	for q, b := range pr.blocks[nl-1] {
		band[int(b.part)/k] += float64(pr.lb[q])
	}
	var rest float64 // the bound on the bands not summed yet, from the parts
	for _, v := range band {
		rest += v
	}
	var s int64
	for _, by := range pr.bands {
		rest -= band[by]
		r := e[by]
		s += rowsSSD(m.test.v16[pr.tb+r*m.test.stride:], m.ref.v16[rb+r*m.ref.stride:], n, m.test.stride, m.ref.stride, e[by+1]-r)
		if s > lim || float64(s)+rest > flim {
			return 0, false
		}
	}
	return s, true
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
func (m *matcher) pixel(i, j int, hint *[2]int, keep []candidate, pr *probe) (float32, []candidate) {
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
	// A test window without ink matches any reference window without ink
	// exactly.
	whole := m.test.boxEnergy(i+m.test.pad-hc, j+m.test.pad-hc, m.c, m.c)
	if whole == 0 && m.ref.blanks(m.ref.corner(x0, y0, hc), x1-x0+1, y1-y0+1) > 0 {
		return 0, keep
	}
	// The candidate that was best for the previous pixel is often an exact
	// match again.
	hx, hy := ip+hint[0], jp+hint[1]
	inRange := hx >= x0 && hx <= x1 && hy >= y0 && hy <= y1
	if inRange && m.ssd(tb, m.ref.at(hx, hy, hc), 0) == 0 {
		return 0, keep
	}
	cut := func(s int64) int64 { return s + int64(float64(s)*m.rel) + 1 }
	bestAt := [2]int{ip, jp}
	m.prepare(i, j, pr)
	lim := cut(best)
	flim := m.flim(lim)
	try := func(x, y, from int) {
		s, ok := m.within(pr, m.ref.corner(x, y, hc), m.ref.at(x, y, hc), from, lim, flim)
		if ok {
			keep = append(keep, candidate{x, y, s})
			if s < best {
				best, bestAt = s, [2]int{x, y}
				lim = cut(best)
				flim = m.flim(lim)
			}
		}
	}
	// Otherwise it is tried first, for a low limit early.
	hinted := inRange && (hx != x1 || hy != y1)
	if hinted {
		try(hx, hy, 1)
	}
	// The first level over every candidate, keeping those it does not
	// pass over. A candidate at distance 0, which ends the search, is among
	// them; its window's energy equals the test window's, exactly, which
	// few others' do.
	// The second level (when there is one before the finest) is checked
	// in the same pass.
	t0 := &pr.blocks[0][0].t
	off0 := m.lay.levels[0].off[0]
	var mid []tblock
	from := 1 // the first level within checks for the candidates left
	if len(pr.blocks) >= 3 {
		mid, from = pr.blocks[1], 2
	}
	pr.cand = pr.cand[:0]
	pr.pass = slices.Grow(pr.pass[:0], x1-x0+1)[:x1-x0+1]
	for y := y0; y <= y1; y++ {
		c0 := m.ref.corner(x0, y, hc)
		en := m.ref.energy[c0 : c0+x1-x0+1]
		// The row's candidates that the levels do not pass over, at the
		// limit the row starts with (a lower one found in the row applies
		// from the next candidate tried on).
		_ = m.ref.stats[c0+x1-x0+m.maxOff] // the kernel reads without bounds checks
		n := scanRow(m.ref.stats, c0, x1-x0+1, off0, t0, mid, float32(flim), pr.pass)
		for _, k := range pr.pass[:n] {
			x := x0 + int(k)
			if en[k] == whole && m.ssd(tb, m.ref.at(x, y, hc), 0) == 0 {
				*hint = [2]int{x - ip, y - jp}
				return 0, keep
			}
			if (x == x1 && y == y1) || (hinted && x == hx && y == hy) {
				continue
			}
			if en[k] == 0 { // without ink: the distance is the test window's energy
				if whole <= lim {
					keep = append(keep, candidate{x, y, whole})
					if whole < best {
						best, bestAt = whole, [2]int{x, y}
						lim = cut(best)
						flim = m.flim(lim)
					}
				}
				continue
			}
			pr.cand = append(pr.cand, int32(x), int32(y))
		}
	}
	for k := 0; k < len(pr.cand); k += 2 {
		try(int(pr.cand[k]), int(pr.cand[k+1]), from)
	}
	*hint = [2]int{bestAt[0] - ip, bestAt[1] - jp}
	last := m.ref.at(x1, y1, hc)
	// The earlier candidates' single-precision minimum lies within
	// rounding of best/255²; the last candidate's sum usually crosses
	// that whole interval in one term, which decides where it stops
	// without the minimum itself.
	g := m.rel / 2
	lo, hi := float64(best)*termScale*(1-g), float64(best)*termScale*(1+g)
	if d, ok := m.crossing(tb, last, lo, hi); ok {
		return d, keep
	}
	// Reference windows without ink (many, near ink-poor test windows)
	// all give the test window's own sum.
	minD := float32(math.MaxFloat32)
	blank := float32(-1)
	for _, c := range keep {
		if c.s <= lim {
			if m.ref.energy[m.ref.corner(c.x, c.y, hc)] == 0 {
				if blank < 0 {
					blank = m.blankDist(tb)
				}
				minD = min(minD, blank)
				continue
			}
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
	m := newMatcher(tf, rf, p)
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
			var pr probe
			for j := range rows {
				var hint [2]int
				for i := 0; i < I; i += step {
					warp[j*I+i], keep = m.pixel(i, j, &hint, keep, &pr)
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
	if err := checkAll(test, ref, p, l); err != nil {
		return 0, err
	}
	return bidm(test, derive(test, p.Size), derive(ref, p.Size), p), nil
}

// checkAll validates the parameters and both images.
func checkAll(test, ref *Image, p Params, l Limits) error {
	if err := p.validate(); err != nil {
		return err
	}
	for _, g := range []*Image{test, ref} {
		if err := g.check(l); err != nil {
			return err
		}
	}
	return nil
}

// bidm is BIDM from the images' derivative features.
func bidm(test *Image, tf, rf *features, p Params) float64 {
	warp, mx := warpMap(tf, rf, p)
	if !(mx > 0) {
		return 1
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
	return float64(float32(cp) / float32(fg))
}
