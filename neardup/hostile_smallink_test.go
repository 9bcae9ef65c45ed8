package neardup_test

import (
	"testing"

	"github.com/leakaudit/leakaudit/internal/inkraster"
)

// smallSeeds are the seeds of the small-canvas rasterizers
// TestHostileSmallInkRealData measures: LEAKAUDIT_SMALLSEEDS when set,
// else three seeds whose canvases are small (inkraster.Random: a 4.5 px pen on 206×206 scaled to 103×103; a 3.3 px
// pen on 80×80 scaled up 271%; 68×68 scaled to 40×40 with a 1.7 px pen).
func smallSeeds(t *testing.T) []uint64 {
	return envSeeds(t, "LEAKAUDIT_SMALLSEEDS", []uint64{3731661644, 827649761, 3086049060})
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
	var rs []inkraster.Rasterizer
	for _, s := range smallSeeds(t) {
		rs = append(rs, inkraster.Random(s))
	}
	run := runInkSets(t, rs, false, false)
	// Floors: the items each seen seed's sets found with the small-ink
	// keys and the thinner pens (before them: 894, 658, 269 and 173, 133,
	// 54; with the keys alone: 938, 770, 321 and 184, 157, 63; the
	// rasterizers and the search are deterministic), so that any loss of
	// recall fails; a set not named (another seed) is held to the wrong
	// pairs only. Seed 3086049060 cuts 0.7% at the top: with the thinner
	// pens and the cut variants verified within 0.63 px
	// (imagehash.VerifyCutInk) together, its sets find 376 and 72 (377
	// and 73 with the cut variants within 0.7 px). Stop 48: every side's
	// cut variants searched (+4 and +2 on seed 3731661644's sets, +2 on
	// 3086049060 (2014)) and the last small level no longer verifying a
	// query's own ink, a silhouette there (−5 on 827649761 (2014), −1 on
	// 3086049060 (train-sample)): 965, 190, 889, 175, 383, 72.
	minFound := map[string]int{
		"seed-3731661644-2014": 965, "seed-3731661644-train-sample": 190,
		"seed-827649761-2014": 889, "seed-827649761-train-sample": 175,
		"seed-3086049060-2014": 383, "seed-3086049060-train-sample": 72,
	}
	minRecall := map[string]float64{}
	for _, s := range run.sets {
		minRecall[s.name] = 0
	}
	tooSmall := map[string]int64{}
	for _, sum := range run.rep.Summary {
		tooSmall[sum.TestSplit] = sum.InkTooSmall
	}
	for _, s := range run.sets {
		sc := run.score(s)
		t.Logf("%-28s found %4d of %4d (%.1f%%), wrong pairs %d %v, ink too small %d", s.name, sc.found, sc.queries,
			100*float64(sc.found)/float64(max(sc.queries, 1)), sc.wrong, sc.wrongPairs, tooSmall[s.name])
		for _, msg := range inkShortfalls(s.name, sc, minRecall, minFound) {
			t.Error(msg)
		}
	}
}
