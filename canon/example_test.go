package canon_test

import (
	"fmt"

	"github.com/leakaudit/leakaudit/canon"
)

// A label and a prediction written differently are the same formula from
// the ws level on, and the audit level glues \alpha to b.
func ExampleLevel_Canon() {
	for _, l := range canon.Levels() {
		a, _ := l.Canon(`\[ x ^ { 2 } + \alpha b \]`)
		b, _ := l.Canon(`x^2+\alpha b`)
		fmt.Printf("%-6s %-22q same=%v\n", l.Name, a, a == b)
	}
	// Output:
	// raw    "\\[ x ^ { 2 } + \\alpha b \\]" same=false
	// audit  "x^{2}+\\alphab"       same=false
	// ws     "x^{2}+\\alpha b"      same=false
	// tokens "x ^ { 2 } + \\alpha b" same=true
	// render "x ^ { 2 } + \\alpha b" same=true
}
