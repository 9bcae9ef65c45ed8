package overlap

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/panics"
	"github.com/leakaudit/leakaudit/internal/rounding"
)

// A Split is a named test split to check.
type Split struct {
	Name   string
	Source dataset.Source
	// Items, when not nil, are the split's items as already read from
	// Source, and Stats what that read counted: Check uses them instead
	// of reading Source again (the audit reads each input once).
	Items []dataset.Item
	Stats dataset.Stats
	// keys, when not nil, are the canonical keys of Items at the levels
	// checked, [level][item], as splitKeys computes them (a run that
	// streams the training corpora past them computed them first).
	keys [][]keyed
}

// Percent is a percentage rounded to two decimals the way the audit's
// Python code rounds it. It marshals to JSON as a number with exactly two
// decimals (23.25, 100.00).
type Percent float64

// NewPercent returns round(100*num/den, 2); zero when den is zero.
func NewPercent(num, den int64) Percent {
	if den == 0 {
		return 0
	}
	return Percent(rounding.Python(float64(100*num)/float64(den), 2))
}

// String formats p with two decimals.
func (p Percent) String() string { return strconv.FormatFloat(float64(p), 'f', 2, 64) }

// MarshalJSON writes p with two decimals.
func (p Percent) MarshalJSON() ([]byte, error) { return []byte(p.String()), nil }

// SplitLevel is the overlap of one test split at one level: one row of the
// audit's Table 1.
type SplitLevel struct {
	Name        string  `json:"name"`
	Level       string  `json:"level"`
	Total       int64   `json:"total"`
	Found       int64   `json:"found"`
	Rate        Percent `json:"rate"`
	Unique      int64   `json:"unique_labels"`       // distinct canonical keys among the entries
	UniqueFound int64   `json:"unique_labels_found"` // of those, found in training
	Failed      int64   `json:"canon_failures,omitempty"`
}

// SplitInput records what was read of a test split.
type SplitInput struct {
	Name  string        `json:"name"`
	Path  string        `json:"path"`
	Stats dataset.Stats `json:"stats"`
	Error string        `json:"error,omitempty"` // the split could not be read at all
}

// AuditOnly is an item found at the audit level but not at ws. The protocol
// allows these only when deleting a space glued a control word to a letter
// (\alpha b → \alphab) or collapsed a control space; Reason says which, and
// "other" would be a bug to report.
type AuditOnly struct {
	Split    string `json:"split"`
	ID       string `json:"id"`
	Label    string `json:"label"`
	AuditKey string `json:"audit_key"`
	WSKey    string `json:"ws_key"`
	Reason   string `json:"reason"`
}

// Reasons for an audit-only match.
const (
	GlueControlWord  = "control word glued to a letter"
	GlueControlSpace = "control space collapsed"
	GlueOther        = "other"
)

// ItemMatch is the per-item evidence for one test item at one level.
type ItemMatch struct {
	Split    string           `json:"split" parquet:"split"`
	ID       string           `json:"id" parquet:"id"`
	Seq      int64            `json:"seq" parquet:"seq"`
	Level    string           `json:"level" parquet:"level"`
	Label    string           `json:"label" parquet:"label"`
	Key      string           `json:"key" parquet:"key"`
	Found    bool             `json:"found" parquet:"found"`
	Matches  int64            `json:"matches" parquet:"matches"` // training items with this key
	TrainIDs []index.TrainRef `json:"train_ids" parquet:"train_ids,list"`
}

// Result is the outcome of Check.
type Result struct {
	Splits    []SplitLevel `json:"splits"`
	Inputs    []SplitInput `json:"test_inputs"`
	AuditOnly []AuditOnly  `json:"audit_only,omitempty"`
}

// Options configure Check.
type Options struct {
	Levels  []canon.Level
	MaxRefs int // training ids named per item (the count is always complete)
	Workers int // concurrent lookups; 0 means GOMAXPROCS
	// Item, when set, receives every item's evidence in split, item and
	// level order.
	Item func(ItemMatch) error
}

// Lookuper finds training items by canonical key; *index.DB is one.
type Lookuper interface {
	Lookup(level canon.Level, key string, maxRefs int) (index.Match, error)
}

// Check checks every split against the index at every level.
func Check(ctx context.Context, ix Lookuper, splits []Split, opt Options) (Result, error) {
	var res Result
	for _, sp := range splits {
		in := SplitInput{Name: sp.Name, Path: sp.Source.Path}
		items, st, err := sp.Items, sp.Stats, error(nil)
		if items == nil {
			st, err = dataset.Scan(sp.Source, func(it dataset.Item) error {
				items = append(items, it)
				return nil
			})
		}
		in.Stats = st
		if err != nil {
			in.Error = err.Error()
			res.Inputs = append(res.Inputs, in)
			continue
		}
		res.Inputs = append(res.Inputs, in)
		keys := sp.keys
		if len(keys) != len(opt.Levels) {
			if keys, err = splitKeys(items, opt.Levels, opt.Workers); err != nil {
				return res, fmt.Errorf("split %s: %w", sp.Name, err)
			}
		}
		rows, only, err := overlapSplit(ctx, ix, sp.Name, items, keys, opt)
		if err != nil {
			return res, fmt.Errorf("split %s: %w", sp.Name, err)
		}
		res.Splits = append(res.Splits, rows...)
		res.AuditOnly = append(res.AuditOnly, only...)
	}
	return res, nil
}

type keyed struct {
	key    string
	failed bool
}

// splitKeys returns the canonical keys of items at levels, [level][item],
// computed on workers goroutines (0: GOMAXPROCS), each item's levels in
// turn (the token levels share one tokenizer run that way). A panic is
// recovered and returned (the first one).
func splitKeys(items []dataset.Item, levels []canon.Level, workers int) ([][]keyed, error) {
	keys := make([][]keyed, len(levels))
	for li := range levels {
		keys[li] = make([]keyed, len(items))
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	step := max((len(items)+workers-1)/workers, 1024)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for lo := 0; lo < len(items); lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			if err := panics.Catch(func() {
				for i := lo; i < hi; i++ {
					for li, l := range levels {
						k, err := l.Canon(items[i].Label)
						keys[li][i] = keyed{k, err != nil}
					}
				}
			}); err != nil {
				once.Do(func() { first = err })
			}
		}(lo, min(lo+step, len(items)))
	}
	wg.Wait()
	return keys, first
}

func overlapSplit(ctx context.Context, ix Lookuper, name string, items []dataset.Item, keys [][]keyed, opt Options) ([]SplitLevel, []AuditOnly, error) {
	found := make([]map[string]index.Match, len(opt.Levels))
	for li := range opt.Levels {
		found[li] = make(map[string]index.Match, len(items))
		for _, k := range keys[li] {
			found[li][k.key] = index.Match{}
		}
	}
	for li, l := range opt.Levels {
		if err := lookupAll(ctx, ix, l, found[li], opt); err != nil {
			return nil, nil, err
		}
	}
	var rows []SplitLevel
	for li, l := range opt.Levels {
		row := SplitLevel{Name: name, Level: l.Name, Total: int64(len(items)), Unique: int64(len(found[li]))}
		for _, k := range keys[li] {
			if found[li][k.key].Count > 0 {
				row.Found++
			}
			if k.failed {
				row.Failed++
			}
		}
		for _, m := range found[li] {
			if m.Count > 0 {
				row.UniqueFound++
			}
		}
		row.Rate = NewPercent(row.Found, row.Total)
		rows = append(rows, row)
	}
	if opt.Item != nil {
		for i, it := range items {
			for li, l := range opt.Levels {
				k := keys[li][i].key
				m := found[li][k]
				refs := m.Refs
				if refs == nil {
					refs = []index.TrainRef{}
				}
				if err := opt.Item(ItemMatch{Split: name, ID: it.ID, Seq: it.Seq, Level: l.Name, Label: it.Label,
					Key: k, Found: m.Count > 0, Matches: m.Count, TrainIDs: refs}); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return rows, auditOnly(name, items, opt.Levels, keys, found), nil
}

// auditOnly lists the items found at audit but not at ws, when both levels
// were checked.
func auditOnly(name string, items []dataset.Item, levels []canon.Level, keys [][]keyed, found []map[string]index.Match) []AuditOnly {
	ai, wi := -1, -1
	for i, l := range levels {
		switch l.ID {
		case canon.Audit:
			ai = i
		case canon.WS:
			wi = i
		}
	}
	if ai < 0 || wi < 0 {
		return nil
	}
	var out []AuditOnly
	for i, it := range items {
		ak, wk := keys[ai][i].key, keys[wi][i].key
		if found[ai][ak].Count > 0 && found[wi][wk].Count == 0 {
			out = append(out, AuditOnly{Split: name, ID: it.ID, Label: it.Label, AuditKey: ak, WSKey: wk, Reason: glueReason(wk)})
		}
	}
	return out
}

// glueReason explains why deleting U+0020 could merge a label with ws key
// k into something ws keeps apart: ws keeps exactly two kinds of space, the
// one ending a control word before a letter and the control space.
func glueReason(k string) string {
	if strings.Contains(k, `\ `) {
		return GlueControlSpace
	}
	for i := 0; i < len(k); i++ {
		if k[i] == ' ' && i > 0 && isLetter(k[i-1]) {
			return GlueControlWord
		}
	}
	return GlueOther
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// lookupAll fills keys with their matches using concurrent lookups.
func lookupAll(ctx context.Context, ix Lookuper, l canon.Level, keys map[string]index.Match, opt Options) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	list := make([]string, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	results := make([]index.Match, len(list))
	var wg sync.WaitGroup
	var firstErr error
	var once sync.Once
	next := make(chan int, 1024)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m, err := panics.Call(func() (index.Match, error) { return ix.Lookup(l, list[i], opt.MaxRefs) })
				if err != nil {
					once.Do(func() { firstErr = err })
					continue
				}
				results[i] = m
			}
		}()
	}
	for i := range list {
		if i%1024 == 0 && ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, k := range list {
		keys[k] = results[i]
	}
	return nil
}
