package imagehash

import "sync"

// Thicker pens. penWidth, twice the ink's area over its outline, falls
// below the pen that drew the ink where strokes are short against the pen:
// a round pen's ends add more to the outline than to the area (a dot
// measures half its pen). Redrawn with too thin a pen, a copy's strokes
// are thinned too little and lie outside its original's at every stroke:
// CROHME 2014's 515_em_358, `f ( t ) g ( t )` drawn with a 14.8 px pen
// (seed 898010746), lies 0.90 px from its bitmap, each outline a pixel
// out, where VerifyInk is 0.7. So a query (Options.Probe) whose ink lies
// within thickerWithin of a candidate's, but not within VerifyInk, is also
// drawn with thicker pens (thickerShares), and the candidate is verified
// when one drawing's ink is within VerifyInk of its ink: no looser rule,
// as each drawing is one more chance for another writer's sample to come
// close. The drawings are made on first use (the query keeps its cropped
// ink, a bit per pixel, until then, up to thickerKeep pixels) and are only
// verified, not searched: the copies they verify were within the pHash
// radius already. Nothing of a training image changes. The ink is drawn
// thinner (squeeze.go) where the estimate is too thick.

// thickerShares are the shares of its estimated pen width at which a
// query's ink is also drawn.
var thickerShares = [...]float64{1.25, 1.6}

// thickerWithin is the largest InkDistance, in pixels of the 64×64
// canvas, at which a candidate is tried with the query's thicker
// drawings: a pen a quarter or so too thin moves each outline by about a
// pixel (the copies these drawings verified on development sets lay
// 0.71–0.95 px away).
const thickerWithin = 1.0

// thickerKeep is the most pixels of cropped ink a query keeps, a bit
// each (8 KiB), to draw with thicker pens on first need; a larger crop is
// drawn at once, so that a query kept in memory (dedup's release prints)
// never holds more.
const thickerKeep = 1 << 16

// thicker holds what a query's drawings with thicker pens are made from
// (its cropped ink, a bit per pixel, until drawn, and its estimated pen
// p), and, once made, the drawings and their outlines' distance maps (a
// pointer in Hashes, so that Hashes stays comparable).
type thicker struct {
	w, h int
	bits []uint64 // row by row; nil once drawn
	p    float64
	o    Options
	once sync.Once
	list []Ink
	q    *queryInk
}

// newThicker keeps a query's cropped ink (ink ≤ t, its pen p as penWidth
// estimates it) to draw with thicker pens, or draws it at once when the
// crop has more than thickerKeep pixels.
func newThicker(c Gray, t uint8, p float64, o Options) *thicker {
	s := &thicker{p: p, o: o}
	if c.W*c.H > thickerKeep {
		s.once.Do(func() { s.draw(c, t) })
		return s
	}
	s.w, s.h = c.W, c.H
	s.bits = make([]uint64, (c.W*c.H+63)/64)
	for i, v := range c.Pix {
		if v <= t {
			s.bits[i>>6] |= 1 << (i & 63)
		}
	}
	return s
}

// draw draws the cropped ink (ink ≤ t) with the thicker pens.
func (s *thicker) draw(c Gray, t uint8) {
	for _, f := range thickerShares {
		if k := inkOf(penCanvasWith(c, t, s.p*f, s.o.size(), s.o.Canvas, nil)); !k.IsZero() {
			s.list = append(s.list, k)
		}
	}
	if len(s.list) > 0 {
		s.q = &queryInk{}
		for i := range s.list {
			s.q.inks = append(s.q.inks, &s.list[i])
		}
	}
}

// drawings returns the query's ink drawn with thicker pens, as a query
// for InkDistance; false when no drawing has ink.
func (s *thicker) drawings() (Hashes, bool) {
	s.once.Do(func() {
		// The kept bits as pixels: ink 0, ground 255, thresholded at 0
		// as penCanvasWith thresholds the crop.
		c := Gray{W: s.w, H: s.h, Pix: make([]uint8, s.w*s.h)}
		for i := range c.Pix {
			if s.bits[i>>6]>>(i&63)&1 == 0 {
				c.Pix[i] = 255
			}
		}
		s.bits = nil
		s.draw(c, 0)
	})
	if s.q == nil {
		return Hashes{}, false
	}
	return Hashes{Ink: s.list[0], query: s.q}, true
}

// verifyThicker reports whether a candidate whose ink lies e from the
// query's (InkDistance), within thickerWithin, is within VerifyInk of
// one of the query's drawings with a thicker pen.
func verifyThicker(query, train Hashes, e float64) bool {
	s := query.thicker
	if s == nil || train.Ink.IsZero() || e > thickerWithin {
		return false
	}
	d, ok := s.drawings()
	return ok && InkDistance(d, train) <= VerifyInk
}
