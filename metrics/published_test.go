package metrics

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestTAMERPublished reproduces TAMER's published HME100K test figures
// (ExpRate 69.50, ≤1 85.48, ≤2 90.80) from its released predictions, and
// its stored token distance on every item.
func TestTAMERPublished(t *testing.T) {
	data, err := os.ReadFile(shareddata.Path(t, filepath.Join("predictions", "tamer", "hme100k_test.json")))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]struct {
		Pred string `json:"pred"`
		GT   string `json:"gt"`
		Dist int    `json:"dist"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var gts, preds []string
	var has []bool
	agree := 0
	for _, v := range m {
		gts, preds, has = append(gts, v.GT), append(preds, v.Pred), append(has, true)
		if TokenDistance(v.Pred, v.GT) == v.Dist {
			agree++
		}
	}
	if agree != len(m) {
		t.Errorf("token distance equals TAMER's dist on %d of %d items", agree, len(m))
	}
	c, n := LeK(gts, preds, has)
	for k, want := range []string{"69.50", "85.48", "90.80", "93.51"} {
		if got := pct2(c[k], n); got != want {
			t.Errorf("le_%d@tokEdit = %s%%; TAMER publishes %s%%", k, got, want)
		}
	}
}

// TestWAPExpRate: DenseNet-WAP on CROHME 2014 has 401 exact of 986
// ground-truth items (one prediction missing): 40.67%, not the
// repository's 401/985. The WAP release's captions are CROHME 2014's
// without \limits.
func TestWAPExpRate(t *testing.T) {
	root := shareddata.Dir(t)
	caps := map[string]string{}
	f, err := os.Open(filepath.Join(root, "crohme", "2014", "caption.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var ids []string
	for sc.Scan() {
		id, label, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		var kept []string
		for _, tok := range strings.Split(label, " ") {
			if tok != `\limits` {
				kept = append(kept, tok)
			}
		}
		caps[id] = strings.Join(kept, " ")
		ids = append(ids, id)
	}
	pf, err := os.ReadFile(filepath.Join(root, "predictions", "wap", "crohme_2014.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pred := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(string(pf), "\n"), "\n") {
		id, p, _ := strings.Cut(line, " ")
		pred[id] = p
	}
	var gts, preds []string
	var has []bool
	for _, id := range ids {
		p, ok := pred[id]
		gts, preds, has = append(gts, caps[id]), append(preds, p), append(has, ok)
	}
	raw, _ := canon.LookupLevel("raw")
	exact, n := ExpRate(raw, gts, preds, has)
	if exact != 401 || n != 986 || pct2(exact, n) != "40.67" {
		t.Errorf("ExpRate %d/%d = %s%%; want 401/986 = 40.67%%", exact, n, pct2(exact, n))
	}
}

func pct2(k, n int) string {
	return strconv.FormatFloat(100*float64(k)/float64(n), 'f', 2, 64)
}
