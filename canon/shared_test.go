package canon_test

import (
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestPredictionExactMatch reproduces the prediction exact-match table (docs/canonical-ladder.md §7): how
// many TexTeller_en predictions equal their ground truth at L0, L1 and L2.
// L1 − L2 are the control-word-swallows-letter false merges (\rightarrowx).
func TestPredictionExactMatch(t *testing.T) {
	dir := shareddata.Dir(t)
	tests := []struct {
		split      string
		n          int
		l0, l1, l2 int
	}{
		{"crohme_2014", 986, 31, 911, 911},
		{"crohme_2016", 1147, 25, 995, 995},
		{"crohme_2019", 1199, 31, 1032, 1032},
		{"crohme_train", 8834, 568, 8388, 8388},
		{"crohme2023_train", 19901, 576, 12928, 12928},
		{"crohme2023_val", 555, 26, 485, 484},
		{"crohme2023_test", 2300, 87, 2038, 2021},
		{"hme100k_test", 24607, 11, 21250, 21250},
		{"mathwriting_test", 7643, 6, 2466, 2466},
		{"mathwriting_valid", 15670, 180, 5556, 5556},
	}
	for _, tt := range tests {
		t.Run(tt.split, func(t *testing.T) {
			var n, l0, l1, l2 int
			_, err := dataset.Scan(dataset.Source{Path: filepath.Join(dir, "predictions", "texteller", tt.split+".json")}, func(it dataset.Item) error {
				n++
				if it.Pred == it.Label {
					l0++
				}
				if canon.AuditKey(it.Pred) == canon.AuditKey(it.Label) {
					l1++
				}
				if canon.WSKey(it.Pred) == canon.WSKey(it.Label) {
					l2++
				}
				return nil
			})
			if err != nil {
				t.Skip(err)
			}
			if n != tt.n || l0 != tt.l0 || l1 != tt.l1 || l2 != tt.l2 {
				t.Errorf("n %d L0 %d L1 %d L2 %d; want %d %d %d %d", n, l0, l1, l2, tt.n, tt.l0, tt.l1, tt.l2)
			}
		})
	}
}

// TestCrossRelease reproduces §4.2: the same CROHME 2014 images labelled by
// raw InkML LaTeX and by the CoMER tokens agree 0 times at L0 and L1 (the
// $…$ wrapper defeats L1) and 584 times at L2.
func TestCrossRelease(t *testing.T) {
	ink := shareddata.Path(t, "crohme-inkml/2014")
	caps := shareddata.Path(t, "crohme/2014/caption.txt")
	raw := map[string]string{}
	if _, err := dataset.Scan(dataset.Source{Path: ink}, func(it dataset.Item) error { raw[it.ID] = it.Label; return nil }); err != nil {
		t.Fatal(err)
	}
	var n, l0, l1, l2, l3, l4 int
	if _, err := dataset.Scan(dataset.Source{Path: caps}, func(it dataset.Item) error {
		r, ok := raw[it.ID]
		if !ok {
			t.Errorf("no InkML for %s", it.ID)
			return nil
		}
		n++
		if r == it.Label {
			l0++
		}
		if canon.AuditKey(r) == canon.AuditKey(it.Label) {
			l1++
		}
		if canon.WSKey(r) == canon.WSKey(it.Label) {
			l2++
		}
		if a, err := canon.TokensKey(r); err == nil {
			if b, _ := canon.TokensKey(it.Label); a == b {
				l3++
			}
		}
		if a, err := canon.RenderKey(r); err == nil {
			if b, _ := canon.RenderKey(it.Label); a == b {
				l4++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 986 || l0 != 0 || l1 != 0 || l2 != 584 {
		t.Errorf("n %d L0 %d L1 %d L2 %d; want 986 0 0 584", n, l0, l1, l2)
	}
	// The remaining differences are conventions (\gt vs >, \mathrm{Pa} vs
	// P a): they must shrink at the stronger levels.
	if l3 <= l2 || l4 < l3 {
		t.Errorf("L2 %d, L3 %d, L4 %d: the stronger levels must merge more", l2, l3, l4)
	}
	t.Logf("raw InkML vs CoMER tokens, CROHME 2014: L2 %d, L3 %d, L4 %d of %d", l2, l3, l4, n)
}
