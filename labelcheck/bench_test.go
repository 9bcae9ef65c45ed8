package labelcheck

import "testing"

// BenchmarkCompare: one pair per rung; the pairs that reach the TeX
// engine, and the different formulas that are scored by CDM, cost most.
func BenchmarkCompare(b *testing.B) {
	for _, c := range []struct{ name, a, b string }{
		{"ws", `$\frac{a}{b}+c^2$`, `\frac { a } { b } + c ^ 2`},
		{"tokens", `\sum_{i=1}^{n} x_i`, `\sum \limits _ { i = 1 } ^ { n } x _ { i }`},
		{"typeset", `\mathrm{R^0_0} + {v_1}^2`, `R _ { 0 } ^ { 0 } + v _ { 1 } ^ { 2 }`},
		{"different", `\frac{a+b}{c} = \sqrt{x^2+1}`, `\frac{a-b}{c} = \sqrt{x^3+1}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Compare(c.a, c.b)
			}
		})
	}
}
