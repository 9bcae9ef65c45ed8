package index

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/internal/progress"
)

// A Probe answers the lookups of a fixed set of keys (a test set's) by
// streaming the training corpora past them once, without building a DB: the
// one-off alternative for a reviewer who checks a test set against a corpus
// once. Each training item is canonicalized on all cores and kept only when
// one of its keys is wanted, so memory grows with the test set, not the
// corpus. Lookup gives exactly what DB.Lookup gives after Build over the
// same corpora: the same counts, and the same first references in
// (corpus, position) order.
type Probe struct {
	levels  []canon.Level
	salt    []byte
	maxRefs int
	want    []map[string]*Match // per level: key → its match
	// digests are, per level, the same matches by digest, for
	// fingerprints: made when the first fingerprint is read.
	digests []map[canon.Digest]*Match
	// filter has, per level, a bit for the cheap hash of each wanted
	// key: most training keys miss it, and the map (the larger, slower
	// lookup) is asked only for those that hit.
	seed   maphash.Seed
	filter [][]uint64
	// Corpora are the corpora read, in order, as a manifest records them.
	Corpora []Corpus
}

// probeFilterBits sizes each level's filter: 128 KiB, where 25k test
// keys let about 2% of the training keys through by chance.
const probeFilterBits = 20

// bit is a key's bit in the filter.
func (p *Probe) bit(key string) uint64 {
	return maphash.String(p.seed, key) & (1<<probeFilterBits - 1)
}

// lookup returns the match of a key at level li, or nil.
func (p *Probe) lookup(li int, key string) *Match {
	if b := p.bit(key); p.filter[li][b/64]&(1<<(b%64)) == 0 {
		return nil
	}
	return p.want[li][key]
}

// keyBufs are the workers' key buffers.
var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// NewProbe returns a probe for the given keys of each level (keys[i] are
// level levels[i]'s), naming at most maxRefs training items per key.
func NewProbe(levels []canon.Level, keys [][]string, salt []byte, maxRefs int) *Probe {
	p := &Probe{levels: levels, salt: salt, maxRefs: maxRefs, seed: maphash.MakeSeed(),
		want: make([]map[string]*Match, len(levels)), filter: make([][]uint64, len(levels))}
	for i := range levels {
		p.want[i] = make(map[string]*Match, len(keys[i]))
		p.filter[i] = make([]uint64, 1<<probeFilterBits/64)
		for _, k := range keys[i] {
			b := p.bit(k)
			p.filter[i][b/64] |= 1 << (b % 64)
			if p.want[i][k] == nil {
				p.want[i][k] = &Match{}
			}
		}
	}
	return p
}

// byDigest returns, per level, the wanted matches by their keys' digests.
func (p *Probe) byDigest() []map[canon.Digest]*Match {
	if p.digests == nil {
		p.digests = make([]map[canon.Digest]*Match, len(p.levels))
		for i, want := range p.want {
			p.digests[i] = make(map[canon.Digest]*Match, len(want))
			for k, m := range want {
				p.digests[i][canon.DigestOf(k, p.salt)] = m
			}
		}
	}
	return p.digests
}

func (p *Probe) add(m *Match, ref TrainRef) {
	m.Count++
	if len(m.Refs) < p.maxRefs {
		m.Refs = append(m.Refs, ref)
	}
}

// Read streams the corpora, in order, past the wanted keys. A fingerprint
// is accepted as a corpus, under the same rules as Build.
func (p *Probe) Read(ctx context.Context, inputs []CorpusInput, sums []checksum.Input, workers int, prog progress.Reporter) error {
	for i, in := range inputs {
		c := Corpus{Name: in.Name, Input: sums[i].File}
		if prog != nil {
			prog.Start("reading "+in.Name, -1)
		}
		var st dataset.Stats
		var err error
		if fingerprint.Is(in.Source.Path) {
			meta, merr := fingerprint.Open(in.Source.Path)
			if merr == nil {
				merr = meta.Check(p.levels, p.salt)
			}
			if merr != nil {
				return fmt.Errorf("fingerprint %s: %w", in.Source.Path, merr)
			}
			digests := p.byDigest()
			st, err = fingerprint.ScanKeys(in.Source.Path, canon.IDs(p.levels), func(k *fingerprint.KeyRow) error {
				for li := range p.levels {
					if k.Has[li] {
						if m := digests[li][k.Keys[li]]; m != nil {
							p.add(m, TrainRef{Corpus: k.Corpus, ID: k.ID})
						}
					}
				}
				if prog != nil {
					prog.Add(1)
				}
				return nil
			})
		} else {
			var read func(int64)
			if prog != nil {
				read = prog.Add
			}
			st, err = dataset.ScanSelected(ctx, in.Source, workers, func(label dataset.KeepLabel) ([]*Match, bool) {
				var bp *[]byte
				var hits []*Match
				for li, l := range p.levels {
					var key string
					if l.ID == canon.Audit && label.NoSpace != "" {
						key = canon.AuditKeyOfSpaceless(label.Label, label.NoSpace)
					} else {
						if bp == nil {
							bp = keyBufs.Get().(*[]byte)
						}
						*bp = l.Append((*bp)[:0], label.Label)
						key = unsafe.String(unsafe.SliceData(*bp), len(*bp))
					}
					if m := p.lookup(li, key); m != nil {
						hits = append(hits, m)
					}
				}
				if bp != nil {
					keyBufs.Put(bp)
				}
				return hits, hits != nil
			}, func(it dataset.Item, hits []*Match) error {
				for _, m := range hits {
					p.add(m, TrainRef{Corpus: in.Name, ID: it.ID})
				}
				return nil
			}, read)
		}
		if prog != nil {
			prog.Done()
		}
		if err != nil {
			return fmt.Errorf("training corpus %s: %w", in.Name, err)
		}
		c.Stats = st
		p.Corpora = append(p.Corpora, c)
	}
	return nil
}

// Lookup returns the training items whose label has key at level, as
// DB.Lookup does; a key that was not asked for is an error.
func (p *Probe) Lookup(level canon.Level, key string, maxRefs int) (Match, error) {
	for i, l := range p.levels {
		if l.ID != level.ID {
			continue
		}
		m := p.want[i][key]
		if m == nil {
			return Match{}, fmt.Errorf("probe: key %q at %s was not asked for", key, level.Name)
		}
		out := Match{Count: m.Count}
		if n := min(maxRefs, len(m.Refs)); n > 0 {
			out.Refs = m.Refs[:n]
		}
		return out, nil
	}
	return Match{}, fmt.Errorf("probe: level %s was not asked for", level.Name)
}
