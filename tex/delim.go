package tex

import (
	"strconv"
	"strings"
)

// The commands of this file: delimiters: \left…\right and amsmath's \big
// family.

// scanDelimiter is scan_delimiter (tex.web §1160).
func (p *parser) scanDelimiter() (delimiter, error) {
	p.skipSpaces()
	t, ok := p.next()
	if !ok {
		return delimiter{}, p.e.fatal("missing delimiter: end of formula")
	}
	tok := p.tok()
	switch t.kind {
	case tkChar:
		if d, ok := delcodeOf(t.c); ok {
			d.tok = tok
			return d, nil
		}
	case tkCS:
		name := t.s
		switch name {
		case "{":
			name = "lbrace"
		case "}":
			name = "rbrace"
		case "|":
			name = "Vert"
		}
		if s, ok := p.e.symbol(name); ok && s.kind == symDelimiter {
			s.delim.tok = tok
			return s.delim, nil
		}
	}
	p.e.recover("missing delimiter (. inserted)")
	p.insert(t)
	return delimiter{tok: tok}, nil
}

// leftRightNoad is \left<ld> items \right<rd>: an Inner noad.
func leftRightNoad(ld delimiter, items []*noad, rd delimiter) *noad {
	list := append([]*noad{{kind: leftNoad, noadParts: &noadParts{delim: ld}}}, items...)
	list = append(list, &noad{kind: rightNoad, noadParts: &noadParts{delim: rd}})
	return &noad{kind: innerNoad, nucleus: field{kind: subMlist, list: list}}
}

// leftRight handles \left … \right (tex.web §1191): an Inner noad.
func (p *parser) leftRight(l *list) error {
	ld, err := p.scanDelimiter()
	if err != nil {
		return err
	}
	p.lefts = append(p.lefts, p.depth+1)
	inner, end, err := p.parseList()
	p.lefts = p.lefts[:len(p.lefts)-1]
	if err != nil {
		return err
	}
	var rd delimiter
	switch end {
	case endRight:
		if rd, err = p.scanDelimiter(); err != nil {
			return err
		}
	case endEOF:
		p.e.recover(`missing \right. inserted`)
	case endArg:
		p.e.recover(`missing \right. inserted`)
		p.insert(token{kind: tkArgEnd})
	}
	l.add(leftRightNoad(ld, inner.finish(), rd))
	return nil
}

// big handles amsmath's \big… (bBigg@): \left<d>\vcenter to f·\big@size{}
// \right. in a text-style box, with \nulldelimiterspace 0.
func (p *parser) big(l *list, factor string, class noadKind, bare bool) error {
	d, err := p.scanDelimiter()
	if err != nil {
		return err
	}
	h := scaleDecimal(p.e.bigSize(), factor)
	vc := &node{kind: vlistNode, height: h}
	saved := p.e.nullDelim
	p.e.nullDelim = 0
	inner := []*noad{
		{kind: leftNoad, noadParts: &noadParts{delim: d}},
		{kind: vcenterNoad, nucleus: field{kind: subBox, box: vc}},
		{kind: rightNoad, noadParts: &noadParts{}},
	}
	box := hpack(p.e.mlistToHlist([]*noad{{kind: innerNoad, nucleus: field{kind: subMlist, list: inner}}}, styleT, false), 0, false)
	p.e.nullDelim = saved
	n := &noad{kind: ordNoad, nucleus: field{kind: subBox, box: box}}
	if !bare {
		n.kind = class
	}
	l.add(n)
	return nil
}

// scaleDecimal is TeX's <decimal><dimen>: d × f with f rounded to
// 2^-16 as TeX reads decimal constants (round_decimals).
func scaleDecimal(d Scaled, f string) Scaled {
	ip, frac, _ := strings.Cut(f, ".")
	n, _ := strconv.Atoi(ip)
	var a int64
	for k := len(frac) - 1; k >= 0; k-- {
		a = (a + int64(frac[k]-'0')*(1<<17)) / 10
	}
	fr := (a + 1) / 2
	return multAndAdd(int64(n), d, xnOverD(d, fr, 65536))
}

// bigSize is amsmath's \big@size: 1.2 × (height + depth) of ( in the
// text font at 12 pt.
func (e *engine) bigSize() Scaled {
	f := e.fonts[famOperators][textSize]
	_, h, d, _ := f.metrics('(')
	return scaleDecimal(h, "1.2") + scaleDecimal(d, "1.2")
}
