package pagecache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestHostileWriteVectorsShrunk: writing from a mapping of a file that
// shrank since it was mapped is ErrFault, not a crash.
func TestHostileWriteVectorsShrunk(t *testing.T) {
	page := os.Getpagesize()
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, make([]byte, 8*page), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Map(int(f.Fd()), 0, 8*page)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m)
	if err := os.Truncate(in, int64(page)); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	n, err := WriteVectors(out, [][]byte{m[:page/2], m[page/2:]})
	if !errors.Is(err, ErrFault) {
		t.Fatalf("write from a mapping past its file's end: %d bytes, %v; want ErrFault", n, err)
	}
	if n > int64(page) {
		t.Errorf("%d bytes written, more than the %d left in the file", n, page)
	}
}
