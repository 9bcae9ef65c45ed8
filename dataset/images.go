package dataset

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // JPEG decoder
	_ "image/png"  // PNG decoder
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	_ "golang.org/x/image/bmp" // 8-bit BMP decoder (CROHME originals)
)

// An ImageItem is one image of an image source, still encoded (or, for
// InkML, already rasterized) so that decoding can run on many cores.
type ImageItem struct {
	Seq      int64
	ID       string
	Label    string // the ground-truth label, when the source has one
	HasLabel bool
	Where    string      // file, archive entry or row
	Name     string      // the file's path in its folder or archive (folders, zip, tar)
	Data     []byte      // encoded image (PNG, BMP, JPEG)
	Image    image.Image // set instead of Data for rasterized InkML
}

// ImageLimits bound what is decoded, against decompression bombs and
// oversized files.
type ImageLimits struct {
	MaxBytes  int64 // encoded size of one image (default 32 MiB)
	MaxPixels int64 // width × height as declared in the header (default 40M)
	MaxSide   int   // either dimension (default 20,000)
	MaxItems  int64 // entries of one archive (default 500,000; an archive declaring more is refused before its directory is read)
}

// DefaultImageLimits are the limits used when a field is zero.
var DefaultImageLimits = ImageLimits{MaxBytes: 32 << 20, MaxPixels: 40_000_000, MaxSide: 20_000, MaxItems: 500_000}

func (l ImageLimits) or() ImageLimits {
	d := DefaultImageLimits
	if l.MaxBytes > 0 {
		d.MaxBytes = l.MaxBytes
	}
	if l.MaxPixels > 0 {
		d.MaxPixels = l.MaxPixels
	}
	if l.MaxSide > 0 {
		d.MaxSide = l.MaxSide
	}
	if l.MaxItems > 0 {
		d.MaxItems = l.MaxItems
	}
	return d
}

// Reasons an image is skipped.
const (
	ReasonImageTooLarge = "image too large"
	ReasonUndecodable   = "image cannot be decoded"
	ReasonUnreadable    = "image cannot be read"
)

// Decode decodes an item's image, checking the declared dimensions before
// allocating anything for the pixels.
func (it ImageItem) Decode(l ImageLimits) (image.Image, error) {
	if it.Image != nil {
		return it.Image, nil
	}
	l = l.or()
	if int64(len(it.Data)) > l.MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, limit %d", ReasonImageTooLarge, len(it.Data), l.MaxBytes)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(it.Data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ReasonUndecodable, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > l.MaxSide || cfg.Height > l.MaxSide || int64(cfg.Width)*int64(cfg.Height) > l.MaxPixels {
		return nil, fmt.Errorf("%s: %d×%d declared", ReasonImageTooLarge, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(it.Data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ReasonUndecodable, err)
	}
	return img, nil
}

// ImageSource names a set of images.
type ImageSource struct {
	// Path is a folder of images (a CROHME split folder with caption.txt
	// and img/ attaches labels by file stem), a zip or tar archive, a
	// Parquet file with an image struct column, or InkML files.
	Path   string
	Limits ImageLimits
	// Field is the label column of a Parquet source (default: the label
	// defaults); Column is its image struct (default "image").
	Field, Column string
	Ink           InkOptions
	// OnSkip, when set, is called for every image the scan skips.
	OnSkip func(Skip)
}

func isImageName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".bmp", ".jpg", ".jpeg":
		return true
	}
	return false
}

func stem(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }

// ScanImages calls fn for every image of src in a stable order.
func ScanImages(src ImageSource, fn func(ImageItem) error) (Stats, error) {
	st := Stats{}
	e := &emitter{stats: &st, onSkip: src.OnSkip}
	lim := src.Limits.or()
	fi, err := os.Stat(src.Path)
	if err != nil {
		return st, err
	}
	if !fi.IsDir() && fi.Size() == 0 {
		// A file of no bytes holds no image: empty, not damaged.
		return Stats{Empty: true}, nil
	}
	lower := strings.ToLower(src.Path)
	var ferr error
	switch {
	case fi.IsDir():
		if _, err := os.Stat(filepath.Join(src.Path, "caption.txt")); err == nil {
			st.Format = "crohme"
			ferr = scanCROHMEImages(src.Path, lim, e, fn)
		} else if f, _ := Detect(src.Path); f == InkML {
			st.Format = InkML
			ferr = scanInkImages(src, e, fn)
		} else {
			st.Format = "image-folder"
			ferr = scanImageFolder(src.Path, nil, lim, e, fn)
		}
	case strings.HasSuffix(lower, ".zip"):
		st.Format = "zip"
		ferr = scanZip(src.Path, lim, e, fn)
	case strings.HasSuffix(lower, ".tar"), strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		st.Format = "tar"
		ferr = scanTar(src.Path, lim, e, fn)
	case strings.HasSuffix(lower, ".parquet"):
		st.Format = Parquet
		ferr = scanParquetImages(src, lim, e, fn)
	case strings.HasSuffix(lower, ".inkml"):
		st.Format = InkML
		ferr = scanInkImages(src, e, fn)
	case isImageName(lower):
		st.Format = "image-file"
		ferr = scanImageFolder(filepath.Dir(src.Path), []string{filepath.Base(src.Path)}, lim, e, fn)
	default:
		return st, fmt.Errorf("%s: not an image folder, archive, Parquet or InkML source", src.Path)
	}
	if ferr == nil {
		st.markEmpty()
	}
	return st, e.finish(ferr)
}

func (e *emitter) deliverImage(fn func(ImageItem) error, it ImageItem) error {
	e.stats.Items++
	if err := fn(it); err != nil {
		return errStop{err}
	}
	return nil
}

// scanImageFolder walks dir (or only the given names) in lexical order.
func scanImageFolder(dir string, names []string, lim ImageLimits, e *emitter, fn func(ImageItem) error) error {
	if names == nil {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isImageName(p) {
				rel, _ := filepath.Rel(dir, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for seq, name := range names {
		it := ImageItem{Seq: int64(seq), ID: stem(name), Where: "file " + name, Name: name}
		if err := e.deliverFile(fn, it, filepath.Join(dir, filepath.FromSlash(name)), lim); err != nil {
			return err
		}
	}
	return nil
}

// deliverFile reads an image file (refusing one over the size limit, which
// is counted as skipped) into it and delivers it.
func (e *emitter) deliverFile(fn func(ImageItem) error, it ImageItem, path string, lim ImageLimits) error {
	data, err := readBounded(path, lim.MaxBytes)
	switch {
	case errors.Is(err, errTooLarge):
		e.skip(it.Seq, it.ID, it.Where, ReasonImageTooLarge+": "+err.Error())
		return nil
	case err != nil:
		e.skip(it.Seq, it.ID, it.Where, ReasonUnreadable+": "+err.Error())
		return nil
	}
	it.Data = data
	return e.deliverImage(fn, it)
}

// scanCROHMEImages reads a split folder: caption.txt names the items and
// gives their labels; img/<name>.(png|bmp|jpg) are the images.
func scanCROHMEImages(dir string, lim ImageLimits, e *emitter, fn func(ImageItem) error) error {
	var caps []Item
	cst, err := Scan(Source{Path: filepath.Join(dir, "caption.txt"), Format: Caption}, func(it Item) error {
		caps = append(caps, it)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range cst.Examples {
		e.skip(k.Seq, k.ID, "caption.txt "+k.Where, k.Reason)
	}
	imgDir := filepath.Join(dir, "img")
	entries, err := os.ReadDir(imgDir)
	if err != nil {
		return err
	}
	files := map[string]string{}
	for _, en := range entries {
		if isImageName(en.Name()) {
			files[stem(en.Name())] = en.Name()
		}
	}
	sort.Slice(caps, func(i, j int) bool { return caps[i].ID < caps[j].ID })
	for seq, c := range caps {
		it := ImageItem{Seq: int64(seq), ID: c.ID, Label: c.Label, HasLabel: true}
		name, ok := files[c.ID]
		if !ok {
			e.skip(it.Seq, it.ID, "img/", "no image for caption")
			continue
		}
		it.Where = "img/" + name
		if err := e.deliverFile(fn, it, filepath.Join(imgDir, name), lim); err != nil {
			return err
		}
	}
	return nil
}

func scanZip(p string, lim ImageLimits, e *emitter, fn func(ImageItem) error) error {
	// Refuse an archive that declares too many entries before Go's reader
	// allocates its whole directory.
	if n, err := zipDeclaredEntries(p); err == nil && n > uint64(lim.MaxItems) {
		return fmt.Errorf("archive declares %d entries, limit %d", n, lim.MaxItems)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		return fmt.Errorf("not a readable zip archive: %w", err)
	}
	defer zr.Close()
	if int64(len(zr.File)) > lim.MaxItems {
		return fmt.Errorf("archive has %d entries, limit %d", len(zr.File), lim.MaxItems)
	}
	files := append([]*zip.File(nil), zr.File...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var seq int64
	for _, f := range files {
		if f.FileInfo().IsDir() || !isImageName(f.Name) {
			continue
		}
		it := ImageItem{Seq: seq, ID: stem(f.Name), Where: "entry " + f.Name, Name: f.Name}
		seq++
		if f.UncompressedSize64 > uint64(lim.MaxBytes) {
			e.skip(it.Seq, it.ID, it.Where, ReasonImageTooLarge)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			e.skip(it.Seq, it.ID, it.Where, ReasonUndecodable+": "+err.Error())
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, lim.MaxBytes+1))
		rc.Close()
		switch {
		case err != nil:
			e.skip(it.Seq, it.ID, it.Where, ReasonUnreadable+": "+err.Error())
			continue
		case int64(len(data)) > lim.MaxBytes:
			e.skip(it.Seq, it.ID, it.Where, ReasonImageTooLarge)
			continue
		}
		it.Data = data
		if err := e.deliverImage(fn, it); err != nil {
			return err
		}
	}
	return nil
}

// scanTar reads a tar archive (optionally gzipped) in archive order.
func scanTar(p string, lim ImageLimits, e *emitter, fn func(ImageItem) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(strings.ToLower(p), "gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("not a gzip stream: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	tr := tar.NewReader(r)
	var seq, entries int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tar archive: %w; the rest was not read", err)
		}
		if entries++; entries > lim.MaxItems {
			return fmt.Errorf("archive has more than %d entries", lim.MaxItems)
		}
		if h.Typeflag != tar.TypeReg || !isImageName(h.Name) {
			continue
		}
		it := ImageItem{Seq: seq, ID: stem(h.Name), Where: "entry " + h.Name, Name: h.Name}
		seq++
		if h.Size > lim.MaxBytes {
			e.skip(it.Seq, it.ID, it.Where, ReasonImageTooLarge)
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("tar entry %s: %w", h.Name, err)
		}
		it.Data = data
		if err := e.deliverImage(fn, it); err != nil {
			return err
		}
	}
}

// scanParquetImages reads an image struct column {bytes, path} and, when
// present, a label column.
func scanParquetImages(src ImageSource, lim ImageLimits, e *emitter, fn func(ImageItem) error) (err error) {
	defer func() { // parquet-go panics on some damaged files (see scanParquet)
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged Parquet file: %v", r)
		}
	}()
	fh, err := os.Open(src.Path)
	if err != nil {
		return err
	}
	defer fh.Close()
	fi, _ := fh.Stat()
	pf, err := openParquet(fh, fi.Size())
	if err != nil {
		return fmt.Errorf("not a readable Parquet file: %w", err)
	}
	col := src.Column
	if col == "" {
		col = "image"
	}
	_, bleaf, err := lookupColumn(pf, col+".bytes", nil)
	if err != nil {
		return err
	}
	iter := func(leaf parquet.LeafColumn) *columnIter {
		return &columnIter{file: pf, col: leaf.ColumnIndex, maxDef: leaf.MaxDefinitionLevel, buf: make([]parquet.Value, 0, 64)}
	}
	data := iter(bleaf)
	defer data.close()
	var paths, labels *columnIter
	if _, pleaf, err := lookupColumn(pf, col+".path", nil); err == nil {
		paths = iter(pleaf)
		defer paths.close()
	}
	if name, lleaf, err := lookupColumn(pf, src.Field, defaultLabelFields); err == nil {
		labels = iter(lleaf)
		e.stats.Field = name
		defer labels.close()
	}
	for seq := int64(0); seq < pf.NumRows(); seq++ {
		it := ImageItem{Seq: seq, ID: strconv.FormatInt(seq, 10), Where: "row " + strconv.FormatInt(seq, 10)}
		b, null, err := data.next()
		if err != nil {
			return fmt.Errorf("row %d: %w", seq, err)
		}
		if paths != nil {
			if p, pnull, err := paths.next(); err == nil && !pnull && p != "" {
				it.ID = stem(p)
			}
		}
		if labels != nil {
			if l, lnull, err := labels.next(); err == nil && !lnull {
				it.Label, it.HasLabel = l, true
			}
		}
		if null || b == "" {
			e.skip(it.Seq, it.ID, it.Where, "no image bytes")
			continue
		}
		if int64(len(b)) > lim.MaxBytes {
			e.skip(it.Seq, it.ID, it.Where, ReasonImageTooLarge)
			continue
		}
		it.Data = []byte(b)
		if err := e.deliverImage(fn, it); err != nil {
			return err
		}
	}
	return nil
}

// zipDeclaredEntries reads the entry count an archive's end of central
// directory record declares (zip64 included), without reading the
// directory.
func zipDeclaredEntries(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	n := min(size, 22+65535) // the record and the longest comment
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil {
		return 0, err
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < 22 {
		return 0, errors.New("no end of central directory")
	}
	count := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
	if count != 0xFFFF || i < 20 || !bytes.Equal(buf[i-20:i-16], []byte("PK\x06\x07")) {
		return count, nil
	}
	// zip64: the locator points at the zip64 end record
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	rec := make([]byte, 56)
	if _, err := f.ReadAt(rec, off); err != nil || !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return count, nil
	}
	return binary.LittleEndian.Uint64(rec[32:]), nil
}
