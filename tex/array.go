package tex

import (
	"errors"
	"strconv"
	"strings"
)

// LaTeX's array environment (latex.ltx \array, without the array
// package, as in the reference's preamble): each cell is a text-style
// formula between \arraycolsep on both sides, aligned by \hfil glue as
// its column says (l, c, r; @{} drops the separation); every row holds
// \@arstrut; rows are stacked with \baselineskip and \lineskip zero; the
// alignment is a \vcenter for the default [c] position. The reference's
// tokenizer turns every environment into array, so array is what parity
// needs; amsmath's matrix family and cases are modelled after their
// definitions on top of it, for formulas the tokenizer passes raw (its
// fallback) and for --raw renders.

var (
	arrayColSep    = Scaled(5 << 16) // \arraycolsep 5pt
	strutHt        = Scaled(665187)  // LaTeX's \strutbox: .7\baselineskip (14.5pt) in TeX's arithmetic
	strutDp        = Scaled(285084)  // .3\baselineskip
	arrayRuleWidth = Scaled(26214)   // \arrayrulewidth 0.4pt
)

// column is one column of an array preamble: its alignment and what
// stands before and after its cell in the template: \arraycolsep or @{…}
// glue, and \vline rules for |.
type column struct {
	align         byte // 'l', 'c' or 'r'
	before, after []sepItem
}

// sepItem is glue of a width, or (rule) a \vline.
type sepItem struct {
	width Scaled
	rule  bool
}

var doubleRuleSep = Scaled(2 << 16) // \doublerulesep 2pt

// arrayPreamble reads a column specification as latex.ltx's \@mkpream
// does (without the array package): l, c and r columns, each with
// \arraycolsep on both sides unless @{} or @{\quad} stands there, | for a
// \vline (two in a row with \doublerulesep between them), and *{n}{…}.
// em is the text font's em, the width of @{\quad}.
func arrayPreamble(spec []token, em Scaled) ([]column, bool) { return preamble(spec, arrayColSep, em) }

// preamble is arrayPreamble with colSep between the columns: \arraycolsep
// for array, \tabcolsep for tabular (\@tabacol).
func preamble(spec []token, colSep, em Scaled) ([]column, bool) {
	spec, ok := expandStars(spec, 0)
	if !ok {
		return nil, false
	}
	var cols []column
	var pending []sepItem // what stands before the next column
	atBefore := false     // an @{…} before the next column replaces its \arraycolsep
	lastRule := false
	for i := 0; i < len(spec); i++ {
		t := spec[i]
		switch {
		case t.kind == tkSpace:
			continue
		case t.kind == tkChar && (t.c == 'l' || t.c == 'c' || t.c == 'r'):
			c := column{align: byte(t.c), before: pending, after: []sepItem{{width: colSep}}}
			if !atBefore {
				c.before = append(c.before, sepItem{width: colSep})
			}
			cols = append(cols, c)
			pending, atBefore = nil, false
		case t.kind == tkChar && t.c == '|':
			items := []sepItem{{rule: true}}
			if lastRule {
				items = []sepItem{{width: doubleRuleSep}, {rule: true}}
			}
			if len(cols) > 0 && pending == nil && !atBefore {
				last := &cols[len(cols)-1]
				last.after = append(last.after, items...)
			} else {
				pending = append(pending, items...)
			}
			lastRule = true
			continue
		case t.kind == tkChar && t.c == '@':
			var w Scaled
			switch {
			case i+2 < len(spec) && spec[i+1].kind == tkBegin && spec[i+2].kind == tkEnd:
				i += 2
			case i+3 < len(spec) && spec[i+1].kind == tkBegin && spec[i+2].kind == tkCS && spec[i+2].s == "quad" && spec[i+3].kind == tkEnd:
				w = em // \quad: 1em of the text font
				i += 3
			default:
				return nil, false
			}
			if len(cols) > 0 && pending == nil && !atBefore {
				// the @-expression replaces the \arraycolsep after the
				// previous column
				last := &cols[len(cols)-1]
				last.after = last.after[:len(last.after)-1]
				if w != 0 {
					last.after = append(last.after, sepItem{width: w})
				}
			} else if w != 0 {
				pending = append(pending, sepItem{width: w})
			}
			atBefore = true
		default:
			return nil, false
		}
		lastRule = false
	}
	if len(cols) == 0 {
		return nil, false
	}
	last := &cols[len(cols)-1]
	last.after = append(last.after, pending...)
	return cols, true
}

// expandStars expands *{n}{cols} in a preamble, as \@mkpream does first.
func expandStars(spec []token, depth int) ([]token, bool) {
	if depth > 4 {
		return nil, false
	}
	var out []token
	for i := 0; i < len(spec); i++ {
		t := spec[i]
		if t.kind != tkChar || t.c != '*' {
			out = append(out, t)
			continue
		}
		count, j, ok := groupAt(spec, i+1)
		if !ok {
			return nil, false
		}
		body, k, ok := groupAt(spec, j)
		if !ok {
			return nil, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(tokString(count)))
		if err != nil || n < 0 || n > 100 {
			return nil, false
		}
		inner, ok := expandStars(body, depth+1)
		if !ok {
			return nil, false
		}
		for range n {
			out = append(out, inner...)
		}
		i = k - 1
	}
	return out, true
}

// groupAt returns the tokens of the {…} group that starts at i (spaces
// skipped) and the index after it.
func groupAt(ts []token, i int) ([]token, int, bool) {
	for i < len(ts) && ts[i].kind == tkSpace {
		i++
	}
	if i >= len(ts) || ts[i].kind != tkBegin {
		return nil, 0, false
	}
	depth := 0
	for j := i; j < len(ts); j++ {
		switch ts[j].kind {
		case tkBegin:
			depth++
		case tkEnd:
			depth--
			if depth == 0 {
				return ts[i+1 : j], j + 1, true
			}
		}
	}
	return nil, 0, false
}

// matrixDelims are the delimiters amsmath puts around each matrix.
var matrixDelims = map[string][2]string{
	"matrix":  {"", ""},
	"pmatrix": {"(", ")"},
	"bmatrix": {"[", "]"},
	"Bmatrix": {`\lbrace`, `\rbrace`},
	"vmatrix": {`\lvert`, `\rvert`},
	"Vmatrix": {`\lVert`, `\rVert`},
}

// array handles \begin{name}: LaTeX's array, amsmath's subarray, the
// matrix family and cases.
func (p *parser) array(l *list) error {
	name, err := p.readArg()
	if err != nil {
		return err
	}
	env := tokString(name)
	if _, normal := p.textFont(); !normal {
		if _, matrix := matrixDelims[env]; env != "array" && !matrix {
			return p.e.unsupported(`\begin{` + env + `} after a size command`)
		}
	}
	switch env {
	case "array", "tabular":
	case "subarray":
		spec, err := p.readArg()
		if err != nil {
			return err
		}
		a := strings.TrimSpace(tokString(spec))
		if a != "c" && a != "l" {
			return p.e.unsupported(`subarray {` + a + `}`)
		}
		return p.subarray(l, a[0])
	case "cases":
		// amsmath: \left\lbrace \def\arraystretch{1.2}
		// \array{@{}l@{\quad}l@{}} … \endarray \right.
		cols, _ := arrayPreamble(lex(`@{}l@{\quad}l@{}`), p.e.textFont.Param(6))
		return p.delimited(l, `\lbrace`, ".", func(inner *list) error {
			return p.alignment(inner, env, cols, "1.2")
		})
	case "aligned", "gathered":
		return p.amsAlign(l, env)
	default:
		d, ok := matrixDelims[env]
		if !ok {
			return p.e.unsupported(`\begin{` + env + `}`)
		}
		// amsmath's \env@matrix: \hskip -\arraycolsep
		// \array{*\c@MaxMatrixCols c} … \endarray \hskip -\arraycolsep,
		// inside \left…\right for the delimited kinds.
		cols, _ := arrayPreamble(lex(`*{10}{c}`), p.e.textFont.Param(6)) // \c@MaxMatrixCols is 10
		body := func(inner *list) error {
			inner.add(&noad{kind: glueItem, glue: newGlue(-arrayColSep, 0, 0)})
			if err := p.alignment(inner, env, cols, ""); err != nil {
				return err
			}
			inner.add(&noad{kind: glueItem, glue: newGlue(-arrayColSep, 0, 0)})
			return nil
		}
		if d[0] == "" {
			return body(l)
		}
		return p.delimited(l, d[0], d[1], body)
	}
	pos, _, err := p.readOptArg()
	if err != nil {
		return err
	}
	if ps := strings.TrimSpace(tokString(pos)); ps != "" && ps != "c" {
		return p.e.unsupported(`array position [` + ps + `]`)
	}
	spec, err := p.readArg()
	if err != nil {
		return err
	}
	colSep := arrayColSep
	if env == "tabular" {
		colSep = tabColSep
	}
	cols, ok := preamble(spec, colSep, p.e.textFont.Param(6))
	if !ok && env == "array" && strings.TrimSpace(tokString(spec)) == "" {
		// an empty preamble (the reference's tokenizer makes {} of
		// { { c } }): \@mkpream adds nothing, and \halign's template
		// \@arstrut\tabskip\z@skip\cr has no #: "Missing # inserted in
		// alignment preamble" (tex.web §783). Each cell is \@arstrut and
		// its tokens in the text font, flush left, as in a tabular cell
		// but with no \tabcolsep, \hskip1sp or \unskip.
		p.e.recover("missing # inserted in alignment preamble")
		p.textCells = true
		defer func() { p.textCells = false }()
		return p.alignment(l, env, []column{{align: 'l'}}, "")
	}
	if !ok {
		return p.e.unsupported(env + ` preamble {` + tokString(spec) + `}`)
	}
	if env == "tabular" {
		return p.tabular(l, cols)
	}
	if _, normal := p.textFont(); !normal {
		// only array after \small is modelled (command lets \begin
		// through for it); its @{\quad} would measure \small's em
		for _, c := range cols {
			for _, s := range append(append([]sepItem{}, c.before...), c.after...) {
				if !s.rule && s.width != arrayColSep && s.width != doubleRuleSep {
					return p.e.unsupported(`array preamble with @{…} after a size command`)
				}
			}
		}
	}
	return p.alignment(l, env, cols, "")
}

// delimited adds \left<open> body \right<close> (an Inner noad), the
// delimiters taking the current colour.
func (p *parser) delimited(l *list, open, close string, body func(*list) error) error {
	p.insert(lex(open)...)
	ld, err := p.scanDelimiter()
	if err != nil {
		return err
	}
	inner := &list{}
	if err := body(inner); err != nil {
		return err
	}
	p.insert(lex(close)...)
	rd, err := p.scanDelimiter()
	if err != nil {
		return err
	}
	l.add(leftRightNoad(ld, inner.finish(), rd))
	return nil
}

// alignment reads the rows of an array-like environment up to
// \end{env} and adds its \vcenter; stretch is \arraystretch ("" for 1).
func (p *parser) alignment(l *list, env string, cols []column, stretch string) error {
	// \@arstrut: \strutbox × \arraystretch
	arstrutHt, arstrutDp := p.e.strutHt, p.e.strutDp
	// the cells' fonts: after \small, each cell's $ selects the math
	// fonts of 10.95pt (\check@mathfonts) and \strutbox is \small's
	cellFonts := p.e.fonts
	if _, normal := p.textFont(); !normal {
		if p.sizeName() != "small" || p.e.fonts != &normalFonts || stretch != "" {
			return p.e.unsupported(`\begin{` + env + `} after a size command`)
		}
		small, _, err := smallTables()
		if err != nil {
			return err
		}
		cellFonts = small
		arstrutHt, arstrutDp = scaleDecimal(smallBaselineSkip, "0.7"), scaleDecimal(smallBaselineSkip, "0.3")
	}
	outerFonts := p.e.fonts
	defer func() { p.e.fonts = outerFonts }()
	if stretch != "" {
		arstrutHt, arstrutDp = scaleDecimal(p.e.strutHt, stretch), scaleDecimal(p.e.strutDp, stretch)
	}
	var rows [][]*node
	var gaps []Scaled // glue after each row
	var hlines []int  // rows before which an \hline stands (len(rows) at the time)
	p.envs = append(p.envs, env)
	defer func() { p.envs = p.envs[:len(p.envs)-1] }()
	var row []*node
	leftEarly := false
	for {
		// \hline at the start of a row
		p.skipSpaces()
		if t, ok := p.peek(); ok && t.kind == tkCS && t.s == "hline" && len(row) == 0 {
			p.next()
			hlines = append(hlines, len(rows))
			continue
		}
		p.e.fonts = cellFonts
		var items []*noad
		var text []*node // a tabular cell's list; nil when it has no tokens
		var end endKind
		var err error
		if env == "tabular" || p.textCells {
			text, end, err = p.tabularCell(env)
		} else {
			items, end, err = p.cell(env)
		}
		if errors.Is(err, errLeaveCell) {
			// \hline in the cell: the cell, the row and the alignment
			// end (hline.go)
			if len(row) >= len(cols) {
				return p.e.unsupported("array row with more cells than columns")
			}
			b, err := p.leftCellBox(p.leftCell.finish(), cols[len(row)], len(row) == 0, arstrutHt, arstrutDp)
			if err != nil {
				return err
			}
			rows = append(rows, append(row, b))
			gaps = append(gaps, 0)
			leftEarly = true
			break
		}
		if err != nil {
			return err
		}
		if end == endEnv && len(row) == 0 && len(items) == 0 && text == nil {
			break // \\ before \end{array}: \crcr adds no row
		}
		if len(row) >= len(cols) {
			return p.e.unsupported(env + " row with more cells than columns")
		}
		c := cols[len(row)]
		hl := text
		if env != "tabular" && !p.textCells {
			hl = p.e.mlistToHlist(items, styleT, false)
		}
		var cl []*node
		if len(row) == 0 {
			cl = append(cl, &node{kind: ruleNode, width: 0, height: arstrutHt, depth: arstrutDp, tok: -1})
		}
		cl = appendSeps(cl, c.before)
		if c.align != 'l' {
			cl = append(cl, filGlue())
		}
		cl = append(cl, hl...)
		var gap Scaled // \\[dim] with dim ≤ 0: \noalign{\vskip dim}
		if end == endCR {
			// latex.ltx \@arraycr: a positive dim deepens the row by a
			// zero-width rule as deep as the strut plus dim
			d, err := p.rowSpace()
			if err != nil {
				return err
			}
			if d > 0 {
				cl = append(cl, &node{kind: ruleNode, width: 0, height: runningDim, depth: d + arstrutDp, tok: -1})
			} else {
				gap = d
			}
		}
		if c.align != 'r' {
			cl = append(cl, filGlue())
		}
		cl = appendSeps(cl, c.after)
		row = append(row, hpack(cl, 0, false))
		if end == endAlign && env == "array" && len(row) == len(cols) {
			// an & after the last column: "Extra alignment tab has been
			// changed to \cr" (tex.web §792); the row ends there and the
			// rest starts the next one
			p.e.recover(`extra alignment tab has been changed to \cr`)
			end = endCR
		} else if end == endAlign {
			continue
		}
		rows = append(rows, row)
		gaps = append(gaps, gap)
		row = nil
		if end == endEnv {
			break
		}
	}
	widths := make([]Scaled, len(cols))
	for _, r := range rows {
		for j, c := range r {
			widths[j] = max(widths[j], c.width)
		}
	}
	var vl []*node
	hi := 0
	for i, r := range rows {
		for hi < len(hlines) && hlines[hi] == i {
			vl = appendHline(vl, hlines, hi)
			hi++
		}
		var cells []*node
		for j := range cols {
			var c *node
			if j < len(r) {
				c = hpack(r[j].list, widths[j], true)
			} else {
				c = &node{kind: hlistNode, width: widths[j]}
			}
			cells = append(cells, c)
		}
		rb := hpack(cells, 0, false)
		for _, c := range cells {
			// every cell takes its row's height and depth (tex.web
			// §810), which a running \vline fills
			c.height, c.depth = rb.height, rb.depth
		}
		vl = append(vl, rb)
		if gaps[i] != 0 {
			vl = append(vl, newGlue(gaps[i], 0, 0))
		}
	}
	for hi < len(hlines) {
		vl = appendHline(vl, hlines, hi)
		hi++
	}
	p.e.fonts = outerFonts
	if leftEarly {
		if p.left != nil || p.inlineEnv != "" {
			return p.e.unsupported("an array left early inside another")
		}
		rest, byEnd, err := p.vcenterRest(vl, p.page)
		if err != nil {
			return err
		}
		vl = rest
		if !byEnd {
			p.left = &leftAlign{env: env, depth: p.depth}
		}
	}
	box := vpack(vl)
	l.add(&noad{kind: vcenterNoad, nucleus: field{kind: subBox, box: box}})
	return nil
}

// appendHline appends the hi-th \hline's rule; latex.ltx's \@xhline
// follows an \hline that another \hline follows with \vskip
// \doublerulesep \vskip -\arrayrulewidth.
func appendHline(vl []*node, hlines []int, hi int) []*node {
	vl = append(vl, &node{kind: ruleNode, width: runningDim, height: arrayRuleWidth, tok: -1})
	if hi+1 < len(hlines) && hlines[hi+1] == hlines[hi] {
		vl = append(vl, newGlue(doubleRuleSep, 0, 0), newGlue(-arrayRuleWidth, 0, 0))
	}
	return vl
}

// appendSeps appends a template's separation: glue, and \vline rules as
// latex.ltx's \@arrayrule sets them (\arrayrulewidth wide, as high and
// deep as the row, centred on the column boundary by −½\arrayrulewidth
// on each side, so taking no width).
func appendSeps(cl []*node, seps []sepItem) []*node {
	half := scaleDecimal(arrayRuleWidth, "0.5")
	for _, s := range seps {
		if s.rule {
			cl = append(cl, newGlue(-half, 0, 0),
				&node{kind: ruleNode, width: arrayRuleWidth, height: runningDim, depth: runningDim, tok: -1},
				newGlue(-half, 0, 0))
		} else {
			cl = append(cl, newGlue(s.width, 0, 0))
		}
	}
	return cl
}

func filGlue() *node { return &node{kind: glueNode, stretch: Unity, stretchOrder: filOrder} }

// subarray is amsmath's subarray: one column of script-style cells,
// centred or flush left, no column separation nor struts, rows spaced by
// \baselineskip σ10+σ12 of the script size with \lineskip and
// \lineskiplimit 3ξ8, in a \vcenter.
func (p *parser) subarray(l *list, align byte) error {
	p.envs = append(p.envs, "subarray")
	defer func() { p.envs = p.envs[:len(p.envs)-1] }()
	var rows []*node
	for {
		items, end, err := p.parseList()
		if err != nil {
			return err
		}
		switch end {
		case endEOF:
			return p.e.unsupported(`subarray without its end`)
		case endGroup, endRight, endAlign, endArg:
			return p.e.unsupported(`subarray cell ended by } or & or \right`)
		}
		list := items.finish()
		if end == endEnv && len(list) == 0 && len(rows) > 0 {
			break
		}
		hl := p.e.mlistToHlist(append([]*noad{{kind: styleNoad, style: styleS}}, list...), styleT, false)
		var cl []*node
		if align == 'c' {
			cl = append(cl, filGlue())
		}
		cl = append(cl, hl...)
		cl = append(cl, filGlue())
		rows = append(rows, hpack(cl, 0, false))
		if end == endEnv {
			break
		}
	}
	var w Scaled
	for _, r := range rows {
		w = max(w, r.width)
	}
	bs := p.e.sy(10, scriptSize) + p.e.sy(12, scriptSize)
	ls := 3 * p.e.ex(8, scriptSize)
	var vl []*node
	for i, r := range rows {
		r = hpack(r.list, w, true)
		if i > 0 {
			prev := vl[len(vl)-1]
			g := bs - prev.depth - r.height
			if g < ls {
				g = ls
			}
			vl = append(vl, newGlue(g, 0, 0))
		}
		vl = append(vl, r)
	}
	l.add(&noad{kind: vcenterNoad, nucleus: field{kind: subBox, box: vpack(vl)}})
	return nil
}

// Lengths of amsmath's display alignments: \spread@equation opens the
// lines up by \jot (\baselineskip, \lineskip and \lineskiplimit each 3pt
// more), \strut@ is LaTeX's \strutbox, \minalignsep separates column
// pairs.
var (
	jot           = Scaled(3 << 16)
	minAlignSep   = Scaled(10 << 16)
	alignLineSkip = lineSkip + jot
	alignLineLim  = jot // \normallineskiplimit 0pt + \jot
)

// amsAlign handles amsmath's aligned and gathered (\start@aligned,
// \start@gathered): \null, then a \vcenter holding an \ialign in display
// style with \strut@ in each row, lines spread by \jot. aligned repeats
// a pair of columns, the first flush right, the second flush left after
// an empty group ({}), with \minalignsep after each pair; a row ended by
// \\ after an even number of cells in all gets one more cell holding
// \kern-\minalignsep (\math@cr@@@aligned, with amsmath's \column@
// counted across rows as amsmath counts it).
func (p *parser) amsAlign(l *list, env string) error {
	pos, _, err := p.readOptArg()
	if err != nil {
		return err
	}
	if ps := strings.TrimSpace(tokString(pos)); ps != "" && ps != "c" {
		return p.e.unsupported(env + ` position [` + ps + `]`)
	}
	aligned := env == "aligned"
	p.envs = append(p.envs, env)
	defer func() { p.envs = p.envs[:len(p.envs)-1] }()
	strut := func() *node { return &node{kind: hlistNode, height: p.e.strutHt, depth: p.e.strutDp} }
	// a cell's unset box: its hlist and its column (0-based)
	cell := func(items []*noad, col int) *node {
		var mlist []*noad
		switch {
		case !aligned:
			mlist = items
		case col%2 == 0: // {##}
			g := &list{}
			p.addGroup(g, items)
			mlist = g.finish()
		default: // {{}##}
			g := &list{}
			p.addGroup(g, append([]*noad{{kind: ordNoad, nucleus: field{kind: subMlist}}}, items...))
			mlist = g.finish()
		}
		hl := p.e.mlistToHlist(mlist, styleD, false)
		var cl []*node
		if !aligned || col%2 == 0 {
			cl = append(cl, filGlue(), strut())
		}
		cl = append(cl, hl...)
		if !aligned || col%2 == 1 {
			cl = append(cl, filGlue())
		}
		return hpack(cl, 0, false)
	}
	var rows [][]*node
	var gaps []Scaled
	var row []*node
	column := 0 // amsmath's \column@, never reset between rows
	for {
		list, end, err := p.cell(env)
		if err != nil {
			return err
		}
		if end == endEnv && len(row) == 0 && len(list) == 0 {
			break // \crcr after a \\ adds no row
		}
		if !aligned && len(row) > 0 {
			return p.e.unsupported("gathered row with more than one cell")
		}
		row = append(row, cell(list, len(row)))
		column++
		if end == endAlign {
			continue
		}
		var gap Scaled
		if end == endCR {
			if gap, err = p.rowSpace(); err != nil { // \noalign{\vskip dim}
				return err
			}
			if aligned && column%2 == 0 {
				k := &noad{kind: kernItem, glue: newKern(-minAlignSep)}
				row = append(row, cell([]*noad{k}, len(row)))
				column++
			}
		}
		rows = append(rows, row)
		gaps = append(gaps, gap)
		row = nil
		if end == endEnv {
			break
		}
	}
	ncol := 0
	for _, r := range rows {
		ncol = max(ncol, len(r))
	}
	widths := make([]Scaled, ncol)
	seen := make([]bool, ncol)
	for _, r := range rows {
		for j, c := range r {
			if !seen[j] || c.width > widths[j] {
				widths[j], seen[j] = c.width, true
			}
		}
	}
	// \tabskip: 0 before the first column and after odd ones,
	// \minalignsep after even ones (aligned); 0 everywhere (gathered)
	tab := func(j int) Scaled {
		if aligned && j%2 == 1 {
			return minAlignSep
		}
		return 0
	}
	total := Scaled(0)
	for j, w := range widths {
		total += w + tab(j)
	}
	var vl []*node
	for i, r := range rows {
		var hl []*node
		for j, c := range r {
			b := hpack(c.list, widths[j], true)
			hl = append(hl, b)
			if t := tab(j); t != 0 {
				hl = append(hl, newGlue(t, 0, 0))
			}
		}
		rb := hpack(hl, 0, false)
		for _, c := range hl {
			if c.kind == hlistNode {
				c.height, c.depth = rb.height, rb.depth
			}
		}
		rb.width = total
		if i > 0 {
			if g := gaps[i-1]; g != 0 {
				vl = append(vl, newGlue(g, 0, 0))
			}
			ls := p.e.baselineSkip + jot - prevDepth(vl) - rb.height
			if ls < alignLineLim {
				ls = alignLineSkip
			}
			vl = append(vl, newGlue(ls, 0, 0))
		}
		vl = append(vl, rb)
	}
	if len(rows) > 0 && gaps[len(gaps)-1] != 0 {
		vl = append(vl, newGlue(gaps[len(gaps)-1], 0, 0))
	}
	l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: &node{kind: hlistNode}}}) // \null
	l.add(&noad{kind: vcenterNoad, nucleus: field{kind: subBox, box: vpack(vl)}})
	return nil
}

// prevDepth is TeX's \prevdepth after a vertical list: the depth of its
// last box.
func prevDepth(vl []*node) Scaled {
	for i := len(vl) - 1; i >= 0; i-- {
		if vl[i].kind == hlistNode || vl[i].kind == vlistNode {
			return vl[i].depth
		}
	}
	return 0
}

// rowSpace reads what may follow a \\ that ends a row: a star, then an
// optional [dim]; it returns dim (0 without one).
func (p *parser) rowSpace() (Scaled, error) {
	p.skipSpaces()
	if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '*' {
		p.next()
	}
	dim, ok, err := p.readOptArg()
	if err != nil || !ok {
		return 0, err
	}
	tf, _ := p.textFont()
	d, _, valid := parseDimen(tokString(dim), tf.Param(6))
	if !valid {
		return 0, p.e.unsupported(`\\[` + tokString(dim) + `]`)
	}
	return d, nil
}

// cell reads one cell of an alignment environment and what ended it: &,
// \\ or \end{env}. A missing \end is closed at the template's
// \end{displaymath}, as pdflatex does (docs/cdm.md §6: probe p16 scores 1).
func (p *parser) cell(env string) ([]*noad, endKind, error) {
	p.nextFrame, p.nextParent = frameCell, nil
	items, end, err := p.parseList()
	if err != nil {
		return nil, end, err
	}
	switch end {
	case endEOF:
		p.e.recover(`\begin{` + env + `} ended by \end{displaymath}`)
		end = endEnv
	case endGroup, endRight, endArg:
		return nil, end, p.e.unsupported(env + ` cell ended by } or \right`)
	}
	return items.finish(), end, nil
}
