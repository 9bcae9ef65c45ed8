package imagehash_test

import (
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestHostileFineRuleLongFormulaReal checks the fine rule's limit on the
// pieces of ink (VerifyInkFineParts) on real handwriting (the shared
// data). Two writers of one long formula in CROHME train lie within
// VerifyInkFine of each other with their fine hashes within
// VerifyDistance, so the fine rule alone would pair them; a query of that
// many pieces is not verified by it. Copies of short formulas drawn by
// other pipelines (CROHME 2014 InkML) that only the fine rule verifies
// stay verified.
func TestHostileFineRuleLongFormulaReal(t *testing.T) {
	data := shareddata.Dir(t)
	train := filepath.Join(data, "crohme", "train", "img")
	writers := [][2]string{
		{"98_leissi", "98_user0"},
		{"200922-1017-79", "200923-1251-79"},
		{"MfrDB1273", "MfrDB3295"},
	}
	for _, w := range writers {
		q := bitmapQuery(t, filepath.Join(train, w[0]+".png"))
		other := bitmapPrint(t, filepath.Join(train, w[1]+".png"))
		e, d := imagehash.InkDistance(q, other), imagehash.FineDistance(q, other)
		t.Logf("%s against %s: %d pieces, ink %.2f, fine %d", w[0], w[1], q.Parts, e, d)
		if e <= imagehash.VerifyInk || e > imagehash.VerifyInkFine || d > imagehash.VerifyDistance {
			t.Errorf("%s against %s: ink %.2f, fine %d: not a pair the fine rule alone decides", w[0], w[1], e, d)
		}
		if q.Parts <= imagehash.VerifyInkFineParts {
			t.Errorf("%s: %d pieces of ink, want more than %d", w[0], q.Parts, imagehash.VerifyInkFineParts)
		}
		if _, ok := imagehash.Verify(q, other); ok {
			t.Errorf("%s and %s, two writers of one formula, verified as a copy", w[0], w[1])
		}
	}
	copies := []struct {
		seed uint64
		id   string
	}{
		{3331127235, "517_em_402"},
		{3331127235, "RIT_2014_99"},
		{3626721654, "515_em_368"},
		{3626721654, "RIT_2014_130"},
	}
	for _, c := range copies {
		q := inkQuery(t, inkraster.Random(c.seed), filepath.Join(data, "crohme-inkml", "2014", c.id+".inkml"))
		own := bitmapPrint(t, filepath.Join(data, "crohme", "2014", "img", c.id+".png"))
		e, d := imagehash.InkDistance(q, own), imagehash.FineDistance(q, own)
		t.Logf("%s (seed %d): %d pieces, ink %.2f, fine %d", c.id, c.seed, q.Parts, e, d)
		if e <= imagehash.VerifyInk {
			t.Errorf("%s (seed %d): ink %.2f, within VerifyInk: not a copy the fine rule decides", c.id, c.seed, e)
		}
		if !verifiedBy(q, own, imagehash.ByEstimate) {
			t.Errorf("%s (seed %d): the copy of %d pieces is not verified (ink %.2f, fine %d)", c.id, c.seed, q.Parts, e, d)
		}
	}
}
