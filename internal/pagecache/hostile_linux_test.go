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

// TestHostileCopyRangeShrunk: copying a range of a file that shrank
// below its end is ErrShort, with at most the bytes left copied.
func TestHostileCopyRangeShrunk(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(in, 300<<10); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	n, err := CopyRange(out, f, 256<<10, 512<<10)
	if !errors.Is(err, ErrShort) {
		t.Fatalf("copy of a range past its file's end: %d bytes, %v; want ErrShort", n, err)
	}
	if n > 44<<10 {
		t.Errorf("%d bytes copied, more than the %d left in the file", n, 44<<10)
	}
}
