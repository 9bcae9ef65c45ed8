package neardup_test

import (
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/neardup"
)

// smallGlyphs are made-up handwriting symbols, polylines in a unit box.
var smallGlyphs = map[byte][]dataset.Stroke{
	'x': {{{0, 0}, {1, 1}}, {{1, 0}, {0, 1}}},
	'2': {{{0, 0.2}, {0.3, 0}, {0.8, 0}, {1, 0.3}, {0, 1}, {1, 1}}},
	'+': {{{0.5, 0.1}, {0.5, 0.9}}, {{0.1, 0.5}, {0.9, 0.5}}},
	'y': {{{0, 0}, {0.5, 0.6}}, {{1, 0}, {0.2, 1.3}}},
	'=': {{{0, 0.35}, {1, 0.35}}, {{0, 0.65}, {1, 0.65}}},
	'1': {{{0.2, 0.2}, {0.6, 0}, {0.6, 1}}},
	'7': {{{0, 0}, {1, 0}, {0.4, 1}}},
	'a': {{{1, 0.3}, {0.5, 0}, {0, 0.5}, {0.5, 1}, {1, 0.6}}, {{1, 0}, {1, 1}}},
	'b': {{{0, -0.6}, {0, 1}}, {{0, 0.5}, {0.5, 0}, {1, 0.5}, {0.5, 1}, {0, 0.8}}},
	'-': {{{0, 0.5}, {1, 0.5}}},
}

// smallFormula lays glyphs out left to right, slightly wobbled: wide ink,
// as a written formula is.
func smallFormula(s string) []dataset.Stroke {
	var out []dataset.Stroke
	for i := 0; i < len(s); i++ {
		for _, g := range smallGlyphs[s[i]] {
			var st dataset.Stroke
			for j, p := range g {
				wob := 0.03 * math.Sin(float64(7*i+3*j))
				st = append(st, [2]float64{100 * (1.4*float64(i) + p[0] + wob), 100 * (p[1] - wob)})
			}
			out = append(out, st)
		}
	}
	return out
}

func writeStrokes(t *testing.T, dir, name string, r inkraster.Rasterizer, st []dataset.Stroke) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	img, err := r.Render(st)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// TestHostileSmallInkSearch: a wide formula drawn with a thick pen on an
// 80×80 canvas (its strokes merged, its pHash beyond the radius) is found
// as a copy of its bitmap by the small-ink keys and marked so, another
// formula drawn alike is not paired, and a formula in a 40×40 image is
// counted as too small to verify, with no pair.
func TestHostileSmallInkSearch(t *testing.T) {
	dir := t.TempDir()
	bitmap := inkraster.Rasterizer{Name: "bitmap", Stroke: 1.5, Height: 120, AA: true, Scale: 1}
	thick := inkraster.Rasterizer{Name: "thick", Stroke: 3.3, Height: 80, Width: 80, Margin: 4, Scale: 1}
	tiny := inkraster.Rasterizer{Name: "tiny", Stroke: 2.8, Height: 68, Width: 68, Margin: 8, Scale: 0.59}
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	for _, f := range []string{"x2+y2=1-ab", "a2+b2=7-yx", "x2+y2=1"} {
		writeStrokes(t, train, f, bitmap, smallFormula(f))
	}
	writeStrokes(t, test, "thick-copy", thick, smallFormula("x2+y2=1-ab"))
	writeStrokes(t, test, "thick-other", thick, smallFormula("b2+a2=1-7y"))
	writeStrokes(t, test, "tiny-copy", tiny, smallFormula("x2+y2=1-ab"))
	rep, err := neardup.Run(context.Background(), neardup.Job{
		MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(dir, "db"),
		Hash:  imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch},
		Train: []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests: []neardup.ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Pairs {
		got = append(got, p.TestID+"→"+p.TrainID)
		if p.TestID == "thick-copy" && p.TrainID == "x2+y2=1-ab" {
			if !p.SmallInk || !p.Verified || p.Distance <= neardup.DefaultMaxDistance {
				t.Errorf("the thick copy's pair %+v: want it verified, found by the small-ink keys beyond the radius", p)
			}
			continue
		}
		t.Errorf("unexpected pair %s→%s (distance %d, small ink %v)", p.TestID, p.TrainID, p.Distance, p.SmallInk)
	}
	if len(got) == 0 {
		t.Errorf("the thick copy was not found")
	}
	if s := rep.Summary[0]; s.Items != 3 || s.InkTooSmall != 1 || s.Verified != 1 {
		t.Errorf("summary %+v: want 3 items, 1 verified, 1 too small", s)
	}
}
