package tex

import "testing"

// TestPixelEdgesExact: the token boxes' edges equal the reference
// pipeline's own (pdflatex, Ghostscript at 200 dpi) pixel for pixel on
// the 1,200 formulas of refcdm/reference_600, not only within a pixel:
// a residual near the RANSAC threshold of 20 px turns on one pixel. With
// glyphs snapped to the device grid (y from the page's bottom edge) the
// vertical edges agreed on 99.6% of boxes and the horizontal ones on
// about 90% (unsnapped AFM boxes on about 55%); each edge of a snapped
// glyph falls at the same fraction of a pixel wherever it is, and the
// per-glyph corrections of glyphAdjust bring every edge to 99.8% or more
// and the crop's size to 99.8% of formulas (on fresh pairs, not fitted
// on, 99.4–100%).
func TestPixelEdgesExact(t *testing.T) {
	st := comparePixels(t, ReferenceRaster)
	if st.boxes == 0 {
		t.Fatal("no boxes compared")
	}
	bars := [4]float64{0.995, 0.995, 0.995, 0.995}
	for i, name := range []string{"x1", "y1", "x2", "y2"} {
		share := float64(st.hist[i][0]) / float64(st.boxes)
		t.Logf("%s: %.2f%% of %d boxes exact (off by -1: %d, +1: %d)", name, 100*share, st.boxes, st.hist[i][-1], st.hist[i][1])
		if share < bars[i] {
			t.Errorf("%s exact on %.2f%% of boxes; the bar is %.1f%%", name, 100*share, 100*bars[i])
		}
	}
	sizes := float64(st.exactSize) / float64(st.compared)
	t.Logf("crop size identical on %d of %d formulas (%.2f%%)", st.exactSize, st.compared, 100*sizes)
	if sizes < 0.99 {
		t.Errorf("crop size identical on %.2f%%; the bar is 99%%", 100*sizes)
	}
}
