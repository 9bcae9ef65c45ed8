package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// duckImage and duckRow are a Hugging Face image release as DuckDB's COPY
// writes it (scripts/vs-peers.sh): PLAIN byte arrays in v1 data pages,
// Snappy, row groups of 10,000 rows.
type duckImage struct {
	Bytes []byte `parquet:"bytes,plain,optional"`
	Path  string `parquet:"path,plain,optional"`
}

type duckRow struct {
	Image duckImage `parquet:"image,optional"`
	Latex string    `parquet:"latex_formula,plain,optional"`
}

// writeDuckLikeRelease writes n rows with 512 bytes of incompressible
// image each.
func writeDuckLikeRelease(b *testing.B, path string, n int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[duckRow](f, parquet.Compression(&parquet.Snappy), parquet.DataPageVersion(1), parquet.MaxRowsPerRowGroup(10_000))
	rows := make([]duckRow, 0, 4096)
	x := uint32(1)
	for i := range n {
		img := make([]byte, 512)
		for j := range img {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			img[j] = byte(x)
		}
		rows = append(rows, duckRow{Image: duckImage{Bytes: img, Path: fmt.Sprintf("%08d.png", i)},
			Latex: fmt.Sprintf("\\frac{x_{%d}}{%d} + y^{%d}", i, i%97+1, i%13)})
		if len(rows) == cap(rows) || i == n-1 {
			if _, err := w.Write(rows); err != nil {
				b.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSpliceParquet rewrites a DuckDB-like image release of 100,000
// rows without one row in 83 (about the share a HME100K test split takes
// from a release of public labels), through the page splice alone: it
// fails if the splice does not handle the file (the row-by-row rewrite is
// BenchmarkDedupParquet's). It reports the input MB/s and rows/s.
func BenchmarkSpliceParquet(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	in := filepath.Join(dir, "release.parquet")
	writeDuckLikeRelease(b, in, n)
	fi, err := os.Stat(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := range b.N {
		out := filepath.Join(dir, fmt.Sprint("out", i%2, ".parquet"))
		got, err := spliceFileTo(b, in, out, func(seq int64) bool { return seq%83 != 41 })
		if err != nil {
			b.Fatal(err)
		}
		if want := int64(n - (n-41+82)/83); got != want {
			b.Fatalf("kept %d rows, want %d", got, want)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// spliceFileTo runs the page splice alone over in, writing out as
// writeParquetSubset does.
func spliceFileTo(b *testing.B, in, out string, keep func(int64) bool) (int64, error) {
	b.Helper()
	fh, err := os.Open(in)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := openParquet(fh, fi.Size())
	if err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return spliceParquet(fh, pf.Metadata(), vectorFile{f}, keep, runtime.GOMAXPROCS(0))
}
