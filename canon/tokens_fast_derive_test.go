package canon

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Deriving the fast path's table (tokens_fast.go) from the chain: the
// candidates, the contexts each must pass, and the writer of
// tokens_fast_table.go, which TestFastTableCurrent keeps current.

// fastCandidates are the commands the fast path may take over, subject to
// the checks in buildFastTable. Commands that take arguments in the chain
// (fonts, accents, \not, \left, \big…, \limits, \over, environments) are
// not listed; listing one would only get it rejected by the checks.
const fastCandidates = `
\alpha \beta \gamma \delta \epsilon \varepsilon \zeta \eta \theta \vartheta \iota \kappa \varkappa \lambda \mu \nu \xi \pi \varpi
\rho \varrho \sigma \varsigma \tau \upsilon \phi \varphi \chi \psi \omega \Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Upsilon \Phi
\Psi \Omega \varGamma \varDelta \varTheta \varLambda \varXi \varPi \varSigma \varUpsilon \varPhi \varPsi \varOmega \digamma
\infty \partial \nabla \forall \exists \nexists \emptyset \varnothing \ell \hbar \hslash \imath \jmath \aleph \beth \wp \Re \Im \mho
\prime \backprime \angle \measuredangle \sphericalangle \triangle \triangledown \square \blacksquare \Box \Diamond \diamond
\lozenge \blacklozenge \bigstar \star \ast \circ \bullet \cdot \cdotp \ldotp \centerdot \times \div \pm \mp \oplus \ominus \otimes
\oslash \odot \bigcirc \dagger \ddagger \dag \ddag \amalg \setminus \smallsetminus \wr \cap \cup \sqcap \sqcup \uplus \wedge \vee
\land \lor \lnot \neg \top \bot \perp \parallel \nparallel \mid \nmid \vdash \dashv \models \vDash \Vdash \therefore \because
\leq \le \geq \ge \leqq \geqq \leqslant \geqslant \ll \gg \lll \ggg \neq \ne \equiv \approx \approxeq \sim \simeq \cong \ncong
\nsim \propto \varpropto \asymp \doteq \triangleq \prec \succ \preceq \succeq \lessdot \gtrdot \lesssim \gtrsim \lessgtr \gtrless
\nless \ngtr \nleq \ngeq \lneq \gneq \subset \supset \subseteq \supseteq \subsetneq \supsetneq \nsubseteq \nsupseteq \sqsubset
\sqsupset \sqsubseteq \sqsupseteq \in \ni \notin \owns \to \gets \rightarrow \leftarrow \leftrightarrow \Rightarrow \Leftarrow
\Leftrightarrow \longrightarrow \longleftarrow \longleftrightarrow \Longrightarrow \Longleftarrow \Longleftrightarrow \mapsto
\longmapsto \uparrow \downarrow \updownarrow \Uparrow \Downarrow \Updownarrow \nearrow \searrow \swarrow \nwarrow \hookrightarrow
\hookleftarrow \rightharpoonup \rightharpoondown \leftharpoonup \leftharpoondown \rightleftharpoons \leftrightarrows
\rightleftarrows \rightrightarrows \leftleftarrows \twoheadrightarrow \twoheadleftarrow \iff \implies \impliedby
\sum \prod \coprod \int \iint \iiint \oint \bigcup \bigcap \bigvee \bigwedge \bigoplus \bigotimes \bigodot \bigsqcup \biguplus
\smallint \intop \sin \cos \tan \cot \sec \csc \arcsin \arccos \arctan \sinh \cosh \tanh \coth \log \ln \lg \exp \arg \deg \dim \hom
\ker \det \gcd \inf \sup \lim \liminf \limsup \max \min \Pr \mod \bmod
\ldots \cdots \vdots \ddots \dots \dotsc \dotsb \dotsm \hdots \langle \rangle \lceil \rceil \lfloor \rfloor \lbrace \rbrace
\lbrack \rbrack \vert \Vert \lvert \rvert \lVert \rVert \backslash \colon \surd \flat \natural \sharp \clubsuit \diamondsuit
\heartsuit \spadesuit \checkmark \degree \complement \eth \Finv \Game \circledR \circledS \yen \S \P \copyright \pounds
\quad \qquad \enspace \thinspace \textcircled
\{ \} \| \, \; \: \! \# \& \$ \_
`

// fastOneArg are the commands of one argument the fast path may take
// over, subject to the checks in checkFastCommand.
const fastOneArg = `
\hat \tilde \bar \vec \dot \ddot \dddot \check \breve \acute \grave \mathring \widehat \widetilde \overline \underline
\overrightarrow \overleftarrow \overbrace \underbrace \Bar \Vec \Tilde \mathrm \mathbf \mathit \mathcal \mathbb \mathsf
\mathtt \mathfrak \mathscr \boldsymbol \bm \pmb \textbf \textit \textrm
`

// fastChars are the characters the fast path may take over (letters and
// digits are added to them).
const fastChars = `+-=<>()[]|/*.,;:!?@"`

// fastDelims are the \left/\right delimiters the fast path may take over.
const fastDelims = `( ) [ ] | / . \{ \} \| \langle \rangle \lfloor \rfloor \lceil \rceil \lbrace \rbrace \lbrack \rbrack \vert \Vert \lvert \rvert \lVert \rVert \backslash \uparrow \downarrow`

// fastContexts are the formulas each candidate X is checked in, with what
// the chain must write for them in terms of X's own tokens (X): a
// candidate is kept only when every one holds. The ones marked arg only
// apply to candidates whose output is one token.
var fastContexts = []struct {
	in, want string
	arg      bool
}{
	{"X", "X", false},
	{"aXb", "a X b", false},
	{"1X2", "1 X 2", false},
	{"X+X", "X + X", false},
	{"XX", "X X", false},
	{"X^{2}", "X ^ { 2 }", false},
	{"X_{2}", "X _ { 2 }", false},
	{"X_{i}^{n}", "X _ { i } ^ { n }", false},
	{"X^{n}_{i}", "X _ { i } ^ { n }", false},
	{"x^{X}", "x ^ { X }", false},
	{"x_{aX}", "x _ { a X }", false},
	{"{X}", "{ X }", false},
	{"{X}^{2}", "{ X } ^ { 2 }", false},
	{`\frac{X}{a}`, `\frac { X } { a }`, false},
	{`\frac{1}{X}`, `\frac { 1 } { X }`, false},
	{`\sqrt{X}`, `\sqrt { X }`, false},
	{`\sqrt[X]{2}`, `\sqrt [ X ] { 2 }`, false},
	{`\left(X\right)`, `( X )`, false},
	{`\left(aX\right)^{2}`, `( a X ) ^ { 2 }`, false},
	{"x^X", "x ^ { X }", true},
	{"x_X", "x _ { X }", true},
	{"x^Xa", "x ^ { X } a", true},
	{`\frac XX`, `\frac { X } { X }`, true},
	{`\frac X2`, `\frac { X } { 2 }`, true},
	{`\frac1X`, `\frac { 1 } { X }`, true},
	{`\sqrt X`, `\sqrt { X }`, true},
	{`\sqrt[3]X`, `\sqrt [ 3 ] { X }`, true},
}

// fastTableSource writes a table as the Go source of tokens_fast_table.go,
// rows in a fixed order.
func fastTableSource(t *fastTable) string {
	var rows []string
	q := func(toks []string) string {
		parts := make([]string, len(toks))
		for i, tok := range toks {
			parts[i] = strconv.Quote(tok)
		}
		return "[]string{" + strings.Join(parts, ", ") + "}"
	}
	for name, sym := range t.cmds {
		rows = append(rows, fmt.Sprintf("{kind: 's', name: %q, toks: %s, arg: %v, limits: %v, nolimits: %v},", name, q(sym.toks), sym.arg, sym.limits, sym.nolimits))
	}
	for c, sym := range t.chars {
		if sym != nil {
			rows = append(rows, fmt.Sprintf("{kind: 's', name: %q, toks: %s, arg: %v, limits: %v, nolimits: %v},", string(rune(c)), q(sym.toks), sym.arg, sym.limits, sym.nolimits))
		}
	}
	for name, c := range t.oneArg {
		rows = append(rows, fmt.Sprintf("{kind: 'c', name: %q, toks: %s, wrapped: %v, single: %v, chars: %v},", name, q([]string{c.head}), c.wrapped, c.single, c.chars))
	}
	for d, toks := range t.delims {
		rows = append(rows, fmt.Sprintf("{kind: 'd', name: %q, toks: %s},", d, q(toks)))
	}
	sort.Strings(rows)
	var b strings.Builder
	b.WriteString("// Code generated by go test ./canon -run TestFastTableCurrent -update; DO NOT EDIT.\n\n")
	b.WriteString("package canon\n\n")
	b.WriteString("// fastTableEntries is the fast path's table (tokens_fast.go), as\n// buildFastTable derives it from the chain.\n")
	b.WriteString("var fastTableEntries = []fastEntry{\n")
	for _, r := range rows {
		b.WriteString("\t" + r + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func buildFastTable() *fastTable {
	t := &fastTable{cmds: map[string]fastSymbol{}, delims: map[string][]string{}, oneArg: map[string]*fastCommand{}}
	var cands []string
	for c := byte('a'); c <= 'z'; c++ {
		cands = append(cands, string(c), string(c-'a'+'A'))
	}
	for c := byte('0'); c <= '9'; c++ {
		cands = append(cands, string(c))
	}
	for _, c := range fastChars {
		cands = append(cands, string(c))
	}
	cands = append(cands, strings.Fields(fastCandidates)...)
	for _, x := range cands {
		sym, ok := checkFastCandidate(x)
		if !ok {
			continue
		}
		if x[0] == '\\' {
			t.cmds[x] = sym
		} else {
			t.chars[x[0]] = &sym
		}
	}
	for _, name := range strings.Fields(fastOneArg) {
		if c, ok := checkFastCommand(name); ok {
			t.oneArg[name] = c
		}
	}
	for _, d := range strings.Fields(fastDelims) {
		if toks, ok := checkFastDelim(d); ok {
			t.delims[d] = toks
		}
	}
	return t
}

// chainTokens is the tokens level by the chain alone, for the checks.
func chainTokens(s string) ([]string, bool) { return chainComputeTokens(WSKey(s)) }

// subst writes a context with the candidate x in place of each X, a
// space after a control word that a letter follows, as the ws level
// keeps it.
func subst(ctx, x string) string { return substAt(ctx, "X", x) }

// substAt is subst with another placeholder.
func substAt(ctx, placeholder, x string) string {
	var b strings.Builder
	for i, part := range strings.Split(ctx, placeholder) {
		if i > 0 {
			writeJoined(&b, x)
		}
		writeJoined(&b, part)
	}
	return b.String()
}

// writeJoined appends s to b, with a space between a control word that
// ends b and a letter that starts s.
func writeJoined(b *strings.Builder, s string) {
	cur := b.String()
	j := len(cur)
	for j > 0 && isASCIILetter(rune(cur[j-1])) {
		j--
	}
	if j > 0 && j < len(cur) && cur[j-1] == '\\' && backslashesBefore(cur, j-1)%2 == 0 && s != "" && isASCIILetter(rune(s[0])) {
		b.WriteByte(' ')
	}
	b.WriteString(s)
}

func checkFastCandidate(x string) (fastSymbol, bool) {
	toks, ok := chainTokens(x)
	if !ok || len(toks) == 0 {
		return fastSymbol{}, false
	}
	sym := fastSymbol{toks: toks, arg: len(toks) == 1}
	for _, c := range fastContexts {
		if c.arg && !sym.arg || (x == "[" || x == "]") && strings.Contains(c.in, `\sqrt[`) {
			// Brackets in a root's optional argument are the fast
			// path's to decline.
			continue
		}
		var want []string
		for _, w := range strings.Fields(c.want) {
			if w == "X" {
				want = append(want, toks...)
			} else {
				want = append(want, w)
			}
		}
		got, ok := chainTokens(subst(c.in, x))
		if !ok || !equalTokens(got, want) {
			if c.arg {
				sym.arg = false
				continue
			}
			return fastSymbol{}, false
		}
	}
	sym.limits, sym.nolimits = x[0] == '\\', x[0] == '\\'
	for _, c := range limitsContexts {
		got, ok := chainTokens(subst(c.in, x))
		if !ok || !equalTokens(got, expand(c.want, "X", toks)) {
			if strings.Contains(c.in, `\limits`) {
				sym.limits = false
			}
			if strings.Contains(c.in, `\nolimits`) {
				sym.nolimits = false
			}
		}
	}
	return sym, true
}

// limitsContexts are the contexts a symbol must pass to take \limits or
// \nolimits (only the chain's operators do, and some are written
// differently with \nolimits). The fast path declines an atom with more
// than one of them.
var limitsContexts = []struct{ in, want string }{
	{`X\limits_{2}`, "X _ { 2 }"},
	{`X\limits^{2}_{1}`, "X _ { 1 } ^ { 2 }"},
	{`X_{1}\limits^{2}`, "X _ { 1 } ^ { 2 }"},
	{`X\limits`, "X"},
	{`aX\limits_{i}b`, "a X _ { i } b"},
	{`X\nolimits_{2}`, "X _ { 2 }"},
	{`X\nolimits^{2}_{1}`, "X _ { 1 } ^ { 2 }"},
	{`X_{1}\nolimits^{2}`, "X _ { 1 } ^ { 2 }"},
	{`X\nolimits`, "X"},
	{`aX\nolimits_{i}b`, "a X _ { i } b"},
}

// expand writes a context's expected tokens with the placeholder's tokens
// in place.
func expand(want, placeholder string, toks []string) []string {
	var out []string
	for _, w := range strings.Fields(want) {
		if w == placeholder {
			out = append(out, toks...)
		} else {
			out = append(out, w)
		}
	}
	return out
}

// checkFastCommand keeps a command of one argument whose chain output,
// in every context of commandContexts, is its head and its argument in
// braces, and finds how it writes the argument.
func checkFastCommand(name string) (*fastCommand, bool) {
	ab, ok := chainTokens(substAt("F{ab}", "F", name))
	if !ok || len(ab) < 5 {
		return nil, false
	}
	c := &fastCommand{head: ab[0]}
	switch {
	case equalTokens(ab[1:], []string{"{", "a", "b", "}"}):
	case equalTokens(ab[1:], []string{"{", "{", "a", "b", "}", "}"}):
		c.wrapped = true
	default:
		return nil, false
	}
	// T(a) is what the command writes for the group argument {a}.
	t := func(inner ...string) []string {
		out := []string{c.head, "{"}
		if c.wrapped {
			out = append(out, "{")
		}
		out = append(out, inner...)
		if c.wrapped {
			out = append(out, "}")
		}
		return append(out, "}")
	}
	holds := func(in string, want []string) bool {
		got, ok := chainTokens(substAt(in, "F", name))
		return ok && equalTokens(got, want)
	}
	ta := t("a")
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	w := strings.Fields
	for _, ctx := range []struct {
		in   string
		want []string
	}{
		{"F{a}", ta},
		{"F{1}", t("1")},
		{"F{a+1}", t("a", "+", "1")},
		{"F{a}^{2}", cat(ta, w("^ { 2 }"))},
		{"F{a}_{i}^{n}", cat(ta, w("_ { i } ^ { n }"))},
		{"xF{a}y", cat(w("x"), ta, w("y"))},
		{"x^{F{a}}", cat(w("x ^ {"), ta, w("}"))},
		{`\frac{F{a}}{2}`, cat(w(`\frac {`), ta, w("} { 2 }"))},
		{"{F{a}}", cat(w("{"), ta, w("}"))},
		{"F{a}F{b}", cat(ta, t("b"))},
		{`\sqrt{F{a}}`, cat(w(`\sqrt {`), ta, w("}"))},
		{`\sqrt[F{a}]{2}`, cat(w(`\sqrt [`), ta, w("] { 2 }"))},
		{`\left(F{a}\right)`, cat(w("("), ta, w(")"))},
		{`\left(F{a}b\right)c`, cat(w("("), ta, w("b ) c"))},
	} {
		if !holds(ctx.in, ctx.want) {
			return nil, false
		}
	}
	c.chars = !(holds(`F{\alpha}`, t(`\alpha`)) && holds("F{a^{2}}", t("a", "^", "{", "2", "}")) &&
		holds(`F{\frac{1}{2}}`, t(`\frac`, "{", "1", "}", "{", "2", "}")) && holds("F{{a}b}", t("{", "a", "}", "b")))
	if c.wrapped {
		// A single argument is written without the inner braces.
		c.single = holds("F a", []string{c.head, "{", "a", "}"}) && holds(`F\alpha`, []string{c.head, "{", `\alpha`, "}"}) &&
			holds("F a^{2}", []string{c.head, "{", "a", "}", "^", "{", "2", "}"}) && holds("F2", []string{c.head, "{", "2", "}"})
	} else {
		c.single = holds("F a", ta) && holds(`F\alpha`, t(`\alpha`)) && holds("F a^{2}", cat(ta, w("^ { 2 }"))) && holds("F2", t("2"))
	}
	// Where the argument ends: inside a root's index, \left…\right and
	// a group.
	single := []string{c.head, "{", "a", "}"}
	c.single = c.single && holds(`\sqrt[F a]{2}`, cat(w(`\sqrt [`), single, w("] { 2 }"))) &&
		holds(`\left(F ab\right)`, cat(w("("), single, w("b )"))) && holds(`{F ab}c`, cat(w("{"), single, w("b } c")))
	return c, true
}

// checkFastDelim keeps a \left/\right delimiter whose tokens the chain
// writes the same on either side and around any body.
func checkFastDelim(d string) ([]string, bool) {
	toks, ok := chainTokens(substAt(`\leftDx\right)`, "D", d))
	if !ok || len(toks) < 2 || toks[len(toks)-2] != "x" {
		return nil, false
	}
	left := toks[:len(toks)-2]
	if len(left) > 1 {
		return nil, false
	}
	for _, c := range []struct{ in, want string }{
		{`\left(x\rightD`, "( x D"},
		{`\leftDx\rightD`, "D x D"},
		{`\leftD{a}^{2}\rightD^{2}`, "D { a } ^ { 2 } D ^ { 2 }"},
		{`a\leftD\frac{1}{2}\rightDb`, `a D \frac { 1 } { 2 } D b`},
		{`\leftD\leftDa\rightD\rightD`, "D D a D D"},
	} {
		var want []string
		for _, w := range strings.Fields(c.want) {
			if w == "D" {
				want = append(want, left...)
			} else {
				want = append(want, w)
			}
		}
		got, ok := chainTokens(substAt(c.in, "D", d))
		if !ok || !equalTokens(got, want) {
			return nil, false
		}
	}
	return left, true
}

func equalTokens(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
