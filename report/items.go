package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// ItemWriter writes per-item evidence rows of type T to a JSONL file (one
// JSON object per line) or a Parquet file, chosen by the file extension
// (.parquet for Parquet, anything else for JSONL). T's fields need json
// and parquet struct tags.
type ItemWriter[T any] struct {
	f     *os.File
	buf   *bufio.Writer
	enc   *json.Encoder
	pq    *parquet.GenericWriter[T]
	batch []T
	path  string
}

// CreateItems creates the file at path and returns a writer for it.
func CreateItems[T any](path string) (*ItemWriter[T], error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &ItemWriter[T]{f: f, path: path}
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		w.pq = parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Zstd))
	} else {
		w.buf = bufio.NewWriterSize(f, 1<<20)
		w.enc = json.NewEncoder(w.buf)
		w.enc.SetEscapeHTML(false)
	}
	return w, nil
}

// Write adds one row.
func (w *ItemWriter[T]) Write(row T) error {
	if w.pq != nil {
		w.batch = append(w.batch, row)
		if len(w.batch) >= 4096 {
			return w.flushParquet()
		}
		return nil
	}
	return w.enc.Encode(row)
}

func (w *ItemWriter[T]) flushParquet() error {
	if _, err := w.pq.Write(w.batch); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	w.batch = w.batch[:0]
	return nil
}

// Close flushes and closes the file.
func (w *ItemWriter[T]) Close() error {
	var err error
	if w.pq != nil {
		if len(w.batch) > 0 {
			err = w.flushParquet()
		}
		if cerr := w.pq.Close(); err == nil {
			err = cerr
		}
	} else {
		err = w.buf.Flush()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteItems writes rows to a new file at path, JSONL or Parquet as
// CreateItems chooses.
func WriteItems[T any](path string, rows []T) error {
	w, err := CreateItems[T](path)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
