package report

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// WriteScore writes a score run's CDM outputs into dir: metrics_res.json
// in the reference's schema, and items.jsonl and items.parquet with one
// evidence row per pair.
func WriteScore(dir string, res *metrics.ScoreResult, prof cdm.Profile) error {
	pairs, results := res.Pairs, res.Results
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "metrics_res.json"))
	if err != nil {
		return err
	}
	if err := cdm.WriteMetricsRes(f, pairs, results, prof); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, name := range []string{"items.jsonl", "items.parquet"} {
		w, err := CreateItems[cdm.ItemRow](filepath.Join(dir, name))
		if err != nil {
			return err
		}
		for i, r := range results {
			if err := w.Write(cdm.Row(pairs[i], r)); err != nil {
				w.Close()
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// WriteScoreVis draws scored pairs into dir, GT above prediction with their
// matched (green) and unmatched (red) token boxes: the pairs named by ids,
// or the first that are not exact, maxN at most. It returns how many it
// drew.
func WriteScoreVis(dir string, res *metrics.ScoreResult, ids []string, maxN int) (int, error) {
	pairs, results := res.Pairs, res.Results
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	n := 0
	for i, r := range results {
		if n >= maxN {
			break
		}
		if len(ids) > 0 && !want[pairs[i].ID] || len(ids) == 0 && (r.Exact || r.Status != cdm.Scored) {
			continue
		}
		if r.Status != cdm.Scored {
			continue
		}
		name := strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r < ' ' {
				return '_'
			}
			return r
		}, pairs[i].ID)
		if err := WritePNG(filepath.Join(dir, name+".png"), cdm.DrawMatch(r, cdm.Picture(pairs[i].GT), cdm.Picture(pairs[i].Pred))); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
