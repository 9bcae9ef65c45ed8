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
	if name == "verb" {
		// alone in a \mathcolor body it is coloredVerb (verb.go);
		// elsewhere its delimiter is a character of the source or a
		// token read before it changed the catcodes: not modelled
		return e.unsupported(`\verb other than alone in a \mathcolor body`)
	}
	if name == "mathcolor" {
		// the command of nearly every token of a coloured formula: none
		// of the tables below holds it, so it skips their lookups
		return p.mathColor(l)
	}
	if textFontDependent[name] && !(name == "begin" && p.sizeName() == "small") {
		if _, normal := p.textFont(); !normal {
			// the size command's text font, strut and (in an array's
			// cells, new formulas) math fonts are not modelled here
			return e.unsupported(`\` + name + ` after a size command`)
		}
	}
	if name == "textcircled" {
		if c, ok := p.circledArg(); ok {
			p.circled(l, c)
			return nil
		}
	}
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
	case "buildrel":
		return p.buildrel()
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
		l.add(&noad{kind: choiceNoad, noadParts: &noadParts{choice: choice}})
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
		l.add(&noad{kind: ordNoad, nucleus: field{kind: subBox, box: p.e.fbox(inner, p.tok())}})
		return nil
	case "tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE", "huge", "Huge":
		// size commands are invalid in math: LaTeX warns (a font
		// warning, not an error: the golden's runs log none), and the
		// math fonts stay as they are, but \selectfont still changes the
		// current text font (\@setfontsize), which control space and em
		// units measure, to the end of the group
		e.warn("Command \\%s invalid in math mode", name)
		if e.inline && name != "normalsize" {
			// the 10 pt article's sizes (size10.clo) are not modelled
			return e.unsupported(`\` + name + ` in a 10 pt article`)
		}
		p.sizes = append(p.sizes, sizeChange{depth: p.depth, name: name})
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
		p.addGroup(l, []*noad{{kind: choiceNoad, noadParts: &noadParts{choice: choice}}})
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

// textFontDependent are the commands whose layout depends on the current
// text font, its size or its strut, which a size command changes.
var textFontDependent = map[string]bool{
	"text": true, "textrm": true, "textnormal": true, "textup": true, "textmd": true, "mbox": true,
	"hbox": true, "textbf": true, "textit": true, "textsf": true, "texttt": true, "L": true, "AA": true,
	"raisebox": true, "symbol": true, "_": true, "makebox": true, "fbox": true, "boxed": true,
	"above": true, "abovewithdelims": true, "cfrac": true, "strut": true, "begin": true,
	"textcircled": true, "d": true, "b": true, "c": true,
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
		p.nextFrame, p.nextParent, p.nextDen = frameOther, nil, nil
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

func groupNoad(items []*noad) *noad {
	f := groupField(items)
	return &noad{kind: ordNoad, nucleus: f}
}

// LaTeX's \fbox parameters.
var (
	fboxSep  = Scaled(3 << 16)
	fboxRule = Scaled(26214) // 0.4pt
	// hruleDefault is an \hrule's height when none is given (0.4pt).
	hruleDefault = Scaled(26214)
)
