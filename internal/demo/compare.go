package demo

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/internal/synth"
	"github.com/leakaudit/leakaudit/report"
)

// RunCompare generates the comparison demo under dir/data/compare (three
// models, one of them trained on a corpus holding half of the test
// labels), compares them, writes the report into dir/compare and prints
// the leaderboard. It returns an error unless the comparison finds the
// planted rank flip and no other.
func RunCompare(ctx context.Context, dir, tool string, w io.Writer) (*compare.Comparison, error) {
	cd, err := synth.GenerateCompareDemo(filepath.Join(dir, "data", "compare"), Seed)
	if err != nil {
		return nil, fmt.Errorf("generate the comparison demo: %w", err)
	}
	cfg, err := compare.LoadConfig(cd.Config)
	if err != nil {
		return nil, err
	}
	res, err := compare.Run(ctx, compare.Job{Config: cfg, Tool: tool})
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "compare")
	if err := report.WriteCompare(out, res); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nleakaudit demo: three models compared, one trained on a corpus holding half of the test labels (a planted rank flip)\n\n")
	if err := report.CompareText(w, res, out); err != nil {
		return nil, err
	}
	var bad []string
	if len(res.Flips) != 1 || res.Flips[0].Split != cd.Split || res.Flips[0].Above != cd.Above || res.Flips[0].Below != cd.Below {
		var got []string
		for _, f := range res.Flips {
			got = append(got, fmt.Sprintf("%s: %s above %s", f.Split, f.Above, f.Below))
		}
		bad = append(bad, fmt.Sprintf("flips found %v, planted one: %s: %s above %s on all items, below on clean items", got, cd.Split, cd.Above, cd.Below))
	} else if !res.Flips[0].Clean.Significant {
		bad = append(bad, "the planted flip is not significant on clean items")
	}
	for _, s := range res.Splits {
		for _, m := range s.Models {
			want := cd.BenchSeen
			if m.Model == cd.Above {
				want += cd.Memorized
			}
			if m.SeenLabel != want {
				bad = append(bad, fmt.Sprintf("%s: %d test labels seen in its training data, %d planted", m.Model, m.SeenLabel, want))
			}
		}
	}
	if len(bad) > 0 {
		return res, fmt.Errorf("the comparison demo is wrong: %v", bad)
	}
	fmt.Fprintln(w, "the planted rank flip found, and no other")
	return res, nil
}
