package slab

import "testing"

// TestReuse: objects and slices handed out after Reset are zeroed and
// come from the same memory; distinct ones never overlap; a slice's
// capacity is its length.
func TestReuse(t *testing.T) {
	var s Slab[[2]int]
	var first []*[2]int
	for k := range 100 { // crosses chunks of 32 and 64
		p := s.New()
		if *p != [2]int{} {
			t.Fatalf("object %d not zeroed: %v", k, *p)
		}
		*p = [2]int{k, k}
		first = append(first, p)
	}
	for k, p := range first {
		if *p != [2]int{k, k} {
			t.Fatalf("object %d overwritten: %v", k, *p)
		}
	}
	s.Reset()
	for k := range 100 {
		p := s.New()
		if p != first[k] || *p != [2]int{} {
			t.Fatalf("after Reset, object %d: same memory %v, value %v", k, p == first[k], *p)
		}
	}
	if s.Chunks() != 3 {
		t.Errorf("%d chunks for 100 objects, want 3 (32+64+128)", s.Chunks())
	}

	var ps Slices[int]
	a, b := ps.Take(3), ps.Take(2)
	if cap(a) != 3 || cap(b) != 2 {
		t.Errorf("capacities %d and %d, want 3 and 2", cap(a), cap(b))
	}
	a[0], a[2], b[0] = 1, 3, 7
	if a2 := append(a, 4); b[0] != 7 || &a2[0] == &a[0] {
		t.Error("appending to one slice wrote into the next")
	}
	if big := ps.Take(SlicesChunk); len(big) != SlicesChunk || ps.Chunks() != 1 {
		t.Errorf("a long slice: len %d, %d chunks; want %d from the heap, 1 chunk", len(big), ps.Chunks(), SlicesChunk)
	}
	ps.Reset()
	if c := ps.Take(5); c[0] != 0 || c[2] != 0 || c[4] != 0 {
		t.Errorf("after Reset: %v, want zeros", c)
	}
}
