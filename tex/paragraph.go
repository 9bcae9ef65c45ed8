package tex

import "errors"

// Leaving math mode: LaTeX's \buildrel#1\over#2 (latex.ltx) alone in a
// \mathcolor body, as the reference's colouring leaves it, scans its
// delimited argument for \over and meets the } of the group it is in
// first: "Argument of \buildrel has an extra }" inserts \par, "Paragraph
// ended before \buildrel was complete" drops the macro with everything it
// scanned, and \par in math mode is "Missing $ inserted": TeX closes the
// groups the formula has open (off_save, innermost first), ends the
// display with what it holds ("Display math should end with $$"), and
// goes on in the paragraph after it (tex.web §392–§396, §1047, §1064,
// §1194–§1206):
//
//   - \par ends that paragraph while it is still empty (null paragraphs
//     are ignored), and what is left of the formula is read in vertical
//     mode: a } is "Extra }, or forgotten \endgroup"; the end of a colour
//     (mathcolor.ltx's scan for scripts, which also removes the spaces
//     after it) pops its colour; \mathcolor is "\mathcolor allowed only in
//     math mode" and then pushes its colour as usual.
//   - A character of the text font starts a paragraph (indented by
//     \parindent, 1.5em) and is set in the text font, cmr12; a math
//     token starts a paragraph too, and "Missing $ inserted" opens an
//     in-line formula in text style that runs to the end of the input.
//   - The display's box is placed as always (centred, Page.Place); the
//     paragraph's line starts at the left edge of the text block, below
//     the display by \belowdisplayshortskip (6.5pt) or, when the display
//     reaches into the first line's indentation, \belowdisplayskip (12pt),
//     and by \baselineskip (14.5pt) from the display's depth (\lineskip
//     when that would bring them closer than \lineskiplimit, 0pt).
//
// Only what the im2latex test set and pdflatex's DVI show is modelled:
// the groups left open must be brace groups or \frac's numerator, the
// paragraph must fit on its line, and its text characters must come one
// to a colour (no kerns or ligatures between them); anything else is
// refused as unsupported.

// errLeaveMath unwinds the parser when TeX leaves math mode.
var errLeaveMath = errors.New("tex: math mode left")

// frameKind says which TeX group a parseList call reads.
type frameKind uint8

const (
	frameOther   frameKind = iota
	frameTop               // the display
	frameGroup             // a {…} math group in a list
	frameFracNum           // amsmath's \frac: {\begingroup#1\endgroup\@@over#2}
	frameCell              // a cell of an alignment (hline.go)
)

// frame is one open parseList: its group and the list it is building.
type frame struct {
	kind   frameKind
	list   *list
	parent *list   // the list the group's noad goes to
	den    []token // frameFracNum: the denominator
	// depth is the parseList depth, ncolors the colour stack's size at
	// the group's start
	depth   int
	ncolors int
}

// leaveState is the display that was cut short by leaving math mode.
type leaveState struct {
	display *list
	// macroBrace: the unmatched } was the closing brace of a macro's
	// expansion (\frac's), read again after the display
	macroBrace bool
}

// Paragraph-mode constants of the 12 pt article.
var (
	belowDisplaySkip      = Scaled(12 << 16)
	belowDisplayShortSkip = Scaled(6<<16 + 1<<15) // 6.5pt
)

// buildrel handles \buildrel: the scan of its first argument, delimited
// by \over, and, when a } ends it first, TeX's way out of math mode.
func (p *parser) buildrel() error {
	level := 0
	macroBrace := false
scan:
	for {
		t, ok := p.next()
		if !ok {
			// the scan runs through \end{displaymath} to the end of the
			// file: "File ended while scanning use of \buildrel"
			return p.e.fatal(`\buildrel's argument runs to the end of the file`)
		}
		switch t.kind {
		case tkBegin:
			level++
		case tkEnd:
			if level == 0 {
				p.insert(t) // back_input: read again after the display
				break scan
			}
			level--
		case tkArgEnd:
			if level != 0 {
				return p.e.unsupported(`\buildrel across a macro argument's end`)
			}
			macroBrace = true
			break scan
		case tkCS:
			if t.s == "over" && level == 0 {
				return p.e.unsupported(`\buildrel … \over`)
			}
		}
	}
	n := len(p.frames)
	if n == 0 || p.frames[0].kind != frameTop {
		return p.e.unsupported(`\buildrel's recovery outside the display`)
	}
	for i, f := range p.frames {
		if i > 0 && f.parent != p.frames[i-1].list {
			// the group's noad goes to a list of its own (a script's
			// field, an argument): not modelled
			return p.e.unsupported(`\buildrel's recovery inside a construct other than a group or \frac's numerator`)
		}
		switch {
		case i == 0:
		case f.kind == frameGroup && !macroBrace:
		case f.kind == frameFracNum && macroBrace && i == n-1:
			// the scan ran on through \endgroup\@@over#2 to the }
			if hasTopLevelOver(f.den) {
				return p.e.unsupported(`\buildrel … \over`)
			}
		case f.kind == frameGroup && macroBrace && i < n-1:
		default:
			return p.e.unsupported(`\buildrel's recovery inside a construct other than a group or \frac's numerator`)
		}
	}
	e := p.e
	e.recover(`Argument of \buildrel has an extra }`)
	e.recover(`Paragraph ended before \buildrel was complete`)
	e.recover("missing $ inserted")
	// off_save, innermost group first
	for i := n - 1; i >= 1; i-- {
		f, parent := p.frames[i], p.frames[i-1].list
		if f.kind == frameFracNum {
			e.recover(`missing \endgroup inserted`)
		}
		e.recover("missing } inserted")
		p.addGroup(parent, f.list.finish())
	}
	p.leave = &leaveState{display: p.frames[0].list, macroBrace: macroBrace}
	return errLeaveMath
}

// hasTopLevelOver reports an \over outside braces.
func hasTopLevelOver(ts []token) bool {
	level := 0
	for _, t := range ts {
		switch {
		case t.kind == tkBegin:
			level++
		case t.kind == tkEnd:
			level--
		case t.kind == tkCS && t.s == "over" && level == 0:
			return true
		}
	}
	return false
}

// isTextChar reports a character that the text font cmr12 sets as itself
// in horizontal mode (OT1), with no ligature program that a single
// character could start.
func isTextChar(c rune) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case ',', '.', ';', ':', '(', ')', '[', ']', '/', '+', '=', '*':
		return true
	}
	return false
}

// startsMath reports a token that is allowed only in math mode and so,
// in a paragraph, is "Missing $ inserted": a math character (a
// \mathchardef or \delimiter symbol, amsmath's big operators, whose
// \DOTSB is \relax) or a script character.
func startsMath(p *parser, t token) bool {
	switch t.kind {
	case tkSup, tkSub:
		return true
	case tkCS:
		if s, ok := p.e.symbol(t.s); ok && (s.kind == symMathChar || s.kind == symDelimiter) {
			return true
		}
		switch t.s {
		case "over", "atop", "above", "overwithdelims", "atopwithdelims", "abovewithdelims":
			// non_math(above): insert_dollar_sign (tex.web §1046)
			return true
		}
		_, ok := bigOps[t.s]
		return ok
	}
	return false
}

// afterDisplay reads the rest of the input in the paragraph after a
// display that TeX ended early, and returns the paragraph's line (nil
// when nothing starts one).
func (p *parser) afterDisplay() ([]*node, error) {
	e := p.e
	if p.leave.macroBrace {
		e.recover(`extra }, or forgotten \endgroup`)
	}
	var line []*node
	inPar, lastChar := false, false
	startPar := func() {
		if !inPar {
			// \parindent: an empty box 1.5em wide
			em := textFontCMR.Param(6)
			line = append(line, &node{kind: hlistNode, width: scaleDecimal(em, "1.5")})
			inPar = true
		}
	}
	for {
		t, ok := p.next()
		if !ok {
			break
		}
		switch {
		case t.kind == tkSpace:
			if inPar {
				return nil, e.unsupported("a space in the paragraph after the display")
			}
		case t.kind == tkEnd:
			e.recover(`extra }, or forgotten \endgroup`)
		case t.kind == tkColorEnd:
			// \__mathcolor_scan_for_scripts:w removes the spaces it peeks
			// over; no script follows: \reset@color
			p.skipSpaces()
			if nt, ok := p.peek(); ok && (nt.kind == tkSup || nt.kind == tkSub || nt.kind == tkChar && nt.c == '\'' ||
				nt.kind == tkCS && (nt.s == "limits" || nt.s == "nolimits" || nt.s == "displaylimits")) {
				return nil, e.unsupported("a script in the paragraph after the display")
			}
			p.popColor()
			lastChar = false
		case t.kind == tkCS && t.s == "mathcolor":
			e.recover(`LaTeX Error: \mathcolor allowed only in math mode`)
			tok, body, err := p.readMathColor()
			if err != nil {
				return nil, err
			}
			p.pushColor(tok)
			ins := append(append([]token{}, body...), token{kind: tkColorEnd})
			p.insert(ins...)
			lastChar = false
		case t.kind == tkChar && isTextChar(t.c):
			if lastChar {
				return nil, e.unsupported("text characters that kern or ligature in the paragraph after the display")
			}
			startPar()
			line = append(line, newChar(textFontCMR, int(t.c), p.tok()))
			lastChar = true
		case t.kind == tkBegin || t.kind == tkArgEnd || t.kind == tkAlign || t.kind == tkParam || t.kind == tkShift || t.kind == tkActive:
			return nil, e.unsupported("a group, alignment or math shift in the paragraph after the display")
		case !startsMath(p, t):
			// \frac, \mathrm and their kin expand to text-mode material
			// here; not modelled
			return nil, e.unsupported("a command in the paragraph after the display")
		default:
			// a math character or a script: "Missing $ inserted", and an
			// in-line formula to the end of the input
			startPar()
			e.recover("missing $ inserted")
			p.insert(t)
			ml, end, err := p.parseList()
			if err != nil {
				if errors.Is(err, errLeaveMath) {
					return nil, e.unsupported("math mode left twice")
				}
				return nil, err
			}
			if end != endEOF {
				return nil, e.unsupported("an in-line formula after the display ended early")
			}
			line = append(line, e.mlistToHlist(ml.finish(), styleT, true)...)
			if e.unsup != nil {
				return nil, e.unsup
			}
			// \end{displaymath} in the in-line formula
			e.recover("missing $ inserted")
			return line, nil
		}
	}
	// \end{displaymath} outside math mode
	e.recover(`LaTeX Error: Bad math environment delimiter`)
	e.recover("missing $ inserted")
	e.recover("display math should end with $$")
	if !inPar {
		return nil, nil
	}
	return line, nil
}

// placeParagraph returns the position of the paragraph line's reference
// point relative to the display's, on page pg (see the file comment).
func placeParagraph(display, lineBox *node, pg Page) (x, y Scaled) {
	w := min(display.width, pg.TextWidth)
	d := half(pg.TextWidth - w)
	em := textFontCMR.Param(6)
	preDisplay := scaleDecimal(em, "1.5") + 2*em
	below := belowDisplayShortSkip
	if d <= preDisplay {
		below = belowDisplaySkip
	}
	y = display.depth + below
	if g := baselineSkip - display.depth - lineBox.height; g >= 0 {
		y += g
	} else {
		y += lineSkip
	}
	y += lineBox.height
	return -d, y
}
