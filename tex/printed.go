package tex

import (
	"regexp"
	"strings"
)

// Commands of printed math (im2latex-100k and UniMER-style formulas):
// LaTeX's text symbols and the spacing and box primitives that papers'
// LaTeX uses in math, modelled after latex.ltx and ot1enc.def, and the
// recoveries pdflatex makes where the reference's colouring leaves such a
// command alone in a \mathcolor body, so that its argument or dimension is
// the colour's end (mathcolor.ltx's \__mathcolor_scan_for_scripts:w, a
// protected macro that is no number and no box).

// textSymbols are ot1enc.def's \DeclareTextSymbol slots: in math each is
// a \chardef'd character, set through its mathcode (family 0), after the
// warning "Command \o invalid in math mode".
var textSymbols = map[string]rune{
	"o": 28, "O": 31, "ae": 26, "AE": 29, "oe": 27, "OE": 30, "i": 16, "j": 17, "ss": 25,
}

// atArgEnd reports whether the next token is the end of a \mathcolor body
// or of a macro argument: a command that scans a number, a dimension or a
// box there meets \__mathcolor_scan_for_scripts:w or \endgroup instead.
func (p *parser) atArgEnd() bool {
	t, ok := p.peek()
	return ok && (t.kind == tkColorEnd || t.kind == tkArgEnd)
}

// printedCommand runs the commands of printed math; it reports whether
// name is one of them.
func (p *parser) printedCommand(l *list, name string) (bool, error) {
	e := p.e
	if c, ok := textSymbols[name]; ok {
		e.warn("Command \\%s invalid in math mode", name)
		return true, p.char(l, c)
	}
	switch name {
	case "l":
		// \hmode@bgroup\@xxxii l\egroup: a group with math italic l
		// (\char32's mathcode is "8000, LaTeX's active space, which sets
		// nothing in math)
		e.warn("Command \\l invalid in math mode")
		p.insert(lex(`{l}`)...)
		return true, nil
	case "L":
		// \leavevmode\setbox\z@\hbox{L}\hb@xt@\wd\z@{\hss\@xxxii L}: the
		// stroke (cmr's char 32) and L of the text font, in a box as wide
		// as L
		e.warn("Command \\L invalid in math mode")
		f := e.fonts[famOperators][textSize]
		wd, _, _, _ := f.metrics('L')
		hss := &node{kind: glueNode, stretch: Unity, stretchOrder: filOrder, shrink: Unity, shrinkOrder: filOrder}
		tok := p.tok()
		list := []*node{hss, newChar(f, 32, tok)}
		if _, _, kern, ok := f.LigKernStep(32, 'L'); ok {
			list = append(list, newKern(kern))
		}
		list = append(list, newChar(f, 'L', tok))
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: hpack(list, wd, true)}, tok: tok})
		return true, nil
	case "AA":
		// ot1enc.def's \r{A}: \leavevmode\setbox\z@\hbox{!}\dimen@\ht\z@
		// \advance\dimen@-1ex\rlap{\raise.67\dimen@\hbox{\char23}}A: the
		// text font's ring in a zero-width box, then math italic A
		e.warn("Command \\AA invalid in math mode")
		f := e.fonts[famOperators][textSize]
		_, ht, _, _ := f.metrics('!')
		tok := p.tok()
		ring := hpack([]*node{newChar(f, 23, tok)}, 0, false)
		ring.shift = -scaleDecimal(ht-f.Param(5), "0.67")
		hss := &node{kind: glueNode, stretch: Unity, stretchOrder: filOrder, shrink: Unity, shrinkOrder: filOrder}
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: hpack([]*node{ring, hss}, 0, true)}, tok: tok})
		return true, p.char(l, 'A')
	case "-":
		// \discretionary{-}{}{}: nothing unless the line breaks there
		return true, nil
	case "sl", "it", "em":
		if name != "sl" {
			return false, nil
		}
		// \@fontswitch in math: \@nomath\sl, a warning
		e.warn("Command \\sl invalid in math mode")
		return true, nil
	case "scshape", "itshape", "slshape", "upshape", "bfseries", "mdseries", "rmfamily", "sffamily", "ttfamily":
		// \not@math@alphabet: an error, and the text font changes
		e.recover(`LaTeX Error: Command \` + name + ` invalid in math mode`)
		return true, nil
	case "surd":
		// {\mathchar"1270}
		p.addGroup(l, []*noad{p.mathCharNoad(1, 2, 0x70)})
		return true, nil
	case "pounds":
		// \mathsterling: \mathit{\mathchar"7024}, the italic text font's
		// dollar slot
		saved := p.fam
		p.fam = famIT
		n := p.mathCharNoad(7, 0, 0x24)
		p.fam = saved
		p.addGroup(l, []*noad{n})
		return true, nil
	case "vspace", "smallskip", "medskip", "bigskip":
		// \vspace in math: \vadjust{\vskip#1}, which migrates out of the
		// formula and changes nothing in it
		if name != "vspace" {
			return true, nil
		}
		if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '*' {
			p.next()
		}
		if t, ok := p.peek(); ok && t.kind == tkColorEnd {
			// \vadjust{\vskip} of the colour's end: pdflatex's errors, and
			// the colour's end runs inside the \vadjust, so that its reset
			// is local there: the colour lasts to the end of the group
			e.recover("Missing number, treated as zero")
			e.recover("Illegal unit of measure (pt inserted)")
			p.next()
			p.colorToGroupEnd()
			return true, nil
		}
		if p.atArgEnd() {
			return true, e.unsupported(`\vspace before the end of an argument`)
		}
		_, err := p.readArg()
		return true, err
	case "label", "renewcommand":
		// amsmath's \label in a display expects its argument where the
		// reference's colouring has none ("File ended while scanning use
		// of \ltx@label"); the colouring's \renewcommand recurses until
		// "TeX capacity exceeded": pdflatex ships nothing
		return true, e.fatal(`\` + name + ` in the coloured formula`)
	case "hspace", "hskip", "kern":
		if !p.atArgEnd() {
			return false, nil
		}
		// \hskip or \kern before a token that is no number: zero
		e.recover("Missing number, treated as zero")
		e.recover("Illegal unit of measure (pt inserted)")
		if name == "kern" {
			l.add(&noad{kind: kernItem, glue: newKern(0)})
		} else {
			l.add(&noad{kind: glueItem, glue: newGlue(0, 0, 0)})
		}
		return true, nil
	case "colon":
		// amsmath: \nobreak\mskip2mu\mathpunct{}\nonscript
		// \mkern-\thinmuskip{:}\mskip6muplus1mu\relax
		l.add(&noad{kind: glueItem, mu: true, glue: newGlue(2*Unity, 0, 0)})
		l.add(&noad{kind: punctNoad, nucleus: field{kind: subMlist}, tok: p.tok()})
		l.add(&noad{kind: glueItem, nonscript: true, glue: newGlue(0, 0, 0)})
		l.add(&noad{kind: kernItem, mu: true, glue: newKern(-thinMuSkip.w)})
		_, fam, c := mathcodeOf(':')
		p.addGroup(l, []*noad{p.mathCharNoad(3, fam, c)})
		l.add(&noad{kind: glueItem, mu: true, glue: newGlue(6*Unity, Unity, 0)})
		return true, nil
	case "ref", "pageref":
		// an undefined reference (the template has no .aux): a warning,
		// and \nfss@text{\reset@font\bfseries ??}, which amstext makes
		// \text
		if _, err := p.readArg(); err != nil {
			return true, err
		}
		e.warn("Reference undefined")
		p.insert(lex(`\textbf{??}`)...)
		return true, nil
	case "put", "vector", "line", "oval":
		// picture mode's \put(#1,#2)#3: without its ( TeX reports "Use of
		// \put doesn't match its definition" and drops the macro with the
		// token it read (the colour's end, or a \mathcolor whose
		// arguments are then set as math)
		if t, ok := p.peek(); !ok || t.kind == tkChar && t.c == '(' {
			return true, e.unsupported(`\` + name + ` (picture mode)`)
		}
		e.recover(`Use of \` + name + ` doesn't match its definition`)
		if t, _ := p.next(); t.kind == tkColorEnd {
			p.colorToGroupEnd()
		}
		return true, nil
	case "thicklines", "thinlines":
		// picture mode's line fonts: nothing in the formula
		return true, nil
	case "tabcolsep", "unitlength":
		if !p.atArgEnd() {
			return false, nil
		}
		// a dimension register assigned the colour's end: zero, which no
		// formula uses
		e.recover("Missing number, treated as zero")
		e.recover("Illegal unit of measure (pt inserted)")
		return true, nil
	case "expandafter":
		if t, ok := p.peek(); !ok || t.kind != tkColorEnd {
			return false, nil
		}
		// \expandafter<colour end>{: the { is not expandable
		return true, nil
	case "romannumeral":
		if !p.atArgEnd() {
			return false, nil
		}
		e.recover("Missing number, treated as zero")
		return true, nil
	case "special":
		// \special alone takes the colour's end as its argument: "Missing
		// { inserted", and the rest of the file is lost
		if p.atArgEnd() {
			return true, e.fatal(`\special without its argument`)
		}
		return false, nil
	case "raisebox":
		t, ok := p.peek()
		if !ok || t.kind != tkColorEnd {
			return true, e.unsupported(`\raisebox`)
		}
		// \raisebox alone: the colour's end is its dimension and the
		// next argument its text: \@irsbox sets the text in an \hbox
		// (each \mathcolor there an error), then scans the dimension
		// ("Missing number"), and raises the box by nothing
		p.next()
		arg, err := p.readArg()
		if err != nil {
			return true, err
		}
		b, err := p.textBox(arg, e.fonts[famOperators][textSize])
		if err != nil {
			return true, err
		}
		e.recover("Missing number, treated as zero")
		e.recover("Illegal unit of measure (pt inserted)")
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: b}, tok: p.tok()})
		p.insert(token{kind: tkColorEnd})
		return true, nil
	case "mkern", "mskip":
		if !p.atArgEnd() {
			return false, nil
		}
		e.recover("Missing number, treated as zero")
		e.recover("Illegal unit of measure (mu inserted)")
		if name == "mkern" {
			l.add(&noad{kind: kernItem, mu: true, glue: newKern(0)})
		} else {
			l.add(&noad{kind: glueItem, mu: true, glue: newGlue(0, 0, 0)})
		}
		return true, nil
	case "makebox", "mbox", "llap", "rlap":
		if !p.atArgEnd() {
			return false, nil
		}
		// \makebox alone is \mbox of the colour's end: an empty box;
		// \llap and \rlap alone are \hb@xt@\z@{\hss#1} (#1\hss) of
		// it: an empty box of width zero too
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: hpack(nil, 0, false)}, tok: p.tok()})
		return true, nil
	case "raise", "lower":
		if !p.atArgEnd() {
			return true, e.unsupported(`\` + name)
		}
		e.recover("Missing number, treated as zero")
		e.recover("Illegal unit of measure (pt inserted)")
		e.recover("A <box> was supposed to be here")
		return true, nil
	case "symbol":
		if !p.atArgEnd() {
			return false, nil
		}
		// \char#1\relax with no number: \char0, family 0's slot 0
		e.recover("Missing number, treated as zero")
		return true, p.char(l, 0)
	}
	return false, nil
}

// reAlias matches the \meaning of a macro that only calls another
// command (amsmath's \Tilde is \tilde).
var reAlias = regexp.MustCompile(`^macro:->\\([A-Za-z]+) $`)

// alias returns the command a parameterless alias macro stands for.
func alias(name string) (string, bool) {
	m := reAlias.FindStringSubmatch(meanings[name])
	if m == nil || m[1] == name {
		return "", false
	}
	return m[1], true
}

// loneTextAccent sets \d, \b or \c alone in a \mathcolor body, which
// takes the colour's end as its argument (ot1enc.def), so that the
// accent's first row is empty and the mark comes after the colour's end,
// in the outer colour:
//
//	\d  \hmode@bgroup\o@lign{\relax#1\crcr\hidewidth\ltx@sh@ft{-1ex}.\hidewidth}\egroup
//	\b  \hmode@bgroup\o@lign{\relax#1\crcr\hidewidth\ltx@sh@ft{-3ex}\vbox to.2ex{\hbox{\char22}\vss}\hidewidth}\egroup
//	\c  {\ooalign{\unhbox\z@\crcr\hidewidth\char24\hidewidth}} (the box of #1 is not 1ex high)
//
// each a \vtop (\oalign) of an empty row and the mark centred on the
// zero-width column, with \baselineskip 0 and \lineskip .25ex, and
// \lineskiplimit 0 (\o@lign) or −\maxdimen (\ooalign).
func (p *parser) loneTextAccent(l *list, tok int32, name string) {
	f := p.e.fonts[famOperators][textSize]
	hide := func() *node {
		return &node{kind: glueNode, width: -1000 * Unity, stretch: Unity, stretchOrder: fillOrder}
	}
	ex := f.Param(5)
	// \ltx@sh@ft{-nex}: a kern of the slant times −n ex
	shift := func(n int64) *node { return newKern(Scaled(int64(f.Param(1)) * (-n * int64(ex)) / int64(Unity))) }
	var mark []*node
	switch name {
	case "d":
		mark = []*node{shift(1), newChar(f, '.', p.tok())}
	case "b":
		bar := vpackTo([]*node{hpack([]*node{newChar(f, 22, p.tok())}, 0, false), {kind: glueNode, stretch: Unity, stretchOrder: filOrder, shrink: Unity, shrinkOrder: filOrder}}, scaleDecimal(ex, "0.2"))
		mark = []*node{shift(3), bar}
	case "c":
		mark = []*node{newChar(f, 24, p.tok())}
	}
	r1 := hpack(nil, 0, true)
	r2 := hpack(append(append([]*node{hide()}, mark...), hide()), 0, true)
	gap := -r1.depth - r2.height // \baselineskip 0
	if gap < 0 && name != "c" {  // below \lineskiplimit 0
		gap = scaleDecimal(ex, "0.25")
	}
	v := vpack([]*node{r1, newGlue(gap, 0, 0), r2})
	total := v.height + v.depth
	v.height = r1.height // \vtop
	v.depth = total - v.height
	l.add(&noad{kind: whatsitItem, tok: tok})
	p.addGroup(l, []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: v}}})
	l.add(&noad{kind: whatsitItem, tok: -2})
}

// colorToGroupEnd makes the innermost \mathcolor colour last to the end
// of the current group: its end ran where its reset was local (inside a
// \vadjust), or was lost.
func (p *parser) colorToGroupEnd() {
	for i := len(p.colors) - 1; i >= 0; i-- {
		if p.colors[i].group == 0 {
			p.colors[i].group = p.depth
			return
		}
	}
}

// circledArg reads the argument of \textcircled when it is one printable
// character, braced or not (\textcircled{<}, as the reference's raw
// fallback colours a chunk of a prediction it could not parse); it reads
// nothing and reports false otherwise.
func (p *parser) circledArg() (int, bool) {
	var got []token
	read := func() (token, bool) {
		for {
			t, ok := p.next()
			if ok {
				got = append(got, t)
			}
			if !ok || t.kind != tkSpace {
				return t, ok
			}
		}
	}
	t, ok := read()
	if ok && t.kind == tkBegin {
		c, ok1 := read()
		e, ok2 := read()
		if ok1 && ok2 && c.kind == tkChar && e.kind == tkEnd && circledOK(c.c) {
			return int(c.c), true
		}
	} else if ok && t.kind == tkChar && circledOK(t.c) {
		return int(t.c), true
	}
	p.insert(got...) // unread
	return 0, false
}

// circledOK reports a character circled sets: letters, digits and the
// punctuation whose OT1 cmr12 glyph has its code (< and > are ¡ and ¿).
func circledOK(c rune) bool {
	return c < 127 && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<>=+-*/()[].,;:!?'@", c)
}

// circled sets \textcircled{c} in math mode in the current colour (TS1's
// definition, ts1enc.def): \ooalign{\hfil\raise.07ex\hbox{\upshape c}\hfil
// \crcr\char79}, a \vtop of two rows on one baseline (\lineskiplimit
// −\maxdimen, \baselineskip 0): the character of the text font (OT1
// cmr12) raised .07ex and centred in the column, over TS1's big circle.
func (p *parser) circled(l *list, c int) {
	tok := p.tok()
	tf := p.e.fonts[famOperators][textSize]
	ch := hpack([]*node{newChar(tf, c, tok)}, 0, false)
	ch.shift = -scaleDecimal(tf.Param(5), "0.07")
	row1 := []*node{filGlue(), ch, filGlue()}
	circle := []*node{newChar(textCircleFont(), 79, tok)}
	w := max(hpack(row1, 0, false).width, hpack(circle, 0, false).width)
	r1 := hpack(row1, w, true)
	r2 := hpack(circle, w, true)
	v := vpack([]*node{r1, newGlue(-r1.depth-r2.height, 0, 0), r2})
	total := v.height + v.depth
	v.height = r1.height // \vtop
	v.depth = total - v.height
	p.addGroup(l, []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: v}}})
}
