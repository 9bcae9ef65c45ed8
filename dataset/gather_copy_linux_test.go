package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileGatherWriteShrunk: a range of the input copied after the
// file shrank is an error saying it changed, not fewer bytes.
func TestHostileGatherWriteShrunk(t *testing.T) {
	path, in, m := mappedTestFile(t, 8*minCopyRange)
	g := gather{stable: m, stableAt: 0}
	g.ref(m[minCopyRange : 3*minCopyRange])
	if err := os.Truncate(path, 2*minCopyRange); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.write(vectorFile{out}, in, nil)
	out.Close()
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("copy of a range past the file's new end: %v, want an error saying it changed", err)
	}
}
