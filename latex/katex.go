package latex

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reproduces the reference CDM's first normalization step: the
// im2markup "normalize" mode of a patched KaTeX 0.6 parser, which parses a
// formula and prints it back as space-separated tokens (docs/cdm.md §3). It is
// our own parser, written from the specification and from the behaviour
// recorded in the tokenizer goldens: the same token grammar, the same
// functions with their argument counts and greediness, the same
// environments, and the same failures, since a failure makes the reference
// fall back to the raw string.

// errKaTeX marks a formula the reference's normalizer rejects.
var errKaTeX = errors.New("KaTeX normalizer fails")

// kfail is the parser's failure, raised by fail as a panic and returned
// by katexRender as an error wrapping errKaTeX. Its message is formatted
// only when read: callers mostly need only to know that a formula failed,
// and a corpus of tens of millions of labels has millions that do.
type kfail struct {
	format string
	args   []any
}

func (f kfail) Error() string { return errKaTeX.Error() + ": " + fmt.Sprintf(f.format, f.args...) }

func (f kfail) Unwrap() error { return errKaTeX }

func fail(format string, args ...any) { panic(kfail{format, args}) }

// kfunc describes a KaTeX function: its argument counts, argument types
// and greediness, and how it builds a node.
type kfunc struct {
	args, optArgs int
	argTypes      []string // per argument: "", "text", "size", "color", "original"
	greediness    int
	build         func(name string, args []*knode) *knode // nil: only parsed in parseImplicitGroup
}

// knode is a parse node; kind is KaTeX's group type.
type knode struct {
	kind  string
	text  string   // symbol value, font name, accent, delimiter, command
	body  []*knode // ordgroup, text, phantom, sizing, styling, leftright
	a, b  *knode   // sup/sub base: a; genfrac numer/denom; sqrt index/body; accent base
	sup   *knode
	sub   *knode
	flag  bool // genfrac: bar line; op: limits; op: symbol in sym
	sym   bool
	arr   *karray // array: its cells and column alignments
	left  string  // leftright, delimsizing: delimiter; rule: width
	right string  // leftright: delimiter; rule: height
}

// karray is an array node's grid, kept apart from knode so that the
// symbols, most of the nodes a parse makes, stay small.
type karray struct {
	rows   [][]*knode // cells
	cols   []string   // column alignments ("" for none)
	hasCol bool
}

var katexFuncs = map[string]*kfunc{}

func defFunc(names []string, f kfunc) {
	if f.greediness == 0 {
		f.greediness = 1
	}
	for _, n := range names {
		ff := f
		katexFuncs[n] = &ff
	}
}

func words(s string) []string { return strings.Fields(s) }

var katexDelims = set("(", ")", "[", `\lbrack`, "]", `\rbrack`, `\{`, `\lbrace`, `\}`, `\rbrace`, `\lfloor`, `\rfloor`, `\lceil`, `\rceil`,
	"<", ">", `\langle`, `\rangle`, `\lt`, `\gt`, `\lvert`, `\rvert`, `\lVert`, `\rVert`, `\lgroup`, `\rgroup`, `\lmoustache`, `\rmoustache`,
	"/", `\backslash`, "|", `\vert`, `\|`, `\Vert`, `\uparrow`, `\Uparrow`, `\downarrow`, `\Downarrow`, `\updownarrow`, `\Updownarrow`, ".")

var (
	sizeFuncs  = set(words(`\tiny \scriptsize \footnotesize \small \normalsize \large \Large \LARGE \huge \Huge \textrm \rm \cal \bf \siptstyle \boldmath \it`)...)
	styleFuncs = set(words(`\displaystyle \textstyle \scriptstyle \scriptscriptstyle`)...)
	fontAlias  = map[string]string{`\Bbb`: `\mathbb`, `\bold`: `\mathbf`, `\frak`: `\mathfrak`}
)

func ordBody(n *knode) []*knode {
	if n != nil && n.kind == "ordgroup" {
		return n.body
	}
	return []*knode{n}
}

func init() {
	defFunc([]string{`\sqrt`}, kfunc{args: 1, optArgs: 1, build: func(_ string, a []*knode) *knode {
		return &knode{kind: "sqrt", a: a[0], b: a[1]}
	}})
	defFunc(words(`\text \mbox \hbox \vbox`), kfunc{args: 1, argTypes: []string{"text"}, greediness: 2, build: func(_ string, a []*knode) *knode {
		return &knode{kind: "text", body: ordBody(a[0])}
	}})
	defFunc([]string{`\color`}, kfunc{args: 2, greediness: 3, argTypes: []string{"color", "original"}, build: func(string, []*knode) *knode {
		return &knode{kind: "color"}
	}})
	defFunc([]string{`\overline`}, kfunc{args: 1, build: func(_ string, a []*knode) *knode { return &knode{kind: "overline", a: a[0]} }})
	defFunc([]string{`\underline`}, kfunc{args: 1, build: func(_ string, a []*knode) *knode { return &knode{kind: "underline", a: a[0]} }})
	defFunc([]string{`\rule`}, kfunc{args: 2, optArgs: 1, argTypes: []string{"size", "size", "size"}, build: func(_ string, a []*knode) *knode {
		return &knode{kind: "rule", left: a[1].text, right: a[2].text}
	}})
	defFunc([]string{`\KaTeX`}, kfunc{build: func(string, []*knode) *knode { return &knode{kind: "katex"} }})
	defFunc([]string{`\phantom`}, kfunc{args: 1, build: func(_ string, a []*knode) *knode { return &knode{kind: "phantom", body: ordBody(a[0])} }})
	defFunc(words(`\blue \orange \pink \red \green \gray \purple \blueA \blueB \blueC \blueD \blueE \tealA \tealB \tealC \tealD \tealE
		\greenA \greenB \greenC \greenD \greenE \goldA \goldB \goldC \goldD \goldE \redA \redB \redC \redD \redE \maroonA \maroonB \maroonC
		\maroonD \maroonE \purpleA \purpleB \purpleC \purpleD \purpleE \mintA \mintB \mintC \grayA \grayB \grayC \grayD \grayE \grayF \grayG
		\grayH \grayI \kaBlue \kaGreen`), kfunc{args: 1, greediness: 3, build: func(string, []*knode) *knode { return &knode{kind: "color"} }})
	op := func(limits, symbol bool) func(string, []*knode) *knode {
		return func(name string, _ []*knode) *knode { return &knode{kind: "op", text: name, flag: limits, sym: symbol} }
	}
	defFunc(words(`\arcsin \arccos \arctan \arg \cos \cosh \cot \coth \csc \deg \dim \exp \hom \ker \lg \ln \log \sec \sin \sinh \tan \tanh`), kfunc{build: op(false, false)})
	defFunc(words(`\det \gcd \inf \lim \liminf \limsup \max \min \Pr \sup`), kfunc{build: op(true, false)})
	defFunc(words(`\int \iint \iiint \oint`), kfunc{build: op(false, true)})
	defFunc(words(`\coprod \bigvee \bigwedge \biguplus \bigcap \bigcup \intop \prod \sum \bigotimes \bigoplus \bigodot \bigsqcup \smallint`), kfunc{build: op(true, true)})
	defFunc(words(`\dfrac \frac \tfrac \dbinom \binom \tbinom`), kfunc{args: 2, greediness: 2, build: func(name string, a []*knode) *knode {
		return &knode{kind: "genfrac", a: a[0], b: a[1], flag: strings.HasSuffix(name, "frac")}
	}})
	defFunc(words(`\llap \rlap`), kfunc{args: 1, build: func(name string, a []*knode) *knode { return &knode{kind: name[1:], a: a[0]} }})
	defFunc(words(`\bigl \Bigl \biggl \Biggl \bigr \Bigr \biggr \Biggr \bigm \Bigm \biggm \Biggm \big \Big \bigg \Bigg \left \right`), kfunc{args: 1, build: func(name string, a []*knode) *knode {
		d := a[0]
		if d == nil || d.kind == "ordgroup" || !katexDelims[d.text] {
			fail("invalid delimiter after %s", name)
		}
		if name == `\left` || name == `\right` {
			return &knode{kind: "leftright-delim", text: d.text}
		}
		return &knode{kind: "delimsizing", text: name, left: d.text}
	}})
	defFunc(words(`\tiny \scriptsize \footnotesize \small \normalsize \large \Large \LARGE \huge \Huge \textrm \rm \cal \bf \siptstyle \boldmath \it`), kfunc{})
	defFunc(words(`\displaystyle \textstyle \scriptstyle \scriptscriptstyle`), kfunc{})
	defFunc(words(`\mathrm \mathit \mathbf \mathop \stackrel \mathbb \mathcal \mathfrak \mathscr \mathsf \mathtt \label \comment \hspace \vspace
		\atop \fbox \tag \makebox \raisebox \framebox \circle \line \put \vphantom \textup \noalign \Bbb \bold \frak`), kfunc{args: 1, greediness: 2, build: func(name string, a []*knode) *knode {
		if al, ok := fontAlias[name]; ok {
			name = al
		}
		return &knode{kind: "font", text: name[1:], a: a[0]}
	}})
	defFunc(words(`\acute \grave \ddot \tilde \bar \breve \check \hat \vec \dot`), kfunc{args: 1, build: func(name string, a []*knode) *knode {
		return &knode{kind: "accent", text: name, a: a[0]}
	}})
	defFunc(words(`\over \choose`), kfunc{build: func(name string, _ []*knode) *knode {
		with := `\frac`
		if name == `\choose` {
			with = `\binom`
		}
		return &knode{kind: "infix", text: with}
	}})
	defFunc([]string{`\\`, `\cr`}, kfunc{optArgs: 1, argTypes: []string{"size"}, build: func(string, []*knode) *knode { return &knode{kind: "cr"} }})
	defFunc(words(`\begin \end`), kfunc{args: 1, argTypes: []string{"text"}, build: func(name string, a []*knode) *knode {
		g := a[0]
		if g == nil || g.kind != "ordgroup" {
			fail("invalid environment name")
		}
		var b strings.Builder
		for _, n := range g.body {
			if n != nil {
				b.WriteString(n.text)
			}
		}
		return &knode{kind: "environment", text: b.String()}
	}})
}

// ktoken is a lexer token; pos is the offset after it.
type ktoken struct {
	text string
	pos  int
	size string // for size tokens: "number unit"
}

type kparser struct {
	in   string
	pos  int
	mode string
	next ktoken
	// keepPrimes merges primes with a following superscript (x''^{2} as
	// x^{\prime\prime 2}) instead of letting the superscript replace
	// them, as the reference does. Used by the tokens level only.
	keepPrimes bool
	// rec, when set, collects every consumed token as the reference's
	// patched parser builds global_str (the tabular tokenizer's output).
	rec *strings.Builder
	// stack collects the atoms of the expressions being parsed, nested
	// ones above their parents', so that each expression's list is
	// allocated once at its final size.
	stack []*knode
	// arena holds the parse's symbol nodes (arena.go), if not nil
	arena *karena
}

func isLetterASCII(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// lexAt returns the token at pos in the given mode, as KaTeX 0.6's lexer:
// whitespace runs ([ \r\n\t]) are skipped in math mode and become one " "
// in text mode; "--" and "---" are single tokens; control words are a
// backslash and letters, control symbols a backslash and one character.
func (p *kparser) lexAt(pos int, mode string) ktoken {
	in := p.in
	if pos >= len(in) {
		return ktoken{text: "EOF", pos: pos}
	}
	isWS := func(c byte) bool { return c == ' ' || c == '\r' || c == '\n' || c == '\t' }
	if isWS(in[pos]) {
		end := pos
		for end < len(in) && isWS(in[end]) {
			end++
		}
		if mode == "math" {
			return p.lexAt(end, mode)
		}
		return ktoken{text: " ", pos: end}
	}
	if strings.HasPrefix(in[pos:], "---") {
		return ktoken{text: "---", pos: pos + 3}
	}
	if strings.HasPrefix(in[pos:], "--") {
		return ktoken{text: "--", pos: pos + 2}
	}
	if in[pos] == '\\' {
		if pos+1 < len(in) && isLetterASCII(in[pos+1]) {
			end := pos + 1
			for end < len(in) && isLetterASCII(in[end]) {
				end++
			}
			return ktoken{text: in[pos:end], pos: end}
		}
		r, n := utf8.DecodeRuneInString(in[pos+1:])
		if n == 0 || r > 0xFFFF || r >= 0xD800 && r <= 0xDFFF {
			fail("unexpected character after backslash")
		}
		return ktoken{text: in[pos : pos+1+n], pos: pos + 1 + n}
	}
	r, n := utf8.DecodeRuneInString(in[pos:])
	if r == utf8.RuneError && n <= 1 || !lexable(r) {
		fail("unexpected character %q", r)
	}
	return ktoken{text: in[pos : pos+n], pos: pos + n}
}

// lexable is the single-codepoint class of the lexer:
// [!-\[\]-\u2027\u202A-\uD7FF\uF900-\uFFFF] or an astral character.
func lexable(r rune) bool {
	switch {
	case r >= '!' && r <= '[', r >= ']' && r <= 0x2027, r >= 0x202A && r <= 0xD7FF, r >= 0xF900 && r <= 0xFFFF:
		return true
	case r > 0xFFFF && r <= utf8.MaxRune:
		return true
	}
	return false
}

var reSize = regexp.MustCompile(`^(-?)\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]{2})`)
var reCSSColor = regexp.MustCompile(`(?i)^(?:#[a-z0-9]+|[a-z]+)`)

func (p *kparser) lex(pos int, mode string) ktoken {
	switch mode {
	case "size":
		ws := len(p.in[pos:]) - len(strings.TrimLeft(p.in[pos:], " \t\r\n\f\v"))
		pos += ws
		m := reSize.FindStringSubmatch(p.in[pos:])
		if m == nil {
			fail("invalid size")
		}
		num, _ := strconv.ParseFloat(m[1]+m[2], 64)
		return ktoken{text: m[0], pos: pos + len(m[0]), size: jsNumber(num) + " " + m[3]}
	case "color":
		ws := len(p.in[pos:]) - len(strings.TrimLeft(p.in[pos:], " \t\r\n\f\v"))
		pos += ws
		m := reCSSColor.FindString(p.in[pos:])
		if m == "" {
			fail("invalid color")
		}
		return ktoken{text: m, pos: pos + len(m)}
	}
	return p.lexAt(pos, mode)
}

// jsNumber prints a float as JavaScript's String(number) does for the
// values a size can take.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func (p *kparser) consume() {
	p.pos = p.next.pos
	if p.rec != nil {
		p.rec.WriteString(" ")
		p.rec.WriteString(p.next.text)
	}
	p.next = p.lex(p.pos, p.mode)
}

func (p *kparser) expect(text string, consume bool) {
	if p.next.text != text {
		fail("expected %q, got %q", text, p.next.text)
	}
	if consume {
		p.consume()
	}
}

var endOfExpression = set("}", `\end`, `\right`, "&", `\\`, `\cr`)

func (p *kparser) parseExpression(breakOnInfix bool, breakOn string) []*knode {
	mark := len(p.stack)
	for {
		lex := p.next
		pos := p.pos
		if endOfExpression[lex.text] || breakOn != "" && lex.text == breakOn {
			break
		}
		atom := p.parseAtom()
		if atom == nil {
			break
		}
		if breakOnInfix && atom.kind == "infix" {
			p.pos, p.next = pos, lex
			break
		}
		p.stack = append(p.stack, atom)
	}
	body := append([]*knode(nil), p.stack[mark:]...)
	clear(p.stack[mark:])
	p.stack = p.stack[:mark]
	return p.handleInfix(body)
}

func (p *kparser) handleInfix(body []*knode) []*knode {
	over := -1
	for i, n := range body {
		if n != nil && n.kind == "infix" {
			if over != -1 {
				fail("only one infix operator per group")
			}
			over = i
		}
	}
	if over == -1 {
		return body
	}
	group := func(b []*knode) *knode {
		if len(b) == 1 && b[0] != nil && b[0].kind == "ordgroup" {
			return b[0]
		}
		return &knode{kind: "ordgroup", body: b}
	}
	num, den := group(body[:over]), group(body[over+1:])
	return []*knode{katexFuncs[body[over].text].build(body[over].text, []*knode{num, den})}
}

// funcOrArg is KaTeX's ParseFuncOrArgument.
type funcOrArg struct {
	node   *knode
	fn     string
	isFunc bool
}

func (p *kparser) handleSupSub(name string) *knode {
	p.consume()
	g := p.parseGroup()
	switch {
	case g == nil:
		return nil // the patched parser accepts a missing script
	case g.isFunc:
		if katexFuncs[g.fn].greediness > 1 {
			return p.parseFunction(g)
		}
		fail("got function %s with no arguments as %s", g.fn, name)
	}
	return g.node
}

func (p *kparser) parseAtom() *knode {
	base := p.parseImplicitGroup()
	if p.mode == "text" {
		return base
	}
	var sup, sub *knode
	hasSup, hasSub := false, false
	for {
		switch p.next.text {
		case `\limits`, `\nolimits`:
			if base == nil || base.kind != "op" {
				fail("limit controls must follow a math operator")
			}
			base.flag = p.next.text == `\limits`
			p.consume()
			continue
		case "^":
			primes := sup
			sup = p.handleSupSub("superscript")
			hasSup = sup != nil
			if p.keepPrimes && primes != nil && primes.kind == "ordgroup" && len(primes.body) > 0 && primes.body[0].text == `\prime` && sup != nil {
				sup = &knode{kind: "ordgroup", body: append(append([]*knode(nil), primes.body...), ordBody(sup)...)}
			}
			continue
		case "_":
			sub = p.handleSupSub("subscript")
			hasSub = sub != nil
			continue
		case "'":
			var primes []*knode
			for p.next.text == "'" {
				primes = append(primes, &knode{kind: "textord", text: `\prime`})
				p.consume()
			}
			sup, hasSup = &knode{kind: "ordgroup", body: primes}, true
			continue
		}
		break
	}
	if hasSup || hasSub {
		return &knode{kind: "supsub", a: base, sup: sup, sub: sub}
	}
	return base
}

func (p *kparser) parseImplicitGroup() *knode {
	start := p.parseSymbol()
	if start == nil {
		return p.parseFunction(nil)
	}
	if !start.isFunc {
		if t := start.node.text; t == `\matrix` || t == `\pmatrix` || t == `\cases` {
			env := t[1:]
			p.expect("{", true)
			res := p.environment(env, nil)
			p.expect("}", true)
			return res
		}
		return start.node
	}
	fn := start.fn
	switch {
	case fn == `\left`:
		left := p.parseFunction(start)
		body := p.parseExpression(false, "")
		p.expect(`\right`, false)
		right := p.parseFunction(nil)
		return &knode{kind: "leftright", body: body, left: left.text, right: right.text}
	case fn == `\begin`:
		begin := p.parseFunction(start)
		env := begin.text
		p.recEnvName(env)
		spec, ok := katexEnvs[env]
		if !ok {
			fail("no such environment: %s", env)
		}
		var args []*knode
		if spec > 0 {
			args = p.parseArguments(`\begin{`+env+`}`, &kfunc{args: spec, greediness: 1})
		}
		res := p.environment(env, args)
		p.expect(`\end`, false)
		end := p.parseFunction(nil)
		p.recEnvName(env)
		if end.text != env {
			fail("mismatch: \\begin{%s} matched by \\end{%s}", env, end.text)
		}
		return res
	case sizeFuncs[fn]:
		return &knode{kind: "sizing", text: fn, body: p.parseExpression(false, "")}
	case styleFuncs[fn]:
		return &knode{kind: "styling", text: fn, body: p.parseExpression(true, "")}
	}
	return p.parseFunction(start)
}

// katexEnvs maps the supported environments to their argument counts.
var katexEnvs = map[string]int{"array": 1, "tabular": 1, "matrix": 0, "pmatrix": 0, "bmatrix": 0, "Bmatrix": 0, "vmatrix": 0, "Vmatrix": 0, "picture": 0, "cases": 0, "aligned": 0}

func (p *kparser) environment(env string, args []*knode) *knode {
	res := &knode{kind: "array", arr: &karray{}}
	switch env {
	case "array", "tabular":
		res.arr.hasCol = true
		for _, n := range ordBody(args[0]) {
			// KaTeX keeps a column whose text "lcr".indexOf finds.
			c := ""
			if n != nil && n.kind != "ordgroup" && strings.Contains("lcr", n.text) {
				c = n.text
			}
			res.arr.cols = append(res.arr.cols, c)
		}
		p.parseArray(res)
	case "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix":
		p.parseArray(res)
		delims := map[string][2]string{"pmatrix": {"(", ")"}, "bmatrix": {"[", "]"}, "Bmatrix": {`\{`, `\}`}, "vmatrix": {"|", "|"}, "Vmatrix": {`\Vert`, `\Vert`}}
		if d, ok := delims[env]; ok {
			return &knode{kind: "leftright", body: []*knode{res}, left: d[0], right: d[1]}
		}
	case "picture", "cases":
		res.arr.hasCol = true
		res.arr.cols = []string{"l", "l"}
		p.parseArray(res)
		return &knode{kind: "leftright", body: []*knode{res}, left: `\{`, right: "."}
	case "aligned":
		p.parseArray(res)
		numCols := 0
		for _, row := range res.arr.rows {
			for i := 1; i < len(row); i += 2 {
				row[i].body = append([]*knode{{kind: "ordgroup"}}, row[i].body...)
			}
			numCols = max(numCols, len(row))
		}
		res.arr.hasCol = true
		for i := 0; i < numCols; i++ {
			if i%2 == 1 {
				res.arr.cols = append(res.arr.cols, "l")
			} else {
				res.arr.cols = append(res.arr.cols, "r")
			}
		}
	}
	return res
}

func (p *kparser) parseArray(res *knode) {
	row := []*knode{}
	for {
		cell := p.parseExpression(false, "")
		row = append(row, &knode{kind: "ordgroup", body: cell})
		switch p.next.text {
		case "&":
			p.consume()
		case `\end`, "}":
			res.arr.rows = append(res.arr.rows, row)
			return
		case `\\`, `\cr`:
			p.parseFunction(nil)
			res.arr.rows = append(res.arr.rows, row)
			row = []*knode{}
		default:
			fail(`expected & or \\ or \end`)
		}
	}
}

func (p *kparser) parseFunction(base *funcOrArg) *knode {
	if base == nil {
		base = p.parseGroup()
	}
	if base == nil {
		return nil
	}
	if !base.isFunc {
		return base.node
	}
	f := katexFuncs[base.fn]
	args := p.parseArguments(base.fn, f)
	if f.build == nil {
		fail("function %s has no handler", base.fn)
	}
	return f.build(base.fn, args)
}

func (p *kparser) parseArguments(name string, f *kfunc) []*knode {
	total := f.args + f.optArgs
	var args []*knode
	for i := 0; i < total; i++ {
		argType := ""
		if i < len(f.argTypes) {
			argType = f.argTypes[i]
		}
		var arg *funcOrArg
		if i < f.optArgs {
			if argType != "" {
				arg = p.parseSpecialGroup(argType, true)
			} else {
				arg = p.parseOptionalGroup()
			}
			if arg == nil {
				args = append(args, nil)
				continue
			}
		} else {
			if argType != "" {
				arg = p.parseSpecialGroup(argType, false)
			} else {
				arg = p.parseGroup()
			}
			if arg == nil {
				fail("expected group after %s", name)
			}
		}
		var node *knode
		if arg.isFunc {
			if katexFuncs[arg.fn].greediness > f.greediness {
				node = p.parseFunction(arg)
			} // else: the patched parser passes no argument
		} else {
			node = arg.node
		}
		args = append(args, node)
	}
	return args
}

func (p *kparser) parseSpecialGroup(mode string, optional bool) *funcOrArg {
	outer := p.mode
	if mode == "original" {
		mode = outer
	}
	if mode == "color" || mode == "size" {
		if optional && p.next.text != "[" {
			return nil
		}
		p.mode = mode
		if optional {
			p.expect("[", true)
		} else {
			p.expect("{", true)
		}
		inner := p.next
		p.mode = outer
		p.consume()
		if optional {
			p.expect("]", true)
		} else {
			p.expect("}", true)
		}
		if mode == "size" {
			return p.argNode(knode{kind: "size", text: inner.size})
		}
		return p.argNode(knode{kind: "color", text: inner.text})
	}
	if mode == "text" {
		for p.pos < len(p.in) && strings.ContainsRune(" \t\r\n\f\v", rune(p.in[p.pos])) {
			p.pos++
		}
	}
	p.mode = mode
	p.next = p.lex(p.pos, mode)
	var res *funcOrArg
	if optional {
		res = p.parseOptionalGroup()
	} else {
		res = p.parseGroup()
	}
	p.mode = outer
	p.next = p.lex(p.pos, outer)
	return res
}

func (p *kparser) parseGroup() *funcOrArg {
	if p.next.text == "{" {
		p.consume()
		e := p.parseExpression(false, "")
		p.expect("}", true)
		return p.argNode(knode{kind: "ordgroup", body: e})
	}
	return p.parseSymbol()
}

func (p *kparser) parseOptionalGroup() *funcOrArg {
	if p.next.text != "[" {
		return nil
	}
	p.consume()
	e := p.parseExpression(false, "]")
	p.expect("]", true)
	return p.argNode(knode{kind: "ordgroup", body: e})
}

// parseSymbol returns the next token as a function name or a symbol. The
// patched parser turns any unknown token into a mathord instead of failing.
func (p *kparser) parseSymbol() *funcOrArg {
	t := p.next.text
	if _, ok := katexFuncs[t]; ok {
		p.consume()
		return &funcOrArg{fn: t, isFunc: true}
	}
	if t == "EOF" || t == "{" {
		return nil
	}
	p.consume()
	return p.argNode(knode{kind: symbolGroup(p.mode, t), text: t})
}

// symbolGroup is the group KaTeX gives a token in a mode: spacing,
// textord for text-mode letters, mathord for math letters, Greek lowercase
// and anything unknown, and a non-mathord class for the rest of its table.
func symbolGroup(mode, t string) string {
	if mode == "text" {
		switch {
		case t == " " || t == `\ ` || t == "~":
			return "spacing"
		case len(t) == 1 && isLetterASCII(t[0]):
			return "textord"
		}
		return "mathord"
	}
	switch t {
	case `\ `, "~", `\,`, `\:`, `\;`, `\!`, `\quad`, `\qquad`, `\enspace`, `\space`:
		return "spacing"
	}
	if strings.HasPrefix(t, `\`) && katexNonMathord[t] {
		return "textord"
	}
	return "mathord"
}

// renderer prints a parse tree back as im2markup's normalize mode does.
type renderer struct {
	b strings.Builder
}

func (r *renderer) w(s string) { r.b.WriteString(s) }

func (r *renderer) expr(nodes []*knode, mathrm bool) {
	for _, n := range nodes {
		r.group(n, mathrm)
	}
}

func (r *renderer) group(n *knode, mathrm bool) {
	if n == nil {
		fail("cannot read properties of undefined")
	}
	switch n.kind {
	case "mathord":
		if mathrm {
			// JavaScript indexes UTF-16 code units.
			for _, u := range utf16.Encode([]rune(n.text)) {
				if u == ' ' {
					r.w(" \\; ")
				} else {
					r.w(string(utf16.Decode([]uint16{u})) + " ")
				}
			}
			return
		}
		r.w(n.text + " ")
	case "textord":
		r.w(n.text + " ")
	case "ordgroup":
		r.w("{ ")
		r.expr(n.body, mathrm)
		r.w("} ")
	case "text":
		r.w("\\mathrm { ")
		r.expr(n.body, mathrm)
		r.w("} ")
	case "supsub":
		r.group(n.a, mathrm)
		for _, s := range []struct {
			mark string
			node *knode
		}{{"_ ", n.sub}, {"^ ", n.sup}} {
			if s.node == nil {
				continue
			}
			r.w(s.mark)
			if s.node.kind != "ordgroup" {
				r.w(" { ")
				r.group(s.node, mathrm)
				r.w("} ")
			} else {
				r.group(s.node, mathrm)
			}
		}
	case "genfrac":
		if n.flag {
			r.w("\\frac ")
		} else {
			r.w("\\binom ")
		}
		r.group(n.a, mathrm)
		r.group(n.b, mathrm)
	case "array":
		r.w("\\begin{array} { ")
		if n.arr.hasCol {
			for _, c := range n.arr.cols {
				if c != "" {
					r.w(c + " ")
				}
			}
		} else if len(n.arr.rows) > 0 {
			for range n.arr.rows[0] {
				r.w("l ")
			}
		}
		r.w("} ")
		for _, row := range n.arr.rows {
			nonEmpty := false
			for _, cell := range row {
				if len(cell.body) > 0 {
					nonEmpty = true
				}
			}
			if !nonEmpty {
				continue
			}
			for _, cell := range row {
				r.group(cell, mathrm)
				if s := r.b.String(); len(s) > 4 && strings.HasSuffix(s, "{ } ") {
					r.truncate(len(s) - 4)
				}
				r.w("& ")
			}
			r.truncate(r.b.Len() - 2)
			r.w("\\\\ ")
		}
		r.w("\\end{array} ")
	case "sqrt":
		if n.a != nil {
			r.w("\\sqrt [ ")
			r.expr(n.a.body, mathrm)
			r.w("] ")
		} else {
			r.w("\\sqrt ")
		}
		r.group(n.b, mathrm)
	case "leftright":
		r.w("\\left" + n.left + " ")
		r.expr(n.body, mathrm)
		r.w("\\right" + n.right + " ")
	case "accent":
		if n.a == nil {
			fail("cannot read properties of undefined")
		}
		if n.a.kind != "ordgroup" {
			r.w(n.text + " { ")
			r.group(n.a, mathrm)
			r.w("} ")
		} else {
			r.w(n.text + " ")
			r.group(n.a, mathrm)
		}
	case "spacing":
		if n.text == " " {
			r.w("~ ")
		} else {
			r.w(n.text + " ")
		}
	case "op":
		switch {
		case n.sym:
			r.w(n.text + " ")
		case !n.flag:
			r.w("\\operatorname { ")
		default:
			r.w("\\operatorname* { ")
		}
		if !n.sym {
			for _, c := range n.text[1:] {
				r.w(string(c) + " ")
			}
			r.w("} ")
		}
	case "font":
		font := n.text
		if font == "mbox" || font == "hbox" {
			font = "mathrm"
		}
		r.w("\\" + font + " ")
		r.group(n.a, font == "mathrm")
	case "delimsizing":
		r.w(n.text + " " + n.left + " ")
	case "styling":
		r.w(" " + n.text + " ")
		r.expr(n.body, mathrm)
	case "sizing":
		if n.text == "\\rm" {
			r.w("\\mathrm { ")
			r.expr(n.body, true)
			r.w("} ")
		} else {
			r.w(" " + n.text + " ")
			r.expr(n.body, mathrm)
		}
	case "overline", "underline":
		r.w("\\" + n.kind + " { ")
		r.group(n.a, mathrm)
		r.w("} ")
	case "rule":
		w, h := strings.SplitN(n.left+" ", " ", 2), strings.SplitN(n.right+" ", " ", 2)
		r.w("\\rule { " + w[0] + " " + strings.TrimSpace(w[1]) + "  } { " + h[0] + " " + strings.TrimSpace(h[1]) + " } ")
	case "llap", "rlap":
		r.w("\\" + n.kind + " ")
		r.group(n.a, mathrm)
	case "phantom":
		r.w("\\phantom { ")
		r.expr(n.body, mathrm)
		r.w("} ")
	case "bin", "rel", "open", "close", "inner", "punct":
		r.w(n.text + " ")
	default:
		// color and katex nodes need a MathML tree the reference never
		// loads; other kinds have no printer. Either way it fails.
		fail("got group of unknown type %q", n.kind)
	}
}

func (r *renderer) truncate(n int) {
	s := r.b.String()[:max(0, n)]
	r.b.Reset()
	r.b.WriteString(s)
}

// Pre- and post-passes around the normalizer (docs/cdm.md §3).
var (
	reAlignEnvs = regexp.MustCompile(`\\begin\{(split|align|alignedat|alignat|eqnarray)(\*?)\}`)
	reSmallMat  = regexp.MustCompile(`\\begin\{(smallmatrix)(\*?)\}`)
	reLabel     = regexp.MustCompile(`\\label\{.*?\}`)
	reLabelOut  = regexp.MustCompile(`\\label \{ .*? \}`)
	reOperator  = func() *regexp.Regexp {
		names := strings.Join(words("arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf injlim ker lg lim liminf limsup ln log max min Pr projlim sec sin sinh sup tan tanh"), "|")
		var parts []string
		for _, c := range names { // letters and |: no quoting needed
			parts = append(parts, string(c))
		}
		return regexp.MustCompile(`\\operatorname \{(` + strings.Join(parts, `\s?`) + `)\}`)
	}()
)

// rewriteEnvs is the reference's Python pre-pass
// re.sub(r'\\begin{(NAMES)\*?}(.+?)\\end{\1\*?}', r'\\begin{TO}\2\\end{TO}', s, flags=re.S):
// each \begin{name} is paired with the nearest following \end{name} (at
// least one character later), starred or not.
func rewriteEnvs(s string, re *regexp.Regexp, to string) string {
	if !strings.Contains(s, `\begin{`) {
		return s
	}
	var b strings.Builder
	for {
		loc := re.FindStringSubmatchIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		name := s[loc[2]:loc[3]]
		rest := s[loc[1]:]
		end, endLen := -1, 0
		for from := 1; from <= len(rest); {
			i := strings.Index(rest[from:], `\end{`+name)
			if i < 0 {
				break
			}
			i += from
			tail := rest[i+len(`\end{`+name):]
			n := 0
			if strings.HasPrefix(tail, "*") {
				n = 1
			}
			if strings.HasPrefix(tail[n:], "}") {
				end, endLen = i, len(`\end{`+name)+n+1
				break
			}
			from = i + 1
		}
		if end < 0 {
			// No pairing for this \begin: Python moves on one character.
			b.WriteString(s[:loc[0]+1])
			s = s[loc[0]+1:]
			continue
		}
		b.WriteString(s[:loc[0]])
		b.WriteString(`\begin{` + to + `}` + rest[:end] + `\end{` + to + `}`)
		s = rest[end+endLen:]
	}
}

// jsReplaceN replaces the first occurrence of old, n times over.
func jsReplaceFirst(s, old, new string) (string, bool) {
	i := strings.Index(s, old)
	if i < 0 {
		return s, false
	}
	return s[:i] + new + s[i+len(old):], true
}

// ProtectCDM prepares a formula as the reference does before tokenizing:
// newlines become spaces and \% is protected as <PERCENTAGETOKEN> (the
// normalizer would otherwise cut the line at the %).
func ProtectCDM(formula string) string {
	formula = strings.ReplaceAll(formula, "\n", " ")
	return strings.ReplaceAll(formula, `\%`, "<PERCENTAGETOKEN>")
}

// KaTeXNormalize runs the reference's tokenizer on a formula prepared by
// ProtectCDM and
// returns its output, or ok == false when the reference's normalizer fails
// or prints nothing and the reference falls back to the raw string.
func KaTeXNormalize(formula string) (out string, ok bool) {
	return katexNormalize(formula, false)
}

func katexNormalize(formula string, keepPrimes bool) (out string, ok bool) {
	s := prepareLine(formula)
	norm, err := katexRender(s, keepPrimes)
	if err != nil {
		return "", false
	}
	for i := 0; i < 300; i++ {
		a, c1 := jsReplaceFirst(norm, "SSSSSS", "$")
		b, c2 := jsReplaceFirst(a, " S S S S S S", "$")
		norm = b
		if !c1 && !c2 {
			break
		}
	}
	if !strings.Contains(norm, `\label {`) {
	} else if loc := reLabelOut.FindStringIndex(norm); loc != nil {
		norm = norm[:loc[0]] + norm[loc[1]:]
	}
	// tokenize_latex.py: collapse whitespace, \operatorname{sin} → \sin.
	post := pyJoinFields(norm)
	if strings.Contains(post, `\operatorname {`) {
		post = reOperator.ReplaceAllStringFunc(post, func(m string) string {
			sub := reOperator.FindStringSubmatch(m)
			return "\\" + strings.ReplaceAll(sub[1], " ", "")
		})
	}
	post = strings.ReplaceAll(post, `\\ \end{array}`, `\end{array}`)
	if post == "" {
		return "", false
	}
	return post, true
}

// prepareLine is the reference's preparation of a formula (through
// ProtectCDM) for its parser: environments renamed, a comment cut, \~, \>,
// $ and \label removed, rows flattened, a space appended and {\rm turned
// into \mathrm{. ParsedAsIs tells the formulas it leaves as they are.
func prepareLine(formula string) string {
	s := rewriteEnvs(formula, reAlignEnvs, "aligned")
	s = rewriteEnvs(s, reSmallMat, "matrix")
	// preprocess_formula.js line handling.
	s = strings.TrimPrefix(s, "%")
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, `\~`, " ")
	for i := 0; i < 300; i++ {
		changed := false
		var c bool
		s, c = jsReplaceFirst(s, `\>`, " ")
		changed = changed || c
		s, c = jsReplaceFirst(s, "$", " ")
		changed = changed || c
		if strings.Contains(s, `\label{`) {
			if loc := reLabel.FindStringIndex(s); loc != nil {
				s = s[:loc[0]] + s[loc[1]:]
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	s = flattenRows(s)
	s += " "
	for i := 0; i < 300; i++ {
		changed := false
		for _, old := range []string{`{\rm`, `{ \rm`, `\rm{`} {
			var c bool
			s, c = jsReplaceFirst(s, old, `\mathrm{`)
			changed = changed || c
		}
		if !changed {
			break
		}
	}
	return s
}

// katexRender parses a prepared line and prints it, or fails.
func katexRender(line string, keepPrimes bool) (out string, err error) {
	if bracesShort(line) {
		// The parse would fail, but only at the end of the line: about
		// half the labels that fail in a corpus of edited labels fail so.
		return "", kfail{format: "more { than }"}
	}
	return katexParse(line, keepPrimes)
}

// katexParse is katexRender without the brace check.
func katexParse(line string, keepPrimes bool) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(kfail); ok {
				out, err = "", f
				return
			}
			panic(r)
		}
	}()
	p := &kparser{in: line, mode: "math", keepPrimes: keepPrimes, stack: make([]*knode, 0, 64), arena: getKArena()}
	defer putKArena(p.arena)
	p.next = p.lex(0, "math")
	tree := p.parseExpression(false, "")
	p.expect("EOF", false)
	var r renderer
	r.b.Grow(2*len(line) + 16)
	r.expr(tree, false)
	return r.b.String(), nil
}

// bracesShort reports whether a line has more { tokens than } tokens, so
// that katexRender's parse must fail: the parser reads a { only to open a
// group or a string argument, which then needs a } of its own (a } may
// also be read as a symbol, an argument like any other, so the check
// cannot go the other way). Every token the parser reads is the one lexAt
// reads at that place (the size and color modes read neither brace nor
// backslash), so its braces are the bytes { and } not just after a
// backslash.
func bracesShort(line string) bool {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // a control symbol's character, or a control word's first letter
		case '{':
			n++
		case '}':
			n--
		}
	}
	return n > 0
}

// flattenRows is the preprocessors' line pass for a line with none of
// matrix, cases, array or begin: each \\ (up to 300) becomes \, so that
// a multi-line formula without an environment is read as one line.
func flattenRows(s string) string {
	if strings.Contains(s, "matrix") || strings.Contains(s, "cases") || strings.Contains(s, "array") || strings.Contains(s, "begin") {
		return s
	}
	for i := 0; i < 300; i++ {
		var c bool
		if s, c = jsReplaceFirst(s, `\\`, `\,`); !c {
			break
		}
	}
	return s
}
