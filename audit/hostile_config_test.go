package audit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileConfigValues: every value of the configuration is checked,
// and one out of its range is a *ConfigError naming its line and key
// (alpha: -1 used to make findings disappear with exit 0).
func TestHostileConfigValues(t *testing.T) {
	const head = "name: x\nsplits:\n  - {name: a, role: test, predictions: a.json}\n" // line 4 is next
	for _, tc := range []struct{ yaml, want string }{
		{head + "alpha: -1\n", "line 4: alpha: -1 is out of range; want a significance level strictly between 0 and 1"},
		{head + "alpha: 7\n", "line 4: alpha: 7 is out of range"},
		{head + "alpha: 0\n", "line 4: alpha: 0 is out of range"},
		{head + "alpha: 1\n", "line 4: alpha: 1 is out of range"},
		{head + "alpha: .nan\n", `line 4: alpha: ".nan" is not a number`},
		{head + "alpha: [0.05]\n", `line 4: alpha: a list is not a number`},
		{head + "no_gap_delta: -5\n", "line 4: no_gap_delta: -5 is out of range; want a margin in percentage points above 0"},
		{head + "no_gap_delta: 0\n", "line 4: no_gap_delta: 0 is out of range"},
		{head + "no_gap_delta: 101\n", "line 4: no_gap_delta: 101 is out of range"},
		{head + "max_label_bytes: -1\n", "line 4: max_label_bytes: -1 is out of range; want a number of bytes of at least 1"},
		{head + "max_label_bytes: 0\n", "line 4: max_label_bytes: 0 is out of range"},
		{head + "max_label_bytes: 1.5\n", `line 4: max_label_bytes: "1.5" is not an integer`},
		{head + "near: -1\n", "line 4: near: -1 is out of range"},
		{head + "near: 2\nnear_min: 0\n", "line 5: near_min: 0 is out of range"},
		{head + "near_min: 5\n", "near_min 5 needs near"},
		{head + "levels: []\n", "line 4: levels: an empty list"},
		{head + "levels: audit\n", "line 4: levels: a list of levels"},
		{head + "levels: [audit, ws, audit]\n", `line 4: levels: "audit" given twice`},
		{head + "levels:\n  - audit\n  - wss\n", `line 6: levels: unknown level "wss"`},
		{head + "levels: [\"audit,ws\"]\n", `line 4: levels: "audit,ws" is not one level name`},
		{head + "cdm_profile: nope\n", `line 4: cdm_profile: unknown CDM profile "nope"`},
		{head + "train:\n  - {name: t, path: t.json}\n  - {name: t, path: u.json}\n", `line 6: a training corpus named "t" is given twice (first on line 5)`},
		{head + "train:\n  - {path: a/t.json}\n  - {path: b/t.json}\n", `line 6: a training corpus named "t.json" is given twice`},
		{head + "train_images:\n  - {name: i, path: a}\n  - {name: i, path: b}\n", `line 6: a training image set named "i" is given twice`},
		{head + "train_images:\n  - {name: i, path: a, format: csv}\n", "line 5: format: not used for training images"},
		{head + "train:\n  - t.json\n", "line 5: a training corpus: want a mapping"},
		{head + "train:\n  - {name: t, path: t.json, format: jsn}\n", `line 5: format: unknown format "jsn"`},
		{"splits:\n  - {name: a, role: test, predictions: a.json}\n  - {name: a, role: val, predictions: b.json}\n", `line 3: a split named "a" is given twice (first on line 2)`},
		{"splits:\n  - {name: a, role: test, predictions: a.json, reported_exprate: 188}\n", "line 2: reported_exprate: 188 is out of range; want a percentage from 0 to 100"},
		{"splits:\n  - {name: a, role: test, predictions: a.json, reported_exprate: -1}\n", "line 2: reported_exprate: -1 is out of range"},
		{"splits:\n  - {name: a, predictions: a.json}\n", "role must be train, val or test"},
		{"splits:\n  - {name: a, role: test, predictions: a.json, format: jsn}\n", `line 2: format: unknown format "jsn"`},
		{"splits: {name: a}\n", "line 1: splits: a list, one entry per split"},
		{"name: [x\n", "did not find expected"},
	} {
		_, err := ParseConfig([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
		if err != nil && !errors.As(err, new(*ConfigError)) {
			t.Errorf("%q: %T is not a *ConfigError", tc.yaml, err)
		}
	}
	// The bounds themselves, and a key given as null, are accepted.
	for _, ok := range []string{"alpha: 0.999\n", "alpha: 1e-9\n", "no_gap_delta: 100\n", "max_label_bytes: 1\n", "near: 0\n",
		"near: 1\nnear_min: 1\n", "alpha:\n", "levels: [render]\n"} {
		if _, err := ParseConfig([]byte(head + ok)); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// TestHostileConfigRanges: a configuration built in Go is range-checked
// too (zero still means the default there).
func TestHostileConfigRanges(t *testing.T) {
	r := 101.0
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Alpha: -1}, "alpha -1"},
		{Config{Alpha: 1}, "alpha 1"},
		{Config{Alpha: math.NaN()}, "alpha NaN"},
		{Config{NoGapDelta: -5}, "no_gap_delta -5"},
		{Config{MaxLabelBytes: -1}, "max_label_bytes -1"},
		{Config{Near: -1}, "near and near_min"},
		{Config{NearMin: 3}, "near_min 3 needs near"},
		{Config{Train: []CorpusConfig{{Path: "a/t.json"}, {Path: "b/t.json"}}}, `train: a training corpus named "t.json" is given twice`},
		{Config{Splits: []SplitConfig{{Name: "b", Role: "test", Predictions: "b.json", ReportedExpRate: &r}}}, "reported_exprate 101"},
	} {
		c := tc.c
		if c.Splits == nil {
			c.Splits = []SplitConfig{{Name: "a", Role: "test", Predictions: "a.json"}}
		}
		_, err := NewPlan(&c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, new(*ConfigError)) {
			t.Errorf("%+v: error %v, want a *ConfigError containing %q", tc.c, err, tc.want)
		}
	}
	c := Config{Splits: []SplitConfig{{Name: "a", Role: "test", Predictions: "a.json"}}}
	p, err := NewPlan(&c)
	if err != nil || p.Config.Alpha != 0.05 || p.Config.NoGapDelta != 2 {
		t.Errorf("defaults: %v, alpha %v, no_gap_delta %v", err, p.Config.Alpha, p.Config.NoGapDelta)
	}
	if c.Alpha != 0 || c.NoGapDelta != 0 || c.Levels != nil || c.Splits[0].Benchmark != "" {
		t.Errorf("NewPlan changed the configuration it was given: %+v", c)
	}
}

// TestHostileAuditPredictionsMissing: a split whose predictions are a
// label list, or absent for more than half of its items, is an error
// naming the split and the key before anything is scored; a few missing
// predictions are scored as wrong and listed as a limitation.
func TestHostileAuditPredictionsMissing(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"train.json":  `["x ^ { 2 }", "y"]`,
		"labels.json": `[{"img_id": "a", "gt": "x ^ { 2 }"}, {"img_id": "b", "gt": "y"}]`,
		"half.json":   `[{"img_id": "a", "gt": "x", "pred": "x"}, {"img_id": "b", "gt": "y"}, {"img_id": "c", "gt": "z"}]`,
		"few.json":    `[{"img_id": "a", "gt": "x", "pred": "x"}, {"img_id": "b", "gt": "y", "pred": "y"}, {"img_id": "c", "gt": "z"}]`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	audit := func(preds string) (*Findings, error) {
		cfg := filepath.Join(dir, "audit.yaml")
		os.WriteFile(cfg, []byte("name: t\ntrain:\n  - {name: t, path: train.json}\nsplits:\n  - {name: s, role: test, predictions: "+preds+"}\n"), 0o644)
		c, err := LoadConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.DB = filepath.Join(dir, "db")
		return Run(t.Context(), Job{Config: c, Tool: "test"})
	}
	for preds, want := range map[string]string{
		"labels.json": "split s: predictions: " + filepath.Join(dir, "labels.json") + ": none of its 2 items has a prediction field",
		"half.json":   "split s: predictions: " + filepath.Join(dir, "half.json") + ": 2 of its 3 items have no prediction",
	} {
		if f, err := audit(preds); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v (findings %v), want %q", preds, err, f != nil, want)
		}
	}
	f, err := audit("few.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(f.Limitations, "\n"), "s: 1 of 3 items have no prediction; they are scored as wrong") {
		t.Errorf("limitations %q", f.Limitations)
	}
}

// TestHostileTestFingerprintsStop: the test fingerprints are computed
// under the audit's context, so a done context (Ctrl-C) stops them.
func TestHostileTestFingerprintsStop(t *testing.T) {
	p := filepath.Join(t.TempDir(), "test.json")
	if err := os.WriteFile(p, []byte(`["x ^ { 2 }", "a + b"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, err := NewPlan(&Config{Splits: []SplitConfig{{Name: "t", Role: "test", Labels: p}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{plan: pl, f: &Findings{}}
	if tab, err := r.testFingerprints(context.Background()); err != nil || tab == nil {
		t.Fatalf("test fingerprints: %v, %v", tab, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.testFingerprints(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("under a done context: %v, want context.Canceled", err)
	}
}
