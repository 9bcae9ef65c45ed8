package index

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"

	"github.com/leakaudit/leakaudit/dataset"

	"github.com/dgraph-io/badger/v4"
)

func levels(t testing.TB, names string) []canon.Level {
	ls, err := canon.ParseLevels(names)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// corpus writes a caption-style corpus and returns its input and fingerprint.
func corpus(t testing.TB, dir, name string, lines []string) (CorpusInput, checksum.Input) {
	t.Helper()
	path := filepath.Join(dir, name+".txt")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%s_%d\t%s\n", name, i, l)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fp, err := checksum.Of(path)
	if err != nil {
		t.Fatal(err)
	}
	return CorpusInput{Name: name, Source: dataset.Source{Path: path, Format: dataset.Caption}}, checksum.Input{Name: name, File: fp}
}

func build(t testing.TB, ix *DB, ins []CorpusInput, fps []checksum.Input, ls []canon.Level) BuildReport {
	t.Helper()
	rep, err := ix.Build(context.Background(), ins, fps, ls, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func lookup(t testing.TB, ix *DB, level, label string) Match {
	t.Helper()
	l, _ := canon.LookupLevel(level)
	key, _ := l.Canon(label)
	m, err := ix.Lookup(l, key, 10)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildAndLookup(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x ^ { 2 }", `\alphab`, "x ^ { 2 }", "y"})
	b, fb := corpus(t, dir, "b", []string{"x^{2}", "z"})
	ix, err := Open(filepath.Join(dir, "ix"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rep := build(t, ix, []CorpusInput{a, b}, []checksum.Input{fa, fb}, levels(t, "raw,audit,ws"))
	if rep.Postings != 18 || len(rep.Indexed) != 6 {
		t.Errorf("build wrote %d postings, %d pairs", rep.Postings, len(rep.Indexed))
	}
	tests := []struct {
		level, label string
		count        int64
		refs         string
	}{
		{"raw", "x ^ { 2 }", 2, "a:a_0 a:a_2"},
		{"audit", "x ^ { 2 }", 3, "a:a_0 a:a_2 b:b_0"},
		{"ws", "x ^ {2}", 3, "a:a_0 a:a_2 b:b_0"},
		{"audit", `\alpha b`, 1, "a:a_1"},
		{"ws", `\alpha b`, 0, ""},
		{"raw", "w", 0, ""},
	}
	for _, tt := range tests {
		m := lookup(t, ix, tt.level, tt.label)
		var refs []string
		for _, r := range m.Refs {
			refs = append(refs, r.Corpus+":"+r.ID)
		}
		if m.Count != tt.count || strings.Join(refs, " ") != tt.refs {
			t.Errorf("%s %q: count %d refs %q; want %d %q", tt.level, tt.label, m.Count, refs, tt.count, tt.refs)
		}
	}
	// maxRefs bounds the names, never the count.
	l, _ := canon.LookupLevel("audit")
	m, _ := ix.Lookup(l, "x^{2}", 1)
	if m.Count != 3 || len(m.Refs) != 1 {
		t.Errorf("maxRefs 1: %d refs, count %d", len(m.Refs), m.Count)
	}
}

func TestSecondWriterLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Errorf("second writer: %v, want ErrLocked", err)
	}
	if _, err := OpenReadOnly(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Errorf("reader during a write: %v, want ErrLocked", err)
	}
}

func TestReadersShare(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "audit"))
	ix.Close()
	r1, err := OpenReadOnly(ixdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := OpenReadOnly(ixdir, Options{})
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	defer r2.Close()
	if m := lookup(t, r2, "audit", "x"); m.Count != 1 {
		t.Errorf("reader lookup count %d", m.Count)
	}
	if _, err := Open(ixdir, Options{}); !errors.Is(err, ErrLocked) {
		t.Errorf("writer during reads: %v, want ErrLocked", err)
	}
}

// cancelAfter cancels a build after n items.
type cancelAfter struct {
	n      int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Start(string, int64) {}
func (c *cancelAfter) Done()               {}
func (c *cancelAfter) Add(n int64) {
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
}

func TestInterruptedBuildResumes(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 20000; i++ {
		lines = append(lines, fmt.Sprintf("x _ { %d }", i%7000))
	}
	a, fa := corpus(t, dir, "a", lines)
	b, fb := corpus(t, dir, "b", []string{"y", "x _ { 3 }"})
	ins, fps := []CorpusInput{b, a}, []checksum.Input{fb, fa}
	ls := levels(t, "audit,ws")
	ixdir := filepath.Join(dir, "ix")

	ix, _ := Open(ixdir, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := ix.Build(ctx, ins, fps, ls, "test", &cancelAfter{n: 9000, cancel: cancel}); err == nil {
		t.Fatal("cancelled build reported success")
	}
	ix.Close()

	ix, _ = Open(ixdir, Options{})
	m := ix.Manifest()
	if m.Complete || !m.Corpora[0].done("audit") || m.Corpora[1].done("audit") {
		t.Fatalf("after the interruption: complete=%v, corpora %+v", m.Complete, m.Corpora)
	}
	l, _ := canon.LookupLevel("audit")
	if _, err := ix.Lookup(l, "y", 1); !errors.Is(err, ErrIncomplete) {
		t.Errorf("lookup on an incomplete index: %v, want ErrIncomplete", err)
	}
	rep := build(t, ix, ins, fps, ls)
	if len(rep.Reused) != 2 || len(rep.Indexed) != 2 || rep.Rebuilt != "" {
		t.Errorf("resume: %+v", rep)
	}
	if got := lookup(t, ix, "audit", "x_{3}"); got.Count != 4 { // 3 in a, 1 in b
		t.Errorf("after resume, x_{3} found %d times, want 4", got.Count)
	}
	if !ix.Manifest().Covers(fps, ls, nil) {
		t.Error("resumed index does not cover its inputs")
	}
	ix.Close()
}

func TestChangedInputRebuilds(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	defer ix.Close()
	ls := levels(t, "audit")
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	a2, fa2 := corpus(t, dir, "a", []string{"y"})
	if ix.Manifest().Covers([]checksum.Input{fa2}, ls, nil) {
		t.Fatal("manifest covers a changed input")
	}
	rep := build(t, ix, []CorpusInput{a2}, []checksum.Input{fa2}, ls)
	if rep.Rebuilt == "" {
		t.Error("changed input did not rebuild")
	}
	if lookup(t, ix, "audit", "x").Count != 0 || lookup(t, ix, "audit", "y").Count != 1 {
		t.Error("rebuilt index still holds the old corpus")
	}
	// Adding a level keeps what is done.
	rep = build(t, ix, []CorpusInput{a2}, []checksum.Input{fa2}, levels(t, "audit,ws"))
	if len(rep.Reused) != 1 || len(rep.Indexed) != 1 {
		t.Errorf("adding a level: %+v", rep)
	}
}

func TestLevelVersionChangeDropsLevel(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x"})
	ix, _ := Open(filepath.Join(dir, "ix"), Options{})
	defer ix.Close()
	ls := levels(t, "audit,ws")
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	changed := append([]canon.Level(nil), ls...)
	changed[1].Version++
	if ix.Manifest().Covers([]checksum.Input{fa}, changed, nil) {
		t.Fatal("manifest covers a level whose rules changed")
	}
	rep := build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, changed)
	if !strings.Contains(rep.Rebuilt, "ws") || len(rep.Indexed) != 1 || len(rep.Reused) != 1 {
		t.Errorf("after a rule change: %+v", rep)
	}
}

// TestReingestCountsOnce covers a crash after a corpus's postings were
// written but before the manifest recorded them: the next build writes the
// same postings again, and every count must stay exact.
func TestReingestCountsOnce(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "x", "y"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	ls := levels(t, "audit")
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	// Forget that the corpus was done, as a crash before saveManifest would.
	ix.m.Corpora[0].Levels = nil
	ix.m.Complete = false
	if err := ix.saveManifest(); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	ix, _ = Open(ixdir, Options{})
	defer ix.Close()
	rep := build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	if len(rep.Indexed) != 1 {
		t.Fatalf("corpus not re-ingested: %+v", rep)
	}
	if m := lookup(t, ix, "audit", "x"); m.Count != 2 || len(m.Refs) != 2 {
		t.Errorf("after re-ingest x counts %d (%d refs), want 2", m.Count, len(m.Refs))
	}
}

// TestManyRuns forces several sorted runs and checks the merge.
func TestManyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 600k postings")
	}
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 600000; i++ {
		lines = append(lines, fmt.Sprintf("x_{%d}", i%250000))
	}
	a, fa := corpus(t, dir, "a", lines)
	ix, _ := Open(filepath.Join(dir, "ix"), Options{})
	defer ix.Close()
	rep := build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "raw,audit,ws"))
	if rep.Postings != 1800000 {
		t.Errorf("%d postings", rep.Postings)
	}
	for _, k := range []int{0, 99999, 249999} {
		m := lookup(t, ix, "ws", fmt.Sprintf("x_{%d}", k))
		want := int64(2)
		if k < 100000 {
			want = 3
		}
		if m.Count != want {
			t.Errorf("x_{%d}: %d, want %d", k, m.Count, want)
		}
	}
}

// TestOldLayoutRebuilt: an index in the format-1 layout (one Badger
// database in the index folder) is refused by readers with ErrOldFormat,
// and rebuilt in the sharded layout by the next build.
func TestOldLayoutRebuilt(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "y"})
	ixdir := filepath.Join(dir, "ix")
	ls := levels(t, "audit")

	// A format-1 index: postings in a Badger database in the folder itself.
	old, err := badger.Open(badger.DefaultOptions(ixdir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ls[0].Canon("x")
	err = old.Update(func(txn *badger.Txn) error {
		d := canon.DigestOf(key, nil)
		return txn.Set(append(append([]byte{'p', byte(ls[0].ID)}, d[:]...), 0, 0, 0, 0, 0, 0), nil)
	})
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	m := Manifest{Format: 1, Tool: "old", Levels: []LevelInfo{{Name: "audit", ID: uint8(ls[0].ID), Version: ls[0].Version}},
		Corpora: []Corpus{{Name: "a", Input: fa.File, Levels: []string{"audit"}}}, Complete: true}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(ixdir, manifestFile), data, 0o644); err != nil {
		t.Fatal(err)
	}

	if _, err := OpenReadOnly(ixdir, Options{}); !errors.Is(err, ErrOldFormat) || !strings.Contains(err.Error(), "build it again") {
		t.Errorf("reader of a format-1 index: %v, want ErrOldFormat telling to rebuild", err)
	}
	ix, err := Open(ixdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Manifest().Covers([]checksum.Input{fa}, ls, nil) {
		t.Error("a format-1 manifest covers its inputs")
	}
	if _, err := ix.Lookup(ls[0], key, 1); !errors.Is(err, ErrOldFormat) {
		t.Errorf("lookup in a format-1 index: %v, want ErrOldFormat", err)
	}
	rep := build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	if rep.Rebuilt != "the index had another layout" || len(rep.Indexed) != 1 {
		t.Errorf("build over a format-1 index: %+v", rep)
	}
	if m := lookup(t, ix, "audit", "x"); m.Count != 1 || m.Refs[0].ID != "a_0" {
		t.Errorf("after the rebuild: %+v", m)
	}
	for _, f := range []string{"MANIFEST", "KEYREGISTRY", "000001.vlog"} {
		if _, err := os.Stat(filepath.Join(ixdir, f)); err == nil {
			t.Errorf("%s of the old layout left behind", f)
		}
	}
	if m := ix.Manifest(); m.Format != FormatVersion || m.Shards != numShards {
		t.Errorf("manifest format %d, %d shards", m.Format, m.Shards)
	}
}

// TestShards: postings are spread over the shards by digest, every shard
// exists after a build, and a missing shard is reported, not read as empty.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 2000; i++ {
		lines = append(lines, fmt.Sprintf("x_{%d}", i))
	}
	a, fa := corpus(t, dir, "a", lines)
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	ls := levels(t, "audit,ws")
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	ix.Close()
	var total int
	for s := range numShards {
		db, err := badger.Open(badger.DefaultOptions(shardDir(ixdir, s)).WithLogger(nil).WithReadOnly(true))
		if err != nil {
			t.Fatalf("shard %d: %v", s, err)
		}
		n := 0
		db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				k := it.Item().Key()
				if isEndKey(k) {
					continue
				}
				if len(k) != blockKeyLen || k[0] != 'p' || shardOf([16]byte(k[4:20])) != s {
					t.Errorf("shard %d holds key %x", s, k)
					continue
				}
				v, _ := it.Item().ValueCopy(nil)
				r := blockReader{b: v[prevLen:]}
				var last [16]byte
				var lastSeq uint32
				for i := 0; ; i++ {
					ok, err := r.next()
					if err != nil {
						t.Fatalf("shard %d block %x: %v", s, k, err)
					}
					if !ok {
						// The block's key is its last posting's.
						if i == 0 || [16]byte(k[4:20]) != last || binary.BigEndian.Uint32(k[20:]) != lastSeq {
							t.Errorf("shard %d: block %x ends with %x/%d", s, k, last, lastSeq)
						}
						break
					}
					if shardOf(r.digest) != s {
						t.Errorf("shard %d holds a posting of digest %x", s, r.digest)
					}
					last, lastSeq = r.digest, r.seq
					n++
				}
			}
			return nil
		})
		db.Close()
		if n < 2*2000/numShards/2 {
			t.Errorf("shard %d holds %d postings of 4000", s, n)
		}
		total += n
	}
	if total != 4000 {
		t.Errorf("%d postings in the shards, want 4000", total)
	}

	r, err := OpenReadOnly(ixdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i += 97 {
		if m := lookup(t, r, "ws", fmt.Sprintf("x_{%d}", i)); m.Count != 1 || m.Refs[0].ID != fmt.Sprintf("a_%d", i) {
			t.Errorf("x_{%d}: %+v", i, m)
		}
	}
	r.Close()

	// A missing shard is an error, whichever key is looked up in it.
	os.RemoveAll(shardDir(ixdir, 3))
	r, _ = OpenReadOnly(ixdir, Options{})
	defer r.Close()
	var failed int
	for i := 0; i < 2000; i++ {
		l, _ := canon.LookupLevel("ws")
		key, _ := l.Canon(fmt.Sprintf("x_{%d}", i))
		if shardOf(canon.DigestOf(key, nil)) != 3 {
			continue
		}
		if _, err := r.Lookup(l, key, 1); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("lookup in a missing shard: %v", err)
		}
		failed++
	}
	if failed == 0 {
		t.Error("no key of shard 3")
	}
}

// TestBuildLeftoversRemoved: the run files of a killed build are removed
// by the next build.
func TestBuildLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x"})
	ixdir := filepath.Join(dir, "ix")
	os.MkdirAll(filepath.Join(ixdir, "build-123"), 0o755)
	os.WriteFile(filepath.Join(ixdir, "build-123", "run-00000"), []byte("junk"), 0o644)
	ix, _ := Open(ixdir, Options{})
	defer ix.Close()
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "audit"))
	if _, err := os.Stat(filepath.Join(ixdir, "build-123")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover runs: %v", err)
	}
}

// TestKeyFilters: the shards' key filters pass every indexed key and few
// absent ones, and lookups give the same answers without them.
func TestKeyFilters(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 20000; i++ {
		lines = append(lines, fmt.Sprintf("x_{%d}", i%15000))
	}
	a, fa := corpus(t, dir, "a", lines)
	b, fb := corpus(t, dir, "b", []string{"y", "x_{7}"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	ls := levels(t, "audit,ws")
	build(t, ix, []CorpusInput{a, b}, []checksum.Input{fa, fb}, ls)
	ix.Close()

	snapshot := func() string {
		r, err := OpenReadOnly(ixdir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out strings.Builder
		for i := 0; i < 30000; i += 7 {
			m := lookup(t, r, "ws", fmt.Sprintf("x_{%d}", i))
			fmt.Fprintln(&out, i, m.Count, m.Refs)
		}
		fmt.Fprintln(&out, lookup(t, r, "audit", "y"))
		return out.String()
	}
	r, _ := OpenReadOnly(ixdir, Options{})
	ws, _ := canon.LookupLevel("ws")
	var passed, absent int
	for i := 0; i < 30000; i++ {
		key, _ := ws.Canon(fmt.Sprintf("x_{%d}", i))
		d := canon.DigestOf(key, nil)
		q, err := r.queryShard(shardOf(d))
		if err != nil {
			t.Fatal(err)
		}
		ok := len(q.corporaWith(ws.ID, d)) > 0
		if i < 15000 && !ok {
			t.Fatalf("filter rejects indexed key %s", key)
		}
		if i >= 15000 {
			absent++
			if ok {
				passed++
			}
		}
	}
	r.Close()
	t.Logf("filters pass %d of %d absent keys", passed, absent)
	if passed > absent/50 {
		t.Errorf("filters pass %d of %d absent keys", passed, absent)
	}
	want := snapshot()
	// Without filters, lookups search every shard, with the same answers.
	paths, _ := filepath.Glob(filepath.Join(ixdir, "shard-*", "filter-*"))
	if len(paths) != numShards*2*2 {
		t.Errorf("%d filters, want %d", len(paths), numShards*2*2)
	}
	for _, p := range paths {
		os.Remove(p)
	}
	// Removed, they are damage; an index without them (their records
	// dropped too) is searched.
	if r, err := OpenReadOnly(ixdir, Options{}); err == nil {
		ws, _ := canon.LookupLevel("ws")
		if _, err := r.Lookup(ws, "x_{1}", 1); !errors.Is(err, ErrDamaged) {
			t.Errorf("lookup without the filters the build wrote: %v, want damaged", err)
		}
		r.Close()
	}
	w, err := Open(ixdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.m.Files = slices.DeleteFunc(w.m.Files, func(f FileRecord) bool { return strings.Contains(f.Path, "/filter-") })
	if err := w.saveManifest(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := snapshot(); got != want {
		t.Errorf("lookups differ without filters:\n%s\nwant\n%s", got, want)
	}
}

// TestCountRecords: a key with more postings than countAfter in a corpus
// gets a count record, and lookups skip to it once they have their refs;
// counts and refs must equal a full scan's whatever maxRefs is, for groups
// just below, at and above the threshold, in one corpus or several.
func TestCountRecords(t *testing.T) {
	defer func(n int) { blockPostings = n }(blockPostings)
	for _, n := range []int{1, 2, 7, blockPostings, 1000} {
		blockPostings = n
		t.Run(fmt.Sprintf("block%d", n), testCountRecords)
	}
}

func testCountRecords(t *testing.T) {
	sizes := map[string][2]int{ // label → postings in corpus a, b
		"k_{1}": {1, 0},
		"k_{2}": {countAfter - 1, 1},
		"k_{3}": {countAfter, 0},
		"k_{4}": {countAfter + 1, countAfter},
		"k_{5}": {3*countAfter + 7, countAfter + 2},
		"k_{6}": {0, 2 * countAfter},
	}
	names := []string{"k_{1}", "k_{2}", "k_{3}", "k_{4}", "k_{5}", "k_{6}"}
	var lines [2][]string
	for c := range 2 {
		left := map[string]int{}
		for _, n := range names {
			left[n] = sizes[n][c]
		}
		for more := true; more; { // interleaved, so that groups span runs of input
			more = false
			for _, n := range names {
				if left[n] > 0 {
					lines[c] = append(lines[c], n)
					left[n]--
					more = true
				}
			}
		}
	}
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", lines[0])
	b, fb := corpus(t, dir, "b", lines[1])
	ix, err := Open(filepath.Join(dir, "ix"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	build(t, ix, []CorpusInput{a, b}, []checksum.Input{fa, fb}, levels(t, "raw"))
	l, _ := canon.LookupLevel("raw")
	for _, n := range names {
		var all []string // every posting, in corpus then input order
		for c, name := range []string{"a", "b"} {
			for i, line := range lines[c] {
				if line == n {
					all = append(all, fmt.Sprintf("%s:%s_%d", name, name, i))
				}
			}
		}
		for _, maxRefs := range []int{0, 1, 10, countAfter - 1, countAfter, countAfter + 1, 1000} {
			m, err := ix.Lookup(l, n, maxRefs)
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, r := range m.Refs {
				refs = append(refs, r.Corpus+":"+r.ID)
			}
			want := all[:min(maxRefs, len(all))]
			if m.Count != int64(len(all)) || strings.Join(refs, " ") != strings.Join(want, " ") {
				t.Errorf("%s maxRefs %d: count %d, %d refs; want %d, %d", n, maxRefs, m.Count, len(refs), len(all), len(want))
			}
		}
	}
}

// TestCorruptFilter: a damaged key filter is an error that says what to
// do, never a crash or a wrong answer.
func TestCorruptFilter(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "y", "z"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "ws"))
	ix.Close()
	paths, _ := filepath.Glob(filepath.Join(ixdir, "shard-*", "filter-*"))
	for i, damage := range []func(string) error{
		func(p string) error { return os.Truncate(p, 20) },
		func(p string) error { return os.Truncate(p, filterHeader+filterBlockBytes+1) },
		func(p string) error { return os.WriteFile(p, make([]byte, filterHeader+filterBlockBytes), 0o644) },
	} {
		for _, p := range paths {
			if err := damage(p); err != nil {
				t.Fatal(err)
			}
		}
		r, err := OpenReadOnly(ixdir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := canon.LookupLevel("ws")
		_, err = r.Lookup(ws, "x", 10)
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), ixdir) || !strings.Contains(err.Error(), "--rebuild") {
			t.Errorf("damage %d: lookup error %v, want damaged, naming the folder and how to rebuild", i, err)
		}
		r.Close()
	}
}

// TestEmptyLogs: a build killed just after Badger created a memtable or
// value log file leaves it empty; the next build must still open the
// shard (Badger alone refuses it).
func TestEmptyLogs(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "y"})
	ixdir := filepath.Join(dir, "ix")
	ix, _ := Open(ixdir, Options{})
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "ws"))
	for s := range numShards {
		for _, name := range []string{"00099.mem", "000099.vlog"} {
			if err := os.WriteFile(filepath.Join(shardDir(ixdir, s), name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	db, err := ix.openShardWriter(3)
	if err != nil {
		t.Fatalf("open a shard with empty memtable and value log files: %v", err)
	}
	closeShard(db)
	b, fb := corpus(t, dir, "b", []string{"z"})
	build(t, ix, []CorpusInput{a, b}, []checksum.Input{fa, fb}, levels(t, "ws"))
	if m := lookup(t, ix, "ws", "z"); m.Count != 1 {
		t.Errorf("z: count %d after the rebuild", m.Count)
	}
	ix.Close()
}
