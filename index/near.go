package index

import (
	"slices"
	"sync"
)

// Near finds, for a query token sequence, every indexed sequence within K
// token edits (Levenshtein distance over tokens: inserting, deleting or
// substituting one token costs 1), without comparing the query with every
// indexed sequence. It is built over the smaller side of a comparison (a
// test set of thousands of items) and queried by streaming the larger side
// (a training corpus of millions of labels), so a query costs a few dozen
// table probes whatever the number of indexed sequences.
//
// # Candidates: segments shifted within a window
//
// Each indexed sequence of length L is cut into K+1 contiguous segments
// at boundaries that depend only on L and K (segment j is
// [j·L/(K+1), (j+1)·L/(K+1))). Take an alignment of the indexed sequence
// with a query of length n using e ≤ K edits, and charge every edit to a
// segment: a deletion or substitution to the segment of the token it
// touches, an insertion to the segment whose token follows it (to the last
// segment at the end). Let E(j) be the edits charged to segments 0…j−1 and
// g(j) = E(j) − j; g(0) = 0 and g(K+1) = e−K−1 < 0, so at the first j
// where g(j+1) < 0 segment j has no edit, at most j edits before it and at
// most K−j after it. That segment occurs verbatim in the query, shifted by
// d = (insertions − deletions before it), so |d| ≤ j, and the shift of what
// follows, (n−L) − d, is at most K−j in size. A query therefore probes, for
// each indexed length L in [n−K, n+K] and each segment j, only the shifts d
// with |d| ≤ j and |n−L−d| ≤ K−j: 19 probes at K = 2 in place of the
// (2K+1)²(K+1) = 75 of the plain pigeonhole window (Li et al.'s
// multi-match-aware selection, derived here for this segmentation).
//
// A probe is one lookup of the hash of (L, j, the query's tokens at
// [start+d, start+d+width)) in a table built from every indexed segment.
// The query's substring hashes come from its prefix hashes in constant
// time; a bitmap in front of the table answers most misses from cache.
// Hash collisions can only add candidates, never lose one.
//
// # Verification
//
// Every candidate is verified exactly with Ukkonen's banded edit distance
// (the band of width 2K+1 around the diagonal, stopped as soon as a whole
// row exceeds K) over interned token ids, so the result is exactly the
// brute-force answer; the tests compare the two on 100,000 real queries and
// on synthetic edits.
//
// # Minimum length
//
// Sequences shorter than the minimum length (at least K+1, so that no
// segment is empty) are neither indexed nor queried: a pair is reported
// only when both sequences have at least MinTokens tokens. Short formulas
// lie within a few edits of each other by chance; [DefaultNearMin] gives
// the default measured on the shared benchmarks.
//
// # Concurrency
//
// Add is not safe for concurrent use. Query is safe from any number of
// goroutines once the Adds are done; the first Query freezes the table.
// Adding after a Query is allowed when no Query is running.
type Near struct {
	k, min int
	vocab  map[string]uint32 // token → id ≥ 1; 0 is a token no indexed sequence has
	seqs   [][]uint32
	lens   []bool    // lens[L]: some indexed sequence has length L
	segs   []nearSeg // every indexed segment, until the table is built

	once  sync.Once
	table *nearTable
}

// nearSeg is one indexed segment: the key of (length, segment, hash) and
// the sequence it belongs to.
type nearSeg struct {
	key uint64
	ref int32
}

// DefaultNearMin is the default minimum length for distance k: 4(k+1)
// tokens, so that each of the k+1 segments has at least 4 tokens.
//
// Measured on the shared label lists (test splits against the training
// corpus of another benchmark, where every match is a coincidence): at
// k = 2, 11–55% of 8- and 9-token test formulas have a label of the other
// benchmark within 2 edits, 0.3–9% of 12- and 13-token ones and at most
// 4% from 16 tokens on; at k = 1 the rates at 8–9 tokens are 0–26%, at
// 10–11 tokens at most 6%. Below 4(k+1) tokens a near match says little
// about copying; short segments also occur in thousands of formulas, which
// makes the candidate stage slow.
func DefaultNearMin(k int) int { return 4 * (max(k, 0) + 1) }

// NewNear returns an empty index for distance k (negative means 0) over
// sequences of at least minTokens tokens, raised to k+1 so that no
// segment is empty. minTokens ≤ 0 means DefaultNearMin(k).
func NewNear(k, minTokens int) *Near {
	k = max(k, 0)
	if minTokens <= 0 {
		minTokens = DefaultNearMin(k)
	}
	minTokens = max(minTokens, k+1)
	return &Near{k: k, min: minTokens, vocab: map[string]uint32{}}
}

// K returns the edit distance the index answers for.
func (x *Near) K() int { return x.k }

// MinTokens returns the shortest sequence the index considers.
func (x *Near) MinTokens() int { return x.min }

// Len returns the number of indexed sequences.
func (x *Near) Len() int { return len(x.seqs) }

// Add indexes a sequence and returns its id, the position among the
// indexed sequences (0, 1, 2, … in Add order), which Query reports; or -1
// when the sequence is shorter than MinTokens and was not indexed. Equal
// sequences added twice get two ids.
func (x *Near) Add(tokens []string) int {
	L := len(tokens)
	if L < x.min {
		return -1
	}
	if x.table != nil { // a Query froze the table: thaw it
		x.table, x.once = nil, sync.Once{}
	}
	s := make([]uint32, L)
	for i, t := range tokens {
		id, ok := x.vocab[t]
		if !ok {
			id = uint32(len(x.vocab) + 1)
			x.vocab[t] = id
		}
		s[i] = id
	}
	ref := int32(len(x.seqs))
	x.seqs = append(x.seqs, s)
	if L >= len(x.lens) {
		x.lens = append(x.lens, make([]bool, L+1-len(x.lens))...)
	}
	x.lens[L] = true
	h := prefixHashes(s)
	for seg := 0; seg <= x.k; seg++ {
		a, b := segBounds(L, x.k, seg)
		x.segs = append(x.segs, nearSeg{segKey(L, seg, subHash(h, a, b)), ref})
	}
	return int(ref)
}

// segBounds returns segment seg of the K+1 near-equal segments of a
// length-L sequence, as [a, b).
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

// powers holds hashBase^i for the first powersCached i; pow multiplies
// on beyond.
const powersCached = 4096

var powers = func() []uint64 {
	p := make([]uint64, powersCached)
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

// segKey mixes a segment's sequence length, position and token hash into
// one table key (the finalizer of MurmurHash3, which spreads every input
// bit over the key).
func segKey(L, seg int, h uint64) uint64 {
	x := h ^ (uint64(L)<<8|uint64(seg))*0xC2B2AE3D27D4EB4F
	x ^= x >> 33
	x *= 0xFF51AFD7ED558CCD
	x ^= x >> 33
	x *= 0xC4CEB9FE1A85EC53
	x ^= x >> 33
	return x
}

// nearTable is the frozen segment table: an open-addressing hash table
// from key to a run of refs, behind a one-bit-per-key bitmap.
type nearTable struct {
	bits  []uint64 // bit key>>bitShift set for every key
	shift uint
	slots []nearSlot
	mask  uint64
	refs  []int32
}

// nearSlot is a key's run refs[off : off+n]; n == 0 marks an empty slot.
type nearSlot struct {
	key    uint64
	off, n uint32
}

// The sizes of a nearTable: its slots (a power of two, at least twice the
// distinct segment keys) and its filter bits (a power of two, at least
// nearFilterBitsPerKey a key).
const (
	minNearSlots         = 64
	minNearFilterBits    = 1 << 12
	nearFilterBitsPerKey = 16
)

// freeze builds the table from the collected segments.
func (x *Near) freeze() {
	segs := slices.Clone(x.segs)
	slices.SortFunc(segs, func(a, b nearSeg) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.ref - b.ref)
	})
	t := &nearTable{}
	keys := 0
	for i := range segs {
		if i == 0 || segs[i].key != segs[i-1].key {
			keys++
		}
	}
	size := minNearSlots
	for size < 2*keys {
		size *= 2
	}
	t.slots = make([]nearSlot, size)
	t.mask = uint64(size - 1)
	nbits := minNearFilterBits
	for nbits < nearFilterBitsPerKey*keys {
		nbits *= 2
	}
	t.bits = make([]uint64, nbits/64)
	t.shift = uint(64 - bitsLen(nbits))
	for i := 0; i < len(segs); {
		j := i
		off := len(t.refs)
		for ; j < len(segs) && segs[j].key == segs[i].key; j++ {
			if j == i || segs[j].ref != segs[j-1].ref {
				t.refs = append(t.refs, segs[j].ref)
			}
		}
		key := segs[i].key
		b := key >> t.shift
		t.bits[b/64] |= 1 << (b % 64)
		p := key & t.mask
		for t.slots[p].n != 0 {
			p = (p + 1) & t.mask
		}
		t.slots[p] = nearSlot{key: key, off: uint32(off), n: uint32(len(t.refs) - off)}
		i = j
	}
	x.table = t
}

// bitsLen is log2 of a power of two.
func bitsLen(n int) int {
	b := 0
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// lookup returns the refs of key, or nil.
func (t *nearTable) lookup(key uint64) []int32 {
	b := key >> t.shift
	if t.bits[b/64]&(1<<(b%64)) == 0 {
		return nil
	}
	for p := key & t.mask; ; p = (p + 1) & t.mask {
		s := &t.slots[p]
		if s.n == 0 {
			return nil
		}
		if s.key == key {
			return t.refs[s.off : s.off+s.n]
		}
	}
}

// A NearMatch is an indexed sequence within the distance of a query.
// Distance 0 is the same token sequence (what the tokens level of the
// label overlap finds); 1…K are copies with edits.
type NearMatch struct {
	ID       int // the id Add returned
	Distance int
}

// Exact reports whether the indexed sequence equals the query token for
// token.
func (m NearMatch) Exact() bool { return m.Distance == 0 }

// nearScratch is a query's reusable memory.
type nearScratch struct {
	q     []uint32
	h     []uint64
	stamp []uint32 // stamp[ref] == gen: ref is already a candidate
	gen   uint32
	cands []int32
	row   []int32 // two rows of the banded edit distance
}

var scratchPool = sync.Pool{New: func() any { return new(nearScratch) }}

// Query returns every indexed sequence within K edits of tokens, ordered
// by distance, then id; nil when there is none or the sequence is shorter
// than MinTokens. Query is safe for concurrent use once the Adds are done.
func (x *Near) Query(tokens []string) []NearMatch {
	var out []NearMatch
	x.Each(tokens, func(id, dist int) {
		out = append(out, NearMatch{ID: id, Distance: dist})
	})
	slices.SortFunc(out, func(a, b NearMatch) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		return a.ID - b.ID
	})
	return out
}

// Each calls fn with the id and distance of every indexed sequence within
// K edits of tokens, in no particular order and without allocating; fn
// must not call back into x's Add. Each is safe for concurrent use once
// the Adds are done.
func (x *Near) Each(tokens []string, fn func(id, dist int)) {
	n, k := len(tokens), x.k
	if n < x.min || len(x.seqs) == 0 {
		return
	}
	x.once.Do(x.freeze)
	t := x.table
	sc := scratchPool.Get().(*nearScratch)
	defer scratchPool.Put(sc)
	sc.q = sc.q[:0]
	sc.h = append(sc.h[:0], 0)
	for i, tok := range tokens {
		id := x.vocab[tok] // 0 when no indexed sequence has it
		sc.q = append(sc.q, id)
		sc.h = append(sc.h, sc.h[i]*hashBase+uint64(id)+1)
	}
	if len(sc.stamp) < len(x.seqs) {
		sc.stamp, sc.gen = make([]uint32, len(x.seqs)), 0
	}
	sc.gen++
	if sc.gen == 0 { // wrapped: old stamps could read as current
		clear(sc.stamp)
		sc.gen = 1
	}
	sc.cands = sc.cands[:0]
	for L := max(n-k, x.min); L <= n+k && L < len(x.lens); L++ {
		if !x.lens[L] {
			continue
		}
		delta := n - L
		for seg := 0; seg <= k; seg++ {
			a, b := segBounds(L, k, seg)
			w := b - a
			// |d| ≤ seg edits before the segment, |delta−d| ≤ k−seg after.
			lo, hi := max(-seg, delta-(k-seg), -a), min(seg, delta+(k-seg), n-w-a)
			for d := lo; d <= hi; d++ {
				for _, ref := range t.lookup(segKey(L, seg, subHash(sc.h, a+d, a+d+w))) {
					if sc.stamp[ref] != sc.gen {
						sc.stamp[ref] = sc.gen
						sc.cands = append(sc.cands, ref)
					}
				}
			}
		}
	}
	for _, ref := range sc.cands {
		if d := sc.distance(sc.q, x.seqs[ref], k); d <= k {
			fn(int(ref), d)
		}
	}
}

// distance is the token edit distance of a and b when it is at most k, and
// k+1 otherwise: Ukkonen's band of width 2k+1 around the diagonal, stopped
// as soon as a whole row of the band exceeds k.
func (sc *nearScratch) distance(a, b []uint32, k int) int {
	inf := int32(k + 1)
	if len(a)-len(b) > k || len(b)-len(a) > k {
		return k + 1
	}
	m := len(b)
	if cap(sc.row) < 2*(m+2) {
		sc.row = make([]int32, 2*(m+2))
	}
	prev, cur := sc.row[:m+2], sc.row[m+2:2*(m+2)]
	for j := 0; j <= m; j++ {
		prev[j] = min(int32(j), inf)
	}
	prev[m+1] = inf
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(m, i+k)
		// cur[lo-1] is the cell left of the band: column 0 in the first
		// columns, outside the band (more than k) otherwise.
		if lo == 1 {
			cur[0] = min(int32(i), inf)
		} else {
			cur[lo-1] = inf
		}
		best := cur[lo-1]
		ai := a[i-1]
		for j := lo; j <= hi; j++ {
			c := prev[j-1]
			if ai != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1, inf)
			cur[j] = c
			best = min(best, c)
		}
		if hi < m {
			cur[hi+1] = inf // right of the band: read by the next row
		}
		if best >= inf {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return int(min(prev[m], inf))
}
