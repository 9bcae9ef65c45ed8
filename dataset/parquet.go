package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// columnIter yields the values of one non-repeated leaf column across all
// row groups of a Parquet file, one per row.
type columnIter struct {
	file   *parquet.File
	col    int
	maxDef int
	rg     int
	pages  parquet.Pages
	vals   parquet.ValueReader
	page   parquet.Page
	buf    []parquet.Value
	pos, n int
}

func (c *columnIter) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// next returns the next row's value as a string, and whether it is null.
func (c *columnIter) next() (s string, null bool, err error) {
	for c.pos >= c.n {
		if err := c.fill(); err != nil {
			return "", false, err
		}
	}
	v := c.buf[c.pos]
	c.pos++
	if v.IsNull() || v.DefinitionLevel() < c.maxDef {
		return "", true, nil
	}
	return string(v.ByteArray()), false, nil
}

func (c *columnIter) fill() error {
	for {
		if c.vals != nil {
			n, err := c.vals.ReadValues(c.buf[:cap(c.buf)])
			c.buf, c.pos, c.n = c.buf[:n], 0, n
			if n > 0 {
				return nil
			}
			if err != nil && err != io.EOF {
				return err
			}
			c.vals = nil
		}
		if c.pages != nil {
			if c.page != nil {
				parquet.Release(c.page)
				c.page = nil
			}
			p, err := c.pages.ReadPage()
			if err == nil {
				c.page, c.vals = p, p.Values()
				continue
			}
			if err != io.EOF {
				return fmt.Errorf("row group %d: %w", c.rg-1, err)
			}
			c.pages.Close()
			c.pages = nil
		}
		rgs := c.file.RowGroups()
		if c.rg >= len(rgs) {
			return io.EOF
		}
		c.pages = rgs[c.rg].ColumnChunks()[c.col].Pages()
		c.rg++
	}
}

// lookupColumn finds a string leaf column by dotted path, or the first of
// the defaults present when want is empty.
func lookupColumn(f *parquet.File, want string, defaults []string) (name string, leaf parquet.LeafColumn, err error) {
	schema := f.Schema()
	try := defaults
	if want != "" {
		try = []string{want}
	}
	for _, name := range try {
		leaf, ok := schema.Lookup(strings.Split(name, ".")...)
		if !ok || leaf.Node == nil || !leaf.Node.Leaf() {
			continue
		}
		if leaf.MaxRepetitionLevel > 0 {
			return "", leaf, fmt.Errorf("column %q is repeated; a label column must hold one value per row", name)
		}
		if k := leaf.Node.Type().Kind(); k != parquet.ByteArray {
			return "", leaf, fmt.Errorf("column %q has type %v, not a string", name, k)
		}
		return name, leaf, nil
	}
	var cols []string
	for _, p := range schema.Columns() {
		cols = append(cols, strings.Join(p, "."))
	}
	return "", parquet.LeafColumn{}, fmt.Errorf("no column %q among %q", orDefaults(want, defaults), cols)
}

func scanParquet(src Source, e *emitter) (err error) {
	// parquet-go panics on some damaged files; such a file is a file
	// fault: the items read before it are kept, the rest is reported.
	defer func() {
		if r := recover(); r != nil {
			e.stats.FileError, err = fmt.Sprintf("damaged Parquet file: %v", r), nil
		}
	}()
	fh, err := os.Open(src.Path)
	if err != nil {
		return err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	pf, err := openParquet(fh, fi.Size())
	if err != nil {
		// An unreadable footer means no item can be read: a file fault.
		e.stats.FileError = fmt.Sprintf("not a readable Parquet file: %v", err)
		return nil
	}
	labelName, labelLeaf, err := lookupColumn(pf, src.Field, defaultLabelFields)
	if err != nil {
		return err
	}
	e.stats.Field = labelName
	label := &columnIter{file: pf, col: labelLeaf.ColumnIndex, maxDef: labelLeaf.MaxDefinitionLevel, buf: make([]parquet.Value, 0, 1024)}
	defer label.close()
	var id *columnIter
	// Hugging Face image datasets name each row by its image's path.
	if idName, idLeaf, err := lookupColumn(pf, src.IDField, append(defaultIDFields, "image.path")); err == nil {
		e.stats.IDField = idName
		id = &columnIter{file: pf, col: idLeaf.ColumnIndex, maxDef: idLeaf.MaxDefinitionLevel, buf: make([]parquet.Value, 0, 1024)}
		defer id.close()
	} else if src.IDField != "" {
		return err
	}
	rows := pf.NumRows()
	seq, err := scanParquetFlat(fh, pf.Metadata(), label, id, e)
	if err != nil {
		return e.finish(err)
	}
	// The rest, from the first row group the flat reader left, with
	// parquet-go's.
	for ; seq < rows; seq++ {
		s, null, err := label.next()
		if err != nil {
			return e.finish(fmt.Errorf("reading row %d of %d: %w; the remaining rows were not read", seq, rows, err))
		}
		ids := ""
		idNull := true
		if id != nil {
			if ids, idNull, err = id.next(); err != nil {
				return e.finish(fmt.Errorf("reading id of row %d: %w", seq, err))
			}
		}
		if err := deliverParquetRow(e, seq, s, null, ids, idNull); err != nil {
			return e.finish(err)
		}
	}
	return nil
}

// deliverParquetRow delivers row seq: its label s, or a skip when the
// label is null; a row without an id is named by its number.
func deliverParquetRow(e *emitter, seq int64, s string, null bool, id string, idNull bool) error {
	if idNull {
		id = strconv.FormatInt(seq, 10)
	}
	if null {
		e.skip(seq, id, rowWhere(seq), ReasonNull)
		return nil
	}
	return e.deliverRow(Item{Seq: seq, ID: id, Label: s})
}

// scanParquetFlat delivers the rows of the file's first row groups whose
// label and id chunks flatColumn reads, and returns the number of rows
// delivered; labelIter and id (nil: no id column), not read yet, are
// moved past those row groups, for the rest to be read with them.
func scanParquetFlat(in io.ReaderAt, md *format.FileMetaData, labelIter, id *columnIter, e *emitter) (seq int64, err error) {
	if !flatParquet || !flatRowCount(md) {
		return 0, nil
	}
	label := newFlatColumn(in, labelIter.col, labelIter.maxDef)
	var ids *flatColumn
	if id != nil {
		ids = newFlatColumn(in, id.col, id.maxDef)
	}
	for rgi := range md.RowGroups {
		rg := &md.RowGroups[rgi]
		if !label.read(rg) || ids != nil && !ids.read(rg) {
			break
		}
		labelIter.rg = rgi + 1
		if id != nil {
			id.rg = rgi + 1
		}
		for j := range label.rows() {
			idStr, idNull := "", true
			if ids != nil {
				idStr, idNull = ids.value(j)
			}
			s, null := label.value(j)
			if err := deliverParquetRow(e, seq, s, null, idStr, idNull); err != nil {
				return seq, err
			}
			seq++
		}
	}
	return seq, nil
}

// flatParquet says whether scanParquet reads what it can with flatColumn;
// tests turn it off to compare.
var flatParquet = true

// rowWhere is where a Parquet row is.
func rowWhere(seq int64) string { return "row " + strconv.FormatInt(seq, 10) }

// deliverRow is deliver with the position of a Parquet row, built only
// when the item is skipped.
func (e *emitter) deliverRow(it Item) error {
	if reason := e.check(it); reason != "" {
		e.skip(it.Seq, it.ID, rowWhere(it.Seq), reason)
		return nil
	}
	e.stats.Items++
	if err := e.fn(it); err != nil {
		return errStop{err}
	}
	return nil
}

// maxParquetFooter bounds a Parquet footer (the file metadata).
const maxParquetFooter = 64 << 20

// openParquet opens a Parquet file after checking that its framing and
// metadata are plausible: the magic at both ends, a footer inside the file
// and below maxParquetFooter, and every column chunk inside the file with
// an uncompressed size below 1 GiB. A damaged or hostile file is refused
// here instead of making the reader allocate what it declares.
func openParquet(fh *os.File, size int64) (*parquet.File, error) {
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too short for Parquet", size)
	}
	var head, tail [8]byte
	if _, err := fh.ReadAt(head[:4], 0); err != nil {
		return nil, err
	}
	if _, err := fh.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return nil, errors.New("no Parquet magic at both ends")
	}
	footer := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footer <= 0 || footer > size-12 || footer > maxParquetFooter {
		return nil, fmt.Errorf("implausible footer of %d bytes in a %d-byte file", footer, size)
	}
	pf, err := parquet.OpenFile(fh, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	for _, rg := range pf.Metadata().RowGroups {
		if rg.NumRows < 0 {
			return nil, fmt.Errorf("row group with %d rows", rg.NumRows)
		}
		for _, c := range rg.Columns {
			m := c.MetaData
			if m.DataPageOffset < 4 || m.TotalCompressedSize < 0 || m.DataPageOffset+m.TotalCompressedSize > size-8-footer ||
				m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > 1<<30 || m.NumValues < 0 {
				return nil, fmt.Errorf("column chunk outside the file or implausibly large (offset %d, %d bytes, %d uncompressed)",
					m.DataPageOffset, m.TotalCompressedSize, m.TotalUncompressedSize)
			}
		}
	}
	return pf, nil
}
