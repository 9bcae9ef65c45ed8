package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/setting"
)

// notIndexFolder makes a folder that holds a file and no index: given as
// the index folder, it is refused with a message naming that setting.
func notIndexFolder(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "notindex")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileSettingNamedAsFlag: on the command line, a library error that
// asks for another setting names its flag, and carries the setting.
func TestHostileSettingNamedAsFlag(t *testing.T) {
	dir := hostileFiles(t)
	db := notIndexFolder(t, dir)
	args := []string{"overlap", "--db", db, "--train", filepath.Join(dir, "train.json"), "--test", filepath.Join(dir, "test.json")}
	const want = "(give --db an empty or new folder, or an index folder)"
	for _, asJSON := range []bool{false, true} {
		a := args
		if asJSON {
			a = append(slices.Clone(args), "--json")
		}
		checkFailure(t, cliRun(t, a...), 1, want, asJSON)
	}
	_, _, err := execute(args...)
	var se *setting.Error
	if !errors.As(err, &se) || !slices.Contains(se.Keys(), setting.DB) {
		t.Errorf("the error %v does not carry the setting db", err)
	}
	if _, err := os.Stat(filepath.Join(db, "keep.txt")); err != nil {
		t.Errorf("the folder given as --db was changed: %v", err)
	}
}

// TestHostileSettingNamedAsConfigKey: in a run configured by a file, the
// same error names the configuration's key, never a flag the configuration
// user does not have.
func TestHostileSettingNamedAsConfigKey(t *testing.T) {
	dir := hostileFiles(t)
	db := notIndexFolder(t, dir)
	cfg := filepath.Join(dir, "audit.yaml")
	body := "name: t\ndb: " + db + "\ntrain:\n  - {name: t, path: train.json}\nsplits:\n  - {name: s, benchmark: b, role: test, labels: test.json}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "(give db: an empty or new folder, or an index folder)"
	for _, asJSON := range []bool{false, true} {
		args := []string{"audit", "--config", cfg, "--out", filepath.Join(dir, "out")}
		if asJSON {
			args = append(args, "--json")
		}
		r := cliRun(t, args...)
		checkFailure(t, r, 1, want, asJSON)
		if strings.Contains(r.stderr, "--db") || strings.Contains(r.stdout, "--db") {
			t.Errorf("a configured run names the flag --db: %q %q", r.stderr, r.stdout)
		}
	}
}
