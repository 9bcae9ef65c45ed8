package imagehash_test

import (
	"math/bits"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/inkraster"
)

func hashStrokes(t *testing.T, r inkraster.Rasterizer, st []dataset.Stroke, query bool) imagehash.Hashes {
	t.Helper()
	img, err := r.Render(st)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := imagehash.Compute(img, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: query})
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// TestHostileSmallInk checks the matcher on handwriting rasterized small:
// a thick pen on a small square canvas merges a wide formula's strokes,
// and its copy is still verified against the training bitmap (at the
// query's small-ink level) while another formula is not; a formula kept
// a couple of pen widths high is too small to verify on the image alone.
func TestHostileSmallInk(t *testing.T) {
	bitmap := inkraster.Rasterizer{Name: "bitmap", Stroke: 1.5, Height: 120, AA: true, Scale: 1}
	thick := inkraster.Rasterizer{Name: "thick", Stroke: 3.3, Height: 80, Width: 80, Margin: 4, Scale: 1}
	tiny := inkraster.Rasterizer{Name: "tiny", Stroke: 2.8, Height: 68, Width: 68, Margin: 8, Scale: 0.59}
	tests := []struct {
		name       string
		r          inkraster.Rasterizer
		query, of  string
		wantCopy   bool
		wantSmall  bool
		wantTooSml bool
	}{
		{"thick pen, same strokes", thick, "x2+y2=1", "x2+y2=1", true, true, false},
		{"thick pen, another formula", thick, "x2+y2=1", "a2+b2=7", false, true, false},
		{"thick pen, wide, same strokes", thick, "x2+y2=1-ab", "x2+y2=1-ab", true, true, false},
		{"thick pen, wide, another formula", thick, "x2+y2=1-ab", "a2+b2=7-yx", false, true, false},

		{"tiny, same strokes", tiny, "x2+y2=1-ab", "x2+y2=1-ab", false, false, true},
		{"tiny, another formula", tiny, "x2+y2=1-ab", "a2+b2=7-yx", false, false, true},
	}
	for _, tt := range tests {
		q := hashStrokes(t, tt.r, inkraster.Formula(tt.query), true)
		tr := hashStrokes(t, bitmap, inkraster.Formula(tt.of), false)
		fine, ok := imagehash.Verify(q, tr)
		t.Logf("%s: fine %d, ink %.2f, phash %d", tt.name, fine, imagehash.InkDistance(q, tr), bits.OnesCount64(q.Hash^tr.Hash))
		if ok != tt.wantCopy {
			t.Errorf("%s: verified %v, want %v (ink distance %.2f)", tt.name, ok, tt.wantCopy, imagehash.InkDistance(q, tr))
		}
		if tt.wantCopy {
			// Found: within the pHash radius, or by a small-ink key.
			d := bits.OnesCount64(q.Hash ^ tr.Hash)
			for _, l := range q.SmallLevels() {
				for _, k := range q.SmallKeys(l) {
					d = min(d, bits.OnesCount64(k^tr.Ink.SmallKey(l)))
				}
			}
			if d > imagehash.SmallRadius {
				t.Errorf("%s: the copy's keys are %d bits away, want ≤ %d", tt.name, d, imagehash.SmallRadius)
			}
		}
		if got := q.SmallLevels() != nil; got != tt.wantSmall {
			t.Errorf("%s: small ink %v, want %v", tt.name, got, tt.wantSmall)
		}
		if got := q.TooSmall(); got != tt.wantTooSml {
			t.Errorf("%s: too small %v, want %v", tt.name, got, tt.wantTooSml)
		}
		if tr.TooSmall() || tr.SmallLevels() != nil {
			t.Errorf("%s: a training image is never small", tt.name)
		}
	}
}
