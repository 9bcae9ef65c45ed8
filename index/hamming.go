package index

import "math/bits"

// HammingIndex answers radius queries over 64-bit hashes without scanning
// them all, by multi-index hashing: each hash is cut into four 16-bit
// chunks, and each chunk position has a table from chunk value to the
// hashes holding it. By the pigeonhole principle a hash within distance r of
// the query agrees with it to within ⌊r/4⌋ bits on at least one chunk, so a
// query probes, in each table, the chunk values within ⌊r/4⌋ of the query's
// and checks the full distance of the hashes found there. Below
// linearBelow hashes, or for radii past maxMIHRadius, a linear scan is
// faster and is used instead.
type HammingIndex struct {
	hashes []uint64
	// For chunk c, ids[c][start[c][v]:start[c][v+1]] are the positions of
	// the hashes whose chunk c equals v.
	start [4][]uint32
	ids   [4][]uint32
}

const (
	linearBelow  = 4096
	maxMIHRadius = 15 // ⌊15/4⌋ = 3 bits per chunk: 697 probes per table
)

// NewHammingIndex builds the tables over hashes (which it keeps; do not
// modify them afterwards). Building is two counting-sort passes per chunk.
func NewHammingIndex(hashes []uint64) *HammingIndex {
	h := &HammingIndex{hashes: hashes}
	if len(hashes) < linearBelow {
		return h
	}
	for c := 0; c < 4; c++ {
		start := make([]uint32, 1<<16+1)
		for _, x := range hashes {
			start[chunk(x, c)+1]++
		}
		for v := 1; v <= 1<<16; v++ {
			start[v] += start[v-1]
		}
		ids := make([]uint32, len(hashes))
		fill := append([]uint32(nil), start[:1<<16]...)
		for i, x := range hashes {
			v := chunk(x, c)
			ids[fill[v]] = uint32(i)
			fill[v]++
		}
		h.start[c], h.ids[c] = start, ids
	}
	return h
}

func chunk(x uint64, c int) uint32 { return uint32(x>>(16*c)) & 0xffff }

// Len returns the number of hashes.
func (h *HammingIndex) Len() int { return len(h.hashes) }

// masks[s] lists the 16-bit masks with at most s bits set.
var masks = func() [4][]uint32 {
	var m [4][]uint32
	for v := uint32(0); v < 1<<16; v++ {
		n := bits.OnesCount32(v)
		for s := n; s < 4; s++ {
			m[s] = append(m[s], v)
		}
	}
	return m
}()

// Search calls fn for every stored hash within distance radius of q, once
// each, with its position and distance. The order is unspecified.
func (h *HammingIndex) Search(q uint64, radius int, fn func(pos int, dist int)) {
	if radius < 0 {
		return
	}
	if h.start[0] == nil || radius > maxMIHRadius {
		for i, x := range h.hashes {
			if d := bits.OnesCount64(x ^ q); d <= radius {
				fn(i, d)
			}
		}
		return
	}
	s := radius / 4
	for c := 0; c < 4; c++ {
		qc := chunk(q, c)
		for _, m := range masks[s] {
			v := qc ^ m
			for _, id := range h.ids[c][h.start[c][v]:h.start[c][v+1]] {
				x := h.hashes[id]
				d := bits.OnesCount64(x ^ q)
				if d > radius || foundEarlier(x, q, c, s) {
					continue
				}
				fn(int(id), d)
			}
		}
	}
}

// foundEarlier reports whether x was already reached through a chunk
// before c, so that each hash is reported once.
func foundEarlier(x, q uint64, c, s int) bool {
	for p := 0; p < c; p++ {
		if bits.OnesCount32(chunk(x, p)^chunk(q, p)) <= s {
			return true
		}
	}
	return false
}
