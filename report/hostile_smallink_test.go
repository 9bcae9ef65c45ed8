package report

import (
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/neardup"
)

// TestHostileSmallInkReason: a pair the small-ink keys, a cut variant or
// the edge keys found and verified is explained by that rule, not by the
// full-resolution ink rule that did not verify it.
func TestHostileSmallInkReason(t *testing.T) {
	tests := []struct {
		p         neardup.Pair
		want, not string
	}{
		{neardup.Pair{Verified: true, SmallInk: true, Distance: 20}, "small-ink keys", "fine 256-bit hash"},
		{neardup.Pair{Verified: true, Distance: 4}, "fine 256-bit hash", "small-ink"},
		{neardup.Pair{Verified: true, SmallInk: true, Identical: true}, "same pixels", "small-ink"},
		{neardup.Pair{Verified: true, Cut: true, Distance: 12}, "cut variant", "fine 256-bit hash"},
		{neardup.Pair{Verified: true, EdgeKey: true, Distance: 14}, "edge keys", "fine 256-bit hash within"},
	}
	for _, tt := range tests {
		got := CopyReason(tt.p)
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%+v: %q, want it to say %q and not %q", tt.p, got, tt.want, tt.not)
		}
	}
}
