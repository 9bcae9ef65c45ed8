package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/metrics"
)

// bruteNear is every indexed sequence within k of q, the slow way: both
// sequences at least minLen tokens, ordered by distance, then id.
func bruteNear(indexed [][]string, q []string, k, minLen int) []NearMatch {
	if len(q) < minLen {
		return nil
	}
	var out []NearMatch
	for id, s := range indexed {
		if len(s) < minLen {
			continue
		}
		if d := len(s) - len(q); d > k || -d > k {
			continue // the distance is at least the length difference
		}
		if d := metrics.Levenshtein(q, s); d <= k {
			out = append(out, NearMatch{ID: id, Distance: d})
		}
	}
	slices.SortStableFunc(out, func(a, b NearMatch) int { return a.Distance - b.Distance })
	return out
}

// checkNear compares the index with brute force over every query (on every
// core) and returns the number of matching pairs and of queries with one.
func checkNear(t *testing.T, indexed, queries [][]string, k, minLen int) (pairs, matched int) {
	return checkNearWith(t, indexed, queries, k, minLen, func(qi, minLen int) []NearMatch {
		return bruteNear(indexed, queries[qi], k, minLen)
	})
}

// checkNearWith is checkNear with the brute-force answer of query qi
// given by brute.
func checkNearWith(t *testing.T, indexed, queries [][]string, k, minLen int, brute func(qi, minLen int) []NearMatch) (pairs, matched int) {
	t.Helper()
	x := NewNear(k, minLen)
	var ids []int // index id → position in indexed
	for i, s := range indexed {
		if id := x.Add(s); id >= 0 {
			if id != len(ids) {
				t.Fatalf("Add returned id %d, want %d", id, len(ids))
			}
			ids = append(ids, i)
		}
	}
	minLen = x.MinTokens()
	var mu sync.Mutex
	var failure string
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qi := w; qi < len(queries); qi += workers {
				q := queries[qi]
				got := x.Query(q)
				for i := range got {
					got[i].ID = ids[got[i].ID]
				}
				slices.SortStableFunc(got, func(a, b NearMatch) int { return a.Distance - b.Distance })
				want := brute(qi, minLen)
				mu.Lock()
				if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) && failure == "" {
					failure = fmt.Sprintf("k=%d min=%d query %d %q:\nindex %v\nbrute %v", k, minLen, qi, strings.Join(q, " "), got, want)
				}
				if len(want) > 0 {
					matched++
					pairs += len(want)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failure != "" {
		t.Fatal(failure)
	}
	return pairs, matched
}

// edit applies n random token edits (insert, delete or substitute).
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

// TestNearSynthetic: random sequences over small vocabularies (one of them
// of two tokens, so that segments repeat within and across sequences) and
// queries with 0 to 5 planted edits, checked against brute force for K = 0
// to 4 and several minimum lengths.
func TestNearSynthetic(t *testing.T) {
	vocabs := map[string][]string{
		"formula": {"x", "y", "+", "-", "=", "{", "}", "^", "_", "2", `\frac`, `\alpha`},
		"binary":  {"a", "b"},
	}
	for _, name := range []string{"formula", "binary"} {
		vocab := vocabs[name]
		r := rand.New(rand.NewPCG(3, uint64(len(vocab))))
		var indexed [][]string
		for range 500 {
			s := make([]string, 1+r.IntN(30))
			for i := range s {
				s[i] = vocab[r.IntN(len(vocab))]
			}
			indexed = append(indexed, s)
		}
		var queries [][]string
		for range 4000 {
			base := indexed[r.IntN(len(indexed))]
			queries = append(queries, edit(r, base, r.IntN(6), append(vocab, "unknown")))
		}
		if testing.Short() { // the race detector's run
			queries = queries[:500]
		}
		queries = append(queries, nil, []string{"x"}, slices.Repeat([]string{"q"}, 12))
		for _, k := range []int{0, 1, 2, 3, 4} {
			for _, minLen := range []int{1, 8, DefaultNearMin(k)} {
				if name == "binary" && k > 2 {
					continue // every pair is a candidate: brute force with extra steps
				}
				pairs, matched := checkNear(t, indexed, queries, k, minLen)
				t.Logf("%s k=%d min=%d: %d of %d queries matched, %d pairs", name, k, minLen, matched, len(queries), pairs)
				if matched == 0 {
					t.Errorf("%s k=%d: no query matched: the planted edits were not found", name, k)
				}
			}
		}
	}
}

func TestNearEdgeCases(t *testing.T) {
	f := strings.Fields
	tests := []struct {
		name      string
		k, min    int
		indexed   []string
		query     string
		want      []NearMatch
		wantMin   int
		wantAdded []int
	}{
		{name: "empty index", k: 2, min: 1, query: "a b c", wantMin: 3},
		{name: "empty query", k: 2, min: 1, indexed: []string{"a b c"}, query: "", wantMin: 3, wantAdded: []int{0}},
		{name: "K=0 is equality", k: 0, min: 1, indexed: []string{"a b c", "a b d", "a b c"}, query: "a b c",
			wantMin: 1, wantAdded: []int{0, 1, 2}, want: []NearMatch{{0, 0}, {2, 0}}},
		{name: "negative K is 0", k: -3, min: 2, indexed: []string{"a b", "a c"}, query: "a b",
			wantMin: 2, wantAdded: []int{0, 1}, want: []NearMatch{{0, 0}}},
		{name: "minimum raised to K+1", k: 5, min: 2, indexed: []string{"a b", "a b c d e f"}, query: "a b c d e f",
			wantMin: 6, wantAdded: []int{-1, 0}, want: []NearMatch{{0, 0}}},
		{name: "K almost the length", k: 9, min: 1, indexed: []string{"a b c d e f g h i j", "k l m n o p q r s t"},
			query: "a b x x x x x x x x", wantMin: 10, wantAdded: []int{0, 1}, want: []NearMatch{{0, 8}}},
		{name: "K one below the length: disjoint sequences are apart", k: 4, min: 1, indexed: []string{"a b c d e", "f g h i j"},
			query: "v w x y z", wantMin: 5, wantAdded: []int{0, 1}},
		{name: "K larger than a short query: both below the minimum", k: 6, min: 1, indexed: []string{"a b"},
			query: "a", wantMin: 7, wantAdded: []int{-1}},
		{name: "default minimum", k: 2, min: 0, indexed: []string{"a b c d e f g h i j k", "a b c d e f g h i j k l"},
			query: "a b c d e f g h i j k l", wantMin: 12, wantAdded: []int{-1, 0}, want: []NearMatch{{0, 0}}},
		{name: "repeated tokens", k: 2, min: 4, indexed: []string{"a a a a a a", "a a a a", "a a a a a a a a a", "b a a a a a"},
			query: "a a a a a a a", wantMin: 4, wantAdded: []int{0, 1, 2, 3}, want: []NearMatch{{0, 1}, {2, 2}, {3, 2}}},
		{name: "unknown query tokens", k: 2, min: 4, indexed: []string{"a b c d e f"}, query: "a b X d e Y",
			wantMin: 4, wantAdded: []int{0}, want: []NearMatch{{0, 2}}},
		{name: "one edit at each end", k: 2, min: 4, indexed: []string{"a b c d e f"}, query: "z b c d e",
			wantMin: 4, wantAdded: []int{0}, want: []NearMatch{{0, 2}}},
		{name: "query below the minimum", k: 1, min: 5, indexed: []string{"a b c d e"}, query: "a b c d",
			wantMin: 5, wantAdded: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewNear(tt.k, tt.min)
			if x.MinTokens() != tt.wantMin {
				t.Errorf("MinTokens %d, want %d", x.MinTokens(), tt.wantMin)
			}
			var added []int
			for _, s := range tt.indexed {
				added = append(added, x.Add(f(s)))
			}
			if !slices.Equal(added, tt.wantAdded) {
				t.Errorf("Add ids %v, want %v", added, tt.wantAdded)
			}
			got := x.Query(f(tt.query))
			if len(got)+len(tt.want) > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Query %q = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
}

// TestNearAddAfterQuery: adding to an index that has answered queries
// rebuilds its table.
func TestNearAddAfterQuery(t *testing.T) {
	x := NewNear(1, 3)
	x.Add(strings.Fields("a b c d"))
	if got := x.Query(strings.Fields("a b c e")); !reflect.DeepEqual(got, []NearMatch{{0, 1}}) {
		t.Fatalf("first query %v", got)
	}
	x.Add(strings.Fields("a b c e"))
	if got := x.Query(strings.Fields("a b c e")); !reflect.DeepEqual(got, []NearMatch{{1, 0}, {0, 1}}) {
		t.Fatalf("after Add %v", got)
	}
	if !(NearMatch{1, 0}).Exact() || (NearMatch{0, 1}).Exact() {
		t.Error("Exact")
	}
}

// TestNearConcurrentDeterministic: queries from several goroutines give
// what one goroutine gives, in the documented order, and Each reports the
// same set.
func TestNearConcurrentDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := []string{"x", "y", "+", "=", "{", "}", "^", "2"}
	var indexed, queries [][]string
	for range 500 {
		s := make([]string, 8+r.IntN(12))
		for i := range s {
			s[i] = vocab[r.IntN(len(vocab))]
		}
		indexed = append(indexed, s)
	}
	for range 2000 {
		queries = append(queries, edit(r, indexed[r.IntN(len(indexed))], r.IntN(4), vocab))
	}
	x := NewNear(2, 8)
	for _, s := range indexed {
		x.Add(s)
	}
	want := make([][]NearMatch, len(queries))
	for i, q := range queries {
		want[i] = x.Query(q)
		if !slices.IsSortedFunc(want[i], func(a, b NearMatch) int {
			if a.Distance != b.Distance {
				return a.Distance - b.Distance
			}
			return a.ID - b.ID
		}) {
			t.Fatalf("query %d: %v not ordered by distance, then id", i, want[i])
		}
		var each []NearMatch
		x.Each(q, func(id, d int) { each = append(each, NearMatch{id, d}) })
		slices.SortFunc(each, func(a, b NearMatch) int {
			if a.Distance != b.Distance {
				return a.Distance - b.Distance
			}
			return a.ID - b.ID
		})
		if !slices.Equal(each, want[i]) {
			t.Fatalf("query %d: Each %v, Query %v", i, each, want[i])
		}
	}
	// A fresh index queried first from many goroutines at once (the
	// first query builds the table).
	y := NewNear(2, 8)
	for _, s := range indexed {
		y.Add(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(queries); i += 3 {
				if got := y.Query(queries[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("goroutine %d query %d: %v, want %v", g, i, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestNearRealAgainstBruteForce: 1,000 HME100K test labels indexed, every
// HME100K train label (74,502) and 25,498 edited copies of indexed labels
// queried: 100,000 queries, 100,000,000 pairs, each query's answer
// identical to brute force, at K = 2 with minimum lengths 8 and the default
// (12).
func TestNearRealAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	root := shareddata.Dir(t)
	test := tokenLists(t, root+"/labels/hme100k_test_captions.json")
	train := tokenLists(t, root+"/labels/hme100k_train_captions.json")
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
	// Brute force once at the lower minimum; the higher one drops the
	// pairs with a sequence below it.
	brute := make([][]NearMatch, len(queries))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qi := w; qi < len(queries); qi += workers {
				brute[qi] = bruteNear(indexed, queries[qi], 2, 8)
			}
		}()
	}
	wg.Wait()
	for _, minLen := range []int{8, DefaultNearMin(2)} {
		pairs, matched := checkNearWith(t, indexed, queries, 2, minLen, func(qi, minLen int) []NearMatch {
			var out []NearMatch
			if len(queries[qi]) >= minLen {
				for _, m := range brute[qi] {
					if len(indexed[m.ID]) >= minLen {
						out = append(out, m)
					}
				}
			}
			return out
		})
		t.Logf("min %d: %d queries: %d within 2 edits of one of %d test labels (%d pairs), identical to brute force", minLen, len(queries), matched, len(indexed), pairs)
	}
}

// BenchmarkNearQuery: the index alone, the 24,607 HME100K test labels
// indexed at K=2 (default minimum length), queried with the 74,502 train
// labels' token sequences (tokenized beforehand): a training corpus of the
// same benchmark, full of near copies; queries/s on one core.
func BenchmarkNearQuery(b *testing.B) {
	root := shareddata.Dir(b)
	x := NewNear(2, 0)
	for _, s := range tokenLists(b, root+"/labels/hme100k_test_captions.json") {
		x.Add(s)
	}
	queries := tokenLists(b, root+"/labels/hme100k_train_captions.json")
	x.Query(queries[0]) // builds the table
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
func tokenLists(tb testing.TB, p string) [][]string {
	tb.Helper()
	var out [][]string
	if _, err := dataset.Scan(dataset.Source{Path: p}, func(it dataset.Item) error {
		if t := canon.TokenList(it.Label); t != nil {
			out = append(out, t)
		}
		return nil
	}); err != nil {
		tb.Fatalf("read %s: %v", p, err)
	}
	return out
}
