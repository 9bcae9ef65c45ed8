// Package fingerprint writes and reads fingerprints: a corpus's canonical
// keys, digested, in place of its labels, so that an author can let others
// check a test set against a private training corpus without releasing it.
//
// A fingerprint file is a Parquet file with one row per item: the corpus,
// the item's id and position, its token count at the tokens level, and for
// each canonical level asked for the 128-bit digest of its key
// (canon.DigestOf: the first 16 bytes of SHA-256, of an optional salt
// followed by the key). Labels are left out unless asked for. The file's
// key-value metadata records the format, the leakaudit version, the hash,
// each level's rules version and, for a salted file, a check value of the
// salt (never the salt): a fingerprint made under other rules, or read
// with another salt, is refused with a message that says which.
//
// What publishing fingerprints reveals: anyone can test whether a label
// they can guess is in the corpus (short formulas are easy to guess: x^2
// is), but cannot read labels they cannot guess. A salt shared with one
// reviewer limits even the guessing to that reviewer.
//
// A fingerprint is accepted wherever a training corpus is (package index
// reads it through Scan); counts and matched ids are those of the corpus
// itself. With Options.Partitions, the output is a hive-style folder of
// Parquet files partitioned by the first byte of a key's digest, which
// query engines read in parallel.
//
// # Image fingerprints
//
// With Options.Images the rows are a corpus's images instead of its label
// records (image folders, caption folders with img/, zip and tar archives,
// Parquet image structs, InkML strokes rasterized): each decodable image's
// fingerprint as the near-duplicate search computes it (imagehash.Compute:
// the 64-bit perceptual hash the Hamming index searches, the 256-bit
// difference hash and the digest of the normalized pixels that verify a
// candidate pair), its decoded size, and, for an image with a label, the
// label's keys. An image that cannot be decoded is counted with its reason
// and gets no row; a blank image (no ink) gets a row marked blank with no
// hashes, as it never matches. The metadata records the hash settings,
// imagehash.Version and the image canary (ImageCanary: a file hashed by
// code that hashes the canary differently is refused), and, per corpus, the SHA-256 of the input it was made
// from (checksum.Of), so that a test split that is the
// fingerprinted corpus itself is compared with it as with itself.
//
// Verification needs no pixels: a pair found in a fingerprint is verified
// (fine hash) and marked identical (pixel digest) exactly as a pair found
// in the images; only the evidence images of a gallery are missing. The
// image hashes are not salted (they are compared by distance, not
// equality): they reveal a coarse outline of each image, the signs of a
// 16×16 grid of brightness differences, and let anyone holding an image
// test whether it, or a near copy, is in the corpus.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// Format is the fingerprint format's version, in the metadata under
// MetaFormat.
const Format = "1"

// Metadata keys of a fingerprint file.
const (
	MetaFormat    = "leakaudit.fingerprint"
	MetaTool      = "leakaudit.tool"
	MetaHash      = "leakaudit.hash"
	MetaLevels    = "leakaudit.levels"     // "ws:2,tokens:2": name and rules version of each level
	MetaSaltCheck = "leakaudit.salt_check" // hex digest of the salt, for a salted file
	MetaImages    = "leakaudit.images"     // "kind=phash canvas=stretch size=64 version=5 canary=HEX", for an image fingerprint
	MetaSources   = "leakaudit.sources"    // JSON object: corpus → SHA-256 of its input, for an image fingerprint
)

// Hash names the digest: canon.DigestOf.
const Hash = "sha256-128"

// A Row is one item's fingerprint. A key column is null when its level was
// not asked for.
type Row struct {
	Corpus string `parquet:"corpus"`
	ID     string `parquet:"id"`
	Seq    int64  `parquet:"seq"`
	// Tokens is the label's token count at the tokens level, -1 when the
	// tokenizer rejects it.
	Tokens    int32   `parquet:"tokens"`
	KeyRaw    []byte  `parquet:"key_raw,optional"`
	KeyAudit  []byte  `parquet:"key_audit,optional"`
	KeyWS     []byte  `parquet:"key_ws,optional"`
	KeyTokens []byte  `parquet:"key_tokens,optional"`
	KeyRender []byte  `parquet:"key_render,optional"`
	Label     *string `parquet:"label,optional"` // only with Options.WithLabels

	// The image columns, in an image fingerprint's rows (null otherwise,
	// and null but image_blank for an image without ink). image_hash is
	// the perceptual hash's 64 bits as a signed integer, image_fine0..3
	// the 256-bit difference hash in four such words, image_digest the
	// 16-byte digest of the normalized pixels.
	ImageHash   *int64 `parquet:"image_hash,optional"`
	ImageFine0  *int64 `parquet:"image_fine0,optional"`
	ImageFine1  *int64 `parquet:"image_fine1,optional"`
	ImageFine2  *int64 `parquet:"image_fine2,optional"`
	ImageFine3  *int64 `parquet:"image_fine3,optional"`
	ImageDigest []byte `parquet:"image_digest,optional"`
	ImageBlank  *bool  `parquet:"image_blank,optional"`
	ImageWidth  *int32 `parquet:"image_width,optional"`
	ImageHeight *int32 `parquet:"image_height,optional"`
	// ImageInk is the normalized ink (imagehash.Ink.Bytes, 512 bytes),
	// which verifies a candidate pair; nil for a blank image. It is the
	// column image_ink of an image fingerprint (imageRow), absent from a
	// label fingerprint's schema.
	ImageInk []byte `parquet:"-"`
}

// imageRow is a row of an image fingerprint: Row's columns, in its
// order, and the ink column. (An embedded Row reads its optional columns
// wrongly, so the fields are spelt out; TestImageRowMatchesRow keeps them
// in step with Row.)
type imageRow struct {
	Corpus      string  `parquet:"corpus"`
	ID          string  `parquet:"id"`
	Seq         int64   `parquet:"seq"`
	Tokens      int32   `parquet:"tokens"`
	KeyRaw      []byte  `parquet:"key_raw,optional"`
	KeyAudit    []byte  `parquet:"key_audit,optional"`
	KeyWS       []byte  `parquet:"key_ws,optional"`
	KeyTokens   []byte  `parquet:"key_tokens,optional"`
	KeyRender   []byte  `parquet:"key_render,optional"`
	Label       *string `parquet:"label,optional"`
	ImageHash   *int64  `parquet:"image_hash,optional"`
	ImageFine0  *int64  `parquet:"image_fine0,optional"`
	ImageFine1  *int64  `parquet:"image_fine1,optional"`
	ImageFine2  *int64  `parquet:"image_fine2,optional"`
	ImageFine3  *int64  `parquet:"image_fine3,optional"`
	ImageDigest []byte  `parquet:"image_digest,optional"`
	ImageBlank  *bool   `parquet:"image_blank,optional"`
	ImageWidth  *int32  `parquet:"image_width,optional"`
	ImageHeight *int32  `parquet:"image_height,optional"`
	ImageInk    []byte  `parquet:"image_ink,optional"`
}

// imageRowOf is r as an image fingerprint's row.
func imageRowOf(r Row) imageRow {
	return imageRow(r) // the same fields; only the ink's tag differs
}

// row is the Row an image fingerprint's row reads as.
func (r imageRow) row() Row {
	return Row(r)
}

// Image returns the row's image hashes, and whether the row has them
// (a blank image has them, with Blank set and no hash values).
func (r *Row) Image() (imagehash.Hashes, bool) {
	var fp imagehash.Hashes
	if r.ImageWidth != nil && r.ImageHeight != nil {
		fp.Width, fp.Height = int(*r.ImageWidth), int(*r.ImageHeight)
	}
	if r.ImageBlank != nil && *r.ImageBlank {
		fp.Blank = true
		return fp, true
	}
	fine := []*int64{r.ImageFine0, r.ImageFine1, r.ImageFine2, r.ImageFine3}
	if r.ImageHash == nil || len(r.ImageDigest) != len(fp.Digest) {
		return fp, false
	}
	for i, f := range fine {
		if f == nil {
			return fp, false
		}
		fp.Fine[i] = uint64(*f)
	}
	fp.Hash = uint64(*r.ImageHash)
	copy(fp.Digest[:], r.ImageDigest)
	if k, ok := imagehash.InkFromBytes(r.ImageInk); ok {
		fp.Ink = k
	}
	return fp, true
}

// setImage sets the row's image columns from fp: its size, whether it is
// blank, its hashes and pixel digest, and with o.WithInk its normalized
// ink (the ink is never set otherwise).
func (r *Row) setImage(fp imagehash.Hashes, o Options) {
	w, h := int32(fp.Width), int32(fp.Height)
	r.ImageWidth, r.ImageHeight = &w, &h
	blank := fp.Blank
	r.ImageBlank = &blank
	if blank {
		return
	}
	word := func(x uint64) *int64 { v := int64(x); return &v }
	r.ImageHash = word(fp.Hash)
	r.ImageFine0, r.ImageFine1 = word(fp.Fine[0]), word(fp.Fine[1])
	r.ImageFine2, r.ImageFine3 = word(fp.Fine[2]), word(fp.Fine[3])
	r.ImageDigest = append([]byte(nil), fp.Digest[:]...)
	if o.WithInk && !fp.Ink.IsZero() {
		r.ImageInk = fp.Ink.Bytes()
	}
}

// Key returns the row's digest at a level, and whether the row has one.
func (r *Row) Key(id canon.LevelID) (canon.Digest, bool) {
	var b []byte
	switch id {
	case canon.Raw:
		b = r.KeyRaw
	case canon.Audit:
		b = r.KeyAudit
	case canon.WS:
		b = r.KeyWS
	case canon.Tokens:
		b = r.KeyTokens
	case canon.Render:
		b = r.KeyRender
	}
	var d canon.Digest
	if len(b) != len(d) {
		return d, false
	}
	copy(d[:], b)
	return d, true
}

func (r *Row) setKey(id canon.LevelID, d canon.Digest) {
	b := append([]byte(nil), d[:]...)
	switch id {
	case canon.Raw:
		r.KeyRaw = b
	case canon.Audit:
		r.KeyAudit = b
	case canon.WS:
		r.KeyWS = b
	case canon.Tokens:
		r.KeyTokens = b
	case canon.Render:
		r.KeyRender = b
	}
}

// SaltCheck is the value recorded for a salt: a digest that tells whether
// a reader has the same salt without revealing it.
func SaltCheck(salt []byte) string {
	if len(salt) == 0 {
		return ""
	}
	sum := sha256.Sum256(append([]byte("leakaudit salt check\x00"), salt...))
	return hex.EncodeToString(sum[:8])
}

// Meta is what a fingerprint's metadata says.
type Meta struct {
	Tool      string
	Levels    map[string]int // level name → rules version
	SaltCheck string
	// Images, for an image fingerprint: the hash settings.
	Images *ImageSettings
	// Sources, for an image fingerprint: each corpus's input's SHA-256
	// (as checksum.Of computes it), when it was known.
	Sources map[string]string
}

// ImageSettings are the hash settings an image fingerprint was made with.
type ImageSettings struct {
	Kind    imagehash.Kind
	Canvas  imagehash.Canvas
	Size    int
	Version int // imagehash.Version
	// Canary is ImageCanary of the code that hashed the images: code
	// that hashes differently under the same Version gives other pairs.
	// Empty in a file made before it was recorded.
	Canary string
}

// Settings returns the settings images hashed with o are recorded under:
// phash on the stretch canvas of 64 pixels unless o says otherwise (the
// near-duplicate search's defaults), this imagehash.Version and this
// build's ImageCanary.
func Settings(o imagehash.Options) ImageSettings {
	s := ImageSettings{Kind: o.Kind, Canvas: o.Canvas, Size: o.Size, Version: imagehash.Version, Canary: ImageCanary()}
	if s.Kind == "" {
		s.Kind = imagehash.PHash
	}
	if s.Canvas == "" {
		s.Canvas = imagehash.Stretch
	}
	if s.Size <= 0 {
		s.Size = 64
	}
	return s
}

// Options returns the hash options of these settings.
func (s ImageSettings) Options() imagehash.Options {
	return imagehash.Options{Kind: s.Kind, Canvas: s.Canvas, Size: s.Size}
}

// String renders the settings as the metadata records them (MetaImages).
func (s ImageSettings) String() string {
	v := fmt.Sprintf("kind=%s canvas=%s size=%d version=%d", s.Kind, s.Canvas, s.Size, s.Version)
	if s.Canary != "" {
		v += " canary=" + s.Canary
	}
	return v
}

// hashSettings is s without its canary: the settings a search chooses.
func (s ImageSettings) hashSettings() ImageSettings {
	s.Canary = ""
	return s
}

func sameImages(a, b *ImageSettings) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func parseImageSettings(v string) (ImageSettings, error) {
	var s ImageSettings
	for _, f := range strings.Fields(v) {
		k, val, _ := strings.Cut(f, "=")
		var err error
		switch k {
		case "kind":
			s.Kind, err = imagehash.ParseKind(val)
		case "canvas":
			s.Canvas, err = imagehash.ParseCanvas(val)
		case "size":
			s.Size, err = strconv.Atoi(val)
		case "version":
			s.Version, err = strconv.Atoi(val)
		case "canary":
			s.Canary = val
		}
		if err != nil {
			return s, err
		}
	}
	if s.Kind == "" || s.Canvas == "" || s.Size <= 0 || s.Version <= 0 {
		return s, fmt.Errorf("incomplete image settings %q", v)
	}
	return s, nil
}

// CheckImages refuses an image fingerprint that cannot stand in for its
// images under the settings of o (Settings(o)): no image columns, another
// hash or canvas, or another imagehash.Version.
func (m Meta) CheckImages(o imagehash.Options) error {
	want := Settings(o)
	switch {
	case m.Images == nil:
		return errors.New("it holds no image hashes; make it with fingerprint --images")
	case m.Images.Version != want.Version:
		return fmt.Errorf("its images were hashed by imagehash version %d, this leakaudit's is version %d (made by %s); make it again with this version", m.Images.Version, want.Version, m.Tool)
	case m.Images.hashSettings() != want.hashSettings():
		return setting.Errorf("its images were hashed with %s, this search uses %s; search with its settings (%s, %s) or make it again", m.Images.hashSettings(), want.hashSettings(), setting.Hash, setting.Canvas)
	case m.Images.Canary == "":
		return fmt.Errorf("its images were hashed by a leakaudit that recorded no image canary (made by %s); make it again with this version", m.Tool)
	case m.Images.Canary != want.Canary:
		return fmt.Errorf("its images were hashed by code that hashes the canary images differently from this leakaudit (canary %.12s…, this leakaudit's %.12s…; made by %s), though under the same imagehash version %d: its pairs would differ; make it again with this version", m.Images.Canary, want.Canary, m.Tool, want.Version)
	}
	return nil
}

// levelsString renders levels as the metadata records them.
func levelsString(levels []canon.Level) string {
	var parts []string
	for _, l := range levels {
		parts = append(parts, l.Name+":"+strconv.Itoa(l.Version))
	}
	return strings.Join(parts, ",")
}

// Check refuses a fingerprint that cannot stand in for its corpus at the
// given levels: a level it does not hold, a level made under other rules,
// or a salt other than the reader's.
func (m Meta) Check(levels []canon.Level, salt []byte) error {
	for _, l := range levels {
		v, ok := m.Levels[l.Name]
		switch {
		case !ok:
			return fmt.Errorf("it holds no %s keys (it has %s); make it again with --level %s", l.Name, m.levelNames(), l.Name)
		case v != l.Version:
			return fmt.Errorf("its %s keys were made under rules version %d, this leakaudit's are version %d (made by %s); make it again with this version", l.Name, v, l.Version, m.Tool)
		}
	}
	switch {
	case m.SaltCheck != "" && len(salt) == 0:
		return setting.Errorf("it is salted: give the salt it was made with (%s)", setting.Salt)
	case m.SaltCheck == "" && len(salt) > 0:
		return errors.New("it is not salted, but a salt was given")
	case m.SaltCheck != SaltCheck(salt):
		return errors.New("it was made with another salt")
	}
	return nil
}

func (m Meta) levelNames() string {
	var names []string
	for n := range m.Levels {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// files lists the Parquet files of a fingerprint: the file itself, or the
// *.parquet files of a partitioned folder in path order.
func files(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return err
	})
	sort.Strings(out)
	return out, err
}

// readMeta reads one file's fingerprint metadata; ok is false when the
// file is not a fingerprint.
func readMeta(path string) (m Meta, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return m, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return m, false, err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return m, false, nil // not Parquet: not a fingerprint
	}
	if v, _ := pf.Lookup(MetaFormat); v == "" {
		return m, false, nil
	} else if v != Format {
		return m, true, fmt.Errorf("%s: fingerprint format %s, this leakaudit reads format %s", path, v, Format)
	}
	if h, _ := pf.Lookup(MetaHash); h != Hash {
		return m, true, fmt.Errorf("%s: fingerprint hash %q, this leakaudit uses %q", path, h, Hash)
	}
	m.Tool, _ = pf.Lookup(MetaTool)
	m.SaltCheck, _ = pf.Lookup(MetaSaltCheck)
	m.Levels = map[string]int{}
	lv, _ := pf.Lookup(MetaLevels)
	for _, part := range strings.Split(lv, ",") {
		name, ver, found := strings.Cut(part, ":")
		n, err := strconv.Atoi(ver)
		if !found || err != nil {
			return m, true, fmt.Errorf("%s: malformed %s metadata %q", path, MetaLevels, lv)
		}
		m.Levels[name] = n
	}
	if v, ok := pf.Lookup(MetaImages); ok {
		set, err := parseImageSettings(v)
		if err != nil {
			return m, true, fmt.Errorf("%s: malformed %s metadata: %v", path, MetaImages, err)
		}
		m.Images = &set
	}
	if v, ok := pf.Lookup(MetaSources); ok && v != "" {
		if err := json.Unmarshal([]byte(v), &m.Sources); err != nil {
			return m, true, fmt.Errorf("%s: malformed %s metadata: %v", path, MetaSources, err)
		}
	}
	return m, true, nil
}

// Is reports whether path is a fingerprint file or a folder of one's
// partitions.
func Is(path string) bool {
	fs, err := files(path)
	if err != nil || len(fs) == 0 {
		return false
	}
	_, ok, _ := readMeta(fs[0])
	return ok
}

// Open reads a fingerprint's metadata (every partition must agree).
func Open(path string) (Meta, error) {
	fs, err := files(path)
	if err != nil {
		return Meta{}, err
	}
	if len(fs) == 0 {
		return Meta{}, fmt.Errorf("%s: no Parquet file", path)
	}
	var first Meta
	for i, p := range fs {
		m, ok, err := readMeta(p)
		if err != nil {
			return Meta{}, err
		}
		if !ok {
			return Meta{}, fmt.Errorf("%s: not a leakaudit fingerprint (no %s metadata)", p, MetaFormat)
		}
		if i == 0 {
			first = m
		} else if m.SaltCheck != first.SaltCheck || fmt.Sprint(m.Levels) != fmt.Sprint(first.Levels) ||
			!sameImages(m.Images, first.Images) || fmt.Sprint(m.Sources) != fmt.Sprint(first.Sources) {
			return Meta{}, fmt.Errorf("%s: partition made under other settings than %s", p, fs[0])
		}
	}
	return first, nil
}

// Scan calls fn for every row of a fingerprint file or folder, in file and
// row order. The stats count the rows as items.
func Scan(path string, fn func(Row) error) (dataset.Stats, error) {
	st := dataset.Stats{Format: "fingerprint"}
	fs, err := files(path)
	if err != nil {
		return st, err
	}
	buf := make([]Row, 1024)
	for _, p := range fs {
		f, err := os.Open(p)
		if err != nil {
			return st, err
		}
		if err := scanFile(p, f, buf, &st, fn); err != nil {
			return st, err
		}
	}
	return st, nil
}

// hasInkColumn reports whether an open fingerprint file has the ink
// column of an image fingerprint (false when its footer cannot be read:
// the reader then reports why).
func hasInkColumn(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return false
	}
	_, ok := pf.Schema().Lookup("image_ink")
	return ok
}

// scanFile calls fn for every row of one open fingerprint file, reading
// an image fingerprint's ink column too, and closes it.
func scanFile(p string, f *os.File, buf []Row, st *dataset.Stats, fn func(Row) error) error {
	defer f.Close()
	var r *parquet.GenericReader[Row]
	var ir *parquet.GenericReader[imageRow]
	var ibuf []imageRow
	if hasInkColumn(f) {
		ir = parquet.NewGenericReader[imageRow](f)
		ibuf = make([]imageRow, len(buf))
		defer ir.Close()
	} else {
		r = parquet.NewGenericReader[Row](f)
		defer r.Close()
	}
	for {
		var n int
		var err error
		if ir != nil {
			clear(ibuf)
			n, err = ir.Read(ibuf)
			for i := range n {
				buf[i] = ibuf[i].row()
			}
		} else {
			n, err = r.Read(buf)
		}
		for i := range n {
			st.Items++
			if ferr := fn(buf[i]); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				st.FileError = fmt.Sprintf("%s: %v; the rest of the file was not read", p, err)
			}
			return nil
		}
	}
}
