package tex

// A script after the end of a \mathcolor body whose field is another
// \mathcolor (the reference's colouring of \left[ ^ a: the tokenizer
// leaves a script after \left unbraced) sets off a chain of expansions in
// mathcolor.ltx that pdflatex survives, read off its trace:
//
// \__mathcolor_handle_scripts:Nw puts ^ and two begin-group tokens (a math
// group G and a simple group S inside it), pushes the outer colour and
// peeks at the field with \peek_remove_filler:n. The peek expands \mathcolor
// (ltcmd's \__cmd_start:nNNnnn), removes the \relax-like tokens it starts
// with and stops at the \tex_let:D of \bool_set_false:N
// \l__cmd_environment_bool. Not a brace, so "case 3" runs
// \use_ii_i:nn \c_group_end_token <that \let>, which becomes
//
//	\let\c_group_end_token\l__cmd_environment_bool = \c_false_bool
//
// inside S: \c_group_end_token is now the constant false (\chardef 0),
// and the = and \c_false_bool that follow are typeset: a Rel = and the
// character 0 of family 0 (Γ), in the outer colour. The \mathcolor then
// runs as usual. The end-group token that was to close G after S is gone,
// so S runs to the next unmatched } (or a \right or the formula's end,
// each "Missing } inserted"); then its aftergroup tokens pop the colour,
// close G with the real } (the \let is undone with S) and scan for more
// scripts of the first colour.
//
// While S is open, every later script that mathcolor.ltx handles (a
// braced script after a colour's end) ends its inner group with the
// hijacked token: after the script's group, its colour is popped and
// the character 0 is typeset inside the script's math group, the scan for
// further scripts of that colour goes on there (a script after it attaches
// to the character 0), its colour is popped there, and the math group runs
// on, holding what follows, to the next unmatched } (or "Missing }
// inserted" at a \right or the end).

// hijackScript is the field of a script whose first token is \mathcolor,
// after a colour's end: G with S's content.
func (p *parser) hijackScript() (field, error) {
	outer := p.outerColor()
	g := &list{}
	g.add(&noad{kind: whatsitItem, tok: outer})
	p.pushColor(outer) // \set@color of the outer colour
	if err := p.char(g, '='); err != nil {
		return field{}, err
	}
	g.add(p.mathCharNoad(0, 0, 0)) // \c_false_bool: \char"0, mathcode 0
	p.hijacked++
	s, end, err := p.parseList()
	p.hijacked--
	if err != nil {
		return field{}, err
	}
	// S's aftergroup tokens: \reset@color, then the real } closes G
	if err := p.endHijackedScript(g, s, end); err != nil {
		return field{}, err
	}
	return field{kind: subMlist, list: g.finish()}, nil
}

// hijackedGroupScript is the field of a braced script after a colour's
// end while \c_group_end_token is hijacked: the script's group, then (its
// end-group token being the character 0) the rest of the colour's
// handling and what follows, up to the math group's end. The colour whose
// end this is has been popped when it returns.
func (p *parser) hijackedGroupScript() (field, error) {
	outer := p.outerColor()
	g := &list{}
	g.add(&noad{kind: whatsitItem, tok: outer})
	p.pushColor(outer)
	p.skipSpaces()
	if t, ok := p.next(); !ok || t.kind != tkBegin {
		return field{}, p.e.unsupported("an unbraced script while mathcolor's group end is hijacked")
	}
	s, end, err := p.parseList() // the script's own braces: S
	if err != nil {
		return field{}, err
	}
	// S's aftergroup tokens: \reset@color, the hijacked end-group token
	// (\char"0), and the scan for further scripts of the colour
	if err := p.endHijackedScript(g, s, end); err != nil {
		return field{}, err
	}
	g.add(p.mathCharNoad(0, 0, 0))
	if err := p.colorEnd(g); err != nil {
		return field{}, err
	}
	// G runs on
	rest, end, err := p.parseList()
	if err != nil {
		return field{}, err
	}
	if err := p.appendSimpleGroup(g, rest); err != nil {
		return field{}, err
	}
	if err := p.closeHijacked(end); err != nil {
		return field{}, err
	}
	return field{kind: subMlist, list: g.finish()}, nil
}

// endHijackedScript appends a hijacked script's group s to g, closes it
// (it ended with end) and appends the \reset@color of its aftergroup
// tokens, popping the colour.
func (p *parser) endHijackedScript(g, s *list, end endKind) error {
	if err := p.appendSimpleGroup(g, s); err != nil {
		return err
	}
	if err := p.closeHijacked(end); err != nil {
		return err
	}
	g.add(&noad{kind: whatsitItem, tok: -2})
	p.popColor()
	return nil
}

// closeHijacked closes a group of the hijacked chain that ended with end:
// an unmatched } closes it; a \right, the formula's end or a macro
// argument's end is "Missing } inserted" and read again (off_save).
func (p *parser) closeHijacked(end endKind) error {
	switch end {
	case endGroup, endRight, endEOF, endArg:
		p.closeGroup(end)
		return nil
	}
	return p.e.unsupported("an alignment inside mathcolor's hijacked group")
}

// appendSimpleGroup appends the content of a group that is no math group
// (a simple group in math mode makes no noad) to the list it is in.
func (p *parser) appendSimpleGroup(dst, inner *list) error {
	if inner.incompleat != nil || dst.incompleat != nil {
		return p.e.unsupported(`\over inside mathcolor's hijacked group`)
	}
	dst.items = append(dst.items, inner.items...)
	return nil
}
