package latex

import (
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The reference's tabular path (docs/cdm.md §3): a formula holding
// "tabular" is not normalized by the KaTeX printer but tokenized by
// tokenize_latex.py's tabular branch: the line is cut at its first %,
// \end{tabular} is appended when missing, perl rewrites hskip…unit as
// hspace{…unit}, and preprocess_tabular.js prints the tokens the patched
// KaTeX 0.6 parser consumes (its global_str), each after a space, with
// each \begin/\end's braced name joined into one token ("\begin
// {tabular}"). A parse error prints an empty line, and the reference then
// falls back to the raw (protected) formula.

// IsTabular reports whether the reference sends a formula down its
// tabular path (and typesets it on its tabular template).
func IsTabular(formula string) bool { return strings.Contains(formula, "tabular") }

var (
	reHskip      = regexp.MustCompile(`hskip(.*?)(cm|in|pt|mm|em)`)
	reTabLabel   = regexp.MustCompile(`\\label\{[^\n\r\x{2028}\x{2029}]*?\}`)
	reTabLabelTk = regexp.MustCompile(`\\label \{ [^\n\r\x{2028}\x{2029}]*? \}`)
)

// TabularTokenize is tokenize_latex's tabular branch on a formula prepared
// by ProtectCDM: ok is false where the reference's parser fails (or
// prints nothing) and the reference falls back to the raw formula.
func TabularTokenize(formula string) (out string, ok bool) {
	s := strings.ReplaceAll(formula, `\\%`, `\\ %`)
	s = strings.ReplaceAll(s, `\%`, "<PERCENTAGE_TOKEN>")
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, "<PERCENTAGE_TOKEN>", `\%`)
	if !strings.Contains(s, `\end{tabular}`) {
		s += `\end{tabular}`
	}
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	s = reHskip.ReplaceAllString(s, `hspace{${1}${2}}`)
	// preprocess_tabular.js
	s = strings.TrimPrefix(s, "%")
	s = strings.ReplaceAll(s, `\~`, " ")
	for i := 0; i < 300; i++ {
		a, c1 := jsReplaceFirst(s, `\>`, " ")
		c2 := false
		if loc := reTabLabel.FindStringIndex(a); loc != nil {
			a, c2 = a[:loc[0]]+a[loc[1]:], true
		}
		s = a
		if !c1 && !c2 {
			break
		}
	}
	s = flattenRows(s)
	s += " "
	toks, err := katexTokens(s)
	if err != nil {
		return "", false
	}
	if loc := reTabLabelTk.FindStringIndex(toks); loc != nil {
		toks = toks[:loc[0]] + toks[loc[1]:]
	}
	post := strings.Join(strings.FieldsFunc(toks, isPySpace), " ")
	if post == "" {
		return "", false
	}
	return post, true
}

// katexTokens parses a line as preprocess_tabular.js's "tokenize" mode
// does and returns global_str, or fails where the parser throws.
func katexTokens(line string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kfail); ok {
				out, err = "", errKaTeX
				return
			}
			panic(r)
		}
	}()
	var rec strings.Builder
	p := &kparser{in: line, mode: "math", rec: &rec, stack: make([]*knode, 0, 64), arena: getKArena()}
	defer putKArena(p.arena)
	p.next = p.lex(0, "math")
	p.parseExpression(false, "")
	p.expect("EOF", false)
	return rec.String(), nil
}

// recEnvName is the patched parser's rewrite after each \begin{name} and
// \end{name}: global_str loses its last 2·len(name)+2 UTF-16 units (the
// name's letters, each after a space, and " }") and gains name + "}", so
// that " \begin { n a m e }" becomes " \begin {name}". JavaScript's
// substring clamps a negative end to 0.
func (p *kparser) recEnvName(name string) {
	if p.rec == nil {
		return
	}
	s := p.rec.String()
	cut := 2*len(utf16.Encode([]rune(name))) + 2
	end := len(s)
	for cut > 0 && end > 0 {
		last, n := utf8.DecodeLastRuneInString(s[:end])
		end -= n
		cut -= utf16.RuneLen(last)
	}
	p.rec.Reset()
	p.rec.WriteString(s[:end])
	p.rec.WriteString(name + "}")
}
