package tex

import (
	"image"
	"math"
)

// The DVI commands of a layout and where a DVI driver's pixel grid puts
// its characters (TypesetInline records them; IMEGE's renderer, dvips,
// sets characters on its grid: metrics/imege).

// dviOp is one DVI command TeX writes for the layout: a move (right,
// down, by a), a character (the glyph's index g), a set_rule of width a
// or a put_rule (the rule's index g), push or pop.
type dviOp struct {
	kind uint8
	a    Scaled
	g    int32
}

const (
	dviRight = iota
	dviDown
	dviChar
	dviSetRule
	dviPutRule
	dviPush
	dviPop
)

// DriverGrid returns each glyph's position in pixels as a DVI driver
// with resolution dpi puts it when the layout's reference point is at
// (h, v) from the DVI origin, as dvips rounds positions (DVItype's
// rules, tex.web's companion): a character advances the pixel position
// by its width rounded to pixels; a move right smaller than the current
// font's thin space (a sixth of its size), or to the left by less than
// six of them, adds its rounded size, and a larger one goes back to the
// rounded true position (down: five thin spaces either way); after each,
// the pixel position is kept within maxDrift pixels of the rounded true
// one; push and pop save and restore both. ok is false for a layout set
// without its DVI commands (Typeset; TypesetInline records them).
//
// rules are the rules' pixel boxes as the driver draws them: from the
// position, as wide and as high as the rule's size rounded up to pixels.
func (l *Layout) DriverGrid(h, v Scaled, dpi float64, maxDrift int) (xs, ys []int, rules []image.Rectangle, ok bool) {
	if len(l.dvi) == 0 && len(l.Glyphs)+len(l.Rules) > 0 {
		return nil, nil, nil, false
	}
	conv := dpi / 72.27 / float64(Unity)
	// half up, truncated towards zero, as dvips's integer arithmetic
	pix := func(d Scaled) int { return int(float64(d)*conv + 0.5) }
	fix := func(p int, d Scaled) int {
		r := pix(d)
		return min(max(p, r-maxDrift), r+maxDrift)
	}
	type state struct {
		h, v   Scaled
		hh, vv int
	}
	st := state{h, v, pix(h), pix(v)}
	var stack []state
	var thin Scaled // the current font's; none yet: every move resynchronises
	xs, ys = make([]int, len(l.Glyphs)), make([]int, len(l.Glyphs))
	rules = make([]image.Rectangle, len(l.Rules))
	up := func(d Scaled) int { return int(math.Ceil(float64(d) * conv)) }
	rule := func(i int32) {
		r := l.Rules[i]
		rules[i] = image.Rect(st.hh, st.vv-up(r.Height), st.hh+up(r.Width), st.vv)
	}
	for _, op := range l.dvi {
		switch op.kind {
		case dviPush:
			stack = append(stack, st)
		case dviPop:
			st = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case dviRight:
			st.h += op.a
			if op.a >= thin || op.a <= -6*thin {
				st.hh = pix(st.h)
			} else {
				st.hh = fix(st.hh+pix(op.a), st.h)
			}
		case dviDown:
			st.v += op.a
			if op.a >= 5*thin || op.a <= -5*thin {
				st.vv = pix(st.v)
			} else {
				st.vv = fix(st.vv+pix(op.a), st.v)
			}
		case dviChar:
			g := &l.Glyphs[op.g]
			xs[op.g], ys[op.g] = st.hh, st.vv
			thin = g.Size / 6
			w := g.Advance()
			st.h += w
			st.hh = fix(st.hh+pix(w), st.h)
		case dviSetRule:
			rule(op.g)
			st.h += op.a
			st.hh = fix(st.hh+up(op.a), st.h)
		case dviPutRule:
			rule(op.g)
		}
	}
	return xs, ys, rules, true
}
