package tex

import "testing"

// TestPixelEdgesExact: the token boxes' edges equal the reference
// pipeline's own (pdflatex, Ghostscript at 200 dpi) pixel for pixel on
// the 1,200 formulas of refcdm/reference_600, not only within a pixel:
// a residual near the RANSAC threshold of 20 px turns on one pixel. With
// glyphs snapped to the device grid (y from the page's bottom edge) the
// vertical edges agree on 99.6% of boxes and the horizontal ones on
// about 90%; unsnapped AFM boxes agreed on about 55%.
func TestPixelEdgesExact(t *testing.T) {
	st := comparePixels(t, ReferenceRaster)
	if st.boxes == 0 {
		t.Fatal("no boxes compared")
	}
	bars := [4]float64{0.88, 0.99, 0.88, 0.99}
	for i, name := range []string{"x1", "y1", "x2", "y2"} {
		share := float64(st.hist[i][0]) / float64(st.boxes)
		t.Logf("%s: %.2f%% of %d boxes exact (off by -1: %d, +1: %d)", name, 100*share, st.boxes, st.hist[i][-1], st.hist[i][1])
		if share < bars[i] {
			t.Errorf("%s exact on %.2f%% of boxes; the bar is %.0f%%", name, 100*share, 100*bars[i])
		}
	}
	sizes := float64(st.exactSize) / float64(st.compared)
	t.Logf("crop size identical on %d of %d formulas (%.2f%%)", st.exactSize, st.compared, 100*sizes)
	if sizes < 0.85 {
		t.Errorf("crop size identical on %.2f%%; the bar is 85%%", 100*sizes)
	}
}
