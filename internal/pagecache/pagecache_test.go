package pagecache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestMapReserve: a mapped range holds the file's bytes at its offset, and
// a reservation leaves the file's size as written.
func TestMapReserve(t *testing.T) {
	page := os.Getpagesize()
	data := make([]byte, 3*page+100)
	for i := range data {
		data[i] = byte(i*7 + i/page) // differs from one page to the next
	}
	p := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Reserve(f, int64(10*len(data)))
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != int64(len(data)) {
		t.Fatalf("size after a reservation and a write: %v, %v; want %d", fi.Size(), err, len(data))
	}
	m, err := Map(int(f.Fd()), int64(page), 2*page+100)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m)
	if !bytes.Equal(m, data[page:]) {
		t.Errorf("the mapping of the range at %d differs from the file's bytes", page)
	}
}
