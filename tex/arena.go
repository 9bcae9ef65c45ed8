package tex

import "sync"

// The layout of a formula makes many small objects (a noad per symbol,
// colour marks, character and box nodes, the short lists that hold
// them), all garbage once its Layout is made: nothing a Layout holds
// points to a noad or a node. The engine takes the most frequent ones
// from an arena, which typeset hands back to a pool when the layout is
// made, cleared, so that the next formula reuses the same memory instead
// of allocating it afresh.

// arena holds one layout's noads, nodes, lists and short slices of them.
type arena struct {
	noads    slab[noad]
	nodes    slab[node]
	lists    slab[list]
	noadPtrs ptrs[*noad]
	nodePtrs ptrs[*node]
}

// arenas are the arenas of finished layouts, ready for the next.
var arenas = sync.Pool{New: func() any { return new(arena) }}

// maxPooledChunks bounds the chunks each slab of an arena may hold and
// the arena still be pooled (a hostile formula's arena is left to the
// collector).
const maxPooledChunks = 128

// getArena returns a cleared arena; putArena clears it and hands it back.
func getArena() *arena { return arenas.Get().(*arena) }

func putArena(a *arena) {
	if max(len(a.noads.chunks), len(a.nodes.chunks), len(a.lists.chunks), len(a.noadPtrs.chunks), len(a.nodePtrs.chunks)) > maxPooledChunks {
		return
	}
	a.noads.reset()
	a.nodes.reset()
	a.lists.reset()
	a.noadPtrs.reset()
	a.nodePtrs.reset()
	arenas.Put(a)
}

// chunkLen is the length of a slab's k-th chunk: 32, 64, 128, then 256.
func chunkLen(k int) int { return 32 << min(k, 3) }

// slab hands out zeroed objects of type T carved from chunks.
type slab[T any] struct {
	chunks [][]T
	ci, i  int // the chunk in use and its next free object
}

// new returns a pointer to a zeroed T, valid until reset.
func (s *slab[T]) new() *T {
	for {
		if s.ci < len(s.chunks) {
			if c := s.chunks[s.ci]; s.i < len(c) {
				s.i++
				return &c[s.i-1]
			}
			s.ci, s.i = s.ci+1, 0
			continue
		}
		s.chunks = append(s.chunks, make([]T, chunkLen(len(s.chunks))))
	}
}

// reset zeroes what was handed out and makes it available again.
func (s *slab[T]) reset() {
	for k := 0; k < len(s.chunks) && k <= s.ci; k++ {
		c := s.chunks[k]
		if k == s.ci {
			c = c[:s.i]
		}
		clear(c)
	}
	s.ci, s.i = 0, 0
}

// ptrsChunk is the length of a ptrs chunk; ptrs hands out slices of up
// to half of it.
const ptrsChunk = 512

// ptrs hands out zeroed slices carved from chunks; each slice's capacity
// is capped at its length, so that appending to it copies it rather than
// writing into the next one.
type ptrs[T any] struct {
	chunks [][]T
	ci, i  int
}

// take returns a zeroed slice of n elements, capacity n, valid until
// reset.
func (s *ptrs[T]) take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > ptrsChunk/2 {
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
		s.chunks = append(s.chunks, make([]T, ptrsChunk))
	}
}

// reset zeroes what was handed out and makes it available again.
func (s *ptrs[T]) reset() {
	for k := 0; k < len(s.chunks) && k <= s.ci; k++ {
		c := s.chunks[k]
		if k == s.ci {
			c = c[:s.i]
		}
		clear(c)
	}
	s.ci, s.i = 0, 0
}

// whatsitItem is a new colour mark of token tok in a math list.
func (e *engine) whatsitItem(tok int32) *noad {
	q := e.noads.new()
	q.kind, q.tok = whatsitItem, tok
	return q
}

// charList is []*node{newChar(f, c, tok)} from the engine's arena.
func (e *engine) charList(f *mathFont, c int, tok int32) []*node {
	n := e.nodes.new()
	n.kind, n.font, n.c, n.tok = charNode, f, c, tok
	l := e.nodePtrs.take(1)
	l[0] = n
	return l
}

// kern is newKern(w) from the engine's arena.
func (e *engine) kern(w Scaled) *node {
	n := e.nodes.new()
	n.kind, n.width = kernNode, w
	return n
}
