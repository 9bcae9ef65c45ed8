package tex

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/leakaudit/leakaudit/latex"
)

// The parser turns the coloured LaTeX the reference renders into a math
// list, the way TeX's math mode builds one (tex.web part 48), with the
// LaTeX, amsmath and amssymb macros the datasets use modelled after
// their definitions (docs/tex-layout.md §5). It is not a macro expander: each
// supported command has a handler; anything else is reported as
// unsupported rather than guessed.

// maxParseDepth bounds group nesting (a hostile formula cannot exhaust the
// stack).
const maxParseDepth = 400

type parser struct {
	e      *engine
	in     [][]token    // input stack: the top slice is read first
	colors []colorEntry // colour stack: the current token is the top
	fam    int          // \fam for variable-family characters (−1: none)
	depth  int
	budget int // tokens that may still be inserted (bounds expansion)
	// lefts are the depths of the \left groups being read: a } that would
	// close one is an error TeX recovers from.
	lefts []int
	// envs are the alignment environments being read, innermost last:
	// inside one, & and \\ end cells and \end{…} must name it.
	envs []string
	// sizes are the size commands (\tiny …) in force, innermost last,
	// with the depth of the group each is local to: they change the
	// current text font, which control space and em units measure.
	sizes []sizeChange
	// hijacked counts the open groups in which mathcolor.ltx's
	// \c_group_end_token is the constant 0 (hijack.go)
	hijacked int
	// frames are the open parseList calls, outermost first, and
	// nextFrame the kind of group the next one reads (paragraph.go)
	frames     []frame
	nextFrame  frameKind
	nextParent *list
	nextDen    []token
	// leave is set when TeX has left math mode (paragraph.go)
	leave *leaveState
	// page is the page the display is set on (TypesetOn)
	page Page
	// tabularText is set while textBox sets a tabular cell (tabular.go):
	// braces end a run of characters' ligatures and kerns, and what the
	// model leaves out is refused rather than approximated
	tabularText bool
	// textCells is set while an array with an empty preamble is read:
	// its cells are text, as tabular's are (array.go)
	textCells bool
	// leftCell is the cell an \hline ended (hline.go); left is the array
	// whose alignment ended early while its environment is open, and
	// inlineDepth and inlineEnv the in-line formula of its \vcenter's
	// paragraph, which \end{inlineEnv} ends
	leftCell    *list
	left        *leftAlign
	inlineDepth int
	inlineEnv   string
	// src is the formula's source and srcToks its tokens, the bottom of
	// the input stack (verb.go)
	src     string
	srcToks []token
	// textBuf is tokText's scratch buffer
	textBuf []byte
	// endMark is colorEndMark's item
	endMark *noad
}

// sizeChange is a size command in force until its group ends.
type sizeChange struct {
	depth int
	name  string
}

// colorEntry is a colour in force: a \mathcolor's (group 0, popped at
// the end of its body and scripts, whatever the grouping, as
// mathcolor.ltx does) or a \color's (undone at the end of the group at
// depth group).
type colorEntry struct {
	tok   int32
	outer int32 // the colour current before a \mathcolor
	group int
}

func (p *parser) tok() int32 {
	if len(p.colors) == 0 {
		return -1
	}
	return p.colors[len(p.colors)-1].tok
}

// pushColor starts a \mathcolor colour.
func (p *parser) pushColor(tok int32) {
	p.colors = append(p.colors, colorEntry{tok: tok, outer: p.tok()})
}

// popColor ends the innermost \mathcolor colour; it returns the colour
// that was current before it.
func (p *parser) popColor() int32 {
	for i := len(p.colors) - 1; i >= 0; i-- {
		if p.colors[i].group == 0 {
			outer := p.colors[i].outer
			p.colors = append(p.colors[:i], p.colors[i+1:]...)
			return outer
		}
	}
	return -1
}

// outerColor is the colour current before the innermost \mathcolor.
func (p *parser) outerColor() int32 {
	for i := len(p.colors) - 1; i >= 0; i-- {
		if p.colors[i].group == 0 {
			return p.colors[i].outer
		}
	}
	return -1
}

// next returns the next input token.
func (p *parser) next() (token, bool) {
	for len(p.in) > 0 {
		top := p.in[len(p.in)-1]
		if len(top) == 0 {
			p.in = p.in[:len(p.in)-1]
			continue
		}
		p.in[len(p.in)-1] = top[1:]
		return top[0], true
	}
	return token{}, false
}

// peek returns the next input token without consuming it.
func (p *parser) peek() (token, bool) {
	for i := len(p.in) - 1; i >= 0; i-- {
		if len(p.in[i]) > 0 {
			return p.in[i][0], true
		}
	}
	return token{}, false
}

// skipSpaces skips space tokens (math mode ignores them).
func (p *parser) skipSpaces() {
	for {
		t, ok := p.peek()
		if !ok || t.kind != tkSpace {
			return
		}
		p.next()
	}
}

// insert puts tokens back at the front of the input (back_input).
func (p *parser) insert(ts ...token) {
	p.budget -= len(ts)
	if len(ts) > 0 {
		p.in = append(p.in, ts)
	}
}

// readArg reads an undelimited macro argument: one token, or a balanced
// group without its braces.
func (p *parser) readArg() ([]token, error) {
	p.skipSpaces()
	if arg, ok := p.argInTop(); ok {
		return arg, nil
	}
	t, ok := p.next()
	if !ok {
		return nil, p.e.fatal("runaway argument: end of formula")
	}
	if t.kind == tkEnd || t.kind == tkArgEnd {
		// pdflatex: "Argument of \x has an extra }", then "Paragraph
		// ended", and a cascade of recoveries that still ships a page
		return nil, p.e.unsupported("recovery from an argument missing before }")
	}
	if t.kind != tkBegin {
		return []token{t}, nil
	}
	var arg []token
	for level := 1; ; {
		t, ok := p.next()
		if !ok {
			return nil, p.e.fatal("runaway argument: unbalanced {")
		}
		switch t.kind {
		case tkBegin:
			level++
		case tkEnd:
			level--
			if level == 0 {
				return arg, nil
			}
		case tkArgEnd:
			return nil, p.e.fatal("runaway argument: unbalanced {")
		}
		arg = append(arg, t)
	}
}

// argInTop is readArg's common case without copying: an argument that
// lies wholly in the top input slice (a single token, or a balanced group
// without a macro argument's end in it) is returned as a part of that
// slice (capacity capped, so that appending to it copies), and the input
// is left as readArg leaves it. The parser never writes into an input
// slice's tokens. ok is false, and nothing is read, in every other case.
func (p *parser) argInTop() (arg []token, ok bool) {
	if len(p.in) == 0 {
		return nil, false
	}
	top := p.in[len(p.in)-1]
	if len(top) == 0 {
		return nil, false
	}
	switch top[0].kind {
	case tkEnd, tkArgEnd:
		return nil, false
	case tkBegin:
	default:
		p.in[len(p.in)-1] = top[1:]
		return top[:1:1], true
	}
	for level, j := 1, 1; j < len(top); j++ {
		switch top[j].kind {
		case tkBegin:
			level++
		case tkEnd:
			if level--; level == 0 {
				p.in[len(p.in)-1] = top[j+1:]
				if j == 1 {
					return nil, true // {}: readArg's nil
				}
				return top[1:j:j], true
			}
		case tkArgEnd:
			return nil, false
		}
	}
	return nil, false
}

// optArgInTop is readOptArg's common case without copying, as argInTop
// is readArg's: the top input slice starts with [ and holds its ].
func (p *parser) optArgInTop() (arg []token, ok bool) {
	if len(p.in) == 0 {
		return nil, false
	}
	top := p.in[len(p.in)-1]
	if len(top) == 0 || top[0].kind != tkChar || top[0].c != '[' {
		return nil, false
	}
	for level, j := 0, 1; j < len(top); j++ {
		t := top[j]
		switch {
		case t.kind == tkArgEnd:
			return nil, false
		case t.kind == tkBegin:
			level++
		case t.kind == tkEnd:
			level--
		case t.kind == tkChar && t.c == ']' && level == 0:
			p.in[len(p.in)-1] = top[j+1:]
			if j == 1 {
				return nil, true // []: readOptArg's nil
			}
			return top[1:j:j], true
		}
	}
	return nil, false
}

// readOptArg reads a [...] optional argument if one follows: up to the
// first ] outside braces, as LaTeX's delimited argument does.
func (p *parser) readOptArg() ([]token, bool, error) {
	p.skipSpaces()
	if arg, ok := p.optArgInTop(); ok {
		return arg, true, nil
	}
	t, ok := p.peek()
	if !ok || t.kind != tkChar || t.c != '[' {
		return nil, false, nil
	}
	p.next()
	var arg []token
	for level := 0; ; {
		t, ok := p.next()
		if !ok {
			return nil, false, p.e.fatal("runaway optional argument")
		}
		switch {
		case t.kind == tkArgEnd:
			return nil, false, p.e.fatal("runaway optional argument")
		case t.kind == tkBegin:
			level++
		case t.kind == tkEnd:
			level--
		case t.kind == tkChar && t.c == ']' && level == 0:
			return arg, true, nil
		}
		arg = append(arg, t)
	}
}

// list is a math list under construction, with TeX's incompleat noad
// for \over and friends.
type list struct {
	items      []*noad
	incompleat *noad
	e          *engine // where its items come from, if not nil
}

func (l *list) tail() *noad {
	if len(l.items) == 0 {
		return nil
	}
	return l.items[len(l.items)-1]
}

func (l *list) add(n *noad) {
	switch {
	case l.e != nil && len(l.items) == cap(l.items):
		// most lists have more than two items; a full one doubles, as
		// append would grow it
		grown := l.e.noadPtrs.Take(max(4, 2*cap(l.items)))[:len(l.items)]
		copy(grown, l.items)
		l.items = grown
	case l.items == nil:
		l.items = make([]*noad, 0, 4)
	}
	l.items = append(l.items, n)
}

// finish is fin_mlist: the list, with a pending generalized fraction
// completed.
func (l *list) finish() []*noad {
	if l.incompleat != nil {
		l.incompleat.den = l.items
		return []*noad{l.incompleat}
	}
	return l.items
}

// endKind says what ended a math list.
type endKind uint8

const (
	endEOF endKind = iota
	endGroup
	endRight
	endAlign // & in an array
	endCR    // \\ in an array
	endEnv   // \end{array}
	endArg   // the end of a macro argument being parsed (parseTokens)
)

// parseList reads math-mode material until the end of the input, a
// closing brace or a \right, and returns the list and what ended it.
func (p *parser) parseList() (*list, endKind, error) {
	p.depth++
	savedFam := p.fam // \fam is local to the group
	depth := p.depth
	defer func() {
		// \color lasts to the end of its group
		kept := p.colors[:0]
		for _, c := range p.colors {
			if c.group != depth {
				kept = append(kept, c)
			}
		}
		p.colors = kept
		for len(p.sizes) > 0 && p.sizes[len(p.sizes)-1].depth == depth {
			p.sizes = p.sizes[:len(p.sizes)-1] // the font change is local to the group
		}
		p.depth--
		p.fam = savedFam
	}()
	if p.depth > maxParseDepth {
		return nil, endEOF, p.e.fatal("formula nested too deeply")
	}
	l := p.e.lists.New()
	l.e = p.e
	p.frames = append(p.frames, frame{kind: p.nextFrame, list: l, parent: p.nextParent, den: p.nextDen, depth: depth, ncolors: len(p.colors)})
	p.nextFrame, p.nextParent, p.nextDen = frameOther, nil, nil
	defer func() { p.frames = p.frames[:len(p.frames)-1] }()
	for {
		t, ok := p.next()
		if !ok {
			return l, endEOF, nil
		}
		switch t.kind {
		case tkSpace:
		case tkEnd:
			// TeX's extra_right_brace (tex.web §1069): a } that would
			// close the formula or a \left group is dropped; so is one
			// that meets an in-line formula's math shift group or an
			// environment's semi-simple group (hline.go).
			if p.inlineEnv != "" && depth == p.inlineDepth {
				p.e.recover("extra }, or forgotten $")
				continue
			}
			if p.left != nil && p.inlineEnv == "" && depth == p.left.depth {
				p.e.recover(`extra }, or forgotten \endgroup`)
				continue
			}
			if depth == 1 {
				p.e.recover("extra }, or forgotten $")
				continue
			}
			if n := len(p.lefts); n > 0 && p.lefts[n-1] == depth {
				p.e.recover(`extra }, or forgotten \right`)
				continue
			}
			return l, endGroup, nil
		case tkBegin:
			p.nextFrame, p.nextParent = frameGroup, l
			inner, end, err := p.parseList()
			if err != nil {
				return nil, endEOF, err
			}
			p.closeGroup(end)
			p.addGroup(l, inner.finish())
		case tkSup, tkSub:
			if err := p.script(l, t.kind == tkSup); err != nil {
				return nil, endEOF, err
			}
		case tkChar:
			if err := p.char(l, t.c); err != nil {
				return nil, endEOF, err
			}
		case tkActive:
			// ~ is \nobreakspace{}: an interword space of the text font
			// and an empty group.
			l.add(p.spaceGlue())
			l.add(&noad{kind: ordNoad, nucleus: field{kind: subMlist}})
		case tkAlign:
			if len(p.envs) > 0 {
				return l, endAlign, nil
			}
			p.e.recover("misplaced alignment tab character &")
		case tkShift:
			p.e.recover("display math should end with $$")
		case tkParam:
			p.e.recover("illegal parameter number")
		case tkArgEnd:
			return l, endArg, nil
		case tkColorEnd:
			if err := p.colorEnd(l); err != nil {
				return nil, endEOF, err
			}
		case tkEndgroup:
			end, err := p.strayEndgroup(depth)
			if err != nil {
				return nil, endEOF, err
			}
			if end != endEOF {
				return l, end, nil
			}
		case tkCS:
			if t.s == "right" {
				if p.inlineEnv != "" && depth == p.inlineDepth || p.left != nil && p.inlineEnv == "" && depth == p.left.depth {
					return nil, endEOF, p.e.unsupported(`\right after an array left early`)
				}
				if depth == 1 || p.frames[len(p.frames)-1].kind == frameCell {
					// \right outside any \left (tex.web §1192): its
					// delimiter is read and dropped. An alignment's cell
					// is a math shift group of its own, so a \right there
					// never closes a \left outside it.
					p.e.recover(`extra \right`)
					if _, err := p.scanDelimiter(); err != nil {
						return nil, endEOF, err
					}
					continue
				}
				return l, endRight, nil
			}
			if len(p.envs) > 0 && t.s == "\\" {
				return l, endCR, nil
			}
			if t.s == "hline" && len(p.envs) > 0 && p.envs[len(p.envs)-1] == "array" {
				return nil, endEOF, p.hlineInCell()
			}
			if len(p.envs) == 0 && (p.left != nil || p.inlineEnv != "") {
				switch t.s {
				case "\\":
					if p.inlineEnv != "" && depth == p.inlineDepth {
						// \@arraycr's $ ends the in-line formula (hline.go)
						return l, endCR, nil
					}
					return nil, endEOF, p.e.unsupported(`\\ after an array left early`)
				case "end":
					inline, err := p.endLeftEnv(depth)
					if err != nil {
						return nil, endEOF, err
					}
					if inline {
						return l, endEnv, nil
					}
					continue
				case "hline", "noalign", "cr", "crcr", "begin":
					return nil, endEOF, p.e.unsupported(`\` + t.s + ` after an array left early`)
				}
			}
			if len(p.envs) > 0 && t.s == "end" {
				arg, err := p.readArg()
				if err != nil {
					return nil, endEOF, err
				}
				if name := tokString(arg); len(p.envs) == 0 || name != p.envs[len(p.envs)-1] {
					return nil, endEOF, p.e.unsupported(`\end{` + name + `}`)
				}
				return l, endEnv, nil
			}
			if err := p.command(l, t.s); err != nil {
				return nil, endEOF, err
			}
		}
	}
}

// addGroup appends a {…} group: an Ord noad, simplified when the group
// is a single Ord without scripts (tex.web §1186), or replaced by a lone
// accent noad.
func (p *parser) addGroup(l *list, items []*noad) {
	if len(items) == 1 {
		q := items[0]
		if q.kind == ordNoad && q.sup.kind == emptyField && q.sub.kind == emptyField {
			g := p.e.noads.New()
			g.kind, g.nucleus = ordNoad, q.nucleus
			l.add(g)
			return
		}
		if q.kind == accentNoad {
			l.add(q)
			return
		}
	}
	g := p.e.noads.New()
	g.kind, g.nucleus = ordNoad, field{kind: subMlist, list: items}
	l.add(g)
}

// groupField makes a script or nucleus field of a braced group
// (simplified like addGroup, without the accent case).
func groupField(items []*noad) field {
	if len(items) == 1 {
		q := items[0]
		if q.kind == ordNoad && q.sup.kind == emptyField && q.sub.kind == emptyField {
			return q.nucleus
		}
	}
	return field{kind: subMlist, list: items}
}

// mathCharNoad makes the noad for a math character of a class.
func (p *parser) mathCharNoad(class, fam, c int) *noad {
	if class == 7 {
		if p.fam >= 0 && p.fam < numFams {
			fam = p.fam
		}
		class = 0
	}
	q := p.e.noads.New()
	tok := p.tok()
	q.kind, q.nucleus, q.tok = noadKind(class), field{kind: mathChar, fam: fam, c: c, tok: tok}, tok
	return q
}

func (p *parser) char(l *list, c rune) error {
	if c >= 128 {
		p.e.recover(fmt.Sprintf("Unicode character %q not set up for use with LaTeX", c))
		return nil
	}
	class, fam, slot := mathcodeOf(c)
	if class == 8 {
		if c == '\'' {
			return p.primes(l)
		}
		return p.e.unsupported(fmt.Sprintf("active character %q", c))
	}
	if class < 0 {
		return nil
	}
	l.add(p.mathCharNoad(class, fam, slot))
	return nil
}

// primes handles ' (amsmath's \active@math@prime): a run of primes and
// an immediately following ^ argument form one superscript.
func (p *parser) primes(l *list) error {
	var ts []token
	ts = append(ts, token{kind: tkCS, s: "prime"})
	for {
		t, ok := p.peek()
		if ok && t.kind == tkChar && t.c == '\'' {
			p.next()
			ts = append(ts, token{kind: tkCS, s: "prime"})
			continue
		}
		if ok && t.kind == tkSup {
			p.next()
			arg, err := p.readArg()
			if err != nil {
				return err
			}
			ts = append(ts, arg...)
		}
		break
	}
	return p.attachScript(l, true, func() (field, error) {
		items, err := p.parseTokens(ts)
		if err != nil {
			return field{}, err
		}
		return field{kind: subMlist, list: items}, nil
	})
}

// script handles ^ and _.
func (p *parser) script(l *list, sup bool) error {
	return p.attachScript(l, sup, p.scanMath)
}

// attachScript attaches a script to the tail noad, or to a new empty Ord
// noad when the tail cannot take it (tex.web §1176–§1177).
func (p *parser) attachScript(l *list, sup bool, scan func() (field, error)) error {
	t := l.tail()
	if t == nil || t.kind > vcenterNoad { // scripts_allowed
		t = &noad{kind: ordNoad}
		l.add(t)
	}
	slot := &t.sub
	if sup {
		slot = &t.sup
	}
	if slot.kind != emptyField {
		if sup {
			p.e.recover("double superscript")
		} else {
			p.e.recover("double subscript")
		}
		t = &noad{kind: ordNoad}
		l.add(t)
		slot = &t.sub
		if sup {
			slot = &t.sup
		}
	}
	f, err := scan()
	if err != nil {
		return err
	}
	*slot = f
	return nil
}

// scanMath is scan_math (tex.web §1151): a character, a math symbol, or a
// braced subformula.
func (p *parser) scanMath() (field, error) {
	for {
		p.skipSpaces()
		t, ok := p.next()
		if !ok {
			// a script, accent or radical cut at the end of the formula:
			// pdflatex reads \end{displaymath} as the field, "Missing {
			// inserted"; the display's $ meets the new group, "Missing }
			// inserted" (off_save), and the field is empty
			p.e.recover("missing { inserted")
			p.e.recover("missing } inserted")
			return field{kind: subMlist}, nil
		}
		switch t.kind {
		case tkChar:
			class, fam, slot := mathcodeOf(t.c)
			if class == 8 || class < 0 {
				return field{}, p.e.unsupported(fmt.Sprintf("character %q as a script", t.c))
			}
			n := p.mathCharNoad(class, fam, slot)
			return n.nucleus, nil
		case tkBegin:
			inner, end, err := p.parseList()
			if err != nil {
				return field{}, err
			}
			p.closeGroup(end)
			return groupField(inner.finish()), nil
		case tkCS:
			if s, ok := p.e.symbol(t.s); ok && (s.kind == symMathChar || s.kind == symDelimiter) {
				n := p.mathCharNoad(s.class, s.fam, s.c)
				return n.nucleus, nil
			}
			if exp, ok := macros[t.s]; ok {
				p.insert(lex(exp)...)
				continue
			}
			if groupCommands[t.s] {
				l := &list{}
				if err := p.command(l, t.s); err != nil {
					return field{}, err
				}
				return groupField(l.finish()), nil
			}
			return p.insertedGroup(t)
		default:
			// ^, _, &, ~, $ or # where a math field is due
			return p.insertedGroup(t)
		}
	}
}

// closeGroup handles a {…} group that ended without its }: TeX inserts
// the } (off_save, "Missing } inserted") and reads what ended it again at
// the outer level: the end of the formula, a \right, an alignment tab or
// \\, or \end{array}.
func (p *parser) closeGroup(end endKind) {
	if end == endGroup {
		return
	}
	p.e.recover("missing } inserted")
	switch end {
	case endArg:
		// the argument's \endgroup closes the group it is in (off_save)
		p.insert(token{kind: tkArgEnd})
	case endRight:
		p.insert(token{kind: tkCS, s: "right"})
	case endAlign:
		p.insert(token{kind: tkAlign, c: '&'})
	case endCR:
		p.insert(token{kind: tkCS, s: "\\"})
	case endEnv:
		p.insert(lex(`\end{array}`)...)
	}
}

// insertedGroup is TeX's recovery where scan_math meets something that is
// neither a character nor a brace (tex.web §1151, scan_left_brace):
// "Missing { inserted", and the new group runs to the next unmatched }.
func (p *parser) insertedGroup(t token) (field, error) {
	p.e.recover("missing { inserted")
	p.insert(t)
	inner, end, err := p.parseList()
	if err != nil {
		return field{}, err
	}
	switch end {
	case endEOF:
		p.e.recover("missing } inserted")
	case endArg:
		// the macro argument ends inside the inserted group: its
		// \endgroup meets the group, "Missing } inserted" (off_save)
		p.e.recover("missing } inserted")
		p.insert(token{kind: tkArgEnd})
	case endRight:
		if t.kind != tkColorEnd {
			// a group inserted before a command (a lone \mathcolor as a
			// script): pdflatex's log shows other recoveries there, not
			// modelled
			return field{}, p.e.unsupported(`\right inside an inserted group`)
		}
		// a script whose field is the end of its colour's body
		// (im2latex's coloured \sp and \sb: \mathcolor{…}{\sp} {x}):
		// \right meets the inserted group, "Missing } inserted"
		// (off_save), and \right is read again outside it, as after an
		// explicit {
		p.e.recover("missing } inserted")
		p.insert(token{kind: tkCS, s: "right"})
	case endAlign, endCR, endEnv:
		return field{}, p.e.unsupported("an alignment inside an inserted group")
	}
	return groupField(inner.finish()), nil
}

// groupCommands are the commands whose expansion starts with a brace
// (\bgroup), so that scan_math takes them as a group: the alphabets
// (\use@mathgroup), amsmath's fractions and \big….
var groupCommands = map[string]bool{
	"mathrm": true, "mathnormal": true, "mathcal": true, "mathbb": true, "mathbf": true, "mathit": true, "mathfrak": true,
	"frac": true, "dfrac": true, "tfrac": true, "binom": true,
	"big": true, "Big": true, "bigg": true, "Bigg": true,
}

// colorEnd handles the end of a \mathcolor body: scripts that follow are
// attached with the outer colour current inside them (mathcolor.ltx),
// then the colour is popped.
func (p *parser) colorEnd(l *list) error {
	for {
		p.skipSpaces()
		t, ok := p.peek()
		if !ok {
			break
		}
		if t.kind == tkSup || t.kind == tkSub {
			p.next()
			p.skipSpaces()
			if nt, ok := p.peek(); ok && nt.kind == tkCS && nt.s == "mathcolor" {
				// the script's field is another colour: hijack.go
				if err := p.attachScript(l, t.kind == tkSup, p.hijackScript); err != nil {
					return err
				}
				continue
			}
			if p.hijacked > 0 {
				// the colour is popped inside the script (hijack.go)
				return p.attachScript(l, t.kind == tkSup, p.hijackedGroupScript)
			}
			outer := p.outerColor()
			err := p.attachScript(l, t.kind == tkSup, func() (field, error) {
				p.pushColor(outer) // \set@color of the outer colour
				f, err := p.scanMath()
				p.popColor()
				if err != nil {
					return field{}, err
				}
				var content []*noad
				switch f.kind {
				case mathChar:
					content = []*noad{{kind: ordNoad, nucleus: f, tok: f.tok}}
				case subMlist:
					content = f.list
				}
				inner := p.e.noadPtrs.Take(len(content) + 1)
				inner[0] = p.e.whatsitItem(outer)
				copy(inner[1:], content)
				ord := p.e.noads.New()
				ord.kind, ord.nucleus = ordNoad, field{kind: subMlist, list: inner}
				list := p.e.noadPtrs.Take(2)
				list[0], list[1] = ord, p.colorEndMark()
				return field{kind: subMlist, list: list}, nil
			})
			if err != nil {
				return err
			}
			continue
		}
		if p.hijacked > 0 && t.kind == tkChar && t.c == '\'' {
			// mathcolor.ltx sends a prime to its script handling too
			return p.e.unsupported("a prime after a colour while mathcolor's group end is hijacked")
		}
		if t.kind == tkCS && (t.s == "limits" || t.s == "nolimits" || t.s == "displaylimits") {
			p.next()
			if err := p.command(l, t.s); err != nil {
				return err
			}
			continue
		}
		break
	}
	l.add(p.colorEndMark())
	p.popColor()
	return nil
}

// colorEndMark is the colour special that ends a \mathcolor (a whatsit
// item of token −2). Nothing changes a whatsit item once it is in a
// list, so a formula's colour ends share one.
func (p *parser) colorEndMark() *noad {
	if p.endMark == nil {
		p.endMark = &noad{kind: whatsitItem, tok: -2}
	}
	return p.endMark
}

// readMathColor reads the arguments of \mathcolor[model]{spec}{body}:
// the token whose palette colour it is (−1 for any other colour) and the
// body.
func (p *parser) readMathColor() (tok int32, body []token, err error) {
	model, _, err := p.readOptArg()
	if err != nil {
		return 0, nil, err
	}
	spec, err := p.readArg()
	if err != nil {
		return 0, nil, err
	}
	if body, err = p.readArg(); err != nil {
		return 0, nil, err
	}
	tok = -1
	if isRGB(model) || string(p.tokText(model)) == "RGB" {
		r, g, b, ok, sure := digitsRGB(spec)
		if !sure {
			r, g, b, ok = parseRGB(string(p.tokText(spec)))
		}
		if ok {
			tok = int32(latex.ColorToken(r, g, b))
		}
	}
	return tok, body, nil
}

// isRGB reports whether ts are the three characters R, G, B: the
// colour model of every palette colour, whose text is "RGB".
func isRGB(ts []token) bool {
	return len(ts) == 3 && ts[0].kind == tkChar && ts[0].c == 'R' && ts[1].kind == tkChar && ts[1].c == 'G' && ts[2].kind == tkChar && ts[2].c == 'B'
}

// digitsRGB is parseRGB of the text of ts for the spec of every palette
// colour: three fields of one to three digits, separated by commas, as
// characters. sure is false for any other spec, whose text parseRGB
// must then read.
func digitsRGB(ts []token) (r, g, b uint8, ok, sure bool) {
	var v [3]int
	field, digits := 0, 0
	for _, t := range ts {
		switch {
		case t.kind != tkChar:
			return 0, 0, 0, false, false
		case t.c >= '0' && t.c <= '9':
			if digits++; digits > 3 {
				return 0, 0, 0, false, false
			}
			v[field] = 10*v[field] + int(t.c-'0')
		case t.c == ',' && digits > 0 && field < 2:
			field, digits = field+1, 0
		default:
			return 0, 0, 0, false, false
		}
	}
	if field != 2 || digits == 0 || v[0] > 255 || v[1] > 255 || v[2] > 255 {
		return 0, 0, 0, false, false
	}
	return uint8(v[0]), uint8(v[1]), uint8(v[2]), true, true
}

// mathColor handles \mathcolor[RGB]{r,g,b}{body}.
func (p *parser) mathColor(l *list) error {
	left := p.sourceLeft() // for \verb, which needs its place in the source
	tok, body, err := p.readMathColor()
	if err != nil {
		return err
	}
	if len(body) == 1 && body[0].kind == tkCS && (body[0].s == "boxed" || body[0].s == "fbox") {
		// \boxed or \fbox alone frames an empty formula (it takes the
		// colour's end as its argument), drawn after the colour is popped.
		l.add(&noad{kind: whatsitItem, tok: tok})
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: p.e.fbox(&node{kind: hlistNode}, p.tok())}})
		l.add(&noad{kind: whatsitItem, tok: -2})
		return nil
	}
	if len(body) == 1 && body[0].kind == tkCS && (body[0].s == "d" || body[0].s == "b" || body[0].s == "c") {
		p.loneTextAccent(l, tok, body[0].s)
		return nil
	}
	if len(body) == 1 && body[0].kind == tkCS && body[0].s == "cfrac" {
		return p.loneCfrac(l, tok)
	}
	if len(body) == 1 && body[0].kind == tkCS && body[0].s == "textcircled" {
		// \textcircled alone takes the colour's end as its argument: the
		// TS1 circle, set after the colour is popped (so in the outer colour).
		l.add(&noad{kind: whatsitItem, tok: tok})
		f := textCircleFont()
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: hpack([]*node{newChar(f, 79, p.tok())}, 0, false)}})
		l.add(&noad{kind: whatsitItem, tok: -2})
		return nil
	}
	if len(body) == 1 && body[0].kind == tkCS && body[0].s == "verb" {
		return p.coloredVerb(l, tok, left)
	}
	p.pushColor(tok)
	l.add(p.e.whatsitItem(tok))
	// \operatorname* alone in a colour body takes the body's end as its
	// argument (the reference's quirk, docs/cdm.md §4): an empty operator.
	if s := p.operatornameText(body); s == `\operatorname*` || s == `\operatorname` {
		op := &noad{kind: opNoad, nucleus: field{kind: subMlist, list: []*noad{{kind: kernItem, glue: newKern(0)}, {kind: whatsitItem, tok: -2}}}, tok: tok}
		if s == `\operatorname` {
			op.limits = limitsOff
		}
		l.add(op)
		p.popColor()
		return nil
	}
	// the body, then the end of the colour: two input slices, read as
	// one (no input slice's tokens are ever written, so both are shared)
	p.insert(colorEndToks...)
	p.insert(body...)
	return nil
}

// colorEndToks is the end of a \mathcolor body, as mathColor inserts it
// after the body.
var colorEndToks = []token{{kind: tkColorEnd}}

// parseRGB reads an RGB colour spec "r,g,b": three comma-separated
// integers 0…255, blanks around each allowed.
func parseRGB(s string) (r, g, b uint8, ok bool) {
	var v [3]uint8
	for i := range v {
		x, rest, found := strings.Cut(s, ",")
		if found != (i < 2) {
			return 0, 0, 0, false // not three fields
		}
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 || n > 255 {
			return 0, 0, 0, false
		}
		v[i], s = uint8(n), rest
	}
	return v[0], v[1], v[2], true
}

// tokString renders tokens back to text (for arguments such as colour
// specs and dimensions).
func tokString(ts []token) string {
	return string(appendTokText(nil, ts))
}

// operatornameText is the text of a colour body that may be
// \operatorname or \operatorname* (tokString's), and "" for any other body:
// such a text starts with a backslash, which only a control sequence
// named operatorname (or named nothing) or a backslash character makes.
func (p *parser) operatornameText(body []token) string {
	for _, t := range body {
		if t.kind == tkCS && (t.s == "operatorname" || t.s == "") || t.kind == tkChar && t.c == '\\' {
			return string(p.tokText(body))
		}
	}
	return ""
}

// tokText is tokString in the parser's scratch buffer, for a comparison
// or a parse that does not keep the text: the bytes are valid until the
// next call.
func (p *parser) tokText(ts []token) []byte {
	p.textBuf = appendTokText(p.textBuf[:0], ts)
	return p.textBuf
}

// appendTokText appends the text of tokens to b and returns it without
// its leading and trailing blanks (strings.TrimSpace's).
func appendTokText(b []byte, ts []token) []byte {
	start := len(b)
	for _, t := range ts {
		switch t.kind {
		case tkCS:
			b = append(b, '\\')
			b = append(b, t.s...)
			if len(t.s) > 0 && isLetter(t.s[0]) {
				b = append(b, ' ')
			}
		case tkBegin:
			b = append(b, '{')
		case tkEnd:
			b = append(b, '}')
		case tkSpace:
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, t.c)
		}
	}
	trimmed := bytes.TrimSpace(b[start:])
	return append(b[:start], trimmed...)
}

// spaceGlue is a control space: the interword glue of the current text
// font (cmr12, or a size command's font; tex.web §1041).
func (p *parser) spaceGlue() *noad {
	f, _ := p.textFont()
	return &noad{kind: glueItem, glue: newGlue(f.Param(2), f.Param(3), f.Param(4))}
}

// loneCfrac handles \mathcolor{c}{\cfrac} followed by {a}{b}, as the
// reference's colouring writes amsmath's \cfrac: \cfrac takes the
// colour's end as its numerator and the next group as its denominator,
// {\displaystyle\frac{\strut<end>}{a}}\kern-\nulldelimiterspace, and {b}
// stays an ordinary group after it. The colour ends inside the numerator,
// so the fraction bar is drawn in the outer colour.
func (p *parser) loneCfrac(l *list, tok int32) error {
	outer := p.tok()
	p.pushColor(tok)
	l.add(&noad{kind: whatsitItem, tok: tok})
	strut := &node{kind: hlistNode, height: p.e.strutHt, depth: p.e.strutDp}
	num := []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: strut}}, {kind: whatsitItem, tok: -2}}
	p.popColor()
	den, err := p.readArg()
	if err != nil {
		return err
	}
	d, err := p.parseTokens(den)
	if err != nil {
		return err
	}
	fr := &noad{kind: fractionNoad, tok: outer, noadParts: &noadParts{num: num, den: d, thickness: defaultCode}}
	inner := &noad{kind: ordNoad, nucleus: field{kind: subMlist, list: []*noad{fr}}}
	p.addGroup(l, []*noad{{kind: styleNoad, style: styleD}, inner})
	l.add(&noad{kind: kernItem, glue: newKern(-p.e.nullDelim)})
	return nil
}
