package tex

// LaTeX's tabular environment (latex.ltx, without the array package, as in
// the reference's tabular_template), which the reference's tabular
// tokenizer leaves as it is. In math, \begin{tabular} is
// \leavevmode\hbox{$\vcenter{\halign{…}}$}: an Ord box holding an in-line
// formula (\m@th: no \mathsurround) whose only item is the alignment's
// \vcenter. The alignment is array's (\@mkpream, \@arstrut, \hline, |
// rules, \\[dim]) with \tabcolsep (6pt) for \arraycolsep and cells in
// restricted horizontal mode: \hskip1sp\ignorespaces, the cell's tokens as
// text, \unskip (\@tabclassz). The colouring puts \mathcolor in the cells, where
// mathcolor.ltx reports "\mathcolor allowed only in math mode", sets its
// body in its colour all the same and then, scanning for scripts, removes
// the spaces after it (textBox); spaces follow the space factor and braces
// end a run's ligatures and kerns. What the model does not cover is
// refused: math in a cell (TeX inserts a $), a script or prime after a
// cell's \mathcolor, & or \\ inside a brace group, \multicolumn, \cline and
// any other command.

var tabColSep = Scaled(6 << 16) // \tabcolsep 6pt

// tabular handles \begin{tabular}[c]{cols} … \end{tabular}.
func (p *parser) tabular(l *list, cols []column) error {
	if p.e.inline {
		return p.e.unsupported(`\begin{tabular} in an in-line formula`)
	}
	if p.e.fonts != &normalFonts {
		return p.e.unsupported(`\begin{tabular} after \boldmath`)
	}
	inner := &list{}
	if err := p.alignment(inner, "tabular", cols, ""); err != nil {
		return err
	}
	if p.left != nil {
		return p.e.unsupported("tabular left early")
	}
	box := hpack(p.e.mlistToHlist(inner.finish(), styleT, false), 0, false)
	l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: box}})
	return nil
}

// tabularCell reads one tabular cell, up to &, \\ or \end{tabular} outside
// braces, and sets it as the cell's template does: \hskip1sp
// \ignorespaces, the tokens in the text font, \unskip. list is nil for a cell without tokens
// (\\ before \end{tabular} then adds no row).
//
// env is the environment the cell is in: "tabular", or "array" with an
// empty preamble, whose template has no \hskip1sp and no \unskip (the
// blanks before a cell are skipped all the same, tex.web §791).
func (p *parser) tabularCell(env string) (list []*node, end endKind, err error) {
	var ts []token
	depth := 0
	for {
		t, ok := p.next()
		if !ok {
			return nil, endEOF, p.e.unsupported(`tabular without \end{tabular}`)
		}
		switch t.kind {
		case tkBegin:
			depth++
		case tkEnd:
			depth--
			if depth < 0 {
				return nil, endEOF, p.e.unsupported(`} closing a tabular cell`)
			}
		case tkAlign:
			if depth > 0 {
				return nil, endEOF, p.e.unsupported(`& inside a group in a tabular cell`)
			}
			end = endAlign
		case tkColorEnd, tkArgEnd:
			return nil, endEOF, p.e.unsupported(`tabular inside a colour body or argument`)
		case tkCS:
			switch t.s {
			case "\\", "end", "cr", "crcr", "hline", "noalign", "omit", "span", "multicolumn", "cline", "cmidrule":
				if depth > 0 || t.s != "\\" && t.s != "end" {
					return nil, endEOF, p.e.unsupported(`\` + t.s + ` in a tabular cell`)
				}
				if t.s == "end" {
					arg, err := p.readArg()
					if err != nil {
						return nil, endEOF, err
					}
					if name := tokString(arg); name != env {
						return nil, endEOF, p.e.unsupported(`\end{` + name + `} in a ` + env)
					}
					end = endEnv
				} else {
					end = endCR
				}
			}
		}
		if end != endEOF {
			break
		}
		ts = append(ts, t)
	}
	for len(ts) > 0 && ts[0].kind == tkSpace { // \ignorespaces
		ts = ts[1:]
	}
	if len(ts) == 0 {
		// \hskip1sp, removed by \unskip
		return nil, end, nil
	}
	p.tabularText = true
	box, err := p.textBox(ts, p.e.fonts[famOperators][textSize])
	p.tabularText = false
	if err != nil {
		return nil, end, err
	}
	if env != "tabular" {
		return box.list, end, nil
	}
	// the template's \hskip1sp before \ignorespaces, which \unskip
	// removes when nothing else is left
	list = append([]*node{newGlue(1, 0, 0)}, box.list...)
	if n := len(list); list[n-1].kind == glueNode { // \unskip
		list = list[:n-1]
	}
	return list, end, nil
}

// spaceFactor is TeX's \spacefactor after a character of the text font
// (LaTeX's \nonfrenchspacing \sfcodes; tex.web §1034).
func spaceFactor(sf int, c rune) int {
	code := 1000
	switch {
	case c >= 'A' && c <= 'Z':
		code = 999
	case c == '.' || c == '?' || c == '!':
		code = 3000
	case c == ':':
		code = 2000
	case c == ';':
		code = 1500
	case c == ',':
		code = 1250
	case c == ')' || c == '\'' || c == ']':
		code = 0
	}
	switch {
	case code == 0:
		return sf
	case code > 1000 && sf < 1000:
		return 1000
	}
	return code
}
