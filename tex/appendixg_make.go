package tex

import "github.com/leakaudit/leakaudit/tex/font"

// The make_… procedures of tex.web part 36.

// makeOp is make_op (tex.web §749–§751); it returns the italic
// correction delta for the scripts.
func (m *mlistState) makeOp(q *noad) Scaled {
	if q.limits == limitsNormal && m.style < styleT {
		q.limits = limitsOn
	}
	var delta Scaled
	if q.nucleus.kind == mathChar {
		f, ok := m.fetch(q.nucleus)
		if ok {
			if ci, _ := f.Char(q.nucleus.c); m.style < styleT && ci.Tag == font.ListTag {
				if f.exists(ci.Remainder) {
					q.nucleus.c = ci.Remainder
				}
			}
			_, _, _, delta = f.metrics(q.nucleus.c)
		}
		x := m.cleanBox(q.nucleus, m.style)
		if q.sub.kind != emptyField && q.limits != limitsOn {
			x.width -= delta
		}
		x.shift = half(x.height-x.depth) - m.e.sy(22, m.size)
		q.nucleus = field{kind: subBox, box: x}
	}
	if q.limits == limitsOn {
		x := m.cleanBox(q.sup, m.style.sup())
		y := m.cleanBox(q.nucleus, m.style)
		z := m.cleanBox(q.sub, m.style.sub())
		v := &node{kind: vlistNode, width: y.width}
		v.width = max(v.width, x.width, z.width)
		x, y, z = rebox(x, v.width), rebox(y, v.width), rebox(z, v.width)
		x.shift = half(delta)
		z.shift = -x.shift
		v.height, v.depth = y.height, y.depth
		var list []*node
		if q.sup.kind == emptyField {
			list = []*node{y}
		} else {
			shiftUp := max(m.e.ex(11, m.size)-x.depth, m.e.ex(9, m.size))
			list = []*node{newKern(m.e.ex(13, m.size)), x, newKern(shiftUp), y}
			v.height += m.e.ex(13, m.size) + x.height + x.depth + shiftUp
		}
		if q.sub.kind != emptyField {
			shiftDown := max(m.e.ex(12, m.size)-z.height, m.e.ex(10, m.size))
			list = append(list, newKern(shiftDown), z, newKern(m.e.ex(13, m.size)))
			v.depth += m.e.ex(13, m.size) + z.height + z.depth + shiftDown
		}
		v.list = list
		q.newList = []*node{v}
	}
	return delta
}

// makeFraction is make_fraction (tex.web §743–§748).
func (m *mlistState) makeFraction(q *noad) {
	t := q.thickness
	if t == defaultCode {
		t = m.e.ex(8, m.size)
	}
	x := m.cleanBox(field{kind: subMlist, list: q.num}, m.style.num())
	z := m.cleanBox(field{kind: subMlist, list: q.den}, m.style.denom())
	if x.width < z.width {
		x = rebox(x, z.width)
	} else {
		z = rebox(z, x.width)
	}
	var shiftUp, shiftDown Scaled
	if m.style < styleT {
		shiftUp, shiftDown = m.e.sy(8, m.size), m.e.sy(11, m.size)
	} else {
		shiftDown = m.e.sy(12, m.size)
		if t != 0 {
			shiftUp = m.e.sy(9, m.size)
		} else {
			shiftUp = m.e.sy(10, m.size)
		}
	}
	axis := m.e.sy(22, m.size)
	var delta Scaled
	if t == 0 {
		clr := 3 * m.e.ex(8, m.size)
		if m.style < styleT {
			clr = 7 * m.e.ex(8, m.size)
		}
		delta = half(clr - ((shiftUp - x.depth) - (z.height - shiftDown)))
		if delta > 0 {
			shiftUp += delta
			shiftDown += delta
		}
	} else {
		clr := t
		if m.style < styleT {
			clr = 3 * t
		}
		delta = half(t)
		delta1 := clr - ((shiftUp - x.depth) - (axis + delta))
		delta2 := clr - ((axis - delta) - (z.height - shiftDown))
		if delta1 > 0 {
			shiftUp += delta1
		}
		if delta2 > 0 {
			shiftDown += delta2
		}
	}
	v := &node{kind: vlistNode, height: shiftUp + x.height, depth: z.depth + shiftDown, width: x.width}
	if t == 0 {
		v.list = []*node{x, newKern((shiftUp - x.depth) - (z.height - shiftDown)), z}
	} else {
		v.list = []*node{x, newKern((shiftUp - x.depth) - (axis + delta)), fractionRule(t, q.tok), newKern((axis - delta) - (z.height - shiftDown)), z}
	}
	d := m.e.sy(21, m.size)
	if m.style < styleT {
		d = m.e.sy(20, m.size)
	}
	l := m.e.varDelimiter(q.left, m.size, d)
	r := m.e.varDelimiter(q.right, m.size, d)
	q.newList = []*node{hpack([]*node{l, v, r}, 0, false)}
}

// makeRadical is make_radical (tex.web §737).
func (m *mlistState) makeRadical(q *noad) {
	x := m.cleanBox(q.nucleus, m.style.cramped())
	t := m.e.ex(8, m.size)
	var clr Scaled
	if m.style < styleT {
		clr = t + abs(m.e.sy(5, m.size))/4
	} else {
		clr = t + abs(t)/4
	}
	y := m.e.varDelimiter(q.delim, m.size, x.height+x.depth+clr+t)
	if delta := y.depth - (x.height + x.depth + clr); delta > 0 {
		clr += half(delta)
	}
	y.shift = -(x.height + clr)
	q.nucleus = field{kind: subBox, box: hpack([]*node{y, overbar(x, clr, y.height, q.tok)}, 0, false)}
}

func abs(x Scaled) Scaled {
	if x < 0 {
		return -x
	}
	return x
}

// makeOver and makeUnder are make_over and make_under (tex.web §734–§735).
func (m *mlistState) makeOver(q *noad) {
	t := m.e.ex(8, m.size)
	q.nucleus = field{kind: subBox, box: overbar(m.cleanBox(q.nucleus, m.style.cramped()), 3*t, t, q.tok)}
}

func (m *mlistState) makeUnder(q *noad) {
	t := m.e.ex(8, m.size)
	x := m.cleanBox(q.nucleus, m.style)
	y := vpack([]*node{x, newKern(3 * t), fractionRule(t, q.tok)})
	delta := y.height + y.depth + t
	y.height = x.height
	y.depth = delta - y.height
	q.nucleus = field{kind: subBox, box: y}
}

// makeVcenter is make_vcenter (tex.web §736).
func (m *mlistState) makeVcenter(q *noad) {
	v := q.nucleus.box
	delta := v.height + v.depth
	v.height = m.e.sy(22, m.size) + half(delta)
	v.depth = delta - v.height
}

// skewChar is LaTeX's \skewchar of a font family (the .fd files).
func skewChar(name string) int {
	switch {
	case len(name) >= 4 && (name[:4] == "cmmi" || name[:4] == "eurm" || name[:4] == "eurb"):
		return 0o177
	case len(name) >= 4 && name[:4] == "cmsy", len(name) >= 5 && name[:5] == "cmbsy":
		return 0o60
	case len(name) >= 5 && name[:5] == "cmmib":
		return 0o177
	}
	return -1
}

// makeMathAccent is make_math_accent (tex.web §738–§742).
func (m *mlistState) makeMathAccent(q *noad) {
	af := m.e.fonts[q.accFam][m.size]
	if af == nil || !af.exists(q.accC) {
		return
	}
	c := q.accC
	var s Scaled
	if q.nucleus.kind == mathChar {
		if f, ok := m.fetch(q.nucleus); ok {
			s = f.SkewKern(q.nucleus.c, skewChar(f.Name))
		}
	}
	x := m.cleanBox(q.nucleus, m.style.cramped())
	w, h := x.width, x.height
	for {
		ci, _ := af.Char(c)
		if ci.Tag != font.ListTag {
			break
		}
		y := ci.Remainder
		if !af.exists(y) {
			break
		}
		if yw, _, _, _ := af.metrics(y); yw > w {
			break
		}
		c = y
	}
	delta := min(h, af.Param(5))
	if (q.sup.kind != emptyField || q.sub.kind != emptyField) && q.nucleus.kind == mathChar {
		inner := &noad{kind: ordNoad, nucleus: q.nucleus, sup: q.sup, sub: q.sub}
		q.sup, q.sub = field{}, field{}
		q.nucleus = field{kind: subMlist, list: []*noad{inner}}
		x = m.cleanBox(q.nucleus, m.style)
		delta += x.height - h
		h = x.height
	}
	y := charBox(af, c, q.tok)
	y.shift = s + half(w-y.width)
	y.width = 0
	v := vpack([]*node{y, newKern(-delta), x})
	v.width = x.width
	if v.height < h {
		v.list = append([]*node{newKern(h - v.height)}, v.list...)
		v.height = h
	}
	q.nucleus = field{kind: subBox, box: v}
}

// makeScripts is make_scripts (tex.web §756–§759).
func (m *mlistState) makeScripts(q *noad, delta Scaled) {
	var shiftUp, shiftDown Scaled
	p := q.newList
	if !(len(p) > 0 && p[0].kind == charNode) {
		z := hpack(p, 0, false)
		t := scriptSize
		if m.style >= styleS {
			t = scriptScriptSize
		}
		shiftUp = z.height - m.e.sy(18, t)
		shiftDown = z.depth + m.e.sy(19, t)
	}
	xh := m.e.sy(5, m.size)
	var x *node
	if q.sup.kind == emptyField {
		x = m.cleanBox(q.sub, m.style.sub())
		x.width += scriptSpace
		shiftDown = max(shiftDown, m.e.sy(16, m.size), x.height-abs(xh*4)/5)
		x.shift = shiftDown
	} else {
		x = m.cleanBox(q.sup, m.style.sup())
		x.width += scriptSpace
		var clr Scaled
		switch {
		case m.style.isCramped():
			clr = m.e.sy(15, m.size)
		case m.style < styleT:
			clr = m.e.sy(13, m.size)
		default:
			clr = m.e.sy(14, m.size)
		}
		shiftUp = max(shiftUp, clr, x.depth+abs(xh)/4)
		if q.sub.kind == emptyField {
			x.shift = -shiftUp
		} else {
			y := m.cleanBox(q.sub, m.style.sub())
			y.width += scriptSpace
			shiftDown = max(shiftDown, m.e.sy(17, m.size))
			clr := 4*m.e.ex(8, m.size) - ((shiftUp - x.depth) - (y.height - shiftDown))
			if clr > 0 {
				shiftDown += clr
				clr = abs(xh*4)/5 - (shiftUp - x.depth)
				if clr > 0 {
					shiftUp += clr
					shiftDown -= clr
				}
			}
			x.shift = delta
			v := vpack([]*node{x, newKern((shiftUp - x.depth) - (y.height - shiftDown)), y})
			v.shift = shiftDown
			x = v
		}
	}
	q.newList = append(q.newList, x)
}

// makeLeftRight is make_left_right (tex.web §762).
func (m *mlistState) makeLeftRight(q *noad, st style, maxD, maxH Scaled) noadKind {
	m.setStyle(st)
	delta2 := maxD + m.e.sy(22, m.size)
	delta1 := maxH + maxD - delta2
	delta1 = max(delta1, delta2)
	delta := Scaled(int64(delta1)/500) * Scaled(delimiterFactor)
	delta2 = delta1 + delta1 - delimiterShortfall
	delta = max(delta, delta2)
	q.newList = []*node{m.e.varDelimiter(q.delim, m.size, delta)}
	if q.kind == leftNoad {
		return openNoad
	}
	return closeNoad
}
