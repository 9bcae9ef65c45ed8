package tex

import (
	"errors"
	"fmt"
	"math"
)

// Errors of Typeset.
var (
	// ErrUnsupported is returned for a construct the engine does not model;
	// the caller decides (docs/tex-layout.md §10.1), the engine never guesses.
	ErrUnsupported = errors.New("tex: unsupported construct")
	// ErrFatal is returned where pdflatex in nonstopmode would produce no
	// output (a runaway argument, an unbalanced brace).
	ErrFatal = errors.New("tex: fatal LaTeX error")
	// ErrInternal reports a bug of the engine met on a formula (a
	// recovered panic), so that one formula cannot stop a batch.
	ErrInternal = errors.New("tex: internal error")
	// ErrTooLarge is returned for a formula beyond MaxFormulaBytes or
	// MaxTokens.
	ErrTooLarge = errors.New("tex: formula exceeds the layout limits")
)

// Limits of Typeset: longer input is refused with ErrTooLarge, deeper
// nesting than maxParseDepth with ErrFatal (TeX's own limits are similar:
// its input stack and save stack).
const (
	MaxFormulaBytes = 256 << 10
	MaxTokens       = 50_000
)

// Glyph is one character set by the layout.
type Glyph struct {
	Font  string // TFM name, e.g. "cmmi12"
	Size  Scaled // at-size
	Char  int
	X, Y  Scaled // reference point: left end of the baseline, y downwards
	Token int    // CDM token index, or −1
	font  *mathFont
}

// Rule is one rule (fraction bar, radical overbar, over/underline).
type Rule struct {
	X, Y          Scaled // bottom left corner, y downwards
	Width, Height Scaled
	Token         int
}

// Layout is a formula set in display style: glyphs and rules relative to
// the left end of its baseline, and the box's dimensions.
type Layout struct {
	Width, Height, Depth Scaled
	Glyphs               []Glyph
	Rules                []Rule
	// Recovered lists the LaTeX errors pdflatex would report and recover
	// from in nonstopmode (an undefined command dropped, a double
	// superscript, …), in order.
	Recovered []string
	// Warnings are layout warnings (a missing character).
	Warnings []string
	// Approximate lists why parts of the layout are not TeX-exact (CJK
	// glyphs); empty for an exact layout.
	Approximate []string
	dvi         []dviOp // the DVI commands (TypesetInline)
}

// engine is the state of one typesetting run.
type engine struct {
	fonts     *fontTable
	nullDelim Scaled
	// the document's text font (its em, control space and the text of
	// an array's paragraph), \strutbox and \baselineskip
	textFont         *mathFont
	strutHt, strutDp Scaled
	baselineSkip     Scaled
	inline           bool // in-line math ($…$) in a 10 pt article
	recovered        []string
	warnings         []string
	approx           []string
	unsup            error
	endWhatsit       *node // whatsit's node of token −2
	*arena                 // the objects a layout makes most of (arena.go)
}

// approximate records that part of the layout is not TeX-exact.
func (e *engine) approximate(why string) {
	for _, a := range e.approx {
		if a == why {
			return
		}
	}
	e.approx = append(e.approx, why)
}

func (e *engine) symbol(name string) (symbol, bool) {
	s, ok := symbols[name]
	return s, ok
}

func (e *engine) warn(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

func (e *engine) recover(msg string) { e.recovered = append(e.recovered, msg) }

func (e *engine) fatal(msg string) error { return fmt.Errorf("%w: %s", ErrFatal, msg) }

func (e *engine) unsupported(what string) error {
	err := fmt.Errorf("%w: %s", ErrUnsupported, what)
	if e.unsup == nil {
		e.unsup = err
	}
	return err
}

// Typeset lays out a formula of the reference's coloured LaTeX (the
// string latex.CDMTokens.Rendered returns, or any math-mode LaTeX) in
// display style, as pdflatex sets it in the reference template, and
// returns every glyph and rule with its token.
func Typeset(formula string) (*Layout, error) { return TypesetOn(formula, Page{}) }

// TypesetInline lays out a formula as in-line math ($…$) in text style in
// a 10 pt article, as l2p's document sets it (\documentclass{article}
// with no size option: 10 pt text, 7 and 5 pt scripts; docs/metrics.md
// §8.5), with no colours. Constructs whose recovery leaves math mode, and
// size commands, are reported unsupported; a formula wider than a line
// is set on one line (LaTeX would break it).
func TypesetInline(formula string) (*Layout, error) {
	return typeset(formula, Page{}, true)
}

// TypesetOn is Typeset for a display on page pg: a formula wider than the
// page's line is packed to the line width, its glue shrinking as far as it
// can (tex.web §1201), as pdflatex does before it overflows to the right.
// A zero Page means no line width.
func TypesetOn(formula string, pg Page) (out *Layout, err error) {
	return typeset(formula, pg, false)
}

func typeset(formula string, pg Page, inline bool) (out *Layout, err error) {
	defer func() {
		// A bug must not take a batch down: the formula fails with its
		// reason, and the bug is reported.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrInternal, r)
		}
	}()
	initFonts()
	if tablesErr != nil {
		return nil, tablesErr
	}
	loadSymbols()
	e := &engine{fonts: &normalFonts, nullDelim: nullDelimiterSpace, textFont: textFontCMR,
		strutHt: strutHt, strutDp: strutDp, baselineSkip: baselineSkip}
	top := styleD
	if inline {
		fonts, err := article10Tables()
		if err != nil {
			return nil, err
		}
		e.fonts, e.inline, top = fonts, true, styleT
		e.textFont = fonts[famOperators][textSize]
		e.baselineSkip = article10BaselineSkip
		e.strutHt, e.strutDp = scaleDecimal(article10BaselineSkip, "0.7"), scaleDecimal(article10BaselineSkip, "0.3")
	}
	if len(formula) > MaxFormulaBytes {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrTooLarge, len(formula), MaxFormulaBytes)
	}
	toks, release := lexPooled(formula)
	defer release()
	e.arena = getArena()
	defer putArena(e.arena)
	if len(toks) > MaxTokens {
		return nil, fmt.Errorf("%w: %d tokens (limit %d)", ErrTooLarge, len(toks), MaxTokens)
	}
	if inline {
		toks = dotsBeforeShift(toks)
	}
	p := &parser{e: e, in: [][]token{toks}, fam: -1, budget: 16*len(toks) + 4096, nextFrame: frameTop, page: pg, src: formula, srcToks: toks}
	l, _, err := p.parseList()
	if err == nil && p.left != nil {
		// an array whose alignment ended early, its environment open at
		// the display's end (hline.go)
		err = e.unsupported(`an array left early without its \end`)
	}
	var line []*node // the paragraph after a display TeX ended early
	if errors.Is(err, errLeaveCell) {
		err = e.unsupported(`\hline in a cell outside an array`) // never: alignment catches it
	}
	if errors.Is(err, errLeaveMath) && e.unsup != nil {
		err = e.unsup
	} else if errors.Is(err, errLeaveMath) && inline {
		err = e.unsupported("leaving in-line math early")
	} else if errors.Is(err, errLeaveMath) {
		// paragraph.go
		l = p.leave.display
		e.recover("display math should end with $$")
		if line, err = p.afterDisplay(); err == nil && line != nil && pg.TextWidth == 0 {
			err = e.unsupported("the paragraph after the display without a page")
		}
	}
	if err != nil {
		return nil, err
	}
	if e.unsup != nil {
		return nil, e.unsup
	}
	hl := e.mlistToHlist(l.finish(), top, true)
	if e.unsup != nil {
		return nil, e.unsup
	}
	box := hpack(hl, 0, false)
	if pg.TextWidth > 0 && box.width > pg.TextWidth {
		box = hpack(hl, pg.TextWidth, true)
	}
	out = &Layout{Width: box.width, Height: box.height, Depth: box.depth, Recovered: e.recovered, Warnings: e.warnings, Approximate: e.approx}
	if n := countChars(box); n > 0 {
		out.Glyphs = make([]Glyph, 0, n) // sized once
	}
	s := shipper{out: out, rec: inline}
	s.hlistOut(box, 0, 0)
	if line != nil {
		// one line, set at its natural width (\parfillskip takes the rest)
		if naturalWidth(line) > int64(pg.TextWidth) {
			return nil, e.unsupported("the paragraph after the display is longer than its line")
		}
		lb := hpack(line, 0, false)
		x, y := placeParagraph(box, lb, pg)
		s.hlistOut(lb, x, y)
	}
	return out, nil
}

// shipper converts a box tree to absolute glyphs and rules (TeX's
// hlist_out and vlist_out, tex.web §619–§637).
type shipper struct {
	out *Layout
	// rec records the DVI commands TeX would write (dvips.go), tracking
	// the DVI's position (dvi_h, dvi_v) and the box nesting as TeX does
	rec        bool
	dviH, dviV Scaled
}

// nested ships a box inside the current one as TeX does: push, the
// box, pop (which returns the DVI to where it was).
func (s *shipper) nested(b *node, left, base Scaled) {
	h, v := s.dviH, s.dviV
	if s.rec {
		s.out.dvi = append(s.out.dvi, dviOp{kind: dviPush})
	}
	if b.kind == hlistNode {
		s.hlistOut(b, left, base)
	} else {
		s.vlistOut(b, left, base)
	}
	if s.rec {
		s.out.dvi = append(s.out.dvi, dviOp{kind: dviPop})
	}
	s.dviH, s.dviV = h, v
}

// synch moves the DVI to (h, v) (tex.web's synch_h, synch_v).
func (s *shipper) synch(h, v Scaled) {
	if !s.rec {
		return
	}
	if h != s.dviH {
		s.out.dvi = append(s.out.dvi, dviOp{kind: dviRight, a: h - s.dviH})
		s.dviH = h
	}
	if v != s.dviV {
		s.out.dvi = append(s.out.dvi, dviOp{kind: dviDown, a: v - s.dviV})
		s.dviV = v
	}
}

// countChars counts the characters in a box's lists, nested boxes
// included: the glyphs shipping it makes (leaders, shipped more than
// once, aside).
func countChars(b *node) int {
	n := 0
	for _, p := range b.list {
		switch p.kind {
		case charNode:
			n++
		case hlistNode, vlistNode:
			n += countChars(p)
		}
	}
	return n
}

func (s *shipper) hlistOut(b *node, left, base Scaled) {
	h := left
	var curG Scaled
	var curGlue float64
	for _, p := range b.list {
		switch p.kind {
		case charNode:
			w, _, _, _ := p.font.metrics(p.c)
			if s.rec {
				s.synch(h, base)
				s.out.dvi = append(s.out.dvi, dviOp{kind: dviChar, g: int32(len(s.out.Glyphs))})
				s.dviH = h + w
			}
			s.out.Glyphs = append(s.out.Glyphs, Glyph{Font: p.font.Name, Size: p.font.Size, Char: p.c, X: h, Y: base, Token: int(p.tok), font: p.font})
			h += w
		case hlistNode, vlistNode:
			if len(p.list) > 0 {
				s.nested(p, h, base+p.shift)
			}
			h += p.width
		case ruleNode:
			ht, dp := p.height, p.depth
			if ht == runningDim {
				ht = b.height
			}
			if dp == runningDim {
				dp = b.depth
			}
			if ht+dp > 0 && p.width > 0 {
				s.out.Rules = append(s.out.Rules, Rule{X: h, Y: base + dp, Width: p.width, Height: ht + dp, Token: int(p.tok)})
				if s.rec {
					s.synch(h, base+dp)
					s.out.dvi = append(s.out.dvi, dviOp{kind: dviSetRule, a: p.width, g: int32(len(s.out.Rules) - 1)})
					s.dviH += p.width
				}
			}
			h += p.width
		case glueNode:
			w := p.width - curG
			curG = setGlue(b, p, &curGlue)
			if lr := p.leaders; lr != nil && lr.kind == ruleNode && w+curG > 0 {
				// rule leaders: a rule as wide as the glue (tex.web §626)
				ht, dp := lr.height, lr.depth
				if ht == runningDim {
					ht = b.height
				}
				if dp == runningDim {
					dp = b.depth
				}
				if ht+dp > 0 {
					s.out.Rules = append(s.out.Rules, Rule{X: h, Y: base + dp, Width: w + curG, Height: ht + dp, Token: int(lr.tok)})
					if s.rec {
						s.synch(h, base+dp)
						s.out.dvi = append(s.out.dvi, dviOp{kind: dviSetRule, a: w + curG, g: int32(len(s.out.Rules) - 1)})
						s.dviH += w + curG
					}
				}
				h += w + curG
				continue
			}
			if lb := p.leaders; lb != nil && lb.width > 0 && w+curG > 0 {
				// \cleaders (tex.web §626–§628): as many copies as fit,
				// centred in the glue
				ruleWd := w + curG + 10
				edge := h + ruleWd
				x := h + (ruleWd%lb.width)/2
				for x+lb.width <= edge {
					s.nested(lb, x, base+lb.shift)
					x += lb.width
				}
				h = edge - 10
				continue
			}
			h += w + curG
		case kernNode:
			h += p.width
		}
	}
}

// setGlue is TeX's glue setting in hlist_out and vlist_out (tex.web
// §625, §634): the running total of the box's stretch or shrink so far,
// times its glue ratio, rounded, so that rounding errors do not add up.
func setGlue(b, g *node, total *float64) Scaled {
	switch {
	case b.glueSign == glueStretching && g.stretchOrder == b.glueOrder:
		*total += float64(g.stretch)
	case b.glueSign == glueShrinking && g.shrinkOrder == b.glueOrder:
		*total -= float64(g.shrink)
	}
	return Scaled(math.Round(vetGlue(b.glueSet * *total)))
}

// vetGlue clamps a glue product as TeX does.
func vetGlue(g float64) float64 {
	const billion = 1e9
	return math.Max(-billion, math.Min(billion, g))
}

func (s *shipper) vlistOut(b *node, left, base Scaled) {
	v := base - b.height
	var curG Scaled
	var curGlue float64
	for _, p := range b.list {
		switch p.kind {
		case hlistNode, vlistNode:
			v += p.height
			if len(p.list) > 0 {
				if s.rec {
					s.synch(s.dviH, v)
				}
				s.nested(p, left+p.shift, v)
			}
			v += p.depth
		case ruleNode:
			w := p.width
			if w == runningDim {
				w = b.width
			}
			ht := p.height + p.depth
			v += ht
			if ht > 0 && w > 0 {
				s.out.Rules = append(s.out.Rules, Rule{X: left, Y: v, Width: w, Height: ht, Token: int(p.tok)})
				if s.rec {
					s.synch(left, v)
					s.out.dvi = append(s.out.dvi, dviOp{kind: dviPutRule, g: int32(len(s.out.Rules) - 1)})
				}
			}
		case glueNode:
			w := p.width - curG
			curG = setGlue(b, p, &curGlue)
			v += w + curG
		case kernNode:
			v += p.width
		}
	}
}

// dotsBeforeShift adds the thin space amsmath's dots put before the
// closing $ of in-line math: \cdots, \dots and their kin look at the next
// token (\extrap@, \extra@) and add \, before a $ (\ldots does not).
func dotsBeforeShift(toks []token) []token {
	i := len(toks) - 1
	for i >= 0 && toks[i].kind == tkSpace {
		i--
	}
	if i < 0 || toks[i].kind != tkCS {
		return toks
	}
	switch toks[i].s {
	case "cdots", "dots", "dotsb", "dotsc", "dotso", "dotsm":
		return append(toks[:i+1:i+1], lex(`\,`)...)
	}
	return toks
}
