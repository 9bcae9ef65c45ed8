package index

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// levenshtein is the plain full-table token edit distance: the reference
// the index is checked against.
func levenshtein(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// bruteNear is every indexed sequence within k of q, the slow way.
func bruteNear(indexed [][]string, q []string, k, minLen int) []NearMatch {
	if len(q) < max(minLen, k+1) {
		return nil
	}
	var out []NearMatch
	for id, s := range indexed {
		if len(s) < max(minLen, k+1) {
			continue
		}
		if d := len(s) - len(q); d > k || -d > k {
			continue
		}
		if d := levenshtein(q, s); d <= k {
			out = append(out, NearMatch{ID: id, Distance: d})
		}
	}
	// Distance, then id: the index's order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Distance < out[j-1].Distance || out[j].Distance == out[j-1].Distance && out[j].ID < out[j-1].ID); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// checkNear compares the index with brute force over every query.
func checkNear(t *testing.T, indexed, queries [][]string, k, minLen int) (pairs, matched int) {
	t.Helper()
	x := NewNear(k, minLen)
	ids := map[int]int{} // index id → position in indexed
	for i, s := range indexed {
		if id := x.Add(s); id >= 0 {
			ids[id] = i
		}
	}
	for qi, q := range queries {
		got := x.Query(q)
		for i := range got {
			got[i].ID = ids[got[i].ID]
		}
		want := bruteNear(indexed, q, k, minLen)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("k=%d query %d %q:\nindex %v\nbrute %v", k, qi, strings.Join(q, " "), got, want)
		}
		matched++
		pairs += len(got)
	}
	return pairs, matched
}

// edit applies n random token edits.
func edit(r *rand.Rand, s []string, n int, vocab []string) []string {
	s = append([]string(nil), s...)
	for range n {
		switch p := r.IntN(len(s) + 1); r.IntN(3) {
		case 0:
			s = append(s[:p], append([]string{vocab[r.IntN(len(vocab))]}, s[p:]...)...)
		case 1:
			if p < len(s) {
				s = append(s[:p], s[p+1:]...)
			}
		default:
			if p < len(s) {
				s[p] = vocab[r.IntN(len(vocab))]
			}
		}
	}
	return s
}

func TestNearSynthetic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vocab := []string{"x", "y", "+", "-", "=", "{", "}", "^", "_", "2", `\frac`, `\alpha`}
	var indexed [][]string
	for range 400 {
		n := 3 + r.IntN(20)
		s := make([]string, n)
		for i := range s {
			s[i] = vocab[r.IntN(len(vocab))]
		}
		indexed = append(indexed, s)
	}
	var queries [][]string
	for range 5000 {
		base := indexed[r.IntN(len(indexed))]
		queries = append(queries, edit(r, base, r.IntN(5), append(vocab, "unknown")))
	}
	queries = append(queries, nil, []string{"x"}, []string{"q", "q", "q", "q", "q", "q", "q", "q", "q"})
	for _, k := range []int{0, 1, 2, 3} {
		for _, minLen := range []int{1, 6} {
			pairs, matched := checkNear(t, indexed, queries, k, minLen)
			t.Logf("k=%d min=%d: %d queries matched, %d pairs", k, minLen, matched, pairs)
			if matched == 0 {
				t.Errorf("k=%d: no query matched: the planted edits were not found", k)
			}
		}
	}
}

// TestNearRealAgainstBruteForce: 1,000 HME100K test labels indexed, every
// HME100K train label (74,502) and 25,498 edited copies queried: 100,000
// queries, each checked against brute force at K = 2.
func TestNearRealAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	root := shareddata.Dir(t)
	test := tokenLists(root + "/labels/hme100k_test_captions.json")
	train := tokenLists(root + "/labels/hme100k_train_captions.json")
	r := rand.New(rand.NewPCG(5, 6))
	indexed := test[:1000]
	queries := append([][]string{}, train...)
	var vocab []string
	for _, s := range indexed {
		vocab = append(vocab, s...)
	}
	for len(queries) < 100_000 {
		queries = append(queries, edit(r, indexed[r.IntN(len(indexed))], 1+r.IntN(3), vocab))
	}
	pairs, matched := checkNear(t, indexed, queries, 2, 8)
	t.Logf("%d queries: %d within 2 edits of one of %d test labels (%d pairs), identical to brute force", len(queries), matched, len(indexed), pairs)
}

// BenchmarkNearQuery: the index alone, 25k HME100K test labels indexed at
// K=2, queried with the 74,502 train labels' token sequences (tokenized
// beforehand); queries/s on one core.
func BenchmarkNearQuery(b *testing.B) {
	root := shareddata.Dir(b)
	x := NewNear(2, 8)
	for _, s := range tokenLists(root + "/labels/hme100k_test_captions.json") {
		x.Add(s)
	}
	queries := tokenLists(root + "/labels/hme100k_train_captions.json")
	b.ResetTimer()
	n := 0
	for b.Loop() {
		x.Query(queries[n%len(queries)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "queries/s")
}

// tokenLists reads a label list's token sequences at the tokens level,
// leaving out labels the tokenizer rejects.
func tokenLists(p string) [][]string {
	var out [][]string
	dataset.Scan(dataset.Source{Path: p}, func(it dataset.Item) error {
		if t := canon.TokenList(it.Label); t != nil {
			out = append(out, t)
		}
		return nil
	})
	return out
}
