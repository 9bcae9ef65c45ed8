package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

type spliceImage struct {
	Bytes []byte  `parquet:"bytes,optional"`
	Path  *string `parquet:"path,optional"`
}

// spliceRow has a column of every kind the page splice handles: an
// optional image struct (two leaves, two definition levels), required and
// optional byte arrays, dictionary-encoded ones with and without nulls,
// and fixed-width values.
type spliceRow struct {
	Image  *spliceImage `parquet:"image,optional"`
	Latex  string       `parquet:"latex_formula"`
	Note   *string      `parquet:"note,optional"`
	Tag    string       `parquet:"tag,dict"`
	TagOpt *string      `parquet:"tag_opt,optional,dict"`
	N      int64        `parquet:"n"`
	Small  *int32       `parquet:"small,optional"`
	F      float64      `parquet:"f"`
	Hash   [16]byte     `parquet:"hash"`
}

func ptr[T any](v T) *T { return &v }

// spliceRows makes n rows with nulls, repeats (for the dictionaries) and
// values long enough to fill pages.
func spliceRows(n int) []spliceRow {
	rows := make([]spliceRow, n)
	for i := range rows {
		r := &rows[i]
		r.Latex = fmt.Sprintf("x_{%d} + \\frac{%d}{%d}", i, i%7, i%13+1)
		if i%11 != 0 {
			// Random bytes, as an image's: its pages are read through
			// their Snappy stream, not decompressed.
			b := make([]byte, 40+i%61)
			x := uint32(i)*2654435761 + 1
			for j := range b {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				b[j] = byte(x)
			}
			img := &spliceImage{Bytes: b}
			if i%5 != 0 {
				img.Path = ptr(fmt.Sprintf("%08d.png", i))
			}
			r.Image = img
		}
		if i%3 == 0 {
			r.Note = ptr(strings.Repeat("n", i%9))
		}
		r.Tag = fmt.Sprintf("tag%d", i%6)
		if i%4 != 1 {
			r.TagOpt = ptr(fmt.Sprintf("opt%d", i%3))
		}
		r.N = int64(i) * 3
		if i%2 == 0 {
			r.Small = ptr(int32(i))
		}
		r.F = float64(i) / 8
		r.Hash[0], r.Hash[15] = byte(i), byte(i>>8)
	}
	return rows
}

// writeSpliceInput writes rows in row groups of the given sizes.
func writeSpliceInput(t testing.TB, path string, rows []spliceRow, groups []int, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[spliceRow](f, opts...)
	at := 0
	for _, g := range groups {
		if _, err := w.Write(rows[at : at+g]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		at += g
	}
	if at != len(rows) {
		t.Fatalf("groups hold %d rows of %d", at, len(rows))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// openTestParquet opens the Parquet file at path for a test of the splice
// (the caller closes fh); a file openParquet refuses is its error, and
// is closed.
func openTestParquet(t testing.TB, path string) (fh *os.File, pf *parquet.File, err error) {
	t.Helper()
	fh, err = os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		t.Fatal(err)
	}
	if pf, err = openParquet(fh, fi.Size()); err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, pf, nil
}

// spliceFile runs the page splice alone over in, into out.
func spliceFile(t testing.TB, in, out string, keep func(int64) bool, workers int) (int64, error) {
	t.Helper()
	fh, pf, err := openTestParquet(t, in)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	var buf bytes.Buffer
	n, err := spliceParquet(fh, pf.Metadata(), &buf, keep, workers)
	if err == nil {
		err = os.WriteFile(out, buf.Bytes(), 0o644)
	}
	return n, err
}

// TestParquetSplice splices files of every page kind it handles (v1 and
// v2 data pages, Snappy and none, PLAIN and dictionary pages, required,
// optional and nested optional leaves, several pages per chunk) with
// keep patterns that cut pages, drop whole pages and row groups and keep
// others whole: it reads back, with parquet-go, to the rows the row-by-row
// writer keeps, in order, with the same schema and codec; its column
// chunks' null counts are right and no spliced chunk claims a min or max.
func TestParquetSplice(t *testing.T) {
	dir := t.TempDir()
	rows := spliceRows(6000)
	groups := []int{1000, 2500, 7, 1493, 1000}
	keeps := map[string]func(int64) bool{
		"a few": func(s int64) bool { return s%97 != 5 && s%131 != 0 },
		"runs": func(s int64) bool {
			return !(s >= 1000 && s < 3000) && !(s >= 3507 && s < 3600) && s%2 == 0 || s >= 5000
		},
		"every other":  func(s int64) bool { return s%2 == 1 },
		"none":         func(int64) bool { return false },
		"all":          func(int64) bool { return true },
		"first, last":  func(s int64) bool { return s == 0 || s == 5999 },
		"groups whole": func(s int64) bool { return s < 1000 || s >= 3507 && s < 5000 },
	}
	configs := []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"v1 snappy", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy)}},
		{"v1 snappy small pages", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(2048)}},
		{"v1 none small pages", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Uncompressed), parquet.PageBufferSize(1500)}},
		{"v2 snappy", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Snappy)}},
		{"v2 snappy small pages", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(3000)}},
		{"v2 none", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Uncompressed), parquet.PageBufferSize(4096)}},
	}
	for _, c := range configs {
		in := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".parquet")
		// Byte arrays in PLAIN, as Hugging Face's (pyarrow's) and DuckDB's
		// files have them, where no dictionary is asked for.
		writeSpliceInput(t, in, rows, groups, append(c.opts, parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))...)
		for name, keep := range keeps {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				var want []spliceRow
				for i, r := range rows {
					if keep(int64(i)) {
						want = append(want, r)
					}
				}
				out := filepath.Join(t.TempDir(), "out.parquet")
				n, err := spliceFile(t, in, out, keep, 3)
				if err != nil {
					t.Fatal(err)
				}
				if n != int64(len(want)) {
					t.Fatalf("spliced %d rows, want %d", n, len(want))
				}
				got, err := parquet.ReadFile[spliceRow](out)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Fatalf("spliced rows differ from the kept rows (%d rows, want %d)", len(got), len(want))
				}
				// The row-by-row writer's output: the same rows, schema and
				// codecs.
				spliceParquetFiles = false
				rowsOut := filepath.Join(t.TempDir(), "rows")
				_, err = WriteSubset(Source{Path: in}, rowsOut, keep)
				spliceParquetFiles = true
				if err != nil {
					t.Fatal(err)
				}
				rowsOut = filepath.Join(rowsOut, filepath.Base(in))
				byRows, err := parquet.ReadFile[spliceRow](rowsOut)
				if err != nil {
					t.Fatal(err)
				}
				if len(byRows) != len(got) || len(got) > 0 && !reflect.DeepEqual(byRows, got) {
					t.Fatalf("spliced rows differ from the row-by-row writer's")
				}
				checkSpliceOutput(t, in, out)
				checkSpliceOutput(t, rowsOut, out)
				if name == "all" { // no chunk lost a row: their statistics hold
					a, b := footerOf(t, in), footerOf(t, out)
					for i := range a.RowGroups {
						for j := range a.RowGroups[i].Columns {
							if x, y := a.RowGroups[i].Columns[j].MetaData.Statistics, b.RowGroups[i].Columns[j].MetaData.Statistics; !reflect.DeepEqual(x, y) {
								t.Errorf("row group %d column %d: statistics %+v, the input's %+v", i, j, y, x)
							}
						}
					}
				}
			})
		}
	}
}

// footerOf returns a Parquet file's footer.
func footerOf(t *testing.T, p string) *format.FileMetaData {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pf.Metadata()
}

// checkSpliceOutput compares the spliced file out with its input in:
// schema, codecs, row counts, null counts, and no min or max claimed by
// a chunk that lost rows.
func checkSpliceOutput(t *testing.T, in, out string) {
	t.Helper()
	open := func(p string) *parquet.File {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return pf
	}
	pin, pout := open(in), open(out)
	if a, b := pin.Schema().String(), pout.Schema().String(); a != b {
		t.Errorf("schema %s, input's %s", b, a)
	}
	var rows int64
	for i, rg := range pout.RowGroups() {
		md := pout.Metadata().RowGroups[i]
		if md.NumRows != rg.NumRows() {
			t.Errorf("row group %d: %d rows in its metadata, %d read", i, md.NumRows, rg.NumRows())
		}
		rows += rg.NumRows()
		for j, cc := range rg.ColumnChunks() {
			m := md.Columns[j].MetaData
			if want := pin.Metadata().RowGroups[0].Columns[j].MetaData.Codec; m.Codec != want {
				t.Errorf("row group %d column %d: codec %v, input's %v", i, j, m.Codec, want)
			}
			var nulls, values int64
			pages := cc.Pages()
			for {
				p, err := pages.ReadPage()
				if err != nil {
					break
				}
				nulls += p.NumNulls()
				values += p.NumValues()
				parquet.Release(p)
			}
			pages.Close()
			if values != rg.NumRows() || m.NumValues != values {
				t.Errorf("row group %d column %d: %d values read, %d in its metadata, %d rows", i, j, values, m.NumValues, rg.NumRows())
			}
			if m.Statistics.NullCount != nulls {
				t.Errorf("row group %d column %d: %d nulls, its statistics say %d", i, j, nulls, m.Statistics.NullCount)
			}
		}
	}
	if rows != pout.NumRows() {
		t.Errorf("%d rows in the row groups, %d in the footer", rows, pout.NumRows())
	}
}

// TestParquetSpliceFallback: files the page splice does not handle (a
// repeated column, a BOOLEAN column, a codec other than Snappy or none,
// a page encoding it cannot cut) are written row by row, with the right
// rows, and keep is asked once per row even when the splice gave up after
// it started.
func TestParquetSpliceFallback(t *testing.T) {
	type repeated struct {
		Latex string   `parquet:"latex_formula"`
		Tags  []string `parquet:"tags,list"`
	}
	type boolean struct {
		Latex string `parquet:"latex_formula"`
		OK    bool   `parquet:"ok"`
	}
	type delta struct {
		Latex string `parquet:"latex_formula"`
		Name  string `parquet:"name,delta"`
	}
	dir := t.TempDir()
	cases := []struct {
		name  string
		write func(p string)
		read  func(p string) (any, error)
		want  func(keep func(int64) bool) any
	}{}
	const n = 3000
	keep := func(s int64) bool { return s%10 != 3 }
	add := func(name string, opts []parquet.WriterOption, rows any) {
		cases = append(cases, struct {
			name  string
			write func(p string)
			read  func(p string) (any, error)
			want  func(keep func(int64) bool) any
		}{name: name})
		c := &cases[len(cases)-1]
		switch rs := rows.(type) {
		case []repeated:
			c.write = func(p string) { writeGeneric(t, p, rs, opts...) }
			c.read = func(p string) (any, error) { return parquet.ReadFile[repeated](p) }
			c.want = func(k func(int64) bool) any { return filterRows(rs, k) }
		case []boolean:
			c.write = func(p string) { writeGeneric(t, p, rs, opts...) }
			c.read = func(p string) (any, error) { return parquet.ReadFile[boolean](p) }
			c.want = func(k func(int64) bool) any { return filterRows(rs, k) }
		case []delta:
			c.write = func(p string) { writeGeneric(t, p, rs, opts...) }
			c.read = func(p string) (any, error) { return parquet.ReadFile[delta](p) }
			c.want = func(k func(int64) bool) any { return filterRows(rs, k) }
		case []spliceRow:
			c.write = func(p string) { writeGeneric(t, p, rs, opts...) }
			c.read = func(p string) (any, error) { return parquet.ReadFile[spliceRow](p) }
			c.want = func(k func(int64) bool) any { return filterRows(rs, k) }
		}
	}
	rep := make([]repeated, n)
	boo := make([]boolean, n)
	del := make([]delta, n)
	for i := range n {
		rep[i] = repeated{Latex: fmt.Sprint("a_", i), Tags: []string{"x", fmt.Sprint(i)}[:i%3]}
		boo[i] = boolean{Latex: fmt.Sprint("b_", i), OK: i%3 == 0}
		del[i] = delta{Latex: fmt.Sprint("c_", i), Name: fmt.Sprintf("name-%05d", i)}
	}
	add("repeated", nil, rep)
	add("boolean", nil, boo)
	// A DELTA_BYTE_ARRAY column after a row group the splice has written.
	add("delta encoding", []parquet.WriterOption{parquet.MaxRowsPerRowGroup(1000)}, del)
	add("gzip", []parquet.WriterOption{parquet.Compression(&parquet.Gzip)}, spliceRows(n))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".parquet")
			c.write(in)
			if _, err := spliceFile(t, in, filepath.Join(t.TempDir(), "x"), keep, 2); !errors.Is(err, errSpliceUnsupported) {
				t.Fatalf("splice: %v, want errSpliceUnsupported", err)
			}
			asked := map[int64]int{}
			out := filepath.Join(t.TempDir(), "out")
			k, err := WriteSubset(Source{Path: in}, out, func(s int64) bool { asked[s]++; return keep(s) })
			if err != nil {
				t.Fatal(err)
			}
			for s, times := range asked {
				if times != 1 {
					t.Fatalf("keep asked %d times for row %d", times, s)
				}
			}
			got, err := c.read(filepath.Join(out, filepath.Base(in)))
			if err != nil {
				t.Fatal(err)
			}
			if want := c.want(keep); !reflect.DeepEqual(got, want) || int64(reflect.ValueOf(want).Len()) != k {
				t.Fatalf("rows differ (%d written)", k)
			}
		})
	}
}

func writeGeneric[T any](t *testing.T, p string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func filterRows[T any](rows []T, keep func(int64) bool) []T {
	var out []T
	for i, r := range rows {
		if keep(int64(i)) {
			out = append(out, r)
		}
	}
	return out
}

// TestHostileParquetSplice damages the pages of a file (a truncated or
// garbled page header, a page cut short, value and level lengths past the
// page's end, a damaged Snappy stream, byte flips all over): the splice
// ends with an error or completes, never panics (a recovered runtime error
// counts as one) and never hangs.
func TestHostileParquetSplice(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	rows := spliceRows(2000)
	writeSpliceInput(t, in, rows, []int{700, 1300}, parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(4096),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	good, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	keep := func(s int64) bool { return s%9 != 4 }
	type damage struct {
		name string
		edit func(b []byte)
	}
	chunkAt := func(rg, col int) (int64, int64) {
		m := pf.Metadata().RowGroups[rg].Columns[col].MetaData
		start := m.DataPageOffset
		if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
			start = m.DictionaryPageOffset
		}
		return start, m.TotalCompressedSize
	}
	var cases []damage
	for col := range len(pf.Metadata().RowGroups[0].Columns) {
		start, size := chunkAt(1, col)
		cases = append(cases,
			damage{fmt.Sprintf("col %d header garbled", col), func(b []byte) {
				for i := start; i < start+8; i++ {
					b[i] = 0xff
				}
			}},
			damage{fmt.Sprintf("col %d page zeroed", col), func(b []byte) {
				for i := start + 20; i < start+size; i++ {
					b[i] = 0
				}
			}},
			damage{fmt.Sprintf("col %d pages garbled", col), func(b []byte) {
				for i := start + 10; i < start+size; i += 3 {
					b[i] ^= 0x5a
				}
			}},
		)
	}
	for seed := range 300 {
		cases = append(cases, damage{fmt.Sprint("flips ", seed), func(b []byte) {
			x := uint64(seed)*0x9e3779b97f4a7c15 + 1
			start, size := chunkAt(seed%2, seed/2%len(pf.Metadata().RowGroups[0].Columns))
			for range 1 + seed%4 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				b[start+int64(x%uint64(size))] ^= byte(x >> 32)
			}
		}})
	}
	// Uncompressed pages, damaged where the levels and values are.
	plainIn := filepath.Join(dir, "plain.parquet")
	writeSpliceInput(t, plainIn, rows, []int{700, 1300}, parquet.DataPageVersion(1), parquet.Compression(&parquet.Uncompressed), parquet.PageBufferSize(4096),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	plain, err := os.ReadFile(plainIn)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := parquet.OpenFile(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	// bodyAt is where the first page of a column chunk of row group 0
	// starts its body.
	bodyAt := func(col int) int {
		m := pp.Metadata().RowGroups[0].Columns[col].MetaData
		var proto thrift.CompactProtocol
		r := proto.NewReaderFromBytes(plain[m.DataPageOffset:])
		var h format.PageHeader
		if err := thrift.NewDecoder(r).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return int(m.DataPageOffset) + r.BytesRead()
	}
	var plainCases []damage
	for _, d := range []struct {
		name string
		col  int // 0: image.bytes (two levels), 2: latex_formula (required)
		at   int
		b    []byte
	}{
		{"levels longer than the page", 0, 0, []byte{0xff, 0xff, 0xff, 0x7f}},
		{"levels bit-packed past their end", 0, 4, []byte{0xff, 0x7f}},
		{"levels cut in a bit-packed group", 0, 0, []byte{0x02, 0, 0, 0, 0x03, 0xaa}},
		{"levels run wider than their bits", 0, 4, []byte{0x02, 0xff}},
		{"value longer than the page", 2, 0, []byte{0xff, 0xff, 0xff, 0x7f}},
		{"value length cut", 2, 0, []byte{0xf0, 0xff, 0x00, 0x00}},
	} {
		at := bodyAt(d.col) + d.at
		plainCases = append(plainCases, damage{d.name, func(b []byte) { copy(b[at:], d.b) }})
	}
	failed := 0
	for i, c := range append(cases, plainCases...) {
		b := append([]byte{}, good...)
		if i >= len(cases) {
			b = append([]byte{}, plain...)
		}
		c.edit(b)
		p := filepath.Join(dir, "bad.parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := spliceFile(t, p, filepath.Join(dir, "out.parquet"), keep, 2)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && strings.Contains(err.Error(), "runtime error") {
				t.Errorf("%s: %v", c.name, err)
			}
			if i >= len(cases) && err == nil {
				t.Errorf("%s: no error", c.name)
			}
			if err != nil {
				failed++
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the splice hangs", c.name)
		}
	}
	t.Logf("%d of %d damaged files gave an error", failed, len(cases))
	if failed < 10 {
		t.Errorf("only %d of %d damaged files gave an error", failed, len(cases))
	}
}

// TestSnappySplice cuts ranges out of Snappy streams of repetitive and
// random bytes: the stream it makes decodes to the kept bytes.
func TestSnappySplice(t *testing.T) {
	codec := parquet.LookupCompressionCodec(format.Snappy)
	var rep bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&rep, "%08d.png|", i%700)
	}
	rnd := make([]byte, 200_000)
	x := uint32(1)
	for i := range rnd {
		x = x*1664525 + 1013904223
		rnd[i] = byte(x >> 24)
	}
	lazy := 0
	for _, plain := range [][]byte{rep.Bytes(), rnd, append(append([]byte{}, rnd[:70_000]...), rep.Bytes()[:2000]...)} {
		src, _ := codec.Encode(nil, plain)
		for _, step := range []int{3, 97, 1000, 65_536} {
			var segs []spliceSeg
			var want []byte
			segs = append(segs, spliceSeg{lit: []byte("head")})
			want = append(want, "head"...)
			for a := 0; a < len(plain); a += step + step/3 + 1 {
				b := min(a+step, len(plain))
				segs = append(segs, spliceSeg{a: a, b: b})
				want = append(want, plain[a:b]...)
			}
			el, n, err := snappyElems(nil, src)
			if err != nil || n != len(plain) {
				t.Fatalf("stream of %d bytes: %v", n, err)
			}
			// The page read whole, and read through its stream.
			for _, ps := range []*pageSpace{{b: plain, whole: true, el: el}, {el: el, n: n}} {
				parts, _, _, err := snappySplice(nil, nil, ps, segs, len(want), nil)
				if errors.Is(err, errSpaceHops) && !ps.whole {
					continue // a page the splice decompresses
				}
				if err != nil {
					t.Fatal(err)
				}
				if !ps.whole {
					lazy++
				}
				got := bytes.Join(parts, nil)
				dec, err := codec.Decode(nil, got)
				if err != nil || !bytes.Equal(dec, want) {
					t.Fatalf("step %d, whole %v: the spliced stream decodes to %d bytes (%v), want %d", step, ps.whole, len(dec), err, len(want))
				}
			}
		}
	}
	if lazy < 4 {
		t.Errorf("%d splices read the page through its stream, want the random ones", lazy)
	}
}

// BenchmarkWriteSubsetParquet rewrites a Hugging Face-style release
// (image struct with 512 bytes, label; 10,000-row groups, one page per
// chunk, Snappy) that loses 0.7% of its rows, by the page splice and row
// by row.
func BenchmarkWriteSubsetParquet(b *testing.B) {
	type image struct {
		Bytes []byte `parquet:"bytes,optional"`
		Path  string `parquet:"path,optional"`
	}
	type row struct {
		Image *image `parquet:"image,optional"`
		Latex string `parquet:"latex_formula,optional"`
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "release.parquet")
	f, err := os.Create(in)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[row](f, parquet.Compression(&parquet.Snappy), parquet.DataPageVersion(1), parquet.PageBufferSize(16<<20),
		parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain))
	const n = 100_000
	x := uint64(7)
	for g := 0; g < n; g += 10_000 {
		rs := make([]row, 10_000)
		for i := range rs {
			img := make([]byte, 512)
			for j := range img {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				img[j] = byte(x)
			}
			rs[i] = row{Image: &image{Bytes: img, Path: fmt.Sprintf("%08d.png", g+i)}, Latex: fmt.Sprintf("\\frac { %d } { %d }", g+i, i%97)}
		}
		w.Write(rs)
		w.Flush()
	}
	w.Close()
	f.Close()
	fi, _ := os.Stat(in)
	keep := func(s int64) bool { return s%143 != 7 }
	for _, splice := range []bool{true, false} {
		name := "splice"
		if !splice {
			name = "rows"
		}
		b.Run(name, func(b *testing.B) {
			spliceParquetFiles = splice
			defer func() { spliceParquetFiles = true }()
			b.SetBytes(fi.Size())
			for i := 0; b.Loop(); i++ {
				if _, err := WriteSubset(Source{Path: in}, filepath.Join(dir, fmt.Sprint(name, i)), keep); err != nil {
					b.Fatal(err)
				}
				os.RemoveAll(filepath.Join(dir, fmt.Sprint(name, i)))
			}
		})
	}
}
