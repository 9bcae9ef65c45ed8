package fingerprint_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// BenchmarkFingerprintLabels fingerprints 1M synthetic labels (the label
// index benchmark's generator) at the audit and ws levels, with each
// row's token count, on every core; the figure to read is labels/s.
func BenchmarkFingerprintLabels(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	corpus := filepath.Join(dir, "train.json")
	g := synth.New(1)
	if err := synth.WriteJSONStrings(corpus, n, func(int) string { return g.Formula() }); err != nil {
		b.Fatal(err)
	}
	levels, err := canon.ParseLevels("audit,ws")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		res, err := fingerprint.Write(filepath.Join(dir, fmt.Sprint("fp", i, ".parquet")),
			[]fingerprint.Input{{Name: "train", Source: dataset.Source{Path: corpus}}}, fingerprint.Options{Levels: levels})
		if err != nil {
			b.Fatal(err)
		}
		if res.Inputs[0].Rows != n {
			b.Fatalf("%d rows, want %d", res.Inputs[0].Rows, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "labels/s")
}
