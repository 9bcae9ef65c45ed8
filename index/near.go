package index

import (
	"slices"
	"sync"
)

// Near finds, for a query token sequence, every indexed sequence within K
// token edits (Levenshtein distance over tokens: inserting, deleting or
// substituting one token costs 1), without comparing the query with every
// indexed sequence.
//
// The candidate stage is the pigeonhole principle over segments: each
// indexed sequence of length L is cut into K+1 contiguous segments at
// boundaries that depend only on L and K. An alignment with at most K edits
// leaves at least one segment untouched, so the query holds that segment
// verbatim, starting within K positions of the segment's own start. A query
// of length n therefore probes, for each indexed length L in [n−K, n+K],
// each segment position shifted by −K…K: (2K+1)²(K+1) hashed substrings,
// looked up in one table, whatever the number of indexed sequences.
// Substring hashes come from the query's prefix hashes in constant time.
// Every candidate is then verified exactly with a banded edit distance, so
// the result is exactly the brute-force answer (a test checks it).
//
// Sequences shorter than the minimum length are neither indexed nor
// queried: short formulas are within a few edits of each other by chance.
// Build with Add (not safe for concurrent use), then Query from any number
// of goroutines.
type Near struct {
	k, min int
	vocab  map[string]uint32 // token → id ≥ 1
	seqs   [][]uint32
	table  map[segKey][]segRef
}

// segKey names an indexed segment: the length of its sequence, its
// position among the K+1 segments, and its tokens' hash.
type segKey struct {
	length uint32
	seg    uint16
	hash   uint64
}

// segRef is the sequence a segment belongs to.
type segRef = int32

// NewNear returns an empty index for distance k over sequences of at least
// minTokens tokens (at least k+1, so that no segment is empty).
func NewNear(k, minTokens int) *Near {
	if k < 0 {
		k = 0
	}
	minTokens = max(minTokens, k+1)
	return &Near{k: k, min: minTokens, vocab: map[string]uint32{}, table: map[segKey][]segRef{}}
}

// K returns the edit distance the index answers for.
func (x *Near) K() int { return x.k }

// MinTokens returns the shortest sequence the index considers.
func (x *Near) MinTokens() int { return x.min }

// Len returns the number of indexed sequences.
func (x *Near) Len() int { return len(x.seqs) }

// Add indexes a sequence and returns its position (the id Query reports),
// or -1 when it is shorter than the minimum length and was not indexed.
func (x *Near) Add(tokens []string) int {
	if len(tokens) < x.min {
		return -1
	}
	s := make([]uint32, len(tokens))
	for i, t := range tokens {
		id, ok := x.vocab[t]
		if !ok {
			id = uint32(len(x.vocab) + 1)
			x.vocab[t] = id
		}
		s[i] = id
	}
	pos := int32(len(x.seqs))
	x.seqs = append(x.seqs, s)
	h := prefixHashes(s)
	L := len(s)
	for seg := 0; seg <= x.k; seg++ {
		a, b := segBounds(L, x.k, seg)
		key := segKey{uint32(L), uint16(seg), subHash(h, a, b)}
		refs := x.table[key]
		if len(refs) == 0 || refs[len(refs)-1] != pos {
			x.table[key] = append(refs, pos)
		}
	}
	return int(pos)
}

// segBounds returns segment seg of K+1 near-equal segments of a length-L
// sequence, as [a, b). With L < K+1 some segments are empty.
func segBounds(L, k, seg int) (int, int) {
	return seg * L / (k + 1), (seg + 1) * L / (k + 1)
}

// The polynomial hash of token ids modulo 2^64.
const hashBase = 0x9E3779B97F4A7C15

// prefixHashes returns h with h[i] the hash of s[:i].
func prefixHashes(s []uint32) []uint64 {
	h := make([]uint64, len(s)+1)
	for i, t := range s {
		h[i+1] = h[i]*hashBase + uint64(t) + 1
	}
	return h
}

var powers = func() []uint64 {
	p := make([]uint64, 4096)
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * hashBase
	}
	return p
}()

func pow(n int) uint64 {
	if n < len(powers) {
		return powers[n]
	}
	r := powers[len(powers)-1]
	for n -= len(powers) - 1; n > 0; n-- {
		r *= hashBase
	}
	return r
}

// subHash is the hash of s[a:b] from s's prefix hashes.
func subHash(h []uint64, a, b int) uint64 { return h[b] - h[a]*pow(b-a) }

// A NearMatch is an indexed sequence within the distance of a query.
type NearMatch struct {
	ID       int // the position Add returned
	Distance int
}

// nearScratch is a query's reusable memory.
type nearScratch struct {
	q     []uint32
	h     []uint64
	seen  map[int32]bool
	prev  []int
	cur   []int
	cands []int32
}

var scratchPool = sync.Pool{New: func() any { return &nearScratch{seen: map[int32]bool{}} }}

// Query returns every indexed sequence within K edits of tokens, ordered
// by distance, then id. It returns nil for a sequence shorter than the
// minimum length. Query is safe for concurrent use once Adds are done.
func (x *Near) Query(tokens []string) []NearMatch {
	n := len(tokens)
	if n < x.min || len(x.seqs) == 0 {
		return nil
	}
	sc := scratchPool.Get().(*nearScratch)
	defer scratchPool.Put(sc)
	sc.q = sc.q[:0]
	for _, t := range tokens {
		sc.q = append(sc.q, x.vocab[t]) // 0: a token no indexed sequence has
	}
	sc.h = sc.h[:0]
	sc.h = append(sc.h, 0)
	for i, t := range sc.q {
		sc.h = append(sc.h, sc.h[i]*hashBase+uint64(t)+1)
	}
	clear(sc.seen)
	sc.cands = sc.cands[:0]
	k := x.k
	for L := max(n-k, x.min); L <= n+k; L++ {
		for seg := 0; seg <= k; seg++ {
			a, b := segBounds(L, k, seg)
			w := b - a
			for d := -k; d <= k; d++ {
				s := a + d
				if s < 0 || s+w > n {
					continue
				}
				for _, ref := range x.table[segKey{uint32(L), uint16(seg), subHash(sc.h, s, s+w)}] {
					if !sc.seen[ref] {
						sc.seen[ref] = true
						sc.cands = append(sc.cands, ref)
					}
				}
			}
		}
	}
	var out []NearMatch
	for _, ref := range sc.cands {
		if d := sc.distance(sc.q, x.seqs[ref], k); d <= k {
			out = append(out, NearMatch{ID: int(ref), Distance: d})
		}
	}
	slices.SortFunc(out, func(a, b NearMatch) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		return a.ID - b.ID
	})
	return out
}

// distance is the token edit distance of a and b when it is at most k, and
// k+1 otherwise: Ukkonen's band of width 2k+1 with an early exit.
func (sc *nearScratch) distance(a, b []uint32, k int) int {
	inf := k + 1
	if len(a)-len(b) > k || len(b)-len(a) > k {
		return inf
	}
	m := len(b)
	if cap(sc.prev) < m+2 {
		sc.prev, sc.cur = make([]int, m+2), make([]int, m+2)
	}
	prev, cur := sc.prev[:m+2], sc.cur[:m+2]
	for j := 0; j <= m; j++ {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(m, i+k)
		if lo == 1 {
			cur[0] = min(i, inf)
		} else {
			cur[lo-1] = inf
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1, inf)
			cur[j] = c
			best = min(best, c)
		}
		cur[hi+1] = inf // outside this row's band: read by the next row
		if best >= inf {
			return inf
		}
		prev, cur = cur, prev
	}
	return prev[m]
}
