package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// labelPair is the part of a neardup pair the label check tests read.
type labelPair struct {
	TestID        string `json:"test_id"`
	TrainID       string `json:"train_id"`
	TestLabel     string `json:"test_label"`
	TrainLabel    string `json:"train_label"`
	LabelMismatch bool   `json:"label_mismatch"`
	LabelCheck    *struct {
		Same  bool   `json:"same"`
		Level string `json:"level"`
		Diff  *struct {
			Edits int      `json:"token_edits"`
			CDMF1 *float64 `json:"cdm_f1"`
		} `json:"diff"`
	} `json:"label_check"`
}

// flaggedLabels runs neardup and returns its pairs, the items with a
// near-duplicate and the items flagged as having different labels.
func flaggedLabels(t *testing.T, db string, args ...string) (pairs []labelPair, found, flagged int64) {
	t.Helper()
	out, stderr, code := runCode(t, append([]string{"neardup", "--json", "--db", db}, args...)...)
	if code != exitOK {
		t.Fatalf("neardup %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	var rep struct {
		Pairs   []labelPair `json:"pairs"`
		Summary []struct {
			With     int64 `json:"with_near_duplicate"`
			Mismatch int64 `json:"label_mismatch"`
			Notation int64 `json:"label_notation"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Summary {
		found += s.With
		flagged += s.Mismatch
	}
	for _, p := range rep.Pairs {
		if p.LabelCheck == nil || p.LabelCheck.Same == p.LabelMismatch {
			t.Errorf("%s/%s: label_mismatch %v and label_check %+v disagree", p.TestID, p.TrainID, p.LabelMismatch, p.LabelCheck)
		}
		if p.LabelMismatch && p.LabelCheck != nil && (p.LabelCheck.Diff == nil || p.LabelCheck.Diff.Edits == 0) {
			t.Errorf("%s/%s: flagged without a distance: %+v", p.TestID, p.TrainID, p.LabelCheck)
		}
	}
	return rep.Pairs, found, flagged
}

// TestRealLabelCheckCROHME2014: the CROHME 2014 test expressions as InkML
// (labels in their authors' LaTeX, $…$, \mathrm, braces) against the same
// expressions as bitmaps (labels in the CoMER convention): at most 1% of
// the pairs found are flagged as different formulas, and each flagged pair
// is one of the known real label differences.
func TestRealLabelCheckCROHME2014(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	pairs, found, flagged := flaggedLabels(t, filepath.Join(dir, "db"), "--train", "c14="+filepath.Join(root, "crohme", "2014"), "--test", "ink14="+filepath.Join(root, "crohme-inkml", "2014"))
	t.Logf("%d of %d items with a near-duplicate flagged (%.2f%%)", flagged, found, 100*float64(flagged)/float64(found))
	if found < 900 || float64(flagged) > 0.01*float64(found) {
		t.Errorf("%d of %d items flagged, want at most 1%%", flagged, found)
	}
	// The real differences: \parallel for | |, the converter's ABOVE /
	// BELOW words for \sqrt[n] and a fraction, an = set as a subscript.
	real := map[string]bool{"RIT_2014_143": true, "RIT_2014_178": true, "RIT_2014_189": true, "RIT_2014_190": true, "RIT_2014_195": true, "RIT_2014_198": true, "RIT_2014_309": true}
	for _, p := range pairs {
		if p.LabelMismatch && !real[p.TestID] {
			t.Errorf("%s/%s flagged: %q | %q", p.TestID, p.TrainID, p.TestLabel, p.TrainLabel)
		}
	}
}

// TestRealWithinKeepsLabelRepeats: dedup --within on CROHME train (a
// release with images) removes only copied images; the thousands of items
// that repeat a label with another writer's ink are kept, counted and
// listed; --within-labels removes them as before.
func TestRealWithinKeepsLabelRepeats(t *testing.T) {
	root := shareddata.Dir(t)
	dir := t.TempDir()
	train := "train=" + filepath.Join(root, "crohme", "train")
	type release struct {
		Items, Kept, Removed int64
		ByReason             map[string]int64 `json:"by_reason"`
		WithinRule           string           `json:"within_rule"`
		LabelRepeats         int64            `json:"label_repeats"`
	}
	run := func(name string, flags ...string) release {
		out, stderr, code := runCode(t, append([]string{"dedup", "--json", "--release", train, "--out", filepath.Join(dir, name)}, flags...)...)
		if code != exitOK {
			t.Fatalf("dedup %v: exit %d\n%s", flags, code, stderr)
		}
		var res struct{ Releases []release }
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Releases) != 1 {
			t.Fatalf("dedup --json: %v\n%s", err, out)
		}
		r := res.Releases[0]
		if r.Items != 8834 || r.Items != r.Kept+r.Removed {
			t.Errorf("%v: items %d, kept %d, removed %d", flags, r.Items, r.Kept, r.Removed)
		}
		return r
	}
	r := run("images", "--within")
	t.Logf("--within: removed %d %v, %d label repeats kept (%s)", r.Removed, r.ByReason, r.LabelRepeats, r.WithinRule)
	if r.Removed > 100 || r.Removed != r.ByReason["within"] || r.LabelRepeats < 3900 || !strings.HasPrefix(r.WithinRule, "image copies") {
		t.Errorf("--within: removed %d %v, %d label repeats kept, rule %q; want under 100 copied images removed and the ~3,950 label repeats kept", r.Removed, r.ByReason, r.LabelRepeats, r.WithinRule)
	}
	if n := countLines(t, filepath.Join(dir, "images", "repeats.jsonl")); int64(n) != r.LabelRepeats {
		t.Errorf("repeats.jsonl has %d lines, want %d", n, r.LabelRepeats)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "images", "summary.md")); !strings.Contains(string(md), "decided by image") {
		t.Errorf("summary.md does not say which rule was applied:\n%s", md)
	}
	l := run("labels", "--within-labels")
	if l.Removed != r.Removed+r.LabelRepeats || l.LabelRepeats != 0 {
		t.Errorf("--within-labels: removed %d, %d repeats; want %d", l.Removed, l.LabelRepeats, r.Removed+r.LabelRepeats)
	}
}
