package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// BenchmarkAllTextMetrics computes every text metric over TAMER's 24,607
// HME100K test pairs in one Compute call; the figure is seconds per pass.
func BenchmarkAllTextMetrics(b *testing.B) {
	data, err := os.ReadFile(shareddata.Path(b, filepath.Join("predictions", "tamer", "hme100k_test.json")))
	if err != nil {
		b.Fatal(err)
	}
	var m map[string]struct {
		Pred string `json:"pred"`
		GT   string `json:"gt"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		b.Fatal(err)
	}
	var gts, preds []string
	var has []bool
	for _, v := range m {
		gts, preds, has = append(gts, v.GT), append(preds, v.Pred), append(has, true)
	}
	for b.Loop() {
		if _, err := Compute(Names, gts, preds, has, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/pass")
	b.ReportMetric(float64(len(gts)), "pairs")
}
