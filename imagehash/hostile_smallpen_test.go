package imagehash_test

import (
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/inkraster"
)

// TestHostileSmallInkThinnerPen checks small ink whose pen the matcher
// overestimates: merged strokes have less outline for their area than
// the pen drew, so the estimated pen is too thick and the copy's strokes
// are squeezed when the ink box less the pen is fitted to the canvas.
// The ink drawn again with thinner pens (small.go, penAlt) verifies the
// copy; another formula stays apart.
func TestHostileSmallInkThinnerPen(t *testing.T) {
	rs := []inkraster.Rasterizer{
		{Name: "pen 3.7 on 137×137, ×0.75", Stroke: 3.7, Height: 137, Width: 137, AA: true, Margin: 12, Scale: 0.75},
		{Name: "pen 3.3 on 80×80, ×2.71", Stroke: 3.3, Height: 80, Width: 80, Margin: 8, Scale: 2.71},
		{Name: "pen 3.0 on 86×86", Stroke: 3.0, Height: 86, Width: 86, AA: true, WhiteOnBlack: true, Margin: 10, Scale: 1},
		{Name: "pen 4.5 on 206×206, ×0.5", Stroke: 4.5, Height: 206, Width: 206, WhiteOnBlack: true, Margin: 14, Scale: 0.5},
	}
	formulas := []formulaPair{
		{"x2+y2=1-ab", "a2+b2=7-yx"},
		{"ab-17=x2+y", "ba-71=y2+x"},
		{"y=7x+1", "y=1x+7"},
		{"2a+b=x-1", "2b+a=y-7"},
	}
	checkThinnerPen(t, rs, formulas, func(r inkraster.Rasterizer, f formulaPair, q, own imagehash.Hashes) {
		t.Logf("%s, %s: small %v", r.Name, f.query, q.SmallLevels())
	})
}

// thinPenBitmap draws the training images of checkThinnerPen: a thin pen
// at the formula's own aspect, as CROHME's bitmaps.
var thinPenBitmap = inkraster.Rasterizer{Name: "bitmap", Stroke: 1.5, Height: 120, AA: true, Scale: 1}

// formulaPair is a formula and another, of the same symbols, that must not
// be taken for its copy.
type formulaPair struct{ query, other string }

// checkThinnerPen draws each formula by each rasterizer as a query and by
// one thin-pen bitmap rasterizer as a training image, and fails when the
// copy is not verified or the other formula is; check, when not nil,
// checks more of each case (q the query, own its bitmap's hashes).
func checkThinnerPen(t *testing.T, rs []inkraster.Rasterizer, formulas []formulaPair, check func(r inkraster.Rasterizer, f formulaPair, q, own imagehash.Hashes)) {
	t.Helper()
	bitmap := thinPenBitmap
	for _, r := range rs {
		for _, f := range formulas {
			q := hashStrokes(t, r, inkraster.Formula(f.query), true)
			own := hashStrokes(t, bitmap, inkraster.Formula(f.query), false)
			other := hashStrokes(t, bitmap, inkraster.Formula(f.other), false)
			_, okOwn := imagehash.Verify(q, own)
			_, okOther := imagehash.Verify(q, other)
			t.Logf("%s, %s: copy %v, other %v", r.Name, f.query, okOwn, okOther)
			if !okOwn {
				t.Errorf("%s, %s: the copy is not verified", r.Name, f.query)
			}
			if okOther {
				t.Errorf("%s, %s: %s verified as its copy", r.Name, f.query, f.other)
			}
			if check != nil {
				check(r, f, q, own)
			}
		}
	}
}
