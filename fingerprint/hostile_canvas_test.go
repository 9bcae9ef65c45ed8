package fingerprint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
)

// TestHostileUnknownCanvas: an image fingerprint whose metadata names a
// canvas imagehash does not know is refused, the file named, rather than
// read as if its images had been hashed on a known canvas.
func TestHostileUnknownCanvas(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "img.fp.parquet")
	in := []Input{{Name: "train", Source: dataset.Source{Path: imageFolder(t, dir)}}}
	if _, err := Write(out, in, Options{Levels: levels(t, "ws"), Tool: "test", Images: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(out); err != nil {
		t.Fatalf("the fingerprint as written: %v", err)
	}
	// The same length keeps the Parquet footer valid.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("canvas=stretch")) != 1 {
		t.Fatal("the metadata does not name the canvas once")
	}
	if err := os.WriteFile(out, bytes.Replace(b, []byte("canvas=stretch"), []byte("canvas=stretcx"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(out)
	if err == nil || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), `unknown canvas "stretcx"`) {
		t.Fatalf("got %v, want an error naming %s and the unknown canvas", err, out)
	}
}
