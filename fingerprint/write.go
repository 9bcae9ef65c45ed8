package fingerprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/outpath"
)

// An Input is a corpus to fingerprint.
type Input struct {
	Name   string
	Source dataset.Source
	// SHA256 is the input's digest as checksum.Of computes it;
	// an image fingerprint records it, so that a test split that is this
	// very input is recognized as the corpus itself. Optional.
	SHA256 string
}

// Options configure Write.
type Options struct {
	Levels []canon.Level // the levels whose keys are digested
	// Salt, when set, is digested before every key (see the package
	// comment); the file records a check value of it, never the salt.
	Salt []byte
	// WithLabels adds the labels themselves: the file then reveals the
	// corpus.
	WithLabels bool
	// Partitions > 0 writes a folder of that many partitions
	// (part=NNN/data.parquet) by the first byte of the first level's
	// digest.
	Partitions int
	Tool       string // recorded in the metadata

	// Images fingerprints each input's images (one row per decodable
	// image, see the package comment) instead of its label records.
	Images bool
	// Hash, with Images, says how images are hashed; the zero value is
	// the near-duplicate search's default (pHash, stretch canvas, 64 px).
	Hash imagehash.Options
	// WithInk, with Images, keeps each image's normalized ink (column
	// image_ink, a 64×64 bitmap), so that neardup verifies candidates
	// against the file as it does against the images. The file then shows
	// every formula at 64×64, as WithLabels shows every label; without it
	// neardup verifies by the fine hash alone.
	WithInk     bool
	ImageLimits dataset.ImageLimits
	Workers     int // hashing goroutines (default: all cores)

	// Force replaces an existing out that is not a previous fingerprint
	// (see Write); it never allows writing over an input.
	Force bool
}

// InputResult says what was read of one input.
type InputResult struct {
	Name  string        `json:"name"`
	Path  string        `json:"path"`
	Rows  int64         `json:"rows"`
	Stats dataset.Stats `json:"stats"`
	// With Options.Images: the images hashed (rows with hashes) and the
	// blank ones (rows without); images that could not be decoded are in
	// Stats.Skipped with their reasons.
	Images int64 `json:"images,omitempty"`
	Blank  int64 `json:"blank,omitempty"`
}

// Result is what Write wrote.
type Result struct {
	Out    string   `json:"out"`
	Levels []string `json:"levels"`
	Salted bool     `json:"salted"`
	// ImageHash, for an image fingerprint, names the hash settings.
	ImageHash string        `json:"image_hash,omitempty"`
	Inputs    []InputResult `json:"inputs"`
	dataset.Completeness
}

// Write fingerprints every input into out: a Parquet file, or with
// Partitions a folder of them. The output is written beside out and
// renamed into place when complete; the same inputs give the same bytes.
//
// out is never one of the inputs (not even through a link or another
// path), never inside an input folder and never holds an input. An
// existing out is replaced only when it is a previous fingerprint (a file
// with fingerprint metadata, or a folder of such partitions), an empty
// folder for Partitions, or with Options.Force (see package outpath).
func Write(out string, inputs []Input, o Options) (*Result, error) {
	return WriteContext(context.Background(), out, inputs, o)
}

// WriteContext is Write, stopped when ctx is done: the partial output is
// removed and nothing is written to out.
func WriteContext(ctx context.Context, out string, inputs []Input, o Options) (*Result, error) {
	res, err := newResult(out, inputs, o)
	if err != nil {
		return nil, err
	}
	err = writeFile(out, inputs, o, res, ctx.Err, func(o Options, write func(Row) error) error {
		err := scanInputs(ctx, inputs, o, res, write)
		var pe *inputError
		if err != nil && ctx.Err() != nil && errors.As(err, &pe) {
			return fmt.Errorf("interrupted while reading %s: nothing was written to %s", pe.path, out)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// newResult checks the inputs' names and the levels, and returns the
// Result of writing them to out, with nothing read yet.
func newResult(out string, inputs []Input, o Options) (*Result, error) {
	if len(o.Levels) == 0 {
		return nil, fmt.Errorf("no level to fingerprint")
	}
	names := map[string]bool{}
	for _, in := range inputs {
		// A corpus's items are told apart by their positions in it.
		if names[in.Name] {
			return nil, fmt.Errorf("two inputs named %q: give each corpus its own name", in.Name)
		}
		names[in.Name] = true
	}
	res := &Result{Out: out, Salted: len(o.Salt) > 0}
	for _, l := range o.Levels {
		res.Levels = append(res.Levels, l.Name)
	}
	return res, nil
}

// writeFile writes the rows rows gives (to write, in order) to out, as
// Write describes: built beside out and installed when complete, never
// over an input. rows gets o with the image hash settings resolved and
// records what it read in res; interrupted, when it returns an error
// after the rows, leaves out as it was.
func writeFile(out string, inputs []Input, o Options, res *Result, interrupted func() error, rows func(o Options, write func(Row) error) error) error {
	if err := CheckOut(out, inputs, o); err != nil {
		return err
	}
	// The output is built in a folder of its own beside out (a name no
	// one else uses), removed whatever happens.
	tmpDir, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmpDir)
	if err := os.Chmod(tmpDir, 0o755); err != nil { // as a folder made by MkdirAll
		return err
	}
	tmp := tmpDir
	if o.Partitions == 0 {
		tmp = filepath.Join(tmpDir, filepath.Base(out))
	}
	w, err := newPartWriter(tmp, o)
	if err != nil {
		return err
	}
	if o.Images {
		if c := o.Hash.Canvas; c != "" { // "": the default, Stretch
			if _, err := imagehash.ParseCanvas(string(c)); err != nil {
				return err
			}
		}
		set := Settings(o.Hash)
		res.ImageHash = set.String()
		o.Hash = set.Options()
		w.sources = map[string]string{}
		for _, in := range inputs {
			if in.SHA256 != "" {
				w.sources[in.Name] = in.SHA256
			}
		}
		w.images = &set
	}
	if err := rows(o, w.write); err != nil {
		w.close()
		return err
	}
	if err := noRows(res.Inputs, inputs); err != nil {
		w.close()
		return err
	}
	if err := w.close(); err != nil {
		return err
	}
	if err := interrupted(); err != nil {
		return fmt.Errorf("interrupted: nothing was written to %s", out)
	}
	if err := outpath.Install(tmp, out); err != nil {
		return err
	}
	res.Done()
	return nil
}

// scanInputs reads every input in turn and hands its rows to write, in
// input order, recording what was read in res. o is Write's options,
// the image hash settings already resolved. An input that cannot be read
// (or a ctx done while reading it) is an *inputError.
func scanInputs(ctx context.Context, inputs []Input, o Options, res *Result, write func(Row) error) error {
	var err error
	for _, in := range inputs {
		ir := InputResult{Name: in.Name, Path: in.Source.Path}
		var st dataset.Stats
		if o.Images {
			src := dataset.ImageSource{Path: in.Source.Path, Field: in.Source.Field, Limits: o.ImageLimits}
			st, ir.Images, err = imagehash.Scan(ctx, src, o.Hash, o.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
				r := Row{Corpus: in.Name, ID: it.ID, Seq: it.Seq, Tokens: -1}
				if it.HasLabel {
					r.setLabel(it.Label, o)
				}
				r.setImage(fp, o)
				if fp.Blank {
					ir.Blank++
				}
				ir.Rows++
				return write(r)
			})
			ir.Images -= ir.Blank
		} else {
			// Rows are computed on every core (the token count runs the
			// CDM tokenizer) and written in input order.
			st, err = dataset.ScanMapped(ctx, in.Source, o.Workers, func(it dataset.Item) Row {
				r := Row{Corpus: in.Name, ID: it.ID, Seq: it.Seq, Tokens: -1}
				r.setLabel(it.Label, o)
				return r
			}, func(_ dataset.Item, r Row) error {
				ir.Rows++
				return write(r)
			})
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return &inputError{in.Source.Path, err}
		}
		ir.Stats = st
		res.Check("input "+in.Name, in.Source.Path, st)
		res.Inputs = append(res.Inputs, ir)
	}
	return nil
}

// inputError is an input that could not be read to its end.
type inputError struct {
	path string
	err  error
}

func (e *inputError) Error() string { return e.path + ": " + e.err.Error() }

func (e *inputError) Unwrap() error { return e.err }

// noRows is the error of a fingerprint with no row at all, saying for each
// input why it gave none.
func noRows(res []InputResult, inputs []Input) error {
	var why []string
	for i, r := range res {
		if r.Rows > 0 {
			return nil
		}
		w := r.Stats.NoItems(inputs[i].Source.Field)
		if w == "" {
			w = "no row was written"
		}
		why = append(why, fmt.Sprintf("input %s (%s): %s", r.Name, r.Path, w))
	}
	return fmt.Errorf("no item to fingerprint: %s", strings.Join(why, "; "))
}

// setLabel sets the row's token count and keys (and label, if asked for).
func (r *Row) setLabel(label string, o Options) {
	var buf [8]canon.Digest // as many as there are levels: no allocation
	var ds []canon.Digest
	if len(o.Levels) <= len(buf) {
		ds = buf[:len(o.Levels)]
	} else {
		ds = make([]canon.Digest, len(o.Levels))
	}
	if n, ok := canon.Digests(label, o.Levels, o.Salt, ds); ok {
		r.Tokens = int32(n)
	}
	for i, l := range o.Levels {
		r.setKey(l.ID, ds[i])
	}
	if o.WithLabels {
		r.Label = &label
	}
}

// partWriter writes rows to one file, or to partitions opened as rows
// arrive.
type partWriter struct {
	out     string
	o       Options
	parts   map[int]*fileWriter
	images  *ImageSettings    // recorded for an image fingerprint
	sources map[string]string // likewise
}

type fileWriter struct {
	f   *os.File
	w   *parquet.GenericWriter[Row]
	buf []Row // rows not yet handed to w: the writer costs less per row in batches
	// iw, for an image fingerprint, writes the rows with their ink
	// column instead of w.
	iw   *parquet.GenericWriter[imageRow]
	ibuf []imageRow
}

const (
	// rowBatch is how many rows a file writer collects before writing them.
	rowBatch = 4096
	// defaultRowGroupRows bounds a row group (the writer's
	// MaxRowsPerRowGroup): the writer keeps the current one in memory
	// until it is flushed, so without a bound an 80M-row file held
	// gigabytes.
	defaultRowGroupRows = 1 << 20
)

// rowGroupRows is defaultRowGroupRows, smaller in tests.
var rowGroupRows = defaultRowGroupRows

func (fw *fileWriter) flush() error {
	if len(fw.buf) == 0 {
		return nil
	}
	var err error
	if fw.iw != nil {
		fw.ibuf = fw.ibuf[:0]
		for _, r := range fw.buf {
			fw.ibuf = append(fw.ibuf, imageRowOf(r))
		}
		_, err = fw.iw.Write(fw.ibuf)
		clear(fw.ibuf)
	} else {
		_, err = fw.w.Write(fw.buf)
	}
	clear(fw.buf)
	fw.buf = fw.buf[:0]
	return err
}

func newPartWriter(out string, o Options) (*partWriter, error) {
	pw := &partWriter{out: out, o: o, parts: map[int]*fileWriter{}}
	if o.Partitions > 0 {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
	}
	return pw, nil
}

func (pw *partWriter) write(r Row) error {
	part := 0
	path := pw.out
	if n := pw.o.Partitions; n > 0 {
		// By the first level's digest; an image without a label by its
		// hash's top byte.
		d, ok := r.Key(pw.o.Levels[0].ID)
		switch {
		case ok:
			part = int(d[0]) % n
		case r.ImageHash != nil:
			part = int(uint64(*r.ImageHash)>>56) % n
		}
		path = filepath.Join(pw.out, fmt.Sprintf("part=%03d", part), "data.parquet")
	}
	fw := pw.parts[part]
	if fw == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		meta := []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(int64(rowGroupRows)),
			parquet.KeyValueMetadata(MetaFormat, Format), parquet.KeyValueMetadata(MetaTool, pw.o.Tool),
			parquet.KeyValueMetadata(MetaHash, Hash), parquet.KeyValueMetadata(MetaLevels, levelsString(pw.o.Levels))}
		if c := SaltCheck(pw.o.Salt); c != "" {
			meta = append(meta, parquet.KeyValueMetadata(MetaSaltCheck, c))
		}
		if pw.images != nil {
			src, err := json.Marshal(pw.sources) // keys sorted: deterministic
			if err != nil {
				return err
			}
			meta = append(meta, parquet.KeyValueMetadata(MetaImages, pw.images.String()),
				parquet.KeyValueMetadata(MetaSources, string(src)))
		}
		fw = &fileWriter{f: f}
		if pw.images != nil {
			fw.iw = parquet.NewGenericWriter[imageRow](f, meta...)
		} else {
			fw.w = parquet.NewGenericWriter[Row](f, meta...)
		}
		pw.parts[part] = fw
	}
	fw.buf = append(fw.buf, r)
	if len(fw.buf) < rowBatch {
		return nil
	}
	return fw.flush()
}

func (pw *partWriter) close() error {
	var first error
	for _, fw := range pw.parts {
		if err := fw.flush(); err != nil && first == nil {
			first = err
		}
		var err error
		if fw.iw != nil {
			err = fw.iw.Close()
		} else {
			err = fw.w.Close()
		}
		if err != nil && first == nil {
			first = err
		}
		if err := fw.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	if len(pw.parts) == 0 && first == nil {
		first = fmt.Errorf("no item to fingerprint")
	}
	return first
}

// CheckOut says whether Write may write out for these inputs (see Write),
// before anything is read; a command calls it to refuse early.
func CheckOut(out string, inputs []Input, o Options) error {
	var paths []string
	for _, in := range inputs {
		paths = append(paths, in.Source.Path)
	}
	return outpath.Check(outpath.Output{Flag: "--out", Path: out, Dir: o.Partitions > 0, Inputs: paths, Force: o.Force,
		What: "a fingerprint", Previous: isPrevious})
}

// isPrevious recognizes a fingerprint Write made: a Parquet file with
// fingerprint metadata, or a folder holding only partitions
// (part=NNN/data.parquet) that are.
func isPrevious(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		_, ok, _ := readMeta(path)
		return ok
	}
	parts, err := os.ReadDir(path)
	if err != nil || len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !p.IsDir() || !partName.MatchString(p.Name()) {
			return false
		}
		inside, err := os.ReadDir(filepath.Join(path, p.Name()))
		if err != nil || len(inside) != 1 || inside[0].Name() != "data.parquet" || !inside[0].Type().IsRegular() {
			return false
		}
		if _, ok, _ := readMeta(filepath.Join(path, p.Name(), "data.parquet")); !ok {
			return false
		}
	}
	return true
}

// partName is the name of a partition folder.
var partName = regexp.MustCompile(`^part=[0-9]{3,}$`)
