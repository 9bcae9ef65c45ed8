package audit

import (
	"context"
	"image"
	"image/png"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestNearDupCROHME checks the acceptance figures on the real
// CROHME images: the 42 pixel-identical pairs inside CROHME train are all
// found with equal labels, and no CROHME test image is reported against
// CROHME train at the default radius (there are no copies).
func TestNearDupCROHME(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	dir := shareddata.Path(t, "crohme")
	job := NearDupJob{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}}},
		MaxDistance: DefaultMaxDistance,
		DB:          t.TempDir(),
		Tool:        "test",
	}
	job.Tests = append(job.Tests, ImageSplit{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}})
	for _, s := range []string{"2014", "2016", "2019"} {
		job.Tests = append(job.Tests, ImageSplit{Name: s, Source: dataset.ImageSource{Path: filepath.Join(dir, s)}})
	}
	rep, err := RunNearDup(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	identical, verified := 0, 0
	for _, p := range rep.Pairs {
		if p.TestSplit != "train" {
			t.Errorf("false match: %+v", p)
			continue
		}
		if p.Identical {
			identical++
			if p.LabelMismatch || !p.Verified || p.Distance != 0 {
				t.Errorf("identical pair %s/%s: %+v", p.TestID, p.TrainID, p)
			}
		}
		if p.Verified {
			verified++
		}
		if p.TestID == p.TrainID {
			t.Errorf("image paired with itself: %s", p.TestID)
		}
	}
	if identical != 42 {
		t.Errorf("%d identical pairs inside CROHME train, want 42", identical)
	}
	for _, s := range rep.Summary {
		if s.Skipped != 0 || s.Blank != 0 {
			t.Errorf("%s: %d skipped, %d blank", s.TestSplit, s.Skipped, s.Blank)
		}
		if s.TestSplit != "train" && s.WithNearDuplicate != 0 {
			t.Errorf("%s: %d test images reported against CROHME train", s.TestSplit, s.WithNearDuplicate)
		}
	}
	t.Logf("inside CROHME train at distance ≤ %d: %d pairs, %d identical, %d verified", DefaultMaxDistance, len(rep.Pairs), identical, verified)
}

// TestInkFindsItsScan rasterizes the CROHME 2014 InkML strokes and checks
// that each finds its own PNG scan as nearest neighbour (ties broken by
// name), for at least 97% of items; the issue asks for 80%.
func TestInkFindsItsScan(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	ink := shareddata.Path(t, "crohme-inkml/2014")
	scans := shareddata.Path(t, "crohme/2014")
	o := imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	type rec struct {
		id string
		h  uint64
	}
	load := func(p string) []rec {
		var out []rec
		st, _, err := index.ScanHashed(context.Background(), dataset.ImageSource{Path: p}, o, 0, nil, func(it dataset.ImageItem, fp imagehash.Fingerprint) error {
			out = append(out, rec{it.ID, fp.Hash})
			return nil
		})
		if err != nil || st.Skipped != 0 {
			t.Fatalf("%s: %v, %d skipped", p, err, st.Skipped)
		}
		return out
	}
	inks, pngs := load(ink), load(scans)
	correct := 0
	for _, r := range inks {
		best, bestID := 65, ""
		for _, s := range pngs {
			d := bits.OnesCount64(r.h ^ s.h)
			if d < best || d == best && s.id < bestID {
				best, bestID = d, s.id
			}
		}
		if bestID == r.id {
			correct++
		}
	}
	rate := float64(correct) / float64(len(inks))
	t.Logf("InkML → own scan nearest neighbour: %d/%d (%.1f%%)", correct, len(inks), 100*rate)
	if len(inks) != 986 || rate < 0.97 {
		t.Errorf("%d/%d correct", correct, len(inks))
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// bars draws a distinct test pattern for each n; n < 0 draws pattern -n
// mirrored left to right, which pHash keeps far from the original.
func bars(n int, invert bool) *image.Gray {
	if n < 0 {
		g := bars(-n, invert)
		m := image.NewGray(g.Bounds())
		w := g.Bounds().Dx()
		for y := 0; y < g.Bounds().Dy(); y++ {
			for x := 0; x < w; x++ {
				m.Pix[y*m.Stride+x] = g.Pix[y*g.Stride+w-1-x]
			}
		}
		return m
	}
	g := image.NewGray(image.Rect(0, 0, 200, 60))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for k := 0; k < 6; k++ {
		x0 := 10 + k*30
		h := 10 + (n*7+k*13)%40
		for y := 50 - h; y < 50; y++ {
			for x := x0; x < x0+8+(n+k)%6; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	if invert {
		for i := range g.Pix {
			g.Pix[i] = 255 - g.Pix[i]
		}
	}
	return g
}

func TestNearDupLabels(t *testing.T) {
	dir := t.TempDir()
	mk := func(split string, ids []string, labels []string, pats []int, inv bool) string {
		p := filepath.Join(dir, split)
		os.MkdirAll(filepath.Join(p, "img"), 0o755)
		var caps []byte
		for i, id := range ids {
			writePNG(t, filepath.Join(p, "img", id+".png"), bars(pats[i], inv))
			caps = append(caps, []byte(id+"\t"+labels[i]+"\n")...)
		}
		os.WriteFile(filepath.Join(p, "caption.txt"), caps, 0o644)
		return p
	}
	train := mk("train", []string{"a", "b", "c"}, []string{"x + 1", "y", "z"}, []int{1, 2, 3}, false)
	test := mk("test", []string{"t1", "t2", "t3"}, []string{"x+1", "w", "q"}, []int{1, 2, -3}, true)
	job := NearDupJob{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests:       []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
		MaxDistance: DefaultMaxDistance, DB: filepath.Join(dir, "db"),
	}
	rep, err := RunNearDup(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pairs) != 2 {
		t.Fatalf("pairs %+v", rep.Pairs)
	}
	for _, p := range rep.Pairs {
		// Inverted polarity does not hide the copies.
		if !p.Identical || !p.Verified || p.Distance != 0 {
			t.Errorf("pair %+v", p)
		}
	}
	if rep.Pairs[0].LabelMismatch || !rep.Pairs[1].LabelMismatch {
		t.Errorf("label flags: x + 1 vs x+1 must agree at ws, y vs w must differ: %+v", rep.Pairs)
	}
	s := rep.Summary[0]
	if s.Items != 3 || s.WithNearDuplicate != 2 || s.Identical != 2 || s.LabelMismatch != 1 {
		t.Errorf("summary %+v", s)
	}
}
