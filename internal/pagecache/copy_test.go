package pagecache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCopyRange: CopyRange appends the range of the source at the
// destination's offset, as a write would, without moving the source's
// offset; where the system cannot copy, it says so with ErrNoCopy and
// the caller writes the rest.
func TestCopyRange(t *testing.T) {
	dir := t.TempDir()
	src := make([]byte, 3<<20)
	for i := range src {
		src[i] = byte(i*7 + i>>11)
	}
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		off, n int64
	}{
		{"nothing", 100, 0},
		{"a short unaligned range", 12345, 777},
		{"a long range", 4096, 2 << 20},
		{"to the file's end", 1 << 20, 2 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			if _, err := out.Write([]byte("head")); err != nil {
				t.Fatal(err)
			}
			n, err := CopyRange(out, f, tc.off, tc.n)
			if errors.Is(err, ErrNoCopy) {
				// The rest is the caller's, as a write.
				_, err = out.Write(src[tc.off+n : tc.off+tc.n])
				n = tc.n
			}
			if err != nil || n != tc.n {
				t.Fatalf("copied %d of %d bytes: %v", n, tc.n, err)
			}
			if _, err := out.Write([]byte("tail")); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			want := append(append([]byte("head"), src[tc.off:tc.off+tc.n]...), "tail"...)
			if !bytes.Equal(got, want) {
				t.Errorf("the output has %d bytes, differing from the %d of the range between what was written around it", len(got), len(want))
			}
			if pos, err := f.Seek(0, 1); err != nil || pos != 0 {
				t.Errorf("the source's offset is %d (%v), want it unmoved", pos, err)
			}
		})
	}
}
