package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// randomRun returns a run of n postings at the given levels: random
// digests, a tenth of them repeating a few common ones (keys that many
// items share), some postings repeated whole.
func randomRun(n int, levels []uint8, seed uint64) *run {
	rng := rand.New(rand.NewPCG(seed, 1))
	common := make([][16]byte, 5)
	for i := range common {
		binary.BigEndian.PutUint64(common[i][:], rng.Uint64())
		binary.BigEndian.PutUint64(common[i][8:], rng.Uint64())
	}
	r := &run{}
	for i := range n {
		var d [16]byte
		if rng.IntN(10) == 0 {
			d = common[rng.IntN(len(common))]
		} else {
			binary.BigEndian.PutUint64(d[:], rng.Uint64())
			binary.BigEndian.PutUint64(d[8:], rng.Uint64())
		}
		var p posting
		p.key[0] = byte(shardOf(d))
		p.key[1] = levels[rng.IntN(len(levels))]
		copy(p.key[2:], d[:])
		binary.BigEndian.PutUint16(p.key[postingPrefixLen:], 3)
		binary.BigEndian.PutUint32(p.key[postingPrefixLen+2:], uint32(rng.IntN(n)))
		p.voff = uint32(i)
		r.ps = append(r.ps, p)
		if rng.IntN(50) == 0 {
			r.ps = append(r.ps, p)
		}
	}
	return r
}

// TestSortRun: sortRun orders a run exactly as one comparison sort of it
// does, at one level and several, small and large.
func TestSortRun(t *testing.T) {
	for _, tc := range []struct {
		n      int
		levels []uint8
	}{{0, []uint8{1}}, {1, []uint8{1}}, {100, []uint8{2}}, {5000, []uint8{1, 2}}, {200000, []uint8{0, 1, 2, 3, 4}}} {
		r := randomRun(tc.n, tc.levels, uint64(tc.n))
		var place [256]uint8
		for i, l := range tc.levels {
			place[l] = uint8(i)
		}
		want := slices.Clone(r.ps)
		slices.SortStableFunc(want, func(a, b posting) int { return comparePostings(&a, &b) })
		got := sortRun(r, &place, len(tc.levels))
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d postings, want %d", tc.n, len(got), len(want))
		}
		for i := range got {
			if got[i].key != want[i].key {
				t.Fatalf("n=%d levels %v: posting %d is %x, want %x", tc.n, tc.levels, i, got[i].key, want[i].key)
			}
		}
		// Every posting is there once (voff tells them apart).
		seen := map[uint32]int{}
		for _, p := range got {
			seen[p.voff]++
		}
		for _, p := range r.ps {
			seen[p.voff]--
		}
		for v, c := range seen {
			if c != 0 {
				t.Fatalf("n=%d: posting %d appears %d times too many", tc.n, v, c)
			}
		}
	}
}

// BenchmarkSortRun sorts a full run of two levels, by sortRun and by one
// comparison sort.
func BenchmarkSortRun(b *testing.B) {
	r := randomRun(runPostings, []uint8{1, 2}, 7)
	r.ps = r.ps[:runPostings]
	orig := slices.Clone(r.ps)
	var place [256]uint8
	place[2] = 1
	b.Run("buckets", func(b *testing.B) {
		for b.Loop() {
			copy(r.ps, orig)
			sortRun(r, &place, 2)
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			copy(r.ps, orig)
			slices.SortFunc(r.ps, func(a, b posting) int { return comparePostings(&a, &b) })
		}
	})
}

// TestBlocks: postings packed by blockWriter read back whole and in order
// by blockReader, and a damaged block is an error, never a crash.
func TestBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type post struct {
		d   [16]byte
		seq uint32
		v   string
	}
	var in []post
	for i := range 200 {
		var p post
		binary.BigEndian.PutUint64(p.d[:], uint64(i/3)<<40|rng.Uint64()>>24) // shared prefixes
		p.seq = uint32(rng.IntN(1 << 30))
		if i%5 == 0 {
			p.seq = countSeq
		}
		if i%2 == 0 {
			p.v = fmt.Sprint("corpus\x00id", i)
		}
		in = append(in, p)
	}
	slices.SortFunc(in, func(a, b post) int { return bytes.Compare(a.d[:], b.d[:]) })
	bw := blockWriter{cid: 7}
	for _, p := range in {
		bw.add(2, p.d, p.seq, []byte(p.v))
	}
	key, val := bw.take()
	last := in[len(in)-1]
	if !bytes.Equal(key, appendBlockKey(nil, 2, 7, last.d, last.seq)) {
		t.Errorf("block key %x is not its last posting's", key)
	}
	if !allZero(val[:prevLen]) {
		t.Errorf("the first block's link %x is not zero", val[:prevLen])
	}
	val = val[prevLen:]
	r := blockReader{b: val}
	for i, p := range in {
		ok, err := r.next()
		if !ok || err != nil || r.digest != p.d || r.seq != p.seq || string(r.val) != p.v {
			t.Fatalf("posting %d: %v %v %x %d %q, want %x %d %q", i, ok, err, r.digest, r.seq, r.val, p.d, p.seq, p.v)
		}
	}
	if ok, err := r.next(); ok || err != nil {
		t.Errorf("after the last posting: %v, %v", ok, err)
	}
	// Every truncation and some corruptions: an error or a clean end.
	for cut := range len(val) {
		r := blockReader{b: val[:cut]}
		for {
			ok, err := r.next()
			if err != nil || !ok {
				break
			}
		}
	}
	for _, bad := range [][]byte{{17}, {0, 1, 2}, append(make([]byte, 17), 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)} {
		r := blockReader{b: bad}
		if _, err := r.next(); err == nil {
			t.Errorf("block %x read without error", bad)
		}
	}
}

// TestRunReader: a run written by writeRun reads back record for record,
// in order and without repeats, with values from empty to larger than the
// reader's buffer; a file cut short is an error, not a shorter run.
func TestRunReader(t *testing.T) {
	r := randomRun(20000, []uint8{1, 2}, 7)
	sizes := []int{0, 1, 9, 300 << 10, 17}
	for i := range r.ps {
		n := sizes[i%len(sizes)]
		if n > 1000 && i > 10 {
			n = 5 // one value larger than the buffer is enough
		}
		r.ps[i].voff, r.ps[i].vlen = uint32(len(r.arena)), uint32(n)
		for j := range n {
			r.arena = append(r.arena, byte(i+j))
		}
	}
	var place [256]uint8
	place[2] = 1
	path := filepath.Join(t.TempDir(), "run")
	if err := writeRun(r, &place, 2, path); err != nil {
		t.Fatal(err)
	}
	// What writeRun writes: the sorted postings, repeats dropped.
	var want []string
	for i, p := range r.sorted {
		if i > 0 && p.key == r.sorted[i-1].key {
			continue
		}
		want = append(want, fmt.Sprintf("%x/%x", p.key, r.arena[p.voff:p.voff+p.vlen]))
	}
	read := func(path string) ([]string, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rr := newRunReader(f)
		var got []string
		for {
			ok, err := rr.next()
			if err != nil || !ok {
				return got, err
			}
			got = append(got, fmt.Sprintf("%x/%x", rr.key, rr.val))
		}
	}
	got, err := read(path)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("read %d records (%v), want %d", len(got), err, len(want))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data) - 1, keyLen, 3} {
		short := filepath.Join(t.TempDir(), "short")
		if err := os.WriteFile(short, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := read(short); !errors.Is(err, errTruncatedRun) {
			t.Errorf("run cut at %d bytes: %v", cut, err)
		}
	}
}
