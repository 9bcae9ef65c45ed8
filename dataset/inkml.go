package dataset

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxFileBytes bounds the size of one InkML file.
const DefaultMaxFileBytes = 64 << 20

// inkmlFiles lists the .inkml files under path in lexical order, or path
// itself when it is a file.
func inkmlFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".inkml") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

func scanInkML(src Source, e *emitter) error {
	files, err := inkmlFiles(src.Path)
	if err != nil {
		return err
	}
	want := defaultInkMLFields
	if src.Field != "" {
		want = []string{src.Field}
	}
	e.stats.Field = strings.Join(want, "|")
	e.stats.IDField = "(file name)"
	for seq, path := range files {
		id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		rel, _ := filepath.Rel(src.Path, path)
		if rel == "." || rel == "" {
			rel = filepath.Base(path)
		}
		where := "file " + rel
		data, err := readBounded(path, DefaultMaxFileBytes)
		switch {
		case err != nil:
			e.skip(int64(seq), id, where, err.Error())
			continue
		case len(bytes.TrimSpace(data)) == 0:
			e.skip(int64(seq), id, where, ReasonEmptyFile)
			continue
		}
		label, err := inkmlTruth(data, want)
		if err != nil {
			e.skip(int64(seq), id, where+": "+err.Error(), ReasonBadXML)
			continue
		}
		if label == nil {
			e.skip(int64(seq), id, where, ReasonNoTruth)
			continue
		}
		if err := e.deliver(Item{Seq: int64(seq), ID: id, Label: *label}, where); err != nil {
			return e.finish(err)
		}
	}
	return nil
}

// readBounded reads a whole file, refusing one larger than max.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("file larger than %d bytes", max)
	}
	return data, nil
}

// inkmlTruth returns the text of the first wanted <annotation type=…> that
// is a direct child of the root <ink> element, trying the types in order.
// Nested trace groups also carry type="truth" annotations (symbol labels);
// those are ignored. It returns nil when no such annotation exists, and an
// error when the document is not well-formed XML up to the end.
func inkmlTruth(data []byte, want []string) (*string, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	found := map[string]string{}
	depth := 0
	var cur string // type of the top-level annotation being read
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == "annotation" {
				for _, a := range t.Attr {
					if a.Name.Local == "type" {
						cur = a.Value
						text.Reset()
					}
				}
			}
		case xml.CharData:
			if cur != "" && depth == 2 {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == 2 && cur != "" {
				if _, dup := found[cur]; !dup {
					found[cur] = text.String()
				}
				cur = ""
			}
			depth--
		}
	}
	for _, w := range want {
		if s, ok := found[w]; ok {
			return &s, nil
		}
	}
	return nil, nil
}
