package fingerprint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// A KeyRow is what a label lookup needs of a row: its corpus, its id, its
// position in the corpus and its digests at the levels asked for.
type KeyRow struct {
	Corpus, ID string
	Seq        int64
	// Keys[i] is the digest at the i-th level asked for, when Has[i].
	Keys []canon.Digest
	Has  []bool
}

// ScanKeys calls fn for every row of a fingerprint file or folder, in file
// and row order, as Scan does, with only the row's corpus, id and keys at
// levels. fn must not keep k or its slices.
//
// It reads only those columns, and each of them whole per row group,
// straight from the pages: assembling full rows (Scan) costs more than
// twice as much (BenchmarkScanKeys: 1.2M against 2.8M rows/s), which
// dominated building an index from a fingerprint of tens of millions of
// rows. A file whose columns are not as leakaudit
// writes them (another physical type, dictionary pages: a file rewritten
// by another engine) is read row by row instead, with the same result.
func ScanKeys(path string, levels []canon.LevelID, fn func(k *KeyRow) error) (dataset.Stats, error) {
	st := dataset.Stats{Format: "fingerprint"}
	fs, err := files(path)
	if err != nil {
		return st, err
	}
	k := &KeyRow{Keys: make([]canon.Digest, len(levels)), Has: make([]bool, len(levels))}
	for _, p := range fs {
		direct, err := scanKeysFile(p, levels, k, fn, &st)
		if err != nil {
			return st, err
		}
		if direct {
			continue
		}
		if err := scanKeysRows(p, levels, k, fn, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// errNotDirect: the file's columns cannot be read straight from its
// pages.
var errNotDirect = errors.New("columns not in leakaudit's layout")

// keyColumn is one byte-array column of a row group, read whole: the
// values of the rows that have one, and, for an optional column, each
// row's presence.
type keyColumn struct {
	data    []byte
	offsets []uint32 // value i is data[offsets[i]:offsets[i+1]]
	present []bool   // per row, for an optional column (nil: required)
}

// read reads column ci of rg into c.
func (c *keyColumn) read(rg parquet.RowGroup, ci int, optional bool) error {
	c.data, c.offsets = c.data[:0], append(c.offsets[:0], 0)
	if optional {
		c.present = c.present[:0]
	} else {
		c.present = nil
	}
	pages := rg.ColumnChunks()[ci].Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if p.Dictionary() != nil || p.Type().Kind() != parquet.ByteArray {
			parquet.Release(p)
			return errNotDirect
		}
		values := p.Data()
		data, offsets := values.ByteArray()
		n := max(len(offsets)-1, 0)
		if optional {
			defs := p.DefinitionLevels()
			have := 0
			for _, d := range defs {
				c.present = append(c.present, d > 0)
				if d > 0 {
					have++
				}
			}
			if have != n {
				parquet.Release(p)
				return errNotDirect
			}
		} else if int64(n) != p.NumValues() {
			parquet.Release(p)
			return errNotDirect
		}
		base := uint32(len(c.data)) - offsets[0]
		c.data = append(c.data, data[offsets[0]:offsets[n]]...)
		for _, o := range offsets[1 : n+1] {
			c.offsets = append(c.offsets, base+o)
		}
		parquet.Release(p)
	}
}

func (c *keyColumn) value(i int) []byte { return c.data[c.offsets[i]:c.offsets[i+1]] }

// readSeqs reads the required int64 column ci of rg (seq) into dst.
func readSeqs(dst []int64, rg parquet.RowGroup, ci int) ([]int64, error) {
	dst = dst[:0]
	pages := rg.ColumnChunks()[ci].Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
		if p.Dictionary() != nil || p.Type().Kind() != parquet.Int64 {
			parquet.Release(p)
			return dst, errNotDirect
		}
		values := p.Data()
		v := values.Int64()
		if int64(len(v)) != p.NumValues() {
			parquet.Release(p)
			return dst, errNotDirect
		}
		dst = append(dst, v...)
		parquet.Release(p)
	}
}

// scanKeysFile reads one file column by column; direct is false, and
// nothing was read, when its columns are not in leakaudit's layout.
func scanKeysFile(path string, levels []canon.LevelID, k *KeyRow, fn func(*KeyRow) error, st *dataset.Stats) (direct bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, c := range pf.Schema().Columns() {
		if len(c) == 1 {
			col[c[0]] = i
		}
	}
	names := []string{"corpus", "id"}
	for _, l := range levels {
		names = append(names, keyColumnName(l))
	}
	idx := make([]int, len(names))
	for i, n := range names {
		c, ok := col[n]
		if !ok {
			return false, nil
		}
		idx[i] = c
	}
	seqCol, ok := col["seq"]
	if !ok {
		return false, nil
	}
	cols := make([]keyColumn, len(names))
	next := make([]int, len(names)) // the next value of each optional column
	var seqs []int64
	for _, rg := range pf.RowGroups() {
		for i := 0; i <= len(cols); i++ {
			var err error
			if i < len(cols) {
				err = cols[i].read(rg, idx[i], i >= 2)
			} else {
				seqs, err = readSeqs(seqs, rg, seqCol)
			}
			if err != nil {
				if errors.Is(err, errNotDirect) && st.Items == 0 {
					return false, nil
				}
				if errors.Is(err, errNotDirect) {
					// Row groups written differently within one file:
					// only the row reader could go on, from the start.
					return true, fmt.Errorf("%s: row groups of mixed layouts", path)
				}
				// As Scan: the rows read count, the rest is reported.
				st.FileError = fmt.Sprintf("%s: %v; the rest of the file was not read", path, err)
				return true, nil
			}
		}
		rows := int(rg.NumRows())
		for i := range cols {
			if n := len(cols[i].offsets) - 1; i < 2 && n != rows || i >= 2 && len(cols[i].present) != rows {
				return false, fmt.Errorf("%s: column %s has %d values in a row group of %d rows", path, names[i], n, rows)
			}
		}
		if len(seqs) != rows {
			return false, fmt.Errorf("%s: column seq has %d values in a row group of %d rows", path, len(seqs), rows)
		}
		clear(next)
		for r := range rows {
			if c := cols[0].value(r); k.Corpus != string(c) { // no allocation when equal
				k.Corpus = string(c)
			}
			k.ID = string(cols[1].value(r))
			k.Seq = seqs[r]
			for li := range levels {
				c := &cols[2+li]
				k.Keys[li], k.Has[li] = canon.Digest{}, false
				if c.present[r] {
					v := c.value(next[2+li])
					next[2+li]++
					k.Has[li] = len(v) == len(k.Keys[li])
					copy(k.Keys[li][:], v)
				}
			}
			st.Items++
			if err := fn(k); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// scanKeysRows reads one file row by row (Scan's reader).
func scanKeysRows(path string, levels []canon.LevelID, k *KeyRow, fn func(*KeyRow) error, st *dataset.Stats) error {
	fst, err := Scan(path, func(r Row) error {
		k.Corpus, k.ID, k.Seq = r.Corpus, r.ID, r.Seq
		for i, l := range levels {
			k.Keys[i], k.Has[i] = r.Key(l)
		}
		return fn(k)
	})
	st.Items += fst.Items
	if fst.FileError != "" && st.FileError == "" {
		st.FileError = fst.FileError
	}
	return err
}

// keyColumnName is the column of a level's keys.
func keyColumnName(id canon.LevelID) string {
	switch id {
	case canon.Raw:
		return "key_raw"
	case canon.Audit:
		return "key_audit"
	case canon.WS:
		return "key_ws"
	case canon.Tokens:
		return "key_tokens"
	case canon.Render:
		return "key_render"
	}
	return ""
}

// OneCorpus returns the corpus of a fingerprint file or folder whose rows
// all belong to one corpus, read off the files' statistics of the corpus
// column without reading a row; ok is false when the rows belong to
// several corpora, or a file does not record the statistics (or has no
// rows). Statistics may be cut short by other writers: a caller that
// relies on the name checks it against the rows it reads.
func OneCorpus(path string) (name string, ok bool, err error) {
	fs, err := files(path)
	if err != nil {
		return "", false, err
	}
	first := true
	for _, p := range fs {
		f, err := os.Open(p)
		if err != nil {
			return "", false, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return "", false, err
		}
		pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			f.Close()
			return "", false, fmt.Errorf("%s: %w", p, err)
		}
		ci := -1
		for i, c := range pf.Schema().Columns() {
			if len(c) == 1 && c[0] == "corpus" {
				ci = i
			}
		}
		md := pf.Metadata()
		f.Close()
		if ci < 0 {
			return "", false, nil
		}
		for _, rg := range md.RowGroups {
			if rg.NumRows == 0 {
				continue
			}
			if ci >= len(rg.Columns) {
				return "", false, nil
			}
			s := rg.Columns[ci].MetaData.Statistics
			if s.NullCount != 0 || s.MinValue == nil || !bytes.Equal(s.MinValue, s.MaxValue) {
				return "", false, nil
			}
			if first {
				name, first = string(s.MinValue), false
			} else if name != string(s.MinValue) {
				return "", false, nil
			}
		}
	}
	return name, !first, nil
}
