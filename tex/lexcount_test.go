package tex

import "testing"

// TestCountTokensBoundsLex checks that countTokens, which sizes the
// lexer's slice, is never below the number of tokens lex makes (nor above
// the formula's length), and exact on plain coloured formulas.
func TestCountTokensBoundsLex(t *testing.T) {
	cases := []struct {
		in    string
		exact bool
	}{
		{``, true},
		{`\mathcolor[RGB]{0,0,15}{x}^{\mathcolor[RGB]{0,0,30}{2}}`, true},
		{`\frac {a}{b} + \sqrt{x}`, false},
		{`\frac{a}{b}+\sqrt{x}`, true},
		{`\alpha  \beta`, false}, // blanks after a control word are skipped
		{`a % comment` + "\n" + `b`, true},
		{`\`, true},
		{`\é x`, false},
		{"a\x00b\x7f", false},
		{`x   y ~ & $ # _ ^ é 中`, true},
	}
	for _, c := range cases {
		n, got := len(lex(c.in)), countTokens(c.in)
		if got < n || got > len(c.in) || c.exact && got != n {
			t.Errorf("countTokens(%q) = %d, lex makes %d tokens (exact: %v)", c.in, got, n, c.exact)
		}
	}
}
