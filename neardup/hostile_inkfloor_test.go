package neardup_test

import (
	"strings"
	"testing"
)

// TestHostileInkShortfalls checks the rule TestHostileInkMatchRealData
// holds each rasterized set to, on made-up scores: a recall floor, a
// floor of items found for the deterministic sets, and at most 0.1% wrong
// pairs (at least one allowed).
func TestHostileInkShortfalls(t *testing.T) {
	minRecall := map[string]float64{"read-2014": 0.99}
	minFound := map[string]int{"read-2014": 982, "stretch-256-2014": 920}
	tests := []struct {
		name string
		sc   inkScore
		want []string // substrings of the shortfalls, in order; none when empty
	}{
		{"read-2014", inkScore{queries: 986, found: 982}, nil},
		{"read-2014", inkScore{queries: 986, found: 981}, []string{"want ≥ 982"}},
		{"read-2014", inkScore{queries: 986, found: 970}, []string{"recall 0.984", "want ≥ 982"}},
		{"stretch-256-2014", inkScore{queries: 986, found: 920, wrong: 1}, nil},
		{"stretch-256-2014", inkScore{queries: 986, found: 919}, []string{"919 of 986 found"}},
		{"stretch-256-2014", inkScore{queries: 986, found: 950, wrong: 2}, []string{"2 wrong pairs"}},
		{"seed-5-2014", inkScore{queries: 986, found: 867}, []string{"recall 0.879"}},
		{"seed-5-2014", inkScore{queries: 986, found: 868}, nil},
		{"seed-5-train-sample", inkScore{queries: 198, found: 175, wrong: 1}, nil},
	}
	for _, tt := range tests {
		got := inkShortfalls(tt.name, tt.sc, minRecall, minFound)
		if len(got) != len(tt.want) {
			t.Errorf("%s %+v: shortfalls %q, want %d", tt.name, tt.sc, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s %+v: shortfall %q, want it to say %q", tt.name, tt.sc, got[i], w)
			}
		}
	}
}
