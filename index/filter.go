package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"syscall"

	"github.com/leakaudit/leakaudit/canon"
)

// A key filter says which digests a shard may hold postings for, so that a
// lookup of a key no training label has (most keys of most test sets)
// reads 64 bytes of a filter instead of searching Badger's tables, whose
// index and data pages a search reads at random. The filters are mapped
// read-only: a probe is a memory read once the page is in memory, and the
// kernel reads pages of the file ahead when a batch of lookups probes much
// of it. They count in the resident set: 12 bits a key, about 230 MB for
// 80M labels at two levels. (With the index's pages evicted from memory,
// 50k lookups of an 80M index took 4.5 s with the filters read block by
// block by pread, 2.3–2.6 s with them mapped, the shards' opening apart.)
//
// There is one filter per shard, corpus and level, written by the build
// that writes the postings (shard-XX/filter-<corpus>-<level>), before the
// manifest records the pair as done. It is a blocked Bloom filter: a digest
// sets filterK bits of one 512-bit block, so that a probe reads one block.
// At filterBitsPerKey bits per posting (so at least that many per distinct
// key) few absent keys pass: 12 of 15,000 in TestKeyFilters.
//
// File: magic(8) blocks(8, big endian) then the blocks, each eight 64-bit
// little-endian words.

const (
	filterMagic      = "lafilt01"
	filterHeader     = 16
	filterBlockBytes = 64
	filterK          = 6
	filterBitsPerKey = 12
)

// filterPath is the filter of corpus cid at a level in a shard.
func filterPath(dir string, s int, cid uint16, level canon.LevelID) string {
	return filepath.Join(shardDir(dir, s), fmt.Sprintf("filter-%d-%d", cid, level))
}

// filterBits are the block of a digest (in [0, blocks)) and its bits in the
// block (filterK positions below 512). The block is read off the digest's
// head after its top four bits, its shard's (shardOf), which all digests of
// a filter share, so that digests in order fill blocks in order: a build,
// which adds them in order, writes the filter as a stream instead of at
// random, which cost it a cache miss a posting (18 s of 110 for 80M labels
// at two levels). The positions are read off the digest's tail.
func filterBits(d [16]byte, blocks uint64) (block uint64, pos [filterK]uint) {
	block, _ = bits.Mul64(binary.BigEndian.Uint64(d[:8])<<4, blocks)
	h := binary.BigEndian.Uint64(d[8:]) // 64 bits, 9 per position
	for i := range pos {
		pos[i] = uint(h>>(64-9)) & 511
		h <<= 9
	}
	return block, pos
}

// The top four bits of a digest are its shard's.
var _ [numShards - 16]struct{}
var _ [16 - numShards]struct{}

// filterBuilder collects the digests of one (shard, corpus, level).
type filterBuilder struct {
	words  []uint64
	blocks uint64
	last   [16]byte
	n      int64
}

// newFilter returns a filter sized for at most keys distinct digests.
func newFilter(keys int64) *filterBuilder {
	blocks := uint64(max(1, (keys*filterBitsPerKey+511)/512))
	return &filterBuilder{words: make([]uint64, blocks*8), blocks: blocks}
}

func (f *filterBuilder) add(d [16]byte) {
	if f.n > 0 && d == f.last {
		return // postings of one key come together
	}
	f.last, f.n = d, f.n+1
	b, pos := filterBits(d, f.blocks)
	w := f.words[b*8 : b*8+8]
	for _, p := range pos {
		w[p>>6] |= 1 << (p & 63)
	}
}

// write saves the filter durably (write, fsync, rename).
func (f *filterBuilder) write(path string) error {
	buf := make([]byte, filterHeader, filterHeader+len(f.words)*8)
	copy(buf, filterMagic)
	binary.BigEndian.PutUint64(buf[8:], f.blocks)
	for _, w := range f.words {
		buf = binary.LittleEndian.AppendUint64(buf, w)
	}
	return writeFileAtomic(path, buf)
}

// keyFilter is a filter file mapped for probes.
type keyFilter struct {
	data   []byte // the mapped file
	blocks uint64
}

// openFilter maps a filter; a missing one is (nil, nil).
func openFilter(path string) (*keyFilter, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping outlives the descriptor
	corrupt := fmt.Errorf("index filter %s is corrupt; delete the index folder and build it again", path)
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < filterHeader+filterBlockBytes || fi.Size() > 1<<40 {
		return nil, corrupt
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map index filter %s: %w", path, err)
	}
	kf := &keyFilter{data: data, blocks: binary.BigEndian.Uint64(data[8:])}
	if !bytes.Equal(data[:8], []byte(filterMagic)) || kf.blocks == 0 || uint64(fi.Size()-filterHeader)/filterBlockBytes != kf.blocks || (fi.Size()-filterHeader)%filterBlockBytes != 0 {
		kf.close()
		return nil, corrupt
	}
	return kf, nil
}

// close unmaps the filter.
func (kf *keyFilter) close() {
	if kf.data != nil {
		syscall.Munmap(kf.data)
		kf.data = nil
	}
}

// mayHave reports whether the filter may hold d (false: certainly not).
func (kf *keyFilter) mayHave(d [16]byte) bool {
	b, pos := filterBits(d, kf.blocks)
	blk := kf.data[filterHeader+b*filterBlockBytes:][:filterBlockBytes]
	for _, p := range pos {
		if binary.LittleEndian.Uint64(blk[(p>>6)*8:])&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}
