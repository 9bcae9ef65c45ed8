package tex

import "github.com/leakaudit/leakaudit/tex/font"

// This file is TeX's conversion of a math list to a horizontal list
// (tex.web part 36, "Typesetting math formulas", the rules of The TeXbook's
// Appendix G), transcribed from the algorithm's description in integer
// scaled-point arithmetic so that positions equal the DVI's.

// Parameters fixed by the reference preamble (LaTeX defaults for a 12 pt
// article).
var (
	nullDelimiterSpace = Scaled(78643) // 1.2pt, LaTeX's \nulldelimiterspace
	scriptSpace        = Scaled(32768) // 0.5pt
	delimiterFactor    = 901
	delimiterShortfall = Scaled(5 * 65536)
	thinMuSkip         = muGlue{w: 3 << 16}
	medMuSkip          = muGlue{w: 4 << 16, st: 2 << 16, sh: 4 << 16}
	thickMuSkip        = muGlue{w: 5 << 16, st: 5 << 16}
)

// muGlue is glue in math units (2^16 = 1mu).
type muGlue struct{ w, st, sh Scaled }

// mlistState is the state of one mlist_to_hlist call.
type mlistState struct {
	e     *engine
	style style
	size  int
	mu    Scaled // cur_mu
}

func (m *mlistState) setStyle(s style) {
	m.style = s
	m.size = s.size()
	m.mu = xOverN(m.e.sy(6, m.size), 18)
}

// sy is σ_n (family 2 parameter n) at a size; ex is ξ_n (family 3).
func (e *engine) sy(n, size int) Scaled { return e.fonts[famSymbols][size].Param(n) }
func (e *engine) ex(n, size int) Scaled { return e.fonts[famLarge][size].Param(n) }

// xOverN is TeX's x_over_n: division truncating towards zero.
func xOverN(x Scaled, n int) Scaled { return Scaled(int64(x) / int64(n)) }

// half is TeX's half.
func half(x Scaled) Scaled {
	if x&1 != 0 {
		return Scaled((int64(x) + 1) / 2) // Pascal div truncates towards zero
	}
	return x / 2
}

// xnOverD is TeX's xn_over_d: x·n/d truncated towards zero.
func xnOverD(x Scaled, n, d int64) Scaled {
	neg := x < 0
	if neg {
		x = -x
	}
	r := Scaled(int64(x) * n / d)
	if neg {
		return -r
	}
	return r
}

// multAndAdd is nx_plus_y.
func multAndAdd(n int64, x, y Scaled) Scaled { return Scaled(n*int64(x)) + y }

// muMult converts a mu dimension with the current mu (math_glue,
// tex.web §716).
func muMult(x, m Scaled) Scaled {
	n := int64(m) / 0o200000
	f := int64(m) % 0o200000
	if f < 0 {
		n--
		f += 0o200000
	}
	return multAndAdd(n, x, xnOverD(x, f, 0o200000))
}

func (m *mlistState) mathGlue(g muGlue) *node {
	p := m.e.nodes.New()
	p.kind, p.width, p.stretch, p.shrink = glueNode, muMult(g.w, m.mu), muMult(g.st, m.mu), muMult(g.sh, m.mu)
	return p
}

// fetch returns the font and whether the character exists (tex.web §722;
// a missing character is dropped, as TeX does after its warning).
func (m *mlistState) fetch(f field) (*mathFont, bool) {
	font := m.e.fonts[f.fam][m.size]
	if font == nil {
		m.e.warn("undefined family %d", f.fam)
		return nil, false
	}
	if !font.exists(f.c) {
		m.e.warn("missing character %d in %s", f.c, font.Name)
		return font, false
	}
	return font, true
}

// charBox is char_box: an hbox with one character, as wide as the
// character plus its italic correction.
func charBox(f *mathFont, c int, tok int32) *node {
	w, h, d, ic := f.metrics(c)
	return &node{kind: hlistNode, width: w + ic, height: h, depth: d, list: []*node{newChar(f, c, tok)}}
}

// cleanBox is clean_box (tex.web §720).
func (m *mlistState) cleanBox(f field, s style) *node {
	var q []*node
	switch f.kind {
	case mathChar, mathTextChar:
		n := m.e.noads.New()
		n.kind, n.nucleus = ordNoad, f
		l := m.e.noadPtrs.Take(1)
		l[0] = n
		q = m.e.mlistToHlist(l, s, false)
	case subBox:
		q = m.e.nodePtrs.Take(1)
		q[0] = f.box
	case subMlist:
		q = m.e.mlistToHlist(f.list, s, false)
	default:
		return &node{kind: hlistNode}
	}
	if len(q) == 1 && (q[0].kind == hlistNode || q[0].kind == vlistNode) && q[0].shift == 0 {
		return q[0]
	}
	return m.e.hpack(q, 0, false)
}

// rebox is rebox (tex.web §715): centre a box in width w.
func rebox(b *node, w Scaled) *node {
	if b.width != w && len(b.list) > 0 {
		if b.kind == vlistNode {
			b = hpack([]*node{b}, 0, false)
		}
		list := b.list
		if len(list) == 1 && list[0].kind == charNode {
			cw, _, _, _ := list[0].font.metrics(list[0].c)
			list = []*node{list[0], newKern(b.width - cw)}
		}
		nl := make([]*node, 0, len(list)+2)
		nl = append(nl, ssGlue())
		nl = append(nl, list...)
		nl = append(nl, ssGlue())
		return hpack(nl, w, true)
	}
	b.width = w
	return b
}

func ssGlue() *node {
	return &node{kind: glueNode, stretch: Unity, shrink: Unity, stretchOrder: filOrder, shrinkOrder: filOrder}
}

// fractionRule is fraction_rule: a rule of height t and running width.
func fractionRule(t Scaled, tok int32) *node { return newRule(runningDim, t, 0, tok) }

// overbar is overbar (tex.web §705).
func overbar(b *node, k, t Scaled, tok int32) *node {
	return vpack([]*node{newKern(t), fractionRule(t, tok), newKern(k), b})
}

// varDelimiter is var_delimiter (tex.web §706–§714).
func (e *engine) varDelimiter(d delimiter, size int, v Scaled) *node {
	var f *mathFont
	var c int
	var w Scaled
	z, x := d.smallFam, d.smallChar
	large := false
	found := false
	for !found {
		if z != 0 || x != 0 {
			for sz := size; sz >= 0 && !found; sz-- {
				g := e.fonts[z][sz]
				if g == nil {
					continue
				}
				y := x
				for {
					ci, ok := g.Char(y)
					if !ok {
						break
					}
					if ci.Tag == font.ExtTag {
						f, c, found = g, y, true
						break
					}
					_, h, dp, _ := g.metrics(y)
					if u := h + dp; u > w {
						f, c, w = g, y, u
						if u >= v {
							found = true
							break
						}
					}
					if ci.Tag != font.ListTag {
						break
					}
					y = ci.Remainder
				}
			}
		}
		if found || large {
			break
		}
		large = true
		z, x = d.largeFam, d.largeChar
	}
	var b *node
	if f != nil {
		ci, _ := f.Char(c)
		if ci.Tag == font.ExtTag {
			b = e.extensible(f, c, v, d.tok)
		} else {
			b = charBox(f, c, d.tok)
		}
	} else {
		b = &node{kind: hlistNode, width: e.nullDelim}
	}
	b.shift = half(b.height-b.depth) - e.sy(22, size)
	return b
}

// extensible builds an extensible delimiter of at least height v
// (tex.web §713–§714).
func (e *engine) extensible(f *mathFont, c int, v Scaled, tok int32) *node {
	ci, _ := f.Char(c)
	r := f.TFM.Exts[ci.Remainder]
	hd := func(ch int) Scaled { _, h, d, _ := f.metrics(ch); return h + d }
	wd, _, _, ic := f.metrics(c)
	b := &node{kind: vlistNode, width: wd + ic}
	u := hd(int(r.Rep))
	var w Scaled
	rw, _, _, ric := f.metrics(int(r.Rep))
	b.width = rw + ric
	if r.Bot != 0 {
		w += hd(int(r.Bot))
	}
	if r.Mid != 0 {
		w += hd(int(r.Mid))
	}
	if r.Top != 0 {
		w += hd(int(r.Top))
	}
	n := 0
	if u > 0 {
		for w < v {
			w += u
			n++
			if r.Mid != 0 {
				w += u
			}
		}
	}
	var stack []*node // built bottom first, then reversed
	push := func(ch int) {
		p := charBox(f, ch, tok)
		stack = append(stack, p)
		b.height = p.height
	}
	if r.Bot != 0 {
		push(int(r.Bot))
	}
	for range n {
		push(int(r.Rep))
	}
	if r.Mid != 0 {
		push(int(r.Mid))
		for range n {
			push(int(r.Rep))
		}
	}
	if r.Top != 0 {
		push(int(r.Top))
	}
	for i, j := 0, len(stack)-1; i < j; i, j = i+1, j-1 {
		stack[i], stack[j] = stack[j], stack[i]
	}
	b.list = stack
	b.depth = w - b.height
	return b
}

// mathSpacing is TeX's math_spacing table (tex.web §764): rows and
// columns Ord Op Bin Rel Open Close Punct Inner.
var mathSpacing = [8]string{
	"02340001",
	"22*40001",
	"33**3**3",
	"44*04004",
	"00*00000",
	"02340001",
	"11*11111",
	"12341011",
}

// mlistToHlist is mlist_to_hlist (tex.web §726–§767).
func (e *engine) mlistToHlist(list []*noad, st style, penalties bool) []*node {
	m := &mlistState{e: e}
	m.setStyle(st)
	var maxH, maxD Scaled
	rType := opNoad
	var r *noad
	// First pass.
	for i := 0; i < len(list); i++ {
		q := list[i]
		var delta Scaled
	reswitch:
		switch q.kind {
		case binNoad:
			switch rType {
			case binNoad, opNoad, relNoad, openNoad, punctNoad, leftNoad:
				q.kind = ordNoad
				goto reswitch
			}
		case relNoad, closeNoad, punctNoad, rightNoad:
			if rType == binNoad {
				r.kind = ordNoad
			}
			if q.kind == rightNoad {
				goto doneWithNoad
			}
		case leftNoad:
			goto doneWithNoad
		case fractionNoad:
			m.makeFraction(q)
			goto checkDimensions
		case opNoad:
			delta = m.makeOp(q)
			if q.limits == limitsOn {
				goto checkDimensions
			}
		case ordNoad:
			list = m.makeOrd(list, i)
		case openNoad, innerNoad:
		case radicalNoad:
			m.makeRadical(q)
		case overNoad:
			m.makeOver(q)
		case underNoad:
			m.makeUnder(q)
		case accentNoad:
			m.makeMathAccent(q)
		case vcenterNoad:
			m.makeVcenter(q)
		case styleNoad:
			m.setStyle(q.style)
			continue
		case choiceNoad:
			chosen := q.choice[m.style/2]
			rest := append(append([]*noad{}, chosen...), list[i+1:]...)
			list = append(list[:i:i], rest...)
			i--
			continue
		case whatsitItem, penaltyItem:
			continue
		case boxItem:
			maxH = max(maxH, q.box.height-q.box.shift)
			maxD = max(maxD, q.box.depth+q.box.shift)
			// a box in a math list is an Ord atom's nucleus in TeX; the
			// parser wraps boxes as Ord noads, so this is only a rule.
			continue
		case glueItem:
			if q.mu {
				g := m.mathGlue(muGlue{q.glue.width, q.glue.stretch, q.glue.shrink})
				q.glue, q.mu = g, false
			}
			if q.nonscript && m.size != textSize {
				if i+1 < len(list) && (list[i+1].kind == glueItem || list[i+1].kind == kernItem) {
					list = append(list[:i+1], list[i+2:]...)
				}
			}
			continue
		case kernItem:
			if q.mu {
				q.glue = e.kern(muMult(q.glue.width, m.mu))
				q.mu = false
			}
			continue
		}
		// Convert the nucleus to an hlist and attach the scripts (§754).
		{
			var p []*node
			switch q.nucleus.kind {
			case mathChar, mathTextChar:
				if f, ok := m.fetch(q.nucleus); ok {
					_, _, _, ic := f.metrics(q.nucleus.c)
					delta = ic
					p = e.charList(f, q.nucleus.c, q.nucleus.tok)
					if q.nucleus.kind == mathTextChar && f.Param(2) != 0 {
						delta = 0
					}
					if q.sub.kind == emptyField && delta != 0 {
						p = append(p, e.kern(delta))
						delta = 0
					}
				}
			case subBox:
				p = []*node{q.nucleus.box}
			case subMlist:
				p = e.nodePtrs.Take(1)
				p[0] = e.hpack(e.mlistToHlist(q.nucleus.list, m.style, false), 0, false)
			}
			q.newList = p
			if q.sub.kind != emptyField || q.sup.kind != emptyField {
				m.makeScripts(q, delta)
			}
		}
	checkDimensions:
		{
			// the height and depth of hpack(q.newList), without the box
			_, h, d, _, _ := measure(q.newList)
			maxH = max(maxH, h)
			maxD = max(maxD, d)
		}
	doneWithNoad:
		r = q
		rType = r.kind
		if rType == rightNoad {
			rType = leftNoad
			m.setStyle(st)
		}
	}
	if rType == binNoad {
		r.kind = ordNoad
	}
	// Second pass.
	m.setStyle(st)
	n := 0 // what the pass appends, but for \left and \right's delimiters
	for _, q := range list {
		n += len(q.newList) + 1 // its list, or its item, and the spacing before it
	}
	out := e.nodePtrs.Take(n)[:0]
	first := true
	var prev noadKind
	for _, q := range list {
		t := ordNoad
		switch q.kind {
		case opNoad, openNoad, closeNoad, punctNoad, innerNoad, binNoad, relNoad:
			t = q.kind
		case ordNoad, vcenterNoad, overNoad, underNoad, radicalNoad, accentNoad:
		case fractionNoad:
			t = innerNoad
		case leftNoad, rightNoad:
			t = m.makeLeftRight(q, st, maxD, maxH)
		case styleNoad:
			m.setStyle(q.style)
			continue
		case whatsitItem:
			// kept as a node: it makes a list of one box a list of
			// several, as in TeX (clean_box then boxes it anew)
			out = append(out, e.whatsit(q.tok))
			continue
		case penaltyItem:
			continue
		case glueItem, kernItem:
			out = append(out, q.glue)
			continue
		case boxItem:
			out = append(out, q.box)
			continue
		case choiceNoad:
			continue
		}
		if !first {
			var x int
			switch mathSpacing[prev][t] {
			case '1':
				if m.style < styleS {
					x = 1
				}
			case '2':
				x = 1
			case '3':
				if m.style < styleS {
					x = 2
				}
			case '4':
				if m.style < styleS {
					x = 3
				}
			}
			switch x {
			case 1:
				out = append(out, m.mathGlue(thinMuSkip))
			case 2:
				out = append(out, m.mathGlue(medMuSkip))
			case 3:
				out = append(out, m.mathGlue(thickMuSkip))
			}
		}
		out = append(out, q.newList...)
		if q.kind == rightNoad {
			t = openNoad
		}
		prev, first = t, false
	}
	return out
}

// makeOrd applies rule 14: kerns and ligatures between adjacent
// characters of the same family (tex.web §752–§753). Only the item right
// after q counts, so a colour special between two tokens blocks both. It
// returns the list, changed when a kern is inserted or noads combined.
func (m *mlistState) makeOrd(list []*noad, i int) []*noad {
	q := list[i]
	for q.sub.kind == emptyField && q.sup.kind == emptyField && q.nucleus.kind == mathChar && i+1 < len(list) {
		p := list[i+1]
		if p.kind > punctNoad || p.nucleus.kind != mathChar || p.nucleus.fam != q.nucleus.fam {
			return list
		}
		q.nucleus.kind = mathTextChar
		f, ok := m.fetch(q.nucleus)
		if !ok {
			return list
		}
		op, rem, kern, ok := f.LigKernStep(q.nucleus.c, p.nucleus.c)
		if !ok {
			return list
		}
		if op >= 128 {
			k := &noad{kind: kernItem, glue: newKern(kern)}
			return append(list[:i+1:i+1], append([]*noad{k}, list[i+1:]...)...)
		}
		switch op {
		case 0: // =: the pair becomes one character
			q.nucleus.c = rem
			q.sub, q.sup = p.sub, p.sup
			list = append(list[:i+1:i+1], list[i+2:]...)
		case 1, 5: // =:| and =:|>
			q.nucleus.c = rem
		case 2, 6: // |=: and |=:>
			p.nucleus.c = rem
		default:
			m.e.unsupported("math ligature with an inserted character")
			return list
		}
		if op > 3 {
			return list
		}
		q.nucleus.kind = mathChar
	}
	return list
}
