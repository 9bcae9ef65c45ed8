package tex

// The commands of this file: symbols built from others (\notin, \cong,
// dots), operator names and \boldsymbol.

// operatorName handles \operatorname and the amsopn names:
// \mathop{\kern0pt\operator@font name} with \nolimits or limits.
func (p *parser) operatorName(l *list, arg []token, limits, kern bool) error {
	saved := p.fam
	p.fam = famOperators
	items, err := p.parseTokens(arg)
	p.fam = saved
	if err != nil {
		return err
	}
	if kern {
		items = append([]*noad{{kind: kernItem, glue: newKern(0)}}, items...)
	}
	op := &noad{kind: opNoad, nucleus: groupField(items), tok: p.tok()}
	if !limits {
		op.limits = limitsOff
	}
	l.add(op)
	return nil
}

// boldsymbol handles amsbsy's \boldsymbol: the argument in the bold math
// version, boxed per style, with the class of a lone Bin or Rel.
func (p *parser) boldsymbol(l *list, arg []token) error {
	var choice [4][]*noad
	class := ordNoad
	saved := p.e.fonts
	p.e.fonts = boldOf(saved)
	defer func() { p.e.fonts = saved }()
	for i, st := range []style{styleD, styleT, styleS, styleSS} {
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		if i == 0 {
			var atoms []*noad
			for _, it := range items {
				if it.kind <= innerNoad {
					atoms = append(atoms, it)
				}
			}
			if len(atoms) == 1 && (atoms[0].kind == binNoad || atoms[0].kind == relNoad) {
				class = atoms[0].kind
			}
		}
		b := hpack(p.e.mlistToHlist(append([]*noad{{kind: styleNoad, style: st}}, items...), styleT, false), 0, false)
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: b}}}
	}
	n := &noad{kind: class, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}}}}
	l.add(n)
	return nil
}

// notin handles \notin: \mathrel{\mathpalette\c@ncel\in}, a \vtop of
// an \ooalign whose two rows, a centred / after 1mu and \in, share one
// baseline (\lineskiplimit −\maxdimen, \baselineskip 0).
func (p *parser) notin(l *list) error {
	slash, in := symbols["in"], symbols["in"]
	_, fam, c := mathcodeOf('/')
	slash.fam, slash.c, slash.class = fam, c, 0
	var choice [4][]*noad
	for i, st := range []style{styleD, styleT, styleS, styleSS} {
		tok := p.tok()
		row1 := p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, {kind: kernItem, mu: true, glue: newKern(1 << 16)},
			{kind: ordNoad, nucleus: field{kind: mathChar, fam: slash.fam, c: slash.c, tok: tok}}}, styleT, false)
		row2 := p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st},
			{kind: relNoad, nucleus: field{kind: mathChar, fam: in.fam, c: in.c, tok: tok}}}, styleT, false)
		b1, b2 := hpack(row1, 0, false), hpack(row2, 0, false)
		w := max(b1.width, b2.width)
		r1 := hpack(append(append([]*node{filGlue()}, row1...), filGlue()), w, true)
		r2 := hpack(row2, w, true)
		v := vpack([]*node{r1, newKern(-r1.depth - r2.height), r2})
		total := v.height + v.depth
		v.height = r1.height // \vtop
		v.depth = total - v.height
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: v}}}
	}
	l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}}}})
	return nil
}

// styles4 are the four styles of a \mathpalette, in \mathchoice order.
var styles4 = [4]style{styleD, styleT, styleS, styleSS}

// smashedMinus is amsmath's \relbar: \mathrel{\mathpalette\mathsm@sh
// \std@minus}, the minus sign boxed with no height and depth.
func (p *parser) smashedMinus(st style, tok int32) *noad {
	_, fam, c := mathcodeOf('-')
	b := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st},
		{kind: ordNoad, nucleus: field{kind: mathChar, fam: fam, c: c, tok: tok}}}, styleT, false), 0, false)
	b.height, b.depth = 0, 0
	return &noad{kind: relNoad, nucleus: field{kind: subBox, box: b}}
}

// symNoad is the noad of a symbol by name, or of a character ("=").
func (p *parser) symNoad(name string, tok int32) *noad {
	s := symbols[name]
	if len(name) == 1 {
		s.class, s.fam, s.c = mathcodeOf(rune(name[0]))
	}
	return &noad{kind: noadKind(s.class % 8), nucleus: field{kind: mathChar, fam: s.fam, c: s.c, tok: tok}}
}

// cong handles \cong: \mathrel{\mathpalette\@vereq\sim}, a \sim over an
// = centred in an alignment with \lineskip −0.5pt, lowered 0.5pt.
func (p *parser) cong(l *list) error {
	tok := p.tok()
	var choice [4][]*noad
	for i, st := range styles4 {
		row := func(sym string) []*node {
			return p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, glueFil(filOrder), p.symNoad(sym, tok), glueFil(filOrder)}, styleT, false)
		}
		r1, r2 := row("sim"), row("=")
		w := max(hpack(r1, 0, false).width, hpack(r2, 0, false).width)
		v := vpack([]*node{hpack(r1, w, true), newGlue(-Unity/2, 0, 0), hpack(r2, w, true)})
		v.shift = Unity / 2 // \lower.5\p@
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: v}}}
	}
	l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}}}})
	return nil
}

// vdots handles \vdots: \vbox{\baselineskip4pt \lineskiplimit0pt
// \kern6pt\hbox{.}\hbox{.}\hbox{.}} in the text font.
func (p *parser) vdots(l *list) error {
	tok := p.tok()
	f := p.e.fonts[famOperators][textSize]
	dot := func() *node { return hpack([]*node{newChar(f, '.', tok)}, 0, false) }
	vl := []*node{newKern(6 << 16), dot()}
	for range 2 {
		d := dot()
		prev := vl[len(vl)-1]
		g := 4<<16 - prev.depth - d.height
		if g < 0 {
			g = Unity // \lineskip 1pt
		}
		vl = append(vl, newGlue(g, 0, 0), d)
	}
	l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: vpack(vl)}})
	return nil
}

// ddots handles \ddots: \mathinner{\mkern1mu\raise7pt\vbox{\kern7pt
// \hbox{.}}\mkern2mu\raise4pt\hbox{.}\mkern2mu\raise1pt\hbox{.}\mkern1mu}.
func (p *parser) ddots(l *list) error {
	tok := p.tok()
	f := p.e.fonts[famOperators][textSize]
	dot := func() *node { return hpack([]*node{newChar(f, '.', tok)}, 0, false) }
	raised := func(b *node, by Scaled) *noad {
		b.shift = -by
		return &noad{kind: ordNoad, nucleus: field{kind: subBox, box: b}}
	}
	mk := func(mu int) *noad { return &noad{kind: kernItem, mu: true, glue: newKern(Scaled(mu) << 16)} }
	items := []*noad{
		mk(1), raised(vpack([]*node{newKern(7 << 16), dot()}), 7<<16),
		mk(2), raised(dot(), 4<<16),
		mk(2), raised(dot(), 1<<16),
		mk(1),
	}
	l.add(&noad{kind: innerNoad, nucleus: field{kind: subMlist, list: items}, tok: tok})
	return nil
}
