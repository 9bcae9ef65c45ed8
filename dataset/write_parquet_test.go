package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

type pqTestRow struct {
	Latex string `parquet:"latex_formula"`
	Blob  []byte `parquet:"blob,optional"`
	N     int64  `parquet:"n"`
}

// TestWriteSubsetParquetParallel filters a Parquet file whose row groups
// are smaller and larger than maxRowGroupRows on 1 to 4 workers: the kept
// rows come out in input order, the row groups are those of a serial copy
// (one per input row group, cut after a read that reaches maxRowGroupRows
// rows), and the file is the same bytes whatever the number of workers.
func TestWriteSubsetParquetParallel(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "in.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[pqTestRow](f, parquet.Compression(&parquet.Snappy))
	var rows []pqTestRow
	groups := []int{5, 40000, 1, 17000, 300}
	for _, size := range groups {
		batch := make([]pqTestRow, size)
		for i := range batch {
			n := int64(len(rows) + i)
			batch[i] = pqTestRow{Latex: fmt.Sprintf("x_{%d}", n), N: n}
			if n%7 != 0 {
				batch[i].Blob = bytes.Repeat([]byte{byte(n)}, int(n%13))
			}
		}
		if _, err := w.Write(batch); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, batch...)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	keep := func(s int64) bool { return s%5 != 3 && !(s >= 5 && s < 100) }
	var want []pqTestRow
	for i, r := range rows {
		if keep(int64(i)) {
			want = append(want, r)
		}
	}
	var first []byte
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprint("out", workers, ".parquet"))
			n := writeParquetWorkers(t, p, out, keep, workers)
			if n != int64(len(want)) {
				t.Fatalf("wrote %d rows, want %d", n, len(want))
			}
			got, err := parquet.ReadFile[pqTestRow](out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rows differ: %d rows, want %d", len(got), len(want))
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int64
			for _, rg := range pf.RowGroups() {
				sizes = append(sizes, rg.NumRows())
			}
			if len(sizes) != 6 || sizes[0] != 4 || sizes[1] < maxRowGroupRows || sizes[1] > maxRowGroupRows+parquetReadRows || sizes[3] != 1 {
				t.Errorf("row groups of %v rows: want one per input row group, the one of 40,000 rows cut after %d", sizes, maxRowGroupRows)
			}
			if first == nil {
				first = b
			} else if !bytes.Equal(b, first) {
				t.Errorf("%d workers wrote other bytes than 1", workers)
			}
		})
	}
}

// writeParquetWorkers writes the kept rows of in to out with a given
// number of workers.
func writeParquetWorkers(t *testing.T, in, out string, keep func(int64) bool, workers int) int64 {
	t.Helper()
	fh, pf, err := openTestParquet(t, in)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	w := parquet.NewWriter(bw, pf.Schema(), parquet.Compression(&parquet.Snappy))
	n, err := filterRowGroups(pf, w, keep, workers)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHostileParquetDamagedRowGroup: a Parquet file whose footer is sound
// but one of whose row groups is damaged is refused with an error by the
// parallel rewrite, whatever the number of workers, and the rewrite does
// not hang.
func TestHostileParquetDamagedRowGroup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "in.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[pqTestRow](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(500))
	rows := make([]pqTestRow, 5000)
	for i := range rows {
		rows[i] = pqTestRow{Latex: fmt.Sprintf("a_{%d} + b_{%d}", i, i*7), Blob: []byte(fmt.Sprintf("blob %d", i)), N: int64(i)}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The pages of the fourth row group's first column, overwritten.
	m := pf.Metadata().RowGroups[3].Columns[0].MetaData
	for i := m.DataPageOffset; i < m.DataPageOffset+m.TotalCompressedSize; i++ {
		b[i] = 0xff
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4} {
		done := make(chan error, 1)
		go func() {
			fh, err := os.Open(bad)
			if err != nil {
				done <- err
				return
			}
			defer fh.Close()
			pf, err := openParquet(fh, int64(len(b)))
			if err != nil {
				done <- err
				return
			}
			var out bytes.Buffer
			pw := parquet.NewWriter(&out, pf.Schema())
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				_, err = filterRowGroups(pf, pw, func(int64) bool { return true }, workers)
			}()
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || strings.HasPrefix(err.Error(), "panic") {
				t.Errorf("%d workers: a damaged row group gave %v, want an error", workers, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d workers: the rewrite of a damaged file hangs", workers)
		}
	}
	if _, err := WriteSubset(Source{Path: bad}, filepath.Join(dir, "out"), func(int64) bool { return true }); err == nil {
		t.Error("WriteSubset of a damaged file: no error")
	}
}
