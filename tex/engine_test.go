package tex

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzTypeset: no formula makes the engine panic (a recovered panic,
// ErrInternal, is a failure here), and pixel boxes are computable for
// whatever it lays out.
func FuzzTypeset(f *testing.F) {
	for _, s := range []string{`x^{2}+\frac{a}{b}`, `\sqrt[3]{x_1}\left(\sum_{i}\hat{a}\right)`, `\begin{array}{ll} a & b \\ c & d \end{array}`,
		`\mathcolor[RGB]{0,0,15}{x} ^ { \mathcolor[RGB]{0,0,30}{2} }`, `\text{if } x \overset{a}{=} \widehat{abc}`, `{a \over b} \big( x \bigr)`,
		`\mathcolor[RGB]{0,0,15}{\left(} x \mathcolor[RGB]{0,0,30}{\right)}`, `\overrightarrow{AB} \cong \notin \vdots \substack{a \\ b}`,
		`\begin{pmatrix} a & b \\ c & d \end{pmatrix} \begin{cases} x & y \\ z \end{cases}`, `\begin{aligned} a &= b \\[2pt] &= c \end{aligned}`,
		`\begin{array}{|c||*{2}{l}|} \hline a & b \\* c \end{array}`, `\frac{m \mathcolor[RGB]{0,0,15}{\sp} {2}}{x} a}+b \right)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Typeset(s)
		if errors.Is(err, ErrInternal) {
			t.Fatalf("%q: %v", s, err)
		}
		if err == nil {
			l.PixelBoxes(8, PageA5, ReferenceRaster)
			if img, err := l.Render(RenderOptions{Page: PageA5, Pad: 8}); err == nil && float64(img.Rect.Dx()) > PageA5.Width.Pt()*200/72.27+17 {
				t.Fatalf("%q: a render %d px wide is wider than the page", s, img.Rect.Dx())
			}
		}
	})
}

// TestHostileFormulas: each hostile input gets a bounded-time error or a
// layout, never a panic or a hang.
func TestHostileFormulas(t *testing.T) {
	for name, s := range map[string]string{
		"300k characters":    strings.Repeat("x+", 150_000),
		"60k tokens":         strings.Repeat("x ", 60_000),
		"10k nested braces":  strings.Repeat("{", 10_000) + "x" + strings.Repeat("}", 10_000),
		"10k nested scripts": strings.Repeat("x^{", 10_000) + strings.Repeat("}", 10_000),
		"10k nested fracs":   strings.Repeat(`\frac{1}{`, 10_000) + strings.Repeat("}", 10_000),
		"invalid UTF-8":      "x\xff\xfe+\xc3",
		"NUL bytes":          "x\x00+\x00y",
		"unbalanced":         `\frac{a}{b`,
		"runaway colour":     `\mathcolor[RGB]{0,0,15}{x`,
		"lone right":         `\right)`,
		"deep left":          strings.Repeat(`\left(`, 5_000),
		"many sqrt indexes":  strings.Repeat(`\sqrt[`, 1_000),
		"huge array":         `\begin{array}{` + strings.Repeat("c", 1000) + `}` + strings.Repeat("x&", 999) + `x\end{array}`,
		"macro loop guard":   strings.Repeat(`\neq`, 20_000),
	} {
		start := time.Now()
		l, err := Typeset(s)
		if errors.Is(err, ErrInternal) {
			t.Errorf("%s: %v", name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v to fail or lay out", name, d)
		}
		t.Logf("%s: %v (%d glyphs)", name, err, func() int {
			if l == nil {
				return 0
			}
			return len(l.Glyphs)
		}())
	}
}
