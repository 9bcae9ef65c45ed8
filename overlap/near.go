package overlap

import (
	"context"
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/rounding"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// Near-label overlap (overlap --near K).
//
// A test item is near a training label when their token sequences at the
// tokens level are within K token edits (Levenshtein distance over tokens).
// The test items of every split, and of every control split, go into one
// index.Near; each training corpus is streamed once, each label tokenized
// and looked up on every core. Items shorter than the minimum length are
// not looked for and are counted as such (see index.DefaultNearMin for the
// measurement behind the default).
//
// # The control rate
//
// A near match can be a copy with edits or two unrelated formulas that
// happen to be close: short formulas built from the same few tokens
// collide by chance, and a larger training corpus collides more often. The
// chance level is measured with control splits (--near-control): label
// sets that cannot be in the training corpora, because they come from
// another benchmark with an unrelated origin or were made after the
// corpora were fixed, of the same kind of formulas. They are matched
// against the same training corpora in the same pass (no extra read of the
// corpora), so the control sees the same corpus size and coverage as the
// test split; every control match is a coincidence. Because the chance of
// a collision falls steeply with length (on the shared data, ten times
// from 8–11 to 16–19 tokens at K=2), each split's control rate is
// standardized to the split's own length distribution: the control's rate
// in each length band (minimum +0–3, +4–7, +8–15, +16 and more tokens),
// weighted by the split's share of considered items in that band. A
// split's rate far above its control rate is copying; near it is chance.
//
// Items within the same split are not a control: on HME100K test, 66% of
// the 8- and 9-token items have another item of the same split within 2
// edits, against 4–55% for the labels of another benchmark, because a
// split's items share templates and sources. The training corpus of
// another benchmark is not used either: its size differs from the
// training corpus under audit, and the chance of a collision grows with
// the corpus.

// NearSplit is one split's near-label overlap: how many of its items have
// a training label within K token edits (token Levenshtein distance at the
// tokens level), beside the chance level measured by the control splits.
type NearSplit struct {
	Name      string `json:"name"`
	K         int    `json:"k"`
	MinTokens int    `json:"min_tokens"`
	Total     int64  `json:"total"`
	// BelowMin are the items with fewer than MinTokens tokens and
	// TokenFailed those whose label the tokenizer rejects: neither is
	// looked for. Considered are the others.
	BelowMin    int64 `json:"below_min"`
	TokenFailed int64 `json:"tokenize_failed"`
	Considered  int64 `json:"considered"`
	// Within are the considered items with a training label at most K
	// edits away; ByDistance[d] those whose nearest is d edits away.
	// Exact (ByDistance[0]) have the same token sequence, which the
	// tokens level finds too; WithEdits (ByDistance[1…K]) only near
	// matching finds.
	Within     int64   `json:"within_k"`
	Rate       Percent `json:"rate"` // Within / Considered
	ByDistance []int64 `json:"by_distance"`
	Exact      int64   `json:"exact"`
	WithEdits  int64   `json:"with_edits"`
	EditsRate  Percent `json:"edits_rate"` // WithEdits / Considered
	// Controls are the chance levels of Rate and EditsRate, one per
	// control split, standardized to this split's lengths; empty without
	// control splits and in the control splits' own rows.
	Controls []NearControl `json:"controls,omitempty"`
}

// NearControl is a split's chance level from one control split: the
// control's rates in each length band, weighted by the split's share of
// considered items in the band.
type NearControl struct {
	Control   string  `json:"control"`
	Rate      Percent `json:"rate"`
	EditsRate Percent `json:"edits_rate"`
	// Coverage is the share of the split's considered items in bands the
	// control has items in; the weights are renormalized over those.
	Coverage Percent `json:"coverage"`
}

// NearItemMatch is a per-item row when near matching is on and
// Job.NearItem is set: an ItemMatch with the near evidence. Level rows have Distance nil and no
// TrainDistances, so their JSON is the same as ItemMatch's. Near rows
// (Level "nearK", one per considered item, after every level row) have
// Key the item's token sequence, Found a training label within K, Matches
// the number of such labels, TrainIDs the nearest first (then in corpus
// order) with their distances in TrainDistances, Distance the nearest
// distance (nil when none is within K) and Exact the number at distance
// 0.
type NearItemMatch struct {
	Split          string           `json:"split" parquet:"split"`
	ID             string           `json:"id" parquet:"id"`
	Seq            int64            `json:"seq" parquet:"seq"`
	Level          string           `json:"level" parquet:"level"`
	Label          string           `json:"label" parquet:"label"`
	Key            string           `json:"key" parquet:"key"`
	Found          bool             `json:"found" parquet:"found"`
	Matches        int64            `json:"matches" parquet:"matches"`
	TrainIDs       []index.TrainRef `json:"train_ids" parquet:"train_ids,list"`
	Distance       *int             `json:"distance,omitempty" parquet:"distance,optional"`
	Exact          *int64           `json:"exact,omitempty" parquet:"exact,optional"`
	TrainDistances []int            `json:"train_distances,omitempty" parquet:"train_distances,list"`
}

// NearRow widens a level row to the near rows' schema.
func NearRow(m ItemMatch) NearItemMatch {
	return NearItemMatch{Split: m.Split, ID: m.ID, Seq: m.Seq, Level: m.Level, Label: m.Label, Key: m.Key,
		Found: m.Found, Matches: m.Matches, TrainIDs: m.TrainIDs}
}

// NearLevel names the near-label stratum in items and gaps: "near2".
func NearLevel(k int) string { return fmt.Sprintf("near%d", k) }

// nearBands are the length bands of the control's standardization, as
// offsets from the minimum length: [0,4), [4,8), [8,16), [16,∞).
var nearBands = []int{4, 8, 16}

// nearBandCount counts a split's considered items in one length band:
// all, within K, nearest with edits.
type nearBandCount struct{ n, within, edits int64 }

func nearBand(length, minTokens int) int {
	b := 0
	for b < len(nearBands) && length-minTokens >= nearBands[b] {
		b++
	}
	return b
}

// nearItem is one considered item of a split or control in the index.
type nearItem struct {
	split  int // into the splits, then the controls
	item   dataset.Item
	key    string // the token sequence, space-separated
	tokens int
	best   int // nearest training distance, -1 when none
	count  int64
	exact  int64
	refs   []nearRef // the nearest, at most MaxRefs
}

type nearRef struct {
	ref  index.TrainRef
	dist int
}

// add records a training label at distance d, keeping the maxRefs nearest.
func (t *nearItem) add(ref index.TrainRef, d, maxRefs int) {
	if t.best < 0 || d < t.best {
		t.best = d
	}
	t.count++
	if d == 0 {
		t.exact++
	}
	if maxRefs <= 0 || len(t.refs) == maxRefs && t.refs[maxRefs-1].dist <= d {
		return
	}
	i := len(t.refs)
	for i > 0 && t.refs[i-1].dist > d {
		i--
	}
	t.refs = slices.Insert(t.refs, i, nearRef{ref, d})
	if len(t.refs) > maxRefs {
		t.refs = t.refs[:maxRefs]
	}
}

// warnControls logs the near controls that are also a test split or a
// training corpus: a control must be a split that cannot be in the
// training data, and one that is a test split counts that split's own
// matches in its chance level.
func warnControls(job Job, train []index.CorpusInput) {
	for _, c := range job.NearControls {
		cp := filepath.Clean(c.Source.Path)
		for _, t := range job.Tests {
			if filepath.Clean(t.Source.Path) == cp {
				job.Log("warning: near control %s (%s) is also the test split %s: its chance level includes that split's own matches", c.Name, c.Source.Path, t.Name)
			}
		}
		for _, in := range train {
			if filepath.Clean(in.Source.Path) == cp {
				job.Log("warning: near control %s (%s) is also the training corpus %s: it cannot serve as a control", c.Name, c.Source.Path, in.Name)
			}
		}
	}
}

// findNear finds, for every test and control item, the training labels
// within k token edits, streaming each training corpus once against an
// index of those items, and writes the near rows when job.NearItem is set.
// A fingerprint has no token sequences: it is an error.
func findNear(ctx context.Context, job Job, train []index.CorpusInput) (splits, controls []NearSplit, err error) {
	for _, in := range train {
		if fingerprint.Is(in.Source.Path) {
			return nil, nil, setting.Errorf("training corpus %s is a fingerprint: it has no token sequences, which %s needs", in.Name, setting.Near)
		}
	}
	if job.Log != nil {
		warnControls(job, train)
	}
	ix := index.NewNear(job.Near, job.NearMin)
	all := append(slices.Clip(job.Tests), job.NearControls...)
	res, rowOf := nearRows(all, len(job.Tests), ix.K(), ix.MinTokens())
	items, err := addNearItems(ix, all, len(job.Tests), rowOf, res)
	if err != nil {
		return nil, nil, err
	}
	if err := streamNear(ctx, job, train, ix, items); err != nil {
		return nil, nil, err
	}
	countNear(res, items, ix.MinTokens(), len(job.Tests))
	if job.NearItem != nil || job.Item != nil {
		if err := writeNearRows(job, ix.K(), items, res); err != nil {
			return nil, nil, err
		}
	}
	return res[:len(job.Tests)], res[len(job.Tests):], nil
}

// nearRows makes the rows of the near counts: one per test split (the
// first tests of all), then one per control name, control splits of one
// name pooled; rowOf[i] is the row of all[i].
func nearRows(all []Split, tests, k, minTok int) (res []NearSplit, rowOf []int) {
	rowOf = make([]int, len(all))
	controlRow := map[string]int{}
	for si, sp := range all {
		if si >= tests {
			if r, ok := controlRow[sp.Name]; ok {
				rowOf[si] = r
				continue
			}
			controlRow[sp.Name] = len(res)
		}
		rowOf[si] = len(res)
		res = append(res, NearSplit{Name: sp.Name, K: k, MinTokens: minTok, ByDistance: make([]int64, k+1)})
	}
	return res, rowOf
}

// addNearItems reads every split of all (the first tests of them test
// splits, the rest controls) that has no items yet, and adds each item of
// at least the minimum tokens to ix, counting the others in its row. The
// items are returned by their id in ix. A test split that cannot be read
// is left out (the level overlap reports it); a control split is an
// error.
func addNearItems(ix *index.Near, all []Split, tests int, rowOf []int, res []NearSplit) ([]*nearItem, error) {
	var items []*nearItem // by index id
	for si, sp := range all {
		ns := &res[rowOf[si]]
		its := sp.Items
		if its == nil {
			if _, err := dataset.Scan(sp.Source, func(it dataset.Item) error {
				its = append(its, it)
				return nil
			}); err != nil {
				if si < tests {
					continue // reported under test_inputs by the level overlap
				}
				return nil, fmt.Errorf("control split %s: %w", sp.Name, err)
			}
		}
		ns.Total += int64(len(its))
		for _, it := range its {
			t := canon.TokenList(it.Label)
			switch {
			case t == nil:
				ns.TokenFailed++
			case len(t) < ix.MinTokens():
				ns.BelowMin++
			default:
				if id := ix.Add(t); id != len(items) {
					return nil, fmt.Errorf("near index: id %d for item %d", id, len(items))
				}
				items = append(items, &nearItem{split: rowOf[si], item: it, key: strings.Join(t, " "), tokens: len(t), best: -1})
				ns.Considered++
			}
		}
	}
	return items, nil
}

// streamNear streams each training corpus once past ix, giving each item
// the training labels within its edits.
func streamNear(ctx context.Context, job Job, train []index.CorpusInput, ix *index.Near, items []*nearItem) error {
	cache := newNearCache(nearCacheSize)
	for _, in := range train {
		_, err := dataset.ScanMapped(ctx, in.Source, job.Workers, func(it dataset.Item) []index.NearMatch {
			if ms, ok := cache.get(it.Label); ok {
				return ms
			}
			ms := ix.Query(canon.TokenList(it.Label))
			cache.put(it.Label, ms)
			return ms
		}, func(it dataset.Item, ms []index.NearMatch) error {
			ref := index.TrainRef{Corpus: in.Name, ID: it.ID}
			for _, m := range ms {
				items[m.ID].add(ref, m.Distance, job.MaxRefs)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("near: training corpus %s: %w", in.Name, err)
		}
	}
	return nil
}

// countNear counts each row's items within the edits, overall and per
// length band, and sets its rates; each test row (the first tests rows)
// gets its comparison with every control row.
func countNear(res []NearSplit, items []*nearItem, minTok, tests int) {
	bands := make([][]nearBandCount, len(res))
	for i := range bands {
		bands[i] = make([]nearBandCount, len(nearBands)+1)
	}
	for _, t := range items {
		ns, b := &res[t.split], &bands[t.split][nearBand(t.tokens, minTok)]
		b.n++
		if t.best >= 0 {
			ns.Within++
			ns.ByDistance[t.best]++
			b.within++
			if t.best > 0 {
				b.edits++
			}
		}
	}
	for i := range res {
		ns := &res[i]
		ns.Exact = ns.ByDistance[0]
		ns.WithEdits = ns.Within - ns.Exact
		ns.Rate = NewPercent(ns.Within, ns.Considered)
		ns.EditsRate = NewPercent(ns.WithEdits, ns.Considered)
	}
	for si := range tests {
		for ci := tests; ci < len(res); ci++ {
			res[si].Controls = append(res[si].Controls, standardize(res[ci].Name, bands[si], bands[ci]))
		}
	}
}

// nearCacheSize bounds the labels nearCache remembers: about 30 MiB.
const nearCacheSize = 1 << 18

// nearCache remembers the near matches of the first labels a scan meets,
// safe for concurrent use. Training corpora repeat their labels (HME100K
// train 28% of its items, CROHME train 45%), and tokenizing a label costs
// several times its lookup; a repeated label is tokenized once.
type nearCache struct {
	seed   maphash.Seed
	left   atomic.Int64
	shards [64]struct {
		sync.Mutex
		m map[string][]index.NearMatch
	}
}

func newNearCache(size int) *nearCache {
	c := &nearCache{seed: maphash.MakeSeed()}
	c.left.Store(int64(size))
	for i := range c.shards {
		c.shards[i].m = map[string][]index.NearMatch{}
	}
	return c
}

func (c *nearCache) shard(label string) int {
	return int(maphash.String(c.seed, label) % uint64(len(c.shards)))
}

func (c *nearCache) get(label string) ([]index.NearMatch, bool) {
	s := &c.shards[c.shard(label)]
	s.Lock()
	ms, ok := s.m[label]
	s.Unlock()
	return ms, ok
}

// put remembers a label's matches while there is room.
func (c *nearCache) put(label string, ms []index.NearMatch) {
	if c.left.Add(-1) < 0 {
		return
	}
	s := &c.shards[c.shard(label)]
	s.Lock()
	s.m[strings.Clone(label)] = ms
	s.Unlock()
}

// standardize is a control's rates in the bands of a split, weighted by
// the split's items per band (over the bands the control has items in).
func standardize(name string, split, control []nearBandCount) NearControl {
	var covered, total, within, edits float64
	for b, s := range split {
		c := control[b]
		total += float64(s.n)
		if c.n == 0 || s.n == 0 {
			continue
		}
		w := float64(s.n)
		covered += w
		within += w * float64(c.within) / float64(c.n)
		edits += w * float64(c.edits) / float64(c.n)
	}
	nc := NearControl{Control: name}
	if covered > 0 {
		nc.Rate = percentOf(within / covered)
		nc.EditsRate = percentOf(edits / covered)
		nc.Coverage = percentOf(covered / total)
	}
	return nc
}

// percentOf is 100·f rounded to two decimals as NewPercent rounds.
func percentOf(f float64) Percent {
	return Percent(rounding.Python(100*f, 2))
}

// writeNearRows writes one near row per considered test item (controls
// have none), in split and item order: to job.NearItem when it is set,
// else narrowed to an ItemMatch to job.Item.
func writeNearRows(job Job, k int, items []*nearItem, rows []NearSplit) error {
	level := NearLevel(k)
	for _, t := range items {
		if t.split >= len(job.Tests) {
			continue
		}
		row := NearItemMatch{Split: rows[t.split].Name, ID: t.item.ID, Seq: t.item.Seq, Level: level, Label: t.item.Label,
			Key: t.key, Found: t.best >= 0, Matches: t.count, Exact: &t.exact, TrainIDs: []index.TrainRef{}}
		if t.best >= 0 {
			row.Distance = &t.best
		}
		for _, r := range t.refs {
			row.TrainIDs = append(row.TrainIDs, r.ref)
			row.TrainDistances = append(row.TrainDistances, r.dist)
		}
		var err error
		if job.NearItem != nil {
			err = job.NearItem(row)
		} else {
			err = job.Item(ItemMatch{Split: row.Split, ID: row.ID, Seq: row.Seq, Level: row.Level, Label: row.Label, Key: row.Key,
				Found: row.Found, Matches: row.Matches, TrainIDs: row.TrainIDs})
		}
		if err != nil {
			return err
		}
	}
	return nil
}
