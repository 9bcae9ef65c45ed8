package latex

import (
	"sync"

	"github.com/leakaudit/leakaudit/internal/slab"
)

// A KaTeX parse makes a node for nearly every symbol of a formula, and
// none outlives the parse: katexParse and TabularTokenize return text.
// The parser takes its symbol nodes from an arena, handed back to a pool
// (cleared) when the parse is over, so that the next formula reuses the
// same memory instead of allocating it afresh.

// argBlock is a funcOrArg with its node, handed out together.
type argBlock struct {
	f funcOrArg
	n knode
}

// karena holds one parse's symbol nodes.
type karena = slab.Slab[argBlock]

// maxPooledChunks bounds the chunks an arena may hold and still be
// pooled (a hostile formula's arena is left to the collector).
const maxPooledChunks = 16

var karenas = sync.Pool{New: func() any { return new(karena) }}

// getKArena returns a cleared arena; putKArena clears it and hands it
// back.
func getKArena() *karena { return karenas.Get().(*karena) }

func putKArena(a *karena) {
	if a.Chunks() > maxPooledChunks {
		return
	}
	a.Reset()
	karenas.Put(a)
}

// argNode returns a funcOrArg holding n, allocated with its node in one
// block (from the parser's arena if it has one): a parse makes one for
// nearly every symbol.
func (p *kparser) argNode(n knode) *funcOrArg {
	var b *argBlock
	if p.arena != nil {
		b = p.arena.New()
	} else {
		b = new(argBlock)
	}
	b.n = n
	b.f.node = &b.n
	return &b.f
}
