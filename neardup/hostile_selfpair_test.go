package neardup

import (
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

// TestHostileSelfPairEitherQuery: within a split that is itself a
// training corpus, a pair is listed once, from whichever of its two items
// found it first, and both items count as having a near-duplicate. The
// check depends on the query (its probes, the limit of a lone symbol), so
// the later item may find a pair the earlier one did not: it must still
// be listed.
func TestHostileSelfPairEitherQuery(t *testing.T) {
	self := map[string]bool{"tr": true}
	item := func(seq int64, id string) dataset.ImageItem { return dataset.ImageItem{Seq: seq, ID: id} }
	rec := func(seq int64, id string) index.ImageRecord { return index.ImageRecord{Corpus: "tr", Seq: seq, ID: id} }
	cand := func(test, train string, seq int64) candidate {
		return candidate{pair: Pair{TestSplit: "tr", TestID: test, TrainSplit: "tr", TrainID: train, Verified: true}, rec: rec(seq, train)}
	}
	tests := []struct {
		name    string
		queries []dataset.ImageItem
		found   [][]candidate // per query
		want    []string      // pairs listed, test→train
		items   int64         // items with a near-duplicate
	}{
		{"found by both", []dataset.ImageItem{item(0, "a"), item(1, "b")},
			[][]candidate{{cand("a", "b", 1)}, {cand("b", "a", 0)}}, []string{"a→b"}, 2},
		{"found by the earlier only", []dataset.ImageItem{item(0, "a"), item(1, "b")},
			[][]candidate{{cand("a", "b", 1)}, nil}, []string{"a→b"}, 2},
		{"found by the later only", []dataset.ImageItem{item(0, "a"), item(1, "b")},
			[][]candidate{nil, {cand("b", "a", 0)}}, []string{"b→a"}, 2},
		{"two pairs of one item", []dataset.ImageItem{item(0, "a"), item(1, "b"), item(2, "c")},
			[][]candidate{nil, {cand("b", "a", 0)}, {cand("c", "a", 0), cand("c", "b", 1)}}, []string{"b→a", "c→a", "c→b"}, 3},
	}
	for _, tt := range tests {
		r := &run{rep: Report{}}
		items := &splitItems{flags: map[int64]*itemFlags{}, listed: map[selfPair]bool{}}
		for i, q := range tt.queries {
			if len(tt.found[i]) > 0 {
				r.record(items, q, tt.found[i], self)
			}
		}
		var got []string
		for _, p := range r.rep.Pairs {
			got = append(got, p.TestID+"→"+p.TrainID)
		}
		var sum Summary
		items.count(&sum)
		if len(got) != len(tt.want) || sum.WithNearDuplicate != tt.items || sum.Verified != tt.items {
			t.Errorf("%s: pairs %v, want %v; %d items with a near-duplicate (%d verified), want %d", tt.name, got, tt.want, sum.WithNearDuplicate, sum.Verified, tt.items)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: pairs %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}
