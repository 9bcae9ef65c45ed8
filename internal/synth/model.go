package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leakaudit/leakaudit/tex"
)

// ModelDemo is a generated benchmark with a "model" and its predictions,
// for the full audit: a training corpus, train/val/test prediction files
// with planted contamination and planted label errors, and a corrections
// file naming the errors.
type ModelDemo struct {
	Config      string // the audit configuration (YAML) written for it
	Corrections string
	// Contaminated is the number of items per split whose label was
	// copied from the training corpus.
	Contaminated map[string]int
	// Erroneous are the ids of the planted label errors, Memorized those
	// whose wrong label the model reproduces.
	Erroneous, Memorized []string
	Split                string // the split holding the label errors
}

// predRecord is one line of a prediction file.
type predRecord struct {
	ID   string `json:"img_id"`
	GT   string `json:"gt"`
	Pred string `json:"pred"`
}

// Corrupt changes one letter or digit of a tokenized formula.
func (g *Generator) Corrupt(f string) string {
	toks := strings.Fields(f)
	var idx []int
	for i, t := range toks {
		if len(t) == 1 && (t[0] >= 'a' && t[0] <= 'z' || t[0] >= '0' && t[0] <= '9') {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return f + " + 1"
	}
	i := idx[g.Intn(len(idx))]
	c := toks[i][0]
	for {
		var n byte
		if c >= '0' && c <= '9' {
			n = byte('0' + g.Intn(10))
		} else {
			n = byte('a' + g.Intn(26))
		}
		if n != c {
			toks[i] = string(n)
			return strings.Join(toks, " ")
		}
	}
}

// GenerateModelDemo writes the model demo into dir. The model recognises
// every training item and every test item whose label it saw in training
// (memorization), and 70% of the others; it reproduces some of the
// planted wrong labels it saw.
func GenerateModelDemo(dir string, seed uint64) (ModelDemo, error) {
	g := New(seed)
	md := ModelDemo{Contaminated: map[string]int{}, Split: "demo-test"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return md, err
	}
	seen := keySet{}
	train := make([]string, 3000)
	for i := range train {
		train[i] = g.Formula()
		seen.add(train[i])
	}
	fresh := func() string { return seen.fresh(g) }
	write := func(name string, recs []predRecord) error {
		data, err := json.MarshalIndent(recs, "", " ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644)
	}
	// train split: items of the training corpus, all recognised.
	var tr []predRecord
	for i := 0; i < 600; i++ {
		f := train[i]
		tr = append(tr, predRecord{ID: "train_" + strconv.Itoa(i), GT: f, Pred: f})
	}
	if err := write("demo-train", tr); err != nil {
		return md, err
	}
	split := func(name string, n, copies int) []predRecord {
		var recs []predRecord
		for i := 0; i < n; i++ {
			id := name + "_" + strconv.Itoa(i)
			if i < copies {
				f := train[600+g.Intn(len(train)-600)]
				recs = append(recs, predRecord{ID: id, GT: f, Pred: f})
				continue
			}
			f := fresh()
			p := f
			if g.Intn(10) >= 7 {
				p = g.Corrupt(f)
			}
			recs = append(recs, predRecord{ID: id, GT: f, Pred: p})
		}
		return recs
	}
	val := split("demo-val", 300, 60)
	test := split("demo-test", 600, 120)
	// Planted label errors: 10 test items whose label is wrong; the wrong
	// label is also in the training corpus (the model saw it there), and
	// the model reproduces 6 of them.
	var corrections []byte
	correctOf := map[string]string{}
	for k := 0; k < 10; k++ {
		i := 200 + k
		correct := test[i].GT
		wrong := g.Corrupt(correct)
		for seen.has(wrong) {
			wrong = g.Corrupt(correct)
		}
		seen.add(wrong)
		train = append(train, wrong)
		test[i].GT = wrong
		correctOf[test[i].ID] = correct
		md.Erroneous = append(md.Erroneous, test[i].ID)
		if k < 6 {
			test[i].Pred = wrong
			md.Memorized = append(md.Memorized, test[i].ID)
		} else {
			test[i].Pred = correct
		}
		line, _ := json.Marshal(map[string]string{"dataset": "demo", "split": "demo-test", "id": test[i].ID,
			"label_erroneous": wrong, "label_corrected": correct, "source": "planted by the demo", "evidence": "the demo generator", "locus": "one symbol"})
		corrections = append(append(corrections, line...), '\n')
	}
	// Images: every training formula and every val/test item rendered by
	// leakaudit's layout engine. A planted label error's image is the
	// correct formula, whose image is also in the training images with the
	// correct label.
	var trainImgs []labelled
	for i, f := range train[:3000] {
		trainImgs = append(trainImgs, labelled{"train_" + strconv.Itoa(i), f, f})
	}
	for k, id := range md.Erroneous {
		var correct string
		for _, r := range test {
			if r.ID == id {
				correct = correctOf[id]
			}
		}
		trainImgs = append(trainImgs, labelled{"train_fixed_" + strconv.Itoa(k), correct, correct})
	}
	if err := writeImages(filepath.Join(dir, "train-images"), trainImgs); err != nil {
		return md, err
	}
	for _, sp := range []struct {
		name string
		recs []predRecord
	}{{"val-images", val}, {"test-images", test}} {
		var items []labelled
		for _, r := range sp.recs {
			drawn := r.GT
			if c, ok := correctOf[r.ID]; ok {
				drawn = c
			}
			items = append(items, labelled{r.ID, r.GT, drawn})
		}
		if err := writeImages(filepath.Join(dir, sp.name), items); err != nil {
			return md, err
		}
	}
	md.Contaminated["demo-val"] = 60
	md.Contaminated["demo-test"] = 120 + 10
	if err := write("demo-val", val); err != nil {
		return md, err
	}
	if err := write("demo-test", test); err != nil {
		return md, err
	}
	md.Corrections = filepath.Join(dir, "corrections.jsonl")
	if err := os.WriteFile(md.Corrections, corrections, 0o644); err != nil {
		return md, err
	}
	if err := WriteJSONStrings(filepath.Join(dir, "train-corpus.json"), len(train), func(i int) string { return train[i] }); err != nil {
		return md, err
	}
	md.Config = filepath.Join(dir, "audit.yaml")
	cfg := `name: leakaudit demo audit
model: a synthetic model that memorized its training data
train:
  - {name: train-corpus, path: train-corpus.json}
train_images:
  - {name: train-images, path: train-images}
splits:
  - {name: demo-train, benchmark: demo, role: train, predictions: demo-train.json}
  - {name: demo-val, benchmark: demo, role: val, predictions: demo-val.json, images: val-images}
  - {name: demo-test, benchmark: demo, role: test, predictions: demo-test.json, images: test-images}
corrections: corrections.jsonl
levels: [audit, ws]
`
	return md, os.WriteFile(md.Config, []byte(cfg), 0o644)
}

// labelled is an image to draw (the formula drawn) and its label.
type labelled struct{ id, label, drawn string }

// writeImages writes a CROHME-style split folder: caption.txt (id, tab,
// label) and img/<id>.png, each formula set by leakaudit's layout engine
// and rasterized from its glyph outlines (tex.Layout.Render) at 100 dpi.
func writeImages(dir string, items []labelled) error {
	if err := os.MkdirAll(filepath.Join(dir, "img"), 0o755); err != nil {
		return err
	}
	var caps strings.Builder
	for _, it := range items {
		l, err := tex.Typeset(it.drawn)
		if err != nil {
			return fmt.Errorf("render %q: %w", it.drawn, err)
		}
		img, err := l.Render(tex.RenderOptions{DPI: 100, Pad: 8})
		if err != nil {
			continue // no ink
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "img", it.id+".png"), buf.Bytes(), 0o644); err != nil {
			return err
		}
		caps.WriteString(it.id + "\t" + it.label + "\n")
	}
	return os.WriteFile(filepath.Join(dir, "caption.txt"), []byte(caps.String()), 0o644)
}
