package metrics

import (
	"strings"
	"testing"
)

// TestHostileCheckPredictions: the rule for a file read as predictions:
// refused when none of its items has one, or more than half lack one.
func TestHostileCheckPredictions(t *testing.T) {
	for _, tc := range []struct {
		items, missing int64
		want           string // "" when accepted
	}{
		{0, 0, ""},
		{10, 0, ""},
		{10, 1, ""},
		{10, 5, ""}, // half: still scored
		{10, 6, "6 of its 10 items have no prediction (looked for pred, predi, prediction): more than half"},
		{10, 10, "none of its 10 items has a prediction field"},
		{1, 1, "none of its 1 items"},
	} {
		err := CheckPredictions(tc.items, tc.missing)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%d of %d missing: %v, want %q", tc.missing, tc.items, err, tc.want)
		}
	}
}
