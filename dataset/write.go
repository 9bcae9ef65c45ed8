package dataset

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// WriteSubset writes the records of src for which keep(seq) is true into
// the folder dst, in the source's own format and layout, every kept
// record's bytes as they were:
//
//   - a file (JSON, JSONL, CSV, TSV, lines, caption) becomes dst/<its base
//     name>: the bytes before the first record, each kept record with the
//     separator that preceded it (a JSON list's first kept element loses its
//     comma), and the bytes after the last record. Blank lines, which are
//     not records, are not copied.
//   - a Parquet file becomes dst/<its base name> with the same schema,
//     key-value metadata, compression and every column of the kept rows.
//   - a caption folder becomes dst/caption.txt and dst/img/ holding the
//     kept items' images (the file named by the item's id, any extension)
//     copied unchanged.
//   - an InkML folder becomes dst/ with the kept files at their relative
//     paths.
//
// keep is asked only for records the scan delivered: a record the reader
// skipped has no bytes to copy and is never written, so a caller that wants
// a faithful release counts the skipped ones itself (Stats.Skipped). A
// source read only partly (Stats.FileError) is refused: its bytes after the
// fault cannot be rewritten faithfully. Files are never read from outside
// src: a symbolic link that leads out of a folder source is an error.
// WriteSubset returns the number of records written.
func WriteSubset(src Source, dst string, keep func(seq int64) bool) (int64, error) {
	format := src.Format
	empty := false
	if format == "" {
		f, err := Detect(src.Path)
		if err != nil && !errors.Is(err, ErrEmptyInput) {
			return 0, fmt.Errorf("detect format: %w", err)
		}
		format, empty = f, err != nil
	}
	fi, err := os.Stat(src.Path)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, err
	}
	if empty || !fi.IsDir() && fi.Size() == 0 {
		// An input with no record is its own faithful rewrite.
		if fi.IsDir() {
			return 0, nil
		}
		return 0, copyFile(src.Path, filepath.Join(dst, filepath.Base(src.Path)))
	}
	switch {
	case format == InkML && fi.IsDir():
		return writeInkMLSubset(src, dst, keep)
	case format == Caption && fi.IsDir():
		return writeCaptionFolder(src, dst, keep)
	case format == Parquet:
		return writeParquetSubset(src, filepath.Join(dst, filepath.Base(src.Path)), keep)
	}
	return writeFileSubset(src, format, filepath.Join(dst, filepath.Base(src.Path)), keep, nil)
}

// writeFileSubset rewrites a stream file, calling kept for each record
// written.
func writeFileSubset(src Source, format Format, out string, keep func(int64) bool, kept func(Item)) (int64, error) {
	src.Format = format
	sw, err := newStreamWriter(src, out)
	if err != nil {
		return 0, err
	}
	// A rewrite needs only the records' places (kept is the caption
	// folder's, which needs their ids).
	st, err := scan(src, func(it Item) error {
		if !keep(it.Seq) {
			return nil
		}
		if err := sw.Put(it); err != nil {
			return err
		}
		if kept != nil {
			kept(it)
		}
		return nil
	}, nil, kept == nil)
	if err != nil {
		sw.Abort()
		return sw.n, err
	}
	return sw.Close(st)
}

// A StreamWriter rewrites a stream file (JSON, JSONL, CSV, TSV, lines, a
// caption file) from the records a scan of it delivers, as WriteSubset
// does, while the scan runs: the records put are the kept ones.
type StreamWriter struct {
	src    Source
	f      *os.File
	in     *os.File
	w      *bufio.Writer
	cp     *spanCopier
	isJSON bool
	tail   []byte
	n      int64
	// Kept records that follow each other are copied as one run.
	runStart, runEnd int64
}

// NewStreamWriter starts the rewrite of src into the folder dst, as
// dst/<its base name>, when WriteSubset would rewrite it record by record
// (a non-empty file of a stream format); ok is false, with nothing
// written, for any other source.
func NewStreamWriter(src Source, dst string) (sw *StreamWriter, ok bool, err error) {
	format := src.Format
	if format == "" {
		if format, err = Detect(src.Path); err != nil {
			return nil, false, nil
		}
	}
	fi, err := os.Stat(src.Path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || format == Parquet || format == InkML {
		return nil, false, nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, false, err
	}
	src.Format = format
	sw, err = newStreamWriter(src, filepath.Join(dst, filepath.Base(src.Path)))
	return sw, err == nil, err
}

func newStreamWriter(src Source, out string) (*StreamWriter, error) {
	in, err := os.Open(src.Path)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(out)
	if err != nil {
		in.Close()
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	sw := &StreamWriter{src: src, f: f, in: in, w: w, cp: &spanCopier{r: bufio.NewReaderSize(in, 1<<20), w: w, in: in, out: f, bw: w}}
	format := src.Format
	sw.isJSON = format == JSONStrings || format == JSONObjects || format == JSONMap
	switch {
	case sw.isJSON:
		open, t, err := jsonFrame(in)
		if err != nil {
			sw.Abort()
			return nil, fmt.Errorf("%s: %w", src.Path, err)
		}
		sw.tail = t
		sw.cp.lead = open.lead
		if err := sw.cp.copy(0, open.end); err != nil {
			sw.Abort()
			return nil, err
		}
	case format == CSV || format == TSV:
		end, err := csvHeaderEnd(src.Path, format)
		if err != nil {
			sw.Abort()
			return nil, fmt.Errorf("%s: %w", src.Path, err)
		}
		if err := sw.cp.copy(0, end); err != nil {
			sw.Abort()
			return nil, err
		}
	}
	return sw, nil
}

// Put writes a kept record, given as the scan delivered it (its Start and
// End); records are put in scan order.
func (sw *StreamWriter) Put(it Item) error {
	var err error
	switch {
	case sw.isJSON && sw.n == 0:
		err = sw.cp.copyJSON(it.Start, it.End, true)
		sw.runStart, sw.runEnd = it.End, it.End
	case it.Start == sw.runEnd:
		sw.runEnd = it.End
	default:
		err = sw.flush()
		sw.runStart, sw.runEnd = it.Start, it.End
	}
	if err != nil {
		return err
	}
	sw.n++
	return nil
}

func (sw *StreamWriter) flush() error {
	if sw.runEnd > sw.runStart {
		return sw.cp.copy(sw.runStart, sw.runEnd)
	}
	return nil
}

// Close completes the file, given the stats of the scan that put its
// records, and returns the number of records written. A source the scan
// read only partly (Stats.FileError) is refused, as by WriteSubset.
func (sw *StreamWriter) Close(st Stats) (int64, error) {
	defer sw.in.Close()
	err := sw.flush()
	if err == nil && st.FileError != "" {
		err = fmt.Errorf("%s was read only partly (%s): it cannot be rewritten faithfully", sw.src.Path, st.FileError)
	}
	if err == nil && sw.tail != nil {
		_, err = sw.w.Write(sw.tail)
	}
	if err == nil {
		err = sw.w.Flush()
	}
	if cerr := sw.f.Close(); err == nil {
		err = cerr
	}
	return sw.n, err
}

// Written is the number of records written so far.
func (sw *StreamWriter) Written() int64 { return sw.n }

// Abort ends an unfinished rewrite; its file stays as it is (the caller's
// output folder is discarded).
func (sw *StreamWriter) Abort() {
	sw.in.Close()
	sw.f.Close()
}

// spanCopier copies increasing byte ranges of a file read once.
type spanCopier struct {
	r    *bufio.Reader
	w    io.Writer
	pos  int64
	buf  []byte
	lead []byte // JSON: the white space after the opening bracket
	// in and out, when set, are the files under r and w (bw, flushed
	// before a direct copy), for long spans.
	in, out *os.File
	bw      *bufio.Writer
}

func (c *spanCopier) seek(start int64) error {
	if start < c.pos {
		return fmt.Errorf("record at byte %d overlaps the previous one (ends at %d)", start, c.pos)
	}
	if _, err := c.r.Discard(int(start - c.pos)); err != nil {
		return fmt.Errorf("byte %d: %w", start, err)
	}
	c.pos = start
	return nil
}

func (c *spanCopier) copy(start, end int64) error {
	if c.in != nil && end-start >= directSpan && start >= c.pos {
		return c.copyDirect(start, end)
	}
	if err := c.seek(start); err != nil {
		return err
	}
	// From the read buffer to the write buffer (io.CopyN would hand a
	// short span to the file's ReadFrom: a write and a new buffer each).
	for c.pos < end {
		b, err := c.r.Peek(int(min(end-c.pos, int64(c.r.Size()))))
		if len(b) > 0 {
			if _, werr := c.w.Write(b); werr != nil {
				return werr
			}
			c.r.Discard(len(b))
			c.pos += int64(len(b))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// directSpan is the length from which a span is copied file to file, by
// the kernel where it can (copy_file_range), rather than through the
// buffers.
const directSpan = 64 << 10

// copyDirect copies a long span from c.in to c.out after what the
// buffered writer holds; the buffered reader starts again after it.
func (c *spanCopier) copyDirect(start, end int64) error {
	if err := c.bw.Flush(); err != nil {
		return err
	}
	if _, err := c.in.Seek(start, io.SeekStart); err != nil {
		return err
	}
	n, err := c.out.ReadFrom(&io.LimitedReader{R: c.in, N: end - start})
	c.pos = start + n
	c.r.Reset(c.in)
	if err == nil && n < end-start {
		err = fmt.Errorf("byte %d: %w", c.pos, io.ErrUnexpectedEOF)
	}
	return err
}

// copyJSON copies a JSON record whose span starts with the separator
// before it (white space, a comma, white space); the first record written
// has the white space that followed the opening bracket instead.
func (c *spanCopier) copyJSON(start, end int64, first bool) error {
	if err := c.seek(start); err != nil {
		return err
	}
	c.buf = c.buf[:0]
	for c.pos < end {
		b, err := c.r.ReadByte()
		if err != nil {
			return err
		}
		c.pos++
		c.buf = append(c.buf, b)
	}
	rec := c.buf
	if first {
		rec = bytes.TrimLeft(rec, " \t\r\n")
		rec = bytes.TrimLeft(bytes.TrimPrefix(rec, []byte(",")), " \t\r\n")
		if _, err := c.w.Write(c.lead); err != nil {
			return err
		}
	}
	_, err := c.w.Write(rec)
	return err
}

// jsonOpen is where a JSON file's opening bracket ends, and the white
// space after it.
type jsonOpen struct {
	end  int64
	lead []byte
}

// jsonFrame finds the end of a JSON file's opening bracket and the bytes
// from the white space before its closing bracket to the end.
func jsonFrame(f *os.File) (open jsonOpen, tail []byte, err error) {
	fi, err := f.Stat()
	if err != nil {
		return open, nil, err
	}
	head := make([]byte, min(fi.Size(), 4096))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return open, nil, err
	}
	i := 0
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for i < len(head) && strings.IndexByte(" \t\r\n", head[i]) >= 0 {
		i++
	}
	if i >= len(head) || (head[i] != '[' && head[i] != '{') {
		return open, nil, errors.New("no opening bracket")
	}
	closing := byte(']')
	if head[i] == '{' {
		closing = '}'
	}
	n := min(fi.Size(), 1<<16)
	back := make([]byte, n)
	if _, err := f.ReadAt(back, fi.Size()-n); err != nil && err != io.EOF {
		return open, nil, err
	}
	j := len(back) - 1
	for j >= 0 && strings.IndexByte(" \t\r\n", back[j]) >= 0 {
		j--
	}
	if j < 0 || back[j] != closing {
		// Cut short: the scan reports it (Stats.FileError) and the
		// rewrite is refused there, as every command reads it.
		return open, nil, nil
	}
	k := j
	for k > 0 && strings.IndexByte(" \t\r\n", back[k-1]) >= 0 {
		k--
	}
	open.end = int64(i + 1)
	l := i + 1
	for l < len(head) && strings.IndexByte(" \t\r\n", head[l]) >= 0 {
		l++
	}
	open.lead = append([]byte{}, head[i+1:l]...)
	return open, append([]byte{}, back[k:]...), nil
}

// csvHeaderEnd returns the byte offset just after a CSV file's header row.
func csvHeaderEnd(path string, format Format) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	if format == TSV {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	if _, err := cr.Read(); err != nil {
		return 0, fmt.Errorf("header: %w", err)
	}
	return cr.InputOffset(), nil
}

// maxRowGroupRows bounds the row groups WriteSubset writes to Parquet; an
// input's row groups are kept apart when smaller.
const maxRowGroupRows = 16384

// parquetReadRows is how many rows a Parquet rewrite reads at a time.
const parquetReadRows = 256

// writeParquetSubset copies the kept rows of a Parquet file row group by
// row group, with the input's schema, metadata and compression. The row
// groups are decoded, filtered and encoded on all cores, each into a row
// group of its own (or several, of at most maxRowGroupRows kept rows), and
// written in input order; at most a few row groups are held in memory at a
// time. keep is called in seq order from the calling goroutine.
func writeParquetSubset(src Source, out string, keep func(int64) bool) (n int64, err error) {
	defer func() { // parquet-go panics on some damaged files (see scanParquet)
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: damaged Parquet file: %v", src.Path, r)
		}
	}()
	in, err := os.Open(src.Path)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := openParquet(in, fi.Size())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", src.Path, err)
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	// The page splice first; a file it does not handle is written row by
	// row, over what it wrote, with the keep decisions it took.
	kl := &keepLog{f: keep}
	keep = kl.keep
	if spliceParquetFiles {
		// The splice writes at most about the input's size.
		preallocate(f, fi.Size())
		// It writes in large pieces, several at a time: to f, unbuffered.
		n, err = spliceParquet(in, pf.Metadata(), vectorFile{f}, keep, runtime.GOMAXPROCS(0))
		// The blocks past what was written are given back, whatever
		// happened.
		if terr := trimPrealloc(f); err == nil {
			err = terr
		}
		if !errors.Is(err, errSpliceUnsupported) {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return n, fmt.Errorf("%s: %w", src.Path, err)
			}
			return n, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return 0, err
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return 0, err
		}
	}
	opts := []parquet.WriterOption{pf.Schema()}
	if md := pf.Metadata(); len(md.RowGroups) > 0 && len(md.RowGroups[0].Columns) > 0 {
		opts = append(opts, parquet.Compression(parquet.LookupCompressionCodec(md.RowGroups[0].Columns[0].MetaData.Codec)))
	}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		opts = append(opts, parquet.KeyValueMetadata(kv.Key, kv.Value))
	}
	w := parquet.NewWriter(bw, opts...)
	n, err = filterRowGroups(pf, w, keep, runtime.GOMAXPROCS(0))
	if err != nil {
		f.Close()
		return n, fmt.Errorf("%s: %w", src.Path, err)
	}
	err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// spliceParquetFiles says whether writeParquetSubset tries the page
// splice (spliceParquet) before the row-by-row rewrite; tests turn it off
// to compare the two.
var spliceParquetFiles = true

// keepLog asks f once per seq, in seq order from 0, and answers again
// from its record when asked again (a rewrite started over).
type keepLog struct {
	f    func(int64) bool
	bits []uint64
	n    int64
}

func (k *keepLog) keep(seq int64) bool {
	if seq < k.n {
		return k.bits[seq/64]&(1<<(seq%64)) != 0
	}
	v := k.f(seq)
	if seq == k.n {
		if seq%64 == 0 {
			k.bits = append(k.bits, 0)
		}
		if v {
			k.bits[seq/64] |= 1 << (seq % 64)
		}
		k.n++
	}
	return v
}

// rowGroupTask is one input row group to filter: which rows to keep.
type rowGroupTask struct {
	rg    parquet.RowGroup
	first int64 // the seq of its first row
	keep  []bool
}

// rowGroupPiece is an encoded output row group (nil with an error).
type rowGroupPiece struct {
	rg   *parquet.ConcurrentRowGroupWriter
	rows int64
	err  error
}

// filterRowGroups writes the kept rows of pf's row groups to w, filtering
// and encoding up to workers row groups at a time and committing them in
// input order. The output row groups are those a serial copy makes: one
// per input row group, cut after a read of parquetReadRows rows brings it
// to maxRowGroupRows rows or more. keep is called in seq order from one
// goroutine, never after it returns.
func filterRowGroups(pf *parquet.File, w rowGroupBeginner, keep func(int64) bool, workers int) (n int64, err error) {
	workers = max(1, workers)
	rgs := pf.RowGroups()
	// Committed row group writers are empty again: they are reused, with
	// their buffers.
	free := make(chan *parquet.ConcurrentRowGroupWriter, 2*workers+2)
	seq := int64(0)
	err = runOrdered(len(rgs), workers, workers,
		func(i int) *rowGroupTask {
			rg := rgs[i]
			t := &rowGroupTask{rg: rg, first: seq, keep: make([]bool, rg.NumRows())}
			for j := range t.keep {
				t.keep[j] = keep(seq)
				seq++
			}
			return t
		},
		func() func(*rowGroupTask, func(rowGroupPiece) bool) {
			rows := make([]parquet.Row, parquetReadRows)
			return func(t *rowGroupTask, send func(rowGroupPiece) bool) { t.filter(w, free, rows, send) }
		},
		func(p rowGroupPiece) error {
			if p.err != nil {
				return p.err
			}
			if _, err := p.rg.Commit(); err != nil {
				return err
			}
			n += p.rows
			select {
			case free <- p.rg:
			default:
			}
			return nil
		})
	return n, err
}

// rowGroupBeginner is the part of a Parquet writer the workers use: a
// row group they fill concurrently and the writer commits.
type rowGroupBeginner interface {
	BeginRowGroup() *parquet.ConcurrentRowGroupWriter
}

// filter reads the task's row group and sends its kept rows as encoded
// row groups, until the end, the first error, or send returns false.
func (t *rowGroupTask) filter(w rowGroupBeginner, free chan *parquet.ConcurrentRowGroupWriter, rows []parquet.Row, send func(rowGroupPiece) bool) {
	defer func() { // parquet-go panics on some damaged files (see scanParquet)
		if r := recover(); r != nil {
			send(rowGroupPiece{err: fmt.Errorf("damaged Parquet file: %v", r)})
		}
	}()
	rr := t.rg.Rows()
	defer rr.Close()
	var cur *parquet.ConcurrentRowGroupWriter
	var pending int64 // rows in cur
	done := func() bool {
		if cur == nil || pending == 0 {
			return true
		}
		if err := cur.Flush(); err != nil {
			send(rowGroupPiece{err: err})
			return false
		}
		ok := send(rowGroupPiece{rg: cur, rows: pending})
		cur, pending = nil, 0
		return ok
	}
	seq := t.first
	for {
		k, rerr := rr.ReadRows(rows)
		kept := rows[:0:0]
		for i := range k {
			if j := seq - t.first; j < int64(len(t.keep)) && t.keep[j] {
				kept = append(kept, rows[i])
			}
			seq++
		}
		if len(kept) > 0 {
			if cur == nil {
				select {
				case cur = <-free:
				default:
					cur = w.BeginRowGroup()
				}
			}
			if _, err := cur.WriteRows(kept); err != nil {
				send(rowGroupPiece{err: fmt.Errorf("write row %d: %w", seq, err)})
				return
			}
			pending += int64(len(kept))
		}
		// An encoded row group is held in memory until it is committed:
		// bound it, so that memory does not grow with the file.
		if pending >= maxRowGroupRows && !done() {
			return
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			send(rowGroupPiece{err: fmt.Errorf("row %d: %w", seq, rerr)})
			return
		}
	}
	if seq-t.first != int64(len(t.keep)) {
		send(rowGroupPiece{err: fmt.Errorf("row group at row %d: read %d rows, its metadata says %d", t.first, seq-t.first, len(t.keep))})
		return
	}
	done()
}

// writeCaptionFolder writes caption.txt with the kept lines and img/ with
// their images.
func writeCaptionFolder(src Source, dst string, keep func(int64) bool) (int64, error) {
	imgDir := filepath.Join(src.Path, "img")
	files := map[string]string{}
	if entries, err := os.ReadDir(imgDir); err == nil {
		for _, en := range entries {
			if isImageName(en.Name()) && (en.Type().IsRegular() || en.Type()&os.ModeSymlink != 0) {
				files[stem(en.Name())] = en.Name()
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	if len(files) > 0 {
		if err := os.MkdirAll(filepath.Join(dst, "img"), 0o755); err != nil {
			return 0, err
		}
	}
	var copyErr error
	capSrc := src
	capSrc.Path = filepath.Join(src.Path, "caption.txt")
	// Its lines are copied: a caption.txt that is a link out of the
	// folder is refused like an image that is.
	if _, err := resolveInside(src.Path, capSrc.Path); err != nil {
		return 0, err
	}
	n, err := writeFileSubset(capSrc, Caption, filepath.Join(dst, "caption.txt"), keep, func(it Item) {
		name, ok := files[it.ID]
		if !ok || copyErr != nil {
			return
		}
		delete(files, it.ID) // an id listed twice has one image
		copyErr = copyInside(src.Path, filepath.Join(imgDir, name), filepath.Join(dst, "img", name))
	})
	if err == nil {
		err = copyErr
	}
	return n, err
}

// writeInkMLSubset copies the kept InkML files to their relative paths.
func writeInkMLSubset(src Source, dst string, keep func(int64) bool) (int64, error) {
	files, err := inkmlFiles(src.Path)
	if err != nil {
		return 0, err
	}
	var n int64
	for seq, p := range files {
		if !keep(int64(seq)) {
			continue
		}
		rel, err := filepath.Rel(src.Path, p)
		if err != nil || !filepath.IsLocal(rel) {
			return n, fmt.Errorf("%s: outside %s", p, src.Path)
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return n, err
		}
		if err := copyInside(src.Path, p, out); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// copyInside copies the file p, which must resolve (symbolic links
// followed) to a place inside root, to out.
func copyInside(root, p, out string) error {
	real, err := resolveInside(root, p)
	if err != nil {
		return err
	}
	return copyFile(real, out)
}

// resolveInside returns p with symbolic links followed, or an error when
// it leads out of root (links in root followed too).
func resolveInside(root, p string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s leads out of %s (to %s): not copied", p, root, real)
	}
	return real, nil
}

// WriteImageSubset writes the images of an image-only source (a folder of
// images, a zip or a tar archive) for which keep(seq) is true into dst, in
// the source's layout: a folder's kept files at their relative paths under
// dst, an archive as dst/<its base name> holding the kept image entries,
// their bytes unchanged (entries written with a fixed time, so that the
// same inputs give the same archive). Entries that are not images are not
// items and are not copied; an image the scan skips is never written, and
// an entry whose name would leave the archive's root is refused. It returns
// the number of images written.
func WriteImageSubset(src ImageSource, dst string, keep func(seq int64) bool) (n int64, err error) {
	fi, err := os.Stat(src.Path)
	if err != nil {
		return 0, err
	}
	lower := strings.ToLower(src.Path)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, err
	}
	var put func(it ImageItem) error
	var finish func() error
	switch {
	case fi.IsDir():
		put = func(it ImageItem) error {
			return copyInside(src.Path, filepath.Join(src.Path, filepath.FromSlash(it.Name)), mkdirFor(filepath.Join(dst, filepath.FromSlash(it.Name))))
		}
		finish = func() error { return nil }
	case strings.HasSuffix(lower, ".zip"):
		f, err := os.Create(filepath.Join(dst, filepath.Base(src.Path)))
		if err != nil {
			return 0, err
		}
		zw := zip.NewWriter(f)
		put = func(it ImageItem) error {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: it.Name, Method: zip.Deflate})
			if err == nil {
				_, err = w.Write(it.Data)
			}
			return err
		}
		finish = func() error {
			err := zw.Close()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
	case strings.HasSuffix(lower, ".tar"), strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		f, err := os.Create(filepath.Join(dst, filepath.Base(src.Path)))
		if err != nil {
			return 0, err
		}
		var w io.Writer = f
		var gz *gzip.Writer
		if !strings.HasSuffix(lower, ".tar") {
			gz = gzip.NewWriter(f)
			w = gz
		}
		tw := tar.NewWriter(w)
		put = func(it ImageItem) error {
			if err := tw.WriteHeader(&tar.Header{Name: it.Name, Mode: 0o644, Size: int64(len(it.Data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
				return err
			}
			_, err := tw.Write(it.Data)
			return err
		}
		finish = func() error {
			err := tw.Close()
			if gz != nil && err == nil {
				err = gz.Close()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
	default:
		return 0, fmt.Errorf("%s: not an image folder, zip or tar archive", src.Path)
	}
	src.OnSkip = nil
	st, err := ScanImages(src, func(it ImageItem) error {
		if !keep(it.Seq) {
			return nil
		}
		if !filepath.IsLocal(filepath.FromSlash(it.Name)) {
			return fmt.Errorf("%s: entry %q would leave the archive's root: not copied", src.Path, it.Name)
		}
		if err := put(it); err != nil {
			return err
		}
		n++
		return nil
	})
	if ferr := finish(); err == nil {
		err = ferr
	}
	if err == nil && st.FileError != "" {
		err = fmt.Errorf("%s was read only partly (%s): it cannot be rewritten faithfully", src.Path, st.FileError)
	}
	return n, err
}

// mkdirFor creates p's folder and returns p.
func mkdirFor(p string) string {
	os.MkdirAll(filepath.Dir(p), 0o755)
	return p
}

// copyFile copies the file p to out, which must not exist.
func copyFile(p, out string) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
