// Package benchdata gives benchmarks their inputs: the shared data's
// labels when present, else synthetic formulas.
package benchdata

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// Labels returns 25,000 test labels and the training labels a training
// corpus is drawn from: from the shared data, the test splits' labels
// shuffled with a fixed seed and the training splits' labels; without
// it, synthetic formulas (25,000 and 100,000).
func Labels(tb testing.TB) (tests, train []string) {
	tb.Helper()
	root := shareddata.Find()
	if root == "" {
		g := synth.New(29)
		for range 25_000 {
			tests = append(tests, g.Formula())
		}
		for range 100_000 {
			train = append(train, g.Formula())
		}
		return tests, train
	}
	read := func(name string) []string {
		var out []string
		p := filepath.Join(root, "labels", name)
		if _, err := dataset.Scan(dataset.Source{Path: p}, func(it dataset.Item) error {
			out = append(out, it.Label)
			return nil
		}); err != nil {
			tb.Fatalf("read %s: %v", p, err)
		}
		return out
	}
	for _, n := range []string{"hme100k_test_captions.json", "crohme_2014_captions.json", "crohme_2016_captions.json",
		"crohme_2019_captions.json", "crohme2023_test_captions.json", "mathwriting_test_captions.json"} {
		tests = append(tests, read(n)...)
	}
	r := rand.New(rand.NewPCG(17, 18))
	r.Shuffle(len(tests), func(i, j int) { tests[i], tests[j] = tests[j], tests[i] })
	for _, n := range []string{"crohme_train_captions.json", "crohme2023_train_captions.json", "hme100k_train_captions.json"} {
		train = append(train, read(n)...)
	}
	return tests[:25_000], train
}

// WriteEdited writes n training labels to path as a JSON list of strings:
// each a label of train drawn at random (PCG seeded with seed1, seed2)
// with 0, 1 or 2 random edits of its space-separated tokens (a token
// inserted, deleted or replaced by one of the first 1,000 labels'); a
// label left without tokens is "x".
func WriteEdited(path string, n int, train []string, seed1, seed2 uint64) error {
	r := rand.New(rand.NewPCG(seed1, seed2))
	var vocab []string
	for _, l := range train[:1000] {
		vocab = append(vocab, strings.Fields(l)...)
	}
	return synth.WriteJSONStrings(path, n, func(int) string {
		t := strings.Fields(train[r.IntN(len(train))])
		for range r.IntN(3) {
			if len(t) == 0 {
				break
			}
			switch p := r.IntN(len(t)); r.IntN(3) {
			case 0:
				t = append(t[:p], append([]string{vocab[r.IntN(len(vocab))]}, t[p:]...)...)
			case 1:
				t = append(t[:p], t[p+1:]...)
			default:
				t[p] = vocab[r.IntN(len(vocab))]
			}
		}
		if len(t) == 0 {
			return "x"
		}
		return strings.Join(t, " ")
	})
}
