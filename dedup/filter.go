package dedup

import (
	"hash/maphash"
	"sync"

	"github.com/leakaudit/leakaudit/canon"
)

// keyFilter holds, per level, a bit for the cheap hash of every against
// label's key: a release item whose keys all miss it cannot match by
// label, so its SHA-256 digests (the costly part of keying a release) are
// computed only for the few that hit. It serves only when every against
// label set was read from labels (a fingerprint gives digests, not keys),
// and not with Within or Near, which need every item's digests.
type keyFilter struct {
	seed maphash.Seed
	bits [][]uint64 // per level, 1<<filterBits bits
}

// filterOff turns the filter off (tests).
var filterOff = false

// filterBits sizes each level's bit set (128 KiB, to stay in cache): at 25k
// against keys, about 2% of the release's keys hit by chance.
const filterBits = 20

func newKeyFilter(levels int) *keyFilter {
	f := &keyFilter{seed: maphash.MakeSeed(), bits: make([][]uint64, levels)}
	for i := range f.bits {
		f.bits[i] = make([]uint64, 1<<filterBits/64)
	}
	return f
}

func (f *keyFilter) bit(key []byte) uint64 {
	return maphash.Bytes(f.seed, key) & (1<<filterBits - 1)
}

// add sets the bit of a key at level li.
func (f *keyFilter) add(li int, key []byte) {
	b := f.bit(key)
	f.bits[li][b/64] |= 1 << (b % 64)
}

// has says whether a key at level li may be an against key.
func (f *keyFilter) has(li int, key []byte) bool {
	b := f.bit(key)
	return f.bits[li][b/64]&(1<<(b%64)) != 0
}

var filterBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// addLabel sets the bits of a label's keys at every level.
func (f *keyFilter) addLabel(levels []canon.Level, label string) {
	bp := filterBufs.Get().(*[]byte)
	for li, l := range levels {
		*bp = l.Append((*bp)[:0], label)
		f.add(li, *bp)
	}
	filterBufs.Put(bp)
}

// filteredKeyOf is keyOf through the filter: the digests of the levels
// whose key hits it, the zero digest (no against key's) for the others,
// and no digests at all when none hits.
func (kr *keyer) filteredKeyOf(label string) keyedItem {
	var k keyedItem
	bp := filterBufs.Get().(*[]byte)
	for li, l := range kr.levels {
		*bp = l.Append((*bp)[:0], label)
		if kr.filter.has(li, *bp) {
			if k.digests == nil {
				k.digests = make([]canon.Digest, len(kr.levels))
			}
			k.digests[li] = canon.DigestOfBytes(*bp, kr.salt)
		}
	}
	filterBufs.Put(bp)
	return k
}
