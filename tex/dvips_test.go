package tex

import "testing"

// TestDriverGrid checks the DVI commands TypesetInline records against
// the layout they come from: at a resolution fine enough that rounding
// never drifts, every glyph and rule lands on its own position rounded.
func TestDriverGrid(t *testing.T) {
	if _, _, _, ok := mustTypeset(t, Typeset, `a+b`).DriverGrid(0, 0, 600, 6); ok {
		t.Error("Typeset records DVI commands; only TypesetInline does")
	}
	for _, f := range []string{`x^2+1`, `\frac{a}{b} + \sqrt{x_1}`, `\left( \sum_{i=1}^n x_i \right)`, `\begin{array}{cc} a & b \\ c & d \end{array}`, `\boxed{x} \overbrace{a+b}^{n}`} {
		l := mustTypeset(t, TypesetInline, f)
		const dpi = 72.27 * 65536                        // one pixel a scaled point
		h0, v0 := Scaled(10_000_000), Scaled(20_000_000) // on the page: positive
		xs, ys, rules, ok := l.DriverGrid(h0, v0, dpi, 0)
		if !ok {
			t.Fatalf("%s: no DVI commands", f)
		}
		for i, g := range l.Glyphs {
			if xs[i] != int(h0+g.X) || ys[i] != int(v0+g.Y) {
				t.Errorf("%s: glyph %d at (%d, %d), layout (%d, %d)", f, i, xs[i], ys[i], h0+g.X, v0+g.Y)
			}
		}
		for i, r := range l.Rules {
			b := rules[i]
			if b.Min.X != int(h0+r.X) || b.Max.Y != int(v0+r.Y) || b.Dx() != int(r.Width) || b.Dy() != int(r.Height) {
				t.Errorf("%s: rule %d at %v, layout (%d, %d) %d×%d", f, i, b, h0+r.X, v0+r.Y, r.Width, r.Height)
			}
		}
	}
}

func mustTypeset(t *testing.T, typeset func(string) (*Layout, error), f string) *Layout {
	t.Helper()
	l, err := typeset(f)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return l
}

// TestTypesetInlineConcurrent loads the 10 pt tables while other formulas
// are set (go test -race).
func TestTypesetInlineConcurrent(t *testing.T) {
	done := make(chan error)
	for i := range 8 {
		go func() {
			var err error
			if i%2 == 0 {
				_, err = TypesetInline(`\boldsymbol{\alpha} + x^{2}`)
			} else {
				_, err = Typeset(`\boldsymbol{\alpha} + x^{2}`)
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
