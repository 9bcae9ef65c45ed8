package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo runs the demo twice in the same folder: it must find exactly the
// planted copies, and its JSON must be byte-identical across runs (the
// second run regenerates the data and rebuilds the index).
func TestDemo(t *testing.T) {
	var outs [][]byte
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		var w bytes.Buffer
		res, err := Run(context.Background(), dir, "test", &w)
		if err != nil {
			t.Fatalf("%v\n%s", err, w.String())
		}
		if !strings.Contains(w.String(), "all planted copies found") {
			t.Errorf("summary:\n%s", w.String())
		}
		if len(res.Report.AuditOnly) != res.Bench.Tests[0].Planted.Glued {
			t.Errorf("%d audit-only, planted %d", len(res.Report.AuditOnly), res.Bench.Tests[0].Planted.Glued)
		}
		data, err := os.ReadFile(filepath.Join(dir, "overlap.json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RunDedup(context.Background(), dir, "test", res.Bench, &w); err != nil {
			t.Fatalf("dedup: %v\n%s", err, w.String())
		}
		removed, err := os.ReadFile(filepath.Join(dir, "clean", "removed.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, append(data, removed...))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("overlap.json or the clean release's removed.jsonl differs between two demo runs")
	}
}

// TestModelAudit runs the model demo twice: it must find every planted
// contamination and label error and nothing else, and its findings.json,
// report.md and report.html must be byte-identical across runs.
func TestModelAudit(t *testing.T) {
	dir := t.TempDir()
	var first map[string][]byte
	for i := 0; i < 2; i++ {
		var w bytes.Buffer
		if _, err := RunModelAudit(context.Background(), dir, "test", &w); err != nil {
			t.Fatalf("%v\n%s", err, w.String())
		}
		files := readOutputs(t, filepath.Join(dir, "audit"), "findings.json", "report.md", "report.html", "items.jsonl")
		if first == nil {
			first = files
			continue
		}
		sameOutputs(t, first, files)
	}
	if !bytes.Contains(first["report.html"], []byte("data:image/png;base64,")) {
		t.Error("report.html has no inlined figure")
	}
}

// readOutputs reads the named files of a demo's output folder.
func readOutputs(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	return files
}

// sameOutputs reports each file of a second run that differs from the
// first run's.
func sameOutputs(t *testing.T, first, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		if !bytes.Equal(data, first[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
