package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/neardup"
)

// TestHostileLoneSymbolReason: a lone symbol's verified pair says, after
// the rule that verified it, that another sample of one symbol can lie as
// close; other pairs do not. The page and the text report say how many
// verified items of a split are such lone symbols, and nothing of it when
// there are none.
func TestHostileLoneSymbolReason(t *testing.T) {
	const caution = "the test image is a lone symbol"
	for _, tt := range []struct {
		p    neardup.Pair
		rule string
		lone bool
	}{
		{neardup.Pair{Verified: true, LoneSymbol: true, Distance: 4}, "fine 256-bit hash", true},
		{neardup.Pair{Verified: true, LoneSymbol: true, Cut: true, Distance: 12}, "cut variant", true},
		{neardup.Pair{Verified: true, Distance: 4}, "fine 256-bit hash", false},
		{neardup.Pair{Verified: true, Identical: true}, "same pixels", false},
	} {
		got := CopyReason(tt.p)
		if !strings.Contains(got, tt.rule) || strings.Contains(got, caution) != tt.lone {
			t.Errorf("%+v: %q, want the rule %q and the caution %v", tt.p, got, tt.rule, tt.lone)
		}
	}
	for _, n := range []int64{0, 3} {
		rep := neardup.Report{Summary: []neardup.Summary{{TestSplit: "ink", Items: 10, Verified: 5, LoneSymbol: n}}}
		const note = "ink: 3 of the 5 verified item(s) are lone symbols"
		if got := strings.Contains(nearDupPageText(t, rep), note); got != (n > 0) {
			t.Errorf("lone symbols %d: page note shown %v", n, got)
		}
		var buf bytes.Buffer
		if err := NearDupText(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), note); got != (n > 0) {
			t.Errorf("lone symbols %d: text note shown %v", n, got)
		}
	}
}
