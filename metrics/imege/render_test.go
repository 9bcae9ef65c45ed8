package imege

import "testing"

// TestRenderSizeAsL2P checks that Render crops as l2p does: the image
// sizes are those of l2p's pipeline (latex, dvips -E, convert -density
// 600; Debian's TeX Live 2023 and ImageMagick) for the same formulas,
// measured once with metrics/imege/internal/l2pcheck's commands.
func TestRenderSizeAsL2P(t *testing.T) {
	for _, c := range []struct {
		formula string
		w, h    int
	}{
		{`a`, 67, 58},
		{`x^2+1`, 242, 92},
		{`\frac{a}{b}`, 67, 100},
		{`\sum_{i=1}^{n} x_i`, 317, 108},
		{`\sqrt{x+y}`, 300, 100},
		{`f(x)=\int_0^1 g`, 450, 125},
		{`\mathbf{A}^{\boldsymbol{\alpha}}`, 142, 75},
		{`\left( \frac{1}{2} \right)`, 142, 117},
	} {
		g, err := Render(c.formula, DPI, 0)
		if err != nil {
			t.Errorf("%s: %v", c.formula, err)
			continue
		}
		if g.W != c.w || g.H != c.h {
			t.Errorf("%s: %d×%d, l2p %d×%d", c.formula, g.W, g.H, c.w, c.h)
		}
	}
	// pad adds white around
	a, _ := Render(`a`, DPI, 0)
	b, err := Render(`a`, DPI, 3)
	if err != nil || b.W != a.W+6 || b.H != a.H+6 || b.Pix[0] != 255 {
		t.Errorf("pad 3: %v", err)
	}
}
