package tex

import "errors"

// Leaving an alignment: \hline inside a cell of LaTeX's array (the
// reference's colouring writes `{ \hline { x } } & …`, moving each \hline
// into the cell that follows it) is read by pdflatex as its expansion
// \noalign{\ifnum0=`}\fi\hrule\@height\arrayrulewidth\futurelet
// \reserved@a\@xhline in the cell's math mode, and TeX recovers as
// follows (tex.web §1046–§1047, §1095, §1126–§1133, §1206; read off
// pdflatex's trace and checked against its DVI):
//
//   - "Misplaced \noalign": the \noalign is dropped; its { opens a math
//     group; \hrule in math mode is "Missing $ inserted", and the $ meets
//     the open math groups (off_save, "Missing } inserted" for each,
//     innermost first: the \noalign's empty group, then the cell's braces)
//     before it ends the cell's formula.
//   - In the cell's restricted horizontal mode \hrule is "You can't use
//     \hrule here except with leaders"; \@height is the letters "height",
//     set in the text font (cmr12, with its kerns); \arrayrulewidth is
//     assigned ("Missing number", "Illegal unit of measure": 0pt, undone
//     at the cell's end); \@xhline's } meets the alignment's group:
//     "Missing \cr inserted". The \cr ends the cell with its template's
//     v-part, `$\hfil\hskip\arraycolsep`, a formula that the template's
//     end closes ("Missing $ inserted"), and ends the row; the } then ends
//     the alignment (fin_align).
//   - The rest is read in the internal vertical mode of the array's
//     \vcenter, where \baselineskip and \lineskip are zero: spaces are
//     ignored, braces make simple groups, \mathcolor is "allowed only in
//     math mode" and pushes its colour; a text character starts a
//     paragraph (\parskip, \parindent) of \hsize, the page's text width;
//     a math character or a script is "Missing $ inserted" and starts an
//     in-line formula in it; & is "Misplaced alignment tab character".
//   - A } that closes no simple group closes the \vcenter (the paragraph
//     ends: one line, \parfillskip taking the rest) and what follows is
//     read in the formula around the array, inside the environment's
//     group: & and \\ are misplaced, a } at the environment's level is
//     "Extra }, or forgotten \endgroup", and \end{array}'s \crcr and two
//     \egroups are errors before its \endgroup ends the environment.
//   - In the in-line formula a } at its level is "Extra }, or forgotten $"
//     and & and \\ are misplaced; \end{array} there is "Misplaced \crcr",
//     two "Extra }, or forgotten $", and its \endgroup closes the formula
//     ("Missing $ inserted"), the simple groups and the \vcenter ("Missing
//     } inserted" each) before it ends the environment.
//
// Modelled where the cell's open groups are brace groups, no size
// command, \left or colour of the cell is open, the array is not inside
// another alignment, the cell's template has no rule after it, and the
// paragraph (if any) fits on one line; otherwise unsupported.

// errLeaveCell unwinds the parser from an \hline in a cell to the
// alignment.
var errLeaveCell = errors.New("tex: alignment left")

// leftAlign is an array whose alignment ended early while its LaTeX
// environment is still open.
type leftAlign struct {
	env   string
	depth int // the parseList depth of the list the environment is in
}

// Lengths of the paragraph in the \vcenter (12 pt article).
var (
	parSkipStretch = Scaled(1 << 16) // \parskip 0pt plus 1pt
)

// hlineInCell is \hline met inside a cell of the alignment being read.
func (p *parser) hlineInCell() error {
	ci := -1
	for i := len(p.frames) - 1; i >= 0; i-- {
		if p.frames[i].kind == frameCell {
			ci = i
			break
		}
	}
	if ci < 0 || len(p.envs) != 1 {
		return p.e.unsupported(`\hline inside a construct in a cell`)
	}
	for i := ci + 1; i < len(p.frames); i++ {
		if f := p.frames[i]; f.kind != frameGroup || f.parent != p.frames[i-1].list {
			return p.e.unsupported(`\hline inside a construct in a cell`)
		}
	}
	if n := len(p.lefts); n > 0 && p.lefts[n-1] > p.frames[ci].depth {
		return p.e.unsupported(`\hline inside \left in a cell`)
	}
	if len(p.colors) != p.frames[ci].ncolors || p.hijacked > 0 || len(p.sizes) > 0 {
		return p.e.unsupported(`\hline inside a colour or after a size command in a cell`)
	}
	if t, ok := p.peekNonSpace(); ok && t.kind == tkCS && (t.s == "hline" || t.s == "noalign") {
		// \@xhline's \futurelet sees another rule
		return p.e.unsupported(`\hline\hline in a cell`)
	}
	e := p.e
	e.recover(`Misplaced \noalign`)
	e.recover("missing $ inserted")
	// the \noalign's group, empty, then the cell's open groups
	inner := p.frames[len(p.frames)-1].list
	p.addGroup(inner, nil)
	e.recover("missing } inserted")
	for i := len(p.frames) - 1; i > ci; i-- {
		e.recover("missing } inserted")
		p.addGroup(p.frames[i-1].list, p.frames[i].list.finish())
	}
	p.leftCell = p.frames[ci].list
	return errLeaveCell
}

// peekNonSpace returns the next token that is not a space, without
// consuming anything.
func (p *parser) peekNonSpace() (token, bool) {
	for i := len(p.in) - 1; i >= 0; i-- {
		for _, t := range p.in[i] {
			if t.kind != tkSpace {
				return t, true
			}
		}
	}
	return token{}, false
}

// leftCellBox is the cell that \hline ended: its formula, the letters
// "height" in the text font, and the template's v-part as a formula of
// its own.
func (p *parser) leftCellBox(items []*noad, c column, first bool, strutHt, strutDp Scaled) (*node, error) {
	for _, s := range c.after {
		if s.rule {
			return nil, p.e.unsupported(`\hline in a cell followed by a rule`)
		}
	}
	e := p.e
	var cl []*node
	if first {
		cl = append(cl, &node{kind: ruleNode, width: 0, height: strutHt, depth: strutDp, tok: -1})
	}
	cl = appendSeps(cl, c.before)
	if c.align != 'l' {
		cl = append(cl, filGlue())
	}
	cl = append(cl, e.mlistToHlist(items, styleT, false)...)
	e.recover("You can't use `\\hrule' here except with leaders")
	b, err := p.textBox(lex("height"), e.textFont)
	if err != nil {
		return nil, err
	}
	cl = append(cl, b.list...)
	e.recover("missing number, treated as zero")
	e.recover("illegal unit of measure (pt inserted)")
	e.recover(`missing \cr inserted`)
	// the v-part, $\hfil\hskip\arraycolsep, in a formula of its own
	if c.align != 'r' {
		cl = append(cl, filGlue())
	}
	cl = appendSeps(cl, c.after)
	e.recover("missing $ inserted")
	return hpack(cl, 0, false), nil
}

// vcenterRest reads what follows the alignment in the array's \vcenter,
// whose list so far is vl; it returns the list and whether \end{array}
// (rather than a }) closed the \vcenter.
func (p *parser) vcenterRest(vl []*node, pg Page) ([]*node, bool, error) {
	e := p.e
	savedEnvs := p.envs
	env := p.envs[len(p.envs)-1]
	p.envs = nil
	defer func() { p.envs = savedEnvs }()
	level := 0 // simple groups open in the \vcenter
	var line []*node
	inPar := false
	lastChar := -1 // the last character of the line, when it ends it
	sf := 1000     // the space factor
	startPar := func() {
		if !inPar {
			vl = append(vl, &node{kind: glueNode, stretch: parSkipStretch})
			em := e.textFont.Param(6)
			line = append(line, &node{kind: hlistNode, width: scaleDecimal(em, "1.5")})
			inPar, lastChar, sf = true, -1, 1000
		}
	}
	endPar := func() error {
		if !inPar {
			return nil
		}
		inPar = false
		if n := len(line); n > 0 && line[n-1].kind == glueNode {
			line = line[:n-1]
		}
		if pg.TextWidth == 0 {
			return e.unsupported("a paragraph in an array without a page")
		}
		if naturalWidth(line) > int64(pg.TextWidth) {
			return e.unsupported("a paragraph of more than one line in an array")
		}
		// \penalty10000 \parfillskip \rightskip
		line = append(line, &node{kind: glueNode, stretch: Unity, stretchOrder: filOrder})
		lb := hpack(line, pg.TextWidth, true)
		// \baselineskip and \lineskip are zero: the interline glue is 0pt
		vl = append(vl, newGlue(0, 0, 0), lb)
		return nil
	}
	// closeVcenter handles the } (or \endgroup's off_save) that ends the
	// \vcenter.
	closeVcenter := func() error { return endPar() }
	// inline starts the in-line formula with t, read again in math mode;
	// \end{env}'s \endgroup ends it, the simple groups and the \vcenter
	inline := func(t token) error {
		startPar()
		e.recover("missing $ inserted")
		p.insert(t)
		hl, err := p.inlineInArray(env)
		if err != nil {
			return err
		}
		line = append(line, hl...)
		for range level {
			e.recover("missing } inserted")
		}
		e.recover("missing } inserted")
		return closeVcenter()
	}
	for {
		t, ok := p.next()
		if !ok {
			return nil, false, e.unsupported("an array left early and not closed")
		}
		switch {
		case t.kind == tkSpace:
			if inPar {
				if sf != 1000 {
					return nil, false, e.unsupported("a space after punctuation in an array's paragraph")
				}
				f := e.textFont
				line = append(line, newGlue(f.Param(2), f.Param(3), f.Param(4)))
				lastChar = -1
			}
		case t.kind == tkBegin:
			level++
		case t.kind == tkEnd:
			if level > 0 {
				level--
				continue
			}
			if err := closeVcenter(); err != nil {
				return nil, false, err
			}
			return vl, false, nil
		case t.kind == tkAlign:
			e.recover("misplaced alignment tab character &")
		case t.kind == tkCS && t.s == "mathcolor":
			e.recover(`LaTeX Error: \mathcolor allowed only in math mode`)
			tok, body, err := p.readMathColor()
			if err != nil {
				return nil, false, err
			}
			p.pushColor(tok)
			ins := append(append([]token{}, body...), token{kind: tkColorEnd})
			p.insert(ins...)
			lastChar = -1
		case t.kind == tkColorEnd:
			// \__mathcolor_scan_for_scripts:w removes the spaces it peeks
			// over; no script follows: \reset@color
			p.skipSpaces()
			nt, ok := p.peek()
			if ok && (nt.kind == tkSup || nt.kind == tkSub) {
				// \__mathcolor_handle_scripts:Nw puts the script back:
				// "Missing $ inserted", and the colour's scripts are
				// handled in the in-line formula, attached to an empty
				// nucleus, as in math mode
				if err := inline(t); err != nil {
					return nil, false, err
				}
				return vl, true, nil
			}
			if ok && (nt.kind == tkChar && nt.c == '\'' ||
				nt.kind == tkCS && (nt.s == "limits" || nt.s == "nolimits" || nt.s == "displaylimits")) {
				return nil, false, e.unsupported("a script in an array's paragraph")
			}
			p.popColor()
			lastChar = -1
		case t.kind == tkCS && t.s == "\\":
			// \@arraycr's $ starts a paragraph and a formula
			return nil, false, e.unsupported(`\\ in an array's vertical list`)
		case t.kind == tkCS && t.s == "end":
			return nil, false, e.unsupported(`\end in an array's vertical list`)
		case t.kind == tkChar && isTextChar(t.c):
			startPar()
			f := e.textFont
			if lastChar >= 0 {
				if _, _, _, ok := f.LigKernStep(lastChar, int(t.c)); ok {
					return nil, false, e.unsupported("text characters that kern or ligature in an array's paragraph")
				}
			}
			line = append(line, newChar(f, int(t.c), p.tok()))
			lastChar = int(t.c)
			sf = 1000
			if !(t.c >= '0' && t.c <= '9' || t.c >= 'a' && t.c <= 'z') {
				sf = 0 // capitals (999) and punctuation: not modelled before a space
			}
		case startsMath(p, t):
			if err := inline(t); err != nil {
				return nil, false, err
			}
			return vl, true, nil
		default:
			return nil, false, e.unsupported("a command in an array's vertical list")
		}
	}
}

// inlineInArray reads the in-line formula that a math token starts in the
// \vcenter's paragraph, up to \end{env}, and returns its hlist. A \\ at
// its level is latex.ltx's \@arraycr, `${\ifnum0=`}\fi\@ifstar
// \@xarraycr\@xarraycr`: its $ ends the formula, and \@xarraycr's
// `\ifnum0=`{\fi}${}\cr` starts another with an empty group before
// "Misplaced \cr".
func (p *parser) inlineInArray(env string) ([]*node, error) {
	e := p.e
	savedInline, savedEnv := p.inlineDepth, p.inlineEnv
	p.inlineDepth, p.inlineEnv = p.depth+1, env
	defer func() { p.inlineDepth, p.inlineEnv = savedInline, savedEnv }()
	var hl []*node
	for {
		ml, end, err := p.parseList()
		if err != nil {
			if errors.Is(err, errLeaveMath) || errors.Is(err, errLeaveCell) {
				return nil, e.unsupported("math mode left inside an array's paragraph")
			}
			return nil, err
		}
		hl = append(hl, e.mlistToHlist(ml.finish(), styleT, true)...)
		if e.unsup != nil {
			return nil, e.unsup
		}
		switch end {
		case endEnv:
			return hl, nil
		case endCR:
			// \@ifstar and \@ifnextchar[ skip spaces
			p.skipSpaces()
			if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '*' {
				p.next()
				p.skipSpaces()
			}
			if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '[' {
				return nil, e.unsupported(`\\[dim] after an array left early`)
			}
			if p.budget < 0 {
				return nil, e.unsupported("expansion too long")
			}
			e.recover(`Misplaced \cr`)
			p.insert(token{kind: tkBegin, c: '{'}, token{kind: tkEnd, c: '}'})
		default:
			return nil, e.unsupported("an in-line formula in an array not ended by its \\end")
		}
	}
}

// endLeftEnv handles \end{name} in math after the alignment of an array
// ended early: in the in-line formula of its \vcenter's paragraph
// (inline) or in the formula around the array.
func (p *parser) endLeftEnv(depth int) (inline bool, err error) {
	arg, err := p.readArg()
	if err != nil {
		return false, err
	}
	name := tokString(arg)
	switch {
	case p.inlineEnv != "" && depth == p.inlineDepth && name == p.inlineEnv:
		p.e.recover(`Misplaced \crcr`)
		p.e.recover("extra }, or forgotten $")
		p.e.recover("extra }, or forgotten $")
		p.e.recover("missing $ inserted")
		return true, nil
	case p.inlineEnv == "" && p.left != nil && depth == p.left.depth && name == p.left.env:
		p.e.recover(`Misplaced \crcr`)
		p.e.recover(`extra }, or forgotten \endgroup`)
		p.e.recover(`extra }, or forgotten \endgroup`)
		p.left = nil
		return false, nil
	}
	return false, p.e.unsupported(`\end{` + name + `} after an array left early`)
}

// naturalWidth is the natural width of an hlist, summed without overflow
// (a scaled int32 sum overflows beyond 16,384pt; TeX's lines never get
// there).
func naturalWidth(list []*node) int64 {
	var w int64
	for _, p := range list {
		switch p.kind {
		case charNode:
			cw, _, _, _ := p.font.metrics(p.c)
			w += int64(cw)
		case hlistNode, vlistNode, ruleNode, glueNode, kernNode:
			if p.width != runningDim {
				w += int64(p.width)
			}
		}
	}
	return w
}
