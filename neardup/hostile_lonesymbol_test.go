package neardup

import (
	"context"
	"image"
	"math"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

// ring draws a lone symbol: one ring of ink, dark on white.
func ring() *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 60, 60))
	for y := 0; y < 60; y++ {
		for x := 0; x < 60; x++ {
			dx, dy := x-30, y-30
			r2 := dx*dx + dy*dy
			g.Pix[y*g.Stride+x] = 255
			if r2 <= 20*20 && r2 >= 14*14 {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return g
}

// twice scales an image to twice its size, each pixel a 2×2 block: the
// same ink, other pixels.
func twice(g *image.Gray) *image.Gray {
	b := g.Bounds()
	m := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	for y := 0; y < m.Bounds().Dy(); y++ {
		for x := 0; x < m.Bounds().Dx(); x++ {
			m.Pix[y*m.Stride+x] = g.Pix[(y/2)*g.Stride+x/2]
		}
	}
	return m
}

// TestHostileLoneSymbolFlag: a verified pair whose test image is one
// piece of ink, its pixels not the training image's, is marked as a lone
// symbol's and counted apart in the summary; a formula of several pieces
// and a pixel-identical lone symbol are not.
func TestHostileLoneSymbolFlag(t *testing.T) {
	dir := t.TempDir()
	train := imageSplit(t, filepath.Join(dir, "train"), []string{"o", "f"}, []string{"o", "x + 1"},
		[]image.Image{ring(), bars(4, false)})
	test := imageSplit(t, filepath.Join(dir, "test"), []string{"o2", "f2", "o1"}, []string{"o", "x + 1", "o"},
		[]image.Image{
			twice(ring()),         // lone symbol, other pixels
			twice(bars(4, false)), // six pieces, other pixels
			ring(),                // lone symbol, the same pixels
		})
	rep, err := Run(context.Background(), Job{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests:       []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
		MaxDistance: DefaultMaxDistance, DB: filepath.Join(dir, "db"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"o2": true, "f2": false, "o1": false}
	got := map[string]bool{}
	for _, p := range rep.Pairs {
		if !p.Verified {
			t.Errorf("pair %s→%s not verified", p.TestID, p.TrainID)
		}
		got[p.TestID] = p.LoneSymbol
	}
	for id, lone := range want {
		if l, ok := got[id]; !ok || l != lone {
			t.Errorf("%s: paired %v, lone symbol %v; want paired, lone symbol %v (pairs %+v)", id, ok, l, lone, rep.Pairs)
		}
	}
	if s := rep.Summary[0]; s.Verified != 3 || s.LoneSymbol != 1 {
		t.Errorf("summary: %d verified, %d lone symbols; want 3 and 1", s.Verified, s.LoneSymbol)
	}
}

// rings draws n rings side by side, dark on white, each deformed by k (0:
// a ring as ring draws it; more: an egg, wider at the bottom), one piece
// of ink each.
func rings(n int, k float64) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 60*n, 60))
	for y := 0; y < 60; y++ {
		for x := 0; x < 60*n; x++ {
			dx, dy := float64(x%60-30), float64(y-30)
			r := math.Hypot(dx*(1+k*dy/20), dy)
			g.Pix[y*g.Stride+x] = 255
			if r <= 20 && r >= 14 {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	return g
}

// TestHostileLoneUnverified: a lone symbol whose only candidate within the
// radius is not verified (another writer's sample, or a copy drawn by
// another pipeline: the image cannot tell) is counted in the summary, with
// or without Unverified; a lone symbol with a verified pair and a formula
// of two pieces with an unverified candidate are not.
func TestHostileLoneUnverified(t *testing.T) {
	dir := t.TempDir()
	train := imageSplit(t, filepath.Join(dir, "train"), []string{"o", "oo"}, []string{"o", "o o"},
		[]image.Image{rings(1, 0), rings(2, 0)})
	test := imageSplit(t, filepath.Join(dir, "test"), []string{"egg", "o2", "eggs"}, []string{"o", "o", "o o"},
		[]image.Image{
			rings(1, 0.2),      // lone, within the radius of o, not verified
			twice(rings(1, 0)), // lone, verified
			rings(2, 0.4),      // two pieces, within the radius of oo, not verified
		})
	for _, unverified := range []bool{false, true} {
		rep, err := Run(context.Background(), Job{
			Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
			Tests:       []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
			MaxDistance: 20, DB: filepath.Join(dir, "db"), Unverified: unverified,
		})
		if err != nil {
			t.Fatal(err)
		}
		verified := map[string]bool{}
		paired := map[string]bool{}
		for _, p := range rep.Pairs {
			paired[p.TestID] = true
			verified[p.TestID] = verified[p.TestID] || p.Verified
		}
		// The fixture itself: egg and eggs have candidates, none verified.
		if unverified && (!paired["egg"] || verified["egg"] || !paired["eggs"] || verified["eggs"] || !verified["o2"]) {
			t.Fatalf("fixture: paired %v, verified %v; want egg and eggs paired unverified, o2 verified", paired, verified)
		}
		if s := rep.Summary[0]; s.LoneUnverified != 1 {
			t.Errorf("unverified %v: %d lone symbols with unverified candidates only; want 1 (egg)", unverified, s.LoneUnverified)
		}
	}
}
