package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// writeMappedInput writes a Snappy file of one row group whose image
// column chunk is above minMappedRange, so that the splice maps it.
func writeMappedInput(t *testing.T) (path string, size int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "in.parquet")
	writeSpliceInput(t, path, spliceRows(20000), []int{20000}, parquet.Compression(&parquet.Snappy), parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	md := footerOf(t, path)
	if c := md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize; c < minMappedRange {
		t.Fatalf("the first column chunk has %d bytes, fewer than a mapped range's %d", c, minMappedRange)
	}
	return path, fi.Size()
}

// TestSpliceMappedRead checks that the splice writes the same bytes
// whether it maps its input's column chunks or reads them.
func TestSpliceMappedRead(t *testing.T) {
	in, _ := writeMappedInput(t)
	var outs [2][]byte
	defer func(c bool) { copyChunks = c }(copyChunks)
	for i, m := range []bool{false, true} {
		// Mapped: not read into buffers to be copied from the file.
		mapRanges, copyChunks = m, !m
		out := filepath.Join(t.TempDir(), "out.parquet")
		_, err := spliceFile(t, in, out, func(s int64) bool { return s%7 != 3 }, 2)
		mapRanges = true
		if err != nil {
			t.Fatalf("mapped %v: %v", m, err)
		}
		if outs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("mapped and read splices differ (%d and %d bytes)", len(outs[1]), len(outs[0]))
	}
}

// TestHostileSpliceFileShrinks checks that a file that shrinks while the
// splice reads it (its chunks mapped) is an error, not a crash: a mapped
// page past the new end faults.
func TestHostileSpliceFileShrinks(t *testing.T) {
	in, _ := writeMappedInput(t)
	fh, pf, err := openTestParquet(t, in)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	shrunk := false
	keep := func(seq int64) bool {
		if !shrunk { // after the splice started, before it reads a chunk
			shrunk = true
			if err := os.Truncate(in, 4096); err != nil {
				t.Error(err)
			}
		}
		return seq%5 != 0
	}
	var buf bytes.Buffer
	_, err = spliceParquet(fh, pf.Metadata(), &buf, keep, 2)
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("splice of a file that shrank: %v, want an error saying it changed", err)
	}
}
