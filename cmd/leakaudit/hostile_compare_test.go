package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// TestHostileCompare: an invalid configuration is a usage error (exit 2,
// a JSON error under --json) naming its line; the example "compare init"
// prints is valid; an output folder that holds an input, or a file the
// command did not write, is refused before anything is read; a second
// run into the command's own output is allowed.
func TestHostileCompare(t *testing.T) {
	var so, se bytes.Buffer
	if code := runCLI([]string{"compare", "init"}, &so, &se); code != exitOK {
		t.Fatalf("compare init: exit %d: %s", code, se.String())
	}
	if _, err := compare.ParseConfig(so.Bytes()); err != nil {
		t.Errorf("compare init prints a configuration compare refuses: %v", err)
	}
	dir := t.TempDir()
	cd, err := synth.GenerateCompareDemo(filepath.Join(dir, "data"), 7)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(cd.Config)
	bad := filepath.Join(dir, "data", "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(good), "reported_exprate: 80", "reported_exprate: 800", 1)), 0o644)
	run := func(args ...string) (int, string, string) {
		var so, se bytes.Buffer
		code := runCLI(args, &so, &se)
		return code, so.String(), se.String()
	}
	code, stdout, stderr := run("compare", "--config", bad, "--out", filepath.Join(dir, "out"), "--json")
	var je jsonError
	if code != exitUsage || json.Unmarshal([]byte(stdout), &je) != nil || je.Kind != "usage" || !strings.Contains(stderr, "line 10") {
		t.Errorf("invalid configuration: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// An output folder holding an input (the data folder) is refused.
	if code, _, stderr := run("compare", "--config", cd.Config, "--out", filepath.Join(dir, "data")); code == exitOK || !strings.Contains(stderr, "--out") {
		t.Errorf("--out over the inputs: exit %d, %s", code, stderr)
	}
	// A folder with a foreign file is refused; the command's own output
	// is written into again.
	foreign := filepath.Join(dir, "foreign")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	if code, _, _ := run("compare", "--config", cd.Config, "--out", foreign); code == exitOK {
		t.Error("an output folder with a foreign file was written into")
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(b) != "mine" {
		t.Error("the foreign file changed")
	}
	out := filepath.Join(dir, "out")
	for i := range 2 {
		if code, _, stderr := run("compare", "--config", cd.Config, "--out", out); code != exitOK {
			t.Fatalf("run %d: exit %d: %s", i+1, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "comparison.json")); err != nil {
		t.Error(err)
	}
}
