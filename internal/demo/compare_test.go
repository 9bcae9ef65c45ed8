package demo

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

// TestCompareDemo runs the comparison demo twice: it must find the
// planted rank flip and no other, and its comparison.json, report.md and
// report.html must be byte-identical across runs.
func TestCompareDemo(t *testing.T) {
	dir := t.TempDir()
	var first map[string][]byte
	for i := 0; i < 2; i++ {
		var w bytes.Buffer
		res, err := RunCompare(context.Background(), dir, "test", &w)
		if err != nil {
			t.Fatalf("%v\n%s", err, w.String())
		}
		if i == 0 {
			t.Logf("%s", w.String())
			for _, e := range res.Excess {
				t.Logf("excess %s over %s: %+.2f [%.2f, %.2f]", e.Model, e.Control, e.Excess, e.CI[0], e.CI[1])
				if e.Model == "memorizer" && !e.Positive {
					t.Errorf("the memorizer's excess gap over %s is not found: %+v", e.Control, e)
				}
			}
		}
		files := readOutputs(t, filepath.Join(dir, "compare"), "comparison.json", "report.md", "report.html", "items.parquet")
		if first == nil {
			first = files
			continue
		}
		sameOutputs(t, first, files)
	}
}
