package imagehash

import (
	"image"
	"math"
	"math/bits"
	"sync"
)

// Pen normalization. The same strokes drawn by two pipelines differ most
// in the pen: its width relative to the ink box, anti-aliasing, and which
// gaps between strokes it closes. Drawing a path with a pen of width p
// gives path ⊕ disc(p); dilating that by (T−p)/2 gives path ⊕ disc(T),
// whatever p ≤ T was; eroding it by (p−T)/2 gives path ⊕ disc(T) closed
// by disc((p−T)/2) when p > T (the gaps the thick pen closed stay closed,
// but no stroke vanishes). So every image's ink is redrawn with one
// common pen T: its pen width is estimated (twice the ink area over the
// ink's edge count); the strokes' own box, the ink box less the pen, is
// what is fitted to a work canvas twice as fine as the hash canvas, drawn
// with T (penBox), so that a thick pen does not squeeze the strokes into
// less of the canvas than a thin one; the ink is resampled to it (a cell
// is ink when enough of it is) and dilated by what is missing up to T or
// eroded by the excess, per axis, as the canvas may stretch the two axes
// differently.

// penTarget is the common pen width, in cells of the work canvas (twice
// the hash canvas): 11 cells of 128, bolder than the pens of the CROHME
// bitmaps and of rasterizers with up to a 6 px pen on a 90 px high ink box.
const penTarget = 11.0

// penWidth estimates the width of the pen in pixels of c (ink ≤ t): twice
// the ink area over the number of ink–ground edges, which is the width of
// a long stroke of any width.
func penWidth(c Gray, t uint8) float64 {
	return penOfRuns(inkRuns(c, t))
}

// penOfRuns is penWidth from inkRuns' counts.
func penOfRuns(area, rows, cols int) float64 {
	edges := 2 * (rows + cols) // each run has an edge at either end
	if edges == 0 {
		return 1
	}
	return 2 * float64(area) / float64(edges)
}

// inkRuns returns the number of ink pixels of c (ink ≤ t), of its runs
// along rows and of its runs along columns.
func inkRuns(c Gray, t uint8) (area, rows, cols int) {
	w := c.W
	isInk := inkTable(t)
	above := make([]uint8, w) // the row above: 1 where ink
	for y := 0; y < c.H; y++ {
		var left uint8
		for x, p := range c.Pix[y*w : (y+1)*w] {
			k := isInk[p]
			area += int(k)
			rows += int(k &^ left)     // a run starts where the pixel left of it is ground
			cols += int(k &^ above[x]) // and where the pixel above it is
			above[x], left = k, k
		}
	}
	return area, rows, cols
}

// inkTable is 1 for the pixel values that are ink (at most t), 0 for the
// others: a lookup in place of a branch per pixel.
func inkTable(t uint8) (k [256]uint8) {
	for v := 0; v <= int(t); v++ {
		k[v] = 1
	}
	return k
}

// penCanvas draws the ink of c (ink ≤ t) on a size×size canvas (white
// ground), redrawn with a common pen: the ink is resampled to a work
// canvas twice as fine (penBox), every cell holding ink made ink, the ink
// dilated or eroded to the target pen width, and the result averaged down
// to size.
// When parts is not nil, it is set to the number of connected pieces of
// ink on the work canvas before thickening.
func penCanvas(c Gray, t uint8, size int, canvas Canvas, parts *int) *image.Gray {
	return penCanvasWith(c, t, penWidth(c, t), size, canvas, parts)
}

// penCanvasWith is penCanvas with the pen width p given rather than
// estimated.
func penCanvasWith(c Gray, t uint8, p float64, size int, canvas Canvas, parts *int) *image.Gray {
	S := 2 * size
	dw, dh, ox, oy := penBox(c.W, c.H, p, S, canvas)
	kx, ky := float64(c.W)/float64(dw), float64(c.H)/float64(dh) // source pixels per cell
	wk := penWorkPool.Get().(*penWork)
	defer penWorkPool.Put(wk)
	// Ink coverage of each cell, by area, separably: each source row's ink
	// averaged into the cells' columns once, then the rows into cells. A
	// row without ink adds nothing, and is skipped.
	cov := resize(&wk.cov, S*S)
	clear(cov)
	xs, ys := spans(c.W, dw), spans(c.H, dh)
	rows := resize(&wk.rows, c.H*dw)
	ink := resize(&wk.ink, c.W)
	empty := resize(&wk.empty, c.H)
	isInk := inkTable(t)
	for y := 0; y < c.H; y++ {
		n := 0
		for x, p := range c.Pix[y*c.W : (y+1)*c.W] {
			ink[x] = float32(isInk[p])
			n += int(isInk[p])
		}
		if empty[y] = n == 0; empty[y] {
			continue
		}
		dst := rows[y*dw : (y+1)*dw]
		for tx, sx := range xs {
			var acc float32
			for j, wx := range sx.w {
				acc += wx * ink[sx.first+j]
			}
			dst[tx] = acc
		}
	}
	// The box may overhang the canvas by what the pen adds beyond the
	// common pen; that ink is within what erode takes away.
	x0, x1 := max(0, -ox), min(dw, S-ox)
	for ty, sy := range ys {
		if oy+ty < 0 || oy+ty >= S {
			continue
		}
		line := cov[(oy+ty)*S+ox+x0 : (oy+ty)*S+ox+x1]
		for k, wy := range sy.w {
			if empty[sy.first+k] {
				continue
			}
			src := rows[(sy.first+k)*dw+x0 : (sy.first+k)*dw+x1]
			for tx, v := range src {
				line[tx] += wy * v
			}
		}
	}
	thr := float32(0.4 / max(1, kx, ky))
	g := &wk.cells
	g.reset(S)
	for y := 0; y < S; y++ {
		for x, v := range cov[y*S : (y+1)*S] {
			if v >= thr {
				g.set(x, y)
			}
		}
	}
	if parts != nil {
		bin := resize(&wk.bin, S*S)
		for i, v := range cov {
			bin[i] = 0
			if v >= thr {
				bin[i] = 1
			}
		}
		*parts = components(bin, S)
	}
	px, py := max(1, p/kx), max(1, p/ky)
	ex, ey := int((penTarget-px)/2+0.5), int((penTarget-py)/2+0.5)
	g.dilate(max(ex, 0), max(ey, 0))
	g.erode(max(-ex, 0), max(-ey, 0))
	// Average 2×2 cells down to the canvas.
	out := image.NewGray(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			out.Pix[y*size+x] = uint8(255 - g.ink2x2(x, y)*255/4)
		}
	}
	return out
}

// penWork holds penCanvasWith's work buffers, reused across calls (a
// training image is drawn once, a query a few dozen times) so that
// hashing does not keep the garbage collector busy.
type penWork struct {
	cov, rows, ink []float32
	empty          []bool
	bin            []uint8
	cells          cells
}

var penWorkPool = sync.Pool{New: func() any { return new(penWork) }}

// resize returns *b with length n, reallocated when too small; its
// contents are not cleared.
func resize[T any](b *[]T, n int) []T {
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return *b
}

// penBox is the box a w×h ink box drawn with a pen p pixels wide takes on
// an S×S work canvas (dw×dh at ox, oy): the strokes' own box (the ink box
// less the pen) is scaled so that, drawn with the common pen, it fills
// the canvas (Stretch, each axis; Aspect, the longer one, centred). An
// axis the pen fills more than half of (a minus sign's height) is fitted
// whole, as fitBox does.
func penBox(w, h int, p float64, S int, canvas Canvas) (dw, dh, ox, oy int) {
	scale := func(n int) float64 {
		if float64(n) < 2*p {
			return float64(S) / float64(n)
		}
		return (float64(S) - penTarget) / (float64(n) - p)
	}
	sx, sy := scale(w), scale(h)
	if canvas != Stretch {
		sx = min(sx, sy)
		sy = sx
	}
	dw, dh = max(1, int(float64(w)*sx+0.5)), max(1, int(float64(h)*sy+0.5))
	return dw, dh, (S - dw) / 2, (S - dh) / 2
}

// cells is an S×S grid of cells, ink or ground, one bit each: row y is
// words y·W to (y+1)·W, cell x bit x%64 of word x/64. The pen is
// normalized on it a word at a time.
type cells struct {
	S, W int
	w    []uint64
	tmp  []uint64 // a copy of w for the vertical passes
}

// reset makes c an empty S×S grid, reusing its storage.
func (c *cells) reset(S int) {
	c.S, c.W = S, (S+63)/64
	clear(resize(&c.w, S*c.W))
	resize(&c.tmp, S*c.W)
}

// set makes cell (x, y) ink.
func (c *cells) set(x, y int) { c.w[y*c.W+x/64] |= 1 << (x % 64) }

// pad sets (v) or clears the bits beyond column S-1 of each row's last
// word.
func (c *cells) pad(v bool) {
	r := c.S % 64
	if r == 0 {
		return
	}
	hi := ^uint64(0) << r
	for y := 0; y < c.S; y++ {
		i := y*c.W + c.W - 1
		if v {
			c.w[i] |= hi
		} else {
			c.w[i] &^= hi
		}
	}
}

// dilate grows the ink by ex cells left and right and ey cells up and
// down (a rectangular pen), separably: a cell becomes ink when the
// nearest ink along the axis is within reach. Cells outside the grid are
// ground.
func (c *cells) dilate(ex, ey int) {
	c.morph(ex, ey, false)
}

// erode thins the ink by ex cells left and right and ey cells up and
// down, separably: a cell stays ink when every cell within reach along
// the axis is ink (outside the grid counts as ink, so that strokes
// touching the ink box's edge keep touching it). Eroding a pen of width
// p by (p−T)/2 leaves at least a pen of width T along the strokes, as
// dilate grows a thinner pen to T.
func (c *cells) erode(ex, ey int) {
	c.morph(ex, ey, true)
}

// morph dilates (erode false) or erodes the grid by ex cells along rows
// and ey along columns, one cell at a time: reach e is e steps of reach 1.
func (c *cells) morph(ex, ey int, erode bool) {
	W := c.W
	var out uint64 // what lies beyond the grid: ground, or ink for erode
	if erode {
		out = ^uint64(0)
	}
	for range ex {
		c.pad(erode)
		for y := 0; y < c.S; y++ {
			r := c.w[y*W : (y+1)*W]
			prev := out // the word left of r[i], as it was
			for i, v := range r {
				next := out
				if i+1 < W {
					next = r[i+1]
				}
				left := v<<1 | prev>>63  // cell x holds cell x-1
				right := v>>1 | next<<63 // cell x holds cell x+1
				if erode {
					r[i] = v & left & right
				} else {
					r[i] = v | left | right
				}
				prev = v
			}
		}
	}
	c.pad(false)
	for range ey {
		copy(c.tmp, c.w)
		for y := 0; y < c.S; y++ {
			r := c.w[y*W : (y+1)*W]
			for i := range r {
				up, down := out, out
				if y > 0 {
					up = c.tmp[(y-1)*W+i]
				}
				if y+1 < c.S {
					down = c.tmp[(y+1)*W+i]
				}
				if erode {
					r[i] &= up & down
				} else {
					r[i] |= up | down
				}
			}
		}
	}
	c.pad(false)
}

// ink2x2 is the number of ink cells among (2x, 2y), (2x+1, 2y),
// (2x, 2y+1) and (2x+1, 2y+1).
func (c *cells) ink2x2(x, y int) int {
	i, s := x/32, uint(2*x%64)
	top := c.w[2*y*c.W+i] >> s & 3
	bottom := c.w[(2*y+1)*c.W+i] >> s & 3
	return bits.OnesCount64(top) + bits.OnesCount64(bottom)
}

// reframe returns c with a share e of its width or height added as ground
// (e > 0) or taken away (e < 0) on one side (0 left, 1 top, 2 right,
// 3 bottom).
func reframe(c Gray, side int, e float64) Gray {
	dx0, dy0, dx1, dy1 := 0, 0, 0, 0
	n := func(l int) int { return int(math.Round(e * float64(l))) }
	switch side {
	case 0:
		dx0 = n(c.W)
	case 1:
		dy0 = n(c.H)
	case 2:
		dx1 = n(c.W)
	default:
		dy1 = n(c.H)
	}
	W, H := c.W+dx0+dx1, c.H+dy0+dy1
	if W < 1 || H < 1 {
		return c
	}
	out := Gray{W: W, H: H, Pix: make([]uint8, W*H)}
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for y := 0; y < H; y++ {
		sy := y - dy0
		if sy < 0 || sy >= c.H {
			continue
		}
		for x := 0; x < W; x++ {
			sx := x - dx0
			if sx >= 0 && sx < c.W {
				out.Pix[y*W+x] = c.Pix[sy*c.W+sx]
			}
		}
	}
	return out
}

// components counts the 8-connected pieces of ink (1 cells) of an S×S
// grid.
func components(g []uint8, S int) int {
	seen := make([]bool, len(g))
	var stack []int
	n := 0
	for i, v := range g {
		if v == 0 || seen[i] {
			continue
		}
		n++
		seen[i] = true
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%S, j/S
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= S || yy >= S {
						continue
					}
					k := yy*S + xx
					if g[k] != 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
	}
	return n
}
