package imagehash

import (
	"math"
	"sync"
)

// Small ink. A query whose ink is small against its pen (a thick pen on a
// small canvas, or a wide formula squeezed into a few pixels of height)
// has strokes its pen merged: redrawing it with the common pen (pen.go)
// thins the merged ink, but cannot reopen the gaps the pen closed, so its
// canvas is the copy's strokes closed by the pen's excess, and its pHash
// drifts beyond the radius. Such a query is matched at its own
// resolution: the training image's stored ink ([Ink]) is closed
// vertically by the excess of the query's pen (its level, one of
// smallLevels, in pixels of the 64×64 canvas; the excess is vertical, as
// such ink is wide), and both sides are keyed ([Ink.SmallKey]: a pHash of
// the closed ink) and verified (verifySmall: the chamfer distance of the
// closed inks) at that level; at the last level, where the closed ink is
// a silhouette, the query's own ink is keyed only (silhouetteLevel). A
// training image's small keys are computed from its stored ink, so
// nothing more is stored. The pen such a query is measured with exceeds
// the pen that drew it (merged strokes have less outline for their area),
// which squeezes its strokes on the canvas; so its ink is also drawn with
// thinner pens ([penAlt]), keyed and verified the same way.
//
// Below the lowest resolution at which formulas still differ
// (SmallPensMin pens of height, or a closing beyond the last level) the
// query is too small: its ink is a silhouette that other formulas share,
// and no pair of it is verified on the image alone ([Hashes.TooSmall]),
// unless its cropped pixels are the same.

// smallLevels are the vertical closing radii, in pixels of the 64×64 ink
// canvas, at which small ink is keyed and verified.
var smallLevels = [...]int{2, 3, 4, 6, 8, 11}

// NumSmallLevels is the number of small-ink levels.
const NumSmallLevels = len(smallLevels)

// SmallRadius is the Hamming radius within which a small query's keys
// find a training image's at its level.
const SmallRadius = 14

// VerifySmallInk is the largest chamfer distance, in pixels of the 64×64
// canvas, between the closed inks of a pair found at a small level at
// which it is a copy.
const VerifySmallInk = 0.8

// verifySmallAlt is VerifySmallInk for the ink drawn with a thinner pen
// (penAlt): stricter, as each drawing is one more chance for another
// writer's sample to come close (two writers of one formula measured
// at 0.797 px through one).
const verifySmallAlt = 0.75

// silhouetteLevel is the last small level (a closing of 11 px of the
// 64×64 canvas), at which a query's own ink is searched but not verified:
// closed that far, a long formula's ink is a silhouette that other
// formulas of its length share. CROHME train-sample drawn with a 5.2 px
// pen on a 288×474 canvas (seed 3430153667, ink 234×16 px) paired
// formulaire028-equation070 with three other formulas of digits and
// brackets at 0.61–0.74 px at this level, where its own bitmap lay at
// 0.77 (and at 0.18 through a thinner pen, which still verifies it); a
// 96×96 canvas (seed 3697545901) paired 107_Fabricio with 107_daniel
// the same way. Its ink drawn with thinner pens is verified at its own
// levels as before, the last one included (verifySmallAlt).
const silhouetteLevel = NumSmallLevels - 1

// smallFrom is the pen excess (ey, pixels of the 64×64 canvas) from
// which a query's ink counts as small, and smallBeyond the excess beyond
// which it is too small.
const (
	smallFrom   = 1.5
	smallBeyond = 13.5
)

// SmallPensMin is the least height of a query's ink box, in widths of its
// pen, at which its ink can tell one formula from another.
const SmallPensMin = 2.0

// inkScale is what a query's pen did to its strokes on the work canvas:
// the pen's excess over the common pen per axis, in pixels of the hash
// canvas on each side (0 when the pen was not thicker), and the height
// of the ink box in pens and in pixels; set says it was measured.
type inkScale struct {
	ex, ey float64
	pens   float64
	height int
	// band0 and band are where the ink box's first pixel row starts on
	// the hash canvas and how many canvas rows each pixel row covers.
	band0, band float64
	set         bool
	// alts are the ink drawn with thinner pens, for a small query (a
	// pointer, so that Hashes stays comparable); nil otherwise.
	alts *penAlts
}

// penAlts lists a small query's drawings with thinner pens.
type penAlts struct{ list []*penAlt }

// altList returns the drawings with thinner pens; nil when there are
// none.
func (s inkScale) altList() []*penAlt {
	if s.alts == nil {
		return nil
	}
	return s.alts.list
}

// scaleOf measures a cropped ink's scale (ink ≤ t, its pen p as
// penWidth estimates it) as penCanvas fits it on a size×size canvas. When
// the ink is small, it also draws the ink with thinner pens (penAlts).
func scaleOf(c Gray, t uint8, p float64, size int, canvas Canvas) inkScale {
	s := scaleWith(c, p, size, canvas)
	if s.thick() {
		alts := new(penAlts)
		for _, f := range penAltShares {
			q := p * f
			k := inkOf(penCanvasWith(c, t, q, size, canvas, nil))
			if !k.IsZero() {
				alts.list = append(alts.list, &penAlt{ink: k, scale: scaleWith(c, q, size, canvas)})
			}
		}
		if len(alts.list) > 0 {
			s.alts = alts
		}
	}
	return s
}

// thick reports whether the query's pen is thick for its ink: small ink
// (smallFrom) that is not too small.
func (s inkScale) thick() bool {
	return s.set && s.ey >= smallFrom && s.ey <= smallBeyond && s.pens >= SmallPensMin
}

// penAltShares are the shares of its estimated pen width at which a small
// query's ink is also drawn (penAlt). Merged strokes have less outline
// for their area than the pen drew, so the estimate (penWidth) exceeds
// the pen: the medians of seven random rasterizers' small queries by
// 4–42%, their 90th percentiles by 24–75%. Drawn with too thick a pen,
// the ink box less the pen is too short, so the copy's strokes are
// squeezed; with these pens, one of the drawings is near the true one.
var penAltShares = [...]float64{1 / 1.2, 1 / 1.45}

// penAlt is a small query's ink drawn with a thinner pen than estimated
// (penAltShares): its ink bitmap and scale, and its inks prepared at the
// small levels.
type penAlt struct {
	ink   Ink
	scale inkScale
	small smallQuery
	once  sync.Once
	query *queryInk
}

// scaleWith is the scale of a cropped ink drawn with a pen p pixels wide.
func scaleWith(c Gray, p float64, size int, canvas Canvas) inkScale {
	S := 2 * size
	dw, dh, _, _ := penBox(c.W, c.H, p, S, canvas)
	kx, ky := float64(c.W)/float64(dw), float64(c.H)/float64(dh)
	px, py := max(1, p/kx), max(1, p/ky)
	f := float64(size) / float64(S) / 2 // cells of the work canvas per side → pixels of the hash canvas
	_, _, _, oy := penBox(c.W, c.H, p, S, canvas)
	return inkScale{ex: max(0, (px-penTarget)*f), ey: max(0, (py-penTarget)*f), pens: float64(c.H) / p, height: c.H,
		band0: float64(oy) * float64(size) / float64(S), band: float64(dh) / float64(c.H) * float64(size) / float64(S), set: true}
}

// TooSmall reports whether a query's ink is too small to verify a copy
// on the image alone: lower than SmallPensMin widths of its pen, or closed
// by its pen beyond the last small level. It is false for a training
// image and a query hashed without Options.Probe.
func (fp Hashes) TooSmall() bool {
	s := fp.scale
	return s.set && !fp.Blank && (s.pens < SmallPensMin || s.ey > smallBeyond)
}

// SmallLevel returns the level (an index of the small levels) at which a
// query whose ink is small is keyed and verified, and false when its ink
// is not small, is too small (TooSmall), or is one piece (Parts 1: a
// lone symbol is not searched beyond the pHash radius).
func (fp Hashes) SmallLevel() (int, bool) {
	s := fp.scale
	if !s.set || fp.Blank || fp.Ink.IsZero() || fp.TooSmall() || s.ey < smallFrom {
		return 0, false
	}
	best, bestD := 0, math.Inf(1)
	for i, e := range smallLevels {
		if d := math.Abs(math.Log(s.ey / float64(e))); d < bestD {
			best, bestD = i, d
		}
	}
	return best, true
}

// smallSpan is how many levels below its own a small query is also
// keyed and verified at: its pen width is estimated from merged ink, which
// overestimates it, so its ink may be less closed than its level says.
const smallSpan = 2

// SmallLevels returns the levels a small query is keyed at: its own
// (ownLevels) and those of its ink drawn with thinner pens (penAlt);
// nil when it has no level.
func (fp Hashes) SmallLevels() []int {
	own := fp.ownLevels()
	if own == nil {
		return nil
	}
	var in [NumSmallLevels]bool
	for _, l := range own {
		in[l] = true
	}
	for _, a := range fp.scale.altList() {
		for _, l := range a.hashes().ownLevels() {
			in[l] = true
		}
	}
	var out []int
	for l, ok := range in {
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// ownLevels returns the levels a small query's ink is verified at: its
// own (SmallLevel) and up to smallSpan below it; nil when it has no
// level.
func (fp Hashes) ownLevels() []int {
	l, ok := fp.SmallLevel()
	if !ok {
		return nil
	}
	var out []int
	for i := max(0, l-smallSpan); i <= l; i++ {
		out = append(out, i)
	}
	return out
}

// hashes returns the thinner pen's ink as a query's hashes (without
// probes or further alternatives), with its own cache of prepared inks.
func (a *penAlt) hashes() Hashes {
	sc := a.scale
	sc.alts = nil
	return Hashes{Ink: a.ink, scale: sc, small: &a.small}
}

// SmallKeys returns the keys a small query searches with at a level:
// of its ink, each probe's and each thinner pen's (penAlt), closed at
// that level.
func (fp Hashes) SmallKeys(level int) []uint64 {
	out := []uint64{fp.Ink.SmallKey(level)}
	for _, a := range fp.scale.altList() {
		out = append(out, a.ink.SmallKey(level))
	}
	if fp.Probes != nil {
		for i := range fp.Probes {
			if k := &fp.Probes[i].Ink; !k.IsZero() {
				out = append(out, k.SmallKey(level))
			}
		}
	}
	return out
}

// SmallKey returns the key of an ink bitmap at a small level: the pHash
// (8×8 lowest DCT coefficients, set when above their median) of the ink
// closed vertically by the level's radius. It is 0 for an empty bitmap.
func (k *Ink) SmallKey(level int) uint64 {
	if k.IsZero() {
		return 0
	}
	c := k.closeY(smallLevels[level])
	return c.Key()
}

// closeY returns the ink closed vertically by e pixels: dilated by e up
// and down, then eroded by as much (outside the canvas counts as ink for
// the erosion, so that ink at an edge stays).
func (k *Ink) closeY(e int) Ink {
	var d, out Ink
	for y := range d {
		var w uint64
		for yy := max(0, y-e); yy <= min(InkSide-1, y+e); yy++ {
			w |= k[yy]
		}
		d[y] = w
	}
	for y := range out {
		w := ^uint64(0)
		for yy := max(0, y-e); yy <= min(InkSide-1, y+e); yy++ {
			w &= d[yy]
		}
		out[y] = w
	}
	return out
}

// verifySmall reports whether a query whose ink is small (SmallLevel)
// and a training image are a copy at the query's level: the chamfer
// distance of the two inks closed at that level (the query's own or a
// probe's, the smallest) within VerifySmallInk, at any level but the
// last (silhouetteLevel); or, for its ink drawn with a thinner pen
// (penAlt), the same at that drawing's levels within verifySmallAlt, or
// its plain InkDistance within VerifyInk when that drawing is not small.
// Verify accepts such a pair.
func verifySmall(query, train Hashes) bool {
	if train.Ink.IsZero() {
		return false
	}
	for _, l := range query.ownLevels() {
		if l == silhouetteLevel {
			continue // keyed, not verified: see silhouetteLevel
		}
		if SmallInkDistance(query, train, l) <= VerifySmallInk {
			return true
		}
	}
	for _, a := range query.scale.altList() {
		q := a.hashes()
		levels := q.ownLevels()
		if levels == nil {
			// Not small when drawn with this pen: verified as any ink.
			a.once.Do(func() { a.query = newQueryInk(q) })
			if InkDistance(Hashes{Ink: q.Ink, query: a.query}, train) <= VerifyInk {
				return true
			}
			continue
		}
		for _, l := range levels {
			if SmallInkDistance(q, train, l) <= verifySmallAlt {
				return true
			}
		}
	}
	return false
}

// SmallInkDistance is InkDistance between the query's ink (and its
// probes') and the training image's, both closed at a small level and
// sampled at the query's pixel rows (bands).
func SmallInkDistance(query, train Hashes, level int) float64 {
	e := smallLevels[level]
	sc := query.scale
	prep := func(k *Ink) Ink {
		c := k.closeY(e)
		return c.bands(sc.band0, sc.band)
	}
	var q Hashes
	if query.small != nil {
		// A query hashed by Compute prepares each level once, for all
		// its candidates.
		query.small.once[level].Do(func() { query.small.at[level] = smallQueryAt(query, prep) })
		q = query.small.at[level]
	} else {
		q = smallQueryAt(query, prep)
	}
	return InkDistance(q, Hashes{Ink: prep(&train.Ink)})
}

// smallQuery holds a query's inks prepared at each small level (closed,
// banded, with their outlines' distance maps), made on first use.
type smallQuery struct {
	once [NumSmallLevels]sync.Once
	at   [NumSmallLevels]Hashes
}

// smallQueryAt returns the query's ink and its probes' as prep makes
// them, with the distance maps InkDistance uses.
func smallQueryAt(query Hashes, prep func(*Ink) Ink) Hashes {
	q := Hashes{Ink: prep(&query.Ink)}
	if query.Probes != nil {
		q.Probes = new([NumProbes]Probe)
		for i := range query.Probes {
			if k := &query.Probes[i].Ink; !k.IsZero() {
				q.Probes[i].Ink = prep(k)
			}
		}
	}
	q.query = newQueryInk(q)
	return q
}

// bandMin is the least number of canvas rows a pixel row of the query
// must cover for the inks to be compared by bands.
const bandMin = 2.0

// bands returns the ink sampled at the query's pixel rows: each band of
// rows (from y0 on, step rows each) set where at least half its rows are
// ink. Unchanged when a band is less than bandMin rows.
func (k *Ink) bands(y0, step float64) Ink {
	if step < bandMin {
		return *k
	}
	var out Ink
	for b := 0; ; b++ {
		r0 := max(0, int(y0+float64(b)*step+0.5))
		r1 := min(InkSide, int(y0+float64(b+1)*step+0.5))
		if r0 >= InkSide {
			break
		}
		if r1 <= r0 {
			continue
		}
		var row uint64
		n := r1 - r0
		for x := 0; x < InkSide; x++ {
			c := 0
			for y := r0; y < r1; y++ {
				c += int(k[y] >> x & 1)
			}
			if 2*c >= n {
				row |= 1 << x
			}
		}
		for y := r0; y < r1; y++ {
			out[y] = row
		}
	}
	return out
}
