package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// texTellerTrain is TexTeller_en's training data as its audit
// configuration lists it (the real-data audit test).
const texTellerTrain = `    train:
      - {name: crohme_train, path: %[1]s/crohme/train}
      - {name: crohme2023_train, path: %[1]s/labels/crohme2023_train_captions.json}
      - {name: hme100k_train, path: %[1]s/labels/hme100k_train_captions.json}
`

// runCompare runs "compare --out --json" on cfg and returns its result,
// after checking that every item read is accounted for and that the
// folder holds the report's files and nothing else.
func runCompare(t *testing.T, cfg string, want int) *compare.Comparison {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "compare.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	stdout, stderr, code := runCode(t, "compare", "--config", path, "--out", out, "--json")
	if code != want {
		t.Fatalf("exit %d, want %d:\n%s", code, want, stderr)
	}
	var c compare.Comparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	// Items in = counted + skipped: every labels or predictions input's
	// items are the split's items or its model's predictions.
	for _, in := range c.Inputs {
		if len(in.Skipped) > 0 {
			t.Errorf("%s %s: skipped %v", in.Role, in.Name, in.Skipped)
		}
	}
	rows, err := parquet.ReadFile[compare.ItemRow](filepath.Join(out, "items.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range c.Splits {
		if s.Clean+s.SeenAny != s.Items {
			t.Errorf("%s: %d clean + %d seen ≠ %d items", s.Name, s.Clean, s.SeenAny, s.Items)
		}
		for _, m := range s.Models {
			n += s.Items
			if m.Full.N+m.CDMLeftOut != s.Items || m.Predicted+m.Missing != s.Items {
				t.Errorf("%s %s: %d counted + %d left out, %d predicted + %d missing; %d items", s.Name, m.Model, m.Full.N, m.CDMLeftOut, m.Predicted, m.Missing, s.Items)
			}
			t.Logf("%s %s: all %s; clean %s; seen %s (%d); not seen %s; MH gap %+.2f [%.2f, %.2f]; text %s ≤1 %s ≤2 %s; missing %d",
				s.Name, m.Model, m.Full, m.Clean, m.Seen, m.SeenLabel, m.Unseen, m.Gap.MHDelta, m.Gap.MHCI[0], m.Gap.MHCI[1], m.Text.ExpRate, m.Text.Le1, m.Text.Le2, m.Missing)
		}
	}
	if len(rows) != n {
		t.Errorf("items.parquet: %d rows, want %d (one per item and model)", len(rows), n)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "fig-") && name != "evidence" && !strings.Contains(strings.Join(compareReportNames, " "), name) {
			t.Errorf("the report folder holds %s", name)
		}
	}
	for _, p := range c.Pairwise {
		t.Logf("%s %s: %s − %s = %+.2f pp [%.2f, %.2f], only A %d, only B %d, Holm p %s", p.Split, p.Subset, p.A, p.B, p.Diff, p.CI[0], p.CI[1], p.OnlyA, p.OnlyB, compare.FormatP(p.PHolm))
	}
	for _, e := range c.Excess {
		t.Logf("%s: excess of %s over %s: %+.2f pp [%.2f, %.2f] (gaps %+.2f, %+.2f; %d seen, %d not)", e.Split, e.Model, e.Control, e.Excess, e.CI[0], e.CI[1], e.ModelGap, e.ControlGap, e.Seen, e.Unseen)
	}
	for _, lb := range c.Leaderboards {
		t.Logf("%s: %s", lb.Split, lb.Text)
	}
	return &c
}

var compareReportNames = []string{"comparison.json", "report.md", "report.html", "items.parquet"}

// TestRealDataCompareHME100K: TexTeller_en against TAMER (rules: true on
// HME100K train) on HME100K test.
func TestRealDataCompareHME100K(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size")
	}
	root := shareddata.Dir(t)
	cfg := fmt.Sprintf(`name: HME100K test, TexTeller_en against TAMER
splits:
  - {name: hme100k_test}
models:
  - name: TexTeller_en
`+texTellerTrain+`    predictions:
      - {split: hme100k_test, path: %[1]s/predictions/texteller/hme100k_test.json, reported_exprate: 90.7}
  - name: TAMER
    rules: true
    train:
      - {name: hme100k_train, path: %[1]s/labels/hme100k_train_captions.json}
    predictions:
      - {split: hme100k_test, path: %[1]s/predictions/tamer/hme100k_test.json}
`, root)
	c := runCompare(t, cfg, exitOK)
	s := c.Splits[0]
	if s.Items != 24607 || len(s.Models) != 2 {
		t.Fatalf("%d items, %d models", s.Items, len(s.Models))
	}
	tt, tamer := s.Models[0], s.Models[1]
	if tamer.SeenLabel != 5721 {
		t.Errorf("TAMER: %d test labels in HME100K train, want 5,721", tamer.SeenLabel)
	}
	if tt.FullRank != 1 || tt.CleanRank != 1 || len(c.Flips) != 0 || c.Leaderboards[0].Class != "holds" {
		t.Errorf("TexTeller_en ranks %d/%d, flips %v, %s", tt.FullRank, tt.CleanRank, c.Flips, c.Leaderboards[0].Text)
	}
	// TAMER's gap on the labels TexTeller saw is larger than TexTeller's:
	// the seen labels are easier formulas, not memorized ones.
	if len(c.Excess) != 1 || c.Excess[0].CI[1] >= 0 {
		t.Errorf("excess gap %+v, want TexTeller_en's below TAMER's", c.Excess)
	}
}

// TestRealDataCompareCROHME2014: TexTeller_en against WAP (a decode
// output without ground truths, rules: true on CROHME train) on CROHME
// 2014, the ground truths from the CROHME 2014 captions; the shared CAN
// and SAN bad-case files are refused.
func TestRealDataCompareCROHME2014(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size")
	}
	root := shareddata.Dir(t)
	cfg := fmt.Sprintf(`name: CROHME 2014, TexTeller_en against WAP
splits:
  - {name: crohme_2014, labels: %[1]s/crohme/2014}
models:
  - name: TexTeller_en
`+texTellerTrain+`    predictions:
      - {split: crohme_2014, path: %[1]s/predictions/texteller/crohme_2014.json, reported_exprate: 88.0}
  - name: WAP
    rules: true
    train:
      - {name: crohme_train, path: %[1]s/crohme/train}
    predictions:
      - {split: crohme_2014, path: %[1]s/predictions/wap/crohme_2014.txt}
`, root)
	c := runCompare(t, cfg, exitOK)
	s := c.Splits[0]
	if s.Items != 986 {
		t.Fatalf("%d items", s.Items)
	}
	if wap := s.Models[1]; wap.Missing != 1 || !strings.Contains(strings.Join(c.Limitations, "\n"), "WAP has no prediction for 1 of the 986 items") {
		t.Errorf("WAP: %d missing; limitations %q", wap.Missing, c.Limitations)
	}
	if tt := s.Models[0]; tt.FullRank != 1 || tt.CleanRank != 1 || len(c.Flips) != 0 {
		t.Errorf("TexTeller_en ranks %d/%d, flips %v", tt.FullRank, tt.CleanRank, c.Flips)
	}
	for _, bad := range []string{"can", "san"} {
		with := strings.Replace(cfg, "  - name: WAP", fmt.Sprintf("  - name: %s\n    predictions: [{split: crohme_2014, path: %s/predictions/%s/crohme_2014_bad_cases.json}]\n  - name: WAP", bad, root, bad), 1)
		dir := t.TempDir()
		path := filepath.Join(dir, "c.yaml")
		os.WriteFile(path, []byte(with), 0o644)
		var so, se bytes.Buffer
		code := runCLI([]string{"compare", "--config", path, "--out", filepath.Join(dir, "out"), "--json"}, &so, &se)
		stdout, stderr := so.String(), se.String()
		var je jsonError
		if err := json.Unmarshal([]byte(stdout), &je); err != nil || je.ExitCode != exitError || code != exitError || !strings.Contains(stderr, "wrong cases only") {
			t.Errorf("%s bad cases: exit %d, stdout %q (%v), stderr %q", bad, code, stdout, err, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "out", "comparison.json")); err == nil {
			t.Errorf("%s bad cases: a comparison was written", bad)
		}
	}
}
