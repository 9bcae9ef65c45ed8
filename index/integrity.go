package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dgraph-io/badger/v4/fb"
)

// Integrity (FormatVersion 4).
//
// An index must never give a wrong answer from damaged files, and Badger
// alone does not ensure it: it panics on a truncated table (in goroutines
// of its own, where no recover reaches), and an iterator that meets a
// block whose checksum fails just ends, so a lookup would count fewer
// postings. Three things together make every answer exact or an error:
//
//   - The manifest records every file of every Badger database and every
//     key filter, when a build completes (FileRecord): its size, and a
//     CRC-32C of the whole file, or, for a table (.sst), of its tail:
//     the last data block, the table index and the footer, which Badger
//     reads when it opens the table. Before a database is opened for
//     lookups its files are checked against the records (sizes by stat,
//     the checksums by reading those bytes), so Badger never opens a
//     table it could panic on, and a filter that would hide keys is
//     refused. The data blocks of tables, most of an index, are not
//     hashed at open: Badger verifies each block's own checksum when it
//     reads it (options.OnBlockRead).
//   - The blocks of one level and corpus in a shard form a chain: each
//     block's value begins with the key of the block before it, and the
//     chain ends in an end record (block.go). A lookup checks the links
//     it walks and that its walk ends at a posting past the key or at the
//     end record, so a block Badger skipped or could not read is an
//     error, not a shorter count. Image records are counted against the
//     manifest's count of each corpus.
//   - Panics in Badger's code on the lookup's goroutine are recovered and
//     reported as damage.
//
// The manifest itself carries a checksum of its own content, and a file
// in a database's folder that its build did not write is damage too.
//
// Errors for damage wrap ErrDamaged and name the index folder.
//
// Cost: on a 40M-label index (1.8 GB, 208 files) the checks read and hash
// 160 MB before the first lookup (the key filters, which lookups map and
// mostly touch anyway, the tables' tails, which Badger reads on opening
// them, and Badger's small files): 32–36 ms of CPU with the files in the
// page cache. Badger's block checksums add 10–25% to the CPU of lookups
// that search the tables. Hashing the whole tables would read all 1.8 GB
// at every query.

// ErrDamaged is wrapped by the errors of an index whose files are not the
// ones its build wrote: truncated, overwritten, removed or changed.
var ErrDamaged = errors.New("index is damaged")

// DamagedError says which index is damaged and why.
type DamagedError struct {
	Dir    string // the index folder
	Reason string // what was found, naming the file
}

// Error names the folder, what is damaged, and how to build it again.
func (e *DamagedError) Error() string {
	return fmt.Sprintf("index %s is damaged (%s); build it again: run overlap or neardup with --rebuild, or delete the folder", e.Dir, e.Reason)
}

// Unwrap makes the error match ErrDamaged.
func (e *DamagedError) Unwrap() error { return ErrDamaged }

// damageReason is what a build that starts over says of a damaged index.
func damageReason(err error) string {
	var de *DamagedError
	if errors.As(err, &de) {
		return "it was damaged (" + de.Reason + ")"
	}
	return err.Error()
}

// damaged returns the error of damage found in the index.
func (ix *DB) damaged(format string, args ...any) error {
	return &DamagedError{Dir: ix.dir, Reason: fmt.Sprintf(format, args...)}
}

// FileRecord is the manifest's record of one file of the index, relative
// to the index folder: its size and the CRC-32C of its last Tail bytes
// (the whole file when Tail equals Size).
type FileRecord struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Tail int64  `json:"tail"`
	CRC  uint32 `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recordFiles returns the records of every regular file in the folders
// dirs (relative to the index folder), in name order.
func recordFiles(root string, dirs []string) ([]FileRecord, error) {
	var out []FileRecord
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, d))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".tmp") || e.Name() == "LOCK" {
				continue
			}
			rel := filepath.ToSlash(filepath.Join(d, e.Name()))
			r, err := recordFile(root, rel)
			if err != nil {
				return nil, fmt.Errorf("record index file %s: %w", rel, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// recordFile records one file: a table by its tail, any other file whole.
func recordFile(root, rel string) (FileRecord, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return FileRecord{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FileRecord{}, err
	}
	r := FileRecord{Path: rel, Size: fi.Size(), Tail: fi.Size()}
	if strings.HasSuffix(rel, ".sst") {
		if t, ok := tableTail(f, fi.Size()); ok {
			r.Tail = t
		}
	}
	r.CRC, err = crcRange(f, r.Size-r.Tail, r.Tail)
	return r, err
}

// crcRange is the CRC-32C of n bytes of f from off.
func crcRange(f *os.File, off, n int64) (uint32, error) {
	h := crc32.New(castagnoli)
	got, err := io.Copy(h, io.NewSectionReader(f, off, n))
	if err == nil && got != n {
		err = io.ErrUnexpectedEOF
	}
	return h.Sum32(), err
}

// tableTail returns the length of a Badger table's tail: its last data
// block, its index and its footer, which Badger reads when it opens the
// table (the footer is index, index length(4), checksum, checksum
// length(4)). ok is false when the file does not parse as a table; it is
// then recorded whole.
func tableTail(f *os.File, size int64) (int64, bool) {
	const maxIndex = 1 << 30
	var b4 [4]byte
	read4 := func(off int64) (int64, bool) {
		if off < 0 {
			return 0, false
		}
		if _, err := f.ReadAt(b4[:], off); err != nil {
			return 0, false
		}
		return int64(binary.BigEndian.Uint32(b4[:])), true
	}
	chkLen, ok := read4(size - 4)
	if !ok || chkLen > size {
		return 0, false
	}
	idxLen, ok := read4(size - 8 - chkLen)
	if !ok || idxLen > maxIndex {
		return 0, false
	}
	idxStart := size - 8 - chkLen - idxLen
	if idxStart < 0 {
		return 0, false
	}
	buf := make([]byte, idxLen)
	if _, err := f.ReadAt(buf, idxStart); err != nil {
		return 0, false
	}
	ok = true
	func() {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		ti := fb.GetRootAsTableIndex(buf, 0)
		n := ti.OffsetsLength()
		if n == 0 {
			return // no block: the index and footer alone
		}
		var bo fb.BlockOffset
		if !ti.Offsets(&bo, n-1) || int64(bo.Offset()) > idxStart {
			ok = false
			return
		}
		idxStart = int64(bo.Offset())
	}()
	if !ok {
		return 0, false
	}
	return size - idxStart, true
}

// verifyFiles checks the files recorded under the folder dir (relative to
// the index folder) against their records.
func (ix *DB) verifyFiles(recs []FileRecord, dir string) error {
	prefix := dir + "/"
	recorded := map[string]bool{}
	for _, r := range recs {
		if !strings.HasPrefix(r.Path, prefix) {
			continue
		}
		recorded[r.Path] = true
		if err := ix.verifyFile(r); err != nil {
			return err
		}
	}
	if len(recorded) == 0 {
		return ix.damaged("the manifest records no file of %s", dir)
	}
	// A file its build did not write is damage too; a table file would
	// be deleted by Badger, even opened read-only.
	entries, err := os.ReadDir(filepath.Join(ix.dir, dir))
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	for _, e := range entries {
		if rel := prefix + e.Name(); !recorded[rel] && e.Name() != "LOCK" && !strings.HasSuffix(e.Name(), ".tmp") {
			return ix.damaged("%s was not written by its build", rel)
		}
	}
	return nil
}

// verifyFile checks one file against its record.
func (ix *DB) verifyFile(r FileRecord) error {
	if r.Tail < 0 || r.Tail > r.Size || strings.Contains(r.Path, "..") {
		return ix.damaged("manifest.json has a bad record of %s", r.Path)
	}
	f, err := os.Open(filepath.Join(ix.dir, filepath.FromSlash(r.Path)))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ix.damaged("%s is missing", r.Path)
		}
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	if fi.Size() != r.Size {
		return ix.damaged("%s has %d bytes, its build wrote %d", r.Path, fi.Size(), r.Size)
	}
	sum, err := crcRange(f, r.Size-r.Tail, r.Tail)
	if err != nil {
		return fmt.Errorf("index %s: read %s: %w", ix.dir, r.Path, err)
	}
	if sum != r.CRC {
		return ix.damaged("%s does not hold what its build wrote (checksum)", r.Path)
	}
	return nil
}

// shardDirs are the posting databases' folders, relative to the index
// folder.
func shardDirs() []string {
	var out []string
	for s := range numShards {
		out = append(out, filepath.Base(shardDir("", s)))
	}
	return out
}

// recordShards records the files of every posting shard (after a build,
// with every shard closed).
func (ix *DB) recordShards() error {
	recs, err := recordFiles(ix.dir, shardDirs())
	if err != nil {
		return err
	}
	ix.m.Files = recs
	return nil
}

// recordImages records the files of the image database (closed).
func (ix *DB) recordImages() error {
	recs, err := recordFiles(ix.dir, []string{filepath.Base(imagesDir(""))})
	if err != nil {
		return err
	}
	ix.m.ImageFiles = recs
	return nil
}

// recovered turns a panic in Badger's code, met while reading the index,
// into an error (set in *err); call it deferred.
func (ix *DB) recovered(err *error) {
	if r := recover(); r != nil {
		*err = ix.damaged("reading it failed: %v", r)
	}
}

// manifestCheck is the checksum of a manifest's content: the CRC-32C of
// its JSON with the check itself empty.
func manifestCheck(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }

// verifyShard checks the files of shard s against the manifest's records,
// once for as long as the index is open. The caller holds ix.shards.mu.
func (ix *DB) verifyShard(s int) error {
	if ix.shards.verified[s] {
		return nil
	}
	if err := ix.verifyFiles(ix.m.Files, filepath.Base(shardDir("", s))); err != nil {
		return err
	}
	ix.shards.verified[s] = true
	return nil
}

// Verify checks every file of the label index against the manifest's
// records: sizes, and the checksums of the bytes Badger reads when it
// opens a database (table tails, its own metadata, the key filters). The
// table blocks are checked by Badger as lookups read them. Lookups check
// each shard before their first search of it anyway; Verify finds the
// damage before any lookup. The error wraps ErrDamaged.
func (ix *DB) Verify() error {
	if err := ix.readable(); err != nil {
		return err
	}
	ix.shards.mu.Lock()
	defer ix.shards.mu.Unlock()
	for s := range numShards {
		if err := ix.verifyShard(s); err != nil {
			return err
		}
	}
	return nil
}
