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

// synthCorpus writes n synthetic labels (the label index benchmark's
// generator) to a JSON list in a temporary folder and returns the folder,
// the file and the levels audit and ws.
func synthCorpus(b *testing.B, n int) (dir, corpus string, levels []canon.Level) {
	dir = b.TempDir()
	corpus = filepath.Join(dir, "train.json")
	g := synth.New(1)
	if err := synth.WriteJSONStrings(corpus, n, func(int) string { return g.Formula() }); err != nil {
		b.Fatal(err)
	}
	levels, err := canon.ParseLevels("audit,ws")
	if err != nil {
		b.Fatal(err)
	}
	return dir, corpus, levels
}

// BenchmarkFingerprintLabels fingerprints 1M synthetic labels (the label
// index benchmark's generator) at the audit and ws levels, with each
// row's token count, on every core; the figure to read is labels/s.
func BenchmarkFingerprintLabels(b *testing.B) {
	const n = 1_000_000
	dir, corpus, levels := synthCorpus(b, n)
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

// BenchmarkScanKeys reads the corpus, id and two keys of every row of a
// fingerprint of 500k synthetic labels, row by row (Scan) and column by
// column (ScanKeys); the figure to read is rows/s.
func BenchmarkScanKeys(b *testing.B) {
	const n = 500_000
	dir, corpus, levels := synthCorpus(b, n)
	fp := filepath.Join(dir, "fp.parquet")
	if _, err := fingerprint.Write(fp, []fingerprint.Input{{Name: "train", Source: dataset.Source{Path: corpus}}}, fingerprint.Options{Levels: levels}); err != nil {
		b.Fatal(err)
	}
	ids := []canon.LevelID{levels[0].ID, levels[1].ID}
	b.Run("Scan", func(b *testing.B) {
		for b.Loop() {
			rows := 0
			if _, err := fingerprint.Scan(fp, func(r fingerprint.Row) error {
				if _, ok := r.Key(ids[1]); ok {
					rows++
				}
				return nil
			}); err != nil || rows != n {
				b.Fatal(rows, err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("ScanKeys", func(b *testing.B) {
		for b.Loop() {
			rows := 0
			if _, err := fingerprint.ScanKeys(fp, ids, func(k *fingerprint.KeyRow) error {
				if k.Has[1] {
					rows++
				}
				return nil
			}); err != nil || rows != n {
				b.Fatal(rows, err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
