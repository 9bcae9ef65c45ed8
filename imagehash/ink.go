package imagehash

import (
	"encoding/binary"
	"image"
	"math"
	"math/bits"
	"sync"
)

// InkSide is the side of an Ink bitmap: the hash canvas.
const InkSide = 64

// Ink is the normalized ink of an image as a bitmap: the hash canvas
// (64×64, pen normalized) with every pixel at least half ink set. Row y
// is word y, column x its bit x. It is what Verify compares a candidate
// pair by (Chamfer); 512 bytes are stored with each training image.
type Ink [InkSide]uint64

// inkOf thresholds a normalized canvas into an Ink, sampling it at
// InkSide×InkSide when it has another size.
func inkOf(c *image.Gray) Ink {
	var k Ink
	w, h := c.Rect.Dx(), c.Rect.Dy()
	if w <= 0 || h <= 0 {
		return k
	}
	for y := 0; y < InkSide; y++ {
		row := c.Pix[(y*h/InkSide)*c.Stride:]
		var bitsRow uint64
		for x := 0; x < InkSide; x++ {
			if row[x*w/InkSide] < 128 {
				bitsRow |= 1 << x
			}
		}
		k[y] = bitsRow
	}
	return k
}

// IsZero reports whether the ink is empty: absent.
func (k *Ink) IsZero() bool {
	return *k == Ink{}
}

// Bytes returns the ink as InkBytes bytes, row by row, little endian.
func (k *Ink) Bytes() []byte {
	out := make([]byte, 0, InkBytes)
	for _, w := range k {
		out = binary.LittleEndian.AppendUint64(out, w)
	}
	return out
}

// InkBytes is the length of Ink.Bytes.
const InkBytes = InkSide * 8

// InkFromBytes reads what Ink.Bytes wrote; false when b has another length.
func InkFromBytes(b []byte) (Ink, bool) {
	var k Ink
	if len(b) != InkBytes {
		return k, false
	}
	for i := range k {
		k[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return k, true
}

// Pixels returns the number of ink pixels.
func (k *Ink) Pixels() int {
	n := 0
	for _, w := range k {
		n += bits.OnesCount64(w)
	}
	return n
}

// edges returns the ink pixels with a ground pixel among their four
// neighbours (outside the canvas counts as ground): the outline of the
// pen-normalized strokes, which the pen's width does not move.
func (k *Ink) edges() Ink {
	var e Ink
	for y, w := range k {
		up, down := uint64(0), uint64(0)
		if y > 0 {
			up = k[y-1]
		}
		if y < InkSide-1 {
			down = k[y+1]
		}
		inner := w & up & down & (w << 1) & (w >> 1)
		e[y] = w &^ inner
	}
	return e
}

// distMap is a chamfer distance transform of an InkSide×InkSide grid:
// each cell's distance to the nearest set cell, in thirds of a pixel
// (3-4 chamfer weights), capped at 255.
type distMap [InkSide * InkSide]uint8

// transform sets d to the distance transform of k.
func (d *distMap) transform(k *Ink) {
	const far = 255
	const n = InkSide
	for y := 0; y < n; y++ {
		w := k[y]
		for x := 0; x < n; x++ {
			if w>>x&1 != 0 {
				d[y*n+x] = 0
			} else {
				d[y*n+x] = far
			}
		}
	}
	relax := func(i int, v uint8, add int) {
		if s := int(v) + add; s < int(d[i]) {
			d[i] = uint8(s)
		}
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			i := y*n + x
			if x > 0 {
				relax(i, d[i-1], 3)
			}
			if y > 0 {
				relax(i, d[i-n], 3)
				if x > 0 {
					relax(i, d[i-n-1], 4)
				}
				if x < n-1 {
					relax(i, d[i-n+1], 4)
				}
			}
		}
	}
	for y := n - 1; y >= 0; y-- {
		for x := n - 1; x >= 0; x-- {
			i := y*n + x
			if x < n-1 {
				relax(i, d[i+1], 3)
			}
			if y < n-1 {
				relax(i, d[i+n], 3)
				if x < n-1 {
					relax(i, d[i+n+1], 4)
				}
				if x > 0 {
					relax(i, d[i+n-1], 4)
				}
			}
		}
	}
}

// directed returns the trimmed mean distance, in pixels, from the set
// cells of a to the nearest set cell of the grid d was made from, leaving
// out the share trim of the farthest cells (ink a cut lost); 255/3 when a
// is empty.
func (d *distMap) directed(a *Ink, trim float64) float64 {
	var hist [256]int
	n := 0
	for y, w := range a {
		for w != 0 {
			x := bits.TrailingZeros64(w)
			w &= w - 1
			hist[d[y*InkSide+x]]++
			n++
		}
	}
	if n == 0 {
		return 255.0 / 3
	}
	keep := n - int(trim*float64(n))
	sum, got := 0, 0
	for v := 0; v < 256 && got < keep; v++ {
		c := min(hist[v], keep-got)
		sum += c * v
		got += c
	}
	return float64(sum) / float64(keep) / 3
}

// inkTrim is the share of each side's outline the chamfer distance leaves
// out (the farthest): ink lost where an edge cut it, JPEG specks.
const inkTrim = 0.05

// queryInk holds the outlines of a query's canvases and their distance
// maps, made once, on first use, for all its candidates.
type queryInk struct {
	once     sync.Once
	inks     []*Ink
	outlines []Ink
	dists    []distMap
}

func (q *queryInk) maps() {
	q.once.Do(func() {
		q.outlines = make([]Ink, len(q.inks))
		q.dists = make([]distMap, len(q.inks))
		for i, k := range q.inks {
			q.outlines[i] = k.edges()
			q.dists[i].transform(&q.outlines[i])
		}
	})
}

// InkDistance is the chamfer distance of two images' normalized ink, in
// pixels of the 64×64 canvas: the mean distance from each point of one's
// outline (the pen-normalized strokes' edges) to the nearest point of the
// other's, the farthest inkTrim of each left out, the two directions
// averaged. When a has probes (a query), the smallest over its probes'
// canvases and its own. It is +Inf when either has no ink bitmap.
func InkDistance(a, b Hashes) float64 {
	if a.Ink.IsZero() || b.Ink.IsZero() {
		return math.Inf(1)
	}
	if a.Probes == nil && b.Probes != nil {
		a, b = b, a
	}
	q := a.query
	if q == nil {
		q = newQueryInk(a)
	}
	q.maps()
	bo := b.Ink.edges()
	var db distMap
	db.transform(&bo)
	best := math.Inf(1)
	for i := range q.outlines {
		d := (db.directed(&q.outlines[i], inkTrim) + q.dists[i].directed(&bo, inkTrim)) / 2
		best = min(best, d)
	}
	return best
}

// newQueryInk collects an image's ink and its probes' inks.
func newQueryInk(h Hashes) *queryInk {
	q := &queryInk{inks: []*Ink{&h.Ink}}
	if h.Probes != nil {
		for i := range h.Probes {
			if k := &h.Probes[i].Ink; !k.IsZero() {
				q.inks = append(q.inks, k)
			}
		}
	}
	return q
}
