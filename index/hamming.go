package index

import (
	"math/bits"
	"sync"
)

// Hamming answers radius queries over 64-bit hashes without scanning
// them all, by multi-index hashing (Norouzi et al.): each hash is cut into
// m chunks, and each chunk position has a table from chunk value to the
// hashes holding it. By the pigeonhole principle a hash within distance r of
// the query agrees with it to within ⌊r/m⌋ bits on at least one chunk, so a
// query probes, in each table, the chunk values within ⌊r/m⌋ of the query's
// and checks the full distance of the hashes found there.
//
// m is about 64/log2(n), the choice that keeps buckets near one entry:
// four 16-bit chunks below 2^18 hashes, three chunks of 21, 21 and 22 bits
// above. Below linearBelow hashes, or for radii of 4m and more, a linear
// scan is faster and is used instead.
type Hamming struct {
	hashes []uint64
	chunks []chunkTable
}

// chunkTable indexes one chunk position: ids[start[v]:start[v+1]] are the
// positions of the hashes whose chunk equals v.
type chunkTable struct {
	shift, width uint
	start        []uint32
	ids          []uint32
}

const linearBelow = 4096

// NewHamming builds the tables over hashes (which it keeps; do not
// modify them afterwards). Building is a counting sort per chunk.
func NewHamming(hashes []uint64) *Hamming {
	h := &Hamming{hashes: hashes}
	if len(hashes) < linearBelow {
		return h
	}
	widths := []uint{16, 16, 16, 16}
	if len(hashes) >= 1<<18 {
		widths = []uint{21, 21, 22}
	}
	var shift uint
	for _, w := range widths {
		t := chunkTable{shift: shift, width: w, start: make([]uint32, 1<<w+1)}
		shift += w
		for _, x := range hashes {
			t.start[t.value(x)+1]++
		}
		for v := 1; v <= 1<<w; v++ {
			t.start[v] += t.start[v-1]
		}
		t.ids = make([]uint32, len(hashes))
		fill := append([]uint32(nil), t.start[:1<<w]...)
		for i, x := range hashes {
			v := t.value(x)
			t.ids[fill[v]] = uint32(i)
			fill[v]++
		}
		h.chunks = append(h.chunks, t)
	}
	return h
}

func (t *chunkTable) value(x uint64) uint32 {
	return uint32(x>>t.shift) & (1<<t.width - 1)
}

// Len returns the number of hashes.
func (h *Hamming) Len() int { return len(h.hashes) }

var (
	masksMu    sync.Mutex
	masksCache = map[[2]uint][]uint32{}
)

// masks returns the w-bit masks with at most s bits set.
func masks(w, s uint) []uint32 {
	masksMu.Lock()
	defer masksMu.Unlock()
	key := [2]uint{w, s}
	if m, ok := masksCache[key]; ok {
		return m
	}
	m := []uint32{0}
	var grow func(mask uint32, from, left uint)
	grow = func(mask uint32, from, left uint) {
		if left == 0 {
			return
		}
		for b := from; b < w; b++ {
			next := mask | 1<<b
			m = append(m, next)
			grow(next, b+1, left-1)
		}
	}
	grow(0, 0, s)
	masksCache[key] = m
	return m
}

// Search calls fn for every stored hash within distance radius of q, once
// each, with its position and distance. The order is unspecified.
func (h *Hamming) Search(q uint64, radius int, fn func(pos int, dist int)) {
	if radius < 0 {
		return
	}
	m := len(h.chunks)
	if m == 0 || radius >= 4*m {
		for i, x := range h.hashes {
			if d := bits.OnesCount64(x ^ q); d <= radius {
				fn(i, d)
			}
		}
		return
	}
	s := uint(radius / m)
	for c := range h.chunks {
		t := &h.chunks[c]
		qc := t.value(q)
		for _, mask := range masks(t.width, s) {
			v := qc ^ mask
			for _, id := range t.ids[t.start[v]:t.start[v+1]] {
				x := h.hashes[id]
				d := bits.OnesCount64(x ^ q)
				if d > radius || h.foundEarlier(x, q, c, s) {
					continue
				}
				fn(int(id), d)
			}
		}
	}
}

// foundEarlier reports whether x was already reached through a chunk
// before c, so that each hash is reported once.
func (h *Hamming) foundEarlier(x, q uint64, c int, s uint) bool {
	for p := 0; p < c; p++ {
		t := &h.chunks[p]
		if uint(bits.OnesCount32(t.value(x)^t.value(q))) <= s {
			return true
		}
	}
	return false
}

// SearchAny calls fn once for every stored hash within distance radius of
// any of qs (a query's hash and its probes), with its position and its
// smallest distance to them. The order is unspecified.
func (h *Hamming) SearchAny(qs []uint64, radius int, fn func(pos int, dist int)) {
	if len(qs) == 1 {
		h.Search(qs[0], radius, fn)
		return
	}
	best := map[int]int{}
	var order []int
	for _, q := range qs {
		h.Search(q, radius, func(pos, d int) {
			if old, ok := best[pos]; !ok {
				best[pos] = d
				order = append(order, pos)
			} else if d < old {
				best[pos] = d
			}
		})
	}
	for _, pos := range order {
		fn(pos, best[pos])
	}
}
