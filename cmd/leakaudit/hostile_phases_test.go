package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileNearSettingByInterface: a fingerprint given as a training
// corpus has no token sequences for the near-label search. The command
// line names the search by its flag; an audit configured by a file names
// it by its key, and its log names the index folder by its key too, never
// a flag the configuration user does not have.
func TestHostileNearSettingByInterface(t *testing.T) {
	dir := hostileFiles(t)
	fp := filepath.Join(dir, "train.fp.parquet")
	if r := cliRun(t, "fingerprint", "--input", "t="+filepath.Join(dir, "train.json"), "--out", fp); r.code != 0 {
		t.Fatalf("fingerprint: exit %d: %s", r.code, r.stderr)
	}
	r := cliRun(t, "overlap", "--train", fp, "--test", filepath.Join(dir, "test.json"), "--near", "2")
	checkFailure(t, r, 1, "it has no token sequences, which --near needs", false)
	if !strings.Contains(r.stderr, "(no index kept; --db DIR builds one for repeated runs)") {
		t.Errorf("the command line's log does not name --db: %q", r.stderr)
	}

	cfg := filepath.Join(dir, "audit.yaml")
	body := "name: t\nnear: 2\ntrain:\n  - {name: t, path: train.fp.parquet}\nsplits:\n  - {name: s, benchmark: b, role: test, labels: test.json}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		args := []string{"audit", "--config", cfg, "--out", filepath.Join(dir, "out")}
		if asJSON {
			args = append(args, "--json")
		}
		r := cliRun(t, args...)
		checkFailure(t, r, 1, "it has no token sequences, which near: needs", asJSON)
		if !strings.Contains(r.stderr, "(no index kept; db: DIR builds one for repeated runs)") {
			t.Errorf("the configured run's log does not name db:: %q", r.stderr)
		}
		if strings.Contains(r.stderr+r.stdout, "--near") || strings.Contains(r.stderr+r.stdout, "--db") {
			t.Errorf("a configured run names a flag: %q %q", r.stderr, r.stdout)
		}
	}
}
