package neardup_test

import (
	"context"
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

// smallSeeds are the seeds of the small-canvas rasterizers
// TestHostileSmallInkRealData measures: LEAKAUDIT_SMALLSEEDS
// (comma-separated) when set, else three seeds whose canvases are small
// (inkraster.Random: a 4.5 px pen on 206×206 scaled to 103×103; a 3.3 px
// pen on 80×80 scaled up 271%; 68×68 scaled to 40×40 with a 1.7 px pen).
func smallSeeds(t *testing.T) []uint64 {
	s := os.Getenv("LEAKAUDIT_SMALLSEEDS")
	if s == "" {
		return []uint64{3731661644, 827649761, 3086049060}
	}
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("LEAKAUDIT_SMALLSEEDS: %v", err)
		}
		out = append(out, n)
	}
	return out
}

// TestHostileSmallInkRealData measures the matcher on handwriting
// rasterized small (CROHME 2014 and train-sample InkML, each rasterized by
// the small-canvas seeds) against the CROHME 2014 and train bitmaps: at
// most 0.1% wrong pairs per set (rounded up to one pair), whatever the
// size of the ink, and at least the recall measured when the small-ink
// keys were written (README, "Copies rasterized by another pipeline").
// The 99% goal is not met on such canvases; the floors keep what was
// reached.
func TestHostileSmallInkRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: rasterizes and hashes about 17,000 images")
	}
	data := shareddata.Dir(t)
	c14, ctr := filepath.Join(data, "crohme", "2014"), filepath.Join(data, "crohme", "train")
	ink14, inkTS := filepath.Join(data, "crohme-inkml", "2014"), filepath.Join(data, "crohme-inkml", "train-sample")
	for _, p := range []string{c14, ctr, ink14, inkTS} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shared data %s not found", p)
		}
	}
	tmp := t.TempDir()
	type set struct{ name, path, own, inkDir string }
	var sets []set
	for _, s := range smallSeeds(t) {
		r := inkraster.Random(s)
		for _, src := range []struct{ tag, dir, own string }{{"2014", ink14, "c14"}, {"train-sample", inkTS, "tr"}} {
			dir := filepath.Join(tmp, r.Name+"-"+src.tag)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.WriteSet(src.dir, dir); err != nil {
				t.Fatal(err)
			}
			sets = append(sets, set{r.Name + "-" + src.tag, dir, src.own, src.dir})
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
	prints := map[string]imagehash.Hashes{}
	print := func(corpus, id string) imagehash.Hashes {
		key := corpus + ":" + id
		if fp, ok := prints[key]; ok {
			return fp
		}
		dir := map[string]string{"c14": c14, "tr": ctr}[corpus]
		var fp imagehash.Hashes
		if b, err := os.ReadFile(filepath.Join(dir, "img", id+".png")); err == nil {
			it := dataset.ImageItem{ID: id, Data: b}
			if img, err := it.Decode(dataset.ImageLimits{}); err == nil {
				fp, _ = imagehash.Compute(img, job.Hash)
			}
		}
		prints[key] = fp
		return fp
	}
	sameBitmap := func(c1, id1, c2, id2 string) bool {
		a, b := print(c1, id1), print(c2, id2)
		return a.Digest == b.Digest || bits.OnesCount64(a.Hash^b.Hash) <= 4 && imagehash.FineDistance(a, b) <= 12
	}
	sigs := map[string]map[string]string{ink14: strokeSignatures(t, ink14), inkTS: strokeSignatures(t, inkTS)}
	// Floors: the items each seen seed's sets found with the small-ink
	// keys (before them: 894, 658, 269 and 173, 133, 54; the rasterizers
	// and the search are deterministic), so that any loss of recall
	// fails; a set not named (another seed) is held to the wrong pairs
	// only.
	minFound := map[string]int{
		"seed-3731661644-2014": 938, "seed-3731661644-train-sample": 184,
		"seed-827649761-2014": 770, "seed-827649761-train-sample": 157,
		"seed-3086049060-2014": 321, "seed-3086049060-train-sample": 63,
	}
	minRecall := map[string]float64{}
	for _, s := range sets {
		minRecall[s.name] = 0
	}
	tooSmall := map[string]int64{}
	for _, sum := range rep.Summary {
		tooSmall[sum.TestSplit] = sum.InkTooSmall
	}
	for _, s := range sets {
		sc := scoreInk(rep, s.name, s.own, bitmaps[s.own], sigs[s.inkDir], sameBitmap)
		t.Logf("%-28s found %4d of %4d (%.1f%%), wrong pairs %d %v, ink too small %d", s.name, sc.found, sc.queries,
			100*float64(sc.found)/float64(max(sc.queries, 1)), sc.wrong, sc.wrongPairs, tooSmall[s.name])
		for _, msg := range inkShortfalls(s.name, sc, minRecall, minFound) {
			t.Error(msg)
		}
	}
}
