package fingerprint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// An Input is a corpus to fingerprint.
type Input struct {
	Name   string
	Source dataset.Source
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
}

// InputResult says what was read of one input.
type InputResult struct {
	Name  string        `json:"name"`
	Path  string        `json:"path"`
	Rows  int64         `json:"rows"`
	Stats dataset.Stats `json:"stats"`
}

// Result is what Write wrote.
type Result struct {
	Out    string        `json:"out"`
	Levels []string      `json:"levels"`
	Salted bool          `json:"salted"`
	Inputs []InputResult `json:"inputs"`
	dataset.Completeness
}

// Write fingerprints every input into out: a Parquet file, or with
// Partitions a folder of them. The output is written beside out and
// renamed into place when complete; the same inputs give the same bytes.
func Write(out string, inputs []Input, o Options) (*Result, error) {
	if len(o.Levels) == 0 {
		return nil, fmt.Errorf("no level to fingerprint")
	}
	res := &Result{Out: out, Salted: len(o.Salt) > 0}
	for _, l := range o.Levels {
		res.Levels = append(res.Levels, l.Name)
	}
	tmp := out + ".tmp"
	os.RemoveAll(tmp)
	w, err := newPartWriter(tmp, o)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, in := range inputs {
		ir := InputResult{Name: in.Name, Path: in.Source.Path}
		st, err := dataset.Scan(in.Source, func(it dataset.Item) error {
			r := Row{Corpus: in.Name, ID: it.ID, Seq: it.Seq, Tokens: -1}
			if k, err := canon.CanonTokens(it.Label); err == nil {
				r.Tokens = int32(len(strings.Fields(k)))
			}
			for _, l := range o.Levels {
				k, _ := l.Canon(it.Label)
				r.setKey(l.ID, canon.DigestOf(k, o.Salt))
			}
			if o.WithLabels {
				label := it.Label
				r.Label = &label
			}
			ir.Rows++
			return w.write(r)
		})
		if err != nil {
			w.close()
			return nil, fmt.Errorf("%s: %w", in.Source.Path, err)
		}
		ir.Stats = st
		res.Check("input "+in.Name, in.Source.Path, st)
		res.Inputs = append(res.Inputs, ir)
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	os.RemoveAll(out)
	if err := os.Rename(tmp, out); err != nil {
		return nil, err
	}
	res.Done()
	return res, nil
}

// partWriter writes rows to one file, or to partitions opened as rows
// arrive.
type partWriter struct {
	out   string
	o     Options
	parts map[int]*fileWriter
}

type fileWriter struct {
	f *os.File
	w *parquet.GenericWriter[Row]
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
		d, _ := r.Key(pw.o.Levels[0].ID)
		part = int(d[0]) % n
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
		meta := []parquet.WriterOption{parquet.Compression(&parquet.Zstd),
			parquet.KeyValueMetadata(MetaFormat, Format), parquet.KeyValueMetadata(MetaTool, pw.o.Tool),
			parquet.KeyValueMetadata(MetaHash, Hash), parquet.KeyValueMetadata(MetaLevels, levelsString(pw.o.Levels))}
		if c := SaltCheck(pw.o.Salt); c != "" {
			meta = append(meta, parquet.KeyValueMetadata(MetaSaltCheck, c))
		}
		fw = &fileWriter{f: f, w: parquet.NewGenericWriter[Row](f, meta...)}
		pw.parts[part] = fw
	}
	_, err := fw.w.Write([]Row{r})
	return err
}

func (pw *partWriter) close() error {
	var first error
	for _, fw := range pw.parts {
		if err := fw.w.Close(); err != nil && first == nil {
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
