package dataset

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxInkMLBytes bounds the size of one InkML file, which is read whole.
const MaxInkMLBytes = 64 << 20

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
		data, err := readBounded(path, MaxInkMLBytes)
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
		return nil, fmt.Errorf("%w: file larger than %d bytes", errTooLarge, max)
	}
	return data, nil
}

// errTooLarge marks a read refused by a size limit, as opposed to a file
// that could not be read.
var errTooLarge = errors.New("over the size limit")

// inkDoc is what leakaudit reads from an InkML document.
type inkDoc struct {
	annotations map[string]string // type → text, for annotations directly under <ink>
	strokes     []Stroke
}

// parseInkML walks an InkML document once, collecting the annotations that
// are direct children of the root <ink> element (nested trace groups also
// carry type="truth" annotations, symbol labels, which are ignored) and
// every <trace> as a stroke of "x y[ more channels], x y, …" points. It
// fails when the document is not well-formed XML up to its end.
func parseInkML(data []byte) (inkDoc, error) {
	doc := inkDoc{annotations: map[string]string{}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth := 0
	var cur string // type of the top-level annotation being read
	inTrace := false
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return doc, nil
		}
		if err != nil {
			return doc, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 2 && t.Name.Local == "annotation":
				for _, a := range t.Attr {
					if a.Name.Local == "type" {
						cur = a.Value
					}
				}
				text.Reset()
			case t.Name.Local == "trace":
				inTrace = true
				text.Reset()
			}
		case xml.CharData:
			if cur != "" && depth == 2 || inTrace {
				text.Write(t)
			}
		case xml.EndElement:
			switch {
			case depth == 2 && cur != "":
				if _, dup := doc.annotations[cur]; !dup {
					doc.annotations[cur] = text.String()
				}
				cur = ""
			case inTrace && t.Name.Local == "trace":
				inTrace = false
				if s := parseStroke(text.String()); len(s) > 0 {
					doc.strokes = append(doc.strokes, s)
				}
			}
			depth--
		}
	}
}

// truth returns the first of the wanted top-level annotations present.
func (d inkDoc) truth(want []string) *string {
	for _, w := range want {
		if s, ok := d.annotations[w]; ok {
			return &s
		}
	}
	return nil
}

// inkmlTruth returns the text of the first wanted <annotation type=…> that
// is a direct child of the root <ink> element, or nil when there is none.
func inkmlTruth(data []byte, want []string) (*string, error) {
	doc, err := parseInkML(data)
	if err != nil {
		return nil, err
	}
	return doc.truth(want), nil
}
