package cdm

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

type probe struct {
	ID      string  `json:"img_id"`
	GT      string  `json:"gt"`
	Pred    string  `json:"pred"`
	F1      float64 `json:"cdm_f1"`
	Recall  float64 `json:"recall"`
	Prec    float64 `json:"precision"`
	Counted bool    `json:"counted_in_mean"`
}

func readProbes(tb testing.TB) []probe {
	f, err := os.Open(shareddata.Path(tb, "refcdm/probe_pairs.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []probe
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var p probe
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestProbesUniMERNet: every probe pair scores as the reference did.
func TestProbesUniMERNet(t *testing.T) {
	for _, p := range readProbes(t) {
		r := ScorePair(Pair{ID: p.ID, GT: p.GT, Pred: p.Pred}, UniMERNet)
		if r.Status == Unsupported {
			t.Errorf("%s: unsupported (%s)", p.ID, r.Reason)
			continue
		}
		if r.Counted != p.Counted {
			t.Errorf("%s: counted %v (%s), reference %v", p.ID, r.Counted, r.Reason, p.Counted)
			continue
		}
		if p.Counted && (r.F1 != p.F1 || r.Recall != p.Recall || r.Precision != p.Prec) {
			t.Errorf("%s: R/P/F1 %.3f/%.3f/%.3f, reference %.3f/%.3f/%.3f (%s)\n  gt %s\n  pred %s", p.ID, r.Recall, r.Precision, r.F1, p.Recall, p.Prec, p.F1, r, p.GT, p.Pred)
		}
	}
}

// TestStrictSwap: the strict profile sees the swap the reference misses.
func TestStrictSwap(t *testing.T) {
	u := ScorePair(Pair{GT: "x = 23", Pred: "x = 32"}, UniMERNet)
	s := ScorePair(Pair{GT: "x = 23", Pred: "x = 32"}, Strict)
	if u.F1 != 1 {
		t.Errorf("unimernet: x = 23 vs x = 32 scores %.3f, the reference's blind spot gives 1", u.F1)
	}
	if s.F1 >= 1 || s.Exact {
		t.Errorf("strict: x = 23 vs x = 32 scores %.3f (exact %v); want below 1", s.F1, s.Exact)
	}
	if s := ScorePair(Pair{GT: "x = 23", Pred: "x = 23"}, Strict); s.F1 != 1 || !s.Exact {
		t.Errorf("strict: identical pair scores %.3f", s.F1)
	}
}
