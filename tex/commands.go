package tex

import (
	"strconv"
	"strings"
)

// macros are commands modelled by their expansion into other supported
// commands, transcribed from fontmath.ltx and amsmath.sty.
var macros = map[string]string{
	"neq": `\not=`, "ne": `\not=`,
	"relbar":             `\mathrel{\smash-}`,
	"Relbar":             `\mathrel{=}`,
	"joinrel":            `\mathrel{\mkern-3mu}`,
	"longrightarrow":     `\relbar\joinrel\rightarrow`,
	"Longrightarrow":     `\Relbar\joinrel\Rightarrow`,
	"longleftarrow":      `\leftarrow\joinrel\relbar`,
	"Longleftarrow":      `\Leftarrow\joinrel\Relbar`,
	"longleftrightarrow": `\leftarrow\joinrel\rightarrow`,
	"Longleftrightarrow": `\Leftarrow\joinrel\Rightarrow`,
	"mapsto":             `\mapstochar\rightarrow`,
	"longmapsto":         `\mapstochar\longrightarrow`,
	"hookrightarrow":     `\lhook\joinrel\rightarrow`,
	"hookleftarrow":      `\leftarrow\joinrel\rhook`,
	"models":             `\mathrel{|}\joinrel\Relbar`,
	"iff":                `\;\Longleftrightarrow\;`,
	"doteq":              `\mathrel{\mathop{\kern0pt =}\limits^{\textstyle .}}`, // \buildrel\textstyle.\over=
	"slash":              `/`,                                                   // then \penalty\exhyphenpenalty, no width
	"iint":               `\intop\mkern-6mu\mathchoice{\mkern-3mu}{}{}{}\intop\nolimits`,
	"iiint":              `\intop\mkern-6mu\mathchoice{\mkern-3mu}{}{}{}\intop\mkern-6mu\mathchoice{\mkern-3mu}{}{}{}\intop\nolimits`,
	"implies":            `\;\Longrightarrow\;`,
	"impliedby":          `\;\Longleftarrow\;`,
	"cdots":              `\mathinner{\cdotp\cdotp\cdotp}`,
	"ldots":              `\mathinner{\ldotp\ldotp\ldotp}`,
	"dots":               `\mathinner{\ldotp\ldotp\ldotp}`,
	"mathellipsis":       `\mathinner{\ldotp\ldotp\ldotp}`,
	"lbrack":             `[`,
	"rbrack":             `]`,
	"dag":                `{\dagger}`,
	"ddag":               `{\ddagger}`,
	"S":                  `\mathsection`,
	"P":                  `\mathparagraph`,
	"choose":             `\atopwithdelims()`,
}

// bigOps are the large operators amsmath defines through an inner
// symbol (\sum is \DOTSB\sum@\slimits@), with their limits.
var bigOps = map[string]struct {
	sym    string
	limits uint8
}{
	"sum": {"sum@", limitsNormal}, "prod": {"prod@", limitsNormal}, "coprod": {"coprod@", limitsNormal},
	"bigcap": {"bigcap@", limitsNormal}, "bigcup": {"bigcup@", limitsNormal}, "bigsqcup": {"bigsqcup@", limitsNormal},
	"bigvee": {"bigvee@", limitsNormal}, "bigwedge": {"bigwedge@", limitsNormal}, "bigodot": {"bigodot@", limitsNormal},
	"bigotimes": {"bigotimes@", limitsNormal}, "bigoplus": {"bigoplus@", limitsNormal}, "biguplus": {"biguplus@", limitsNormal},
	"int": {"intop", limitsOff}, "oint": {"ointop", limitsOff},
}

// opNames are the operator names of amsopn (\mathop{\operator@font …}),
// with whether they take limits in display style.
var opNames = map[string]bool{
	"arccos": false, "arcsin": false, "arctan": false, "arg": false, "cos": false, "cosh": false,
	"cot": false, "coth": false, "csc": false, "deg": false, "dim": false, "exp": false, "hom": false,
	"ker": false, "lg": false, "ln": false, "log": false, "sec": false, "sin": false, "sinh": false,
	"tan": false, "tanh": false,
	"det": true, "gcd": true, "inf": true, "lim": true, "liminf": true, "limsup": true, "max": true,
	"min": true, "Pr": true, "sup": true,
}

var alphabets = map[string]int{
	"mathrm": famOperators, "mathnormal": famLetters, "mathcal": famSymbols, "mathbb": 6,
	"mathbf": famBF, "mathit": famIT, "mathfrak": famFrak, "mathsf": famSF, "mathtt": famTT,
}

var styles = map[string]style{
	"displaystyle": styleD, "textstyle": styleT, "scriptstyle": styleS, "scriptscriptstyle": styleSS,
}

var classCommands = map[string]noadKind{
	"mathord": ordNoad, "mathop": opNoad, "mathbin": binNoad, "mathrel": relNoad,
	"mathopen": openNoad, "mathclose": closeNoad, "mathpunct": punctNoad, "mathinner": innerNoad,
}

// bigs are amsmath's \big family: size factor and class.
var bigs = map[string]struct {
	factor string
	class  noadKind
	bare   bool
}{}

func init() {
	for name, f := range map[string]string{"big": "1", "Big": "1.5", "bigg": "2", "Bigg": "2.5"} {
		bigs[name] = struct {
			factor string
			class  noadKind
			bare   bool
		}{f, ordNoad, true}
		for suf, k := range map[string]noadKind{"l": openNoad, "r": closeNoad, "m": relNoad} {
			bigs[name+suf] = struct {
				factor string
				class  noadKind
				bare   bool
			}{f, k, false}
		}
	}
}

// mu glue of the spacing commands.
var muSpaces = map[string]muGlue{
	",": thinMuSkip, "thinspace": thinMuSkip,
	":": medMuSkip, ">": medMuSkip, "medspace": medMuSkip,
	";": thickMuSkip, "thickspace": thickMuSkip,
	"!": {w: -thinMuSkip.w}, "negthinspace": {w: -thinMuSkip.w},
}

// command runs a control sequence in math mode.
func (p *parser) command(l *list, name string) error {
	e := p.e
	if ok, err := p.printedCommand(l, name); ok {
		return err
	}
	if exp, ok := macros[name]; ok {
		if p.budget < 0 {
			return e.unsupported("expansion too long")
		}
		p.insert(lex(exp)...)
		return nil
	}
	if c, ok := charGiven(name); ok {
		return p.char(l, c)
	}
	if s, ok := e.symbol(name); ok {
		switch s.kind {
		case symMathChar, symDelimiter:
			l.add(p.mathCharNoad(s.class, s.fam, s.c))
			return nil
		case symAccent:
			return p.accent(l, s.fam, s.c)
		case symRadical:
			return p.radical(l, s.delim)
		}
	}
	if op, ok := bigOps[name]; ok {
		s := symbols[op.sym]
		n := p.mathCharNoad(s.class, s.fam, s.c)
		n.limits = op.limits
		l.add(n)
		return nil
	}
	if g, ok := muSpaces[name]; ok {
		l.add(&noad{kind: glueItem, mu: true, glue: newGlue(g.w, g.st, g.sh)})
		return nil
	}
	if k, ok := classCommands[name]; ok {
		f, err := p.scanMath()
		if err != nil {
			return err
		}
		l.add(&noad{kind: k, nucleus: f, tok: p.tok()})
		return nil
	}
	if fam, ok := alphabets[name]; ok {
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		saved := p.fam
		p.fam = fam
		items, err := p.parseTokens(arg)
		p.fam = saved
		if err != nil {
			return err
		}
		p.addGroup(l, items)
		return nil
	}
	if st, ok := styles[name]; ok {
		l.add(&noad{kind: styleNoad, style: st})
		return nil
	}
	if b, ok := bigs[name]; ok {
		return p.big(l, b.factor, b.class, b.bare)
	}
	if fam, ok := oldFonts[name]; ok {
		p.fam = fam
		return nil
	}
	if lim, ok := opNames[name]; ok {
		return p.operatorName(l, lex(name), lim, false)
	}
	switch name {
	case "mathcolor":
		return p.mathColor(l)
	case "frac":
		return p.fraction(l, defaultCode, delimiter{}, delimiter{}, nil)
	case "over", "atop", "above", "overwithdelims", "atopwithdelims", "abovewithdelims":
		return p.primFrac(l, name)
	case "text", "textrm", "textnormal", "textup", "textmd", "mbox", "hbox", "textbf", "textit", "textsf", "texttt":
		return p.text(l, name)
	case "begin":
		return p.array(l)
	case "mathchoice":
		var choice [4][]*noad
		for i := range choice {
			arg, err := p.readArg()
			if err != nil {
				return err
			}
			if choice[i], err = p.parseTokens(arg); err != nil {
				return err
			}
		}
		l.add(&noad{kind: choiceNoad, choice: choice})
		return nil
	case "notin":
		return p.notin(l)
	case "overrightarrow", "overleftarrow", "overleftrightarrow":
		return p.overArrow(l, name)
	case "cong":
		return p.cong(l)
	case "phantom", "vphantom", "hphantom":
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		return p.phantom(l, arg, name != "hphantom", name != "vphantom")
	case "xrightarrow", "xleftarrow":
		return p.extArrow(l, name)
	case "vdots":
		return p.vdots(l)
	case "ddots":
		return p.ddots(l)
	case "overbrace", "underbrace":
		return p.brace(l, name == "overbrace")
	case "boxed":
		// \fbox{\m@th$\displaystyle#1$}
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		items, err := p.parseTokens(arg)
		if err != nil {
			return err
		}
		inner := hpack(p.e.mlistToHlist(append([]*noad{{kind: styleNoad, style: styleD}}, items...), styleT, false), 0, false)
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: fbox(inner, p.tok())}})
		return nil
	case "tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE", "huge", "Huge":
		// size commands are invalid in math: LaTeX warns and does nothing
		e.recover(`command \` + name + ` invalid in math mode (ignored)`)
		if p.sizedAt == 0 {
			p.sizedAt = p.depth
		}
		return nil
	case "%", "&", "#":
		return p.char(l, rune(name[0])) // \chardef'd: the character's mathcode
	case "substack":
		return p.substack(l)
	case "sp", "sb": // plain TeX's \let\sp=^ and \let\sb=_
		return p.script(l, name == "sp")
	case "color":
		// \color{name}: the rest of the group in a colour that is no
		// token's (the tokenizer's own colours use \mathcolor)
		if _, _, err := p.readOptArg(); err != nil {
			return err
		}
		if _, err := p.readArg(); err != nil {
			return err
		}
		p.colors = append(p.colors, colorEntry{tok: -1, outer: p.tok(), group: p.depth})
		l.add(&noad{kind: whatsitItem, tok: -1})
		return nil
	case "stackrel", "overset", "underset":
		return p.stack(l, name)
	case "widehat", "widetilde":
		return p.wideAccent(l, name)
	case "dfrac", "tfrac": // \genfrac{}{}{}{0 or 1}
		st := styleD
		if name == "tfrac" {
			st = styleT
		}
		return p.fraction(l, defaultCode, delimiter{}, delimiter{}, &st)
	case "binom":
		lp, _ := delcodeOf('(')
		rp, _ := delcodeOf(')')
		return p.fraction(l, 0, lp, rp, nil)
	case "sqrt":
		return p.sqrt(l)
	case "left":
		return p.leftRight(l)
	case "_":
		// \ifmmode\nfss@text{\textunderscore}: OT1's \textunderscore,
		// \kern.06em \vbox{\hrule width .3em}, in the text font of the
		// style's size
		tok := p.tok()
		var choice [4][]*noad
		for i := range choice {
			em := e.fonts[famOperators][choiceSizes[i]].Param(6)
			bar := vpack([]*node{{kind: ruleNode, width: scaleDecimal(em, "0.3"), height: hruleDefault, tok: tok}})
			b := hpack([]*node{newKern(scaleDecimal(em, "0.06")), bar}, 0, false)
			choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: b}}}
		}
		p.addGroup(l, []*noad{{kind: choiceNoad, choice: choice}})
		return nil
	case "boldmath", "unboldmath":
		// \@nomath: a warning, and the math version changes only for
		// the next formula (the golden's \boldmath formulas keep
		// their normal fonts)
		e.warn("Command \\%s invalid in math mode", name)
		return nil
	case "limits", "nolimits", "displaylimits":
		t := l.tail()
		if t == nil || t.kind != opNoad {
			e.recover("limit controls must follow a math operator")
			return nil
		}
		t.limits = map[string]uint8{"limits": limitsOn, "nolimits": limitsOff, "displaylimits": limitsNormal}[name]
		return nil
	case "overline", "underline":
		f, err := p.scanMath()
		if err != nil {
			return err
		}
		k := overNoad
		if name == "underline" {
			k = underNoad
		}
		l.add(&noad{kind: k, nucleus: f, tok: p.tok()})
		return nil
	case "operatorname":
		star := false
		if t, ok := p.peek(); ok && t.kind == tkChar && t.c == '*' {
			p.next()
			star = true
		}
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		return p.operatorName(l, arg, star, true)
	case "smash":
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		return p.smash(l, arg)
	case "hfill", "hfil":
		order := fillOrder
		if name == "hfil" {
			order = filOrder
		}
		l.add(glueFil(order))
		return nil
	case "mkern", "mskip", "kern", "hskip", "hspace", "quad", "qquad", "enspace", " ", "enskip":
		return p.space(l, name)
	case "boldsymbol", "pmb":
		if name == "pmb" {
			return e.unsupported(`\pmb`)
		}
		arg, err := p.readArg()
		if err != nil {
			return err
		}
		return p.boldsymbol(l, arg)
	case "{", "}":
		// \{ \} are \lbrace \rbrace
		return p.command(l, map[string]string{"{": "lbrace", "}": "rbrace"}[name])
	case "|":
		return p.command(l, "Vert")
	case "nonumber", "notag", "relax", "m@th", "nobreak", "allowbreak", "/":
		return nil
	case "", "@":
		return e.unsupported(`\` + name)
	}
	if len(name) == 1 && !isLetter(name[0]) && !strings.Contains(definedSymbols, name) {
		// a control symbol LaTeX does not define (\1, \*, …)
		e.recover(`undefined control sequence \` + name)
		return nil
	}
	if isUndefined(name) {
		e.recover(`undefined control sequence \` + name)
		return nil
	}
	if to, ok := alias(name); ok && p.budget >= 0 {
		p.insert(token{kind: tkCS, s: to})
		return nil
	}
	return e.unsupported(`\` + name)
}

// definedSymbols are the control symbols LaTeX defines (most are text
// accents or spacing); the others are undefined.
const definedSymbols = ",;:!><{}|%&#$_\\/-'`^~\"=.@ ()[]+"

// charGiven reports a \chardef'd character (\% is \char"25): in math
// it acts as the character with its mathcode.
func charGiven(name string) (rune, bool) {
	m := meanings[name]
	if !strings.HasPrefix(m, `\char"`) {
		return 0, false
	}
	v, err := strconv.ParseInt(m[len(`\char"`):], 16, 32)
	if err != nil || v >= 128 {
		return 0, false
	}
	return rune(v), true
}

// isUndefined reports whether LaTeX, with the reference's packages,
// leaves a command undefined (symgen asked it about every command in the
// datasets); pdflatex then drops it and goes on.
func isUndefined(name string) bool { return meanings[name] == "undefined" }

// oldFonts are the LaTeX 2.09 font switches, which in math set the
// family for the rest of the group (\@fontswitch).
var oldFonts = map[string]int{"rm": famOperators, "bf": famBF, "it": famIT, "cal": famSymbols, "mit": famLetters, "sf": famSF, "tt": famTT}

// parseTokens parses a macro argument as a group's content (the LaTeX
// macros set their arguments inside \begingroup … \endgroup or braces):
// a group the argument leaves open, such as the one "Missing { inserted"
// opens, is closed at its end with "Missing } inserted", as TeX's
// off_save closes it.
func (p *parser) parseTokens(ts []token) ([]*noad, error) {
	if p.budget < 0 {
		return nil, p.e.unsupported("expansion too long")
	}
	p.insert(token{kind: tkArgEnd})
	p.insert(ts...)
	inner, end, err := p.parseList()
	if err != nil {
		return nil, err
	}
	if end != endArg {
		return nil, p.e.fatal("unbalanced group")
	}
	return inner.finish(), nil
}

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
		l.add(&noad{kind: accentNoad, nucleus: field{kind: subMlist}, accFam: fam, accC: c, tok: tok})
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
	l.add(&noad{kind: accentNoad, nucleus: f, accFam: fam, accC: c, tok: tok})
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

func (p *parser) radical(l *list, d delimiter) error {
	tok := p.tok()
	f, err := p.scanMath()
	if err != nil {
		return err
	}
	d.tok = tok
	l.add(&noad{kind: radicalNoad, nucleus: f, delim: d, tok: tok})
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
	_, n, _, d, err := p.twoArgs()
	if err != nil {
		return err
	}
	left.tok, right.tok = tok, tok
	fr := &noad{kind: fractionNoad, num: n, den: d, thickness: thickness, left: left, right: right, tok: tok}
	if st == nil {
		p.addGroup(l, []*noad{fr})
		return nil
	}
	// \genfrac: {\style{…\over…}}
	inner := &noad{kind: ordNoad, nucleus: field{kind: subMlist, list: []*noad{fr}}}
	p.addGroup(l, []*noad{{kind: styleNoad, style: *st}, inner})
	return nil
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
		rad := &noad{kind: radicalNoad, nucleus: groupField(items), delim: d, tok: tok}
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
	p.addGroup(l, []*noad{{kind: choiceNoad, choice: choice}})
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

func groupNoad(items []*noad) *noad {
	f := groupField(items)
	return &noad{kind: ordNoad, nucleus: f}
}

// choiceSizes is the font size of each branch of a \mathchoice (display,
// text, script, scriptscript), as amstext's \text and \nfss@text use it.
var choiceSizes = [4]int{textSize, textSize, scriptSize, scriptScriptSize}

// textFamilies are the text fonts of the text commands (OT1 Computer
// Modern), by math family of the same font.
var textFamilies = map[string]int{"textbf": famBF, "textit": famIT, "textsf": famSF, "texttt": famTT}

// text handles amstext's \text (a box per style at 12, 12, 8 and 6 pt)
// and \mbox/\hbox (12 pt): characters with the font's kerns and
// ligatures, spaces as the font's interword glue. Text commands, math
// shifts and anything but characters inside are not modelled.
func (p *parser) text(l *list, name string) error {
	arg, err := p.readArg()
	if err != nil {
		return err
	}
	fam := famOperators
	if f, ok := textFamilies[name]; ok {
		fam = f
	}
	sizes := choiceSizes
	if name == "mbox" || name == "hbox" {
		sizes = [4]int{textSize, textSize, textSize, textSize}
	}
	var choice [4][]*noad
	for i := range choice {
		b, err := p.textBox(arg, p.e.fonts[fam][sizes[i]])
		if err != nil {
			return err
		}
		choice[i] = []*noad{{kind: ordNoad, nucleus: field{kind: subBox, box: b}}}
	}
	p.addGroup(l, []*noad{{kind: choiceNoad, choice: choice}})
	return nil
}

// textBox sets text in horizontal mode: characters with the font's
// kerns and ligatures, spaces as its interword glue, \mathcolor (which
// works in text mode after an error), groups. CJK ideographs are set as
// 1em boxes: the reference's CJK fonts are not reproduced, so such a
// layout is marked approximate.
func (p *parser) textBox(ts []token, f *mathFont) (*node, error) {
	var list []*node
	var chars []int
	var toks []int32
	flush := func() {
		for i := 0; i < len(chars); i++ {
			c := chars[i]
			if i+1 < len(chars) && toks[i] == toks[i+1] {
				op, rem, kern, ok := f.LigKernStep(c, chars[i+1])
				switch {
				case ok && op >= 128:
					list = append(list, newChar(f, c, toks[i]), newKern(kern))
					continue
				case ok && op == 0:
					chars[i+1] = rem
					continue
				}
			}
			list = append(list, newChar(f, c, toks[i]))
		}
		chars, toks = chars[:0], toks[:0]
	}
	var walk func(ts []token) error
	walk = func(ts []token) error {
		for i := 0; i < len(ts); i++ {
			t := ts[i]
			switch {
			case t.kind == tkChar && t.c < 128 && f.exists(int(t.c)):
				chars = append(chars, int(t.c))
				toks = append(toks, p.tok())
			case t.kind == tkChar && isCJK(t.c):
				flush()
				list = append(list, cjkGlyph(f, p.tok()))
				p.e.approximate("CJK glyphs set as 1em boxes")
			case t.kind == tkSpace || t.kind == tkActive || t.kind == tkCS && t.s == " ":
				flush()
				list = append(list, newGlue(f.Param(2), f.Param(3), f.Param(4)))
			case t.kind == tkBegin || t.kind == tkEnd:
				// grouping only; a \mathcolor boundary stops ligatures
			case t.kind == tkCS && t.s == "mathcolor":
				flush()
				// \mathcolor[RGB]{r,g,b}{body}
				rest := ts[i+1:]
				sub := &parser{e: p.e, in: [][]token{rest}, fam: -1, budget: p.budget}
				tok, body, err := sub.readMathColor()
				if err != nil {
					return err
				}
				consumed := len(rest) - remaining(sub)
				p.pushColor(tok)
				err = walk(body)
				flush()
				p.popColor()
				if err != nil {
					return err
				}
				i += consumed
				// \mathcolor is an error in text mode but runs on: its
				// scan for scripts (\peek_remove_filler) eats the spaces
				// after the body.
				p.e.recover(`\mathcolor allowed only in math mode`)
				for i+1 < len(ts) && ts[i+1].kind == tkSpace {
					i++
				}
			case t.kind == tkCS && (textSymbols[t.s] != 0 || t.s == "l"):
				// ot1enc.def's text symbols; \l is {\@xxxii l}, the
				// stroke and l in a group of their own
				flush()
				if t.s == "l" {
					chars = append(chars, 32, 'l')
					toks = append(toks, p.tok(), p.tok())
				} else {
					chars = append(chars, int(textSymbols[t.s]))
					toks = append(toks, p.tok())
				}
				flush()
			case t.kind == tkCS || t.kind == tkSup || t.kind == tkSub:
				// A math command in text: TeX inserts the missing $ and
				// sets the rest as an inline formula.
				flush()
				p.e.recover("missing $ inserted")
				p.e.approximate("math in text mode after a missing $")
				items, err := p.parseTokens(ts[i:])
				if err != nil {
					return err
				}
				list = append(list, p.e.mlistToHlist(items, styleT, false)...)
				return nil
			default:
				return p.e.unsupported("text content " + tokString([]token{t}))
			}
		}
		return nil
	}
	if err := walk(ts); err != nil {
		return nil, err
	}
	flush()
	return hpack(list, 0, false), nil
}

// remaining counts the tokens a parser has not read.
func remaining(p *parser) int {
	n := 0
	for _, s := range p.in {
		n += len(s)
	}
	return n
}

func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// cjkGlyph is an approximate CJK glyph: a 1em square box of ink on the
// baseline, 0.88em high and 0.12em deep.
func cjkGlyph(f *mathFont, tok int32) *node {
	em := f.Param(6)
	return &node{kind: ruleNode, width: em, height: scaleDecimal(em, "0.88"), depth: scaleDecimal(em, "0.12"), tok: tok, cjk: true}
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
	n := &noad{kind: fractionNoad, num: l.items, thickness: defaultCode, tok: p.tok()}
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
	list := append([]*noad{{kind: leftNoad, delim: ld}}, items...)
	list = append(list, &noad{kind: rightNoad, delim: rd})
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
		{kind: leftNoad, delim: d},
		{kind: vcenterNoad, nucleus: field{kind: subBox, box: vc}},
		{kind: rightNoad},
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
	l.add(&noad{kind: choiceNoad, choice: choice})
	return nil
}

// boldsymbol handles amsbsy's \boldsymbol: the argument in the bold math
// version, boxed per style, with the class of a lone Bin or Rel.
func (p *parser) boldsymbol(l *list, arg []token) error {
	var choice [4][]*noad
	class := ordNoad
	saved := p.e.fonts
	p.e.fonts = &boldFonts
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
	n := &noad{kind: class, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, choice: choice}}}}
	l.add(n)
	return nil
}

// space handles explicit spacing commands.
func (p *parser) space(l *list, name string) error {
	em := p.e.fonts[famOperators][textSize].Param(6)
	switch name {
	case " ":
		if p.sizedAt != 0 {
			return p.e.unsupported(`control space after a size command`)
		}
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
	l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, choice: choice}}}})
	return nil
}

// glueFil is \hfil (order 1) or \hfill (order 2) glue.
func glueFil(order uint8) *noad {
	return &noad{kind: glueItem, glue: &node{kind: glueNode, stretch: Unity, stretchOrder: order}}
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
	l.add(&noad{kind: choiceNoad, choice: choice})
	return nil
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
	l.add(&noad{kind: relNoad, nucleus: field{kind: subMlist, list: []*noad{{kind: choiceNoad, choice: choice}}}})
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
	l.add(&noad{kind: choiceNoad, choice: choice})
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

// LaTeX's \fbox parameters.
var (
	fboxSep  = Scaled(3 << 16)
	fboxRule = Scaled(26214) // 0.4pt
	// hruleDefault is an \hrule's height when none is given (0.4pt).
	hruleDefault = Scaled(26214)
)

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
