package audit

import (
	"context"
	"fmt"
	"sort"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
)

// DefaultNearMin is the shortest token sequence near matching considers:
// shorter formulas are within a few edits of each other by chance.
const DefaultNearMin = 8

// NearSplit is one test split's near-label overlap: how many of its items
// have a training label within K token edits (token Levenshtein distance at
// the tokens level), beside the chance level of such matches.
type NearSplit struct {
	Name      string `json:"name"`
	K         int    `json:"k"`
	MinTokens int    `json:"min_tokens"`
	Total     int64  `json:"total"`
	// Considered are the items of at least MinTokens tokens; shorter ones
	// (and labels the tokenizer rejects) are not looked for.
	Considered int64 `json:"considered"`
	// Within are the considered items with a training label at most K
	// edits away; WithEdits those whose nearest is 1…K edits away (not the
	// same token sequence).
	Within    int64   `json:"within_k"`
	Rate      Percent `json:"rate"` // Within / Considered
	WithEdits int64   `json:"with_edits"`
	// ControlMatched are the considered items within K edits of another,
	// different item of the same split: the rate at which unrelated
	// formulas of this split collide at this K, the chance level Rate is
	// to be read against.
	ControlMatched int64   `json:"control_matched"`
	ControlRate    Percent `json:"control_rate"`
}

// nearTest is one test item in the near index.
type nearTest struct {
	split int
	item  dataset.Item
	best  int // nearest training distance, -1 when none
	count int64
	refs  []index.TrainRef
}

// nearOverlap finds, for every test item, the training labels within k
// token edits, streaming each training corpus once against an index of the
// test items. A fingerprint has no token sequences: it is an error.
func nearOverlap(ctx context.Context, job OverlapJob, train []index.CorpusInput) ([]NearSplit, error) {
	k, minTok := job.Near, job.NearMin
	if minTok <= 0 {
		minTok = DefaultNearMin
	}
	ix := index.NewNear(k, minTok)
	var tests []*nearTest // by index id
	res := make([]NearSplit, len(job.Tests))
	seqs := make([][]string, 0)
	for si, sp := range job.Tests {
		ns := NearSplit{Name: sp.Name, K: k, MinTokens: ix.MinTokens()}
		items := sp.Items
		if items == nil {
			if _, err := dataset.Scan(sp.Source, func(it dataset.Item) error {
				items = append(items, it)
				return nil
			}); err != nil {
				return nil, fmt.Errorf("test split %s: %w", sp.Name, err)
			}
		}
		ns.Total = int64(len(items))
		for _, it := range items {
			t := canon.TokenList(it.Label)
			if id := ix.Add(t); id >= 0 {
				tests = append(tests, &nearTest{split: si, item: it, best: -1})
				seqs = append(seqs, t)
				ns.Considered++
			}
		}
		res[si] = ns
	}
	for _, in := range train {
		if fingerprint.Is(in.Source.Path) {
			return nil, fmt.Errorf("training corpus %s is a fingerprint: it has no token sequences, which --near needs", in.Name)
		}
		_, err := dataset.ScanMapped(ctx, in.Source, job.Workers, func(it dataset.Item) []index.NearMatch {
			return ix.Query(canon.TokenList(it.Label))
		}, func(it dataset.Item, ms []index.NearMatch) error {
			for _, m := range ms {
				t := tests[m.ID]
				if t.best < 0 || m.Distance < t.best {
					t.best = m.Distance
				}
				t.count++
				if len(t.refs) < job.MaxRefs {
					t.refs = append(t.refs, index.TrainRef{Corpus: in.Name, ID: it.ID})
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("training corpus %s: %w", in.Name, err)
		}
	}
	// The chance level: each considered item against the others of its
	// split.
	for id, t := range tests {
		for _, m := range ix.Query(seqs[id]) {
			if m.ID != id && m.Distance > 0 && tests[m.ID].split == t.split {
				res[t.split].ControlMatched++
				break
			}
		}
	}
	for _, t := range tests {
		if t.best >= 0 {
			res[t.split].Within++
			if t.best > 0 {
				res[t.split].WithEdits++
			}
		}
	}
	for i := range res {
		res[i].Rate = NewPercent(res[i].Within, res[i].Considered)
		res[i].ControlRate = NewPercent(res[i].ControlMatched, res[i].Considered)
	}
	if job.Item != nil {
		level := nearLevel(k)
		sort.SliceStable(tests, func(a, b int) bool {
			if tests[a].split != tests[b].split {
				return tests[a].split < tests[b].split
			}
			return tests[a].item.Seq < tests[b].item.Seq
		})
		for _, t := range tests {
			refs := t.refs
			if refs == nil {
				refs = []index.TrainRef{}
			}
			if err := job.Item(ItemMatch{Split: job.Tests[t.split].Name, ID: t.item.ID, Seq: t.item.Seq, Level: level,
				Label: t.item.Label, Found: t.best >= 0, Matches: t.count, TrainIDs: refs}); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// nearLevel names the near-label stratum in items and gaps: "near2".
func nearLevel(k int) string { return fmt.Sprintf("near%d", k) }
