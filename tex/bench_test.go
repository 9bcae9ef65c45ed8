package tex

import (
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/latex"
)

// BenchmarkTypeset lays out the CROHME 2014 test labels as the reference
// renders them (coloured, after the CDM tokenizer); tokenizing is not
// timed. The figure to read is formulas/s.
func BenchmarkTypeset(b *testing.B) {
	var inputs []string
	for _, in := range crohme2014(b) {
		inputs = append(inputs, in.formula)
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		l, err := Typeset(inputs[n%len(inputs)])
		if err != nil {
			b.Fatal(err)
		}
		l.PixelBoxes(64, PageA5, ReferenceRaster)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "formulas/s")
}

// BenchmarkRender rasterizes the CROHME 2014 test labels, laid out as the
// reference renders them, at 200 dpi on the reference's page with the
// glyph cache warm (layout not timed). The figure to read is formulas/s.
func BenchmarkRender(b *testing.B) {
	var layouts []*Layout
	for _, in := range crohme2014(b) {
		layouts = append(layouts, in.layout)
	}
	opt := RenderOptions{DPI: 200, Page: PageA5, Pad: 8}
	for _, l := range layouts { // warm the glyph cache
		if _, err := l.Render(opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if _, err := layouts[n%len(layouts)].Render(opt); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "formulas/s")
}

// laidOut is a formula as the reference renders it (coloured, after the
// CDM tokenizer) and its layout.
type laidOut struct {
	formula string
	layout  *Layout
}

// crohme2014 lays out the CROHME 2014 test labels that the engine sets.
func crohme2014(b *testing.B) []laidOut {
	path := shareddata.Path(b, filepath.Join("labels", "crohme_2014_captions.json"))
	var out []laidOut
	if _, err := dataset.Scan(dataset.Source{Path: path}, func(it dataset.Item) error {
		if res, err := latex.TokenizeCDM(it.Label); err == nil {
			s := res.Rendered()
			if l, err := Typeset(s); err == nil {
				out = append(out, laidOut{s, l})
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if len(out) == 0 {
		b.Fatal("no formulas")
	}
	return out
}
