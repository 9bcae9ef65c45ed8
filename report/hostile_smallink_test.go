package report

import (
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/neardup"
)

// TestHostileSmallInkReason: a pair the small-ink keys, a cut variant,
// the edge keys or a drawing with another pen found and verified is
// explained by that rule, not by the full-resolution ink rule that did
// not verify it.
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
		{neardup.Pair{Verified: true, ThickerPen: true, Distance: 2}, "drawn again with a thicker pen", "fine 256-bit hash"},
		{neardup.Pair{Verified: true, Squeezed: true, Distance: 5}, "drawn again with a thinner pen", "thicker"},
		{neardup.Pair{InkTooSmall: true, Distance: 3}, "too small to tell one formula", "chamfer"},
		{neardup.Pair{InkTooSmall: true, Verified: true, Identical: true}, "same pixels", "too small"},
		{neardup.Pair{Distance: 3}, "chamfer distance above", "too small"},
	}
	for _, tt := range tests {
		got := CopyReason(tt.p)
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%+v: %q, want it to say %q and not %q", tt.p, got, tt.want, tt.not)
		}
	}
}

// TestHostileInkTooSmallPage: the page of a near-duplicate report says how
// many items of a split had ink too small to verify, as the text report
// does, and says nothing of it when there were none.
func TestHostileInkTooSmallPage(t *testing.T) {
	for _, n := range []int64{0, 7} {
		rep := neardup.Report{Summary: []neardup.Summary{{TestSplit: "ink", Items: 10, InkTooSmall: n}}}
		got := strings.Contains(nearDupPageText(t, rep), "ink: 7 item(s) with ink too small")
		if got != (n > 0) {
			t.Errorf("ink too small %d: note shown %v", n, got)
		}
	}
}

// nearDupPageText returns the texts of the sections of rep's page.
func nearDupPageText(t *testing.T, rep neardup.Report) string {
	t.Helper()
	p, err := NearDupPage(rep)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, sec := range p.Sections {
		text = append(text, sec.Text...)
	}
	return strings.Join(text, "\n")
}
