package latex

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits on the formulas the tokenizer accepts. Longer or deeper input is
// refused with ErrTooLarge rather than parsed.
const (
	MaxFormulaBytes = 64 << 10
	MaxNesting      = 512
)

// ErrTooLarge is returned for a formula beyond MaxFormulaBytes or nested
// deeper than MaxNesting braces.
var ErrTooLarge = errors.New("formula exceeds the tokenizer's limits")

// CDMResult is the reference CDM's view of one formula.
type CDMResult struct {
	// KaTeXOK is false when the reference's KaTeX normalizer fails and the
	// raw formula is used instead (the reference's silent fallback).
	KaTeXOK bool
	// Katex is the normalizer's output, or the (protected) raw formula
	// after a fallback.
	Katex string
	// Normalized is normalize_latex's output.
	Normalized string
	CDMTokens
}

var reCJKRun = regexp.MustCompile(`[\x{4e00}-\x{9fff}\x{3400}-\x{4dbf}]+`)

// wrapChineseAt wraps each run of CJK ideographs in \text{…} unless it is
// already directly inside one (the reference's wrap_chinese_in_text).
func wrapChineseAt(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range reCJKRun.FindAllStringIndex(s, -1) {
		b.WriteString(s[last:loc[0]])
		run := s[loc[0]:loc[1]]
		before := s[max(0, loc[0]-6):loc[0]]
		after := s[loc[1]:min(len(s), loc[1]+1)]
		if strings.HasSuffix(before, `\text{`) && strings.HasPrefix(after, "}") {
			b.WriteString(run)
		} else {
			b.WriteString(`\text{` + run + `}`)
		}
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Nesting returns the deepest brace/bracket nesting of a formula, as the
// tokenizer's limit counts it.
func Nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// checkLimits refuses formulas beyond the tokenizer's limits.
func checkLimits(s string) error {
	if len(s) > MaxFormulaBytes {
		return fmt.Errorf("%w: %d bytes (limit %d)", ErrTooLarge, len(s), MaxFormulaBytes)
	}
	if deepest := Nesting(s); deepest > MaxNesting {
		return fmt.Errorf("%w: nesting depth %d (limit %d)", ErrTooLarge, deepest, MaxNesting)
	}
	return nil
}

// TokenizeCDM runs a formula through the whole reference preprocessing
// chain (docs/cdm.md §2–5): CJK wrapping, protection, the KaTeX normalizer
// (for a formula holding "tabular", the reference's tabular tokenizer,
// TabularTokenize) with its raw fallback, the fix-ups, normalize_latex and token selection.
// An error wrapping ErrCDMPass means the reference itself fails on the
// formula (it then counts as a render failure).
func TokenizeCDM(formula string) (CDMResult, error) {
	var res CDMResult
	if err := checkLimits(formula); err != nil {
		return res, err
	}
	s := formula
	tabular := IsTabular(formula)
	if containsCJK(s) && !tabular {
		// the reference wraps CJK only for its formula template
		s = strings.NewReplacer("，", ", ", "：", ": ", "；", "; ").Replace(s)
		s = wrapChineseAt(s)
	}
	s = ProtectCDM(s)
	tokenize := KaTeXNormalize
	if tabular {
		tokenize = TabularTokenize
	}
	if out, ok := tokenize(s); ok {
		res.KaTeXOK, res.Katex = true, out
	} else {
		res.Katex = s
	}
	n, err := NormalizeLatexCDM(PrepareCDM(res.Katex))
	if err != nil {
		return res, err
	}
	res.Normalized = n
	toks, err := ColorTokensCDM(n)
	if err != nil {
		return res, err
	}
	res.CDMTokens = toks
	return res, nil
}

// FailsOnBraces reports, without running it, that NormalizeKeepingPrimes
// fails on formula: the formula has more { tokens than } tokens, and the
// passes that prepare it for the parser leave it as it is (ParsedAsIs),
// so the parse of the prepared line fails (katexRender). Among edited
// labels, nearly half of those the tokenizer refuses are refused so.
func FailsOnBraces(formula string) bool {
	return bracesShort(formula) && ParsedAsIs(formula)
}

// ParsedAsIs reports whether the passes that prepare a formula for
// NormalizeKeepingPrimes' parser leave it as it is but for a trailing
// space: they act only on comments, $, \~, \>, \label, \rm, \\,
// environments, newlines and non-ASCII text (prepareLine and what
// NormalizeKeepingPrimes does before it), all absent from it. What the
// parser does with such a formula can then be told from the formula
// itself.
func ParsedAsIs(formula string) bool {
	for i := 0; i < len(formula); i++ {
		if c := formula[i]; c >= utf8.RuneSelf || c == '%' || c == '$' || c == '\n' {
			return false
		}
	}
	for _, pass := range []string{`\~`, `\>`, `\label`, `\rm`, `\\`, `\begin`} {
		if strings.Contains(formula, pass) {
			return false
		}
	}
	return true
}

// NormalizeKeepingPrimes runs the reference's preprocessing up to
// normalize_latex, as TokenizeCDM does, but keeps primes (the reference's
// KaTeX printer drops them) and does not fall back to the raw string: ok is
// false where the KaTeX normalizer, normalize_latex or a limit refuses the
// formula. The canonical tokens level is built on it.
func NormalizeKeepingPrimes(formula string) (normalized string, ok bool) {
	if checkLimits(formula) != nil || strings.Contains(formula, "tabular") {
		return "", false
	}
	s := formula
	if containsCJK(s) {
		s = strings.NewReplacer("，", ", ", "：", ": ", "；", "; ").Replace(s)
		s = wrapChineseAt(s)
	}
	out, ok := katexNormalize(ProtectCDM(s), true)
	if !ok {
		return "", false
	}
	n, err := NormalizeLatexCDM(PrepareCDM(out))
	if err != nil {
		return "", false
	}
	return n, true
}
