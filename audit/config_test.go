package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleConfig: the example "audit init" prints is a valid
// configuration.
func TestExampleConfig(t *testing.T) {
	c, err := ParseConfig([]byte(ExampleConfig))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Train) != 2 || len(c.Splits) != 2 || c.Splits[0].ReportedExpRate == nil || p.Config.Profile != "unimernet" {
		t.Errorf("example parsed as %+v, planned as %+v", c, p.Config)
	}
}

// TestConfigStrict: every mistake is an error naming the key and its line.
func TestConfigStrict(t *testing.T) {
	const head = "name: x\nsplits:\n  - {name: a, role: test, predictions: a.json}\n"
	for _, tc := range []struct{ yaml, want string }{
		{head + "trian:\n  - {name: t, path: t.json}\n", "line 4: field trian not found"},
		{head + "train:\n  - {name: t, path: t.json, fromat: csv}\n", "line 5: field fromat not found"},
		{head + "train:\n  - {name: t, path: t.json, format: jsn}\n", `line 5: format: unknown format "jsn"`},
		{"splits:\n  - name: a\n    role: tset\n    predictions: a.json\n", `line 3: role: role must be train, val or test (got "tset")`},
		{head + "levels: [audit, wss]\n", `line 4: levels: unknown level "wss"`},
		{head + "cdm_profile: unimernett\n", `line 4: cdm_profile: unknown CDM profile "unimernett"`},
		{"name: x\n", "no splits"},
		{head + "splits2: []\n", "line 4: field splits2 not found"},
	} {
		_, err := ParseConfig([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestConfigPaths: every path is relative to the configuration file, and
// a caption folder is a training corpus as on the command line.
func TestConfigPaths(t *testing.T) {
	f := auditFiles(t, "conf", map[string]string{
		"train/caption.txt": "a\tx ^ { 2 }\nb\ty\n",
		"preds.json":        `[{"img_id":"1","gt":"x ^ { 2 }","pred":"x^{2}"},{"img_id":"2","gt":"z","pred":"z"}]`,
		"audit.yaml":        "name: t\ntrain:\n  - {name: folder, path: train}\nsplits:\n  - {name: s, role: test, predictions: preds.json}\n",
	})
	if !f.Complete || len(f.Overlap) == 0 || f.Overlap[0].Found != 1 || f.Overlap[0].Total != 2 {
		t.Errorf("overlap %+v, complete %v %v", f.Overlap, f.Complete, f.Incomplete)
	}
}

// TestConfigLimitsEverywhere: max_label_bytes gives the same counts in the
// splits and in the overlap (the overlap used to read the splits again
// without it), and a skip by a limit does not make the audit partial.
func TestConfigLimitsEverywhere(t *testing.T) {
	f := auditFiles(t, ".", map[string]string{
		"train.json": `["x ^ { 2 }", "z"]`,
		"preds.json": `[{"img_id":"1","gt":"x ^ { 2 }","pred":"x^{2}"},{"img_id":"2","gt":"z","pred":"z"}]`,
		"audit.yaml": "name: t\nmax_label_bytes: 3\ntrain:\n  - {name: t, path: train.json}\nsplits:\n  - {name: s, role: test, predictions: preds.json}\n",
	})
	if f.Splits[0].N != 1 || f.Overlap[0].Total != 1 || f.Overlap[0].Found != 1 {
		t.Errorf("split n %d, overlap %+v: want 1 item in both, found", f.Splits[0].N, f.Overlap[0])
	}
	if !f.Complete {
		t.Errorf("a limit made the audit partial: %v", f.Incomplete)
	}
}

// auditFiles writes files into a folder sub of a temporary folder, loads
// its audit.yaml and runs the audit with an index of its own.
func auditFiles(t *testing.T, sub string, files map[string]string) *Findings {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, sub, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadConfig(filepath.Join(dir, sub, "audit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.DB = filepath.Join(dir, "db")
	f, err := Run(t.Context(), Job{Config: c, Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
