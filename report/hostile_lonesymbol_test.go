package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dedup"
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
		rep := neardup.Report{Summary: []neardup.Summary{{TestSplit: "ink", Items: 10, Verified: 5, LoneSymbol: n, LoneUnverified: n}}}
		for _, note := range []string{"ink: 3 of the 5 verified item(s) are lone symbols", "ink: 3 item(s) are lone symbols with training images within the radius, none verified"} {
			if got := strings.Contains(nearDupPageText(t, rep), note); got != (n > 0) {
				t.Errorf("lone symbols %d: page note %q shown %v", n, note, got)
			}
			var buf bytes.Buffer
			if err := NearDupText(&buf, rep); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), note); got != (n > 0) {
				t.Errorf("lone symbols %d: text note %q shown %v", n, note, got)
			}
		}
	}
}

// TestDedupLoneSymbolNotes: a clean release's page says how many of a
// split's removals are lone symbols without identical pixels, and a
// removed item's card caption gives the caution after why it went; nothing
// of it when there are none.
func TestDedupLoneSymbolNotes(t *testing.T) {
	const note = "r: 2 item(s) removed as image copies are lone symbols"
	const kept = "r: 2 kept item(s) are lone symbols with against images within the radius"
	const caution = "the removed image is a lone symbol"
	d := int32(3)
	for _, lone := range []bool{false, true} {
		n := int64(0)
		if lone {
			n = 2
		}
		removed := dedup.Removed{Release: "r", ID: "o2", Reason: dedup.ReasonImage, Distance: &d, Matches: []string{"bench:o"}, LoneSymbol: lone}
		res := &dedup.Result{
			Releases: []dedup.ReleaseSummary{{Name: "r", Items: 5, Removed: 2, LoneSymbol: n, LoneUnverified: n, ByReason: map[dedup.Reason]int64{dedup.ReasonImage: 2}}},
			Removed:  []dedup.Removed{removed},
			Evidence: []dedup.Evidence{{Removed: removed, Item: dedup.EvidenceSide{Name: "r:o2"}, Match: dedup.EvidenceSide{Name: "bench:o"}}},
		}
		var text []string
		for _, sec := range DedupPage(res).Sections {
			text = append(text, sec.Text...)
		}
		for _, note := range []string{note, kept} {
			if got := strings.Contains(strings.Join(text, "\n"), note); got != lone {
				t.Errorf("lone %v: page note %q shown %v", lone, note, got)
			}
		}
		c := removedCaption(res.Evidence[0])
		if !strings.Contains(c, "pHash distance 3") || strings.Contains(c, caution) != lone {
			t.Errorf("lone %v: caption %q, want the reason and the caution %v", lone, c, lone)
		}
	}
}
