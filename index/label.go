package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/internal/setting"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/progress"
)

// ErrLocked is returned when another process has the index open for writing.
var ErrLocked = errors.New("index is locked by another leakaudit process")

// ErrIncomplete is returned by lookups on an index whose build did not
// finish.
var ErrIncomplete = errors.New("index build did not finish; run the build again to resume it")

// FormatVersion is the on-disk layout version. An index with another
// version is rebuilt from scratch by the next build, and refused by lookups
// until then (ErrOldFormat). Version 1 was a single Badger database;
// version 2 shards the postings over numShards databases, one Badger
// entry per posting; version 3 stores them in blocks (block.go); version 4
// chains the blocks and records every file's size and checksum
// (integrity.go).
const FormatVersion = 4

// Options tune the Badger database behind an index. The zero value gives
// bounded memory suitable for a 2-core, modest-memory machine.
type Options struct {
	// MemTableMB is the size of one Badger memtable (default 8: the
	// index writes only by stream writes, which bypass memtables, and
	// every shard a build opens allocates one).
	MemTableMB int
	// BlockCacheMB and IndexCacheMB bound Badger's caches (default
	// defaultBlockCacheMB and defaultIndexCacheMB), shared by the posting
	// shards open for lookups.
	BlockCacheMB, IndexCacheMB int
	// Salt digests every key with a salt: for salted fingerprints (see
	// package fingerprint), whose digests only match keys digested with
	// the same salt.
	Salt []byte
}

// The defaults of Options, and the sizes of Badger's files.
const (
	// defaultMemTableMB is the least memtable size that keeps Badger's
	// default value threshold.
	defaultMemTableMB   = 8
	defaultBlockCacheMB = 64
	defaultIndexCacheMB = 32
	// minCacheKB is the least share of a cache a database gets: a zero
	// cache would make Badger keep every table index in memory.
	minCacheKB = 256
	// valueLogFileMB is the size of a value log file.
	valueLogFileMB = 256
	// baseTableKB is Badger's BaseTableSize (see badger below).
	baseTableKB = 512
)

// badger returns the options of one of the index's Badger databases, with
// a share-th of the caches.
func (o Options) badger(dir string, readOnly bool, share int) badger.Options {
	mem, block, idx := o.MemTableMB, o.BlockCacheMB, o.IndexCacheMB
	if mem <= 0 {
		mem = defaultMemTableMB
	}
	if block <= 0 {
		block = defaultBlockCacheMB
	}
	if idx <= 0 {
		idx = defaultIndexCacheMB
	}
	// Sizes in KiB, so that a share of a small cache is not zero.
	blockKB, idxKB := max(block<<10/share, minCacheKB), max(idx<<10/share, minCacheKB)
	return badger.DefaultOptions(dir).
		WithLogger(nil).
		WithReadOnly(readOnly).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		WithCompression(options.None). // keys are digests: incompressible
		WithMemTableSize(int64(mem) << 20).
		WithNumMemtables(3).
		WithBlockCacheSize(int64(blockKB) << 10).
		WithIndexCacheSize(int64(idxKB) << 10).
		WithValueLogFileSize(valueLogFileMB << 20).
		// Stream writes build tables of BaseTableSize·2^(MaxLevels-2) bytes
		// in memory, up to 16 at a time: 512 KiB gives 16 MiB tables and
		// caps that at about 256 MiB whatever the corpus size.
		WithBaseTableSize(baseTableKB << 10).
		// Lookups are prefix scans, which Badger's per-table Bloom
		// filters never serve (the key filters do that job); without
		// them the tables' indexes, which opening a database reads
		// whole, are smaller.
		WithBloomFalsePositive(0).
		// Every table block read is checked against its checksum, so a
		// damaged block is never decoded (integrity.go).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithNumCompactors(2)
}

// CorpusInput names a training corpus to index.
type CorpusInput struct {
	Name   string
	Source dataset.Source
}

// Corpus is the manifest's record of one indexed corpus.
type Corpus struct {
	ID     uint16        `json:"id"`
	Name   string        `json:"name"`
	Input  checksum.File `json:"input"`
	Stats  dataset.Stats `json:"stats"`
	Levels []string      `json:"levels_done"`
	// Items, for a corpus indexed from a fingerprint of one corpus, names
	// that corpus: its postings are numbered by the items' positions in
	// it, as the corpus's own would be, and lookups name it. (The postings
	// of a fingerprint of several corpora name each item's corpus.)
	Items string `json:"items_corpus,omitempty"`
}

// LevelInfo records a level and the version of its rules.
type LevelInfo struct {
	Name    string `json:"name"`
	ID      uint8  `json:"id"`
	Version int    `json:"version"`
}

// Manifest describes what an index holds.
type Manifest struct {
	Format int `json:"format"`
	// Shards is the number of posting databases (shard-00/…).
	Shards   int         `json:"shards,omitempty"`
	Tool     string      `json:"tool"`
	Levels   []LevelInfo `json:"levels"`
	Corpora  []Corpus    `json:"corpora"`
	Complete bool        `json:"complete"`
	// SaltCheck identifies the salt the postings were digested with
	// ("" for none): an index is never reused under another salt.
	SaltCheck string `json:"salt_check,omitempty"`

	// Image hashes, when image corpora were indexed.
	ImageHash     *ImageSettings `json:"image_hash,omitempty"`
	ImageCorpora  []ImageCorpus  `json:"image_corpora,omitempty"`
	ImageComplete bool           `json:"image_complete,omitempty"`

	// Files records the posting shards' files and ImageFiles the image
	// database's, as the build that completed them left them
	// (integrity.go); lookups check them before opening a database.
	Files      []FileRecord `json:"files,omitempty"`
	ImageFiles []FileRecord `json:"image_files,omitempty"`
	// Check is the CRC-32C of the manifest's JSON with Check zero.
	Check uint32 `json:"check,omitempty"`
}

// done reports whether corpus c has level name indexed.
func (c Corpus) done(name string) bool {
	for _, l := range c.Levels {
		if l == name {
			return true
		}
	}
	return false
}

// corpus returns the corpus record with the given id.
func (m Manifest) corpus(id uint16) (Corpus, bool) {
	for _, c := range m.Corpora {
		if c.ID == id {
			return c, true
		}
	}
	return Corpus{}, false
}

// Covers reports whether the manifest is complete for exactly these corpora
// (by name and checksum) at these levels (by rule version), digested with
// this salt (nil for none).
func (m Manifest) Covers(sums []checksum.Input, levels []canon.Level, salt []byte) bool {
	if !m.Complete || !m.current() || len(m.Corpora) != len(sums) || m.SaltCheck != fingerprint.SaltCheck(salt) {
		return false
	}
	for i, s := range sums {
		c := m.Corpora[i]
		if c.Name != s.Name || c.Input.SHA256 != s.SHA256 {
			return false
		}
		for _, l := range levels {
			if !c.done(l.Name) || m.levelVersion(l.Name) != l.Version {
				return false
			}
		}
	}
	return true
}

// current reports whether the manifest describes this version's layout.
func (m Manifest) current() bool { return m.Format == FormatVersion && m.Shards == numShards }

// fresh is the manifest of an empty index.
func fresh() Manifest { return Manifest{Format: FormatVersion, Shards: numShards} }

func (m Manifest) levelVersion(name string) int {
	for _, l := range m.Levels {
		if l.Name == name {
			return l.Version
		}
	}
	return -1
}

// DB is an open index: label postings (blocks, prefix 'p', sharded over numShards
// Badger databases) and image hashes (prefix 'h', in a database of their
// own) of training corpora, with their manifest. Lookups may run
// concurrently, but not alongside a build.
type DB struct {
	dir      string
	o        Options
	lock     *os.File // the flocked index folder
	readOnly bool
	m        Manifest
	salt     []byte // keys are digested with it (salted fingerprints)
	shards   shardSet
	images   *badger.DB // opened on first use
}

// digest is the posting digest of a canonical key in this index.
func (ix *DB) digest(key string) canon.Digest { return canon.DigestOf(key, ix.salt) }

// DefaultDir returns the default index folder for a set of corpora: a
// folder under the user cache directory named by a digest of the corpus
// names and checksums, so that the same training set reuses its index.
func DefaultDir(sums []checksum.Input) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", setting.Errorf("no user cache directory (set %s): %w", setting.DB, err)
	}
	h := sha256.New()
	for _, s := range sums {
		fmt.Fprintf(h, "%s\x00%s\n", s.Name, s.SHA256)
	}
	return filepath.Join(base, "leakaudit", "index", hex.EncodeToString(h.Sum(nil))[:16]), nil
}

// DefaultMayCover reports whether an index in the default folder (see
// DefaultDir) might cover corpora with these names and sizes: one whose
// manifest lists corpora with the same names and sizes, in order. When it
// reports false none can, since covering takes the same names and
// checksums, so a caller may read the corpora without waiting for their
// checksums. It reads only the manifests' JSON, never a database.
func DefaultMayCover(names []string, sizes []int64) bool {
	base, err := os.UserCacheDir()
	if err != nil {
		return false // DefaultDir fails too: no default index
	}
	root := filepath.Join(base, "leakaudit", "index")
	entries, err := os.ReadDir(root)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) // unreadable: assume it might
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(root, e.Name(), manifestFile))
		if err != nil {
			continue // not an index, or one without a manifest: cannot cover
		}
		var m Manifest
		if json.Unmarshal(b, &m) != nil || len(m.Corpora) != len(names) {
			continue
		}
		same := true
		for i, c := range m.Corpora {
			same = same && c.Name == names[i] && c.Input.Size == sizes[i]
		}
		if same {
			return true
		}
	}
	return false
}

// Open opens (creating if needed) the index in dir for writing.
func Open(dir string, o Options) (*DB, error) { return open(dir, o, false) }

// OpenReadOnly opens an existing index in dir for lookups, sharing it with
// other readers.
func OpenReadOnly(dir string, o Options) (*DB, error) { return open(dir, o, true) }

func open(dir string, o Options, readOnly bool) (*DB, error) {
	if !readOnly {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create index folder: %w", err)
		}
	}
	lock, err := lockDir(dir, readOnly)
	if err != nil {
		return nil, err
	}
	if !readOnly {
		// A writer writes and removes files in the folder: only in an
		// index's own.
		if err := CheckFolder(dir); err != nil {
			lock.Close()
			return nil, err
		}
	}
	ix := &DB{dir: dir, o: o, lock: lock, readOnly: readOnly, salt: o.Salt}
	if err := ix.loadManifest(); err != nil {
		lock.Close()
		return nil, err
	}
	if readOnly && !ix.m.current() {
		lock.Close()
		return nil, ix.oldFormat()
	}
	return ix, nil
}

// oldFormat is the error of an index in another layout.
func (ix *DB) oldFormat() error {
	return fmt.Errorf("%s: %w (format %d; this version reads format %d with %d shards); build it again: a build rebuilds it, or delete the folder", ix.dir, ErrOldFormat, ix.m.Format, FormatVersion, numShards)
}

// Close closes the index and releases its lock.
func (ix *DB) Close() error {
	err := ix.closeQueryShards()
	if ierr := ix.closeImageDB(); err == nil {
		err = ierr
	}
	if ix.lock != nil {
		ix.lock.Close() // releases the flock
		ix.lock = nil
	}
	return err
}

// Manifest returns a copy of the index's manifest.
func (ix *DB) Manifest() Manifest {
	m := ix.m
	m.Corpora = append([]Corpus(nil), m.Corpora...)
	m.Levels = append([]LevelInfo(nil), m.Levels...)
	return m
}

// manifestFile is the name of the manifest in the index folder.
const manifestFile = "manifest.json"

func (ix *DB) loadManifest() error {
	data, err := os.ReadFile(filepath.Join(ix.dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(ix.dir, "MANIFEST")); err == nil {
			ix.m = Manifest{Format: 1} // a format-1 Badger database never built
		} else if ix.hasDatabases() {
			// Databases without the manifest that describes them: a
			// reader refuses them, a build starts over.
			if ix.readOnly {
				return ix.damaged("%s is missing", manifestFile)
			}
			ix.m = Manifest{}
		} else {
			ix.m = fresh()
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index manifest: %w", err)
	}
	if err := json.Unmarshal(data, &ix.m); err != nil {
		if ix.readOnly {
			return ix.damaged("%s is not valid JSON: %v", manifestFile, err)
		}
		ix.m = Manifest{} // a build starts over
		return nil
	}
	if ix.m.Format >= 4 {
		m := ix.m
		m.Check = 0
		clean, err := json.MarshalIndent(m, "", "  ")
		if err != nil || manifestCheck(clean) != ix.m.Check {
			if ix.readOnly {
				return ix.damaged("%s does not hold what its build wrote (checksum)", manifestFile)
			}
			ix.m = Manifest{} // a build starts over
		}
	}
	return nil
}

// hasDatabases reports whether the index folder holds any of the
// databases an index keeps in it.
func (ix *DB) hasDatabases() bool {
	for s := range numShards {
		if _, err := os.Stat(shardDir(ix.dir, s)); err == nil {
			return true
		}
	}
	_, err := os.Stat(imagesDir(ix.dir))
	return err == nil
}

// saveManifest replaces the manifest atomically: a reader or a crash sees
// the old one or the new one, never a mix. It is called only after the
// postings it describes are durable.
func (ix *DB) saveManifest() error {
	ix.m.Check = 0
	data, err := json.MarshalIndent(ix.m, "", "  ")
	if err != nil {
		return err
	}
	ix.m.Check = manifestCheck(data)
	if data, err = json.MarshalIndent(ix.m, "", "  "); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(ix.dir, manifestFile), append(data, '\n')); err != nil {
		return fmt.Errorf("write index manifest: %w", err)
	}
	syncDir(ix.dir)
	return nil
}

// postingPrefixLen is the length of a run key's shard, level and digest
// (build.go), which all the postings of one key share.
const postingPrefixLen = 1 + 1 + 16

// A key that many training items share (x, 1, \alpha: thousands of
// postings in a large corpus) would make every lookup of it read all its
// postings to count them. A group of more than countAfter postings of one
// corpus is therefore followed by a count record, the posting key with seq
// countSeq (no item has that seq) and the group's size as a uvarint value;
// a lookup that has its refs reads countAfter postings, seeks to the
// record and reads the count.
const (
	countAfter = 64
	countSeq   = 1<<32 - 1
)

// appendCountKey appends the run key of the count record of corpus cid's
// postings under prefix (a run key's first postingPrefixLen bytes: shard,
// level, digest).
func appendCountKey(dst, prefix []byte, cid uint16) []byte {
	dst = append(dst, prefix[:postingPrefixLen]...)
	dst = binary.BigEndian.AppendUint16(dst, cid)
	return binary.BigEndian.AppendUint32(dst, countSeq)
}

// BuildReport says what a build did.
type BuildReport struct {
	Rebuilt  string   // why existing contents were dropped, if they were
	Indexed  []string // "corpus@level" pairs written by this build
	Reused   []string // pairs found done and skipped
	Postings int64    // postings written by this build
}

// Build makes the index hold exactly the given corpora at the given levels,
// resuming an interrupted build and reusing whatever is already done.
// sums must be the checksums of inputs, in the same order.
func (ix *DB) Build(ctx context.Context, inputs []CorpusInput, sums []checksum.Input, levels []canon.Level, tool string, prog progress.Reporter) (BuildReport, error) {
	var rep BuildReport
	if ix.readOnly {
		return rep, errors.New("index opened read-only")
	}
	if len(inputs) > 1<<16-1 {
		return rep, fmt.Errorf("too many corpora (%d)", len(inputs))
	}
	if err := ix.closeQueryShards(); err != nil {
		return rep, err
	}
	if err := ix.removeBuildLeftovers(); err != nil {
		return rep, err
	}
	// Same corpora in the same order, with the same checksums? Otherwise
	// start over: corpus ids are positions.
	same := ix.m.current() && len(ix.m.Corpora) == len(inputs)
	for i := 0; same && i < len(inputs); i++ {
		c := ix.m.Corpora[i]
		same = c.Name == sums[i].Name && c.Input.SHA256 == sums[i].SHA256
	}
	saltCheck := fingerprint.SaltCheck(ix.salt)
	same = same && ix.m.SaltCheck == saltCheck
	if ix.m.current() && ix.m.Complete && len(ix.m.Corpora) > 0 {
		// The databases are opened for writing below: their files must
		// be as the last build left them (integrity.go).
		if err := ix.verifyShards(); err != nil {
			if !errors.Is(err, ErrDamaged) {
				return rep, err
			}
			rep.Rebuilt = damageReason(err)
			ix.m.Corpora, same = nil, false // start over
			if err := ix.markIncomplete(); err != nil {
				return rep, err
			}
			if err := ix.clearPostings(); err != nil {
				return rep, err
			}
			ix.m.Levels = nil
		}
	}
	if !ix.m.current() {
		rep.Rebuilt = "the index had another layout"
		if ix.m.Format == 0 {
			rep.Rebuilt = "its manifest was missing or damaged"
		}
		if err := ix.markIncomplete(); err != nil {
			return rep, err
		}
		if err := ix.clearAll(); err != nil {
			return rep, err
		}
		ix.m = fresh()
	} else if !same && len(ix.m.Corpora) > 0 {
		rep.Rebuilt = "the index held other corpora"
		if err := ix.markIncomplete(); err != nil {
			return rep, err
		}
		if err := ix.clearPostings(); err != nil {
			return rep, err
		}
		ix.m.Levels = nil
	}
	ix.m.SaltCheck = saltCheck
	if same {
		for i := range inputs {
			ix.m.Corpora[i].Input = sums[i].File // the path may have moved
		}
	} else {
		ix.m.Corpora = nil
		for i, in := range inputs {
			ix.m.Corpora = append(ix.m.Corpora, Corpus{ID: uint16(i), Name: in.Name, Input: sums[i].File})
		}
	}
	// Levels whose rules changed are dropped for every corpus.
	for _, l := range levels {
		if v := ix.m.levelVersion(l.Name); v != -1 && v != l.Version {
			if err := ix.markIncomplete(); err != nil {
				return rep, err
			}
			if err := ix.dropLevel(l.ID); err != nil {
				return rep, fmt.Errorf("drop level %s: %w", l.Name, err)
			}
			for i := range ix.m.Corpora {
				ix.m.Corpora[i].Levels = without(ix.m.Corpora[i].Levels, l.Name)
			}
			rep.Rebuilt = "the rules of level " + l.Name + " changed"
		}
		ix.m.setLevel(l)
	}
	ix.m.Tool = tool
	ix.m.Complete = false
	if err := ix.saveManifest(); err != nil {
		return rep, err
	}
	for i, in := range inputs {
		var todo []canon.Level
		for _, l := range levels {
			if ix.m.Corpora[i].done(l.Name) {
				rep.Reused = append(rep.Reused, in.Name+"@"+l.Name)
			} else {
				todo = append(todo, l)
			}
		}
		if len(todo) == 0 {
			continue
		}
		st, n, items, err := ix.ingest(ctx, uint16(i), in, todo, prog)
		rep.Postings += n
		if err != nil {
			return rep, fmt.Errorf("index corpus %s: %w", in.Name, err)
		}
		c := &ix.m.Corpora[i]
		c.Stats, c.Items = st, items
		for _, l := range todo {
			c.Levels = append(c.Levels, l.Name)
			rep.Indexed = append(rep.Indexed, in.Name+"@"+l.Name)
		}
		if err := ix.saveManifest(); err != nil {
			return rep, err
		}
	}
	if err := ix.recordShards(); err != nil {
		return rep, err
	}
	ix.shards.mu.Lock()
	for s := range numShards {
		ix.shards.verified[s] = true // recorded as they are
	}
	ix.shards.mu.Unlock()
	ix.m.Complete = true
	return rep, ix.saveManifest()
}

// verifyShards checks the files of every posting shard against the
// manifest's records.
func (ix *DB) verifyShards() error {
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	for s := range numShards {
		if err := ix.verifyShard(s); err != nil {
			return err
		}
	}
	return nil
}

// markIncomplete saves the manifest marked incomplete before anything is
// dropped, so that lookups never see a partly dropped index and a build
// killed while dropping takes the same decisions again.
func (ix *DB) markIncomplete() error {
	if !ix.m.Complete {
		return nil
	}
	ix.m.Complete = false
	return ix.saveManifest()
}

func (m *Manifest) setLevel(l canon.Level) {
	for i := range m.Levels {
		if m.Levels[i].Name == l.Name {
			m.Levels[i].Version = l.Version
			return
		}
	}
	m.Levels = append(m.Levels, LevelInfo{Name: l.Name, ID: uint8(l.ID), Version: l.Version})
	sort.Slice(m.Levels, func(i, j int) bool { return m.Levels[i].ID < m.Levels[j].ID })
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// TrainRef names one training item.
type TrainRef struct {
	Corpus string `json:"corpus" parquet:"corpus"`
	ID     string `json:"id" parquet:"id"`
}

// RefNames names each training item as corpus/id, in order (nil for
// none).
func RefNames(refs []TrainRef) []string {
	var ids []string
	for _, r := range refs {
		ids = append(ids, r.Corpus+"/"+r.ID)
	}
	return ids
}

// Match is the result of a lookup.
type Match struct {
	Count int64      // training items with the key, over all corpora
	Refs  []TrainRef // the first ones, in (corpus, position) order
}

// Lookup returns the training items whose label has canonical key at level,
// with at most maxRefs of them named.
func (ix *DB) Lookup(level canon.Level, key string, maxRefs int) (m Match, err error) {
	if err := ix.readable(); err != nil {
		return Match{}, err
	}
	defer ix.recovered(&err)
	d := ix.digest(key)
	q, err := ix.queryShard(shardOf(d))
	if err != nil {
		return m, err
	}
	cids := q.corporaWith(level.ID, d)
	if len(cids) == 0 {
		return m, nil // no training label has the key
	}
	err = q.db.View(func(txn *badger.Txn) error {
		for _, cid := range cids {
			if err := ix.scan(txn, level.ID, cid, d, maxRefs, &m); err != nil {
				return err
			}
		}
		return nil
	})
	return m, err
}

// readable reports why lookups cannot run, if they cannot.
func (ix *DB) readable() error {
	if !ix.m.current() {
		return ix.oldFormat()
	}
	if !ix.m.Complete {
		return ErrIncomplete
	}
	return nil
}

// scan adds to m the postings of digest d in corpus cid at level: their
// count, and the first of them named until m has maxRefs refs. It walks
// the chain of blocks (block.go) from the first that may hold d, and
// fails unless the walk ends at a posting past d or at the end record.
func (ix *DB) scan(txn *badger.Txn, level canon.LevelID, cid uint16, d [16]byte, maxRefs int, m *Match) error {
	prefix := blockPrefix(level, cid)
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
	defer it.Close()
	var seen uint64 // postings of d read
	var r blockReader
	var val, prev []byte
	seek := appendBlockKey(prefix[:0:0], level, cid, d, 0)
	for it.Seek(seek); it.ValidForPrefix(prefix); it.Next() {
		var err error
		item := it.Item()
		if val, err = item.ValueCopy(val[:0]); err != nil {
			return ix.damaged("shard %02d: %v", shardOf(d), err)
		}
		k := item.Key()
		if r.b, err = checkLink(k, val, prev, seek); err != nil {
			return ix.damaged("shard %02d: %v at %x", shardOf(d), err, k)
		}
		if isEndKey(k) {
			return nil
		}
		prev = append(prev[:0], k...)
		for {
			ok, err := r.next()
			if err != nil {
				return ix.damaged("shard %02d: %v %x", shardOf(d), err, k)
			}
			if !ok {
				break
			}
			switch c := compareDigest(&r.digest, &d); {
			case c < 0:
				continue
			case c > 0:
				return nil
			}
			if r.seq == countSeq { // every posting it counts was read
				return nil
			}
			seen++
			m.Count++
			if len(m.Refs) < maxRefs {
				c, _ := ix.m.corpus(cid)
				ref := TrainRef{Corpus: c.Name, ID: strconv.FormatUint(uint64(r.seq), 10)}
				if c.Items != "" {
					ref.Corpus = c.Items
				}
				if corpus, id, ok := bytes.Cut(r.val, []byte{0}); ok {
					ref.Corpus, ref.ID = string(corpus), string(id) // an item of a fingerprint
				} else if len(r.val) > 0 {
					ref.ID = string(r.val)
				}
				m.Refs = append(m.Refs, ref)
			}
			if seen >= countAfter && len(m.Refs) >= maxRefs {
				// The refs are taken: the count record, if the group
				// has one, says how many postings remain.
				return ix.addCount(it, level, cid, d, seen, m)
			}
		}
	}
	return ix.damaged("shard %02d: the postings of level %d, corpus %d end before their end record (a block is missing or unreadable)", shardOf(d), level, cid)
}

// addCount seeks it to the count record of digest d in corpus cid, if the
// group has one, and adds to m the postings it counts beyond the seen
// ones read.
func (ix *DB) addCount(it *badger.Iterator, level canon.LevelID, cid uint16, d [16]byte, seen uint64, m *Match) error {
	seek := appendBlockKey(nil, level, cid, d, countSeq)
	it.Seek(seek)
	if !it.ValidForPrefix(blockPrefix(level, cid)) {
		return ix.damaged("shard %02d: the postings of level %d, corpus %d end before their end record (a block is missing or unreadable)", shardOf(d), level, cid)
	}
	var r blockReader
	item := it.Item()
	val, err := item.ValueCopy(nil)
	if err != nil {
		return ix.damaged("shard %02d: %v", shardOf(d), err)
	}
	k := item.Key()
	if r.b, err = checkLink(k, val, nil, seek); err != nil {
		return ix.damaged("shard %02d: %v at %x", shardOf(d), err, k)
	}
	for {
		ok, err := r.next()
		if err != nil {
			return ix.damaged("shard %02d: %v %x", shardOf(d), err, k)
		}
		if !ok || compareDigest(&r.digest, &d) > 0 {
			return nil // no record
		}
		if r.digest != d || r.seq != countSeq {
			continue
		}
		n, w := binary.Uvarint(r.val)
		if w <= 0 || w != len(r.val) || n < seen {
			return ix.damaged("shard %02d: corrupt posting count %x", shardOf(d), r.val)
		}
		m.Count += int64(n - seen)
		return nil
	}
}
