package tex

import (
	"sync"

	"github.com/leakaudit/leakaudit/internal/slab"
)

// The layout of a formula makes many small objects (a noad per symbol,
// colour marks, character and box nodes, the short lists that hold
// them), all garbage once its Layout is made: nothing a Layout holds
// points to a noad or a node. The engine takes the most frequent ones
// from an arena, which typeset hands back to a pool when the layout is
// made, cleared, so that the next formula reuses the same memory instead
// of allocating it afresh.

// arena holds one layout's noads, nodes, lists and short slices of them.
type arena struct {
	noads    slab.Slab[noad]
	nodes    slab.Slab[node]
	lists    slab.Slab[list]
	noadPtrs slab.Slices[*noad]
	nodePtrs slab.Slices[*node]
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
	if max(a.noads.Chunks(), a.nodes.Chunks(), a.lists.Chunks(), a.noadPtrs.Chunks(), a.nodePtrs.Chunks()) > maxPooledChunks {
		return
	}
	a.noads.Reset()
	a.nodes.Reset()
	a.lists.Reset()
	a.noadPtrs.Reset()
	a.nodePtrs.Reset()
	arenas.Put(a)
}

// whatsitItem is a new colour mark of token tok in a math list.
func (e *engine) whatsitItem(tok int32) *noad {
	q := e.noads.New()
	q.kind, q.tok = whatsitItem, tok
	return q
}

// charList is []*node{newChar(f, c, tok)} from the engine's arena.
func (e *engine) charList(f *mathFont, c int, tok int32) []*node {
	n := e.nodes.New()
	n.kind, n.font, n.c, n.tok = charNode, f, c, tok
	l := e.nodePtrs.Take(1)
	l[0] = n
	return l
}

// kern is newKern(w) from the engine's arena.
func (e *engine) kern(w Scaled) *node {
	n := e.nodes.New()
	n.kind, n.width = kernNode, w
	return n
}
