package dataset

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// flatColumn reads the values of one flat (not repeated) BYTE_ARRAY
// column a row group at a time from its raw pages: PLAIN values in v1 or
// v2 data pages, Snappy or uncompressed, without a dictionary, which is
// how DuckDB and most writers store text. It does what parquet-go's
// reader does for such a column with less work: each page is
// decompressed into one buffer of the row group's values, which are
// copied once, into their strings, as they are delivered. A chunk it does not read exactly so (any
// other page, encoding or codec, a checksum that does not match, a count
// that does not add up) is not read: scanParquet reads it, and the rest
// of the file, with parquet-go, as it reads every other file.
type flatColumn struct {
	in     io.ReaderAt
	col    int
	maxDef int
	width  int // the bit width of its definition levels
	chunk  []byte
	hyb    []uint32
	pages  pageHeaders
	// The row group's pages uncompressed, and each row's value in them:
	// vals[2i:2i+2] are its start and end, or -1, -1 for a null.
	arena []byte
	vals  []int
}

// rows is the number of rows read.
func (c *flatColumn) rows() int { return len(c.vals) / 2 }

// value returns row i's value, and whether it is null.
func (c *flatColumn) value(i int) (s string, null bool) {
	a, b := c.vals[2*i], c.vals[2*i+1]
	if a < 0 {
		return "", true
	}
	return string(c.arena[a:b]), false
}

// The bounds of what flatColumn holds of a row group's column (it holds
// one at a time; the label and id columns' add up): its chunk,
// compressed; its values, uncompressed; its rows. A larger row group is
// parquet-go's, which holds a page at a time: the scan's memory stays
// below about 100 MB, whatever the file's row groups.
const (
	maxFlatChunk = 8 << 20
	maxFlatArena = 24 << 20
	maxFlatRows  = 1 << 20
)

func newFlatColumn(in io.ReaderAt, col, maxDef int) *flatColumn {
	return &flatColumn{in: in, col: col, maxDef: maxDef, width: bits.Len(uint(maxDef))}
}

// flatRowCount says whether the row groups' row counts add up to the
// file's, which reading row group by row group needs.
func flatRowCount(md *format.FileMetaData) bool {
	var n int64
	for i := range md.RowGroups {
		n += md.RowGroups[i].NumRows
	}
	return n == md.NumRows && md.EncryptionAlgorithm.Value == nil
}

// read reads the column's chunk of rg (see value), and reports whether
// it could.
func (c *flatColumn) read(rg *format.RowGroup) (ok bool) {
	// A decoder that panics on bad bytes leaves the chunk to parquet-go.
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	if c.col >= len(rg.Columns) || rg.NumRows < 0 || rg.NumRows > maxFlatRows {
		return false
	}
	cc := &rg.Columns[c.col]
	m := &cc.MetaData
	if cc.FilePath != "" || len(cc.EncryptedColumnMetadata) > 0 || m.Type != format.ByteArray ||
		m.Codec != format.Snappy && m.Codec != format.Uncompressed ||
		m.DictionaryPageOffset > 0 || m.DataPageOffset < 4 || m.TotalCompressedSize <= 0 || m.TotalCompressedSize > maxFlatChunk {
		return false
	}
	if int64(cap(c.chunk)) < m.TotalCompressedSize {
		c.chunk = make([]byte, m.TotalCompressedSize)
	}
	chunk := c.chunk[:m.TotalCompressedSize]
	if _, err := c.in.ReadAt(chunk, m.DataPageOffset); err != nil {
		return false
	}
	rows := int(rg.NumRows)
	c.arena, c.vals = c.arena[:0], c.vals[:0]
	for pos := 0; pos < len(chunk); {
		h, hn, err := c.pages.at(chunk, pos)
		if err != nil {
			return false
		}
		cs := int(h.CompressedPageSize)
		body := chunk[pos+hn : pos+hn+cs]
		pos += hn + cs
		if h.CRC != 0 && int32(crc32.ChecksumIEEE(body)) != h.CRC {
			return false
		}
		if !c.page(h, body, m.Codec, rows-c.rows()) {
			return false
		}
	}
	return c.rows() == rows
}

// page reads a data page of at most left rows.
func (c *flatColumn) page(h *format.PageHeader, body []byte, codec format.CompressionCodec, left int) bool {
	var levels, values []byte
	var nv int
	switch h.Type {
	case format.DataPage:
		d := &h.DataPageHeader
		if !d.Valid || d.V.Encoding != format.Plain || c.maxDef > 0 && d.V.DefinitionLevelEncoding != format.RLE {
			return false
		}
		nv = int(d.V.NumValues)
		plain, ok := c.uncompress(body, int(h.UncompressedPageSize), codec)
		if !ok {
			return false
		}
		if c.maxDef > 0 {
			if len(plain) < 4 {
				return false
			}
			n := binary.LittleEndian.Uint32(plain)
			if uint64(n) > uint64(len(plain)-4) {
				return false
			}
			levels, plain = plain[4:4+n], plain[4+n:]
		}
		values = plain
	case format.DataPageV2:
		d := &h.DataPageHeaderV2
		if !d.Valid || d.V.Encoding != format.Plain || d.V.RepetitionLevelsByteLength != 0 || d.V.NumRows != d.V.NumValues {
			return false
		}
		nv = int(d.V.NumValues)
		dl := int(d.V.DefinitionLevelsByteLength)
		if dl < 0 || dl > len(body) || dl > int(h.UncompressedPageSize) || c.maxDef == 0 && dl != 0 {
			return false
		}
		levels = body[:dl]
		if d.V.IsCompressed.Valid && !d.V.IsCompressed.V {
			codec = format.Uncompressed
		}
		var ok bool
		if values, ok = c.uncompress(body[dl:], int(h.UncompressedPageSize)-dl, codec); !ok {
			return false
		}
	default:
		return false
	}
	if nv < 0 || nv > left {
		return false
	}
	present := nv
	if c.maxDef > 0 {
		var err error
		if c.hyb, err = decodeHybrid(c.hyb[:0], levels, c.width, nv); err != nil || len(c.hyb) != nv {
			return false
		}
		present = 0
		for _, l := range c.hyb {
			switch {
			case int(l) == c.maxDef:
				present++
			case int(l) > c.maxDef:
				return false
			}
		}
		if h.Type == format.DataPageV2 && int(h.DataPageHeaderV2.V.NumNulls) != nv-present {
			return false
		}
	}
	// The values are read where they are in the arena.
	base := len(c.arena) - len(values)
	p := 0
	for i := range nv {
		if c.maxDef > 0 && int(c.hyb[i]) < c.maxDef {
			c.vals = append(c.vals, -1, -1)
			continue
		}
		if len(values)-p < 4 {
			return false
		}
		n := binary.LittleEndian.Uint32(values[p:])
		if uint64(n) > uint64(len(values)-p-4) {
			return false
		}
		c.vals = append(c.vals, base+p+4, base+p+4+int(n))
		p += 4 + int(n)
	}
	return p == len(values)
}

// uncompress appends a page's stream uncompressed, which must be want
// bytes long, to the arena, and returns it.
func (c *flatColumn) uncompress(src []byte, want int, codec format.CompressionCodec) ([]byte, bool) {
	if codec == format.Uncompressed {
		if len(src) != want || len(c.arena)+want > maxFlatArena {
			return nil, false
		}
		c.arena = append(c.arena, src...)
		return c.arena[len(c.arena)-want:], true
	}
	n, _, err := snappyLen(src)
	// A Snappy element makes at most 64 bytes of 2: a longer claim is a
	// lie, refused before it is allocated.
	if err != nil || n != want || want > 32*len(src)+64 || len(c.arena)+want > maxFlatArena {
		return nil, false
	}
	base := len(c.arena)
	if want == 0 {
		return c.arena[base:], true
	}
	c.arena = slices.Grow(c.arena, want)[:base+want]
	b, err := parquet.LookupCompressionCodec(format.Snappy).Decode(c.arena[base:base+want:base+want], src)
	if err != nil || len(b) != want || &b[0] != &c.arena[base] {
		return nil, false
	}
	return b, true
}
