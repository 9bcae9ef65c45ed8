package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"runtime/debug"
	"sort"

	"github.com/leakaudit/leakaudit/internal/pagecache"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The page splice: a Parquet rewrite that does not decode rows. Each
// column chunk's pages are read raw; a page that loses no row is copied as
// it is (header and compressed bytes), a page that loses every row is left
// out, and a page that loses some gets a new header and body: its
// definition levels and dictionary indices are decoded and encoded again,
// its PLAIN values cut out as byte ranges. A Snappy page of mostly long
// literals (incompressible values, such as images) is cut in its
// compressed form and never decompressed: the new stream is the old
// literals' bytes and those of its copies whose source survives the cut,
// so that each value's bytes are copied once, from the input to the
// output. Any other Snappy page is decompressed, cut and compressed again.
// The footer is written anew: row counts, offsets and sizes; the
// statistics of a chunk that lost rows keep only its null count (its min
// and max may no longer be reached); page indexes and Bloom filters are
// not written.
//
// What it handles: files whose columns are not repeated (flat columns and
// groups of them, such as a Hugging Face image struct {bytes, path}),
// without encryption or external column chunks, Snappy or uncompressed,
// with v1 and v2 data pages in PLAIN (every type but BOOLEAN) or
// dictionary encoding, dictionary pages kept as they are. Anything else is
// errSpliceUnsupported, and the caller rewrites the file row by row.

// errSpliceUnsupported marks a file the page splice does not handle.
var errSpliceUnsupported = errors.New("not handled by the page splice")

// unsupported returns an errSpliceUnsupported error saying why.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errSpliceUnsupported, fmt.Sprintf(format, args...))
}

// maxSpliceRowGroup bounds the compressed size of a row group the splice
// holds in memory (a few at a time); a file with a larger one is rewritten
// row by row, which cuts its output row groups smaller.
const maxSpliceRowGroup = 64 << 20

// maxSplicePage bounds a page's uncompressed size.
const maxSplicePage = 256 << 20

// spliceLeaf is what the splice needs of a leaf column.
type spliceLeaf struct {
	typ      format.Type
	width    int // the byte width of a fixed-width PLAIN value, 0 for BYTE_ARRAY
	maxDef   int
	defWidth int // the bit width of its definition levels
}

// spliceLeaves returns the file's leaf columns in column order, or
// errSpliceUnsupported when one is repeated or of a type it cannot cut.
func spliceLeaves(md *format.FileMetaData) ([]spliceLeaf, error) {
	var leaves []spliceLeaf
	i := 0
	var walk func(def, depth int) error
	walk = func(def, depth int) error {
		if i >= len(md.Schema) || depth > 64 {
			return fmt.Errorf("schema ends inside a group")
		}
		el := &md.Schema[i]
		i++
		if depth > 0 { // the root's repetition is not a column's
			switch el.RepetitionType.V {
			case format.Repeated:
				return unsupported("column %q is repeated", el.Name)
			case format.Optional:
				def++
			}
		}
		if el.NumChildren.Valid && el.NumChildren.V > 0 || depth == 0 {
			for range el.NumChildren.V {
				if err := walk(def, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		if !el.Type.Valid {
			return fmt.Errorf("leaf %q has no type", el.Name)
		}
		l := spliceLeaf{typ: el.Type.V, maxDef: def, defWidth: bits.Len(uint(def))}
		switch el.Type.V {
		case format.ByteArray:
		case format.Int32, format.Float:
			l.width = 4
		case format.Int64, format.Double:
			l.width = 8
		case format.Int96:
			l.width = 12
		case format.FixedLenByteArray:
			if !el.TypeLength.Valid || el.TypeLength.V <= 0 {
				return fmt.Errorf("fixed-length column %q without a length", el.Name)
			}
			l.width = int(el.TypeLength.V)
		default:
			return unsupported("column %q of type %v", el.Name, el.Type.V)
		}
		leaves = append(leaves, l)
		return nil
	}
	if err := walk(0, 0); err != nil {
		return nil, err
	}
	if i != len(md.Schema) {
		return nil, fmt.Errorf("schema has %d elements after its root's children", len(md.Schema)-i)
	}
	return leaves, nil
}

// checkSpliceable says whether the page splice handles the file, before
// anything is written.
func checkSpliceable(md *format.FileMetaData) ([]spliceLeaf, error) {
	if md.EncryptionAlgorithm.Value != nil || len(md.FooterSigningKeyMetadata) > 0 {
		return nil, unsupported("encrypted file")
	}
	leaves, err := spliceLeaves(md)
	if err != nil {
		return nil, err
	}
	for _, rg := range md.RowGroups {
		if len(rg.Columns) != len(leaves) {
			return nil, fmt.Errorf("row group with %d columns, the schema has %d", len(rg.Columns), len(leaves))
		}
		var size int64
		for _, c := range rg.Columns {
			m := &c.MetaData
			if c.FilePath != "" || len(c.EncryptedColumnMetadata) > 0 {
				return nil, unsupported("column chunk in another file or encrypted")
			}
			if m.Codec != format.Snappy && m.Codec != format.Uncompressed {
				return nil, unsupported("codec %v", m.Codec)
			}
			size += m.TotalCompressedSize
		}
		if size > maxSpliceRowGroup {
			return nil, unsupported("row group of %d bytes", size)
		}
	}
	return leaves, nil
}

// spliceTask is one input row group: which of its rows to keep, and its
// output (the bytes of its column chunks and their metadata, offsets
// counted from the row group's start).
type spliceTask struct {
	index int
	rg    *format.RowGroup
	keep  []bool
	kept  int64
	// out is nil until the row group is spliced; its pieces may refer to
	// mapped input, released by release once it is written.
	out  *gather
	maps []func()
	cols []format.ColumnChunk
	// hasDict says which of cols has a dictionary page.
	hasDict []bool
	err     error
}

// spliceParquet writes the kept rows of the Parquet file in (whose footer
// is md) to w by splicing pages, on up to workers goroutines, and returns
// the number of rows written. keep is called in seq order from one
// goroutine, never after it returns. An errSpliceUnsupported error can come after some
// bytes are written (a page of a kind it does not handle).
func spliceParquet(in io.ReaderAt, md *format.FileMetaData, w io.Writer, keep func(int64) bool, workers int) (n int64, err error) {
	leaves, err := checkSpliceable(md)
	if err != nil {
		return 0, err
	}
	// Written row groups' buffers are used again: as many as can be in
	// flight (being spliced, waiting, being written), so that a large
	// buffer is not made, zeroed and collected again for each row group.
	workers = max(1, workers)
	free := make(chan *gather, 2*workers+2)
	if _, err := w.Write([]byte("PAR1")); err != nil {
		return 0, err
	}
	// The row groups not written (the pipeline ended early) release their
	// mapped input when it has ended.
	tasks := make([]*spliceTask, len(md.RowGroups))
	defer func() {
		for _, t := range tasks {
			if t != nil {
				t.release()
			}
		}
	}()
	var bufs [][]byte
	pos := int64(4)
	rr := newRangeReader(in)
	// A file's long kept ranges are copied from it by the kernel
	// (gather.write). Its chunks are read into buffers used again where
	// the kernel can copy ranges (the bytes are read once more, by the
	// kernel, but that costs less than mapping them: a new mapping's pages
	// are slow to reach the first time), else mapped.
	inFile, _ := in.(*os.File)
	if rr.fd < 0 {
		inFile = nil
	}
	copied := inFile != nil && copyChunks
	// The buffers of the chunks read: as many per column as row groups can
	// be in flight, used again.
	chunkBufs := make([]chan []byte, len(leaves))
	for i := range chunkBufs {
		chunkBufs[i] = make(chan []byte, 2*workers+2)
	}
	out := *md
	out.RowGroups = nil
	out.NumRows = 0
	seq := int64(0)
	err = runOrdered(len(md.RowGroups), workers, workers+1,
		func(i int) *spliceTask {
			rg := &md.RowGroups[i]
			t := &spliceTask{index: i, rg: rg, keep: make([]bool, rg.NumRows)}
			tasks[i] = t
			for j := range t.keep {
				t.keep[j] = keep(seq)
				if t.keep[j] {
					t.kept++
				}
				seq++
			}
			return t
		},
		func() func(*spliceTask, func(*spliceTask) bool) {
			// A mapped range read after the file shrank faults: a panic
			// that rowGroup recovers (this goroutine ends with the
			// pipeline).
			debug.SetPanicOnFault(true)
			s := &splicer{in: rr, leaves: leaves, free: free, copied: copied, chunkBufs: chunkBufs}
			return func(t *spliceTask, send func(*spliceTask) bool) {
				s.rowGroup(t)
				send(t)
			}
		},
		func(t *spliceTask) error {
			if t.err != nil {
				return fmt.Errorf("row group %d: %w", t.index, t.err)
			}
			if t.kept == 0 {
				return nil
			}
			if t.out == nil && len(t.keep) > 0 {
				return fmt.Errorf("row group %d: interrupted", t.index)
			}
			rg := format.RowGroup{Columns: t.cols, NumRows: t.kept, SortingColumns: t.rg.SortingColumns, FileOffset: pos,
				TotalCompressedSize: int64(t.out.len()), Ordinal: int16(len(out.RowGroups))}
			for i := range rg.Columns {
				m := &rg.Columns[i].MetaData
				m.DataPageOffset += pos
				if t.hasDict[i] {
					m.DictionaryPageOffset += pos
				}
				rg.Columns[i].FileOffset += pos
				rg.TotalByteSize += m.TotalUncompressedSize
			}
			var err error
			bufs, err = t.out.write(w, inFile, bufs)
			t.release()
			tasks[t.index] = nil
			if err != nil {
				return err
			}
			pos += int64(t.out.len())
			t.out.reset()
			select {
			case free <- t.out:
			default:
			}
			out.RowGroups = append(out.RowGroups, rg)
			out.NumRows += t.kept
			n += t.kept
			return nil
		})
	if err != nil {
		return n, err
	}
	var proto thrift.CompactProtocol
	footer, err := thrift.Marshal(&proto, &out)
	if err != nil {
		return n, fmt.Errorf("footer: %w", err)
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	_, err = w.Write(footer)
	return n, err
}

// release releases the task's mapped input.
func (t *spliceTask) release() {
	for _, rel := range t.maps {
		rel()
	}
	t.maps = nil
}

// pageHeaders decodes the page headers of a column chunk, reusing its
// decoder from one to the next.
type pageHeaders struct {
	proto thrift.CompactProtocol
	rd    thrift.BytesReader
	dec   *thrift.Decoder
}

// at decodes the header of the page at pos in chunk and returns it with
// its length in bytes; the page's sizes must be plausible (its body
// within the chunk, at most maxSplicePage bytes uncompressed).
func (p *pageHeaders) at(chunk []byte, pos int) (h *format.PageHeader, hn int, err error) {
	if p.dec == nil {
		p.rd = p.proto.NewReaderFromBytes(nil)
		p.dec = thrift.NewDecoder(p.rd)
	}
	p.rd.ResetBytes(chunk[pos:])
	h = new(format.PageHeader)
	if err := p.dec.Decode(h); err != nil {
		return nil, 0, fmt.Errorf("page header at byte %d of the chunk: %w", pos, err)
	}
	hn = p.rd.BytesRead()
	cs, us := int(h.CompressedPageSize), int(h.UncompressedPageSize)
	if cs < 0 || us < 0 || us > maxSplicePage || hn <= 0 || cs > len(chunk)-pos-hn {
		return nil, 0, fmt.Errorf("page at byte %d of the chunk: implausible sizes (%d compressed, %d uncompressed, %d bytes left)", pos, cs, us, len(chunk)-pos-hn)
	}
	return h, hn, nil
}

// splicer holds one worker's buffers.
type splicer struct {
	in     rangeReader
	copied bool // chunks are read into buffers of chunkBufs, not mapped
	// chunkBufs holds each column's buffers not in use, for readChunk.
	chunkBufs []chan []byte
	leaves    []spliceLeaf
	free      chan *gather
	proto     thrift.CompactProtocol
	pages     pageHeaders
	chunk     []byte  // scratch for a column chunk's input bytes, when not mapped
	plain     []byte  // a page decompressed
	levels    []uint8 // a page's definition levels
	kept      []uint8
	hyb       []uint32 // decoded levels or indices
	keptIx    []int32
	enc2      []byte
	enc       []byte // encoded levels or indices
	ps        pageSpace
	buf       []byte   // scratch for lengths
	lbuf      []byte   // scratch for definition levels
	parts     [][]byte // a page's new body
	hdr       []byte   // the Snappy tags of a new body
	// A page's new bytes, and compressed.
	plainBuf, zbuf []byte
	segs           []spliceSeg
	ranges         []keptRange
}

// rowGroup splices one row group into t.out and t.cols.
func (s *splicer) rowGroup(t *spliceTask) {
	// The current column chunk's bytes are released however it ends.
	release := func() {}
	// A decoder that panics on bad bytes, or a fault.
	defer func() {
		release()
		if r := recover(); r != nil && t.err == nil {
			if t.err = faultError(r); t.err == nil {
				t.err = fmt.Errorf("damaged Parquet file: %v", r)
			}
		}
	}()
	if t.kept == 0 {
		return
	}
	var out *gather
	select {
	case out = <-s.free:
	default:
		out = &gather{stableAt: -1}
	}
	for ci := range t.rg.Columns {
		c := t.rg.Columns[ci]
		m := &c.MetaData
		start := m.DataPageOffset
		if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
			start = m.DictionaryPageOffset
		}
		if m.TotalCompressedSize < 0 || m.TotalCompressedSize > maxSpliceRowGroup || start < 4 {
			t.err = fmt.Errorf("column %d: implausible chunk (offset %d, %d bytes)", ci, start, m.TotalCompressedSize)
			return
		}
		var chunk []byte
		var rel func()
		var mapped bool
		var err error
		if s.copied {
			// Read into a buffer of the column's, kept until the row group
			// is written: as a mapped chunk.
			chunk, rel, err = s.readChunk(ci, start, m.TotalCompressedSize)
			mapped = true
		} else {
			chunk, rel, mapped, s.chunk, err = s.in.get(start, m.TotalCompressedSize, s.chunk)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The file was opened with the chunk inside it.
			err = fmt.Errorf("the file changed while it was read (it ends before the chunk): %w", err)
		}
		if err != nil {
			t.err = fmt.Errorf("column %d: %w", ci, err)
			return
		}
		base := int64(out.len())
		oc := c
		oc.OffsetIndexOffset, oc.OffsetIndexLength = 0, 0
		oc.ColumnIndexOffset, oc.ColumnIndexLength = 0, 0
		om := &oc.MetaData
		om.BloomFilterOffset, om.BloomFilterLength = 0, 0
		om.IndexPageOffset = 0
		om.SizeStatistics = format.SizeStatistics{}
		var hasDict bool
		release = rel
		// A mapped chunk's bytes stay until out is written: out refers to
		// them. A chunk read into scratch is copied.
		if mapped {
			t.maps = append(t.maps, rel)
			release = func() {}
			out.stable, out.stableAt = chunk, start
		}
		hasDict, err = s.column(t, &s.leaves[ci], chunk, out, om)
		out.stable, out.stableAt = nil, -1
		release()
		release = func() {}
		if err != nil {
			t.err = fmt.Errorf("column %v: %w", m.PathInSchema, err)
			return
		}
		if t.kept == int64(len(t.keep)) {
			// Nothing removed: the chunk is copied as it is, page by page
			// (its framing checked), and its statistics still hold.
			om.Statistics, om.EncodingStats, om.GeospatialStatistics = m.Statistics, m.EncodingStats, m.GeospatialStatistics
		}
		if !hasDict {
			om.DictionaryPageOffset = 0
		}
		oc.FileOffset = base
		t.cols = append(t.cols, oc)
		t.hasDict = append(t.hasDict, hasDict)
	}
	t.out = out
}

// readChunk reads the n bytes at off of column ci's chunk into one of
// the column's buffers, and returns them with the function that gives
// the buffer back.
func (s *splicer) readChunk(ci int, off, n int64) ([]byte, func(), error) {
	var b []byte
	select {
	case b = <-s.chunkBufs[ci]:
	default:
	}
	if int64(cap(b)) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	back := func() {
		select {
		case s.chunkBufs[ci] <- b:
		default:
		}
	}
	if _, err := s.in.in.ReadAt(b, off); err != nil {
		back()
		return nil, nil, err
	}
	return b, back, nil
}

// spliceSeg is a piece of a page's new uncompressed bytes: lit, or the
// bytes [a, b) of the old ones.
type spliceSeg struct {
	lit  []byte
	a, b int
}

func (g spliceSeg) len() int {
	if g.lit != nil {
		return len(g.lit)
	}
	return g.b - g.a
}

// column splices the pages of one column chunk, appending them to out and
// setting om's sizes, offsets (from the row group's start), value count
// and statistics. hasDict says whether it has a dictionary page.
func (s *splicer) column(t *spliceTask, leaf *spliceLeaf, chunk []byte, out *gather, om *format.ColumnMetaData) (hasDict bool, err error) {
	rows := len(t.keep)
	row := 0
	var comp, uncomp, values, nulls int64
	firstData := true
	for pos := 0; pos < len(chunk); {
		h, hn, err := s.pages.at(chunk, pos)
		if err != nil {
			return false, err
		}
		cs, us := int(h.CompressedPageSize), int(h.UncompressedPageSize)
		raw := chunk[pos : pos+hn+cs]
		body := raw[hn:]
		pos += hn + cs
		var nv int
		switch h.Type {
		case format.DictionaryPage:
			if !firstData || hasDict {
				return false, unsupported("dictionary page after data pages")
			}
			hasDict = true
			om.DictionaryPageOffset = int64(out.len())
			out.ref(raw)
			comp += int64(len(raw))
			uncomp += int64(hn + us)
			continue
		case format.DataPage:
			if !h.DataPageHeader.Valid {
				return false, errors.New("data page without its header")
			}
			nv = int(h.DataPageHeader.V.NumValues)
		case format.DataPageV2:
			d := &h.DataPageHeaderV2
			if !d.Valid {
				return false, errors.New("data page v2 without its header")
			}
			if d.V.NumRows != d.V.NumValues || d.V.RepetitionLevelsByteLength != 0 {
				return false, errors.New("data page v2 of a flat column with repetition levels")
			}
			nv = int(d.V.NumRows)
		default:
			return false, unsupported("page of type %v", h.Type)
		}
		if nv < 0 || nv > rows-row {
			return false, fmt.Errorf("data page of %d values at row %d of %d", nv, row, rows)
		}
		keep := t.keep[row : row+nv]
		row += nv
		k := 0
		for _, b := range keep {
			if b {
				k++
			}
		}
		if k == 0 {
			// Every row removed: its nulls are not counted.
			continue
		}
		if firstData {
			om.DataPageOffset = int64(out.len())
			firstData = false
		}
		before := out.len()
		var pn int64 // the page's nulls
		if k == nv {
			out.ref(raw)
			uncomp += int64(hn + us)
			pn, err = s.pageNulls(h, body, leaf, om.Codec)
		} else {
			var nu int
			nu, pn, err = s.page(h, body, leaf, om.Codec, keep, k, out)
			uncomp += int64(nu)
		}
		if err != nil {
			return false, fmt.Errorf("data page at row %d: %w", row-nv, err)
		}
		comp += int64(out.len() - before)
		values += int64(k)
		nulls += pn
	}
	if row != rows {
		return false, fmt.Errorf("pages hold %d rows, the row group %d", row, rows)
	}
	if firstData {
		return false, errors.New("no data page")
	}
	om.NumValues = values
	om.TotalCompressedSize = comp
	om.TotalUncompressedSize = uncomp
	om.Statistics = format.Statistics{NullCount: nulls}
	om.EncodingStats = nil
	om.GeospatialStatistics = format.GeospatialStatistics{}
	return hasDict, nil
}

// page splices a data page that keeps k of its len(keep) rows, appending
// its new header and body to out; it returns the new page's uncompressed
// size with its header, and its nulls.
func (s *splicer) page(h *format.PageHeader, body []byte, leaf *spliceLeaf, codec format.CompressionCodec, keep []bool, k int, out *gather) (int, int64, error) {
	uncomp, nulls, err := s.pageWith(h, body, leaf, codec, keep, k, out, true)
	if errors.Is(err, errSpaceHops) { // too deep to read without decompressing
		uncomp, nulls, err = s.pageWith(h, body, leaf, codec, keep, k, out, false)
	}
	return uncomp, nulls, err
}

// pageWith is page, reading a Snappy page's PLAIN values without
// decompressing it when lazy allows (see openSpace).
func (s *splicer) pageWith(h *format.PageHeader, body []byte, leaf *spliceLeaf, codec format.CompressionCodec, keep []bool, k int, out *gather, lazy bool) (uncomp int, nulls int64, err error) {
	v2 := h.Type == format.DataPageV2
	// The page's space is what its compressed stream holds, uncompressed:
	// the whole page (v1), or its values (v2, whose levels are stored
	// apart); the values start at vstart in it.
	var levels, stream []byte
	var vstart int
	var enc format.Encoding
	compressed := codec == format.Snappy
	want := int(h.UncompressedPageSize)
	if v2 {
		d := &h.DataPageHeaderV2.V
		dl := int(d.DefinitionLevelsByteLength)
		if dl < 0 || dl > len(body) || dl > want {
			return 0, 0, fmt.Errorf("%d bytes of definition levels in a %d-byte page", dl, len(body))
		}
		if leaf.maxDef == 0 && dl != 0 {
			return 0, 0, errors.New("definition levels in a required column")
		}
		levels, stream, enc, want = body[:dl], body[dl:], d.Encoding, want-dl
		if d.IsCompressed.Valid && !d.IsCompressed.V {
			compressed = false
		}
	} else {
		stream, enc = body, h.DataPageHeader.V.Encoding
	}
	ps := &s.ps
	if compressed {
		if err := s.openSpace(stream, want, lazy && enc == format.Plain); err != nil {
			return 0, 0, err
		}
	} else {
		*ps = pageSpace{b: stream, whole: true, el: ps.el[:0]}
	}
	if !v2 && leaf.maxDef > 0 {
		if d := &h.DataPageHeader.V; d.DefinitionLevelEncoding != format.RLE {
			return 0, 0, unsupported("definition levels in %v", d.DefinitionLevelEncoding)
		}
		var n uint32
		if n, s.buf, err = ps.u32(0, s.buf); err != nil {
			return 0, 0, fmt.Errorf("definition levels: %w", err)
		}
		if uint64(n) > uint64(ps.len()-4) {
			return 0, 0, fmt.Errorf("%d bytes of definition levels in a %d-byte page", n, ps.len())
		}
		if levels, s.lbuf, err = ps.bytes(4, 4+int(n), s.lbuf[:0]); err != nil {
			return 0, 0, err
		}
		vstart = 4 + int(n)
	}
	if !compressed && len(stream) != want {
		return 0, 0, fmt.Errorf("uncompressed page of %d bytes, its header says %d", len(stream), want)
	}
	// The definition levels: the rows that have a value, and the kept ones.
	nv := len(keep)
	present := nv
	var keptNulls int64
	s.levels, s.kept = s.levels[:0], s.kept[:0]
	var lev []byte // the new levels, encoded
	if leaf.maxDef > 0 {
		if s.levels, err = s.decodeLevels(s.levels, levels, leaf.defWidth, nv); err != nil {
			return 0, 0, err
		}
		present = 0
		for i, l := range s.levels {
			if int(l) > leaf.maxDef {
				return 0, 0, fmt.Errorf("definition level %d above the column's %d", l, leaf.maxDef)
			}
			if int(l) == leaf.maxDef {
				present++
			}
			if keep[i] {
				s.kept = append(s.kept, l)
				if int(l) < leaf.maxDef {
					keptNulls++
				}
			}
		}
		if s.enc, err = (&rle.Encoding{BitWidth: leaf.defWidth}).EncodeLevels(s.enc[:0], s.kept); err != nil {
			return 0, 0, err
		}
		lev = s.enc
	}
	var lv []uint8 // nil: every row has a value
	if leaf.maxDef > 0 {
		lv = s.levels
	}
	segs := s.segs[:0]
	if !v2 && leaf.maxDef > 0 {
		segs = append(segs, spliceSeg{lit: binary.LittleEndian.AppendUint32(make([]byte, 0, 4), uint32(len(lev)))}, spliceSeg{lit: lev})
	}
	// The values: PLAIN ones as kept byte ranges, dictionary indices
	// encoded again.
	switch enc {
	case format.Plain:
		segs, s.buf, err = plainSegs(segs, ps, vstart, leaf, lv, keep, s.buf)
	//lint:ignore SA1019 files from older writers still hold PLAIN_DICTIONARY data pages; they read as RLE_DICTIONARY
	case format.PlainDictionary, format.RLEDictionary:
		var lit []byte
		if !ps.whole {
			return 0, 0, errors.New("dictionary indices not decompressed")
		}
		if lit, err = s.dictIndices(ps.b[vstart:], present, leaf, lv, keep); err == nil {
			segs = append(segs, spliceSeg{lit: lit})
		}
	default:
		return 0, 0, unsupported("%v encoding", enc)
	}
	if err != nil {
		return 0, 0, err
	}
	s.segs = segs
	// The new body, in parts.
	newSpace := 0
	for _, g := range segs {
		newSpace += g.len()
	}
	parts := s.parts[:0]
	if v2 {
		parts = append(parts, lev)
	}
	switch {
	case compressed && !ps.whole:
		if parts, s.hdr, s.ranges, err = snappySplice(parts, s.hdr, ps, segs, newSpace, s.ranges); err != nil {
			return 0, 0, err
		}
	case compressed:
		// A page that compresses well has short elements, cheaper to
		// compress again than to splice.
		s.plainBuf = s.plainBuf[:0]
		for _, g := range segs {
			if g.lit != nil {
				s.plainBuf = append(s.plainBuf, g.lit...)
			} else {
				s.plainBuf = append(s.plainBuf, ps.b[g.a:g.b]...)
			}
		}
		if s.zbuf, err = parquet.LookupCompressionCodec(codec).Encode(s.zbuf[:0], s.plainBuf); err != nil {
			return 0, 0, err
		}
		parts = append(parts, s.zbuf)
	default:
		for _, g := range segs {
			if g.lit != nil {
				parts = append(parts, g.lit)
			} else {
				parts = append(parts, ps.b[g.a:g.b])
			}
		}
	}
	s.parts = parts
	size := 0
	var crc uint32
	for _, p := range parts {
		size += len(p)
		if h.CRC != 0 {
			crc = crc32.Update(crc, crc32.IEEETable, p)
		}
	}
	nh := *h
	nh.UncompressedPageSize = int32(newSpace)
	nh.CompressedPageSize = int32(size)
	if v2 {
		d := &nh.DataPageHeaderV2.V
		nh.UncompressedPageSize += int32(len(lev))
		d.NumValues, d.NumRows, d.NumNulls = int32(k), int32(k), int32(keptNulls)
		d.DefinitionLevelsByteLength = int32(len(lev))
		d.Statistics = format.Statistics{NullCount: keptNulls}
	} else {
		d := &nh.DataPageHeader.V
		d.NumValues = int32(k)
		d.Statistics = format.Statistics{NullCount: keptNulls}
	}
	if h.CRC != 0 {
		nh.CRC = int32(crc)
	}
	hb, err := thrift.Marshal(&s.proto, &nh)
	if err != nil {
		return 0, 0, err
	}
	out.add(hb)
	for _, p := range parts {
		out.ref(p)
	}
	return len(hb) + int(nh.UncompressedPageSize), keptNulls, nil
}

// openSpace reads a Snappy page stream into s.ps: its elements, and its
// bytes decompressed unless lazy (PLAIN values, read through the stream)
// and the stream is mostly long literals.
func (s *splicer) openSpace(stream []byte, want int, lazy bool) error {
	// Mostly literals: it compresses by less than 1/8.
	if lazy && len(stream)*8 >= want*7 {
		el, n, err := snappyElems(s.ps.el, stream)
		s.ps = pageSpace{el: el, n: n}
		if err != nil {
			return err
		}
		if n != want {
			return fmt.Errorf("page of %d bytes uncompressed, its header says %d", n, want)
		}
		if len(el)*64 <= n {
			return nil
		}
	}
	b, err := s.decompress(stream, want)
	if err != nil {
		return err
	}
	s.ps = pageSpace{b: b, whole: true, el: s.ps.el[:0]}
	return nil
}

// decompress returns a Snappy stream's bytes, which must be want long.
func (s *splicer) decompress(src []byte, want int) ([]byte, error) {
	n, _, err := snappyLen(src)
	if err != nil {
		return nil, err
	}
	if n != want || want < 0 {
		return nil, fmt.Errorf("page of %d bytes uncompressed, its header says %d", n, want)
	}
	// A Snappy element makes at most 64 bytes of 2: a longer claim is a
	// lie, refused before it is allocated.
	if want > 32*len(src)+64 {
		return nil, fmt.Errorf("%d Snappy bytes cannot make %d", len(src), want)
	}
	if cap(s.plain) < want {
		s.plain = make([]byte, want)
	}
	b, err := parquet.LookupCompressionCodec(format.Snappy).Decode(s.plain[:want], src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if len(b) != want {
		return nil, fmt.Errorf("page of %d bytes uncompressed, its header says %d", len(b), want)
	}
	return b, nil
}

// decodeLevels decodes n levels of the given bit width.
func (s *splicer) decodeLevels(dst []uint8, src []byte, width, n int) ([]uint8, error) {
	var err error
	if s.hyb, err = decodeHybrid(s.hyb[:0], src, width, n); err != nil {
		return dst, fmt.Errorf("definition levels: %w", err)
	}
	dst = dst[:0]
	for _, v := range s.hyb {
		dst = append(dst, uint8(v))
	}
	return dst, nil
}

// decodeHybrid decodes n values of the RLE/bit-packed hybrid encoding of
// the given bit width (at most 32) from src; it fails, without allocating
// more than n values, when src holds fewer.
func decodeHybrid(dst []uint32, src []byte, width, n int) ([]uint32, error) {
	if width < 0 || width > 32 {
		return dst, fmt.Errorf("bit width %d", width)
	}
	vb := (width + 7) / 8 // the bytes of a run's value
	p := 0
	for len(dst) < n {
		h, k := binary.Uvarint(src[p:])
		if k <= 0 {
			return dst, fmt.Errorf("%d of %d values, then no run header", len(dst), n)
		}
		p += k
		if h&1 == 0 { // a run of one value
			count := h >> 1
			if vb > len(src)-p {
				return dst, errors.New("a run's value past the end")
			}
			var v uint32
			for i := range vb {
				v |= uint32(src[p+i]) << (8 * i)
			}
			p += vb
			if width < 32 && v>>width != 0 {
				return dst, fmt.Errorf("run value %d wider than %d bits", v, width)
			}
			for c := uint64(0); c < count && len(dst) < n; c++ {
				dst = append(dst, v)
			}
			continue
		}
		groups := h >> 1 // of 8 values, width bytes each
		if groups > uint64(len(src)-p)/uint64(max(width, 1)) {
			return dst, errors.New("bit-packed values past the end")
		}
		end := p + int(groups)*width
		var acc uint64
		var have int
		mask := uint64(1)<<width - 1
		for c := 0; c < int(groups)*8 && len(dst) < n; c++ {
			for have < width {
				acc |= uint64(src[p]) << have
				p++
				have += 8
			}
			dst = append(dst, uint32(acc&mask))
			acc >>= width
			have -= width
		}
		p = end
	}
	return dst, nil
}

// plainSegs appends the byte ranges of the page space ps that hold the
// kept rows' PLAIN values, which start at vstart; levels are the rows'
// definition levels (none: every row has a value). buf is scratch.
func plainSegs(segs []spliceSeg, ps *pageSpace, vstart int, leaf *spliceLeaf, levels []uint8, keep []bool, buf []byte) ([]spliceSeg, []byte, error) {
	p := vstart
	end := ps.len()
	open := false // the last segment can grow
	for i, k := range keep {
		if levels != nil && int(levels[i]) < leaf.maxDef {
			continue // a null: no value
		}
		a := p
		if leaf.width > 0 {
			if leaf.width > end-p {
				return segs, buf, fmt.Errorf("value %d of %d bytes past the page's end", i, leaf.width)
			}
			p += leaf.width
		} else {
			var n uint32
			var err error
			if n, buf, err = ps.u32(p, buf); err != nil {
				return segs, buf, fmt.Errorf("value %d: %w", i, err)
			}
			if uint64(n) > uint64(end-p-4) {
				return segs, buf, fmt.Errorf("value %d of %d bytes past the page's end", i, n)
			}
			p += 4 + int(n)
		}
		switch {
		case !k:
			open = false
		case open:
			segs[len(segs)-1].b = p
		default:
			segs = append(segs, spliceSeg{a: a, b: p})
			open = true
		}
	}
	return segs, buf, nil
}

// dictIndices decodes the dictionary indices of a page's present values
// and encodes the kept ones again, with the same bit width.
func (s *splicer) dictIndices(src []byte, present int, leaf *spliceLeaf, levels []uint8, keep []bool) ([]byte, error) {
	if len(src) == 0 {
		if present > 0 {
			return nil, errors.New("dictionary indices missing")
		}
		return []byte{}, nil
	}
	width := int(src[0])
	if width > 32 {
		return nil, fmt.Errorf("dictionary indices of %d bits", width)
	}
	var err error
	if s.hyb, err = decodeHybrid(s.hyb[:0], src[1:], width, present); err != nil {
		return nil, fmt.Errorf("dictionary indices: %w", err)
	}
	s.keptIx = s.keptIx[:0]
	j := 0
	for i, k := range keep {
		if levels != nil && int(levels[i]) < leaf.maxDef {
			continue
		}
		if k {
			s.keptIx = append(s.keptIx, int32(s.hyb[j]))
		}
		j++
	}
	lit := []byte{byte(width)}
	switch {
	case len(s.keptIx) == 0:
	case width == 0: // every index is 0: one run
		lit = binary.AppendUvarint(lit, uint64(len(s.keptIx))<<1)
	default:
		if s.enc2, err = (&rle.Encoding{BitWidth: width}).EncodeInt32(s.enc2[:0], s.keptIx); err != nil {
			return nil, err
		}
		lit = append(lit, s.enc2...)
	}
	return lit, nil
}

// pageNulls counts the nulls of a data page copied as it is.
func (s *splicer) pageNulls(h *format.PageHeader, body []byte, leaf *spliceLeaf, codec format.CompressionCodec) (int64, error) {
	if leaf.maxDef == 0 {
		return 0, nil
	}
	if h.Type == format.DataPageV2 {
		return int64(h.DataPageHeaderV2.V.NumNulls), nil
	}
	d := &h.DataPageHeader.V
	if d.DefinitionLevelEncoding != format.RLE {
		return 0, unsupported("definition levels in %v", d.DefinitionLevelEncoding)
	}
	// The levels lead the page: only they are decompressed.
	plain := body
	var err error
	if codec == format.Snappy {
		if plain, err = snappyPrefix(s.plain[:0], body, 4); err == nil && len(plain) >= 4 {
			plain, err = snappyPrefix(s.plain[:0], body, 4+int(min(binary.LittleEndian.Uint32(plain), maxSplicePage)))
		}
		if err != nil {
			return 0, err
		}
		s.plain = plain[:0]
	}
	if len(plain) < 4 {
		return 0, errors.New("page too short for its definition levels")
	}
	n := binary.LittleEndian.Uint32(plain)
	if uint64(n) > uint64(len(plain)-4) {
		return 0, fmt.Errorf("%d bytes of definition levels in a %d-byte page", n, len(plain))
	}
	if s.levels, err = s.decodeLevels(s.levels, plain[4:4+n], leaf.defWidth, int(d.NumValues)); err != nil {
		return 0, err
	}
	var nulls int64
	for _, l := range s.levels {
		if int(l) < leaf.maxDef {
			nulls++
		}
	}
	return nulls, nil
}

// snappyLen reads a Snappy stream's uncompressed length.
func snappyLen(src []byte) (n, k int, err error) {
	v, k := binary.Uvarint(src)
	if k <= 0 || v > maxSplicePage {
		return 0, 0, errors.New("snappy: bad or implausible length")
	}
	return int(v), k, nil
}

// snappyElem is an element of a Snappy stream: a literal (off 0) or a
// copy of the bytes off back; it makes the bytes [u0, u1) of the output,
// and raw are its bytes in the stream.
type snappyElem struct {
	u0, u1, off int
	raw         []byte
}

// nextSnappyElem reads the element at src[i:], which makes the output from
// byte u on; n is the output's length.
func nextSnappyElem(src []byte, i, u, n int) (e snappyElem, next int, err error) {
	if i >= len(src) {
		return e, i, errors.New("snappy: stream ends early")
	}
	tag := src[i]
	var l, hdr int
	switch tag & 3 {
	case 0:
		l = int(tag>>2) + 1
		hdr = 1
		if tag>>2 >= 60 {
			nb := int(tag>>2) - 59
			if nb > len(src)-i-1 {
				return e, i, errors.New("snappy: literal length past the end")
			}
			v := 0
			for j := range nb {
				v |= int(src[i+1+j]) << (8 * j)
			}
			l, hdr = v+1, 1+nb
		}
		if l > len(src)-i-hdr || l > n-u {
			return e, i, errors.New("snappy: literal past the end")
		}
		return snappyElem{u0: u, u1: u + l, raw: src[i : i+hdr+l]}, i + hdr + l, nil
	case 1:
		if len(src)-i < 2 {
			return e, i, errors.New("snappy: copy past the end")
		}
		l, e.off, hdr = 4+int(tag>>2&7), int(tag&0xe0)<<3|int(src[i+1]), 2
	case 2:
		if len(src)-i < 3 {
			return e, i, errors.New("snappy: copy past the end")
		}
		l, e.off, hdr = 1+int(tag>>2), int(binary.LittleEndian.Uint16(src[i+1:])), 3
	case 3:
		if len(src)-i < 5 {
			return e, i, errors.New("snappy: copy past the end")
		}
		l, e.off, hdr = 1+int(tag>>2), int(binary.LittleEndian.Uint32(src[i+1:])), 5
	}
	if e.off <= 0 || e.off > u || l > n-u {
		return e, i, errors.New("snappy: copy out of range")
	}
	e.u0, e.u1, e.raw = u, u+l, src[i:i+hdr]
	return e, i + hdr, nil
}

// snappyPrefix decodes a Snappy stream until it has at least need bytes
// (or all of them) into dst.
func snappyPrefix(dst, src []byte, need int) ([]byte, error) {
	n, i, err := snappyLen(src)
	if err != nil {
		return dst, err
	}
	dst = dst[:0]
	for len(dst) < need && len(dst) < n {
		e, next, err := nextSnappyElem(src, i, len(dst), n)
		if err != nil {
			return dst, err
		}
		i = next
		if e.off == 0 {
			dst = append(dst, e.raw[len(e.raw)-(e.u1-e.u0):]...)
			continue
		}
		for j := e.u0; j < e.u1; j++ {
			dst = append(dst, dst[j-e.off])
		}
	}
	return dst, nil
}

// appendSnappyLiteral appends a literal's tag for n bytes.
func appendSnappyLiteral(dst []byte, n int) []byte {
	m := n - 1
	switch {
	case m < 60:
		return append(dst, byte(m)<<2)
	case m < 1<<8:
		return append(dst, 60<<2, byte(m))
	case m < 1<<16:
		return append(dst, 61<<2, byte(m), byte(m>>8))
	case m < 1<<24:
		return append(dst, 62<<2, byte(m), byte(m>>8), byte(m>>16))
	}
	return append(dst, 63<<2, byte(m), byte(m>>8), byte(m>>16), byte(m>>24))
}

// appendSnappyCopy appends a copy of l bytes (1 to 64) off back.
func appendSnappyCopy(dst []byte, l, off int) []byte {
	switch {
	case l >= 4 && l <= 11 && off < 2048:
		return append(dst, byte(off>>8)<<5|byte(l-4)<<2|1, byte(off))
	case off < 1<<16:
		return append(dst, byte(l-1)<<2|2, byte(off), byte(off>>8))
	}
	return append(dst, byte(l-1)<<2|3, byte(off), byte(off>>8), byte(off>>16), byte(off>>24))
}

// keptRange is a range of a page's old bytes kept in the new ones, from
// newA on.
type keptRange struct{ a, b, newA int }

// snappySplice appends to parts the Snappy stream of the bytes segs make
// of the page space ps (read from a Snappy stream, whose elements it has)
// and of literals, total bytes in all; hdr holds the tags it writes. It
// compresses nothing: a copy of the old stream whose bytes and source are
// kept, each in one range, stays a copy (its distance shortened by the
// bytes cut between them); everything else is written as literals, whose
// bytes are slices of the old stream or of the page.
func snappySplice(parts [][]byte, hdr []byte, ps *pageSpace, segs []spliceSeg, total int, ranges []keptRange) ([][]byte, []byte, []keptRange, error) {
	n := ps.len()
	ranges = ranges[:0]
	pos := 0
	for _, g := range segs {
		if g.lit == nil {
			if g.a < 0 || g.b > n || g.a > g.b || len(ranges) > 0 && g.a < ranges[len(ranges)-1].b {
				return parts, hdr, ranges, errors.New("snappy: range outside the page or out of order")
			}
			ranges = append(ranges, keptRange{a: g.a, b: g.b, newA: pos})
		}
		pos += g.len()
	}
	// The tags go to hdr, which must not move while parts point into it:
	// at most a literal's and a copy's tags per element or segment.
	el := ps.el
	if need := 16 + 10*(len(el)+len(segs)+1); cap(hdr) < need {
		hdr = make([]byte, 0, need)
	}
	hdr = hdr[:0]
	hdr = binary.AppendUvarint(hdr, uint64(total))
	parts = append(parts, hdr)
	// A literal being gathered: the place of its tag in parts (-1: none),
	// and its length.
	pending, plen := -1, 0
	flush := func() {
		if pending >= 0 {
			start := len(hdr)
			hdr = appendSnappyLiteral(hdr, plen)
			parts[pending] = hdr[start:]
			pending, plen = -1, 0
		}
	}
	addLit := func(b []byte) {
		if pending < 0 {
			pending = len(parts)
			parts = append(parts, nil)
		}
		parts = append(parts, b)
		plen += len(b)
	}
	ei := 0
	r := 0 // the kept range being written
	for _, g := range segs {
		if g.lit != nil {
			if len(g.lit) > 0 {
				addLit(g.lit)
			}
			continue
		}
		cur := ranges[r]
		r++
		for a := g.a; a < g.b; {
			for ei < len(el) && el[ei].u1 <= a {
				ei++
			}
			if ei == len(el) {
				return parts, hdr, ranges, errors.New("snappy: stream ends early")
			}
			e := &el[ei]
			hi := min(e.u1, g.b)
			whole := e.off > 0 && a == e.u0 && hi == e.u1
			switch {
			case whole && e.u0-e.off >= g.a:
				// Its source in the same range: the same distance.
				flush()
				parts = append(parts, e.raw)
			case whole:
				// Its source in an earlier range, whole: a copy still.
				s0, l := e.u0-e.off, e.u1-e.u0
				k := sort.Search(r-1, func(j int) bool { return ranges[j].b > s0 })
				if k < r-1 && ranges[k].a <= s0 && s0+l <= ranges[k].b {
					flush()
					start := len(hdr)
					hdr = appendSnappyCopy(hdr, l, cur.newA+(e.u0-cur.a)-(ranges[k].newA+(s0-ranges[k].a)))
					parts = append(parts, hdr[start:])
					break
				}
				fallthrough
			default:
				b, _, err := ps.bytes(a, hi, nil)
				if err != nil {
					return parts, hdr, ranges, err
				}
				addLit(b)
			}
			a = hi
		}
	}
	flush()
	return parts, hdr, ranges, nil
}

// copyChunks says whether the splice reads the column chunks of a file
// into buffers and has the kernel copy their long kept ranges from the
// file (pagecache.CopyRange), where the system can, instead of mapping
// them and writing from the mappings; tests turn it off to compare.
var copyChunks = pagecache.CopyRanges
