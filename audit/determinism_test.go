package audit

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/synth"
)

// TestAuditDeterministic: the findings (findings.json's content and the
// per-item evidence) are identical across runs and worker counts.
func TestAuditDeterministic(t *testing.T) {
	dir := t.TempDir()
	md, err := synth.GenerateModelDemo(filepath.Join(dir, "data"), 7)
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for i, w := range []int{1, 2, 2} {
		c, err := LoadConfig(md.Config)
		if err != nil {
			t.Fatal(err)
		}
		c.DB = filepath.Join(dir, "db", string(rune('a'+i)))
		outs = append(outs, auditJSON(t, c, w))
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("findings differ between runs or worker counts")
	}
}

// auditJSON runs an audit of c with workers and returns its findings and
// items as JSON, without the index folder (not part of the output).
func auditJSON(t *testing.T, c *Config, workers int) string {
	t.Helper()
	f, err := Run(context.Background(), Job{Config: c, Tool: "test", Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	c.DB = ""
	a, _ := json.Marshal(f)
	b, _ := json.Marshal(f.Items)
	return string(a) + string(b)
}
