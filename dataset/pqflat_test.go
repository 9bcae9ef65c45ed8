package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// scanResult is everything a scan reports.
type scanResult struct {
	Items []Item
	Skips []Skip
	Stats Stats
	Err   string
}

// scanBoth scans src with the flat reader and with parquet-go's alone.
func scanBoth(t *testing.T, src Source) (flat, pq scanResult) {
	t.Helper()
	for _, on := range []bool{true, false} {
		var r scanResult
		s := src
		s.OnSkip = func(k Skip) { r.Skips = append(r.Skips, k) }
		flatParquet = on
		st, err := Scan(s, func(it Item) error { r.Items = append(r.Items, it); return nil })
		flatParquet = true
		r.Stats = st
		if err != nil {
			r.Err = err.Error()
		}
		if on {
			flat = r
		} else {
			pq = r
		}
	}
	return flat, pq
}

// flatReadsAll reports whether flatColumn reads every row group of the
// column at path in the file.
func flatReadsAll(t *testing.T, file string, path ...string) bool {
	t.Helper()
	fh, pf, err := openTestParquet(t, file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	leaf, ok := pf.Schema().Lookup(path...)
	if !ok {
		t.Fatalf("no column %v", path)
	}
	c := newFlatColumn(fh, leaf.ColumnIndex, leaf.MaxDefinitionLevel)
	md := pf.Metadata()
	for i := range md.RowGroups {
		if !c.read(&md.RowGroups[i]) {
			return false
		}
	}
	return true
}

// TestParquetFlatScan: scanning with the flat reader gives the items,
// skips, stats and errors of parquet-go's reader, for files of every
// page kind (v1 and v2, Snappy and none, required, optional and nested
// optional text columns, nulls, several pages per chunk), and it reads
// every chunk of the PLAIN ones itself.
func TestParquetFlatScan(t *testing.T) {
	dir := t.TempDir()
	rows := spliceRows(6000)
	// Labels and ids that are not ASCII, valid UTF-8 or not, and a long
	// label, in some row groups.
	rows[5].Latex = "bad \xff utf8"
	rows[1200].Latex = "é \\alpha"
	rows[3600].Latex = strings.Repeat("x", 300)
	rows[3601].Image.Path = ptr("caf\xe9.png")
	rows[5999].Image.Path = ptr("ü.png")
	groups := []int{1000, 2500, 7, 1493, 1000}
	plain := parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain)
	configs := []struct {
		name  string
		opts  []parquet.WriterOption
		plain bool // every text chunk PLAIN, for the flat reader
	}{
		{"v1 snappy", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy), plain}, true},
		{"v1 none small pages", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Uncompressed), parquet.PageBufferSize(1500), plain}, true},
		{"v2 snappy small pages", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(3000), plain}, true},
		{"v2 none", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Uncompressed), plain}, true},
		{"v1 snappy default encodings", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy)}, false},
		{"zstd", []parquet.WriterOption{parquet.Compression(&parquet.Zstd), plain}, false},
	}
	fields := []struct{ label, id string }{
		{"latex_formula", "image.path"}, // required; nested optional
		{"note", ""},                    // optional, ids by position
		{"image.path", "latex_formula"},
	}
	for _, c := range configs {
		in := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".parquet")
		writeSpliceInput(t, in, rows, groups, c.opts...)
		if got := flatReadsAll(t, in, "latex_formula") && flatReadsAll(t, in, "note") && flatReadsAll(t, in, "image", "path"); got != c.plain {
			t.Errorf("%s: the flat reader reads every text chunk: %v, want %v", c.name, got, c.plain)
		}
		for _, f := range fields {
			t.Run(c.name+"/"+f.label, func(t *testing.T) {
				flat, pq := scanBoth(t, Source{Path: in, Format: Parquet, Field: f.label, IDField: f.id})
				if len(pq.Items) == 0 {
					t.Fatalf("parquet-go's scan read no item: %+v", pq.Stats)
				}
				if !reflect.DeepEqual(flat, pq) {
					t.Errorf("flat scan: %d items, %d skips, err %q, stats %+v; parquet-go's: %d, %d, %q, %+v",
						len(flat.Items), len(flat.Skips), flat.Err, flat.Stats, len(pq.Items), len(pq.Skips), pq.Err, pq.Stats)
				}
			})
		}
	}
}

// TestHostileParquetFlatDamaged: a file damaged inside a later row group's
// text pages scans as parquet-go's reader scans it: the flat reader reads
// the row groups before, and leaves the damaged one and the rest to it.
func TestHostileParquetFlatDamaged(t *testing.T) {
	rows := spliceRows(3000)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeSpliceInput(t, in, rows, []int{1000, 1000, 1000}, parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy), parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	md := footerOf(t, in)
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	fh, pf, err := openTestParquet(t, in)
	if err != nil {
		t.Fatal(err)
	}
	var at []int64 // bytes of the label's and the id's chunks, headers and values
	for _, path := range [][]string{{"latex_formula"}, {"image", "path"}} {
		leaf, _ := pf.Schema().Lookup(path...)
		m := md.RowGroups[1].Columns[leaf.ColumnIndex].MetaData
		for k := range int64(24) {
			at = append(at, m.DataPageOffset+k*m.TotalCompressedSize/24)
		}
	}
	fh.Close()
	for _, at := range at {
		damaged := append([]byte(nil), b...)
		damaged[at] ^= 0x5a
		p := filepath.Join(t.TempDir(), "damaged.parquet")
		if err := os.WriteFile(p, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		flat, pq := scanBoth(t, Source{Path: p, Format: Parquet})
		if !reflect.DeepEqual(flat, pq) {
			t.Errorf("byte %d damaged: flat scan %d items, %d skips, err %q, stats %+v; parquet-go's: %d, %d, %q, %+v",
				at, len(flat.Items), len(flat.Skips), flat.Err, flat.Stats, len(pq.Items), len(pq.Skips), pq.Err, pq.Stats)
		}
	}
}
