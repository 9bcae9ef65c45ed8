package cdm

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/gcpace"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// BenchmarkCDMMathWritingValid scores the 15,670 TexTeller pairs of
// MathWriting valid end to end (tokenizer, layout, boxes, matching) on
// all CPUs; the figure to read is pairs/s. The reference costs about
// 1.5 CPU-seconds per pair (docs/cdm.md §15).
func BenchmarkCDMMathWritingValid(b *testing.B) {
	benchEvaluate(b, readPairs(b, shareddata.Path(b, filepath.Join("predictions", "texteller", "mathwriting_valid.json"))))
}

// benchEvaluate scores pairs on all CPUs per iteration and reports pairs/s.
//
// The collector is paced as `score` and the audit pace it while they
// score (internal/gcpace), so the figure is the commands' rate; GOGC=100
// in the environment measures the default pacing instead.
func benchEvaluate(b *testing.B, pairs []Pair) {
	defer gcpace.Start()()
	n := 0
	for b.Loop() {
		if _, err := Evaluate(context.Background(), pairs, UniMERNet, 0, nil); err != nil {
			b.Fatal(err)
		}
		n += len(pairs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkScorePair is one core's cost of a typical pair.
func BenchmarkScorePair(b *testing.B) {
	p := Pair{GT: `\frac { a + b } { c ^ { 2 } } = \sqrt { x _ { 1 } ^ { 2 } + x _ { 2 } ^ { 2 } }`, Pred: `\frac{a+b}{c^{3}}=\sqrt{x_1^2+x_2^2}`}
	for b.Loop() {
		ScorePair(p, UniMERNet)
	}
}
