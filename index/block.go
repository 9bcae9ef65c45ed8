package index

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/leakaudit/leakaudit/canon"
)

// Posting blocks (FormatVersion 3; linked in a chain since 4).
//
// A shard stores its postings in blocks: runs of up to blockPostings
// consecutive postings of one level and corpus, in key order, each one
// Badger entry. The entry's key is the block key of its last posting,
//
//	'p' level(1) corpus(2, big endian) digest(16) seq(4, big endian)
//
// and its value the link to the block before it, then the postings:
//
//	prev(20) posting…
//
// where prev is the digest and seq of the key of the block before it of
// the same level and corpus in the shard (zeros for the first), and each
// posting is
//
//	shared(1) digest[shared:] seq(uvarint) len(uvarint) value
//
// where shared is the number of leading digest bytes the posting has in
// common with the one before it in the block (0 for the first). A count
// record (countSeq) is a posting like the others. Since a block's key is
// its greatest, the first block whose key is at least (level, corpus,
// digest, seq) is the one that holds the first posting at or after it: a
// lookup seeks there and decodes forward.
//
// The blocks of a level and corpus end with an end record, whose key is
// the prefix followed by endKeyTail 0xff bytes (longer than a block key,
// so after all of them) and whose value is prev alone, written for every
// level and corpus built, even with no posting in the shard. A lookup
// checks each link it walks, and that it stops at a posting past its key
// or at the end record: Badger's iterator ends silently where it cannot
// read a block, and this makes that an error (integrity.go).
//
// One Badger entry per posting cost more than everything else in a build
// (each entry is encoded to a protocol buffer, decoded again by the stream
// writer and added to a table one by one); a block of 64 postings costs
// about what one posting did, and a lookup decodes at most a few
// kilobytes more than it did.

// blockKeyLen is the length of a block key.
const blockKeyLen = 1 + 1 + 2 + 16 + 4

// prevLen is the length of a block's link to the block before it: the
// digest and seq of that block's key.
const prevLen = 16 + 4

// endKeyTail is the number of 0xff bytes after the prefix in an end
// record's key.
const endKeyTail = prevLen + 1

// blockPostings bounds the postings of a block, and blockBytes its
// value's size (a block ends at the posting that reaches it).
var (
	blockPostings = 64
	blockBytes    = 4 << 10
)

// blockPrefix is the key prefix of the blocks of one level and corpus.
func blockPrefix(level canon.LevelID, cid uint16) []byte {
	k := make([]byte, 4, blockKeyLen)
	k[0] = 'p'
	k[1] = byte(level)
	binary.BigEndian.PutUint16(k[2:], cid)
	return k
}

// appendBlockKey appends the block key of a posting to dst.
func appendBlockKey(dst []byte, level canon.LevelID, cid uint16, d [16]byte, seq uint32) []byte {
	dst = append(dst, 'p', byte(level))
	dst = binary.BigEndian.AppendUint16(dst, cid)
	dst = append(dst, d[:]...)
	return binary.BigEndian.AppendUint32(dst, seq)
}

// appendEndKey appends the key of the end record of a level and corpus.
func appendEndKey(dst []byte, level canon.LevelID, cid uint16) []byte {
	dst = append(dst, 'p', byte(level))
	dst = binary.BigEndian.AppendUint16(dst, cid)
	for range endKeyTail {
		dst = append(dst, 0xff)
	}
	return dst
}

// isEndKey reports whether a key of the blocks' prefix is their end
// record's.
func isEndKey(k []byte) bool { return len(k) == 4+endKeyTail }

// blockWriter packs a stream of postings of one corpus into blocks.
type blockWriter struct {
	cid   uint16
	level canon.LevelID
	n     int // postings in the block
	last  [16]byte
	seq   uint32
	key   []byte
	val   []byte
	// prev is the key (digest, seq) of the last block taken, of level
	// prevLevel, when hasPrev: the next block's link.
	prev      [prevLen]byte
	prevLevel canon.LevelID
	hasPrev   bool
}

// link returns the link of the next block or end record of level.
func (b *blockWriter) link(level canon.LevelID) [prevLen]byte {
	if b.hasPrev && b.prevLevel == level {
		return b.prev
	}
	return [prevLen]byte{}
}

// startShard forgets the links of the shard before.
func (b *blockWriter) startShard() { b.hasPrev = false }

// end returns the end record of a level, valid until the next call.
func (b *blockWriter) end(level canon.LevelID) (key, val []byte) {
	b.key = appendEndKey(b.key[:0], level, b.cid)
	l := b.link(level)
	return b.key, l[:]
}

// add appends a posting to the block, which must be empty or of the same
// level.
func (b *blockWriter) add(level canon.LevelID, d [16]byte, seq uint32, v []byte) {
	if b.n == 0 {
		b.val = append(b.val[:0], make([]byte, prevLen)...) // the link, set by take
	}
	shared := 0
	if b.n > 0 {
		for shared < len(d) && d[shared] == b.last[shared] {
			shared++
		}
	}
	b.val = append(b.val, byte(shared))
	b.val = append(b.val, d[shared:]...)
	b.val = binary.AppendUvarint(b.val, uint64(seq))
	b.val = binary.AppendUvarint(b.val, uint64(len(v)))
	b.val = append(b.val, v...)
	b.level, b.last, b.seq = level, d, seq
	b.n++
}

// full reports whether the block is to be written before another posting
// is added.
func (b *blockWriter) full() bool {
	return b.n >= blockPostings || len(b.val) >= prevLen+blockBytes
}

// take returns the block's key and value, valid until the next add, and
// empties the block.
func (b *blockWriter) take() (key, val []byte) {
	b.key = appendBlockKey(b.key[:0], b.level, b.cid, b.last, b.seq)
	l := b.link(b.level)
	copy(b.val, l[:])
	copy(b.prev[:], b.key[4:])
	b.prevLevel, b.hasPrev = b.level, true
	val = b.val
	b.val = b.val[:0]
	b.n = 0
	return b.key, val
}

// blockReader decodes the postings of one block.
type blockReader struct {
	b      []byte
	digest [16]byte
	seq    uint32
	val    []byte
}

// next decodes the next posting, and reports false at the block's end.
func (r *blockReader) next() (bool, error) {
	if len(r.b) == 0 {
		return false, nil
	}
	shared := int(r.b[0])
	if shared > len(r.digest) || 1+len(r.digest)-shared > len(r.b) {
		return false, errCorruptBlock
	}
	n := copy(r.digest[shared:], r.b[1:])
	b := r.b[1+n:]
	seq, w := binary.Uvarint(b)
	if w <= 0 || seq > countSeq {
		return false, errCorruptBlock
	}
	b = b[w:]
	vlen, w := binary.Uvarint(b)
	if w <= 0 || vlen > uint64(len(b)-w) {
		return false, errCorruptBlock
	}
	r.seq = uint32(seq)
	r.val = b[w : w+int(vlen)]
	r.b = b[w+int(vlen):]
	return true, nil
}

var errCorruptBlock = errors.New("corrupt posting block")

// checkLink checks the link of a block (or end record) with key k and
// value v, and returns its postings. prev is the key of the block read
// before it in the same walk, nil when the walk was sought to seek.
func checkLink(k, v, prev, seek []byte) ([]byte, error) {
	if len(v) < prevLen || (len(k) != blockKeyLen && !isEndKey(k)) {
		return nil, errCorruptBlock
	}
	link := v[:prevLen]
	if prev == nil {
		// The first block at or after seek: the one before it, if any,
		// is before seek (else the seek skipped blocks).
		if !allZero(link) && bytes.Compare(link, seek[4:]) >= 0 {
			return nil, errBrokenChain
		}
	} else if !bytes.Equal(link, prev[4:]) {
		return nil, errBrokenChain
	}
	if isEndKey(k) && len(v) != prevLen {
		return nil, errCorruptBlock
	}
	return v[prevLen:], nil
}

var errBrokenChain = errors.New("a posting block is missing (the chain of blocks is broken)")

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// compareDigest orders digests as bytes.
func compareDigest(a, b *[16]byte) int { return bytes.Compare(a[:], b[:]) }
