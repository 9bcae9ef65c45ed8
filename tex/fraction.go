package tex

import "strings"

// The commands of this file: fractions, radicals, \substack, \over and its
// family, \stackrel, \overset and \underset.

func (p *parser) radical(l *list, d delimiter) error {
	tok := p.tok()
	f, err := p.scanMath()
	if err != nil {
		return err
	}
	d.tok = tok
	l.add(&noad{kind: radicalNoad, nucleus: f, tok: tok, noadParts: &noadParts{delim: d}})
	return nil
}

// twoArgs reads two macro arguments and parses each as a group's
// content, returning the tokens and the lists.
func (p *parser) twoArgs() (a []token, la []*noad, b []token, lb []*noad, err error) {
	if a, err = p.readArg(); err != nil {
		return
	}
	if b, err = p.readArg(); err != nil {
		return
	}
	if la, err = p.parseTokens(a); err != nil {
		return
	}
	lb, err = p.parseTokens(b)
	return
}

// fraction handles amsmath's \frac and \genfrac forms: an Ord group
// holding a generalized fraction, in style st when st ≥ 0.
func (p *parser) fraction(l *list, thickness Scaled, left, right delimiter, st *style) error {
	tok := p.tok()
	a, err := p.readArg()
	if err != nil {
		return err
	}
	b, err := p.readArg()
	if err != nil {
		return err
	}
	plainFrac := thickness == defaultCode && st == nil && left == (delimiter{}) && right == (delimiter{})
	if plainFrac {
		// amsmath's \frac: {\begingroup#1\endgroup\@@over#2}
		p.nextFrame, p.nextParent, p.nextDen = frameFracNum, l, b
	}
	// \frac, \dfrac and \tfrac recover from a \right in an argument (a
	// prediction that dropped its \left); amsmath's \dfrac and \tfrac
	// are \genfrac's {\displaystyle{\begingroup#1\endgroup\@@over\relax#2}}
	// (\textstyle), one group more than \frac
	styled := st != nil && thickness == defaultCode && left == (delimiter{}) && right == (delimiter{})
	rightOK := plainFrac || styled
	// wrap puts what the fraction's own group holds into the groups that
	// enclose it
	wrap := func(items []*noad) {
		if !styled {
			p.addGroup(l, items)
			return
		}
		p.e.recover("missing } inserted")
		outer := &list{}
		outer.add(&noad{kind: styleNoad, style: *st})
		p.addGroup(outer, items)
		p.addGroup(l, outer.finish())
	}
	closers := []token{{kind: tkEnd}}
	if styled {
		closers = append(closers, token{kind: tkEnd})
	}
	n, argEnd, err := p.fracPart(a, rightOK)
	if err != nil {
		return err
	}
	if argEnd >= 0 {
		// a \right in the numerator: off_save inserts \endgroup and }
		// ("Missing \endgroup inserted", "Missing } inserted", and one
		// } more for \genfrac's outer group), the numerator so far is
		// the group's Ord, and \right is read again outside it; the rest
		// of #1, \endgroup, \@@over, #2 and the }s follow at that level
		p.e.recover(`missing \endgroup inserted`)
		p.e.recover("missing } inserted")
		wrap(n)
		rest := []token{{kind: tkEndgroup}, {kind: tkCS, s: "over"}}
		if styled {
			rest = append(rest, token{kind: tkCS, s: "relax"})
		}
		rest = append(rest, b...)
		p.replaceArgEnd(argEnd, append(rest, closers...))
		p.insert(token{kind: tkCS, s: "right"})
		return nil
	}
	// the rule is drawn in the colour current after the numerator: not
	// the fraction's own when the numerator is the end of its colour
	// (\dfrac alone in a \mathcolor body, as the reference's colouring
	// leaves it, takes the colour's end as #1)
	ruleTok := tok
	if len(a) == 1 && a[0].kind == tkColorEnd {
		ruleTok = p.tok()
	}
	d, argEnd, err := p.fracPart(b, rightOK)
	if err != nil {
		return err
	}
	left.tok, right.tok = tok, tok
	fr := &noad{kind: fractionNoad, tok: ruleTok, noadParts: &noadParts{num: n, den: d, thickness: thickness, left: left, right: right}}
	if argEnd >= 0 {
		// a \right in the denominator: off_save inserts the } that
		// completes the fraction, \right is read again outside it, and
		// the rest of #2 and the fraction's } follow at that level
		p.e.recover("missing } inserted")
		wrap([]*noad{fr})
		p.replaceArgEnd(argEnd, closers)
		p.insert(token{kind: tkCS, s: "right"})
		return nil
	}
	if st == nil {
		p.addGroup(l, []*noad{fr})
		return nil
	}
	// \genfrac: {\style{…\over…}}
	inner := &noad{kind: ordNoad, nucleus: field{kind: subMlist, list: []*noad{fr}}}
	p.addGroup(l, []*noad{{kind: styleNoad, style: *st}, inner})
	return nil
}

// fracPart parses one of \frac's arguments as parseTokens does. When
// rightOK is set and a \right ends the argument early, it returns the
// items so far and the index in the input stack of the argument's end,
// which is still to be read (replaceArgEnd); otherwise that index is −1.
func (p *parser) fracPart(ts []token, rightOK bool) ([]*noad, int, error) {
	if p.budget < 0 {
		p.nextFrame, p.nextParent, p.nextDen = frameOther, nil, nil
		return nil, -1, p.e.unsupported("expansion too long")
	}
	p.insert(token{kind: tkArgEnd})
	at := len(p.in) - 1
	p.insert(ts...)
	inner, end, err := p.parseList()
	if err != nil {
		return nil, -1, err
	}
	switch {
	case end == endArg:
		return inner.finish(), -1, nil
	case end == endRight && rightOK && at < len(p.in) && len(p.in[at]) == 1 && p.in[at][0].kind == tkArgEnd:
		return inner.finish(), at, nil
	}
	return nil, -1, p.e.fatal("unbalanced group")
}

// replaceArgEnd puts ts in place of the argument's end at index at of the
// input stack (fracPart).
func (p *parser) replaceArgEnd(at int, ts []token) {
	p.budget -= len(ts)
	p.in[at] = ts
}

// strayEndgroup handles \frac's \endgroup read after a \right took the
// numerator's groups away (fraction): TeX's off_save (tex.web §1064)
// inserts what closes the group it meets and reads \endgroup again. In
// the display that is $: "Missing $ inserted", and TeX leaves math mode
// (paragraph.go), \@@over#2} following in the paragraph. It returns
// endEOF when the list goes on.
func (p *parser) strayEndgroup(depth int) (endKind, error) {
	f := p.frames[len(p.frames)-1]
	switch {
	case p.inlineEnv != "" || p.left != nil || p.e.inline || len(p.envs) > 0:
		return endEOF, p.e.unsupported(`\frac's \endgroup after a \right in an alignment or in-line formula`)
	case depth == 1 && f.kind == frameTop && len(p.frames) == 1:
		p.e.recover("missing $ inserted")
		p.leave = &leaveState{display: f.list}
		return endEOF, errLeaveMath
	case len(p.lefts) > 0 && p.lefts[len(p.lefts)-1] == depth:
		p.e.recover(`missing \right. inserted`)
		p.insert(token{kind: tkEndgroup})
		p.insert(token{kind: tkChar, c: '.'})
		return endRight, nil
	case f.kind == frameGroup:
		p.e.recover("missing } inserted")
		p.insert(token{kind: tkEndgroup})
		return endGroup, nil
	}
	return endEOF, p.e.unsupported(`\frac's \endgroup after a \right inside a construct other than a group or \left`)
}

// sqrt handles \sqrt and amsmath's \sqrt[n] (\root…\of, r@@t).
func (p *parser) sqrt(l *list) error {
	idx, ok, err := p.readOptArg()
	if err != nil {
		return err
	}
	d := symbols["sqrtsign"].delim
	if !ok {
		return p.radical(l, d)
	}
	if brackets(idx) {
		// LaTeX ends the index at the first ], even one of a \mathcolor[RGB]
		// inside it, and goes on with a broken argument (CDM colours a [
		// inside an index); not modelled.
		return p.e.unsupported(`\sqrt index cut at a nested ]`)
	}
	tok := p.tok()
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	// \setbox\rootbox\hbox{$\scriptscriptstyle{n}$}
	idxItems, err := p.parseTokens(idx)
	if err != nil {
		return err
	}
	rootList := []*noad{{kind: styleNoad, style: styleSS}}
	rootList = append(rootList, groupNoad(idxItems))
	rootBox := hpack(p.e.mlistToHlist(rootList, styleT, false), 0, false)
	var choice [4][]*noad
	for i, st := range []style{styleD, styleT, styleS, styleSS} {
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		d.tok = tok
		rad := &noad{kind: radicalNoad, nucleus: groupField(items), tok: tok, noadParts: &noadParts{delim: d}}
		box0 := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, rad}, styleT, false), 0, false)
		dim := box0.height - box0.depth
		raised := &node{kind: hlistNode, width: rootBox.width, height: rootBox.height, depth: rootBox.depth, list: rootBox.list,
			glueSet: rootBox.glueSet, glueSign: rootBox.glueSign, glueOrder: rootBox.glueOrder}
		raised.shift = -xnOverD(dim, 39322, 65536) // \raise.6\dimen@
		choice[i] = []*noad{
			{kind: kernItem, mu: true, glue: newKern(0)},
			{kind: kernItem, mu: true, glue: newKern(5 << 16)},
			{kind: ordNoad, nucleus: field{kind: subBox, box: raised}},
			{kind: kernItem, mu: true, glue: newKern(-10 << 16)},
			{kind: kernItem, mu: true, glue: newKern(0)},
			{kind: ordNoad, nucleus: field{kind: subBox, box: box0}},
		}
	}
	p.addGroup(l, []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}})
	return nil
}

// brackets reports whether tokens hold more [ than ].
func brackets(ts []token) bool {
	n := 0
	for _, t := range ts {
		if t.kind == tkChar && t.c == '[' {
			n++
		} else if t.kind == tkChar && t.c == ']' {
			n--
		}
	}
	return n > 0
}

// substack handles amsmath's \substack{…}: \subarray{c}…\endsubarray.
func (p *parser) substack(l *list) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	p.insert(lex(`\end{subarray}`)...)
	p.insert(arg...)
	return p.subarray(l, 'c')
}

// primFrac handles TeX's generalized fractions (tex.web §1181): the
// list so far becomes the numerator of an incompleat noad.
func (p *parser) primFrac(l *list, name string) error {
	if l.incompleat != nil {
		p.e.recover("ambiguous; you need another { and }")
		return nil
	}
	n := &noad{kind: fractionNoad, tok: p.tok(), noadParts: &noadParts{num: l.items, thickness: defaultCode}}
	if strings.HasSuffix(name, "withdelims") {
		var err error
		if n.left, err = p.scanDelimiter(); err != nil {
			return err
		}
		if n.right, err = p.scanDelimiter(); err != nil {
			return err
		}
	}
	switch {
	case strings.HasPrefix(name, "atop"):
		n.thickness = 0
	case strings.HasPrefix(name, "above"):
		ts, err := p.readDimenTokens()
		if err != nil {
			return err
		}
		d, mu, ok := parseDimen(tokString(ts), p.e.fonts[famOperators][textSize].Param(6))
		if !ok || mu {
			return p.e.unsupported(`\above with dimension ` + tokString(ts))
		}
		n.thickness = d
	}
	l.items, l.incompleat = nil, n
	return nil
}

// stack handles \stackrel{a}{b} (\mathrel{\mathop{b}\limits^{a}}) and
// amsmath's \overset and \underset: \mathop{\kern0pt b}\limits with the
// class \binrel@ measures for b.
func (p *parser) stack(l *list, name string) error {
	_, scr, b, base, err := p.twoArgs()
	if err != nil {
		return err
	}
	op := &noad{kind: opNoad, limits: limitsOn, tok: p.tok()}
	if name == "stackrel" {
		op.nucleus = groupField(base)
		op.sup = groupField(scr)
		l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{op}}})
		return nil
	}
	op.nucleus = field{kind: subMlist, list: append([]*noad{{kind: kernItem, glue: newKern(0)}}, base...)}
	if name == "overset" {
		op.sup = groupField(scr)
	} else {
		op.sub = groupField(scr)
	}
	// \binrel@ measures b between empty Ords with \medmuskip −1mu and
	// \thickmuskip 1mu: negative means Bin, positive Rel.
	again, err := p.parseTokens(b)
	if err != nil {
		return err
	}
	switch c := binrelClass(again); c {
	case binNoad, relNoad:
		l.add(&noad{kind: c, nucleus: field{kind: subMlist, list: []*noad{op}}})
	default:
		l.add(op)
	}
	return nil
}

// binrelClass is amsmath's \binrel@: the sign of the spacing that b gets
// between two empty Ords in text style, with \thinmuskip 0mu,
// \medmuskip −1mu and \thickmuskip 1mu, minus its spacing alone.
func binrelClass(items []*noad) noadKind {
	var kinds []noadKind
	for _, n := range items {
		switch {
		case n.kind <= innerNoad:
			kinds = append(kinds, n.kind)
		case n.kind == fractionNoad:
			kinds = append(kinds, innerNoad)
		case n.kind <= vcenterNoad:
			kinds = append(kinds, ordNoad)
		}
	}
	with := append(append([]noadKind{ordNoad}, kinds...), ordNoad)
	d := spacingSum(with) - spacingSum(kinds)
	switch {
	case d < 0:
		return binNoad
	case d > 0:
		return relNoad
	}
	return ordNoad
}

// spacingSum is the inter-atom spacing of a sequence of atoms in text
// style, in units of \medmuskip = −1 and \thickmuskip = +1.
func spacingSum(kinds []noadKind) int {
	k := append([]noadKind(nil), kinds...)
	for i := range k {
		if k[i] == binNoad && (i == 0 || k[i-1] == binNoad || k[i-1] == opNoad || k[i-1] == relNoad || k[i-1] == openNoad || k[i-1] == punctNoad) {
			k[i] = ordNoad
		}
		if i > 0 && k[i-1] == binNoad && (k[i] == relNoad || k[i] == closeNoad || k[i] == punctNoad) {
			k[i-1] = ordNoad
		}
	}
	if n := len(k); n > 0 && k[n-1] == binNoad {
		k[n-1] = ordNoad
	}
	sum := 0
	for i := 1; i < len(k); i++ {
		switch mathSpacing[k[i-1]][k[i]] {
		case '3':
			sum--
		case '4':
			sum++
		}
	}
	return sum
}
