package imagehash_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/inkraster"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestHostileSqueezedPen checks a thick pen on a canvas stretched to
// another aspect: a wide formula squeezed onto a narrow canvas, its round
// pen merging neighbouring symbols along the squeezed axis, so that the
// pen is overestimated (squeeze.go). The ink drawn again with thinner
// pens verifies the copy; another formula stays apart; the bitmap, at its
// own aspect, is not taken for squeezed.
func TestHostileSqueezedPen(t *testing.T) {
	rs := []inkraster.Rasterizer{
		{Name: "pen 5.1 on 127×324 stretched, ×0.84", Stroke: 5.1, Height: 324, Width: 127, Stretch: true, AA: true, WhiteOnBlack: true, Margin: 18, Scale: 0.84},
		{Name: "pen 5 on 100×300 stretched", Stroke: 5, Height: 300, Width: 100, Stretch: true, Margin: 10, Scale: 1},
		{Name: "pen 6 on 120×200 stretched", Stroke: 6, Height: 200, Width: 120, Stretch: true, AA: true, Margin: 10, Scale: 1},
		{Name: "pen 6 on 193×257 stretched", Stroke: 6, Height: 257, Width: 193, Stretch: true, AA: true, WhiteOnBlack: true, Margin: 24, Scale: 1},
	}
	// The long formulas are squeezed most: without the thinner pens their
	// copies lie 0.9–1.3 px from their bitmaps on the first three
	// rasterizers.
	formulas := []formulaPair{
		{"x2+y2=1-ab+17x-y", "a2+b2=7-yx+71y-x"},
		{"ab-17=x2+y-2a+b", "ba-71=y2+x-2b+a"},
		{"x2+y2=1-ab", "a2+b2=7-yx"},
		{"2a+b=x-1", "2b+a=y-7"},
	}
	checkThinnerPen(t, rs, formulas, func(r inkraster.Rasterizer, f formulaPair, q, own imagehash.Hashes) {
		_, okOwn := imagehash.Verify(q, own)
		e := imagehash.InkDistance(q, own)
		t.Logf("%s, %s: squeezed %v, ink %.2f", r.Name, f.query, q.Squeezed(), e)
		if okOwn && e > imagehash.VerifyInkFine && !verifiedBy(q, own, imagehash.ByThinnerPen) {
			t.Errorf("%s, %s: verified at %.2f px, but not marked as verified by the thinner pens", r.Name, f.query, e)
		}
		if hashStrokes(t, thinPenBitmap, inkraster.Formula(f.query), true).Squeezed() {
			t.Errorf("%s: the bitmap at its own aspect is taken for squeezed", f.query)
		}
	})
}

// TestHostileSqueezedSmallReal checks real handwriting (CROHME 2014
// InkML, the shared data) drawn on a small stretched canvas: pen 4.8 on
// 139×239 stretched, ×0.30 (seed 3626721654), so that a formula's ink is
// about 25×56 px with a pen of 1.4. These copies' runs along rows
// outnumber those along columns only 2–3 times, yet their pen is
// measured too thick and they lie 0.9–2.7 px from their bitmaps; the
// ink drawn with thinner pens verifies them (squeezeFrom), and no other
// bitmap of CROHME 2014.
func TestHostileSqueezedSmallReal(t *testing.T) {
	data := shareddata.Dir(t)
	r := inkraster.Random(3626721654)
	ids := []string{"18_em_17", "20_em_27", "31_em_188", "505_em_47", "26_em_99"}
	dir := filepath.Join(data, "crohme", "2014", "img")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	bitmaps := map[string]imagehash.Hashes{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".png"); ok {
			bitmaps[id] = bitmapPrint(t, filepath.Join(dir, e.Name()))
		}
	}
	for _, id := range ids {
		q := inkQuery(t, r, filepath.Join(data, "crohme-inkml", "2014", id+".inkml"))
		own, ok := bitmaps[id]
		if !ok {
			t.Fatalf("%s: no bitmap", id)
		}
		t.Logf("%s: squeezed %v, ink %.2f", id, q.Squeezed(), imagehash.InkDistance(q, own))
		if !q.Squeezed() {
			t.Errorf("%s: not taken for squeezed", id)
		}
		if !verifiedBy(q, own, imagehash.ByThinnerPen) {
			t.Errorf("%s: the copy is not verified by a thinner pen (ink %.2f)", id, imagehash.InkDistance(q, own))
		}
		for other, fp := range bitmaps {
			if other == id {
				continue
			}
			if _, ok := imagehash.Verify(q, fp); ok {
				t.Errorf("%s: %s verified as its copy", id, other)
			}
		}
	}
}
