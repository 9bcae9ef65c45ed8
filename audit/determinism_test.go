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
		f, err := RunAudit(context.Background(), AuditJob{Config: c, Tool: "test", Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		c.DB = "" // not part of the output
		a, _ := json.Marshal(f)
		b, _ := json.Marshal(f.Items)
		outs = append(outs, string(a)+string(b))
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("findings differ between runs or worker counts")
	}
}
