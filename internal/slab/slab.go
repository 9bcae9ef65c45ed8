// Package slab hands out many small objects of one type from chunks
// that are cleared and reused, for work that makes them by the thousand
// and drops them all at once (a formula's layout, a parse).
//
// A Slab hands out single objects and a Slices hands out short slices;
// Reset zeroes what was handed out and makes it available again, so a
// holder kept in a sync.Pool allocates only when a formula needs more
// than any before it. Nothing handed out may be used after Reset.
package slab

// ChunkLen is the length of a Slab's k-th chunk: 32, 64, 128, then 256.
func ChunkLen(k int) int { return 32 << min(k, 3) }

// SlicesChunk is the length of a Slices chunk; Take hands out slices of
// up to half of it from the chunks, longer ones from the heap.
const SlicesChunk = 512

// Slab hands out zeroed objects of type T. The zero Slab is ready to use.
type Slab[T any] struct {
	chunks [][]T
	ci, i  int // the chunk in use and its next free object
}

// New returns a pointer to a zeroed T, valid until Reset.
func (s *Slab[T]) New() *T {
	for {
		if s.ci < len(s.chunks) {
			if c := s.chunks[s.ci]; s.i < len(c) {
				s.i++
				return &c[s.i-1]
			}
			s.ci, s.i = s.ci+1, 0
			continue
		}
		s.chunks = append(s.chunks, make([]T, ChunkLen(len(s.chunks))))
	}
}

// Chunks is the number of chunks s holds (to bound what a pool keeps).
func (s *Slab[T]) Chunks() int { return len(s.chunks) }

// Reset zeroes what was handed out and makes it available again.
func (s *Slab[T]) Reset() { s.ci, s.i = clearUsed(s.chunks, s.ci, s.i) }

// Slices hands out zeroed slices of T carved from chunks; each slice's
// capacity is capped at its length, so that appending to it copies it
// rather than writing into the next one. The zero Slices is ready to use.
type Slices[T any] struct {
	chunks [][]T
	ci, i  int
}

// Take returns a zeroed slice of n elements, capacity n, valid until
// Reset.
func (s *Slices[T]) Take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > SlicesChunk/2 {
		return make([]T, n)
	}
	for {
		if s.ci < len(s.chunks) {
			if c := s.chunks[s.ci]; s.i+n <= len(c) {
				s.i += n
				return c[s.i-n : s.i : s.i]
			}
			s.ci, s.i = s.ci+1, 0
			continue
		}
		s.chunks = append(s.chunks, make([]T, SlicesChunk))
	}
}

// Chunks is the number of chunks s holds.
func (s *Slices[T]) Chunks() int { return len(s.chunks) }

// Reset zeroes what was handed out and makes it available again.
func (s *Slices[T]) Reset() { s.ci, s.i = clearUsed(s.chunks, s.ci, s.i) }

// clearUsed zeroes chunks up to chunk ci's first i elements and returns
// the cursor of an emptied holder.
func clearUsed[T any](chunks [][]T, ci, i int) (int, int) {
	for k := 0; k < len(chunks) && k <= ci; k++ {
		c := chunks[k]
		if k == ci {
			c = c[:i]
		}
		clear(c)
	}
	return 0, 0
}
