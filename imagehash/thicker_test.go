package imagehash

import (
	"image"
	"sync"
	"testing"
)

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

// TestThickerKeptBits checks that the drawings made on first need from
// the kept bits are those of the crop itself (drawn at once, as a crop
// beyond thickerKeep is), and that a large crop keeps no bits.
func TestThickerKeptBits(t *testing.T) {
	o := Options{Kind: PHash, Canvas: Stretch, Probe: true}
	big := 0
	for _, img := range []*image.Gray{formula(), scale(formula(), 6, 6)} {
		c, th, _, ok := cropAt(ToGray(img))
		if !ok {
			t.Fatal("no ink")
		}
		p := penOfRuns(inkRuns(c, th))
		kept := newThicker(c, th, p, o)
		large := c.W*c.H > thickerKeep
		if large {
			big++
		}
		if large != (kept.bits == nil) {
			t.Errorf("%d×%d crop: kept bits %v, want %v", c.W, c.H, kept.bits != nil, !large)
		}
		kept.drawings()
		direct := &thicker{p: p, o: o}
		direct.draw(c, th)
		if len(kept.list) != len(direct.list) {
			t.Fatalf("%d×%d crop: %d drawings from the kept bits, %d from the crop", c.W, c.H, len(kept.list), len(direct.list))
		}
		for i := range kept.list {
			if kept.list[i] != direct.list[i] {
				t.Errorf("%d×%d crop: drawing %d differs from the crop's", c.W, c.H, i)
			}
		}
		if kept.bits != nil {
			t.Errorf("%d×%d crop: bits kept after drawing", c.W, c.H)
		}
	}
	if big != 1 {
		t.Errorf("%d of the two crops beyond thickerKeep, want 1", big)
	}
}

// TestThickerConcurrent checks that candidates verified at once from
// several goroutines share one set of drawings (run with -race).
func TestThickerConcurrent(t *testing.T) {
	q := mustCompute(t, formula(), Options{Kind: PHash, Canvas: Stretch, Probe: true})
	got := make([]Ink, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, ok := q.thicker.drawings(); ok {
				got[i] = d.Ink
			}
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i].IsZero() || got[i] != got[0] {
			t.Fatalf("goroutine %d: drawing differs or is missing", i)
		}
	}
}
