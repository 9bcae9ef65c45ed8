package audit_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

// RunOverlap indexes the training corpus (once: the index is reused while
// the file is unchanged) and counts, per test split and level, the test
// items whose label occurs in it.
func ExampleRunOverlap() {
	dir, _ := os.MkdirTemp("", "overlap")
	defer os.RemoveAll(dir)
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	os.WriteFile(train, []byte(`["x ^ { 2 }", "\\alpha b", "y"]`), 0o644)
	os.WriteFile(test, []byte(`["x^{2}", "\\alphab", "z", "y"]`), 0o644)
	levels, _ := canon.ParseLevels("audit,ws")
	rep, err := audit.RunOverlap(context.Background(), audit.OverlapJob{
		Train:  []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: train}}},
		Tests:  []audit.Split{{Name: "test", Source: dataset.Source{Path: test}}},
		Levels: levels, DB: filepath.Join(dir, "db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range rep.Splits {
		fmt.Printf("%s %-5s %d/%d found (%s%%)\n", s.Name, s.Level, s.Found, s.Total, s.Rate)
	}
	fmt.Println("complete:", rep.Complete)
	// Output:
	// test audit 3/4 found (75.00%)
	// test ws    2/4 found (50.00%)
	// complete: true
}

// RunNearDup finds a test image that is a copy of a training image, here
// with its polarity inverted, as CROHME's white-on-black scans are.
func ExampleRunNearDup() {
	dir, _ := os.MkdirTemp("", "neardup")
	defer os.RemoveAll(dir)
	stroke := func(x, y int, invert bool) bool {
		ink := (x-40)*(x-40)+(y-20)*(y-20) < 200 || (x > 70 && x < 110 && y > 15 && y < 22)
		return ink != invert
	}
	for _, f := range []struct {
		path   string
		invert bool
	}{{"train/a.png", false}, {"test/b.png", true}} {
		img := image.NewGray(image.Rect(0, 0, 120, 40))
		for y := range 40 {
			for x := range 120 {
				if !stroke(x, y, f.invert) {
					img.Pix[y*120+x] = 255
				}
			}
		}
		p := filepath.Join(dir, f.path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		w, _ := os.Create(p)
		png.Encode(w, img)
		w.Close()
	}
	rep, err := audit.RunNearDup(context.Background(), audit.NearDupJob{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}}},
		Tests:       []audit.ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: filepath.Join(dir, "test")}}},
		MaxDistance: audit.DefaultMaxDistance, DB: filepath.Join(dir, "db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range rep.Pairs {
		fmt.Printf("%s/%s ~ %s/%s distance %d identical %v\n", p.TestSplit, p.TestID, p.TrainSplit, p.TrainID, p.Distance, p.Identical)
	}
	// Output:
	// test/b ~ train/a distance 0 identical true
}

// RunAudit scores a model's predictions with CDM and text ExpRate, looks
// the test labels up in the training corpora and derives the findings.
func ExampleRunAudit() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "train.json"), []byte(`["x ^ { 2 }", "a + b"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "test.json"), []byte(`[
		{"img_id": "1", "gt": "x ^ { 2 }", "pred": "x^{2}"},
		{"img_id": "2", "gt": "a + b", "pred": "a+b"},
		{"img_id": "3", "gt": "\\frac { 1 } { 2 }", "pred": "\\frac{1}{3}"}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "audit.yaml"), []byte(`name: example
train:
  - {name: train, path: train.json}
splits:
  - {name: test, role: test, predictions: test.json, reported_exprate: 100}
`), 0o644)
	c, err := audit.LoadConfig(filepath.Join(dir, "audit.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c.DB = filepath.Join(dir, "db")
	f, err := audit.RunAudit(context.Background(), audit.AuditJob{Config: c, Tool: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Splits {
		fmt.Printf("%s: %d items, ExpRate %.2f%%, ExpRate@CDM %.2f%%\n", s.Name, s.N, s.ExpRate, s.ExpRateCDM)
	}
	for _, o := range f.Overlap {
		fmt.Printf("overlap at %s: %d of %d\n", o.Level, o.Found, o.Total)
	}
	for _, a := range f.Anomalies {
		fmt.Println(a.Kind, a.Split)
	}
	// Output:
	// test: 3 items, ExpRate 66.67%, ExpRate@CDM 66.67%
	// overlap at audit: 2 of 3
	// overlap at ws: 2 of 3
	// cdm_reversal test
}
