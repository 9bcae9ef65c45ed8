package cdm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestAgainstAuditResults compares leakaudit's CDM with the per-item
// results shipped with the TexTeller audit (an older CDM variant; the
// current reference itself agrees with them on 300/300 sampled CROHME 2014
// decisions and 283/300 MathWriting valid ones, refcdm/README.md).
func TestAgainstAuditResults(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	root := shareddata.Dir(t)
	refAgreement := map[string]float64{"crohme_2014": 1, "mathwriting_valid": 283.0 / 300}
	for _, split := range []string{"crohme_2014", "crohme_2016", "crohme_2019", "crohme2023_val", "mathwriting_valid"} {
		pairs := readPairs(t, filepath.Join(root, "predictions", "texteller", split+".json"))
		data, err := os.ReadFile(filepath.Join(root, "predictions", "texteller", "refcdm", split, "metrics_res.json"))
		if err != nil {
			t.Fatal(err)
		}
		var theirs struct {
			ExpRate float64 `json:"exp_rate"`
			Details map[string]struct {
				F1 float64 `json:"F1_score"`
			} `json:"details"`
		}
		if err := json.Unmarshal(data, &theirs); err != nil {
			t.Fatal(err)
		}
		results, err := Evaluate(context.Background(), pairs, UniMERNet, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var compared, agree, unsupported, ourExact, ourCounted int
		for i, r := range results {
			if r.Status == Unsupported {
				unsupported++
				continue
			}
			if r.Counted {
				ourCounted++
				if r.Exact {
					ourExact++
				}
			}
			d, ok := theirs.Details[pairs[i].ID]
			if !ok {
				continue
			}
			compared++
			if (r.Counted && r.Exact) == (d.F1 == 1) {
				agree++
			}
		}
		ours := float64(ourExact) / float64(ourCounted)
		ag := float64(agree) / float64(compared)
		t.Logf("%-18s %5d pairs, %4d unsupported: decisions agree with the audit's on %d/%d (%.2f%%); ExpRate@CDM %.2f%%, theirs %.2f%%",
			split, len(pairs), unsupported, agree, compared, 100*ag, 100*ours, 100*theirs.ExpRate)
		if ra, ok := refAgreement[split]; ok && ag < ra-0.01 {
			t.Errorf("%s: agreement %.2f%% is more than 1 pp below the reference's own (%.2f%%)", split, 100*ag, 100*ra)
		}
		if split != "mathwriting_valid" {
			if d := ours - theirs.ExpRate; d > 0.01 || d < -0.01 {
				t.Errorf("%s: ExpRate@CDM %.2f%% differs from the audit's %.2f%% by more than 1 pp", split, 100*ours, 100*theirs.ExpRate)
			}
		}
	}
}
