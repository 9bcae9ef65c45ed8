package tex

import (
	"strconv"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/tex/font"
)

// The commands of this file: spacing: \quad and its kin, dimensions,
// \hspace, phantoms and \smash.

// smash handles amsmath's \smash in math: a box of the argument with no
// height and depth, per style.
func (p *parser) smash(l *list, arg []token) error {
	var choice [4][]*noad
	for i, st := range []style{styleD, styleT, styleS, styleSS} {
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		b := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, groupNoad(items)}, styleT, false), 0, false)
		b.height, b.depth = 0, 0
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: b}}}
	}
	l.add(&noad{kind: choiceNoad, noadParts: &noadParts{choice: choice}})
	return nil
}

// sizeFonts are the text fonts LaTeX's size commands select in the
// reference's 12pt article (size12.clo's sizes, ot1cmr.fd's fonts).
var sizeFonts = map[string]struct{ name, at string }{
	"tiny": {"cmr6", "6pt"}, "scriptsize": {"cmr8", "8pt"}, "footnotesize": {"cmr10", "10pt"},
	"small": {"cmr10", "10.95pt"}, "normalsize": {"cmr12", "12pt"}, "large": {"cmr12", "14.4pt"},
	"Large": {"cmr17", "17.28pt"}, "LARGE": {"cmr17", "20.74pt"}, "huge": {"cmr17", "24.88pt"},
	"Huge": {"cmr17", "24.88pt"},
}

// spaceParams are the parameters 1–7 (fix_words) of the text fonts of
// the size commands that leakaudit does not embed, read from TeX Live's
// cmr10.tfm and cmr17.tfm: control space and em units need only these.
var spaceParams = map[string]struct {
	design Scaled
	params []int32
}{
	"cmr10": {10 << 16, []int32{0, 349526, 174763, 116509, 451470, 1048579, 116509}},
	"cmr17": {1132462, []int32{0, 316552, 164344, 109563, 451403, 961793, 109563}},
}

var (
	sizeFontsMu  sync.Mutex
	sizeFontMemo = map[string]*font.Font{}
)

// sizeName is the size command in force ("" for none).
func (p *parser) sizeName() string {
	if len(p.sizes) == 0 {
		return ""
	}
	return p.sizes[len(p.sizes)-1].name
}

// textFont returns the current text font (its parameters only) and
// whether it is the document's own (cmr12 at 12 pt): a size command in
// force changes it for the rest of its group.
func (p *parser) textFont() (*font.Font, bool) {
	if len(p.sizes) == 0 {
		return p.e.fonts[famOperators][textSize].Font, true
	}
	name := p.sizes[len(p.sizes)-1].name
	if name == "normalsize" {
		return p.e.fonts[famOperators][textSize].Font, true
	}
	sizeFontsMu.Lock()
	defer sizeFontsMu.Unlock()
	if f, ok := sizeFontMemo[name]; ok {
		return f, false
	}
	sf := sizeFonts[name]
	at, _, _ := parseDimen(sf.at, 0)
	var t *font.TFM
	if sp, ok := spaceParams[sf.name]; ok {
		t = &font.TFM{Name: sf.name, DesignSize: sp.design, Params: sp.params}
	} else {
		var err error
		if t, err = font.LoadTFM(sf.name); err != nil {
			panic(err) // embedded
		}
	}
	f := t.Scale(at)
	sizeFontMemo[name] = f
	return f, false
}

// space handles explicit spacing commands.
func (p *parser) space(l *list, name string) error {
	tf, _ := p.textFont()
	em := tf.Param(6)
	switch name {
	case " ":
		l.add(p.spaceGlue())
	case "quad":
		l.add(&noad{kind: glueItem, glue: newGlue(em, 0, 0)})
	case "qquad":
		l.add(&noad{kind: glueItem, glue: newGlue(2*em, 0, 0)})
	case "enspace", "enskip":
		l.add(&noad{kind: kernItem, glue: newKern(em / 2)})
	default:
		var arg []token
		var err error
		if name == "hspace" {
			if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '*' {
				p.next()
			}
			arg, err = p.readArg()
		} else {
			arg, err = p.readDimenTokens()
		}
		if err != nil {
			return err
		}
		d, mu, ok := parseDimen(tokString(arg), em)
		if !ok {
			return p.e.unsupported(`\` + name + " " + tokString(arg))
		}
		if (name == "mkern" || name == "mskip") != mu {
			p.e.recover("incompatible glue units")
		}
		kind := glueItem
		if name == "mkern" || name == "kern" {
			kind = kernItem
		}
		n := &noad{kind: kind, mu: mu, glue: newGlue(d, 0, 0)}
		if kind == kernItem {
			n.glue = newKern(d)
		}
		l.add(n)
	}
	return nil
}

// readDimenTokens reads the tokens of an unbraced dimension (\mkern-3mu).
func (p *parser) readDimenTokens() ([]token, error) {
	p.skipSpaces()
	var ts []token
	for {
		t, ok := p.peek()
		if !ok || t.kind != tkChar || !(t.c >= '0' && t.c <= '9' || t.c == '.' || t.c == '-' || t.c == '+' || t.c == ',' || t.c >= 'a' && t.c <= 'z') {
			return ts, nil
		}
		p.next()
		ts = append(ts, t)
		s := tokString(ts)
		if _, _, ok := parseDimen(s, 0); ok && len(s) >= 2 {
			if u := s[len(s)-2:]; units[u] != [2]int64{} || u == "mu" || u == "em" || u == "ex" {
				return ts, nil
			}
		}
	}
}

var units = map[string][2]int64{
	"pt": {1, 1}, "in": {7227, 100}, "pc": {12, 1}, "cm": {7227, 254}, "mm": {7227, 2540},
	"bp": {7227, 7200}, "dd": {1238, 1157}, "cc": {14856, 1157}, "sp": {1, 65536},
}

// parseDimen reads "<decimal><unit>" as TeX does (scan_dimen, tex.web
// §448–§458): mu for math units, em from the current font.
func parseDimen(s string, em Scaled) (Scaled, bool, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	neg := false
	for strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		if s[0] == '-' {
			neg = !neg
		}
		s = s[1:]
	}
	if len(s) < 2 {
		return 0, false, false
	}
	unit, num := s[len(s)-2:], strings.ReplaceAll(s[:len(s)-2], ",", ".")
	ip, frac, _ := strings.Cut(num, ".")
	n := 0
	if ip != "" {
		var err error
		if n, err = strconv.Atoi(ip); err != nil {
			return 0, false, false
		}
	}
	var a int64
	for k := min(len(frac), 17) - 1; k >= 0; k-- {
		if frac[k] < '0' || frac[k] > '9' {
			return 0, false, false
		}
		a = (a + int64(frac[k]-'0')*(1<<17)) / 10
	}
	f := (a + 1) / 2
	var v Scaled
	mu := false
	switch unit {
	case "mu":
		mu = true
		v = Scaled(int64(n)<<16 + f)
	case "em":
		v = multAndAdd(int64(n), em, xnOverD(em, f, 65536))
	default:
		u, ok := units[unit]
		if !ok {
			return 0, false, false
		}
		if u[0] != 1 || u[1] != 1 {
			// TeX: n ← xn_over_d(n, num, denom) with remainder carried
			num, den := u[0], u[1]
			whole := int64(n) * num / den
			rem := int64(n) * num % den
			f = (num*f + 65536*rem) / den
			whole += f / 65536
			f %= 65536
			v = Scaled(whole<<16 + f)
		} else {
			v = Scaled(int64(n)<<16 + f)
		}
	}
	if neg {
		v = -v
	}
	return v, mu, true
}

// glueFil is \hfil (order 1) or \hfill (order 2) glue.
func glueFil(order uint8) *noad {
	return &noad{kind: glueItem, glue: &node{kind: glueNode, stretch: Unity, stretchOrder: order}}
}

// phantom handles \phantom, \vphantom and \hphantom: an empty box with
// the argument's height and depth (v) and width (h), per style.
func (p *parser) phantom(l *list, arg []token, v, h bool) error {
	var choice [4][]*noad
	for i, st := range styles4 {
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		b := hpack(p.e.mlistToHlist([]*noad{{kind: styleNoad, style: st}, groupNoad(items)}, styleT, false), 0, false)
		e := &node{kind: hlistNode}
		if v {
			e.height, e.depth = b.height, b.depth
		}
		if h {
			e.width = b.width
		}
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: e}}}
	}
	l.add(&noad{kind: choiceNoad, noadParts: &noadParts{choice: choice}})
	return nil
}
