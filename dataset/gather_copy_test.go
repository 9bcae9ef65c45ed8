package dataset

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/pagecache"
)

// copyCounter is a vectorFile that counts the ranges it copies from the
// input file.
type copyCounter struct {
	vectorFile
	copies int
	refuse int // copies only the first refuse bytes of a range, when > 0
}

func (c *copyCounter) copyRange(in *os.File, at int64, n int) (int, error) {
	c.copies++
	if c.refuse > 0 && n > c.refuse {
		return c.vectorFile.copyRange(in, at, c.refuse)
	}
	return c.vectorFile.copyRange(in, at, n)
}

// mappedTestFile writes n random bytes to a file and returns it open,
// with its bytes mapped.
func mappedTestFile(t *testing.T, n int) (path string, f *os.File, m []byte) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "in")
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if m, err = pagecache.Map(int(f.Fd()), 0, n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pagecache.Unmap(m) })
	return path, f, m
}

// TestGatherWrite: write writes a gather's bytes in order, the long
// ranges of the input file copied from it (one copy for a run of
// pieces that continue each other), the others from memory.
func TestGatherWrite(t *testing.T) {
	const size = 8 * minCopyRange
	_, in, m := mappedTestFile(t, size)
	at := int64(pageSize) // the stable bytes' offset in the file
	stable := m[at:]
	tests := []struct {
		name    string
		pieces  func(b []byte, put func(ref bool, p []byte))
		noFile  bool // the input is not a file: nothing is copied
		refuse  int  // the copier stops after so many bytes of a range
		copies  int
		wantErr bool
	}{
		{"a long range is copied", func(b []byte, put func(bool, []byte)) {
			put(false, []byte("head"))
			put(true, b[100:100+2*minCopyRange])
			put(false, []byte("tail"))
		}, false, 0, 1, false},
		{"pieces continuing each other are one copy", func(b []byte, put func(bool, []byte)) {
			put(true, b[:minCopyRange/2])
			put(true, b[minCopyRange/2:minCopyRange/2+3])
			put(true, b[minCopyRange/2+3:2*minCopyRange])
			put(false, []byte("x"))
			put(true, b[3*minCopyRange:4*minCopyRange])
		}, false, 0, 2, false},
		{"a short range is written", func(b []byte, put func(bool, []byte)) {
			put(true, b[:minCopyRange-1])
			put(true, b[minCopyRange:2*minCopyRange-1])
		}, false, 0, 0, false},
		{"bytes outside the stable ones are written", func(b []byte, put func(bool, []byte)) {
			put(true, bytes.Repeat([]byte("o"), 2*minCopyRange))
		}, false, 0, 0, false},
		{"no input file", func(b []byte, put func(bool, []byte)) {
			put(true, b[:2*minCopyRange])
		}, true, 0, 0, false},
		{"a copy stopped short: the rest written from memory", func(b []byte, put func(bool, []byte)) {
			put(false, []byte("head"))
			put(true, b[7:7+3*minCopyRange])
			put(false, []byte("tail"))
		}, false, 1000, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := gather{stable: stable, stableAt: at}
			src := stable
			var want []byte
			tc.pieces(src, func(ref bool, p []byte) {
				want = append(want, p...)
				if ref {
					g.ref(p)
				} else {
					g.add(p)
				}
			})
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			if _, err := out.Write([]byte("PAR1")); err != nil {
				t.Fatal(err)
			}
			w := &copyCounter{vectorFile: vectorFile{out}, refuse: tc.refuse}
			file := in
			if tc.noFile {
				file = nil
			}
			_, err = g.write(w, file, nil)
			if tc.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("PAR1"), want...)) || g.len() != len(want) {
				t.Errorf("wrote %d bytes (len %d), differing from the %d gathered", len(got)-4, g.len(), len(want))
			}
			if w.copies != tc.copies {
				t.Errorf("%d ranges copied from the file, want %d", w.copies, tc.copies)
			}
		})
	}
}
