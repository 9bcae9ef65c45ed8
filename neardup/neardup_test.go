package neardup

import (
	"context"
	"image"
	"image/png"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
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
	job := Job{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}}},
		MaxDistance: DefaultMaxDistance,
		DB:          t.TempDir(),
		Tool:        "test",
	}
	job.Tests = append(job.Tests, ImageSplit{Name: "train", Source: dataset.ImageSource{Path: filepath.Join(dir, "train")}})
	for _, s := range []string{"2014", "2016", "2019"} {
		job.Tests = append(job.Tests, ImageSplit{Name: s, Source: dataset.ImageSource{Path: filepath.Join(dir, s)}})
	}
	rep, err := Run(context.Background(), job)
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
		st, _, err := imagehash.Scan(context.Background(), dataset.ImageSource{Path: p}, o, 0, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
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
		return captionSplit(t, filepath.Join(dir, split), ids, labels, pats, inv)
	}
	train := mk("train", []string{"a", "b", "c"}, []string{"x + 1", "y", "z"}, []int{1, 2, 3}, false)
	test := mk("test", []string{"t1", "t2", "t3"}, []string{"x+1", "w", "q"}, []int{1, 2, -3}, true)
	job := Job{
		Train:       []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: train}}},
		Tests:       []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}},
		MaxDistance: DefaultMaxDistance, DB: filepath.Join(dir, "db"),
	}
	rep, err := Run(context.Background(), job)
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

// captionSplit writes a CROHME-style split folder of bars patterns.
func captionSplit(t *testing.T, p string, ids, labels []string, pats []int, inv bool) string {
	t.Helper()
	imgs := make([]image.Image, len(pats))
	for i, n := range pats {
		imgs[i] = bars(n, inv)
	}
	return imageSplit(t, p, ids, labels, imgs)
}

// imageSplit writes a CROHME-style split folder: each image as
// img/ID.png, and the labels in caption.txt.
func imageSplit(t *testing.T, p string, ids, labels []string, imgs []image.Image) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(p, "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	var caps []byte
	for i, id := range ids {
		writePNG(t, filepath.Join(p, "img", id+".png"), imgs[i])
		caps = append(caps, []byte(id+"\t"+labels[i]+"\n")...)
	}
	if err := os.WriteFile(filepath.Join(p, "caption.txt"), caps, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeImageFingerprint fingerprints an image source as the CLI does
// (with its input's SHA-256).
func writeImageFingerprint(t *testing.T, out, name, src string, o fingerprint.Options) {
	t.Helper()
	fp, err := checksum.Of(src)
	if err != nil {
		t.Fatal(err)
	}
	o.Images, o.WithInk, o.Tool = true, true, "test" // with the ink: verified as on the images
	if o.Levels == nil {
		o.Levels, _ = canon.ParseLevels("audit,ws")
	}
	if _, err := fingerprint.Write(out, []fingerprint.Input{{Name: name, Source: dataset.Source{Path: src}, SHA256: fp.SHA256}}, o); err != nil {
		t.Fatal(err)
	}
}

// withoutTrainLabels blanks the training labels, which a fingerprint made
// without --with-labels does not hold.
// A fingerprint without labels compares them by digest, so its pairs'
// label checks name the digests' level and carry no distance: the pairs
// are compared without their checks (LabelMismatch stays).
func withoutTrainLabels(ps []Pair) []Pair {
	out := withoutChecks(ps)
	for i := range out {
		out[i].TrainLabel = ""
	}
	return out
}

func withoutChecks(ps []Pair) []Pair {
	out := append([]Pair(nil), ps...)
	for i := range out {
		out[i].LabelCheck = nil
	}
	return out
}

// TestNearDupFingerprint: an image fingerprint as the training side gives
// the images' pairs (labels compared by their digests, a split that is
// the fingerprinted corpus compared with itself), needs its salt, refuses
// other hash settings, and offers no evidence images.
func TestNearDupFingerprint(t *testing.T) {
	dir := t.TempDir()
	train := captionSplit(t, filepath.Join(dir, "train"), []string{"a", "b", "c", "d"}, []string{"x + 1", "y", "z", "x+1"}, []int{1, 2, 3, 1}, false)
	test := captionSplit(t, filepath.Join(dir, "test"), []string{"t1", "t2", "t3"}, []string{"x+1", "w", "q"}, []int{1, 2, -3}, true)
	tests := []ImageSplit{{Name: "test", Source: dataset.ImageSource{Path: test}}, {Name: "train", Source: dataset.ImageSource{Path: train}}}
	run := func(trainPath string, salt string, o imagehash.Options) (Report, error) {
		return Run(context.Background(), Job{
			Train: []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: trainPath}}},
			Tests: tests, MaxDistance: DefaultMaxDistance, DB: filepath.Join(dir, "db"), Salt: []byte(salt), Hash: o, Evidence: 10,
		})
	}
	want, err := run(train, "", imagehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Pairs) != 4 || len(want.Evidence) != 4 || want.Summary[0].LabelMismatch != 1 || want.Summary[1].WithNearDuplicate != 2 {
		t.Fatalf("images: pairs %+v, summary %+v", want.Pairs, want.Summary)
	}
	plain, salted, labelled := filepath.Join(dir, "plain.parquet"), filepath.Join(dir, "salted.parquet"), filepath.Join(dir, "labelled")
	writeImageFingerprint(t, plain, "train", train, fingerprint.Options{})
	writeImageFingerprint(t, salted, "train", train, fingerprint.Options{Salt: []byte("s")})
	writeImageFingerprint(t, labelled, "train", train, fingerprint.Options{WithLabels: true, Partitions: 2})
	for _, tc := range []struct {
		path, salt string
		labels     bool
	}{{plain, "", false}, {salted, "s", false}, {labelled, "", true}} {
		got, err := run(tc.path, tc.salt, imagehash.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wp, gp := want.Pairs, got.Pairs
		if !tc.labels {
			wp, gp = withoutTrainLabels(wp), withoutChecks(gp)
		}
		if !reflect.DeepEqual(gp, wp) || !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("%s: pairs %+v\nsummary %+v\nwant %+v\n%+v", tc.path, got.Pairs, got.Summary, wp, want.Summary)
		}
		if len(got.Evidence) != 0 || !got.Complete {
			t.Errorf("%s: %d evidence pairs, complete %v", tc.path, len(got.Evidence), got.Complete)
		}
	}
	for _, tc := range []struct {
		path, salt string
		o          imagehash.Options
		want       string
	}{
		{salted, "", imagehash.Options{}, "give the salt"},
		{salted, "t", imagehash.Options{}, "another salt"},
		{plain, "", imagehash.Options{Kind: imagehash.DHash}, "kind=dhash"},
	} {
		if _, err := run(tc.path, tc.salt, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s salt %q %+v: %v, want %q", tc.path, tc.salt, tc.o, err, tc.want)
		}
	}
}

// TestNearDupFingerprintCROHME: a fingerprint of the CROHME train images
// stands in for them against the CROHME 2014, 2016 and 2019 test images
// and against train itself, at radius 10 with the unverified candidates
// kept (where test images have candidates, and many pairs have other
// labels; the command's test covers the default radius): identical pairs,
// training ids and summaries.
func TestNearDupFingerprintCROHME(t *testing.T) {
	if testing.Short() {
		t.Skip("real data at full size: not in -short (the race pass)")
	}
	dir := shareddata.Path(t, "crohme")
	tmp := t.TempDir()
	fp := filepath.Join(tmp, "train.fp.parquet")
	writeImageFingerprint(t, fp, "train", filepath.Join(dir, "train"), fingerprint.Options{})
	var tests []ImageSplit
	for _, s := range []string{"train", "2014", "2016", "2019"} {
		tests = append(tests, ImageSplit{Name: s, Source: dataset.ImageSource{Path: filepath.Join(dir, s)}})
	}
	for _, radius := range []int{10} {
		run := func(path string) Report {
			rep, err := Run(context.Background(), Job{Train: []index.ImageCorpusInput{{Name: "train", Source: dataset.ImageSource{Path: path}}},
				Tests: tests, MaxDistance: radius, Unverified: true, DB: filepath.Join(tmp, "db")})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		want, got := run(filepath.Join(dir, "train")), run(fp)
		if !reflect.DeepEqual(withoutChecks(got.Pairs), withoutTrainLabels(want.Pairs)) || !reflect.DeepEqual(got.Summary, want.Summary) {
			t.Errorf("radius %d: the fingerprint gives %d pairs %+v, the images %d %+v", radius, len(got.Pairs), got.Summary, len(want.Pairs), want.Summary)
		}
		cross, mismatch := 0, 0
		for _, p := range want.Pairs {
			if p.TestSplit != "train" {
				cross++
			}
			if p.LabelMismatch {
				mismatch++
			}
		}
		t.Logf("radius %d: %d pairs identical (%d test×train, %d with other labels)", radius, len(want.Pairs), cross, mismatch)
		if radius == 10 && (cross == 0 || mismatch == 0) {
			t.Errorf("radius 10: %d test×train pairs, %d label mismatches; the check needs some", cross, mismatch)
		}
	}
}
