package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/audit"
)

// Run scores a model's predictions with CDM and text ExpRate, looks
// the test labels up in the training corpora and derives the findings.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "train.json"), []byte(`["x ^ { 2 }", "a + b"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "test.json"), []byte(`[
		{"img_id": "1", "gt": "x ^ { 2 }", "pred": "x^{2}"},
		{"img_id": "2", "gt": "a + b", "pred": "a+b"},
		{"img_id": "3", "gt": "\\frac { 1 } { 2 }", "pred": "\\frac{1}{3}"}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "audit.yaml"), []byte(`name: example
train:
  - {name: train, path: train.json}
splits:
  - {name: test, role: test, predictions: test.json, reported_exprate: 100}
`), 0o644)
	c, err := audit.LoadConfig(filepath.Join(dir, "audit.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c.DB = filepath.Join(dir, "db")
	f, err := audit.Run(context.Background(), audit.Job{Config: c, Tool: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Splits {
		fmt.Printf("%s: %d items, ExpRate %.2f%%, ExpRate@CDM %.2f%%\n", s.Name, s.N, s.ExpRate, s.ExpRateCDM)
	}
	for _, o := range f.Overlap {
		fmt.Printf("overlap at %s: %d of %d\n", o.Level, o.Found, o.Total)
	}
	for _, a := range f.Anomalies {
		fmt.Println(a.Kind, a.Split)
	}
	// Output:
	// test: 3 items, ExpRate 66.67%, ExpRate@CDM 66.67%
	// overlap at audit: 2 of 3
	// overlap at ws: 2 of 3
	// cdm_reversal test
}
