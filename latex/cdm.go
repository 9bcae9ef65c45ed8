package latex

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reproduces the reference CDM's string passes that follow its
// KaTeX normalizer (docs/cdm.md §2, §4 and §5): the CJK and percent
// fix-ups, normalize_latex, and the token selection that decides which
// tokens get a colour (and so a box). The reference does these with Python
// string operations and regular expressions over a space-separated token
// list; the functions here work on the same representation and reproduce
// its quirks, including the ones that come from Python itself (negative
// indices, stale loop bounds after insertions, errors on unbalanced braces).

// ErrCDMPass is wrapped by errors from the reference's passes: the
// reference then writes no output and the formula counts as a render
// failure.
var ErrCDMPass = errors.New("reference normalization fails")

// Token lists of the reference's colouring pass (docs/cdm.md §5).
var (
	skipTokens = set(`\`, `\\`, `\index`, `\a`, `&`, `$`, `\multirow`, `\def`, `\edef`, `\raggedright`, `\url`, `\cr`, `\ensuremath`,
		`\left`, `\right`, `\mathchoice`, `\scriptstyle`, `\displaystyle`, `\qquad`, `\quad`, `\,`, `\!`, `~`, `\boldmath`, `\gdef`, `\today`, `\the`)
	phantomTokens   = set(`\fontfamily`, `\vphantom`, `\phantom`, `\rowcolor`, `\ref`, `\thesubequation`, `\global`, `\theboldgroup`)
	twoTailTokens   = set(`\frac`, `\binom`)
	abTailTokens    = set(`\xrightarrow`, `\xleftarrow`, `\sqrt`)
	twoTailInvisb   = set(`\overset`, `\underset`, `\stackrel`)
	oneTailTokens   = set(`\widetilde`, `\overline`, `\hat`, `\widehat`, `\tilde`, `\Tilde`, `\dot`, `\bar`, `\vec`, `\underline`, `\underbrace`, `\check`, `\breve`, `\Bar`, `\Vec`, `\mathring`, `\ddot`, `\Ddot`, `\dddot`, `\ddddot`)
	oneTailInvisb   = set(`\boldsymbol`, `\pmb`, `\textbf`, `\mathrm`, `\mathbf`, `\mathbb`, `\mathcal`, `\textmd`, `\texttt`, `\textnormal`, `\text`, `\textit`, `\textup`, `\mathop`, `\mathbin`, `\smash`, `\operatorname`, `\textrm`, `\mathfrak`, `\emph`, `\textsf`, `\textsc`)
	dotsTokens      = []string{"…", `\ldots`, `\hdots`, `\cdots`, `\dddot`, `\dots`, `\dotsc`, `\dotsi`, `\dotsm`, `\dotso`, `\dotsb`, `\mathellipsis`}
	operatorLetters = []string{`\ex`, `\ln`, `\lg`, `\cot`, `\mod`, `\bmod`, `\pmod`, `\min`, `\max`, `\ker`, `\hom`, `\sec`, `\scs`, `\csc`, `\deg`, `\arg`, `\log`, `\dim`, `\exp`, `\sin`, `\cos`, `\tan`, `\tanh`, `\cosh`, `\sinh`, `\coth`, `\arcsin`, `\arccos`, `\arctan`}
)

// tailClass classes the commands fillBraces completes, so that it looks
// each token up once: oneTail (oneTailTokens, oneTailInvisb), abTail
// (abTailTokens) and twoTail (twoTailTokens, twoTailInvisb).
var tailClass = map[string]uint8{}

const (
	oneTail = 1 + iota
	abTail
	twoTail
)

func init() {
	for class, sets := range map[uint8][]map[string]bool{oneTail: {oneTailTokens, oneTailInvisb}, abTail: {abTailTokens}, twoTail: {twoTailTokens, twoTailInvisb}} {
		for _, m := range sets {
			for k := range m {
				tailClass[k] = class
			}
		}
	}
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
		listedFirst[s[0]] = true
	}
	return m
}

// listedFirst marks the first bytes of the tokens in the sets of set: a
// token starting with another byte (a letter, a digit, a brace…) is in
// none of them, and the colouring pass skips their lookups.
var listedFirst [256]bool

// Patterns of normalize_latex, as the reference writes them (with the
// braces Python reads literally escaped for RE2).
var (
	reHVSpace    = regexp.MustCompile(`(?s)\\[hv]space \{ [.0-9a-z ]+ \}`)
	reArrayCols  = regexp.MustCompile(`(?s)\\begin\{array\} \{ [lrc ]+ \}`)
	reString     = regexp.MustCompile(`(?s)\\string [^ ]+ `)
	reBigDelim   = regexp.MustCompile(`(?s)\\[Bb]ig[g]?[glrm]? [(){}|\[\]] `)
	reBigCommand = regexp.MustCompile(`(?s)\\[Bb]ig[g]?[glrm]? \\.*? `)
	reOpStar     = regexp.MustCompile(`(?s)\\operatorname \*`)
	reAccent     = regexp.MustCompile(`(?s)\\' [^{] `)
	reTabSkip    = regexp.MustCompile(`(?s)\[ [\-.0-9 ]+[exptcm ]+ \]`)
	reParbox     = regexp.MustCompile(`(?s)\\parbox \{[^{]+\}`)
	reRaisebox   = regexp.MustCompile(`(?s)\\raisebox \{[^{]+\} [\[\]0-9 exptcm]+\{`)
	reChar       = regexp.MustCompile(`(?s)\{ \\char[0-9' ]+\}`)
	reRule       = regexp.MustCompile(`(?s)\\rule \{[ .0-9a-z]+\} \{[ .0-9a-z]+\}`)
	reSpecial    = regexp.MustCompile(`(?s)\\specialrule \{[ .0-9a-z]+\} \{[ .0-9a-z]+\} \{[ .0-9a-z]+\}`)
	reColor      = regexp.MustCompile(`(?s)\\colorbox[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\color[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\textcolor[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} |\\cellcolor[ \[\]RGBrgb]+\{ [A-Za-z 0-9,!]+ \} `)
)

// regexMarkers holds a literal every match of a pattern contains, so that
// the pattern is only run on strings that have it.
var regexMarkers = map[*regexp.Regexp]string{
	reHVSpace: "space {", reArrayCols: `\begin{array} {`, reString: `\string `, reBigDelim: "ig", reBigCommand: "ig",
	reOpStar: `\operatorname *`, reAccent: `\' `, reTabSkip: "[ ", reParbox: `\parbox {`, reRaisebox: `\raisebox {`,
	reChar: `\char`, reRule: `\rule {`, reSpecial: `\specialrule {`, reColor: "color",
}

// containsCJK reports whether s holds a character in U+4E00–U+9FFF, the
// reference's test for Chinese text.
func containsCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if r >= 0x4e00 && r <= 0x9fff {
					return true
				}
			}
			return false
		}
	}
	return false
}

// isPySpace reports whether Python's str.isspace (and regex \s) holds.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

// pyJoinFields is " ".join(s.split()) in Python (strings.Join of
// strings.FieldsFunc(s, isPySpace) with " "): s itself when it is already
// so, with no allocation.
func pyJoinFields(s string) string {
	clean := len(s) == 0 || s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; clean && i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			clean = false // a Unicode space possibly: the general way
		case c == ' ':
			clean = s[i+1] != ' ' // not last: s does not end with a space
		case isPySpace(rune(c)):
			clean = false
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isPySpace(r) {
				break
			}
			i += n
		}
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if isPySpace(r) {
				break
			}
			j += n
		}
		if j > i {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// replaceEach applies, for every match of re found in s (Python's findall,
// left to right), s = s.replace(match, f(match)); later replacements see
// the effect of earlier ones, as in the reference's loops.
func replaceEach(s string, re *regexp.Regexp, f func(string) string) string {
	if m, ok := regexMarkers[re]; ok && !strings.Contains(s, m) {
		return s // the pattern cannot match without its literal part
	}
	for _, m := range re.FindAllString(s, -1) {
		s = strings.ReplaceAll(s, m, f(m))
	}
	return s
}

func noSpaces(m string) string { return strings.ReplaceAll(m, " ", "") }

// spacedReplacements are normalize_latex's whole-token rewrites (its
// re.sub(r'(?<=\s)X(?=\s)', …) lines): -- and ---, the dots forms, and the
// operator names spelled out in \mathrm. None of the outputs is another
// rule's input, so one pass over the tokens applies them all.
var spacedReplacements = func() map[string]string {
	m := map[string]string{"--": "- -", "---": "- - -"}
	for _, d := range dotsTokens {
		m[d] = ". . ."
	}
	for _, op := range operatorLetters {
		name := op[1:]
		if op == `\bmod` || op == `\pmod` {
			name = "mod"
		}
		m[op] = `\mathrm { ` + strings.Join(strings.Split(name, ""), " ") + ` }`
	}
	return m
}()

// replaceSpacedTokens replaces every token of s (a maximal run of
// non-whitespace with whitespace on both sides) found in m, keeping the
// whitespace as it is.
func replaceSpacedTokens(s string, m map[string]string) string {
	var b strings.Builder
	changed := false
	start := -1 // start of the current token
	for i, r := range s {
		if isPySpace(r) {
			if start >= 0 {
				tok := s[start:i]
				if rep, ok := m[tok]; ok && start > 0 {
					if !changed {
						b.Grow(len(s) + 16)
						b.WriteString(s[:start])
						changed = true
					}
					b.WriteString(rep)
				} else if changed {
					b.WriteString(tok)
				}
				start = -1
			}
			if changed {
				b.WriteRune(r)
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if !changed {
		return s
	}
	if start >= 0 {
		b.WriteString(s[start:])
	}
	return b.String()
}

// PrepareCDM applies the reference's fix-ups between its KaTeX normalizer
// and normalize_latex (docs/cdm.md §2): when the string holds a CJK
// ideograph every \mathrm becomes \text, and the protected percent sign is
// restored.
func PrepareCDM(s string) string {
	if containsCJK(s) {
		s = strings.ReplaceAll(s, `\mathrm`, `\text`)
	}
	return strings.ReplaceAll(s, "< P E R C E N T A G E T O K E N >", `\%`)
}

// NormalizeLatexCDM is the reference's normalize_latex (docs/cdm.md §4) on a
// space-separated token string.
func NormalizeLatexCDM(l string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %v", ErrCDMPass, r)
		}
	}()
	tabular := strings.Contains(l, "tabular")
	l = pyStrip(l)
	if hasCommandPrefix(l, "pmatrix", "matrix", "raggedright", "arraybackslash", "lowercase", "uppercase") {
		l = strings.ReplaceAll(l, `\pmatrix`, `\mypmatrix`)
		l = strings.ReplaceAll(l, `\matrix`, `\mymatrix`)
		for _, item := range []string{`\raggedright`, `\arraybackslash`, `\lowercase`, `\uppercase`} {
			l = strings.ReplaceAll(l, item, "")
		}
	}
	l = replaceEach(l, reHVSpace, func(m string) string {
		if tabular {
			return ""
		}
		return noSpaces(m)
	})
	if tabular {
		l = tabularTokens(l)
	}
	l = replaceEach(l, reArrayCols, func(m string) string {
		return `\begin{array} ` + noSpaces(strings.TrimPrefix(m, `\begin{array} `))
	})
	l = replaceSpacedTokens(" "+l+" ", spacedReplacements)
	l = replaceEach(l, reString, func(m string) string { return noSpaces(m) + " " })
	l = replaceEach(l, reBigDelim, func(m string) string { return noSpaces(m) + " " })
	l = replaceEach(l, reBigCommand, func(m string) string { return noSpaces(m) + " " })
	l = replaceEach(l, reOpStar, func(string) string { return `\operatorname` })
	if hasCommandPrefix(l, "lefteqn", "footnote ") {
		l = strings.ReplaceAll(l, `\lefteqn`, "")
		l = strings.ReplaceAll(l, `\footnote `, "^ ")
	}
	l = replaceEach(l, reAccent, func(m string) string { return noSpaces(m) + " " })
	if tabular {
		l = replaceEach(l, reTabSkip, noSpaces)
	}
	l = replaceEach(l, reParbox, noSpaces)
	l = replaceEach(l, reRaisebox, func(m string) string {
		a := noSpaces(m)
		return a[:len(a)-1] + " {"
	})
	l = replaceEach(l, reChar, func(m string) string {
		a := noSpaces(m)
		return "{ " + a[1:len(a)-1] + " }"
	})
	l = replaceEach(l, reRule, noSpaces)
	l = replaceEach(l, reSpecial, noSpaces)
	l = replaceEach(l, reColor, func(string) string { return "" })
	return strings.Join(fillBraces(strings.Split(l, " ")), " "), nil
}

// hasCommandPrefix reports whether s holds a backslash followed by one
// of names: whether any of the strings `\`+name occurs in s, found in one
// pass over its backslashes.
func hasCommandPrefix(s string, names ...string) bool {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return false
		}
		s = s[i+1:]
		for _, n := range names {
			if strings.HasPrefix(s, n) {
				return true
			}
		}
	}
}

// tabularTokens joins \begin{tabular}{…} and \cmidrule/\cline arguments
// into single tokens (the reference's tabular branch).
func tabularTokens(l string) string {
	for _, r := range [][2]string{{`\begin {tabular}`, `\begin{tabular}`}, {`\end {tabular}`, `\end{tabular}`}, {`\begin {array}`, `\begin{array}`}, {`\end {array}`, `\end{array}`}} {
		l = strings.ReplaceAll(l, r[0], r[1])
	}
	t := pyList(strings.Split(l, " "))
	for idx := 0; idx < len(t); idx++ {
		if t[idx] == `\begin{tabular}` {
			end := t.matchBrace(idx+1, "{", "}")
			t = t.splice(idx, end+1, strings.Join(t.slice(idx, end+1), ""))
			break
		}
	}
	for idx := 0; idx < len(t); idx++ {
		if t[idx] == `\cmidrule` || t[idx] == `\cline` {
			sub := idx + 1
			var end int
			if t.at(sub) == "(" {
				mid := t.matchBrace(sub, "(", ")")
				end = t.matchBrace(mid+1, "{", "}")
			} else {
				end = t.matchBrace(sub, "{", "}")
			}
			t = t.splice(idx, end+1, strings.Join(t.slice(idx, end+1), ""))
		}
	}
	return strings.Join(t, " ")
}

// fillBraces is the reference's last normalize_latex step: it adds the
// braces that accents, font commands, \sqrt, \frac and friends omit.
func fillBraces(list []string) []string {
	t := pyList(list)
	for idx := 0; idx < len(t); idx++ {
		switch tailOf(t[idx]) {
		case oneTail:
			sub := idx + 1
			for sub < len(t) && tailOf(t[sub]) == oneTail {
				sub++
			}
			// t[:idx] + [t[idx], "{", …, t[sub-1], "{"] + the argument
			// + ["}"] * (sub-idx) + the rest, built in one list
			var arg, rest pyList
			if t.at(sub) != "{" {
				arg, rest = t[sub:sub+1], t.view(sub+1, len(t))
			} else {
				end := t.matchBrace(sub, "{", "}")
				arg, rest = t.view(sub+1, end), t.view(end+1, len(t))
			}
			head := t.view(0, idx)
			out := make(pyList, 0, len(head)+3*(sub-idx)+len(arg)+len(rest))
			out = append(out, head...)
			for ii := idx; ii < sub; ii++ {
				out = append(out, t[ii], "{")
			}
			out = append(out, arg...)
			for range sub - idx {
				out = append(out, "}")
			}
			t = append(out, rest...)
		case abTail:
			next := t.at(idx + 1)
			if next != "[" && next != "{" {
				t = t.wrap(idx + 1)
			} else {
				end1 := idx
				if next == "[" {
					end1 = t.matchBrace(idx+1, "[", "]")
				}
				if t.at(end1+1) != "{" {
					t = t.wrap(end1 + 1)
				}
			}
		case twoTail:
			if t.at(idx+1) != "{" {
				t = t.wrap(idx + 1)
			}
			end1 := t.matchBrace(idx+1, "{", "}")
			if t.at(end1+1) != "{" {
				t = t.wrap(end1 + 1)
			}
		}
	}
	return t
}

// pyList is a token list with Python's indexing and slicing semantics,
// which the reference's passes rely on (including their failures).
type pyList []string

// pyAt is Python's l[i]: negative indices count from the end; out of
// range panics with IndexError, which the callers turn into ErrCDMPass.
func pyAt[T any](l []T, i int) T {
	if i < 0 {
		i += len(l)
	}
	if i < 0 || i >= len(l) {
		panic("IndexError: list index out of range")
	}
	return l[i]
}

// pySlice is Python's l[a:b], with its clamping of negative and large
// bounds; it returns a copy.
func pySlice[T any](l []T, a, b int) []T {
	a, b = pyIndex(a, len(l)), pyIndex(b, len(l))
	if a >= b {
		return nil
	}
	return append([]T(nil), l[a:b]...)
}

func (l pyList) at(i int) string       { return pyAt(l, i) }
func (l pyList) slice(a, b int) pyList { return pySlice(l, a, b) }

// view is l[a:b] as Python slices it, without the copy: for reading only.
func (l pyList) view(a, b int) pyList {
	a, b = pyIndex(a, len(l)), pyIndex(b, len(l))
	if a >= b {
		return nil
	}
	return l[a:b]
}

// tailOf is tailClass[s], looked up only for a control word (every
// command the map holds is one).
func tailOf(s string) uint8 {
	if s == "" || s[0] != '\\' {
		return 0
	}
	return tailClass[s]
}

// splice is l[:a] + [item] + l[b:].
func (l pyList) splice(a, b int, item string) pyList {
	out := append(l.slice(0, a), item)
	return append(out, l.slice(b, len(l))...)
}

// wrap is l[0:i] + ["{", l[i], "}"] + l[i+1:].
func (l pyList) wrap(i int) pyList {
	x := l.at(i)
	head, rest := l.view(0, i), l.view(i+1, len(l))
	out := make(pyList, 0, len(head)+3+len(rest))
	out = append(out, head...)
	out = append(out, "{", x, "}")
	return append(out, rest...)
}

// matchBrace is the reference's find_matching_brace: the index of the
// bracket closing the one at start, -1 when the depth never returns to
// zero from above, and a failure when brackets stay open at the end.
func (l pyList) matchBrace(start int, open, close string) int {
	return pyMatchBrace(l, start, open, close, func(s string) string { return s })
}

// pyMatchBrace is find_matching_brace over any list whose items have a
// text: Python's for i, c in enumerate(l[start:], start=start), so a
// negative start reports negative indices, which later slice differently.
func pyMatchBrace[T any](l []T, start int, open, close string, text func(T) string) int {
	depth := 0
	for k, it := range l[pyIndex(start, len(l)):] {
		switch text(it) {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return start + k
			}
		}
	}
	if depth > 0 {
		panic("ValueError: no matching brace")
	}
	return -1
}

// TokenKind says what the reference's colouring pass made of a token of the
// normalized string.
type TokenKind uint8

// Token kinds.
const (
	// Structural tokens are not drawn on their own: braces, scripts
	// markers, alignment, \left and \right alone, spacing, environment
	// delimiters.
	Structural TokenKind = iota
	// Visible tokens get a colour and therefore a box: symbols, and the
	// commands that draw something of their own (\frac's bar, accents,
	// radicals, extensible arrows).
	Visible
	// FontSwitch tokens (\mathrm, \mathbf, \text, \operatorname, …) are not
	// tokens; their argument's tokens are.
	FontSwitch
	// Phantom tokens and their argument are skipped entirely.
	Phantom
)

func (k TokenKind) String() string {
	switch k {
	case Visible:
		return "visible"
	case FontSwitch:
		return "font"
	case Phantom:
		return "phantom"
	}
	return "structural"
}

// CDMTokens is the outcome of the colouring pass over a normalized string.
type CDMTokens struct {
	// Tokens are the coloured tokens in colouring order: token k gets the
	// k-th colour of the reference's palette.
	Tokens []string
	// Colored is the normalized string with each coloured token wrapped as
	// \mathcolor[RGB]{<color_k>}{…}, as the reference renders it.
	Colored string
	// Split is the normalized string cut on single spaces (what the pass
	// walked) and Kinds the kind of each of its items.
	Split []string
	Kinds []TokenKind
}

// ColorTokensCDM runs the reference's token selection (token_add_color_RGB)
// over a normalize_latex output.
func ColorTokensCDM(normalized string) (res CDMTokens, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = CDMTokens{}, fmt.Errorf("%w: %v", ErrCDMPass, r)
		}
	}()
	split := strings.Split(pyStrip(normalized), " ")
	// (the coloured tokens, sized for one in two of the items: appending
	// grows it past that)
	c := &colorer{kinds: make([]TokenKind, len(split)), budget: runawayBudget(len(split)), tokens: make([]string, 0, len(split)/2+1)}
	// sized once, with room for the closing braces the colouring inserts
	c.l = make(items, len(split), len(split)+len(split)/8+4)
	for i, s := range split {
		c.l[i] = item{s, i}
	}
	for idx := 0; idx < len(c.l); {
		idx = c.step(idx, false)
	}
	if len(c.tokens) == 0 {
		c.tokens = nil // none coloured: nil, as when the list was grown by appending
	}
	return CDMTokens{Tokens: c.tokens, Colored: joinItems(c.l), Split: split, Kinds: c.kinds}, nil
}

// item is one element of the list the colouring pass rewrites: its text
// and the index of the normalized token it came from (-1 if inserted).
type item struct {
	s string
	o int
}

// joinItems is strings.Join of the items' strings with " ", built
// without the intermediate slice.
func joinItems(l items) string {
	if len(l) == 0 {
		return ""
	}
	n := len(l) - 1
	for _, it := range l {
		n += len(it.s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, it := range l {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(it.s)
	}
	return b.String()
}

// items is a list with Python's indexing and slicing semantics.
type items []item

func (l items) at(i int) item        { return pyAt(l, i) }
func (l items) slice(a, b int) items { return pySlice(l, a, b) }

// concat builds a new list from parts (Python's list + list + …).
func concat(parts ...items) items {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make(items, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func inserted(s string) items { return items{{s, -1}} }

// set replaces the item at idx (which the caller has read, so it exists).
func (c *colorer) set(idx int, it item) { c.l[idx] = it }

// setInsert is l[:idx] + [it] + l[idx+1:at] + [ins] + l[at:] in Python: in
// place when the indices are ordinary, by literal slicing otherwise (a -1
// from an unmatched brace makes Python repeat parts of the list).
func (c *colorer) setInsert(idx int, it item, at int, ins string) {
	l := c.l
	if idx >= 0 && idx < at && at <= len(l) {
		l[idx] = it
		l = append(l, item{})
		copy(l[at+1:], l[at:])
		l[at] = item{ins, -1}
		c.l = l
		return
	}
	c.l = concat(l.slice(0, idx), items{it}, l.slice(idx+1, at), inserted(ins), l.slice(at, len(l)))
}

type colorer struct {
	l      items
	kinds  []TokenKind
	tokens []string
	// budget bounds the steps and the list's growth: see runawayBudget.
	budget, steps int
}

// runawayBudget is how many steps the colouring pass may take, and how
// long its list may grow, over n normalized tokens. On real formulas the
// pass takes at most 1.25 steps per token and the list grows at most 1.29
// times (the 185,569 formulas of the large tokenizer golden). Some broken
// formulas send the reference into a loop that never ends: an unmatched
// brace makes its slicing repeat the list ahead of the loop (\sqrt [
// \sqrt ] { b }, which the normalizer turns into \sqrt [ \sqrt { ] } { b
// }), so the list grows until Python raises MemoryError and the formula
// fails. leakaudit stops at the budget and fails the formula the same way.
func runawayBudget(n int) int { return 8*n + 64 }

// errRunaway is the panic value of a pass that exceeded its budget.
const errRunaway = "the colouring pass does not end (the reference loops until it runs out of memory)"

func (c *colorer) colorTag() string {
	return `\mathcolor[RGB]{<color_` + strconv.Itoa(len(c.tokens)) + `>}{`
}

// tagged is before + c.colorTag() + tok + after, in one allocation.
func (c *colorer) tagged(before, tok, after string) string {
	var num [20]byte
	return before + `\mathcolor[RGB]{<color_` + string(strconv.AppendInt(num[:0], int64(len(c.tokens)), 10)) + `>}{` + tok + after
}

func (c *colorer) mark(it item, k TokenKind) {
	if it.o >= 0 {
		c.kinds[it.o] = k
	}
}

func (c *colorer) brace(start int, open, close string) int {
	return pyMatchBrace(c.l, start, open, close, func(it item) string { return it.s })
}

// step processes the item at idx and returns the next index to visit; it is
// a line-by-line translation of the reference's token_add_color_RGB.
func (c *colorer) step(idx int, braceColor bool) int {
	if c.steps++; c.steps > c.budget || len(c.l) > c.budget {
		panic(errRunaway)
	}
	cur := c.l.at(idx)
	tok := cur.s
	l := c.l
	listed := tok != "" && listedFirst[tok[0]] // may be in a token set
	switch {
	case tok == "":
		return idx + 1
	case listed && phantomTokens[tok]:
		end := idx + 1
		if l.at(idx+1).s == "{" {
			end = c.brace(idx+1, "{", "}")
		}
		for _, it := range l.slice(idx, end+1) {
			c.mark(it, Phantom)
		}
		return end + 1
	case listed && twoTailTokens[tok]:
		numEnd := c.brace(idx+1, "{", "}")
		denEnd := c.brace(numEnd+1, "{", "}")
		c.mark(cur, Visible)
		c.setInsert(idx, item{c.tagged("", tok, ""), cur.o}, denEnd+1, "}")
		c.tokens = append(c.tokens, tok)
		return idx + 1
	case listed && oneTailTokens[tok]:
		numEnd := c.brace(idx+1, "{", "}")
		c.mark(cur, Visible)
		tag := c.colorTag()
		if tok != `\underbrace` && numEnd+1 < len(l) && l.at(numEnd+1).s == "_" {
			c.setInsert(idx, item{"{" + tag + tok, cur.o}, numEnd+1, "}}")
		} else {
			c.setInsert(idx, item{tag + tok, cur.o}, numEnd+1, "}")
		}
		c.tokens = append(c.tokens, tok)
		return idx + 1
	case listed && oneTailInvisb[tok]:
		c.mark(cur, FontSwitch)
		numStart := idx + 1
		numEnd := c.brace(numStart, "{", "}")
		if numEnd-numStart == 2 {
			inner := l.at(numStart + 1)
			tag := c.colorTag()
			c.tokens = append(c.tokens, inner.s)
			c.mark(inner, Visible)
			c.set(numStart+1, item{tag + inner.s + "}", inner.o})
		} else {
			for sub := numStart + 1; sub < numEnd; {
				sub = c.step(sub, false)
			}
		}
		return numEnd + 1
	case listed && abTailTokens[tok]:
		switch l.at(idx + 1).s {
		case "{":
			numStart := idx + 1
			numEnd := c.brace(numStart, "{", "}")
			c.mark(cur, Visible)
			c.setInsert(idx, item{c.tagged("", tok, ""), cur.o}, numEnd+1, "}")
			c.tokens = append(c.tokens, tok)
			for sub := numStart + 1; sub < numEnd; {
				sub = c.step(sub, false)
			}
			return numEnd + 1
		case "[":
			numStart := idx + 1
			numEnd := c.brace(numStart, "[", "]")
			denStart := numEnd + 1
			denEnd := c.brace(denStart, "{", "}")
			c.mark(cur, Visible)
			c.setInsert(idx, item{c.tagged("", tok, ""), cur.o}, denEnd+1, "}")
			c.tokens = append(c.tokens, tok)
			for sub := numStart + 1; sub < numEnd; {
				sub = c.step(sub, true)
			}
			for sub := denStart + 1; sub < denEnd; {
				sub = c.step(sub, false)
			}
			return denEnd + 1
		}
		// The reference leaves next_idx unset here and fails.
		panic("UnboundLocalError: next_idx")
	case tok == `\multicolumn` || tok == `\multirow`:
		firstEnd := c.brace(idx+1, "{", "}")
		secondEnd := c.brace(firstEnd+1, "{", "}")
		thirdStart := secondEnd + 1
		thirdEnd := c.brace(thirdStart, "{", "}")
		for sub := thirdStart + 1; sub < thirdEnd; {
			sub = c.step(sub, false)
		}
		return thirdEnd + 1
	case listed && (skipTokens[tok] || twoTailInvisb[tok]) || matchesSkip(tok):
		if (tok == "[" && l.at(idx-1).s != `\sqrt`) || (tok == "]" && idx >= 3 && l.at(idx-3).s != `\sqrt`) {
			c.mark(cur, Visible)
			c.set(idx, item{c.tagged("", tok, "}"), cur.o})
			c.tokens = append(c.tokens, tok)
		}
		return idx + 1
	}
	c.mark(cur, Visible)
	if braceColor || (idx > 1 && l.at(idx-1).s == "_") {
		c.set(idx, item{c.tagged("{", tok, "}}"), cur.o})
	} else {
		c.set(idx, item{c.tagged("", tok, "}"), cur.o})
	}
	c.tokens = append(c.tokens, tok)
	return idx + 1
}

// pyIndex turns a possibly negative Python index into a position in a
// list of length n, clamped as slicing does.
func pyIndex(i, n int) int {
	if i < 0 {
		i += n
		if i < 0 {
			i = 0
		}
	}
	if i > n {
		i = n
	}
	return i
}

// matchesSkip reports whether tok matches one of the reference's
// SKIP_PATTERNS at its start (Python's re.match), without a regular
// expression per token.
func matchesSkip(tok string) bool {
	if tok == "" {
		return false
	}
	switch tok[0] {
	case '{', '}', '[', ']', '^', '_':
		return true
	case '\\':
		rest := tok[1:]
		for _, env := range []string{"begin{", "end{"} {
			if strings.HasPrefix(rest, env) {
				if j := strings.IndexByte(rest[len(env):], '}'); j >= 0 && !strings.Contains(rest[len(env):len(env)+j], "\n") {
					return true
				}
			}
		}
		for _, word := range []string{"rule", "line"} {
			if j := strings.Index(rest, word); j >= 0 && !strings.Contains(rest[:j], "\n") {
				return true
			}
		}
	}
	return false
}

// PaletteSize is the number of colours in the reference's palette; tokens
// beyond it keep their placeholder and render black.
const PaletteSize = 5800

// TokenColor is the RGB colour the reference gives token k (0-based): the
// (k+1)-th entry of gen_color_list(num=5800, gap=15). ok is false beyond
// the palette.
func TokenColor(k int) (r, g, b uint8, ok bool) {
	i := k + 1
	if k < 0 || i > PaletteSize {
		return 0, 0, 0, false
	}
	return uint8(15 * (i / 324)), uint8(15 * (i % 324 / 18)), uint8(15 * (i % 18)), true
}

// ColorToken is the inverse of TokenColor: the token whose colour is
// (r, g, b), or −1.
func ColorToken(r, g, b uint8) int {
	if r%15 != 0 || g%15 != 0 || b%15 != 0 || g/15 >= 18 || b/15 >= 18 {
		return -1
	}
	i := int(r/15)*324 + int(g/15)*18 + int(b/15)
	if i < 1 || i > PaletteSize {
		return -1
	}
	return i - 1
}

// Rendered is Colored with every palette placeholder <color_k> (the
// regular expression <color_(\d+)>) replaced by its "r,g,b" colour: the
// LaTeX the reference hands to pdflatex.
func (t CDMTokens) Rendered() string {
	// a scan for the placeholders, leftmost first, as a regexp's
	// ReplaceAllStringFunc finds them
	const open = "<color_"
	s := t.Colored
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	done := 0 // s[:done] is written
	for at := 0; ; {
		i := strings.Index(s[at:], open)
		if i < 0 {
			break
		}
		start := at + i
		end := start + len(open)
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if end == start+len(open) || end == len(s) || s[end] != '>' {
			at = start + 1 // no match here
			continue
		}
		b.WriteString(s[done:start])
		writeColor(&b, s[start:end+1])
		done, at = end+1, end+1
	}
	b.WriteString(s[done:])
	return b.String()
}

// writeColor writes the "r,g,b" colour of a <color_k> placeholder m to
// b, or m itself when k is not a palette token.
func writeColor(b *strings.Builder, m string) {
	k, err := strconv.Atoi(m[len("<color_") : len(m)-1])
	r, g, bl, ok := TokenColor(k)
	if err != nil || !ok {
		b.WriteString(m)
		return
	}
	var buf [len("255,255,255")]byte
	out := strconv.AppendUint(buf[:0], uint64(r), 10)
	out = append(out, ',')
	out = strconv.AppendUint(out, uint64(g), 10)
	out = append(out, ',')
	out = strconv.AppendUint(out, uint64(bl), 10)
	b.Write(out)
}

// OneArgumentCommands lists the commands the reference's colouring pass
// reads with one braced argument: accents and font or text switches.
func OneArgumentCommands() []string {
	var out []string
	for _, m := range []map[string]bool{oneTailTokens, oneTailInvisb} {
		for k := range m {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
