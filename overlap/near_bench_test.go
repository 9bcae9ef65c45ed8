package overlap

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/benchdata"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// BenchmarkOverlapNear is overlap --near 2 end to end, minus the label
// levels' index: 25,000 test labels against 1M and 10M training labels in
// a JSON file, each training label read, tokenized by the CDM tokenizer
// and looked up on every core. Test labels: drawn from the shared test
// lists (HME100K, CROHME 2014/2016/2019, CROHME 2023, MathWriting test);
// training labels: the shared training lists' labels (CROHME, CROHME 2023,
// HME100K train) drawn at random, each with 0, 1 or 2 random edits of its
// space-separated tokens. Without the shared data both come from
// internal/synth's formula grammar. Tokenizing dominates: see canon's
// BenchmarkCanonTokens and index's BenchmarkNear10M for the index alone.
func BenchmarkOverlapNear(b *testing.B) {
	tests, train := benchdata.Labels(b)
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			dir := b.TempDir()
			testPath, trainPath := filepath.Join(dir, "test.json"), filepath.Join(dir, "train.json")
			if err := synth.WriteJSONStrings(testPath, len(tests), func(i int) string { return tests[i] }); err != nil {
				b.Fatal(err)
			}
			if err := benchdata.WriteEdited(trainPath, n, train, 31, 32); err != nil {
				b.Fatal(err)
			}
			job := Job{Tests: []Split{{Name: "test", Source: dataset.Source{Path: testPath}}}, Near: 2, MaxRefs: 10}
			in := []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: trainPath}}}
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				res, _, err := findNear(context.Background(), job, in)
				if err != nil {
					b.Fatal(err)
				}
				el := time.Since(start)
				b.ReportMetric(float64(n)/el.Seconds(), "labels/s")
				b.ReportMetric(el.Seconds()*1e7/float64(n), "s/10M")
				b.Logf("%d training labels in %v: %d of %d considered test items within 2 (%d with edits)", n, el.Round(time.Millisecond),
					res[0].Within, res[0].Considered, res[0].WithEdits)
			}
		})
	}
}
