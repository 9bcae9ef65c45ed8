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
	if env := tokString(name); env != "array" {
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
			return p.e.unsupported(`array without \end{array}`)
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
