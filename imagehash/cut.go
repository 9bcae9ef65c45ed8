package imagehash

import (
	"math"
	"math/bits"
	"slices"
)

// Cut variants. A cut at an edge can change the ink box more than the
// probes (ProbeShare at one side) restore: when the band it took held
// the ink's extreme on the other axis too (the leg of a subscript that
// reached lowest), or a whole symbol (a closing bar, a final "1" or
// dot), the rest of the ink is fitted to the canvas at another scale, by
// up to a tenth on either axis, and neither the pHash nor the edge key of
// any probe stays near the uncut copy's; and even where the box is
// restored, the uncut copy still has the ink the cut took. A query cannot
// know what it lost, so the training side makes the copy the cut would
// leave, at each side: its stored ink with the strokes beyond the cut
// line dropped with their pen (a symbol lying wholly beyond it goes
// whole), the rest refitted to the canvas ([Ink.CutVariant]), computed
// when the index is read, as the edge keys are. A query searches its own
// ink keys ([Hashes.CutKeys]) among every side's variants'
// ([Ink.CutVariantKeys], [Ink.Key]) within CutRadius, and [VerifyCut]
// verifies a pair only by the ink of the variant, as strictly as [Verify]
// by ink alone. A query's margins do not tell which side was cut: a cut
// that took a whole symbol with the gap before it leaves a margin at that
// side, and a pipeline that crops its ink and pads it evenly leaves the
// same margin at every side. (Until stop 48 only a side whose margin was
// at most half the opposite one's was searched; searching every side
// found 7 more of the stretch-256 copies of CROHME 2014 and added no
// wrong pair in the false-pair controls: see the README.)

// CutRadius is the Hamming radius within which a query's ink keys find a
// cut variant's.
const CutRadius = 10

// inkBasis[u][x] is the DCT-II basis over the ink canvas (dctBasis).
var inkBasis = dctBasis(InkSide)

// dctBasis returns the 8 lowest DCT-II basis vectors over n pixels:
// b[u][x] = cos(π(2x+1)u/2n).
func dctBasis(n int) (b [8][]float64) {
	for u := range b {
		b[u] = make([]float64, n)
		for x := range b[u] {
			b[u][x] = math.Cos(math.Pi * float64(2*x+1) * float64(u) / float64(2*n))
		}
	}
	return b
}

// dctKey returns the pHash of a bitmap given each of its rows' 8 lowest
// horizontal DCT coefficients (rows) and the vertical basis over as many
// rows (dctBasis(len(rows))): each of the 8×8 lowest coefficients set
// when it is above their median.
func dctKey(rows [][8]float64, basis *[8][]float64) uint64 {
	var coef [64]float64
	for v := range 8 {
		for u := range 8 {
			s := 0.0
			for y := range rows {
				s += rows[y][u] * basis[v][y]
			}
			coef[v*8+u] = s
		}
	}
	sorted := coef
	slices.Sort(sorted[:])
	median := (sorted[31] + sorted[32]) / 2
	var key uint64
	for i, c := range coef {
		if c > median {
			key |= 1 << i
		}
	}
	return key
}

// inkByteBasis[b][v][u] is the sum of inkBasis[u][x] over the set bits
// of v as the b-th byte of a row (x = 8b + bit): a row's coefficients
// are 8 table lookups.
var inkByteBasis = func() (t [8][256][8]float64) {
	for b := range t {
		for v := range t[b] {
			for bit := range 8 {
				if v>>bit&1 != 0 {
					for u := range 8 {
						t[b][v][u] += inkBasis[u][8*b+bit]
					}
				}
			}
		}
	}
	return t
}()

// Key returns the ink key of an ink bitmap: each of the 8×8 lowest DCT
// coefficients of the whole bitmap set when it is above their median (a
// pHash of the bitmap). It is 0 for an empty bitmap.
func (k *Ink) Key() uint64 {
	if k.IsZero() {
		return 0
	}
	var rows [InkSide][8]float64 // each row's 8 lowest horizontal coefficients
	for y := range rows {
		for b, w := 0, k[y]; w != 0; b, w = b+1, w>>8 {
			if t := &inkByteBasis[b][w&0xff]; w&0xff != 0 {
				for u := range 8 {
					rows[y][u] += t[u]
				}
			}
		}
	}
	return dctKey(rows[:], &inkBasis)
}

// inkPen is the common pen's width in pixels of the ink canvas.
const inkPen = penTarget / 2

// box returns the bounding box of the set pixels, x0 ≤ x < x1, y0 ≤ y <
// y1; x1 is 0 when the bitmap is empty.
func (k *Ink) box() (x0, y0, x1, y1 int) {
	var or uint64
	y0, y1 = InkSide, 0
	for y, w := range k {
		if w != 0 {
			or |= w
			y0, y1 = min(y0, y), y+1
		}
	}
	if or == 0 {
		return 0, 0, 0, 0
	}
	return bits.TrailingZeros64(or), y0, InkSide - bits.LeadingZeros64(or), y1
}

// transposed returns the bitmap with its rows and columns swapped.
func (k *Ink) transposed() Ink {
	var t Ink
	for y, w := range k {
		for w != 0 {
			x := bits.TrailingZeros64(w)
			w &= w - 1
			t[x] |= 1 << y
		}
	}
	return t
}

// mirrored returns the bitmap mirrored left to right.
func (k *Ink) mirrored() Ink {
	var m Ink
	for y, w := range k {
		m[y] = bits.Reverse64(w)
	}
	return m
}

// toRight turns the bitmap so that side (0 left, 1 top, 2 right, 3
// bottom) is at the right; fromRight undoes it.
func (k *Ink) toRight(side int) Ink {
	switch side {
	case 0:
		return k.mirrored()
	case 1:
		t := k.transposed()
		return t.mirrored()
	case 3:
		return k.transposed()
	}
	return *k
}

func (k *Ink) fromRight(side int) Ink {
	switch side {
	case 0:
		return k.mirrored()
	case 1:
		m := k.mirrored()
		return m.transposed()
	case 3:
		return k.transposed()
	}
	return *k
}

// cutRight returns the bitmap cut at its right side by share of its
// strokes' box, the rest refitted to the canvas. The cut is made on the
// strokes, not on their pen: a pixel near the cut stays ink when a
// stroke's core (the ink eroded by cutCore) within cutReach of it lies
// before the cut line, so that a symbol whose strokes lie beyond the line
// goes whole, its pen with it, as in the cut copy.
func (k *Ink) cutRight(share float64) Ink {
	line := InkSide - int(math.Round(inkPen/2+share*(InkSide-inkPen))) // strokes at x ≥ line are cut
	core := k.eroded(cutCore)
	before := uint64(1)<<line - 1
	for y := range core {
		core[y] &= before
	}
	reach := core.dilated(cutReach)
	sure := uint64(1)<<max(0, line-cutReach) - 1 // pixels whose strokes are surely before the line
	var out Ink
	for y, w := range k {
		out[y] = w & (sure | reach[y])
	}
	c0, d0, c1, d1 := out.box()
	if c1 == 0 {
		return Ink{}
	}
	return out.refit(c0, d0, c1, d1)
}

// cutCore and cutReach are the erosion that leaves a stroke's core of the
// common pen (inkPen wide) and the reach that restores the pen around it.
const (
	cutCore  = 2
	cutReach = 3
)

// eroded returns the bitmap eroded by r pixels along each axis (a square
// of side 2r+1; outside the canvas counts as ink).
func (k *Ink) eroded(r int) Ink {
	var h Ink
	for y, w := range k {
		e := w
		for i := 1; i <= r; i++ {
			e &= w>>i | ^(^uint64(0) >> i) // beyond the right edge: ink
			e &= w<<i | (1<<i - 1)         // beyond the left edge: ink
		}
		h[y] = e
	}
	var out Ink
	for y := range out {
		e := h[y]
		for i := 1; i <= r; i++ {
			if y-i >= 0 {
				e &= h[y-i]
			}
			if y+i < InkSide {
				e &= h[y+i]
			}
		}
		out[y] = e
	}
	return out
}

// dilated returns the bitmap dilated by r pixels along each axis (a
// square of side 2r+1).
func (k *Ink) dilated(r int) Ink {
	var h Ink
	for y, w := range k {
		d := w
		for i := 1; i <= r; i++ {
			d |= w>>i | w<<i
		}
		h[y] = d
	}
	var out Ink
	for y := range out {
		d := h[y]
		for i := 1; i <= r; i++ {
			if y-i >= 0 {
				d |= h[y-i]
			}
			if y+i < InkSide {
				d |= h[y+i]
			}
		}
		out[y] = d
	}
	return out
}

// refit scales the box x0 ≤ x < x1, y0 ≤ y < y1 of the bitmap to the
// whole canvas, each pixel taking the nearest source pixel's value.
func (k *Ink) refit(x0, y0, x1, y1 int) Ink {
	var out Ink
	w, h := x1-x0, y1-y0
	var col [InkSide]int
	for x := range col {
		col[x] = x0 + (2*x+1)*w/(2*InkSide)
	}
	for y := range out {
		src := k[y0+(2*y+1)*h/(2*InkSide)]
		if src == 0 {
			continue
		}
		var row uint64
		for x, sx := range col {
			row |= (src >> sx & 1) << x
		}
		out[y] = row
	}
	return out
}

// CutVariant returns the copy of the ink a cut of ProbeShare of its box
// at side (0 left, 1 top, 2 right, 3 bottom) would leave, refitted to the
// canvas (see the package's cut variants); empty when no ink would be
// left.
func (k *Ink) CutVariant(side int) Ink {
	if k.IsZero() {
		return Ink{}
	}
	r := k.toRight(side)
	v := r.cutRight(ProbeShare)
	return v.fromRight(side)
}

// CutVariantKeys returns the ink keys (Key) of the ink's cut variant at
// each side, 0 where it is empty: what the training side of a search
// indexes.
func (k *Ink) CutVariantKeys() [4]uint64 {
	var out [4]uint64
	for side := range out {
		v := k.CutVariant(side)
		out[side] = v.Key()
	}
	return out
}

// edgeSides returns the sides (bit s for side s: 0 left, 1 top, 2 right,
// 3 bottom) at which an image's ink reaches its edge (no margin).
func edgeSides(margins [4]int) uint8 {
	var out uint8
	for s, m := range margins {
		if m == 0 {
			out |= 1 << s
		}
	}
	return out
}

// CutKeys returns the ink keys a query searches the cut variants with: of
// its ink and of each probe's. It is nil for an image without ink or
// probes, for a query of one piece of ink (Parts 1), and for one whose
// ink is too small to verify a copy on the image alone (TooSmall).
func (fp Hashes) CutKeys() []uint64 {
	if fp.Probes == nil || fp.Ink.IsZero() || fp.Parts == 1 || fp.TooSmall() {
		return nil
	}
	out := []uint64{fp.Ink.Key()}
	for i := range fp.Probes {
		if k := &fp.Probes[i].Ink; !k.IsZero() {
			out = append(out, k.Key())
		}
	}
	return out
}

// VerifyCut returns the InkDistance of a query's ink (and its probes')
// from a training image's cut variant at side, and whether the query is
// a copy of it: the query was hashed as a query (Options.Probe), is not
// one piece of ink, and the distance is within VerifyCutInk.
func VerifyCut(query, train Hashes, side int) (float64, bool) {
	if query.Probes == nil || query.Parts == 1 || query.Ink.IsZero() || train.Ink.IsZero() {
		return math.Inf(1), false
	}
	d := InkDistance(query, Hashes{Ink: train.Ink.CutVariant(side)})
	return d, d <= VerifyCutInk
}

// VerifyCutInk is the largest InkDistance from a cut variant at which a
// query is its copy. It is stricter than VerifyInk: CROHME train's
// bitmaps cut at a side drawn from a seed (the cut control, inkprofile
// -control-cut, TestHostileCutControlRealData) paired other writers'
// samples through the variants alone at 0.639, 0.671 and 0.689 px (seeds
// 2 and 4: MfrDB2353/MfrDB2815, MfrDB1269/MfrDB2881,
// KME2G3_26_sub_65/KME2G3_7_sub_65), where the copies the variants
// alone find on the rasterized sets lie at 0.18–0.68 px, nearly all
// within 0.63 (stop 44: 14 of 13,000 items beyond it, mostly under a
// thick pen on a small canvas).
const VerifyCutInk = 0.63
