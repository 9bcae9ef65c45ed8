package cdm

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// BenchmarkCDMSharedPredictions scores every shared prediction file with
// ground truths (the ten TexTeller splits and TAMER on HME100K test,
// about 131,000 handwritten pairs) in one run, end to end on all CPUs;
// the figure to read is pairs/s. With BenchmarkCDMIm2latexTest (printed)
// it is the benchmark of issue 37's CDM goal.
func BenchmarkCDMSharedPredictions(b *testing.B) {
	files, err := filepath.Glob(filepath.Join(shareddata.Dir(b), "predictions", "texteller", "*.json"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no TexTeller prediction files: %v", err)
	}
	var pairs []Pair
	for _, f := range files {
		pairs = append(pairs, readPairs(b, f)...)
	}
	pairs = append(pairs, readTAMERPairs(b, shareddata.Path(b, filepath.Join("predictions", "tamer", "hme100k_test.json")))...)
	benchEvaluate(b, pairs)
}

// readTAMERPairs reads TAMER's {"name.jpg": {"pred", "gt", "dist"}}
// object, sorted by name.
func readTAMERPairs(tb testing.TB, path string) []Pair {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var raw map[string]struct{ GT, Pred string }
	if err := json.Unmarshal(data, &raw); err != nil {
		tb.Fatal(err)
	}
	out := make([]Pair, 0, len(raw))
	for _, id := range slices.Sorted(maps.Keys(raw)) {
		out = append(out, Pair{ID: id, GT: raw[id].GT, Pred: raw[id].Pred})
	}
	return out
}
