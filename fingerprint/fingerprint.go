// Package fingerprint writes and reads fingerprints: a corpus's canonical
// keys, digested, in place of its labels, so that an author can let others
// check a test set against a private training corpus without releasing it.
//
// A fingerprint file is a Parquet file with one row per item: the corpus,
// the item's id and position, its token count at the tokens level, and for
// each canonical level asked for the 128-bit digest of its key
// (canon.DigestOf: the first 16 bytes of SHA-256, of an optional salt
// followed by the key). Labels are left out unless asked for. The file's
// key-value metadata records the format, the leakaudit version, the hash,
// each level's rules version and, for a salted file, a check value of the
// salt (never the salt): a fingerprint made under other rules, or read
// with another salt, is refused with a message that says which.
//
// What publishing fingerprints reveals: anyone can test whether a label
// they can guess is in the corpus (short formulas are easy to guess: x^2
// is), but cannot read labels they cannot guess. A salt shared with one
// reviewer limits even the guessing to that reviewer.
//
// A fingerprint is accepted wherever a training corpus is (package index
// reads it through Scan); counts and matched ids are those of the corpus
// itself. With Options.Partitions, the output is a hive-style folder of
// Parquet files partitioned by the first byte of a key's digest, which
// query engines read in parallel.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// Format is the fingerprint format's version, in the metadata under
// MetaFormat.
const Format = "1"

// Metadata keys of a fingerprint file.
const (
	MetaFormat    = "leakaudit.fingerprint"
	MetaTool      = "leakaudit.tool"
	MetaHash      = "leakaudit.hash"
	MetaLevels    = "leakaudit.levels"     // "ws:2,tokens:1": name and rules version of each level
	MetaSaltCheck = "leakaudit.salt_check" // hex digest of the salt, for a salted file
)

// Hash names the digest: canon.DigestOf.
const Hash = "sha256-128"

// A Row is one item's fingerprint. A key column is null when its level was
// not asked for.
type Row struct {
	Corpus string `parquet:"corpus"`
	ID     string `parquet:"id"`
	Seq    int64  `parquet:"seq"`
	// Tokens is the label's token count at the tokens level, -1 when the
	// tokenizer rejects it.
	Tokens    int32   `parquet:"tokens"`
	KeyRaw    []byte  `parquet:"key_raw,optional"`
	KeyAudit  []byte  `parquet:"key_audit,optional"`
	KeyWS     []byte  `parquet:"key_ws,optional"`
	KeyTokens []byte  `parquet:"key_tokens,optional"`
	KeyRender []byte  `parquet:"key_render,optional"`
	Label     *string `parquet:"label,optional"` // only with Options.WithLabels
}

// Key returns the row's digest at a level, and whether the row has one.
func (r *Row) Key(id canon.LevelID) (canon.Digest, bool) {
	var b []byte
	switch id {
	case canon.Raw:
		b = r.KeyRaw
	case canon.Audit:
		b = r.KeyAudit
	case canon.WS:
		b = r.KeyWS
	case canon.Tokens:
		b = r.KeyTokens
	case canon.Render:
		b = r.KeyRender
	}
	var d canon.Digest
	if len(b) != len(d) {
		return d, false
	}
	copy(d[:], b)
	return d, true
}

func (r *Row) setKey(id canon.LevelID, d canon.Digest) {
	b := append([]byte(nil), d[:]...)
	switch id {
	case canon.Raw:
		r.KeyRaw = b
	case canon.Audit:
		r.KeyAudit = b
	case canon.WS:
		r.KeyWS = b
	case canon.Tokens:
		r.KeyTokens = b
	case canon.Render:
		r.KeyRender = b
	}
}

// SaltCheck is the value recorded for a salt: a digest that tells whether
// a reader has the same salt without revealing it.
func SaltCheck(salt []byte) string {
	if len(salt) == 0 {
		return ""
	}
	sum := sha256.Sum256(append([]byte("leakaudit salt check\x00"), salt...))
	return hex.EncodeToString(sum[:8])
}

// Meta is what a fingerprint's metadata says.
type Meta struct {
	Tool      string
	Levels    map[string]int // level name → rules version
	SaltCheck string
}

// levelsString renders levels as the metadata records them.
func levelsString(levels []canon.Level) string {
	var parts []string
	for _, l := range levels {
		parts = append(parts, l.Name+":"+strconv.Itoa(l.Version))
	}
	return strings.Join(parts, ",")
}

// Check refuses a fingerprint that cannot stand in for its corpus at the
// given levels: a level it does not hold, a level made under other rules,
// or a salt other than the reader's.
func (m Meta) Check(levels []canon.Level, salt []byte) error {
	for _, l := range levels {
		v, ok := m.Levels[l.Name]
		switch {
		case !ok:
			return fmt.Errorf("it holds no %s keys (it has %s); make it again with --level %s", l.Name, m.levelNames(), l.Name)
		case v != l.Version:
			return fmt.Errorf("its %s keys were made under rules version %d, this leakaudit's are version %d (made by %s); make it again with this version", l.Name, v, l.Version, m.Tool)
		}
	}
	switch {
	case m.SaltCheck != "" && len(salt) == 0:
		return errors.New("it is salted: give the salt it was made with (--salt)")
	case m.SaltCheck == "" && len(salt) > 0:
		return errors.New("it is not salted, but a salt was given")
	case m.SaltCheck != SaltCheck(salt):
		return errors.New("it was made with another salt")
	}
	return nil
}

func (m Meta) levelNames() string {
	var names []string
	for n := range m.Levels {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// files lists the Parquet files of a fingerprint: the file itself, or the
// *.parquet files of a partitioned folder in path order.
func files(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return err
	})
	sort.Strings(out)
	return out, err
}

// readMeta reads one file's fingerprint metadata; ok is false when the
// file is not a fingerprint.
func readMeta(path string) (m Meta, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return m, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return m, false, err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return m, false, nil // not Parquet: not a fingerprint
	}
	if v, _ := pf.Lookup(MetaFormat); v == "" {
		return m, false, nil
	} else if v != Format {
		return m, true, fmt.Errorf("%s: fingerprint format %s, this leakaudit reads format %s", path, v, Format)
	}
	if h, _ := pf.Lookup(MetaHash); h != Hash {
		return m, true, fmt.Errorf("%s: fingerprint hash %q, this leakaudit uses %q", path, h, Hash)
	}
	m.Tool, _ = pf.Lookup(MetaTool)
	m.SaltCheck, _ = pf.Lookup(MetaSaltCheck)
	m.Levels = map[string]int{}
	lv, _ := pf.Lookup(MetaLevels)
	for _, part := range strings.Split(lv, ",") {
		name, ver, found := strings.Cut(part, ":")
		n, err := strconv.Atoi(ver)
		if !found || err != nil {
			return m, true, fmt.Errorf("%s: malformed %s metadata %q", path, MetaLevels, lv)
		}
		m.Levels[name] = n
	}
	return m, true, nil
}

// Is reports whether path is a fingerprint file or a folder of one's
// partitions.
func Is(path string) bool {
	fs, err := files(path)
	if err != nil || len(fs) == 0 {
		return false
	}
	_, ok, _ := readMeta(fs[0])
	return ok
}

// Open reads a fingerprint's metadata (every partition must agree).
func Open(path string) (Meta, error) {
	fs, err := files(path)
	if err != nil {
		return Meta{}, err
	}
	if len(fs) == 0 {
		return Meta{}, fmt.Errorf("%s: no Parquet file", path)
	}
	var first Meta
	for i, p := range fs {
		m, ok, err := readMeta(p)
		if err != nil {
			return Meta{}, err
		}
		if !ok {
			return Meta{}, fmt.Errorf("%s: not a leakaudit fingerprint (no %s metadata)", p, MetaFormat)
		}
		if i == 0 {
			first = m
		} else if m.SaltCheck != first.SaltCheck || fmt.Sprint(m.Levels) != fmt.Sprint(first.Levels) {
			return Meta{}, fmt.Errorf("%s: partition made under other settings than %s", p, fs[0])
		}
	}
	return first, nil
}

// Scan calls fn for every row of a fingerprint file or folder, in file and
// row order. The stats count the rows as items.
func Scan(path string, fn func(Row) error) (dataset.Stats, error) {
	st := dataset.Stats{Format: "fingerprint"}
	fs, err := files(path)
	if err != nil {
		return st, err
	}
	buf := make([]Row, 1024)
	for _, p := range fs {
		f, err := os.Open(p)
		if err != nil {
			return st, err
		}
		r := parquet.NewGenericReader[Row](f)
		for {
			n, err := r.Read(buf)
			for i := range n {
				st.Items++
				if ferr := fn(buf[i]); ferr != nil {
					r.Close()
					f.Close()
					return st, ferr
				}
			}
			if err != nil {
				r.Close()
				f.Close()
				if !errors.Is(err, io.EOF) {
					st.FileError = fmt.Sprintf("%s: %v; the rest of the file was not read", p, err)
				}
				break
			}
		}
	}
	return st, nil
}
