package latex

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// renderedByRegexp is Rendered as the regular expression <color_(\d+)>
// defines it, the reference for the scan Rendered runs.
func renderedByRegexp(colored string) string {
	re := regexp.MustCompile(`<color_(\d+)>`)
	return re.ReplaceAllStringFunc(colored, func(m string) string {
		k, err := strconv.Atoi(m[len("<color_") : len(m)-1])
		if err != nil {
			return m
		}
		r, g, b, ok := TokenColor(k)
		if !ok {
			return m
		}
		return fmt.Sprintf("%d,%d,%d", r, g, b)
	})
}

func TestRenderedMatchesRegexp(t *testing.T) {
	cases := []string{
		"",
		"x",
		"<color_0>",
		`\mathcolor[RGB]{<color_0>}{x}^{\mathcolor[RGB]{<color_1>}{2}}`,
		"<color_>",
		"<color_12",
		"<color_12 >",
		"<color_<color_3>>",
		"<<color_1>",
		"<color_1><color_2><color_5831>",
		"x<color_99999999999999999999>y",
		"<color_5831>", "<color_5832>", "<color_-1>",
		"<color_007>",
		"<color_１>",
		"<color_3x>",
		"<color",
		"<color_9>tail<color_",
	}
	for _, in := range cases {
		if got, want := (CDMTokens{Colored: in}).Rendered(), renderedByRegexp(in); got != want {
			t.Errorf("Rendered(%q) = %q, want %q", in, got, want)
		}
	}
	for _, f := range []string{`\frac { a } { b } + \sqrt { x ^ { 2 } }`, `\begin{array}{cc} a & b \\ c & d \end{array}`, `x _ { i } ^ { \prime }`} {
		res, err := TokenizeCDM(f)
		if err != nil {
			t.Fatalf("TokenizeCDM(%q): %v", f, err)
		}
		if got, want := res.Rendered(), renderedByRegexp(res.Colored); got != want {
			t.Errorf("Rendered of %q = %q, want %q", f, got, want)
		}
	}
}
