package imagehash

import "testing"

// TestThickerDrawings checks that a query is also drawn with thicker
// pens, each with less ink on the canvas than the estimate's drawing
// (its strokes thinned more), that a candidate is tried with them only
// within thickerWithin, and that a training image is not drawn so.
func TestThickerDrawings(t *testing.T) {
	img := formula()
	q := mustCompute(t, img, Options{Kind: PHash, Canvas: Stretch, Probe: true})
	if q.thicker == nil {
		t.Fatal("query not drawn with thicker pens")
	}
	d, ok := q.thicker.drawings()
	if !ok || len(q.thicker.list) != len(thickerShares) {
		t.Fatalf("%d drawings with thicker pens, want %d", len(q.thicker.list), len(thickerShares))
	}
	prev := q.Ink.Pixels()
	for i, k := range q.thicker.list {
		if n := k.Pixels(); n >= prev {
			t.Errorf("drawing %d (pen ×%.2f): %d ink pixels, want fewer than %d", i, thickerShares[i], n, prev)
		} else {
			prev = n
		}
	}
	train := Hashes{Ink: d.Ink}
	if !verifyThicker(q, train, thickerWithin) {
		t.Error("a training image with the thicker drawing's ink is not verified by it")
	}
	if verifyThicker(q, train, thickerWithin+0.01) {
		t.Error("a candidate beyond thickerWithin is verified by a thicker drawing")
	}
	if tr := mustCompute(t, img, Options{Kind: PHash, Canvas: Stretch}); tr.thicker != nil {
		t.Error("a training image is drawn with thicker pens")
	}
}
