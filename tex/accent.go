package tex

// The commands of this file: accents, wide accents, arrows over and under,
// extensible arrows, braces over and under, and \fbox frames.

func (p *parser) accent(l *list, fam, c int) error {
	tok := p.tok()
	// amsmath's \mathaccentV uses \accentclass@ 7: the accent follows
	// the current family (\vec in \mathrm is cmr's tilde slot).
	if p.fam >= 0 && p.fam < numFams {
		fam = p.fam
	}
	if t, ok := p.peek(); ok && t.kind == tkColorEnd {
		// alone in a \mathcolor body, \mathaccentV takes the colour's end
		// as its argument: the accent over an empty group
		l.add(&noad{kind: accentNoad, nucleus: field{kind: subMlist}, tok: tok, noadParts: &noadParts{accFam: fam, accC: c}})
		return nil
	}
	f, err := p.scanMath()
	if err != nil {
		return err
	}
	if nestedOnChar(f) {
		// amsmath's \mathaccentV sets an accent over an accented
		// character its own way (\macc@nested: the outer accents take the
		// skew of the innermost character); not modelled.
		return p.e.unsupported("nested accents on a character")
	}
	l.add(&noad{kind: accentNoad, nucleus: f, tok: tok, noadParts: &noadParts{accFam: fam, accC: c}})
	return nil
}

// nestedOnChar reports whether a field is an accent (through groups)
// whose nucleus is, in the end, a single character.
func nestedOnChar(f field) bool {
	accents := 0
	for f.kind == subMlist && len(f.list) == 1 && f.list[0].kind == accentNoad {
		accents++
		f = f.list[0].nucleus
	}
	return accents > 0 && f.kind == mathChar
}

// wideAccent handles amssymb's \widehat and \widetilde: the msbm wide
// accent when the argument is wider than 2em in text style, else the
// cmex one.
func (p *parser) wideAccent(l *list, name string) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	items, err := p.parseTokens(arg)
	if err != nil {
		return err
	}
	w := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: styleT}, groupNoad(items)}, styleT, false), 0, false).width
	fam, c := famLarge, 0x62
	if name == "widetilde" {
		c = 0x65
	}
	if w > 2*p.e.fonts[famOperators][textSize].Param(6) {
		fam, c = 6, 0x5B
		if name == "widetilde" {
			c = 0x5D
		}
	}
	p.insert(token{kind: tkEnd})
	p.insert(arg...)
	p.insert(token{kind: tkBegin})
	return p.accent(l, fam, c)
}

// overArrow handles amsmath's \overrightarrow and friends: a \vbox of
// two alignment rows, the arrow (\arrowfill@: ends joined by \cleaders of
// a minus in \hfill) above the argument centred by \hfil, as wide as the
// wider.
func (p *parser) overArrow(l *list, name string) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	tok := p.tok()
	var choice [4][]*noad
	for i, st := range styles4 {
		left, right := p.smashedMinus(st, tok), p.symNoad("rightarrow", tok)
		switch name {
		case "overleftarrow":
			left, right = p.symNoad("leftarrow", tok), p.smashedMinus(st, tok)
		case "overleftrightarrow":
			left = p.symNoad("leftarrow", tok)
		}
		lb := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, {kind: kernItem, mu: true, glue: newKern(-2 << 16)},
			p.smashedMinus(st, tok), {kind: kernItem, mu: true, glue: newKern(-2 << 16)}}, styleT, false), 0, false)
		fill := glueFil(fillOrder)
		fill.glue.leaders = lb
		row1 := p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, left, {kind: kernItem, mu: true, glue: newKern(-7 << 16)},
			fill, {kind: kernItem, mu: true, glue: newKern(-7 << 16)}, right}, styleT, false)
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		row2 := p.e.mlistToHlist(append(append([]*noad{glueFil(filOrder), {kind: styleNoad, style: st}}, groupNoad(items)), glueFil(filOrder)), styleT, false)
		w := max(hpack(row1, 0, false).width, hpack(row2, 0, false).width)
		v := vpack([]*node{hpack(row1, w, true), hpack(row2, w, true)})
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: v}}}
	}
	l.add(&noad{kind: choiceNoad, noadParts: &noadParts{choice: choice}})
	return nil
}

// extArrow handles amsmath's \xrightarrow[below]{above} and \xleftarrow
// (\ext@arrow 0359): the arrow fill in display style, stretched to the
// wider of the script-style arguments padded by 5mu and 9mu, as a
// \mathop with limits inside a \mathrel, the scripts followed by 3mu.
func (p *parser) extArrow(l *list, name string) error {
	below, _, err := p.readOptArg()
	if err != nil {
		return err
	}
	above, err := p.readArg()
	if err != nil {
		return err
	}
	tok := p.tok()
	// \ext@arrow #1#2#3#4: script kerns before/after (mu), padding kerns
	// before/after (mu): 0359 for \xrightarrow, 3095 for \xleftarrow
	k := [4]Scaled{0, 3, 5, 9}
	if name == "xleftarrow" {
		k = [4]Scaled{3, 0, 9, 5}
	}
	padded := func(ts []token) (*node, []*noad, error) {
		items, err := p.parseTokens(ts)
		if err != nil {
			return nil, nil, err
		}
		list := []*noad{{kind: styleNoad, style: styleS}, {kind: kernItem, mu: true, glue: newKern(k[2] << 16)},
			groupNoad(items), {kind: kernItem, mu: true, glue: newKern(k[3] << 16)}}
		return hpack(p.e.mlistToHlist(list, styleT, false), 0, false), items, nil
	}
	bb, belowItems, err := padded(below)
	if err != nil {
		return err
	}
	ab, aboveItems, err := padded(above)
	if err != nil {
		return err
	}
	// \rightarrowfill@ in display style
	left, right := p.smashedMinus(styleD, tok), p.symNoad("rightarrow", tok)
	if name == "xleftarrow" {
		left, right = p.symNoad("leftarrow", tok), p.smashedMinus(styleD, tok)
	}
	lb := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: styleD}, {kind: kernItem, mu: true, glue: newKern(-2 << 16)},
		p.smashedMinus(styleD, tok), {kind: kernItem, mu: true, glue: newKern(-2 << 16)}}, styleT, false), 0, false)
	fill := glueFil(fillOrder)
	fill.glue.leaders = lb
	arrow := p.e.mlistToHlist([]*noad{{kind: styleNoad, style: styleD}, left, {kind: kernItem, mu: true, glue: newKern(-7 << 16)},
		fill, {kind: kernItem, mu: true, glue: newKern(-7 << 16)}, right}, styleT, false)
	w := max(hpack(arrow, 0, false).width, bb.width, ab.width)
	nucleus := hpack(arrow, w, true)
	op := &noad{kind: opNoad, limits: limitsOn, nucleus: field{kind: subBox, box: nucleus}, tok: tok}
	// The scripts are parsed again: a math list is laid out only once.
	script := func(ts []token) (field, error) {
		items, err := p.parseTokens(ts)
		if err != nil {
			return field{}, err
		}
		var list []*noad
		if k[0] != 0 {
			list = append(list, &noad{kind: kernItem, mu: true, glue: newKern(k[0] << 16)})
		}
		list = append(list, items...)
		if k[1] != 0 {
			list = append(list, &noad{kind: kernItem, mu: true, glue: newKern(k[1] << 16)})
		}
		return field{kind: subMlist, list: list}, nil
	}
	if len(aboveItems) > 0 {
		if op.sup, err = script(above); err != nil {
			return err
		}
	}
	if len(belowItems) > 0 {
		if op.sub, err = script(below); err != nil {
			return err
		}
	}
	l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{op}}})
	return nil
}

// fbox is \fbox as xcolor redefines it (the reference loads xcolor): the
// content padded by \fboxsep and \fboxrule in one box, then, over it
// (after a kern back), the frame: two horizontal rules and two vertical
// rules that overlap them by half a rule; both lowered so that the
// content keeps its baseline.
func fbox(content *node, tok int32) *node {
	padded := hpack([]*node{newKern(fboxSep), content, newKern(fboxSep)}, 0, false)
	inner := vpack([]*node{newKern(fboxSep), padded, newKern(fboxSep)})
	row := hpack([]*node{newKern(fboxRule), inner, newKern(fboxRule)}, 0, false)
	body := vpack([]*node{newKern(fboxRule), row, newKern(fboxRule)})
	lower := fboxRule + fboxSep + padded.depth
	body.shift = lower
	w := row.width
	t := body.height + body.depth
	sides := hpack([]*node{newRule(fboxRule, t-fboxRule, 0, tok), newKern(w - 2*fboxRule), newRule(fboxRule, t-fboxRule, 0, tok)}, 0, false)
	frame := vpack([]*node{newRule(runningDim, fboxRule, 0, tok), newKern(-fboxRule / 2), sides, newKern(-fboxRule / 2), newRule(runningDim, fboxRule, 0, tok)})
	frame.shift = lower
	return hpack([]*node{hpack([]*node{body}, 0, false), newKern(-w), hpack([]*node{frame}, 0, false)}, 0, false)
}

// kernelFbox is \fbox as latex.ltx's \@frameb@x sets it (color, which
// l2p's document loads, leaves it alone): a \vbox of a rule, a row of
// two vertical rules around the content padded by \fboxsep, and a rule,
// lowered so that the content keeps its baseline.
func kernelFbox(content *node, tok int32) *node {
	padded := hpack([]*node{newKern(fboxSep), content, newKern(fboxSep)}, 0, false)
	inner := vpack([]*node{newKern(fboxSep), padded, newKern(fboxSep)})
	side := func() *node { return newRule(fboxRule, runningDim, runningDim, tok) }
	row := hpack([]*node{side(), inner, side()}, 0, false)
	body := vpack([]*node{newRule(runningDim, fboxRule, 0, tok), row, newRule(runningDim, fboxRule, 0, tok)})
	body.shift = fboxRule + fboxSep + padded.depth
	return hpack([]*node{hpack([]*node{body}, 0, false)}, 0, false)
}

// fbox is \fbox in the document the engine sets the formula in.
func (e *engine) fbox(content *node, tok int32) *node {
	if e.inline {
		return kernelFbox(content, tok)
	}
	return fbox(content, tok)
}

// brace handles \overbrace and \underbrace (fontmath.ltx): a \mathop with
// limits over a \vbox (\vtop) aligning the display-style argument and a
// brace drawn by \downbracefill (\upbracefill): four cmex pieces joined by
// rule leaders, 3pt from the argument.
func (p *parser) brace(l *list, over bool) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	tok := p.tok()
	items, err := p.parseTokens(arg)
	if err != nil {
		return err
	}
	content := p.e.mlistToHlist([]*noad{glueFil(filOrder), {kind: styleNoad, style: styleD}, groupNoad(items), glueFil(filOrder)}, styleT, false)
	f := p.e.fonts[famLarge][textSize]
	piece := func(name string) *noad { return p.symNoad(name, tok) }
	_, ht, _, _ := f.metrics(symbols["braceld"].c)
	leader := func() *noad {
		g := glueFil(fillOrder)
		g.glue.leaders = &node{kind: ruleNode, width: runningDim, height: ht, depth: 0, tok: tok}
		return g
	}
	var fill []*noad
	if over { // \downbracefill
		fill = []*noad{piece("braceld"), leader(), piece("braceru"), piece("bracelu"), leader(), piece("bracerd")}
	} else { // \upbracefill
		fill = []*noad{piece("bracelu"), leader(), piece("bracerd"), piece("braceld"), leader(), piece("braceru")}
	}
	fillList := p.e.mlistToHlist(fill, styleT, false)
	w := max(hpack(fillList, 0, false).width, hpack(content, 0, false).width)
	braceRow, contentRow := hpack(fillList, w, true), hpack(content, w, true)
	var box *node
	if over {
		box = vpack([]*node{newKern(3 << 16), braceRow, newKern(3 << 16), contentRow})
	} else {
		box = vpack([]*node{contentRow, newKern(3 << 16), braceRow, newKern(3 << 16)})
		total := box.height + box.depth
		box.height = contentRow.height // \vtop
		box.depth = total - box.height
	}
	l.add(&noad{kind: opNoad, limits: limitsOn, nucleus: field{kind: subBox, box: box}, tok: tok})
	return nil
}
