package cdm

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// TestParityPrinted compares leakaudit's CDM with the reference's own
// results (UniMERNet cdm/, run locally as reference-cdm-setup.md says) on
// 300 printed pairs: im2latex-100k validation formulas against copies
// with a recogniser's edits (testdata/printed, made by
// internal/printedpairs). Every pair is in the denominator: a pair the
// engine leaves out counts as a disagreement.
func TestParityPrinted(t *testing.T) {
	dir := filepath.Join("testdata", "printed")
	pairs := readPairs(t, filepath.Join(dir, "pairs.json"))
	ref := readRefMetrics(t, filepath.Join(dir, "metrics_res.json"))
	var decision, same, left int
	var diffs []string
	for _, p := range pairs {
		r := ScorePair(p, UniMERNet)
		want, inRef := ref.Details[p.ID]
		if !r.Counted || !inRef {
			if r.Counted == inRef {
				decision++
				same++
				continue
			}
			left++
			diffs = append(diffs, fmt.Sprintf("%s: counted %v (%s %s), reference %v", p.ID, r.Counted, r.Status, r.Reason, inRef))
			continue
		}
		if r.Exact == (want.F1 == 1) {
			decision++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s: DECISION exact %v, reference F1 %.3f", p.ID, r.Exact, want.F1))
		}
		if math.Abs(r.F1-want.F1) == 0 {
			same++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s: F1 %.3f, reference %.3f (%s)\n    gt:   %s\n    pred: %s", p.ID, r.F1, want.F1, r, p.GT, p.Pred))
		}
	}
	n := len(pairs)
	t.Logf("%d printed pairs: ExpRate@CDM decision agrees on %d (%.2f%%), F1 identical on %d (%.2f%%), %d counted by one side only",
		n, decision, 100*float64(decision)/float64(n), same, 100*float64(same)/float64(n), left)
	for _, d := range diffs[:min(len(diffs), 30)] {
		t.Log(d)
	}
	if decision < n {
		t.Errorf("decision agreement %.2f%% < 100%%", 100*float64(decision)/float64(n))
	}
	if float64(same) < 0.995*float64(n) {
		t.Errorf("F1 identical on %.2f%% < 99.5%%", 100*float64(same)/float64(n))
	}
}
