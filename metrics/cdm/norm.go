package cdm

import "strings"

// headTokenMap is the reference's norm_same_token table (UniMERNet cdm
// at 5a2c80d): tokens that render alike. The reference's Python dict
// lists \neq twice; the later entry (\not=) wins, so \ne and \neq are
// different classes there.
var headTokenMap = map[string]string{
	`\dot`: ".", `\Dot`: ".", `\cdot`: ".", `\cdotp`: ".", `\ldotp`: ".",
	`\mid`: "|", `\rightarrow`: `\to`, `\top`: "T", `\Tilde`: `\tilde`, `\prime`: "'", `\ast`: "*",
	`\left<`: `\langle`, `\right>`: `\rangle`, `\lbrace`: `\{`, `\rbrace`: `\}`, `\lbrack`: "[", `\rbrack`: "]",
	`\blackslash`: "/", `\slash`: "/", `\leq`: `\le`, `\geq`: `\ge`,
	`\Vert`: `\|`, `\lVert`: `\|`, `\rVert`: `\|`, `\vert`: "|", `\lvert`: "|", `\rvert`: "|", `\colon`: ":",
	`\Ddot`: `\ddot`, `\Bar`: `\bar`, `\Vec`: `\vec`, `\parallel`: `\|`, `\dag`: `\dagger`, `\ddag`: `\ddagger`,
	`\textlangle`: "<", `\textrangle`: ">", `\textgreater`: ">", `\textless`: "<", `\textbackslash`: "n",
	`\textunderscore`: "_", `\=`: "_", `\neg`: `\lnot`, `\neq`: `\not=`,
}

// normHead is the reference's norm_same_token.
func normHead(tok string) string { return normWith(tok, headTokenMap, true) }

// normStrict is norm_same_token with the reference's slips fixed: \ne
// and \neq are one class, and \var… glyphs (which differ) stay apart.
func normStrict(tok string) string {
	if tok == `\neq` || tok == `\not=` {
		return `\ne`
	}
	return normWith(tok, headTokenMap, false)
}

// normOmniDocBench is the older table of OmniDocBench's vendored copy:
// the same classes, and every …rightarrow is \rightarrow, every
// …leftarrow \leftarrow, \cdots \dots.
func normOmniDocBench(tok string) string {
	switch {
	case strings.HasSuffix(tok, "rightarrow"):
		tok = `\rightarrow`
	case strings.HasSuffix(tok, "leftarrow"):
		tok = `\leftarrow`
	case tok == `\cdots`:
		tok = `\dots`
	}
	return normWith(tok, headTokenMap, true)
}

func normWith(tok string, table map[string]string, mergeVar bool) string {
	if strings.HasPrefix(tok, `\left`) || strings.HasPrefix(tok, `\right`) {
		if !strings.Contains(tok, "arrow") && !strings.ContainsAny(tok, "<>") && !strings.Contains(tok, "harpoon") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, `\left`, ""), `\right`, "")
		}
	}
	if strings.HasPrefix(tok, `\big`) || strings.HasPrefix(tok, `\Big`) {
		// (\bigcup becomes "p" here, as in the reference)
		if rest := tok[4:]; strings.Contains(rest, `\`) {
			parts := strings.Split(rest, `\`)
			tok = `\` + parts[len(parts)-1]
		} else {
			tok = tok[len(tok)-1:]
		}
	}
	if m, ok := table[tok]; ok {
		tok = m
	}
	switch {
	case strings.HasPrefix(tok, `\wide`):
		return strings.ReplaceAll(tok, "wide", "")
	case mergeVar && strings.HasPrefix(tok, `\var`):
		return strings.ReplaceAll(tok, "var", "")
	case strings.HasPrefix(tok, `\string`):
		return strings.ReplaceAll(tok, `\string`, "")
	}
	return tok
}
