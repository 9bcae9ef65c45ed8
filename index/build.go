package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/fingerprint"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/progress"
)

// A build turns a corpus into postings in three bounded-memory steps: the
// corpus is streamed and canonicalized into runs of at most runPostings
// postings, each run is sorted (on a second goroutine while the next one
// fills) and written to a temporary file, and the sorted runs are merged
// into Badger's StreamWriter, which writes tables directly without a
// memtable or compactions. Memory is bounded by two runs plus the merge's
// read buffers, whatever the corpus size.
//
// In runs, a posting key is shard(1) level(1) digest(16) corpus(2)
// seq(4), so that runs sort, and the merge yields postings, shard by shard:
// each shard is opened, written and closed in turn, and Badger's
// memory-mapped tables of at most one shard are mapped at a time. A build
// writes one corpus, so this order is also the order of the block keys
// (block.go) the merge packs the postings into.

// keyLen is the length of a posting key.
const keyLen = postingPrefixLen + 2 + 4

// itemDigests are one item's digests, one per level indexed, in the
// order of the levels: at most one per registered level.
type itemDigests [8]canon.Digest

// runPostings is the number of postings sorted in memory at once (about
// 32 MB of keys and offsets per run, and as much again to sort them into).
const runPostings = 1 << 20

type posting struct {
	key  [keyLen]byte
	voff uint32 // offset of the value in the run's arena
	vlen uint32
}

type run struct {
	ps    []posting
	arena []byte
	// sorted receives ps in order (sortRun), and counts the buckets.
	sorted []posting
	counts []int32
}

func (r *run) reset() { r.ps, r.arena = r.ps[:0], r.arena[:0] }

// comparePostings orders postings by key: three big-endian words
// (keyLen is 24, checked below).
func comparePostings(a, b *posting) int {
	for i := 0; i < keyLen; i += 8 {
		x, y := binary.BigEndian.Uint64(a.key[i:]), binary.BigEndian.Uint64(b.key[i:])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// A posting key is three words, as comparePostings reads it.
var _ [keyLen - 24]struct{}
var _ [24 - keyLen]struct{}

// sortRun sorts r's postings into r.sorted and returns them. The
// postings are first distributed into buckets by the head of their key,
// in key order: shard, level (as its place among the run's levels) and the
// 12 digest bits after the shard's four, a counting sort in two passes;
// each bucket, a handful of postings as digests are uniform, is then
// sorted alone. On a run of 1M postings this takes about a quarter of
// the time of one comparison sort of the whole run (BenchmarkSortRun:
// 53 against 207 ms).
func sortRun(r *run, levelPlace *[256]uint8, nLevels int) []posting {
	nb := numShards * nLevels << 12
	if cap(r.counts) < nb+1 {
		r.counts = make([]int32, nb+1)
	}
	counts := r.counts[:nb+1]
	clear(counts)
	bucket := func(p *posting) int {
		return (int(p.key[0])*nLevels+int(levelPlace[p.key[1]]))<<12 | int(p.key[2]&0x0f)<<8 | int(p.key[3])
	}
	for i := range r.ps {
		counts[bucket(&r.ps[i])+1]++
	}
	for b := 1; b <= nb; b++ {
		counts[b] += counts[b-1]
	}
	if cap(r.sorted) < len(r.ps) {
		r.sorted = make([]posting, len(r.ps))
	}
	out := r.sorted[:len(r.ps)]
	next := counts[:nb] // next[b]: where bucket b's next posting goes
	for i := range r.ps {
		b := bucket(&r.ps[i])
		out[next[b]] = r.ps[i]
		next[b]++
	}
	// next[b] is now bucket b's end, and the start of bucket b+1.
	start := int32(0)
	for b := range nb {
		end := next[b]
		if seg := out[start:end]; len(seg) > 1 {
			sortPostings(seg)
		}
		start = end
	}
	return out
}

// sortPostings sorts a few postings: by insertion when they are few, as
// in a bucket of sortRun, else by slices.SortFunc (a key that many
// postings share fills one bucket).
func sortPostings(ps []posting) {
	if len(ps) > 16 {
		slices.SortFunc(ps, func(a, b posting) int { return comparePostings(&a, &b) })
		return
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && comparePostings(&ps[j-1], &ps[j]) > 0; j-- {
			ps[j-1], ps[j] = ps[j], ps[j-1]
		}
	}
}

// writeRun sorts r (sortRun) and writes it to path as records of key,
// value length (uvarint) and value. Postings with equal keys keep one
// copy.
func writeRun(r *run, levelPlace *[256]uint8, nLevels int, path string) error {
	ps := sortRun(r, levelPlace, nLevels)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var lenBuf [binary.MaxVarintLen32]byte
	for i := range ps {
		p := &ps[i]
		if i > 0 && p.key == ps[i-1].key {
			continue
		}
		w.Write(p.key[:])
		n := binary.PutUvarint(lenBuf[:], uint64(p.vlen))
		w.Write(lenBuf[:n])
		w.Write(r.arena[p.voff : p.voff+p.vlen])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runReader reads one sorted run file through its own buffer, decoding
// records in place: reading them through bufio (a call per field, a
// value copied out) took 19 s of the merge's 44 s of CPU on 80M labels at
// two levels, this 12 s.
type runReader struct {
	f     *os.File
	buf   []byte // buf[r:w] is read and not yet decoded
	r, w  int
	eof   bool
	key   [keyLen]byte
	words [keyLen / 8]uint64 // key as big-endian words, for runHeap
	val   []byte             // in buf: valid until the next call to next
}

func newRunReader(f *os.File) *runReader { return &runReader{f: f, buf: make([]byte, runReadBuffer)} }

// runReadBuffer is a run reader's buffer size (32 KB made no difference
// to an 80M-label build).
const runReadBuffer = 256 << 10

// fill reads until at least min bytes are buffered or the file ends.
func (rr *runReader) fill(min int) error {
	if rr.w-rr.r >= min || rr.eof {
		return nil
	}
	rr.w = copy(rr.buf, rr.buf[rr.r:rr.w])
	rr.r = 0
	if min > len(rr.buf) {
		rr.buf = append(rr.buf[:rr.w], make([]byte, 2*min-rr.w)...)
	}
	for rr.w < min {
		n, err := rr.f.Read(rr.buf[rr.w:])
		rr.w += n
		if err == io.EOF {
			rr.eof = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("read run: %w", err)
		}
	}
	return nil
}

func (rr *runReader) next() (bool, error) {
	if err := rr.fill(keyLen + binary.MaxVarintLen32); err != nil {
		return false, err
	}
	avail := rr.buf[rr.r:rr.w]
	if len(avail) == 0 {
		return false, nil
	}
	if len(avail) <= keyLen {
		return false, errTruncatedRun
	}
	n, k := binary.Uvarint(avail[keyLen:])
	if k <= 0 || n > maxRunValue {
		return false, fmt.Errorf("read run: bad value length")
	}
	size := keyLen + k + int(n)
	if size > len(avail) {
		if err := rr.fill(size); err != nil {
			return false, err
		}
		if avail = rr.buf[rr.r:rr.w]; size > len(avail) {
			return false, errTruncatedRun
		}
	}
	copy(rr.key[:], avail)
	for i := range rr.words {
		rr.words[i] = binary.BigEndian.Uint64(rr.key[8*i:])
	}
	rr.val = avail[keyLen+k : size]
	rr.r += size
	return true, nil
}

// maxRunValue bounds a posting value in a run (an item's id, with its
// corpus for a fingerprint's row), far above any the readers let through.
const maxRunValue = 1 << 24

var errTruncatedRun = errors.New("read run: truncated record")

// runHeap is a min-heap of run readers by their current key, compared as
// the key's three big-endian words (runReader.words).
type runHeap []*runReader

func (h runHeap) less(i, j int) bool {
	a, b := &h[i].words, &h[j].words
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	if a[1] != b[1] {
		return a[1] < b[1]
	}
	return a[2] < b[2]
}

// down restores the heap order below i.
func (h runHeap) down(i int) {
	for {
		m := 2*i + 1
		if m >= len(h) {
			return
		}
		if r := m + 1; r < len(h) && h.less(r, m) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h runHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// ingest streams one corpus into postings at the given levels and writes
// them into the database with an incremental stream write.
// items is the corpus the postings' items belong to when it is not the
// input's (Corpus.Items).
func (ix *DB) ingest(ctx context.Context, cid uint16, in CorpusInput, levels []canon.Level, prog progress.Reporter) (st dataset.Stats, n int64, items string, err error) {
	tmp, err := os.MkdirTemp(ix.dir, "build-")
	if err != nil {
		return dataset.Stats{}, 0, "", err
	}
	defer os.RemoveAll(tmp)
	if prog != nil {
		prog.Start("indexing "+in.Name, -1)
		defer prog.Done()
	}

	var levelPlace [256]uint8 // a level id's place in levels, for sortRun
	for i, l := range levels {
		levelPlace[l.ID] = uint8(i)
	}
	// Fill runs; sort and write each full run on another goroutine.
	var files []string
	sorted := make(chan error, 1)
	sorting := false
	cur, spare := &run{}, &run{}
	flush := func() error {
		if sorting {
			if err := <-sorted; err != nil {
				return err
			}
		}
		path := filepath.Join(tmp, fmt.Sprintf("run-%05d", len(files)))
		files = append(files, path)
		full := cur
		cur, spare = spare, cur
		cur.reset()
		sorting = true
		go func() { sorted <- writeRun(full, &levelPlace, len(levels), path) }()
		return nil
	}
	var counts shardCounts
	// add records one item's postings, with the digest of each level
	// (digest(i, levels[i])).
	add := func(seq int64, id string, digest func(i int, l canon.Level) canon.Digest) error {
		// id is stored in the posting's value unless it is seq itself.
		if seq >= countSeq {
			return fmt.Errorf("corpus has more than %d records", uint64(countSeq))
		}
		if len(id) > maxRunValue {
			return fmt.Errorf("item %.40q…: id longer than %d bytes", id, maxRunValue)
		}
		if n&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		voff, vlen := uint32(len(cur.arena)), uint32(0)
		var num [20]byte
		if id != string(strconv.AppendInt(num[:0], seq, 10)) {
			cur.arena = append(cur.arena, id...)
			vlen = uint32(len(id))
		}
		for i, l := range levels {
			d := digest(i, l)
			var p posting
			sh := shardOf(d)
			counts[sh][l.ID]++
			p.key[0] = byte(sh)
			p.key[1] = byte(l.ID)
			copy(p.key[2:], d[:])
			binary.BigEndian.PutUint16(p.key[postingPrefixLen:], cid)
			binary.BigEndian.PutUint32(p.key[postingPrefixLen+2:], uint32(seq))
			p.voff, p.vlen = voff, vlen
			cur.ps = append(cur.ps, p)
			n++
		}
		if prog != nil {
			prog.Add(1)
		}
		if len(cur.ps) >= runPostings {
			return flush()
		}
		return nil
	}
	if fingerprint.Is(in.Source.Path) {
		// A fingerprint stands in for its corpus: its digests are the
		// postings' digests.
		meta, merr := fingerprint.Open(in.Source.Path)
		if merr == nil {
			merr = meta.Check(levels, ix.salt)
		}
		var one bool
		if merr == nil {
			items, one, merr = fingerprint.OneCorpus(in.Source.Path)
		}
		if merr != nil {
			return st, 0, "", fmt.Errorf("fingerprint %s: %w", in.Source.Path, merr)
		}
		digest := func(k *fingerprint.KeyRow) func(int, canon.Level) canon.Digest {
			return func(i int, _ canon.Level) canon.Digest { return k.Keys[i] }
		}
		if one {
			// The rows are the items of one corpus (items): a posting is
			// numbered by its item's position, and holds the id only when
			// it is not that position, as for the corpus itself; lookups
			// name that corpus (Corpus.Items). A position met twice would
			// lose a posting: it is refused.
			var seen []uint64 // a bit per position
			st, err = fingerprint.ScanKeys(in.Source.Path, canon.IDs(levels), func(k *fingerprint.KeyRow) error {
				if k.Corpus != items {
					return fmt.Errorf("item %s of corpus %q in a fingerprint whose statistics name only corpus %q", k.ID, k.Corpus, items)
				}
				if k.Seq < 0 || k.Seq >= countSeq {
					return fmt.Errorf("item %s has position %d", k.ID, k.Seq)
				}
				w := int(k.Seq >> 6)
				if w >= len(seen) {
					seen = slices.Grow(seen, w+1-len(seen))[:w+1]
				}
				if seen[w]&(1<<(k.Seq&63)) != 0 {
					return fmt.Errorf("corpus %s has two items at position %d", items, k.Seq)
				}
				seen[w] |= 1 << (k.Seq & 63)
				id := k.ID
				if strings.IndexByte(id, 0) >= 0 {
					id = refValue(items, id) // read back whole, not cut at its NUL
				}
				return add(k.Seq, id, digest(k))
			})
		} else {
			items = ""
			// Rows of several corpora: each posting is numbered by its
			// row, and names the row's corpus and id (refValue), so that
			// lookups name the items as the corpora do.
			var row int64
			st, err = fingerprint.ScanKeys(in.Source.Path, canon.IDs(levels), func(k *fingerprint.KeyRow) error {
				row++
				return add(row-1, refValue(k.Corpus, k.ID), digest(k))
			})
		}
	} else {
		// Labels are canonicalized and digested on every core
		// (ScanMapped); the postings are added in file order.
		if len(levels) > len(itemDigests{}) {
			return st, 0, "", fmt.Errorf("at most %d levels can be indexed at once", len(itemDigests{}))
		}
		st, err = dataset.ScanMapped(ctx, in.Source, 0, func(it dataset.Item) itemDigests {
			var ds itemDigests
			for i, l := range levels {
				ds[i] = l.Digest(it.Label, ix.salt)
			}
			return ds
		}, func(it dataset.Item, ds itemDigests) error {
			id := it.ID
			if strings.IndexByte(id, 0) >= 0 {
				id = refValue(in.Name, id) // read back whole, not cut at its NUL
			}
			return add(it.Seq, id, func(i int, _ canon.Level) canon.Digest { return ds[i] })
		})
	}
	if err == nil && len(cur.ps) > 0 {
		err = flush()
	}
	if sorting {
		if serr := <-sorted; err == nil {
			err = serr
		}
	}
	if err != nil {
		return st, 0, "", err
	}
	if err := ix.streamRuns(ctx, files, cid, levels, &counts); err != nil {
		return st, 0, "", err
	}
	return st, n, items, nil
}

// shardCounts counts postings by shard and level id.
type shardCounts [numShards][256]int64

// streamRuns merges the sorted run files of corpus cid at levels into the
// shards, one shard at a time, and writes the key filters of each shard
// and level. Every shard exists afterwards, with postings or empty.
func (ix *DB) streamRuns(ctx context.Context, files []string, cid uint16, levels []canon.Level, counts *shardCounts) error {
	h := runHeap{}
	defer func() {
		for _, rr := range h {
			rr.f.Close()
		}
	}()
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		rr := newRunReader(f)
		ok, err := rr.next()
		if err != nil {
			f.Close()
			return err
		}
		if ok {
			h = append(h, rr)
		} else {
			f.Close()
		}
	}
	h.init()
	var last [keyLen]byte
	var key, val []byte // reused: the stream write copies them before the next call
	first := true
	var filters shardFilters // the current shard's
	// The postings of one key (a group) come together. A group of more
	// than countAfter postings is followed by its count record; the
	// posting that ends such a group waits in pend while the record is
	// written.
	var (
		grp        [postingPrefixLen]byte
		grpN       uint64
		pend       bool
		pkey, pval []byte
		ckey, cval []byte
	)
	countRecord := func() ([]byte, []byte, bool, error) {
		ckey = appendCountKey(ckey[:0], grp[:], cid)
		cval = binary.AppendUvarint(cval[:0], grpN)
		grpN = 0
		return ckey, cval, true, nil
	}
	nextPosting := func(s int) ([]byte, []byte, bool, error) {
		if pend {
			pend = false
			copy(grp[:], pkey)
			grpN = 1
			return pkey, pval, true, nil
		}
		for len(h) > 0 && int(h[0].key[0]) == s {
			rr := h[0]
			dup := !first && rr.key == last
			last, first = rr.key, false
			key, val = append(key[:0], rr.key[:]...), append(val[:0], rr.val...)
			ok, err := rr.next()
			if err != nil {
				return nil, nil, false, err
			}
			if !ok {
				rr.f.Close()
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			h.down(0)
			if dup {
				continue
			}
			f := filters[key[1]]
			if f == nil {
				return nil, nil, false, fmt.Errorf("corrupt run: posting of level %d", key[1])
			}
			f.add([16]byte(key[2:postingPrefixLen]))
			if grpN > 0 && !bytes.Equal(grp[:], key[:postingPrefixLen]) {
				if grpN > countAfter {
					pkey, pval = append(pkey[:0], key...), append(pval[:0], val...)
					pend = true
					return countRecord()
				}
				grpN = 0
			}
			if grpN == 0 {
				copy(grp[:], key)
			}
			grpN++
			return key, val, true, nil
		}
		if grpN > countAfter { // the shard's last group
			return countRecord()
		}
		grpN = 0
		return nil, nil, false, nil
	}
	// The postings are packed into blocks (block.go). A posting of
	// another level than the block's ends it and waits in carry.
	bw := blockWriter{cid: cid}
	var (
		carry    bool
		carryKey [keyLen]byte
		carryVal []byte
	)
	addPosting := func(key, val []byte) {
		bw.add(canon.LevelID(key[1]), [16]byte(key[2:postingPrefixLen]), binary.BigEndian.Uint32(key[postingPrefixLen+2:]), val)
	}
	// Each level's blocks are followed by its end record (block.go),
	// for every level built, in the order of the level ids (the order of
	// the keys); ended counts the levels whose end record is written.
	ids := make([]canon.LevelID, 0, len(levels))
	for _, l := range levels {
		ids = append(ids, l.ID)
	}
	slices.Sort(ids)
	ended := 0
	ready := false // bw holds a block to write
	next := func(s int) ([]byte, []byte, bool, error) {
		if !ready {
			if carry {
				addPosting(carryKey[:], carryVal)
				carry = false
			}
			for !bw.full() {
				key, val, ok, err := nextPosting(s)
				if err != nil {
					return nil, nil, false, err
				}
				if !ok {
					break
				}
				if bw.n > 0 && canon.LevelID(key[1]) != bw.level {
					carry = true
					copy(carryKey[:], key)
					carryVal = append(carryVal[:0], val...)
					break
				}
				addPosting(key, val)
			}
			ready = bw.n > 0
		}
		if ended < len(ids) && (!ready || ids[ended] < bw.level) {
			k, v := bw.end(ids[ended])
			ended++
			return k, v, true, nil
		}
		if !ready {
			return nil, nil, false, nil
		}
		ready = false
		k, v := bw.take()
		return k, v, true, nil
	}
	bufs := newStreamBuffers()
	defer bufs.release()
	// A shard's last tables are written, and the shard closed, on another
	// goroutine while the next shard is merged: at most two shards are
	// open at once.
	var pending chan error
	wait := func() error {
		if pending == nil {
			return nil
		}
		err := <-pending
		pending = nil
		return err
	}
	defer wait()
	for s := range numShards {
		filters = shardFilters{}
		for _, l := range levels {
			filters[l.ID] = newFilter(counts[s][l.ID])
		}
		// Every shard gets the end records of the levels built, with
		// postings or none.
		bw.startShard()
		ended, ready = 0, false
		db, err := ix.openShardWriter(s) // created if it is new
		if err != nil {
			return err
		}
		sw, err := streamWrite(ctx, db, bufs, func() ([]byte, []byte, bool, error) { return next(s) })
		if err == nil {
			err = writeFilters(ix.dir, s, cid, filters)
		}
		if werr := wait(); err == nil {
			err = werr
		}
		if err != nil {
			if sw != nil {
				sw.Cancel()
			}
			closeShard(db)
			return fmt.Errorf("shard %d: %w", s, err)
		}
		pending = make(chan error, 1)
		go func() {
			var err error
			if sw != nil {
				err = sw.Flush()
			}
			if cerr := closeShard(db); err == nil {
				err = cerr
			}
			if err != nil {
				err = fmt.Errorf("shard %d: %w", s, err)
			}
			pending <- err
		}()
	}
	if err := wait(); err != nil {
		return err
	}
	if len(h) > 0 {
		return fmt.Errorf("corrupt run: posting of shard %d", h[0].key[0])
	}
	return nil
}

// shardFilters are the key filters of one shard's postings being merged,
// by level id (nil for a level not being built).
type shardFilters [256]*filterBuilder

// writeFilters writes the key filters of a shard, one per level.
func writeFilters(dir string, s int, cid uint16, filters shardFilters) error {
	wrote := false
	for id, f := range filters {
		if f == nil {
			continue
		}
		if err := f.write(filterPath(dir, s, cid, canon.LevelID(id))); err != nil {
			return fmt.Errorf("write index filter: %w", err)
		}
		wrote = true
	}
	if wrote {
		syncDir(shardDir(dir, s))
	}
	return nil
}

// streamSorted writes the key-value pairs that next yields, in strictly
// increasing key order, into db with an incremental stream write: tables are
// written directly, below whatever the database already holds. The slices
// next returns are copied before it is called again.
func streamSorted(ctx context.Context, db *badger.DB, next func() (key, val []byte, ok bool, err error)) error {
	bufs := newStreamBuffers()
	defer bufs.release()
	sw, err := streamWrite(ctx, db, bufs, next)
	if err != nil {
		return err
	}
	return sw.Flush()
}

// streamBuffers are streamWrite's two scratch buffers, reused from call
// to call.
type streamBuffers [2]*z.Buffer

// streamBufferBytes is the initial size of a stream buffer, and
// streamBatchBytes the size at which a filled one is handed to Badger's
// StreamWriter.
const (
	streamBufferBytes = 32 << 20
	streamBatchBytes  = 16 << 20
)

func newStreamBuffers() *streamBuffers {
	return &streamBuffers{z.NewBuffer(streamBufferBytes, "leakaudit.index"), z.NewBuffer(streamBufferBytes, "leakaudit.index")}
}

func (b *streamBuffers) release() {
	b[0].Release()
	b[1].Release()
}

// streamWrite is streamSorted up to the stream writer's Flush, which writes
// its last tables and which the caller must call (or Cancel). The pairs are
// encoded into one of bufs while the stream writer reads the other on
// another goroutine, so that merging and Badger's decoding use both cores.
func streamWrite(ctx context.Context, db *badger.DB, bufs *streamBuffers, next func() (key, val []byte, ok bool, err error)) (*badger.StreamWriter, error) {
	sw := db.NewStreamWriter()
	if err := sw.PrepareIncremental(); err != nil {
		sw.Cancel()
		return nil, fmt.Errorf("prepare stream write: %w", err)
	}
	buf, spare := bufs[0], bufs[1]
	buf.Reset()
	spare.Reset()
	// full carries encoded buffers to the writer goroutine, free brings
	// them back once written; werr is the writer's first error.
	full, free := make(chan *z.Buffer), make(chan *z.Buffer, 2)
	free <- spare
	var werr error
	var failed atomic.Bool // werr is set: stop encoding
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range full {
			if werr == nil {
				if werr = sw.Write(b); werr != nil {
					failed.Store(true)
				}
			}
			b.Reset()
			free <- b
		}
	}()
	finish := func() error {
		close(full)
		<-done
		return werr
	}
	cur := buf
	kv := &pb.KV{Version: 1}
	for {
		key, val, ok, err := next()
		if err != nil {
			finish()
			sw.Cancel()
			return nil, err
		}
		if !ok {
			break
		}
		kv.Key, kv.Value = key, val
		badger.KVToBuffer(kv, cur)
		if cur.LenNoPadding() >= streamBatchBytes {
			if err := ctx.Err(); err != nil {
				finish()
				sw.Cancel()
				return nil, err
			}
			if failed.Load() {
				break
			}
			full <- cur
			cur = <-free
		}
	}
	if cur.LenNoPadding() > 0 {
		full <- cur
	}
	if err := finish(); err != nil {
		sw.Cancel()
		return nil, err
	}
	return sw, nil
}

// refValue is the posting value of an item of a fingerprint: its corpus
// and id, which Lookup reports in place of the fingerprint's name.
func refValue(corpus, id string) string { return corpus + "\x00" + id }
