package metrics_test

import (
	"fmt"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/metrics"
)

// ExpRate at two canonical levels: spacing differences count as errors on
// the raw strings, not at the tokens level; a missing prediction is wrong.
func ExampleExpRate() {
	gts := []string{`x ^ { 2 }`, `\frac { a } { b }`, `y`}
	preds := []string{`x^{2}`, `\frac{a}{b}`, ``}
	has := []bool{true, true, false}
	for _, name := range []string{"raw", "tokens"} {
		l, _ := canon.LookupLevel(name)
		k, n := metrics.ExpRate(l, gts, preds, has)
		fmt.Printf("exprate@%s: %d/%d\n", name, k, n)
	}
	// Output:
	// exprate@raw: 0/3
	// exprate@tokens: 2/3
}
