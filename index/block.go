package index

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/leakaudit/leakaudit/canon"
)

// Posting blocks (FormatVersion 3).
//
// A shard stores its postings in blocks: runs of up to blockPostings
// consecutive postings of one level and corpus, in key order, each one
// Badger entry. The entry's key is the block key of its last posting,
//
//	'p' level(1) corpus(2, big endian) digest(16) seq(4, big endian)
//
// and its value the postings, each as
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
// One Badger entry per posting cost more than everything else in a build
// (each entry is encoded to a protocol buffer, decoded again by the stream
// writer and added to a table one by one); a block of 64 postings costs
// about what one posting did, and a lookup decodes at most a few
// kilobytes more than it did.

// blockKeyLen is the length of a block key.
const blockKeyLen = 1 + 1 + 2 + 16 + 4

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

// blockWriter packs a stream of postings of one corpus into blocks.
type blockWriter struct {
	cid   uint16
	level canon.LevelID
	n     int // postings in the block
	last  [16]byte
	seq   uint32
	key   []byte
	val   []byte
}

// add appends a posting to the block, which must be empty or of the same
// level.
func (b *blockWriter) add(level canon.LevelID, d [16]byte, seq uint32, v []byte) {
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
func (b *blockWriter) full() bool { return b.n >= blockPostings || len(b.val) >= blockBytes }

// take returns the block's key and value, valid until the next add, and
// empties the block.
func (b *blockWriter) take() (key, val []byte) {
	b.key = appendBlockKey(b.key[:0], b.level, b.cid, b.last, b.seq)
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

// compareDigest orders digests as bytes.
func compareDigest(a, b *[16]byte) int { return bytes.Compare(a[:], b[:]) }
