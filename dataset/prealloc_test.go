package dataset

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetSubsetNoPrealloc checks that a Parquet subset written by the
// page splice holds no blocks past its end: the blocks reserved for it, as
// many as the input has, are given back to what it wrote.
func TestParquetSubsetNoPrealloc(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	rows := spliceRows(20000)
	writeSpliceInput(t, in, rows, []int{8000, 8000, 4000}, parquet.Compression(&parquet.Snappy), parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	for _, tc := range []struct {
		name string
		keep func(int64) bool
	}{
		{"a few kept", func(s int64) bool { return s%50 == 0 }},
		{"half kept", func(s int64) bool { return s%2 == 0 }},
		{"none kept", func(int64) bool { return false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.parquet")
			if _, err := writeParquetSubset(Source{Path: in}, out, tc.keep); err != nil {
				t.Fatal(err)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(out, &st); err != nil {
				t.Fatal(err)
			}
			// The blocks of its bytes, and a block of the file system's
			// own (an extent tree's) at most.
			if held, most := st.Blocks*512, (st.Size+4095)/4096*4096+4096; held > most {
				t.Errorf("%d bytes hold %d bytes of blocks, more than %d", st.Size, held, most)
			}
			os.Remove(out)
		})
	}
}
