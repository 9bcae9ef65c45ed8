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
}

func (c *copyCounter) copyRange(in *os.File, at int64, b []byte) (int, error) {
	c.copies++
	return c.vectorFile.copyRange(in, at, b)
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
		name   string
		pieces func(g *gather)
		noFile bool // the input is not a file: nothing is copied
		copies int
	}{
		{"a long range is copied", func(g *gather) {
			g.add([]byte("head"))
			g.ref(stable[100 : 100+2*minCopyRange])
			g.add([]byte("tail"))
		}, false, 1},
		{"pieces continuing each other are one copy", func(g *gather) {
			g.ref(stable[:minCopyRange/2])
			g.ref(stable[minCopyRange/2 : minCopyRange/2+3])
			g.ref(stable[minCopyRange/2+3 : 2*minCopyRange])
			g.add([]byte("x"))
			g.ref(stable[3*minCopyRange : 4*minCopyRange])
		}, false, 2},
		{"a short range is written", func(g *gather) {
			g.ref(stable[:minCopyRange-1])
			g.ref(stable[minCopyRange : 2*minCopyRange-1])
		}, false, 0},
		{"bytes outside the stable ones are written", func(g *gather) {
			g.ref(bytes.Repeat([]byte("o"), 2*minCopyRange))
		}, false, 0},
		{"no input file", func(g *gather) {
			g.ref(stable[:2*minCopyRange])
		}, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := gather{stable: stable, stableAt: at}
			tc.pieces(&g)
			want := bytes.Join(g.buffers(nil), nil)
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			if _, err := out.Write([]byte("PAR1")); err != nil {
				t.Fatal(err)
			}
			w := &copyCounter{vectorFile: vectorFile{out}}
			src := in
			if tc.noFile {
				src = nil
			}
			if _, err := g.write(w, src, nil); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("PAR1"), want...)) {
				t.Errorf("wrote %d bytes, differing from the %d gathered", len(got)-4, len(want))
			}
			if w.copies != tc.copies {
				t.Errorf("%d ranges copied from the file, want %d", w.copies, tc.copies)
			}
		})
	}
}
