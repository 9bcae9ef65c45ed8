package compare_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/report"
)

// fixture writes a 40-item split (labels as captions), a training corpus
// holding items 0–9, and prediction files: name → which items are right
// and which have a prediction at all.
func fixture(t *testing.T, models map[string]func(i int) (has, right bool)) string {
	t.Helper()
	dir := t.TempDir()
	label := func(i int) string { return fmt.Sprintf("x ^ { %d } + y _ { %d }", i, i+1) }
	var caps, train strings.Builder
	for i := range 40 {
		fmt.Fprintf(&caps, "t%02d\t%s\n", i, label(i))
	}
	train.WriteString("[")
	for i := range 10 {
		fmt.Fprintf(&train, "%q,", label(i))
	}
	train.WriteString(`"z"]`)
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("labels.txt", caps.String())
	write("train.json", train.String())
	cfg := "splits:\n  - {name: s, labels: labels.txt, format: caption}\nmodels:\n"
	for _, name := range []string{"a", "b", "c", "d"} {
		f, ok := models[name]
		if !ok {
			continue
		}
		var b strings.Builder
		for i := range 40 {
			has, right := f(i)
			if !has {
				continue
			}
			p := label(i)
			if !right {
				p = label(i + 100)
			}
			fmt.Fprintf(&b, "t%02d %s\n", i, p)
		}
		write(name+".txt", b.String())
		cfg += fmt.Sprintf("  - {name: %s, train: [{name: tr, path: train.json}], predictions: [{split: s, path: %s.txt, format: caption}]}\n", name, name)
	}
	write("compare.yaml", cfg)
	return filepath.Join(dir, "compare.yaml")
}

func run(t *testing.T, path string) (*compare.Comparison, error) {
	t.Helper()
	c, err := compare.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return compare.Run(context.Background(), compare.Job{Config: c, Tool: "test"})
}

// TestPartialPredictions: a file missing more than half of the split's
// items is refused; a few missing are counted per model, said, and
// scored as wrong, never left out.
func TestPartialPredictions(t *testing.T) {
	all := func(i int) (bool, bool) { return true, i%2 == 0 }
	few := func(i int) (bool, bool) { return i >= 5, true }
	most := func(i int) (bool, bool) { return i < 15, true }
	res, err := run(t, fixture(t, map[string]func(int) (bool, bool){"a": all, "b": few}))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Splits[0].Models[1]
	if b.Model != "b" || b.Missing != 5 || b.Full.N != 40 || b.Full.K != 35 {
		t.Errorf("b: %+v, want 5 missing, 35 of 40", b)
	}
	if !strings.Contains(strings.Join(res.Limitations, "\n"), "b has no prediction for 5 of the 40 items") {
		t.Errorf("limitations do not say b's missing predictions: %q", res.Limitations)
	}
	if res.Leaderboards[0].Rows[0].Model != "b" || res.Leaderboards[0].Rows[0].Missing != 5 {
		t.Errorf("leaderboard: %+v", res.Leaderboards[0].Rows)
	}
	if _, err := run(t, fixture(t, map[string]func(int) (bool, bool){"a": all, "c": most})); err == nil || !strings.Contains(err.Error(), "model c") {
		t.Errorf("a file with 25 of 40 items missing: %v, want it refused naming model c", err)
	}
}

// TestBadCasesRefused: a file of wrong cases only (each record with its
// ground truth, not one prediction right), as the shared CAN and SAN
// bad-case files, is refused even when it covers every item of a split
// defined by it alone.
func TestBadCasesRefused(t *testing.T) {
	dir := t.TempDir()
	var bad, good strings.Builder
	bad.WriteString("[")
	good.WriteString("[")
	for i := range 30 {
		sep := ","
		if i == 29 {
			sep = "]"
		}
		fmt.Fprintf(&bad, `{"img_id": "t%d", "gt": "x ^ { %d }", "pred": "x ^ { %d }"}%s`, i, i, i+1, sep)
		fmt.Fprintf(&good, `{"img_id": "t%d", "gt": "x ^ { %d }", "pred": "x ^ { %d }"}%s`, i, i, i, sep)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(bad.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "good.json"), []byte(good.String()), 0o644)
	cfg := "splits: [{name: s}]\nmodels:\n  - {name: good, predictions: [{split: s, path: good.json}]}\n  - {name: bad, predictions: [{split: s, path: bad.json}]}\n"
	os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(cfg), 0o644)
	if _, err := run(t, filepath.Join(dir, "c.yaml")); err == nil || !strings.Contains(err.Error(), "wrong cases only") {
		t.Errorf("bad-case file: %v, want it refused", err)
	}
}

// TestSeenAndClean: items 0–9 are in every model's training data; the
// clean subset is the other 30, and the figures count them.
func TestSeenAndClean(t *testing.T) {
	a := func(i int) (bool, bool) { return true, i < 10 || i%3 == 0 }
	b := func(i int) (bool, bool) { return true, i%2 == 0 }
	res, err := run(t, fixture(t, map[string]func(int) (bool, bool){"a": a, "b": b}))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Splits[0]
	if s.Clean != 30 || s.SeenAny != 10 {
		t.Fatalf("clean %d, seen %d; want 30, 10", s.Clean, s.SeenAny)
	}
	ma := s.Models[0]
	// a: 10 seen right; clean items 10..39 with i%3==0: 12,15,…,39 → 10.
	if ma.Seen.K != 10 || ma.Seen.N != 10 || ma.Clean.K != 10 || ma.Clean.N != 30 || ma.Full.K != 20 {
		t.Errorf("a: seen %v, clean %v, full %v", ma.Seen, ma.Clean, ma.Full)
	}
	// b: 15 of 30 clean right (even items 10..38).
	if mb := s.Models[1]; mb.Clean.K != 15 || mb.Full.K != 20 {
		t.Errorf("b: clean %v, full %v", mb.Clean, mb.Full)
	}
	// Tied on all items (20 each); b above a on clean items: a tie is no flip.
	if len(res.Flips) != 0 || res.Leaderboards[0].Rows[0].FullRank != 1 || res.Leaderboards[0].Rows[1].FullRank != 1 {
		t.Errorf("flips %v, rows %+v", res.Flips, res.Leaderboards[0].Rows)
	}
	if len(res.Items) != 80 {
		t.Errorf("%d item rows, want 40 items × 2 models", len(res.Items))
	}
	for _, it := range res.Items {
		if (it.Seq < 10) != (it.Seen == "label") || it.Clean == (it.Seq < 10) {
			t.Errorf("item %s of %s: seen %q clean %v", it.ID, it.Model, it.Seen, it.Clean)
		}
	}
}

// TestCDMReuse: results of "score --out" are used for the items whose
// ground truth and prediction they hold as they are, and give the same
// figures; a row whose prediction differs is scored again.
func TestCDMReuse(t *testing.T) {
	a := func(i int) (bool, bool) { return true, i%4 != 0 }
	b := func(i int) (bool, bool) { return true, i%2 == 0 }
	path := fixture(t, map[string]func(int) (bool, bool){"a": a, "b": b})
	dir := filepath.Dir(path)
	base, err := run(t, path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := metrics.RunScore(context.Background(), metrics.ScoreJob{Input: dataset.Source{Path: filepath.Join(dir, "a.txt"), Format: dataset.Caption},
		GT: &dataset.Source{Path: filepath.Join(dir, "labels.txt"), Format: dataset.Caption}, Metrics: []string{"cdm"}, Profile: cdm.UniMERNet})
	if err != nil {
		t.Fatal(err)
	}
	// One row tampered with: its prediction no longer the file's.
	sc.Pairs[3].Pred = "tampered"
	if err := report.WriteScore(filepath.Join(dir, "score-a"), sc, cdm.UniMERNet); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(cfg), "path: a.txt, format: caption}", "path: a.txt, format: caption, cdm: score-a}", 1)), 0o644)
	res, err := run(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Splits[0].Models[0]; got.CDMReused != 39 || got.Full != base.Splits[0].Models[0].Full {
		t.Errorf("reused %d (want 39), full %v (without reuse %v)", got.CDMReused, got.Full, base.Splits[0].Models[0].Full)
	}
}

// TestPredictionNotInSplit: a prediction for an id the split's labels do
// not hold is not scored, and the run is partial (exit status 3), naming
// the file.
func TestPredictionNotInSplit(t *testing.T) {
	all := func(i int) (bool, bool) { return true, true }
	path := fixture(t, map[string]func(int) (bool, bool){"a": all, "b": all})
	f, err := os.OpenFile(filepath.Join(filepath.Dir(path), "a.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("t99 x\n")
	f.Close()
	res, err := run(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || len(res.Incomplete) != 1 || !strings.Contains(res.Incomplete[0].Reason, "1 prediction(s) have an id the split's labels") || res.Splits[0].Items != 40 {
		t.Errorf("complete %v, incomplete %+v, items %d", res.Complete, res.Incomplete, res.Splits[0].Items)
	}
}

// TestNotSignificantSentence: a lead on all items that becomes a tie on
// clean items is no flip, and the sentence says the lead is not
// significant there.
func TestNotSignificantSentence(t *testing.T) {
	a := func(i int) (bool, bool) { return true, i < 10 || i%3 != 0 } // all 30, clean 20 of 30
	b := func(i int) (bool, bool) { return true, i%3 != 1 }           // all 27, clean 20 of 30
	res, err := run(t, fixture(t, map[string]func(int) (bool, bool){"a": a, "b": b}))
	if err != nil {
		t.Fatal(err)
	}
	lb := res.Leaderboards[0]
	if lb.Class != "not_significant" || !strings.HasPrefix(lb.Text, "a's lead over b is not significant on clean items") || len(res.Flips) != 0 {
		t.Errorf("%s: %q; flips %v", lb.Class, lb.Text, res.Flips)
	}
	if r := lb.Rows; r[0].Model != "a" || r[0].FullRank != 1 || r[1].FullRank != 2 || r[0].CleanRank != 1 || r[1].CleanRank != 1 {
		t.Errorf("rows %+v", r)
	}
}
