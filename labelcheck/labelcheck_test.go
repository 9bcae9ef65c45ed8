package labelcheck

import (
	"strings"
	"testing"
	"time"
)

// TestNotation: labels that are one formula in two notations agree at the
// rung named; labels that are two formulas do not.
func TestNotation(t *testing.T) {
	cases := []struct {
		a, b  string
		level string // "" when they must differ
	}{
		{`a_n`, `a _ { n }`, LevelTokens},
		{`$a_n$`, ` a_n`, LevelWS},
		{`$x^2$`, `x ^ { 2 }`, LevelTokens},
		{`\sum_{l}`, `\sum \limits _ { l }`, LevelTokens},
		{`\left( a+b \right)`, `( a + b )`, LevelTokens},
		{`\left( {a \pm c} \right)\sqrt b`, `( a \pm c ) \sqrt { b }`, LevelTypeset},
		{`{a \pm c}`, `a \pm c`, LevelTypeset},
		{`{x}+1`, `x+1`, LevelRender},
		{`$\frac1p + \frac1q=1 \!$`, `\frac { 1 } { p } + \frac { 1 } { q } = 1`, LevelRender},
		{`$\mathrm{kg}$`, `k g`, LevelTypeset},
		{`$\mathrm{R^0_0}\!$`, `R _ { 0 } ^ { 0 }`, LevelTypeset},
		{`$ log (a) $`, `\log ( a )`, LevelTypeset},
		{`${v_1}^2 + {x_2}^2$`, `v _ { 1 } ^ { 2 } + x _ { 2 } ^ { 2 }`, LevelTypeset},
		{`$1011\ 1110_2$`, `1 0 1 1 1 1 1 0 _ { 2 }`, LevelTypeset},
		{`\sqrt{v^2-{v_v}^2}`, `\sqrt { v ^ { 2 } - v _ { v } ^ { 2 } }`, LevelTypeset},
		{`\left( \frac{a}{b} \right) + {x}`, `( \frac { a } { b } ) + x`, LevelRender},
		{`\left( \frac{a}{b} \right) + \mathrm{x}`, `( \frac { a } { b } ) + x`, LevelTypeset},
		{`\lim \limits _ {y \rightarrow x}} f (y)`, `\lim \limits _ { y \rightarrow x } f ( y )`, LevelTypeset},
		{` \frac { z } { { \mbox { i } } _ { \mbox { m } } } `, `\frac { z } { i _ { m } }`, LevelTypeset},
		{` \int ^ { h } _ { \mbox { t } } t df `, `\int \limits _ { t } ^ { h } t d f`, LevelTypeset},
		{` { \mbox { X } \gt \int 3 dS } `, `X > \int 3 d S`, LevelTypeset},
		// different formulas
		{`\int_{t}^{h} f`, `\int_{h}^{t} f`, ""},
		{`\mbox{sin} x`, `\sin x^2`, ""},
		{`a_n`, `a^n`, ""},
		{`ab`, `ba`, ""},
		{`x^2 y`, `x y^2`, ""},
		{`| x \parallel y |`, `| x | | y |`, ""},
		{`\sqrt {648} ABOVE {4}`, `\sqrt [ 4 ] { 6 4 8 }`, ""},
		{`B (y) _ {=} 1`, `B ( y ) = 1`, ""},
		{`\frac{a}{b}`, `a / b`, ""},
		{`x+1`, `x-1`, ""},
		{`\mathbf{x}`, `x`, ""},
		{`\alpha`, `a`, ""},
	}
	for _, c := range cases {
		r := Compare(c.a, c.b)
		if c.level == "" {
			if r.Same {
				t.Errorf("%q vs %q: same at %s, want different formulas", c.a, c.b, r.Level)
			} else if r.Diff == nil || r.Diff.Edits <= 0 {
				t.Errorf("%q vs %q: %+v, want some token edits", c.a, c.b, r.Diff)
			}
			continue
		}
		if !r.Same || r.Level != c.level {
			t.Errorf("%q vs %q: %s, want same at %s", c.a, c.b, r.Reason(), c.level)
		}
		if back := Compare(c.b, c.a); back.Same != r.Same || back.Level != r.Level {
			t.Errorf("%q vs %q: not symmetric (%s, then %s)", c.a, c.b, r.Reason(), back.Reason())
		}
	}
}

// TestDistance: different formulas say by how much.
func TestDistance(t *testing.T) {
	r := Compare(`x + 1`, `x - 1`)
	if r.Same || r.Diff == nil || r.Diff.Edits != 1 || r.Diff.Tokens != [2]int{3, 3} {
		t.Fatalf("x+1 vs x-1: %+v", r)
	}
	if f := r.Diff.CDMF1; f == nil || *f >= 1 || *f <= 0 {
		t.Fatalf("x+1 vs x-1: CDM F1 %v, want in (0,1)", f)
	}
	if got := r.Reason(); got != "different formulas: 1 token edit(s) (3 and 3 tokens), CDM F1 0.667" {
		t.Errorf("reason %q", got)
	}
	d := FromDigests("render", false)
	if d.Same || d.Diff != nil || d.Reason() == "" {
		t.Errorf("from digests: %+v", d)
	}
}

// TestHostileLabels: broken, empty and huge labels never panic.
func TestHostileLabels(t *testing.T) {
	big := ""
	for range 2000 {
		big += `{x^`
	}
	huge := strings.Repeat(`x+`, 100_000) + "y"
	start := time.Now()
	r := Compare(huge, huge+"+z")
	if r.Same || r.Diff == nil || r.Diff.Edits != -1 || time.Since(start) > 20*time.Second {
		t.Errorf("200k-token labels: %s in %v", r.Reason(), time.Since(start))
	}
	for _, s := range []string{"", "}", "{", `\`, `\left(`, `\right.`, `$`, "\xff\xfe", big, `\begin{array}{c} a \end{array}`} {
		_ = Compare(s, `x`).Reason()
		_ = Compare(`x`, s).Reason()
		_ = Compare(s, s).Reason()
	}
}
