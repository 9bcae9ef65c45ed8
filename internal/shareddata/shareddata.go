// Package shareddata locates the real benchmark data that tests and
// benchmarks read: $LEAKAUDIT_DATA if set, else ../shared/data beside the
// module root, as CI lays it out. Tests call Dir, which skips the test with
// a clear message when the data is absent.
package shareddata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data folder, or skips tb when there is none.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d := Find(); d != "" {
		return d
	}
	tb.Skip("shared data not found: set LEAKAUDIT_DATA or put it at ../shared/data beside the repository")
	return ""
}

// Path returns a file under the shared data folder, or skips tb when that
// file is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data file %s not found", p)
	}
	return p
}

// Find returns the shared data folder, or "" when there is none.
func Find() string {
	if d := os.Getenv("LEAKAUDIT_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// JSONStrings reads a JSON array of strings under the shared data folder
// (a label list), or skips tb when the file is absent.
func JSONStrings(tb testing.TB, rel string) []string {
	tb.Helper()
	data, err := os.ReadFile(Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	if err := json.Unmarshal(data, &out); err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
	return out
}
