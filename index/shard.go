package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/dgraph-io/badger/v4"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// On-disk layout (FormatVersion 4):
//
//	manifest.json     the Manifest
//	shard-00/ … shard-15/
//	                  one Badger database each: the postings whose key
//	                  digest starts with that shard's bits (shardOf)
//	images/           a Badger database of image hashes, when images were
//	                  hashed
//
// The index folder itself is flocked, exclusively by a writer and shared by
// readers, for as long as a DB is open; each Badger database also locks its
// own folder while it is open. Format 1 kept one Badger database directly
// in the index folder; such an index is rebuilt by the next Build (or
// BuildImages) and refused by lookups (ErrOldFormat).

// numShards is the number of posting databases. A shard holds the postings
// of a sixteenth of the digests, so a build maps at most about a sixteenth
// of the index at once (see streamRuns).
const numShards = 16

// shardOf is the shard of a posting digest: its top bits.
func shardOf(d [16]byte) int { return int(d[0]) * numShards >> 8 }

func shardDir(dir string, s int) string { return filepath.Join(dir, fmt.Sprintf("shard-%02d", s)) }

func imagesDir(dir string) string { return filepath.Join(dir, "images") }

// ErrOldFormat is returned by lookups on an index written by an earlier
// leakaudit in another on-disk layout.
var ErrOldFormat = errors.New("index was written by another leakaudit version in another on-disk layout")

// oldLayoutFiles are the files of a format-1 index: one Badger database in
// the index folder itself.
func isOldLayoutFile(name string) bool {
	switch name {
	case "MANIFEST", "KEYREGISTRY", "DISCARD", "LOCK":
		return true
	}
	for _, ext := range []string{".sst", ".vlog", ".mem"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// lockDir flocks the index folder, exclusively for a writer, shared for a
// reader, as Badger locks its own folder: a format-1 index opened by an
// earlier leakaudit excludes a writer here and vice versa.
func lockDir(dir string, readOnly bool) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	how := syscall.LOCK_EX | syscall.LOCK_NB
	if readOnly {
		how = syscall.LOCK_SH | syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, setting.Errorf("%s: %w (another process is building or reading it; wait for it to finish or use another %s)", dir, ErrLocked, setting.DB)
		}
		return nil, fmt.Errorf("lock index %s: %w", dir, err)
	}
	return f, nil
}

// openBadger opens one of the index's Badger databases. share divides the
// caches of o among the databases open at once.
func (ix *DB) openBadger(dir string, readOnly bool, share int) (*badger.DB, error) {
	if !readOnly {
		if err := removeEmptyLogs(dir); err != nil {
			return nil, err
		}
	}
	db, err := ix.badgerOpen(dir, readOnly, share)
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			return nil, err
		}
		if errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, setting.Errorf("%s: %w (another process is building or reading it; wait for it to finish or use another %s)", dir, ErrLocked, setting.DB)
		}
		return nil, fmt.Errorf("open index database %s: %w", dir, err)
	}
	return db, nil
}

// badgerOpen opens a Badger database, a panic in its code made an error.
func (ix *DB) badgerOpen(dir string, readOnly bool, share int) (db *badger.DB, err error) {
	defer ix.recovered(&err)
	return badger.Open(ix.o.badger(dir, readOnly, share))
}

// removeEmptyLogs removes the empty memtable and value log files of a
// Badger database. A build killed just after Badger created one leaves it
// empty (not even its header), and Badger then refuses to open the
// database ("Create a new file"). The index writes only by stream writes,
// never through memtables, with values small enough to stay in the
// tables, and an empty file holds nothing in any case.
func removeEmptyLogs(dir string) error {
	mem, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	vlog, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	for _, p := range append(mem, vlog...) {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() != 0 {
			continue
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("remove the empty log file of a killed build: %w", err)
		}
	}
	return nil
}

// shardSet holds the shards opened read-only for lookups, each opened on
// its first lookup, so that only the shards and pages a query touches are
// mapped and resident.
type shardSet struct {
	mu sync.Mutex
	db [numShards]atomic.Pointer[queryDB]
	// verified marks the shards whose files were checked against the
	// manifest's records since the index was opened.
	verified [numShards]bool
}

// queryDB is a shard opened for lookups, with its key filters.
type queryDB struct {
	db *badger.DB
	// filters holds, per level, the corpora done at that level in id
	// order, each with its key filter (nil for a corpus without one,
	// whose postings only a search finds).
	filters map[canon.LevelID][]corpusFilter
}

type corpusFilter struct {
	cid uint16
	f   *keyFilter
}

// corporaWith returns the corpora whose postings in the shard may include
// digest d at level, in id order (none: certainly none do).
func (q *queryDB) corporaWith(level canon.LevelID, d [16]byte) []uint16 {
	var out []uint16
	for _, cf := range q.filters[level] {
		if cf.f == nil || cf.f.mayHave(d) {
			out = append(out, cf.cid)
		}
	}
	return out
}

func (q *queryDB) close() error {
	q.closeFilters()
	return q.db.Close()
}

// queryShard returns shard s opened for lookups.
func (ix *DB) queryShard(s int) (*queryDB, error) {
	if db := ix.shards.db[s].Load(); db != nil {
		return db, nil
	}
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	if db := ix.shards.db[s].Load(); db != nil {
		return db, nil
	}
	dir := shardDir(ix.dir, s)
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return nil, ix.damaged("%s has no database: %v", filepath.Base(dir), err)
	}
	// Its files are checked before Badger reads any (integrity.go).
	if err := ix.verifyShard(s); err != nil {
		return nil, err
	}
	q := &queryDB{filters: map[canon.LevelID][]corpusFilter{}}
	for _, l := range ix.m.Levels {
		id := canon.LevelID(l.ID)
		for _, c := range ix.m.Corpora {
			if !c.done(l.Name) {
				continue
			}
			f, err := openFilter(filterPath(ix.dir, s, c.ID, id))
			if err != nil {
				q.closeFilters()
				return nil, err
			}
			q.filters[id] = append(q.filters[id], corpusFilter{c.ID, f})
		}
	}
	db, err := ix.openBadger(dir, true, numShards)
	if err != nil {
		q.closeFilters()
		return nil, err
	}
	q.db = db
	ix.shards.db[s].Store(q)
	return q, nil
}

func (q *queryDB) closeFilters() {
	for _, fs := range q.filters {
		for _, cf := range fs {
			if cf.f != nil {
				cf.f.close()
			}
		}
	}
}

// closeQueryShards closes the shards opened for lookups.
func (ix *DB) closeQueryShards() error {
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	var first error
	ix.shards.verified = [numShards]bool{} // a build may change the files next
	for i := range ix.shards.db {
		if q := ix.shards.db[i].Swap(nil); q != nil {
			if err := q.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// imageDB returns the image database, opened for writing by a writer and
// read-only by a reader, and kept open until Close.
func (ix *DB) imageDB() (*badger.DB, error) {
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	if ix.images != nil {
		return ix.images, nil
	}
	dir := imagesDir(ix.dir)
	// A complete image database is only read, by a writer too, so that
	// its files stay as recorded.
	readOnly := ix.readOnly || ix.m.ImageComplete
	if readOnly {
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
			return nil, ix.damaged("no image database: %v", err)
		}
		if err := ix.verifyFiles(ix.m.ImageFiles, filepath.Base(dir)); err != nil {
			return nil, err
		}
	}
	db, err := ix.openBadger(dir, readOnly, 1)
	if err != nil {
		return nil, err
	}
	ix.images = db
	return db, nil
}

// closeImageDB closes the image database if it is open.
func (ix *DB) closeImageDB() error {
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	if ix.images == nil {
		return nil
	}
	err := ix.images.Close()
	ix.images = nil
	return err
}

// removeAll removes a folder of the index, and syncs the index folder so
// that the removal is durable before the manifest says otherwise.
func (ix *DB) removeAll(path string) error {
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("clear %s: %w", path, err)
	}
	syncDir(ix.dir)
	return nil
}

// removeOldLayout removes the Badger database of a format-1 index from the
// index folder, if there is one.
func (ix *DB) removeOldLayout() error {
	entries, err := os.ReadDir(ix.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && isOldLayoutFile(e.Name()) {
			if err := os.Remove(filepath.Join(ix.dir, e.Name())); err != nil {
				return fmt.Errorf("clear the old index layout: %w", err)
			}
		}
	}
	syncDir(ix.dir)
	return nil
}

// syncDir makes the entries of dir (creations, renames, removals)
// durable. It is best effort: not every file system can sync a folder, so
// a failure is ignored, and the files themselves are synced before they
// are renamed in (writeFileAtomic).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeFileAtomic replaces path with data: written beside it, synced, and
// renamed over it, so that a reader or a crash sees the old file or the
// new one, never a part. The caller syncs the folder.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// shardExists reports whether shard s has a database.
func (ix *DB) shardExists(s int) bool {
	_, err := os.Stat(filepath.Join(shardDir(ix.dir, s), "MANIFEST"))
	return err == nil
}

// openShardWriter opens shard s for writing (creating it if needed). A
// build opens one shard at a time and closes it before the next, which
// unmaps its tables.
func (ix *DB) openShardWriter(s int) (*badger.DB, error) {
	return ix.openBadger(shardDir(ix.dir, s), false, numShards)
}

// closeShard syncs and closes a shard opened for writing.
func closeShard(db *badger.DB) error {
	err := db.Sync()
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// dropLevel drops a level's postings from every shard.
func (ix *DB) dropLevel(level canon.LevelID) error {
	for s := range numShards {
		if !ix.shardExists(s) {
			continue
		}
		db, err := ix.openShardWriter(s)
		if err != nil {
			return err
		}
		err = db.DropPrefix([]byte{'p', byte(level)})
		if cerr := closeShard(db); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		old, _ := filepath.Glob(filepath.Join(shardDir(ix.dir, s), fmt.Sprintf("filter-*-%d", level)))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// clearPostings removes every posting shard.
func (ix *DB) clearPostings() error {
	for s := range numShards {
		if err := ix.removeAll(shardDir(ix.dir, s)); err != nil {
			return err
		}
	}
	return nil
}

// clearAll removes everything but the manifest: posting shards, image
// hashes and a format-1 database.
func (ix *DB) clearAll() error {
	if err := ix.closeImageDB(); err != nil {
		return err
	}
	if err := ix.removeOldLayout(); err != nil {
		return err
	}
	if err := ix.clearPostings(); err != nil {
		return err
	}
	return ix.removeAll(imagesDir(ix.dir))
}

// removeBuildLeftovers removes the run files of a build that was killed
// (a writer holds the lock, so no other build is using them).
func (ix *DB) removeBuildLeftovers() error {
	old, _ := filepath.Glob(filepath.Join(ix.dir, "build-*"))
	for _, p := range old {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the runs of an interrupted build: %w", err)
		}
	}
	return nil
}
