package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatherRef: ref refers to long ranges of its stable bytes and copies
// everything else, and write writes the bytes in order.
func TestGatherRef(t *testing.T) {
	stable := bytes.Repeat([]byte("s"), 4*minGatherRef)
	long := stable[minGatherRef : 3*minGatherRef]
	other := bytes.Repeat([]byte("o"), 2*minGatherRef)
	tests := []struct {
		name    string
		pieces  [][]byte
		refs    int // pieces referred to, not copied
		ownSegs int
	}{
		{"copies merge", [][]byte{[]byte("ab"), []byte("cd")}, 0, 1},
		{"a long stable range is referred to", [][]byte{[]byte("ab"), long, []byte("cd")}, 1, 2},
		{"a short stable range is copied", [][]byte{stable[:minGatherRef-1], []byte("x")}, 0, 1},
		{"a range beyond the stable bytes is copied", [][]byte{other}, 0, 1},
		{"the whole stable range", [][]byte{stable, stable}, 2, 0},
		{"a short range continuing a referred one lengthens it", [][]byte{stable[:minGatherRef], stable[minGatherRef : minGatherRef+3], stable[minGatherRef+3 : 2*minGatherRef]}, 1, 0},
		{"a short range first is copied, the long one after referred to", [][]byte{stable[:3], stable[3 : 3+minGatherRef]}, 1, 1},
		{"a range not continuing the last one is its own", [][]byte{stable[:minGatherRef], stable[minGatherRef+1 : 2*minGatherRef+1]}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g gather
			g.stable = stable
			for _, p := range tc.pieces {
				g.ref(p)
			}
			refs, own := 0, 0
			for _, s := range g.segs {
				if s.ext != nil {
					refs++
				} else {
					own++
				}
			}
			if refs != tc.refs || own != tc.ownSegs {
				t.Errorf("%d pieces referred to and %d copied runs, want %d and %d", refs, own, tc.refs, tc.ownSegs)
			}
			want := bytes.Join(tc.pieces, nil)
			var out bytes.Buffer
			if _, err := g.write(&out, nil, nil); err != nil {
				t.Fatal(err)
			}
			if got := out.Bytes(); !bytes.Equal(got, want) || g.len() != len(want) {
				t.Errorf("gathered %d bytes (len %d), want the %d given in order", len(got), g.len(), len(want))
			}
		})
	}
}

// spliceToFile runs the page splice alone over in, writing out as
// writeParquetSubset does: several buffers at a time, straight from the
// mapped input.
func spliceToFile(t *testing.T, in, out string, keep func(int64) bool, w func(*os.File) vectorWriter) error {
	t.Helper()
	fh, pf, err := openTestParquet(t, in)
	if err != nil {
		return err
	}
	defer fh.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = spliceParquet(fh, pf.Metadata(), w(f), keep, 2)
	return err
}

// TestSpliceWritesMappedRanges: the splice writes the same bytes from
// its mapped input straight to a file (vectorFile) as when it reads its
// input into buffers.
func TestSpliceWritesMappedRanges(t *testing.T) {
	in, _ := writeMappedInput(t)
	keep := func(s int64) bool { return s%7 != 3 }
	read := filepath.Join(t.TempDir(), "read.parquet")
	mapRanges = false
	_, err := spliceFile(t, in, read, keep, 2)
	mapRanges = true
	if err != nil {
		t.Fatal(err)
	}
	mapped := filepath.Join(t.TempDir(), "mapped.parquet")
	if err := spliceToFile(t, in, mapped, keep, func(f *os.File) vectorWriter { return vectorFile{f} }); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(read)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(mapped)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("written from the mapped input: %d bytes, differing from the %d of a splice that read it", len(b), len(a))
	}
}

// shrinkingFile is a vectorFile whose input shrinks before its first
// row group is written: after the splice mapped and cut it, before the
// kernel copies the mapped ranges.
type shrinkingFile struct {
	vectorFile
	in     string
	shrunk bool
	t      *testing.T
}

func (s *shrinkingFile) writeVectors(bufs [][]byte) error {
	if !s.shrunk {
		s.shrunk = true
		if err := os.Truncate(s.in, 4096); err != nil {
			s.t.Error(err)
		}
	}
	return s.vectorFile.writeVectors(bufs)
}

// TestHostileSpliceFileShrinksBeforeWrite: a file that shrinks after
// the splice cut its mapped pages, before they are written, is an error
// saying so, not a crash.
// With its chunks read into buffers (copyChunks), what it read before is
// written, or the ranges left in the file are an error saying it changed.
func TestHostileSpliceFileShrinksBeforeWrite(t *testing.T) {
	defer func(c bool) { copyChunks = c }(copyChunks)
	keep := func(s int64) bool { return s%5 != 0 }
	for _, copied := range []bool{false, true} {
		copyChunks = copied
		in, _ := writeMappedInput(t)
		whole := filepath.Join(t.TempDir(), "whole.parquet")
		if err := spliceToFile(t, in, whole, keep, func(f *os.File) vectorWriter { return vectorFile{f} }); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out.parquet")
		err := spliceToFile(t, in, out, keep, func(f *os.File) vectorWriter {
			return &shrinkingFile{vectorFile: vectorFile{f}, in: in, t: t}
		})
		if copied && err == nil {
			a, _ := os.ReadFile(whole)
			if b, _ := os.ReadFile(out); !bytes.Equal(a, b) {
				t.Errorf("chunks read: the splice of a file that shrank after they were read wrote %d bytes, not the %d of the whole file's", len(b), len(a))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
			t.Fatalf("chunks read %v: splice of a file that shrank before its pages were written: %v, want an error saying it changed", copied, err)
		}
	}
}
