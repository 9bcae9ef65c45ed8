package neardup_test

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/neardup"
)

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
		writeStrokes(t, train, f, bitmap, inkraster.Formula(f))
	}
	writeStrokes(t, test, "thick-copy", thick, inkraster.Formula("x2+y2=1-ab"))
	writeStrokes(t, test, "thick-other", thick, inkraster.Formula("b2+a2=1-7y"))
	writeStrokes(t, test, "tiny-copy", tiny, inkraster.Formula("x2+y2=1-ab"))
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

// TestHostileInkTooSmallUnverified: with Job.Unverified, the pairs of a
// query whose ink is too small to verify (a wide formula drawn with a
// 4 px pen in a 40×40 image) are reported unverified and marked
// InkTooSmall, so that the pages can say why, even against the same
// strokes drawn as small with another margin; a copy at a readable size
// is verified and not marked.
func TestHostileInkTooSmallUnverified(t *testing.T) {
	dir := t.TempDir()
	bitmap := inkraster.Rasterizer{Name: "bitmap", Stroke: 1.5, Height: 120, AA: true, Scale: 1}
	tiny := inkraster.Rasterizer{Name: "tiny", Stroke: 4, Height: 40, Width: 40, Scale: 1}
	shifted := tiny
	shifted.Margin = 1
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	writeStrokes(t, train, "x2+y2=1", bitmap, inkraster.Formula("x2+y2=1"))
	writeStrokes(t, train, "x2+y2=1-ab", tiny, inkraster.Formula("x2+y2=1-ab"))
	writeStrokes(t, test, "tiny", shifted, inkraster.Formula("x2+y2=1-ab"))
	writeStrokes(t, test, "copy", bitmap, inkraster.Formula("x2+y2=1"))
	rep, err := neardup.Run(context.Background(), neardup.Job{
		MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(dir, "db"), Unverified: true,
		Hash:  imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch},
		Train: []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests: []neardup.ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tinyPairs, copyPairs int
	for _, p := range rep.Pairs {
		tooSmall := p.TestID == "tiny"
		if p.InkTooSmall != tooSmall || p.Verified == tooSmall {
			t.Errorf("pair %s→%s: ink too small %v, verified %v; want too small %v and verified %v", p.TestID, p.TrainID, p.InkTooSmall, p.Verified, tooSmall, !tooSmall)
		}
		if tooSmall {
			tinyPairs++
		} else {
			copyPairs++
		}
	}
	if tinyPairs == 0 || copyPairs == 0 {
		t.Errorf("%d pairs of the tiny query and %d of the copy: want both (the test needs both kinds)", tinyPairs, copyPairs)
	}
}
