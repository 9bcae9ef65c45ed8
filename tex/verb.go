package tex

import (
	"fmt"
	"strings"
)

// \verb alone in a \mathcolor body, as the reference's colouring writes
// it (\mathcolor[RGB]{…}{\verb} followed by the rest of the formula on
// the same source line), read off pdflatex's log and DVI:
//
// \mathcolor sets its colour, runs its body, \verb (latex.ltx), and then
// \__mathcolor_scan_for_scripts:w. \verb opens an \hbox in math mode,
// makes the specials characters of category other, the space active
// (\@vobeyspaces: \nobreakspace, a control space of the current font),
// ` < > , ' - active (\@noligs: \kern\z@\char`x), the end of the line
// active (\verb@eol@error), selects \ttfamily (cmtt12 at 12pt) and, no
// star following, takes the next token as its delimiter (\@sverb): the
// control sequence \__mathcolor_scan_for_scripts:w. \@@sverb then runs:
//
//   - \catcode`#1\active: an alphabetic constant of a control word is
//     "Improper alphabetic constant", 48 (the character 0), the control
//     sequence put back; scanning the catcode's value expands it to its
//     peek, "Missing number, treated as zero": the character 0 becomes
//     an escape character. The peek sees \active (a \chardef 13), not a
//     script: mathcolor.ltx's case 1 pops the colour (\reset@color, in
//     the \hbox), and \active sets \char13 of cmtt12.
//   - \lccode`\~`#1: "Improper alphabetic constant" again; the control
//     sequence expands to a second peek, which sees \gdef and pops again
//     (the colour that was current before the \mathcolor), so the text
//     is set in no token's colour.
//
// Then the rest of the source line is read with those catcodes and set
// in the \hbox: characters in cmtt12 (its only ligatures, !` and ?`, are
// broken by the active `), a space as cmtt12's interword glue, and 0
// with the character after it a control symbol: \, (amsmath's \tmspace in
// text: \kern.1667em of cmtt12), \{ and \} (OT1's \textbraceleft and
// \textbraceright: cmsy10's characters 102 and 103), \ (control space)
// and \0 to \9 ("Undefined control sequence", dropped). The active end
// of the line closes the \hbox: "\verb ended by end of line". The \hbox
// is an Ord atom of the display, which ends on the next line of the
// template; the formula's tokens after \verb were read as text and get no
// box of their own.
//
// Modelled where \verb's \mathcolor is at the display's outer level or in
// brace groups there (closed at \end{displaymath}, "Missing } inserted"),
// with no colour, \left, environment or size command open, and its
// arguments were read from the source; any other control sequence
// after 0 (an accent \. or \", \\, a control word), other characters than
// printable ASCII, and a line break in the rest of the formula are
// refused, as is \verb anywhere else (its delimiter is then a character
// of the source, or a token TeX had read before \verb changed the
// catcodes).

// coloredVerb handles \mathcolor[…]{…}{\verb}; tok is the colour's token
// and left0 the source tokens left before the colour's arguments were read
// (sourceLeft).
func (p *parser) coloredVerb(l *list, tok int32, left0 int) error {
	e := p.e
	left := p.sourceLeft()
	if left0 < 0 || left < 0 {
		return e.unsupported(`\verb in a macro's argument (tokens TeX read before \verb changed the catcodes)`)
	}
	last := len(p.srcToks) - left - 1 // the arguments' last token, read from the source
	if last < 0 || p.srcToks[last].kind != tkEnd {
		return e.unsupported(`\verb as an unbraced \mathcolor argument`)
	}
	n := len(p.frames)
	if n == 0 || p.frames[0].kind != frameTop || l != p.frames[n-1].list {
		return e.unsupported(`\verb inside a construct other than brace groups`)
	}
	for i := 1; i < n; i++ {
		// brace groups stay open to \end{displaymath}: "Missing }
		// inserted" (TeX's off_save, as for any unclosed group)
		if f := p.frames[i]; f.kind != frameGroup || f.parent != p.frames[i-1].list {
			return e.unsupported(`\verb inside a construct other than brace groups`)
		}
	}
	switch {
	case len(p.colors) != 0 || p.hijacked != 0:
		return e.unsupported(`\verb inside another colour`)
	case len(p.lefts) != 0 || len(p.envs) != 0 || p.left != nil || p.leftCell != nil || p.inlineDepth != 0:
		return e.unsupported(`\verb inside \left or an environment`)
	case len(p.sizes) != 0 || e.fonts != &normalFonts:
		return e.unsupported(`\verb after a size command or in bold math`)
	}
	_, ends := lexEnds(p.src, true)
	rest := p.src[ends[last]:]
	if strings.ContainsAny(rest, "\r\n") {
		return e.unsupported(`a line break after \verb (the text after it is read in math again)`)
	}
	// TeX drops the blanks at the end of an input line (web2c's
	// input_line)
	rest = strings.TrimRight(rest, " \t")
	tt := normalFonts[famTT][textSize]      // cmtt12 at 12pt
	sy := normalFonts[famSymbols][textSize] // cmsy10 at 12pt
	const black = -1                        // no token's colour: both pops done
	// the display's list: the colour's push, then the \hbox
	l.add(&noad{kind: whatsitItem, tok: tok})
	e.recover("Improper alphabetic constant")
	e.recover("Missing number, treated as zero")
	list := []*node{newChar(tt, 13, black)} // \active
	e.recover("Improper alphabetic constant")
	space := func() *node { return newGlue(tt.Param(2), tt.Param(3), tt.Param(4)) }
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == ' ':
			// \nobreakspace: \leavevmode\nobreak\  (the penalty changes
			// nothing inside the \hbox)
			list = append(list, space())
		case c == '0':
			if i+1 == len(rest) {
				return e.unsupported(`0 at the end of \verb's line (the control symbol \^^M takes the line's end)`)
			}
			i++
			switch d := rest[i]; {
			case d == ',':
				list = append(list, newKern(scaleDecimal(tt.Param(6), ".1667")))
			case d == '{':
				list = append(list, newChar(sy, 102, black))
			case d == '}':
				list = append(list, newChar(sy, 103, black))
			case d == ' ':
				list = append(list, space())
			case d >= '0' && d <= '9':
				e.recover(`undefined control sequence \` + string(d))
			default:
				return e.unsupported(fmt.Sprintf(`the control sequence starting 0%c in \verb's text (0 is an escape character there)`, d))
			}
		case c > ' ' && c < 0x7F:
			if strings.IndexByte("`<>,'-", c) >= 0 {
				list = append(list, newKern(0)) // \@noligs: \kern\z@\char`c
			}
			if !tt.exists(int(c)) {
				return e.unsupported(fmt.Sprintf(`character %q missing in cmtt12`, c))
			}
			list = append(list, newChar(tt, int(c), black))
		default:
			return e.unsupported(fmt.Sprintf(`the byte %#x in \verb's text`, c))
		}
	}
	e.recover(`\verb ended by end of line`)
	l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: hpack(list, 0, false)}})
	// the rest of the formula was the \hbox's text
	p.in = nil
	return nil
}

// sourceLeft returns how many of the formula's source tokens are left
// when the input stack holds nothing else (no token read again, no
// expansion), or -1.
func (p *parser) sourceLeft() int {
	if len(p.srcToks) == 0 {
		return -1
	}
	left := 0
	for i, s := range p.in {
		if len(s) == 0 {
			continue
		}
		if i != 0 || &s[len(s)-1] != &p.srcToks[len(p.srcToks)-1] {
			return -1
		}
		left = len(s)
	}
	return left
}
