package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/progress"
)

// Image hashes live in the index folder beside the label postings, in a
// Badger database of their own (images/), one record per image:
//
//	'h' kind(1) corpus(2, big endian) seq(4, big endian) →
//	    hash(8) fine(32) digest(16) flags(1) width(4) height(4) [ink(512)] id label
//
// with id and label each prefixed by their uvarint length, and the
// normalized ink (imagehash.Ink.Bytes, which verifies candidates) present
// when flags has bit 4. Records are
// written in (corpus, seq) order by an incremental stream write, and read
// back in that order to build an in-memory [Hamming].

// ImageSettings are the hashing parameters an image index was built with;
// records made with other settings are never mixed with them. Version and
// Canary are those of the code that hashed them (BuildImages and
// CoversImages set them): an index hashed by code that hashes the canary
// images differently is built again, even under the same version.
type ImageSettings struct {
	Kind    imagehash.Kind   `json:"kind"`
	Canvas  imagehash.Canvas `json:"canvas"`
	Size    int              `json:"size"`
	Version int              `json:"version"`          // of the normalization code
	Canary  string           `json:"canary,omitempty"` // fingerprint.ImageCanary of the hashing code
}

// withCanary returns set with canary c.
func (set ImageSettings) withCanary(c string) ImageSettings {
	set.Canary = c
	return set
}

// current returns set with this build's imagehash.Version and canary.
func (set ImageSettings) current() ImageSettings {
	set.Version, set.Canary = ImageVersion, fingerprint.ImageCanary()
	return set
}

// ImageVersion is bumped whenever normalization or hashing changes.
const ImageVersion = imagehash.Version

// ImageCorpus is the manifest's record of a hashed image corpus.
type ImageCorpus struct {
	ID     uint16        `json:"id"`
	Name   string        `json:"name"`
	Input  checksum.File `json:"input"`
	Stats  dataset.Stats `json:"stats"`
	Hashed int64         `json:"hashed"`
	Done   bool          `json:"done"`
}

// ImageCorpusInput names an image corpus to hash.
type ImageCorpusInput struct {
	Name   string
	Source dataset.ImageSource
}

// ImageRecord is one stored image.
type ImageRecord struct {
	Corpus   string
	Seq      int64
	ID       string
	Label    string
	HasLabel bool
	Print    imagehash.Hashes
	// WSKey, read from a fingerprint (LoadImageFingerprint), is the
	// digest of the label's ws key (canon.DigestOf with the fingerprint's
	// salt), when HasWSKey: the label itself is not in the file unless
	// it was made with labels.
	WSKey    canon.Digest
	HasWSKey bool
}

// ImageSet is the images of an image fingerprint file
// (fingerprint.Options.Images), read as training records for a
// Hamming (LoadImageFingerprint).
type ImageSet struct {
	// Records holds every row with an image, blank ones included (with
	// Print.Blank set: skip them), in file order. Corpus and ID name the
	// items as in their corpora.
	Records []ImageRecord
	Meta    fingerprint.Meta // hash settings, levels, salt check, sources
	Stats   dataset.Stats    // the rows read; rows without an image are skipped with a reason
	Input   checksum.File    // of the fingerprint file or folder itself
}

// LoadImageFingerprint reads an image fingerprint file, or a folder of its
// partitions, as the training ("against") side of a search: its non-blank
// records' Print stand in for hashed images (neardup.Matcher searches and
// verifies them as it does images; without the ink column, by the fine
// hash and Print.Digest alone). It refuses
// a file that is not a fingerprint, holds no image hashes, or whose images
// were hashed with other settings than o or by another imagehash.Version.
// A label's ws digest is carried as WSKey; compare it with a test label's
// only after f.Meta.Check at the ws level with the reader's salt.
func LoadImageFingerprint(path string, o imagehash.Options) (*ImageSet, error) {
	meta, err := fingerprint.Open(path)
	if err != nil {
		return nil, err
	}
	if err := meta.CheckImages(o); err != nil {
		return nil, fmt.Errorf("fingerprint %s: %w", path, err)
	}
	f := &ImageSet{Meta: meta}
	if f.Input, err = checksum.Of(path); err != nil {
		return nil, err
	}
	var row int64
	var noImage []dataset.Skip
	f.Stats, err = fingerprint.Scan(path, func(r fingerprint.Row) error {
		row++
		fp, ok := r.Image()
		if !ok {
			noImage = append(noImage, dataset.Skip{Seq: row - 1, ID: r.ID, Where: fmt.Sprintf("row %d", row), Reason: "no image hashes in this row"})
			return nil
		}
		rec := ImageRecord{Corpus: r.Corpus, Seq: r.Seq, ID: r.ID, Print: fp}
		rec.WSKey, rec.HasWSKey = r.Key(canon.WS)
		if r.Label != nil {
			rec.Label, rec.HasLabel = *r.Label, true
		}
		rec.HasLabel = rec.HasLabel || rec.HasWSKey
		f.Records = append(f.Records, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fingerprint %s: %w", path, err)
	}
	for _, k := range noImage {
		f.Stats.AddSkip(k)
	}
	f.Stats.Items -= int64(len(noImage))
	return f, nil
}

func kindByte(k imagehash.Kind) byte {
	switch k {
	case imagehash.DHash:
		return 2
	case imagehash.AHash:
		return 3
	}
	return 1
}

func encodeImage(it dataset.ImageItem, fp imagehash.Hashes) []byte {
	v := make([]byte, 0, 8+32+16+1+8+imagehash.InkBytes+len(it.ID)+len(it.Label)+4)
	v = binary.BigEndian.AppendUint64(v, fp.Hash)
	for _, f := range fp.Fine {
		v = binary.BigEndian.AppendUint64(v, f)
	}
	v = append(v, fp.Digest[:]...)
	var flags byte
	if fp.Blank {
		flags |= 1
	}
	if it.HasLabel {
		flags |= 2
	}
	if !fp.Ink.IsZero() {
		flags |= 4
	}
	v = append(v, flags)
	v = binary.BigEndian.AppendUint32(v, uint32(fp.Width))
	v = binary.BigEndian.AppendUint32(v, uint32(fp.Height))
	if !fp.Ink.IsZero() {
		v = append(v, fp.Ink.Bytes()...)
	}
	v = binary.AppendUvarint(v, uint64(len(it.ID)))
	v = append(v, it.ID...)
	v = binary.AppendUvarint(v, uint64(len(it.Label)))
	return append(v, it.Label...)
}

var errCorruptImage = errors.New("corrupt image record")

func decodeImage(v []byte, r *ImageRecord) error {
	if len(v) < 8+32+16+1+8 {
		return errCorruptImage
	}
	r.Print.Hash = binary.BigEndian.Uint64(v)
	for i := range r.Print.Fine {
		r.Print.Fine[i] = binary.BigEndian.Uint64(v[8+8*i:])
	}
	v = v[40:]
	copy(r.Print.Digest[:], v[:16])
	flags := v[16]
	r.Print.Blank, r.HasLabel = flags&1 != 0, flags&2 != 0
	r.Print.Width = int(binary.BigEndian.Uint32(v[17:]))
	r.Print.Height = int(binary.BigEndian.Uint32(v[21:]))
	rest := v[25:]
	if flags&4 != 0 {
		if len(rest) < imagehash.InkBytes {
			return errCorruptImage
		}
		r.Print.Ink, _ = imagehash.InkFromBytes(rest[:imagehash.InkBytes])
		rest = rest[imagehash.InkBytes:]
	}
	for _, dst := range []*string{&r.ID, &r.Label} {
		n, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < n {
			return errCorruptImage
		}
		*dst = string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
	}
	return nil
}

// BuildImages makes the database hold exactly these image corpora hashed
// with these settings, resuming an interrupted build.
func (ix *DB) BuildImages(ctx context.Context, inputs []ImageCorpusInput, sums []checksum.Input, set ImageSettings, tool string, workers int, prog progress.Reporter) (BuildReport, error) {
	var rep BuildReport
	if ix.readOnly {
		return rep, errors.New("index opened read-only")
	}
	set = set.current()
	if !ix.m.current() {
		rep.Rebuilt = "the index had another layout"
		ix.m.Complete, ix.m.ImageComplete = false, false
		if err := ix.saveManifest(); err != nil {
			return rep, err
		}
		if err := ix.clearAll(); err != nil {
			return rep, err
		}
		ix.m = fresh()
	}
	if ix.m.ImageComplete {
		// The database is opened for writing below: its files must be as
		// the last build left them (integrity.go).
		if err := ix.verifyFiles(ix.m.ImageFiles, filepath.Base(imagesDir(""))); err != nil {
			if !errors.Is(err, ErrDamaged) {
				return rep, err
			}
			rep.Rebuilt = damageReason(err)
			ix.m.ImageComplete = false
			if err := ix.saveManifest(); err != nil {
				return rep, err
			}
			if err := ix.removeAll(imagesDir(ix.dir)); err != nil {
				return rep, fmt.Errorf("clear image hashes: %w", err)
			}
			ix.m.ImageCorpora, ix.m.ImageHash = nil, nil
		}
	}
	same := ix.m.ImageHash != nil && *ix.m.ImageHash == set && len(ix.m.ImageCorpora) == len(inputs)
	for i := 0; same && i < len(inputs); i++ {
		same = ix.m.ImageCorpora[i].Name == sums[i].Name && ix.m.ImageCorpora[i].Input.SHA256 == sums[i].SHA256
	}
	if !same {
		if len(ix.m.ImageCorpora) > 0 {
			rep.Rebuilt = "the index held other image corpora or other hash settings"
			if old := ix.m.ImageHash; old != nil && old.Canary != set.Canary && old.withCanary(set.Canary) == set {
				// Same settings and version, other hashing code.
				rep.Rebuilt = fmt.Sprintf("its images were hashed by code that hashes the canary images differently (canary %.12s…, this leakaudit's %.12s…)", old.Canary, set.Canary)
				if old.Canary == "" {
					rep.Rebuilt = "its images were hashed by a leakaudit that recorded no image canary"
				}
			}
			if ix.m.ImageComplete {
				// Lookups must not see a partly cleared database.
				ix.m.ImageComplete = false
				if err := ix.saveManifest(); err != nil {
					return rep, err
				}
			}
			if err := ix.closeImageDB(); err != nil {
				return rep, err
			}
			if err := ix.removeAll(imagesDir(ix.dir)); err != nil {
				return rep, fmt.Errorf("clear image hashes: %w", err)
			}
		}
		ix.m.ImageCorpora = nil
		for i, in := range inputs {
			ix.m.ImageCorpora = append(ix.m.ImageCorpora, ImageCorpus{ID: uint16(i), Name: in.Name, Input: sums[i].File})
		}
		s := set
		ix.m.ImageHash = &s
	}
	ix.m.Format, ix.m.Tool, ix.m.ImageComplete = FormatVersion, tool, false
	if err := ix.saveManifest(); err != nil {
		return rep, err
	}
	o := imagehash.Options{Kind: set.Kind, Canvas: set.Canvas, Size: set.Size}
	db, err := ix.imageDB()
	if err != nil {
		return rep, err
	}
	for i, in := range inputs {
		c := &ix.m.ImageCorpora[i]
		if c.Done {
			rep.Reused = append(rep.Reused, in.Name)
			continue
		}
		if prog != nil {
			prog.Start("hashing "+in.Name, -1)
		}
		type rec struct{ key, val []byte }
		out := make(chan rec, 1024)
		errc := make(chan error, 1)
		go func() { // the stream write consumes records as they are hashed
			errc <- streamSorted(ctx, db, func() ([]byte, []byte, bool, error) {
				r, ok := <-out
				return r.key, r.val, ok, nil
			})
			for range out { // drain if the writer stopped early
			}
		}()
		var add func(int64)
		if prog != nil {
			add = prog.Add
		}
		st, n, err := imagehash.Scan(ctx, in.Source, o, workers, add, func(it dataset.ImageItem, fp imagehash.Hashes) error {
			key := []byte{'h', kindByte(set.Kind), 0, 0, 0, 0, 0, 0}
			binary.BigEndian.PutUint16(key[2:], c.ID)
			binary.BigEndian.PutUint32(key[4:], uint32(it.Seq))
			out <- rec{key, encodeImage(it, fp)}
			return nil
		})
		close(out)
		werr := <-errc
		if prog != nil {
			prog.Done()
		}
		if err == nil {
			err = werr
		}
		if err == nil {
			err = db.Sync()
		}
		if err != nil {
			return rep, fmt.Errorf("hash image corpus %s: %w", in.Name, err)
		}
		c.Stats, c.Hashed, c.Done = st, n, true
		rep.Indexed = append(rep.Indexed, in.Name)
		rep.Postings += n
		if err := ix.saveManifest(); err != nil {
			return rep, err
		}
	}
	// Closed, the database's files are final: record them.
	if err := ix.closeImageDB(); err != nil {
		return rep, err
	}
	if err := ix.recordImages(); err != nil {
		return rep, err
	}
	ix.m.ImageComplete = true
	return rep, ix.saveManifest()
}

// CoversImages reports whether the manifest holds exactly these image
// corpora, complete, with these settings.
func (m Manifest) CoversImages(sums []checksum.Input, set ImageSettings) bool {
	set = set.current()
	if !m.ImageComplete || m.ImageHash == nil || *m.ImageHash != set || len(m.ImageCorpora) != len(sums) {
		return false
	}
	for i, s := range sums {
		if c := m.ImageCorpora[i]; c.Name != s.Name || c.Input.SHA256 != s.SHA256 || !c.Done {
			return false
		}
	}
	return true
}

// Images calls fn for every stored image record in (corpus, seq) order.
// It fails, naming the index, unless it read exactly the records each
// corpus's build wrote; fn may have been called for some records before
// such an error, so a caller keeps them only once Images returns nil.
func (ix *DB) Images(fn func(ImageRecord) error) (err error) {
	if !ix.m.current() {
		return ix.oldFormat()
	}
	if !ix.m.ImageComplete || ix.m.ImageHash == nil {
		return ErrIncomplete
	}
	defer ix.recovered(&err)
	db, err := ix.imageDB()
	if err != nil {
		return err
	}
	prefix := []byte{'h', kindByte(ix.m.ImageHash.Kind)}
	names := map[uint16]string{}
	for _, c := range ix.m.ImageCorpora {
		names[c.ID] = c.Name
	}
	got := map[uint16]int64{}
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 256, Prefix: prefix})
		defer it.Close()
		var last []byte
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			item := it.Item()
			k := item.Key()
			if len(k) != 8 || bytes.Compare(k, last) <= 0 {
				return ix.damaged("images: bad record key %x", k)
			}
			last = append(last[:0], k...)
			cid := binary.BigEndian.Uint16(k[2:])
			name, ok := names[cid]
			if !ok {
				return ix.damaged("images: record of unknown corpus %d", cid)
			}
			got[cid]++
			r := ImageRecord{Corpus: name, Seq: int64(binary.BigEndian.Uint32(k[4:]))}
			if err := item.Value(func(v []byte) error { return decodeImage(v, &r) }); err != nil {
				return ix.damaged("images: %v (record %x)", err, k)
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range ix.m.ImageCorpora {
		if got[c.ID] != c.Hashed {
			return ix.damaged("images: %d records of corpus %s read, its build wrote %d (a block is missing or unreadable)", got[c.ID], c.Name, c.Hashed)
		}
	}
	return nil
}
