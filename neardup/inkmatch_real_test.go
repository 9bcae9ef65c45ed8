package neardup_test

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/neardup"
)

// inkSeeds are the seeds of the random rasterizers the matcher is measured
// with: LEAKAUDIT_INKSEEDS when set, else the seeds the matcher was
// developed on.
func inkSeeds(t *testing.T) []uint64 {
	return envSeeds(t, "LEAKAUDIT_INKSEEDS", []uint64{1, 2, 3})
}

// envSeeds returns the comma-separated seeds of the environment variable
// name when it is set, else def.
func envSeeds(t *testing.T, name string, def []uint64) []uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, n)
	}
	return out
}

// strokeSignature is the number of points of each trace of an InkML file:
// two files with the same signature hold the same strokes (CROHME 2014
// has seven such pairs, some with the points moved: copies, not other
// writers).
func strokeSignatures(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".inkml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if sig := inkraster.StrokeSignature(b); sig != "" {
			out[strings.TrimSuffix(filepath.Base(p), ".inkml")] = sig
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inkScore is one test set's recall and wrong pairs.
type inkScore struct {
	queries, found, wrong int
	wrongPairs            []string
}

// scoreInk counts, for a test split of rasterized (or read) InkML, the
// items whose own bitmap was paired with them and the pairs that are not
// copies: a pair is a copy when it names the item's own bitmap, another
// file with the same strokes, or a bitmap that is a pixel copy of the
// item's own.
func scoreInk(rep neardup.Report, split, ownCorpus string, own map[string]bool, sigs map[string]string, sameBitmap func(c1, id1, c2, id2 string) bool) inkScore {
	var s inkScore
	got := map[string]bool{}
	for _, p := range rep.Pairs {
		if p.TestSplit != split {
			continue
		}
		if p.TrainSplit == ownCorpus && p.TrainID == p.TestID {
			got[p.TestID] = true
			continue
		}
		if p.TrainSplit == ownCorpus && sigs[p.TestID] != "" && sigs[p.TestID] == sigs[p.TrainID] {
			continue
		}
		if own[p.TestID] && sameBitmap(p.TrainSplit, p.TrainID, ownCorpus, p.TestID) {
			continue
		}
		s.wrong++
		s.wrongPairs = append(s.wrongPairs, fmt.Sprintf("%s→%s:%s d=%d fine=%d", p.TestID, p.TrainSplit, p.TrainID, p.Distance, p.FineDistance))
	}
	for _, sum := range rep.Summary {
		if sum.TestSplit == split {
			s.queries = int(sum.Items)
		}
	}
	for id := range got {
		if own[id] {
			s.found++
		}
	}
	// Items without a bitmap of their own (the two defective train files
	// have none) are not queries for recall.
	n := 0
	for id := range sigs {
		if own[id] {
			n++
		}
	}
	s.queries = min(s.queries, n)
	return s
}

// TestHostileInkMatchRealData measures the image matcher on the same
// handwriting rasterized by other pipelines: CROHME 2014 InkML (read by
// leakaudit, and rasterized by the five corner rasterizers and the seeded
// random ones) against the CROHME 2014 and train bitmaps, the CROHME
// train-sample InkML likewise, and CROHME train against itself, where
// different writers of one formula must not be paired.
func TestHostileInkMatchRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: rasterizes and hashes about 30,000 images")
	}
	rs := inkraster.Corners()
	for _, s := range inkSeeds(t) {
		rs = append(rs, inkraster.Random(s))
	}
	run := runInkSets(t, rs, true, true)
	// At the default settings: CROHME 2014 as leakaudit reads its InkML
	// finds ≥ 99% of its bitmaps (the goal), train-sample ≥ 98%; every
	// rasterized set ≥ 88% (the 99% goal is not met by every rasterizer:
	// three seeds drawn after the edge keys were written found 87.4–100%
	// per set, a fourth, a 40×40 square, 27.3%) and all sets together
	// ≥ 97% (97.8% on the corners and the three seeds); at
	// most 0.1% wrong pairs per set, rounded up to one pair. The read sets
	// and the five corner rasterizers are deterministic: each must find
	// at least the items it found when measured (stop 42, with the edge
	// keys, searched only by queries whose ink reaches an edge of their
	// image; README, "Copies rasterized by another pipeline"; stretch-256
	// and down-25 raised in stop 43 with the cut variants; down-25-2014
	// lowered from 981 in stop 44, the cut variants verified within 0.63
	// px instead of 0.7; stretch-256 raised in stop 48, every side's cut
	// variants searched; thick-512-2014 lowered from 985 in stop 51, the
	// fine rule verifying only queries of at most eight pieces of ink:
	// 35_em_15, of eleven, lies 0.80 px from its bitmap), so that any
	// loss of recall fails. (A pen of 3.3 px on an 80×80 canvas, seed
	// 827649761, finds 69%, 78% with the small-ink keys: such seeds fail
	// the 88% floor; TestHostileSmallInkRealData holds small canvases to
	// their own floors.)
	minFound := map[string]int{
		"read-2014": 986, "read-train-sample": 196,
		"thin-40-2014": 986, "thin-40-train-sample": 197,
		"thick-512-2014": 984, "thick-512-train-sample": 197,
		"stretch-256-2014": 979, "stretch-256-train-sample": 195,
		"up-400-2014": 986, "up-400-train-sample": 194,
		"down-25-2014": 978, "down-25-train-sample": 193,
	}
	minRecall := map[string]float64{
		"read-2014": 0.99, "read-train-sample": 0.98,
	}
	totalQ, totalF, totalW := 0, 0, 0
	for _, s := range run.sets {
		sc := run.score(s)
		totalQ += sc.queries
		totalF += sc.found
		totalW += sc.wrong
		recall := float64(sc.found) / float64(max(sc.queries, 1))
		t.Logf("%-28s found %4d of %4d (%.1f%%), wrong pairs %d %v", s.name, sc.found, sc.queries, 100*recall, sc.wrong, sc.wrongPairs)
		for _, msg := range inkShortfalls(s.name, sc, minRecall, minFound) {
			t.Error(msg)
		}
	}
	t.Logf("all sets: %d of %d found (%.1f%%), %d wrong pairs (%.3f%%)", totalF, totalQ, 100*float64(totalF)/float64(totalQ), totalW, 100*float64(totalW)/float64(totalQ))
	if float64(totalF) < 0.97*float64(totalQ) {
		t.Errorf("all sets: %d of %d found, want ≥ 97%%", totalF, totalQ)
	}
	// The false-pair control: CROHME train against itself. Pixel-identical
	// pairs are copies in the release (42 of them); every other pair is
	// two writers' samples (or a copy with its points moved), counted.
	others, identical := 0, 0
	var shown []string
	for _, p := range run.rep.Pairs {
		if p.TestSplit != "tr" || p.TrainSplit != "tr" {
			continue
		}
		if p.Identical {
			identical++
			continue
		}
		others++
		shown = append(shown, p.TestID+"~"+p.TrainID)
	}
	t.Logf("CROHME train within itself: %d identical pairs, %d other pairs %v", identical, others, shown)
	if identical < 42 {
		t.Errorf("CROHME train: %d identical pairs found, want the 42", identical)
	}
	// The goal is ≤ 0.1% of the 8,834 items (8 pairs), a pair inside one
	// split listed from whichever of its items finds it (stop 41): 13 with
	// the ink verification, 8 since thick pens are thinned, 5 since the
	// fine rule verifies only queries of at most eight pieces of ink
	// (stop 51): at most the 5 measured, so that a new wrong pair fails.
	if others > 5 {
		t.Errorf("CROHME train: %d non-identical pairs, want ≤ 5 (as measured; the goal is 0.1%% of its 8,834 items, 8)", others)
	}
}

// inkSet is one test set of the real-data ink tests: its split name and
// folder, the corpus holding each item's bitmap (own) and the InkML folder
// it was rasterized from.
type inkSet struct{ name, path, own, inkDir string }

// inkRun is a neardup run of test sets against the CROHME 2014 ("c14") and
// train ("tr") bitmaps at the default settings, with what scoring them
// needs.
type inkRun struct {
	rep     neardup.Report
	sets    []inkSet
	bitmaps map[string]map[string]bool   // each corpus's bitmap ids
	sigs    map[string]map[string]string // each InkML folder's stroke signatures
	// sameBitmap says whether two bitmaps are one sample: their pixels
	// are identical or all but (CROHME train holds copies that differ in
	// a few pixels: formulaire035-equation008 and -073, KME2G3_23_sub_95
	// and TrainData2_21_sub_95).
	sameBitmap func(c1, id1, c2, id2 string) bool
}

// runInkSets rasterizes the CROHME 2014 and train-sample InkML with each
// of rs (and, with read, adds both as leakaudit reads them) and searches
// them against the CROHME 2014 and train bitmaps; with control, CROHME
// train is also searched against itself (split "tr"). It skips the test
// without the shared data.
func runInkSets(t *testing.T, rs []inkraster.Rasterizer, read, control bool) inkRun {
	t.Helper()
	data := shareddata.Dir(t)
	c14, ctr := filepath.Join(data, "crohme", "2014"), filepath.Join(data, "crohme", "train")
	ink14, inkTS := filepath.Join(data, "crohme-inkml", "2014"), filepath.Join(data, "crohme-inkml", "train-sample")
	for _, p := range []string{c14, ctr, ink14, inkTS} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shared data %s not found", p)
		}
	}
	tmp := t.TempDir()
	var sets []inkSet
	if read {
		sets = append(sets, inkSet{"read-2014", ink14, "c14", ink14}, inkSet{"read-train-sample", inkTS, "tr", inkTS})
	}
	for _, r := range rs {
		for _, src := range []struct{ tag, dir, own string }{{"2014", ink14, "c14"}, {"train-sample", inkTS, "tr"}} {
			dir := filepath.Join(tmp, r.Name+"-"+src.tag)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.WriteSet(src.dir, dir); err != nil {
				t.Fatal(err)
			}
			sets = append(sets, inkSet{r.Name + "-" + src.tag, dir, src.own, src.dir})
			t.Logf("%s (%s)", r, src.tag)
		}
	}
	job := neardup.Job{MaxDistance: neardup.DefaultMaxDistance, DB: filepath.Join(tmp, "db"),
		Hash: imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch},
		Train: []index.ImageCorpusInput{
			{Name: "c14", Source: dataset.ImageSource{Path: c14}},
			{Name: "tr", Source: dataset.ImageSource{Path: ctr}},
		}}
	for _, s := range sets {
		job.Tests = append(job.Tests, neardup.ImageSplit{Name: s.name, Source: dataset.ImageSource{Path: s.path}})
	}
	if control {
		job.Tests = append(job.Tests, neardup.ImageSplit{Name: "tr", Source: dataset.ImageSource{Path: ctr}})
	}
	rep, err := neardup.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	bitmaps := map[string]map[string]bool{"c14": {}, "tr": {}}
	for corpus, dir := range map[string]string{"c14": c14, "tr": ctr} {
		ents, err := os.ReadDir(filepath.Join(dir, "img"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			bitmaps[corpus][strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))] = true
		}
	}
	sameBitmap := sameBitmapOf(map[string]string{"c14": c14, "tr": ctr}, job.Hash)
	sigs := map[string]map[string]string{ink14: strokeSignatures(t, ink14), inkTS: strokeSignatures(t, inkTS)}
	return inkRun{rep: rep, sets: sets, bitmaps: bitmaps, sigs: sigs, sameBitmap: sameBitmap}
}

// score counts one set's copies found and wrong pairs (scoreInk).
func (r inkRun) score(s inkSet) inkScore {
	return scoreInk(r.rep, s.name, s.own, r.bitmaps[s.own], r.sigs[s.inkDir], r.sameBitmap)
}

// inkShortfalls lists how one set's score falls short of what
// TestHostileInkMatchRealData holds it to: recall at least minRecall[name]
// (0.88 for a set not named), at least minFound[name] items found when
// named, and at most 0.1% wrong pairs, rounded up to one pair.
func inkShortfalls(name string, sc inkScore, minRecall map[string]float64, minFound map[string]int) []string {
	var out []string
	want, ok := minRecall[name]
	if !ok {
		want = 0.88
	}
	if recall := float64(sc.found) / float64(max(sc.queries, 1)); recall < want {
		out = append(out, fmt.Sprintf("%s: recall %.3f, want ≥ %.2f", name, recall, want))
	}
	if n, ok := minFound[name]; ok && sc.found < n {
		out = append(out, fmt.Sprintf("%s: %d of %d found, want ≥ %d (as measured)", name, sc.found, sc.queries, n))
	}
	if sc.wrong > max(1, sc.queries/1000) {
		out = append(out, fmt.Sprintf("%s: %d wrong pairs among %d queries, want ≤ 0.1%%", name, sc.wrong, sc.queries))
	}
	return out
}

// sameBitmapOf returns the test of whether two bitmaps of the corpora
// (name → CROHME split folder) are one sample: the same pixels, or pixel
// copies (CROHME train holds some that differ in a few pixels: pHash
// within 4 bits and fine hash within 12). Each bitmap is hashed once.
func sameBitmapOf(dirs map[string]string, hash imagehash.Options) func(c1, id1, c2, id2 string) bool {
	prints := map[string]imagehash.Hashes{}
	print := func(corpus, id string) imagehash.Hashes {
		key := corpus + ":" + id
		if fp, ok := prints[key]; ok {
			return fp
		}
		var fp imagehash.Hashes
		if b, err := os.ReadFile(filepath.Join(dirs[corpus], "img", id+".png")); err == nil {
			it := dataset.ImageItem{ID: id, Data: b}
			if img, err := it.Decode(dataset.ImageLimits{}); err == nil {
				fp, _ = imagehash.Compute(img, hash)
			}
		}
		prints[key] = fp
		return fp
	}
	return func(c1, id1, c2, id2 string) bool {
		a, b := print(c1, id1), print(c2, id2)
		return a.Digest == b.Digest || bits.OnesCount64(a.Hash^b.Hash) <= 4 && imagehash.FineDistance(a, b) <= 12
	}
}
