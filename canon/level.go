package canon

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// LevelID is the stable numeric identity of a canonical level. It is stored
// in persistent indexes, so a value is never reused for another level.
type LevelID uint8

// The level identities, in ladder order.
const (
	Raw    LevelID = 0 // L0
	Audit  LevelID = 1 // L1
	WS     LevelID = 2 // L2
	Tokens LevelID = 3 // L3
	Render LevelID = 4 // L4
)

// A Level is one rung of the canonicalization ladder.
type Level struct {
	ID      LevelID
	Name    string // CLI name: raw, audit, ws, tokens, render
	Rung    string // ladder label: L0 … L4
	Version int    // bumped whenever the rules change
	Doc     string // one-line description for --help and reports

	// Canon maps a label to its canonical key. A non-nil error means the
	// label could not be canonicalized at this level; the returned key is
	// then a tagged failure value that equals only the key of another
	// failure with the same fallback string, so failures never match
	// successes. Canon must be safe for concurrent use.
	Canon func(label string) (key string, err error)
	// AppendKey, when set, appends the key Canon would return to dst
	// without allocating it: levels that are plain string rules have one,
	// for the hot loops that only compare keys. Use Level.Append.
	AppendKey func(dst []byte, label string) []byte
}

// Digest returns the digest of the label's key at this level (DigestOf
// the key Canon returns), built in a pooled buffer: the hot loops that
// index or fingerprint a corpus call it once per label and level.
func (l Level) Digest(label string, salt []byte) Digest {
	bp := keyBufs.Get().(*[]byte)
	*bp = l.Append((*bp)[:0], label)
	d := DigestOfBytes(*bp, salt)
	keyBufs.Put(bp)
	return d
}

var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// Append appends the label's key at this level to dst: AppendKey when the
// level has one, else Canon's key.
func (l Level) Append(dst []byte, label string) []byte {
	if l.AppendKey != nil {
		return l.AppendKey(dst, label)
	}
	k, _ := l.Canon(label)
	return append(dst, k...)
}

// IDs returns the ids of levels, in order.
func IDs(levels []Level) []LevelID {
	ids := make([]LevelID, len(levels))
	for i, l := range levels {
		ids[i] = l.ID
	}
	return ids
}

// String returns the level's CLI name.
func (l Level) String() string { return l.Name }

var registry = map[string]Level{}

// Register adds a level to the ladder. It panics on a duplicate name or
// identity, which is a programming error caught by the package tests.
func Register(l Level) {
	if _, dup := registry[l.Name]; dup {
		panic("latex: duplicate level " + l.Name)
	}
	for _, o := range registry {
		if o.ID == l.ID {
			panic(fmt.Sprintf("latex: level %s reuses id %d of %s", l.Name, l.ID, o.Name))
		}
	}
	registry[l.Name] = l
}

// LookupLevel returns the level with the given CLI name.
func LookupLevel(name string) (Level, bool) {
	l, ok := registry[name]
	return l, ok
}

// Levels returns every registered level in ladder order.
func Levels() []Level {
	out := make([]Level, 0, len(registry))
	for _, l := range registry {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ParseLevels parses a comma-separated list of level names (as given to
// --level) and returns the levels in ladder order without duplicates.
func ParseLevels(list string) ([]Level, error) {
	seen := map[LevelID]bool{}
	var out []Level
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		l, ok := LookupLevel(name)
		if !ok {
			return nil, fmt.Errorf("unknown level %q (known: %s)", name, LevelNames())
		}
		if !seen[l.ID] {
			seen[l.ID] = true
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no level given (known: %s)", LevelNames())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// LevelNames returns the registered level names in ladder order, joined by
// commas.
func LevelNames() string {
	var names []string
	for _, l := range Levels() {
		names = append(names, l.Name)
	}
	return strings.Join(names, ",")
}

func init() {
	Register(Level{
		ID: Raw, Name: "raw", Rung: "L0", Version: 1,
		Doc:       "the label exactly as decoded from its file",
		Canon:     func(s string) (string, error) { return s, nil },
		AppendKey: func(dst []byte, s string) []byte { return append(dst, s...) },
	})
	Register(Level{
		ID: Audit, Name: "audit", Rung: "L1", Version: 1,
		Doc:       `published audit protocol: one outer \[ \] strip, then every U+0020 deleted`,
		Canon:     func(s string) (string, error) { return AuditKey(s), nil },
		AppendKey: AppendAuditKey,
	})
	Register(Level{
		ID: WS, Name: "ws", Rung: "L2", Version: 2, // 2: invalid UTF-8 replaced before spaces are dropped
		Doc:       "NFC, outer math wrappers stripped, whitespace dropped except after a control word before a letter",
		Canon:     func(s string) (string, error) { return WSKey(s), nil },
		AppendKey: AppendWSKey,
	})
}
