package cdm

import "sync"

// bump hands out zeroed slices carved from one buffer, so that a pair's
// working arrays cost no allocation once the buffer is large enough. The
// slices stay valid until reset; a buffer that runs out is replaced by a
// larger one (the slices already handed out keep the old one).
type bump[T any] struct {
	buf []T
}

// take returns a zeroed slice of n elements, capacity capped at n.
func (b *bump[T]) take(n int) []T {
	if cap(b.buf)-len(b.buf) < n {
		b.buf = make([]T, 0, max(2*cap(b.buf), n, 256))
	}
	k := len(b.buf)
	b.buf = b.buf[:k+n]
	s := b.buf[k : k+n : k+n]
	clear(s)
	return s
}

// reset makes the whole buffer available again.
func (b *bump[T]) reset() { b.buf = b.buf[:0] }

// scoreScratch is Score's working memory: the cost matrix, the
// assignment's arrays and the token numbering, none of which a Result
// keeps.
type scoreScratch struct {
	floats  bump[float64]
	ints    bump[int]
	int32s  bump[int32]
	bools   bump[bool]
	quads   bump[[4]float64] // relative boxes
	pairs   bump[[2]float64] // box centres
	ids     map[string]int32
	classes map[string]int32
	classOf []int32
}

// maxScratchFloats bounds the buffers kept for the next pair (a very long
// pair's matrix is left to the collector).
const maxScratchFloats = 1 << 20

var scratchPool = sync.Pool{New: func() any {
	return &scoreScratch{ids: map[string]int32{}, classes: map[string]int32{}}
}}

// getScratch returns a scratch for one Score call; putScratch hands it back.
func getScratch() *scoreScratch { return scratchPool.Get().(*scoreScratch) }

func putScratch(s *scoreScratch) {
	if cap(s.floats.buf) > maxScratchFloats || cap(s.ints.buf) > maxScratchFloats ||
		cap(s.int32s.buf) > maxScratchFloats || cap(s.bools.buf) > maxScratchFloats || len(s.ids) > 1<<14 ||
		cap(s.quads.buf) > maxScratchFloats/4 || cap(s.pairs.buf) > maxScratchFloats/2 {
		return
	}
	s.floats.reset()
	s.ints.reset()
	s.int32s.reset()
	s.bools.reset()
	s.quads.reset()
	s.pairs.reset()
	clear(s.ids)
	clear(s.classes)
	s.classOf = s.classOf[:0]
	scratchPool.Put(s)
}
