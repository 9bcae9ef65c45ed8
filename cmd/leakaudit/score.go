package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/report"
)

func newScoreCmd() *cobra.Command {
	var (
		input, format, field, idField string
		profile, out, vis             string
		visIDs, metricList            []string
		visMax, workers, maxLabel     int
		limits                        cdm.Limits
		maxFile                       int64
		asJSON                        bool
	)
	var names []string
	for n := range cdm.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var help strings.Builder
	for _, n := range names {
		fmt.Fprintf(&help, "  %-13s %s\n", n, cdm.Profiles[n].Help())
	}
	cmd := &cobra.Command{
		Use:   "score --input FILE [flags]",
		Short: "Score predictions with CDM (Character Detection Matching), no TeX needed",
		Long: `score computes CDM, the image-level formula recognition metric, and
ExpRate@CDM for a file of (ground truth, prediction) pairs, as the reference
implementation (UniMERNet cdm/) does, without pdflatex, Ghostscript or node:
leakaudit reproduces the reference's tokenizer and colouring, lays formulas out
with its own TeX engine over TeX's font metrics, and matches per-token boxes.

Profiles:
` + help.String() + `
Items the engine cannot lay out (a construct it does not model) are left out
and counted as "unsupported" with the construct, never scored as failures of
the prediction. A ground truth that fails is left out of the mean, as in the
reference, and counted. Input: any format of leakaudit's readers with a
prediction field (JSON arrays of {img_id, gt, pred}, JSONL, CSV, Parquet).`,
		Example: `  leakaudit score --input texteller/crohme_2014.json --out cdm-2014/
  leakaudit score --input preds.jsonl --profile strict --json
  leakaudit score --input preds.json --out res/ --vis res/vis --vis-max 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return fmt.Errorf("give --input")
			}
			prof, ok := cdm.Profiles[profile]
			if !ok {
				return fmt.Errorf("unknown --profile %q (one of %s)", profile, strings.Join(names, ", "))
			}
			prof.Limits = limits
			f, err := dataset.ParseFormat(format)
			if err != nil {
				return err
			}
			var pairs []cdm.Pair
			var gts, preds []string
			var has []bool
			noPred := 0
			st, err := dataset.Scan(dataset.Source{Path: input, Format: f, Field: field, IDField: idField, Limits: dataset.Limits{MaxLabelBytes: maxLabel, MaxFileBytes: maxFile}}, func(it dataset.Item) error {
				gts, preds, has = append(gts, it.Label), append(preds, it.Pred), append(has, it.HasPred)
				if !it.HasPred {
					noPred++
					return nil
				}
				pairs = append(pairs, cdm.Pair{ID: it.ID, GT: it.Label, Pred: it.Pred})
				return nil
			})
			if err != nil {
				return err
			}
			if len(pairs) == 0 {
				return fmt.Errorf("%s: no items with a prediction (%d items read, %d without prediction)", input, st.Items, noPred)
			}
			wantCDM := false
			var textNames []string
			for _, m := range metricList {
				if m == "cdm" {
					wantCDM = true
				} else {
					textNames = append(textNames, m)
				}
			}
			text, err := metrics.Compute(textNames, gts, preds, has)
			if err != nil {
				return err
			}
			var results []cdm.Result
			if wantCDM {
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
				defer stop()
				bar := progress.New()
				bar.Start("CDM", int64(len(pairs)))
				results, err = cdm.Evaluate(ctx, pairs, prof, workers, func() { bar.Add(1) })
				bar.Done()
				if err != nil {
					return err
				}
			}
			sum := cdm.Summarize(results, prof)
			if out != "" && wantCDM {
				if err := writeScore(out, pairs, results, prof); err != nil {
					return err
				}
			}
			if vis != "" && wantCDM {
				n, err := writeVis(vis, pairs, results, visIDs, visMax)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "vis: %d items drawn in %s\n", n, vis)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				out := struct {
					Input   string          `json:"input"`
					Skipped int             `json:"skipped_without_prediction"`
					Summary *cdm.Summary    `json:"cdm,omitempty"`
					Text    []metrics.Value `json:"text_metrics,omitempty"`
					Read    dataset.Stats   `json:"read"`
				}{Input: input, Skipped: noPred, Text: text, Read: st}
				if wantCDM {
					out.Summary = &sum
				}
				return enc.Encode(out)
			}
			if len(text) > 0 {
				t := report.Table{Header: []string{"metric", ">value", ">items", ">missing"}}
				for _, v := range text {
					t.Add(v.Name, fmt.Sprintf("%.6f", v.Value), fmt.Sprint(v.N), fmt.Sprint(v.Missing))
				}
				if err := t.Write(w); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
			if !wantCDM {
				return nil
			}
			return printScore(w, input, sum, noPred, st)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&input, "input", "", "file of ground truths and predictions")
	fl.StringVar(&format, "format", "", "input format (default: detected)")
	fl.StringVar(&field, "field", "", "ground-truth field or column (default: gt, label, …)")
	fl.StringVar(&idField, "id-field", "", "id field or column (default: img_id, id, …)")
	fl.StringVar(&profile, "profile", cdm.UniMERNet.Name, "scoring profile: "+strings.Join(names, ", "))
	fl.StringVar(&out, "out", "", "write metrics_res.json (the reference's schema), items.jsonl and items.parquet into DIR")
	fl.StringVar(&vis, "vis", "", "draw each pair, GT above prediction, with matched (green) and unmatched (red) token boxes, into DIR")
	fl.StringSliceVar(&visIDs, "vis-id", nil, "items to draw (default: the first --vis-max items that are not exact)")
	fl.IntVar(&visMax, "vis-max", 20, "items drawn at most")
	fl.IntVar(&workers, "workers", 0, "scoring goroutines (default: number of CPUs)")
	fl.Int64Var(&maxFile, "max-file-bytes", dataset.DefaultMaxFileBytes, "refuse an input file larger than this")
	fl.IntVar(&limits.MaxFormulaBytes, "max-formula-bytes", cdm.DefaultLimits.MaxFormulaBytes, "a longer formula fails with reason \"limits\" (at most the tokenizer's 64 KiB)")
	fl.IntVar(&limits.MaxNesting, "max-nesting", cdm.DefaultLimits.MaxNesting, "a formula nested deeper (braces and brackets) fails with reason \"limits\" (at most 512)")
	fl.IntVar(&limits.MaxTokens, "max-tokens", cdm.DefaultLimits.MaxTokens, "a formula with more coloured tokens fails with reason \"limits\"")
	fl.StringSliceVar(&metricList, "metrics", []string{"cdm"}, "metrics to compute in one pass: cdm, "+strings.Join(metrics.Names, ", ")+" (texbleu reports that it is unavailable; imege renders both sides at 600 dpi, per item in --json)")
	fl.IntVar(&maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, "skip items whose ground truth is longer (counted and reported); a prediction beyond the tokenizer's limits (64 KiB, nesting 512) or the layout's fails with reason \"limits\" and scores 0")
	fl.BoolVar(&asJSON, "json", false, "print the summary as JSON on stdout")
	return cmd
}

func writeScore(dir string, pairs []cdm.Pair, results []cdm.Result, prof cdm.Profile) error {
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
		w, err := report.CreateItems[cdm.ItemRow](filepath.Join(dir, name))
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

func writeVis(dir string, pairs []cdm.Pair, results []cdm.Result, ids []string, maxN int) (int, error) {
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
		if err := report.WritePNG(filepath.Join(dir, name+".png"), cdm.DrawMatch(r, cdm.Picture(pairs[i].GT), cdm.Picture(pairs[i].Pred))); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func printScore(w io.Writer, input string, s cdm.Summary, noPred int, st dataset.Stats) error {
	fmt.Fprintf(w, "CDM (%s profile) on %s\n\n", s.Profile, input)
	t := report.Table{Header: []string{"pairs", ">counted", ">mean F1", ">ExpRate@CDM", ">exact", ">pred failed", ">GT failed (left out)", ">unsupported (left out)"}}
	rate := 0.0
	if s.Counted > 0 {
		rate = 100 * float64(s.Exact) / float64(s.Counted) // unrounded, unlike metrics_res.json's exp_rate
	}
	t.Add(fmt.Sprint(s.Pairs), fmt.Sprint(s.Counted), fmt.Sprintf("%.3f", s.MeanScore), fmt.Sprintf("%.2f%%", rate),
		fmt.Sprint(s.Exact), fmt.Sprint(s.PredFailed), fmt.Sprint(s.GTFailed), fmt.Sprint(s.Unsupported))
	if err := t.Write(w); err != nil {
		return err
	}
	if s.Approximate > 0 {
		fmt.Fprintf(w, "\n%d pair(s) scored on an approximate layout (CJK glyph metrics).\n", s.Approximate)
	}
	if noPred > 0 || st.Skipped > 0 {
		fmt.Fprintf(w, "\nskipped while reading: %d without prediction, %d unreadable\n", noPred, st.Skipped)
	}
	if r := s.ReasonList(); len(r) > 0 {
		fmt.Fprintln(w, "\nfailures and unsupported constructs:")
		for i, x := range r {
			if i == 15 {
				fmt.Fprintf(w, "  … %d more (see --json)\n", len(r)-15)
				break
			}
			fmt.Fprintln(w, "  "+x)
		}
	}
	return nil
}
