package latex

import "sync"

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

// karena holds one parse's symbol nodes, in chunks of 32, 64, 128, then
// 256 blocks.
type karena struct {
	chunks [][]argBlock
	ci, i  int // the chunk in use and its next free block
}

// maxPooledChunks bounds the chunks an arena may hold and still be
// pooled (a hostile formula's arena is left to the collector).
const maxPooledChunks = 16

var karenas = sync.Pool{New: func() any { return new(karena) }}

// getKArena returns a cleared arena; putKArena clears it and hands it
// back.
func getKArena() *karena { return karenas.Get().(*karena) }

func putKArena(a *karena) {
	if len(a.chunks) > maxPooledChunks {
		return
	}
	for k := 0; k < len(a.chunks) && k <= a.ci; k++ {
		c := a.chunks[k]
		if k == a.ci {
			c = c[:a.i]
		}
		clear(c)
	}
	a.ci, a.i = 0, 0
	karenas.Put(a)
}

// block returns a zeroed block, valid until the arena is put back.
func (a *karena) block() *argBlock {
	for {
		if a.ci < len(a.chunks) {
			if c := a.chunks[a.ci]; a.i < len(c) {
				a.i++
				return &c[a.i-1]
			}
			a.ci, a.i = a.ci+1, 0
			continue
		}
		a.chunks = append(a.chunks, make([]argBlock, 32<<min(len(a.chunks), 3)))
	}
}

// argNode returns a funcOrArg holding n, allocated with its node in one
// block (from the parser's arena if it has one): a parse makes one for
// nearly every symbol.
func (p *kparser) argNode(n knode) *funcOrArg {
	var b *argBlock
	if p.arena != nil {
		b = p.arena.block()
	} else {
		b = new(argBlock)
	}
	b.n = n
	b.f.node = &b.n
	return &b.f
}
