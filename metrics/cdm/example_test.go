package cdm_test

import (
	"fmt"
	"strings"

	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// ScorePair typesets both formulas, boxes their tokens and matches them as
// the reference CDM does, without TeX.
func ExampleScorePair() {
	for _, p := range []cdm.Pair{
		{ID: "same", GT: `x ^ { 2 } + 1`, Pred: `x^{2}+1`},
		{ID: "edit", GT: `x ^ { 2 } + 1`, Pred: `x^{3}+1`},
		{ID: "broken", GT: `x ^ { 2 } + 1`, Pred: `x^{2}+{1`},
	} {
		r := cdm.ScorePair(p, cdm.UniMERNet)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-6s %-11s F1 %.3f exact %v %s", p.ID, r.Status, r.F1, r.Exact, r.Reason)))
	}
	// Output:
	// same   scored      F1 1.000 exact true
	// edit   scored      F1 0.750 exact false
	// broken pred_failed F1 0.000 exact false pred: latex_fatal
}
