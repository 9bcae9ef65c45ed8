package cdm

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

type refMetrics struct {
	MeanScore float64 `json:"mean_score"`
	ExpRate   float64 `json:"exp_rate"`
	Details   map[string]struct {
		Recall    float64 `json:"recall"`
		Precision float64 `json:"precision"`
		F1        float64 `json:"F1_score"`
	} `json:"details"`
}

func readPairs(tb testing.TB, path string) []Pair {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var raw []struct {
		ID   string `json:"img_id"`
		GT   string `json:"gt"`
		Pred string `json:"pred"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		tb.Fatal(err)
	}
	out := make([]Pair, len(raw))
	for i, r := range raw {
		out[i] = Pair{ID: r.ID, GT: r.GT, Pred: r.Pred}
	}
	return out
}

// readRefMetrics reads the reference's metrics_res.json.
func readRefMetrics(tb testing.TB, path string) refMetrics {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var ref refMetrics
	if err := json.Unmarshal(data, &ref); err != nil {
		tb.Fatal(err)
	}
	return ref
}

// TestParityReference600 compares leakaudit's CDM with the current
// reference's own results on 600 TexTeller pairs.
func TestParityReference600(t *testing.T) {
	dir := shareddata.Path(t, filepath.Join("refcdm", "reference_600"))
	pairs := readPairs(t, filepath.Join(dir, "pairs.json"))
	ref := readRefMetrics(t, filepath.Join(dir, "metrics_res.json"))
	var n, same, decision, unsupported, missing, extra int
	var sumAbs float64
	classes := map[string]int{}
	var diffs []string
	for _, p := range pairs {
		r := ScorePair(p, UniMERNet)
		want, inRef := ref.Details[p.ID]
		if r.Status == Unsupported {
			unsupported++
			classes["unsupported: "+r.Reason]++
			continue
		}
		if !r.Counted || !inRef {
			if r.Counted != inRef {
				if inRef {
					missing++
				} else {
					extra++
				}
				diffs = append(diffs, fmt.Sprintf("%s: counted %v (%s), reference %v", p.ID, r.Counted, r.Reason, inRef))
			}
			continue
		}
		n++
		d := math.Abs(r.F1 - want.F1)
		sumAbs += d
		if d == 0 {
			same++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s: F1 %.3f, reference %.3f (%s)\n    gt:   %s\n    pred: %s", p.ID, r.F1, want.F1, r, p.GT, p.Pred))
		}
		if r.Exact == (want.F1 == 1) {
			decision++
		} else {
			classes["decision"]++
		}
	}
	total := len(pairs)
	t.Logf("%d pairs: %d compared, %d unsupported by the engine, %d scored here but not by the reference, %d the other way", total, n, unsupported, extra, missing)
	t.Logf("ExpRate@CDM decision agrees on %d/%d compared (%.2f%%; %.2f%% of all pairs); F1 identical on %d (%.2f%%); mean |ΔF1| %.4f",
		decision, n, 100*float64(decision)/float64(n), 100*float64(decision)/float64(total), same, 100*float64(same)/float64(n), sumAbs/float64(n))
	var keys []string
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %4d %s", classes[k], k)
	}
	for _, d := range diffs[:min(len(diffs), 30)] {
		t.Log(d)
	}
	if decision < n {
		t.Errorf("decision agreement %.2f%% < 100%%", 100*float64(decision)/float64(n))
	}
	if float64(same) < 0.997*float64(n) {
		t.Errorf("F1 identical on %.2f%% < 99.7%%", 100*float64(same)/float64(n))
	}
	if sumAbs/float64(n) > 0.01 {
		t.Errorf("mean |ΔF1| %.4f > 0.01", sumAbs/float64(n))
	}
}
