package tex

import "strings"

// LaTeX's array environment (latex.ltx \array, without the array
// package, as in the reference's preamble): each cell is a text-style
// formula between \arraycolsep on both sides, aligned by \hfil glue as
// its column says (l, c, r; @{} drops the separation); every row holds
// \@arstrut; rows are stacked with \baselineskip and \lineskip zero; the
// alignment is a \vcenter for the default [c] position. The tokenizer
// turns every environment into array, so this is all parity needs.

var (
	arrayColSep    = Scaled(5 << 16) // \arraycolsep 5pt
	arrayStrutHt   = Scaled(665190)  // 0.7 × 14.5pt × \arraystretch
	arrayStrutDp   = Scaled(285082)  // 0.3 × 14.5pt
	arrayRuleWidth = Scaled(26214)   // \arrayrulewidth 0.4pt
)

// column is one column of an array preamble.
type column struct {
	align       byte // 'l', 'c' or 'r'
	left, right bool // \arraycolsep on each side
}

// arrayPreamble reads a column specification.
func arrayPreamble(spec []token) ([]column, bool) {
	var cols []column
	noSep := false // an @{} before the next column
	for i := 0; i < len(spec); i++ {
		t := spec[i]
		switch {
		case t.kind == tkSpace:
		case t.kind == tkChar && (t.c == 'l' || t.c == 'c' || t.c == 'r'):
			cols = append(cols, column{align: byte(t.c), left: !noSep, right: true})
			noSep = false
		case t.kind == tkChar && t.c == '@':
			// only @{} (no material) is modelled
			if i+2 >= len(spec) || spec[i+1].kind != tkBegin || spec[i+2].kind != tkEnd {
				return nil, false
			}
			i += 2
			if len(cols) > 0 {
				cols[len(cols)-1].right = false
			}
			noSep = true
		default:
			return nil, false
		}
	}
	return cols, len(cols) > 0
}

// array handles \begin{array}[pos]{cols} … \end{array}.
func (p *parser) array(l *list) error {
	name, err := p.readArg()
	if err != nil {
		return err
	}
	switch env := tokString(name); env {
	case "array":
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
	default:
		return p.e.unsupported(`\begin{` + env + `}`)
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
	cols, ok := arrayPreamble(spec)
	if !ok {
		return p.e.unsupported(`array preamble {` + tokString(spec) + `}`)
	}
	var rows [][]*node
	var hlines []int // rows before which an \hline stands (len(rows) at the time)
	p.arrays++
	defer func() { p.arrays-- }()
	var row []*node
	for {
		// \hline at the start of a row
		p.skipSpaces()
		if t, ok := p.peek(); ok && t.kind == tkCS && t.s == "hline" && len(row) == 0 {
			p.next()
			hlines = append(hlines, len(rows))
			continue
		}
		items, end, err := p.parseList()
		if err != nil {
			return err
		}
		switch end {
		case endEOF:
			// pdflatex stops at the template's \end{displaymath} and
			// closes the array (cdm-spec §7: probe p16 scores 1)
			p.e.recover(`\begin{array} ended by \end{displaymath}`)
			end = endEnv
		case endGroup, endRight:
			return p.e.unsupported(`array cell ended by } or \right`)
		}
		if end == endEnv && len(row) == 0 && len(items.finish()) == 0 {
			break // \\ before \end{array}: \crcr adds no row
		}
		if len(row) >= len(cols) {
			return p.e.unsupported("array row with more cells than columns")
		}
		c := cols[len(row)]
		hl := p.e.mlistToHlist(items.finish(), styleT, false)
		var cl []*node
		if len(row) == 0 {
			cl = append(cl, &node{kind: ruleNode, width: 0, height: arrayStrutHt, depth: arrayStrutDp, tok: -1})
		}
		if c.left {
			cl = append(cl, newGlue(arrayColSep, 0, 0))
		}
		if c.align != 'l' {
			cl = append(cl, filGlue())
		}
		cl = append(cl, hl...)
		if c.align != 'r' {
			cl = append(cl, filGlue())
		}
		if c.right {
			cl = append(cl, newGlue(arrayColSep, 0, 0))
		}
		row = append(row, hpack(cl, 0, false))
		if end == endAlign {
			continue
		}
		rows = append(rows, row)
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
			vl = append(vl, &node{kind: ruleNode, width: runningDim, height: arrayRuleWidth, tok: -1})
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
		vl = append(vl, hpack(cells, 0, false))
	}
	for hi < len(hlines) {
		vl = append(vl, &node{kind: ruleNode, width: runningDim, height: arrayRuleWidth, tok: -1})
		hi++
	}
	box := vpack(vl)
	l.add(&noad{kind: vcenterNoad, nucleus: field{kind: subBox, box: box}})
	return nil
}

func filGlue() *node { return &node{kind: glueNode, stretch: Unity, stretchOrder: filOrder} }

// subarray is amsmath's subarray: one column of script-style cells,
// centred or flush left, no column separation nor struts, rows spaced by
// \baselineskip σ10+σ12 of the script size with \lineskip and
// \lineskiplimit 3ξ8, in a \vcenter.
func (p *parser) subarray(l *list, align byte) error {
	p.arrays++
	defer func() { p.arrays-- }()
	var rows []*node
	for {
		items, end, err := p.parseList()
		if err != nil {
			return err
		}
		switch end {
		case endEOF:
			return p.e.unsupported(`subarray without its end`)
		case endGroup, endRight, endAlign:
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
