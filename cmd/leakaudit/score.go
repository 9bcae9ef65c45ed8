package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/gcpace"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/latex"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/report"
)

func newScoreCmd() *cobra.Command {
	var (
		input, gt, format, field, idField string
		texbleuEmb                        string
		profile, out, vis                 string
		visIDs, metricList                []string
		visMax, workers, maxLabel         int
		limits                            cdm.Limits
		maxFile                           int64
		asJSON                            bool
	)
	var force bool
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
				return usagef("give --input")
			}
			prof, ok := cdm.Profiles[profile]
			if !ok {
				return usagef("unknown --profile %q (one of %s)", profile, strings.Join(names, ", "))
			}
			known := append([]string{"cdm", "texbleu", "imege"}, metrics.Names...)
			for _, m := range metricList {
				if !slices.Contains(known, m) {
					return usagef("--metrics: unknown metric %q (known: %s)", m, strings.Join(known, ", "))
				}
				if m == "texbleu" && texbleuEmb == "" {
					return usagef("--metrics texbleu needs --texbleu-embeddings")
				}
			}
			prof.Limits = limits
			f, err := dataset.ParseFormat(format)
			if err != nil {
				return usageError{fmt.Errorf("--format: %w", err)}
			}
			lim := dataset.Limits{MaxLabelBytes: maxLabel, MaxFileBytes: maxFile}
			job := metrics.ScoreJob{Input: dataset.Source{Path: input, Format: f, Field: field, IDField: idField, Limits: lim},
				Metrics: metricList, Options: metrics.Options{TeXBLEUEmbeddings: texbleuEmb}, Profile: prof, Workers: workers}
			if gt != "" {
				job.GT = &dataset.Source{Path: gt, Limits: lim}
			}
			outs := []outpath.Output{
				{Flag: "--out", Path: out, Dir: true, Inputs: []string{input, gt, texbleuEmb}, Force: force, What: "a score folder", Previous: scoreNames},
				{Flag: "--vis", Path: vis, Dir: true, Inputs: []string{input, gt, texbleuEmb}, Force: force, What: "a folder of drawings", Previous: visNames},
			}
			if vis == out { // both in one folder
				outs = outs[:1]
				outs[0].Previous = outpath.Names("metrics_res.json", "items.jsonl", "items.parquet", "*.png")
			}
			if err := checkOutputs(outs...); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			job.Progress = progress.New()
			pace := gcpace.Start() // fewer collections of the layouts' garbage, memory bounded
			res, err := metrics.RunScore(ctx, job)
			pace()
			if err != nil {
				return err
			}
			if out != "" && res.CDM != nil {
				if err := report.WriteScore(out, res, prof); err != nil {
					return err
				}
			}
			if vis != "" && res.CDM != nil {
				n, err := report.WriteScoreVis(vis, res, visIDs, visMax)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "vis: %d items drawn in %s\n", n, vis)
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), res)
			} else {
				err = report.ScoreText(cmd.OutOrStdout(), res)
			}
			if err != nil {
				return err
			}
			return checkInputs(cmd, res.Completeness)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&input, "input", "", "file of ground truths and predictions (or of predictions alone, with --gt)")
	fl.StringVar(&gt, "gt", "", "ground truths for a file of predictions alone (a model's decode output), joined by id; an item with no prediction is scored as wrong")
	fl.StringVar(&format, "format", "", "input format (default: detected)")
	fl.StringVar(&field, "field", "", "ground-truth field or column (default: gt, label, …)")
	fl.StringVar(&idField, "id-field", "", "id field or column (default: img_id, id, …)")
	fl.StringVar(&profile, "profile", cdm.UniMERNet.Name, "scoring profile: "+strings.Join(names, ", "))
	fl.StringVar(&out, "out", "", "write metrics_res.json (the reference's schema), items.jsonl and items.parquet into DIR")
	addForce(cmd, &force)
	fl.StringVar(&vis, "vis", "", "draw each pair, GT above prediction, with matched (green) and unmatched (red) token boxes, into DIR")
	fl.StringSliceVar(&visIDs, "vis-id", nil, "items to draw (default: the first --vis-max items that are not exact)")
	intFlag(fl, &visMax, "vis-max", 20, 1, math.MaxInt, "items drawn at most")
	intFlag(fl, &workers, "workers", 0, 0, maxWorkers, "scoring goroutines (default: number of CPUs)")
	int64Flag(fl, &maxFile, "max-file-bytes", dataset.DefaultMaxFileBytes, 1, math.MaxInt64, "refuse an input file larger than this")
	intFlag(fl, &limits.MaxFormulaBytes, "max-formula-bytes", cdm.DefaultLimits.MaxFormulaBytes, 1, latex.MaxFormulaBytes, "a longer formula fails with reason \"limits\" (at most the tokenizer's 64 KiB)")
	intFlag(fl, &limits.MaxNesting, "max-nesting", cdm.DefaultLimits.MaxNesting, 1, latex.MaxNesting, "a formula nested deeper (braces and brackets) fails with reason \"limits\" (at most 512)")
	intFlag(fl, &limits.MaxTokens, "max-tokens", cdm.DefaultLimits.MaxTokens, 1, math.MaxInt, "a formula with more coloured tokens fails with reason \"limits\"")
	fl.StringSliceVar(&metricList, "metrics", []string{"cdm"}, "metrics to compute in one pass: cdm, "+strings.Join(metrics.Names, ", ")+" (texbleu needs --texbleu-embeddings; imege renders both sides at 600 dpi, per item in --json)")
	fl.StringVar(&texbleuEmb, "texbleu-embeddings", "", "GPT-2 small's token-embedding table for texbleu: wte as .npy, or a safetensors file with wte.weight (not shipped)")
	intFlag(fl, &maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, 1, math.MaxInt, "skip items whose ground truth is longer (counted and reported); a prediction beyond the tokenizer's limits (64 KiB, nesting 512) or the layout's fails with reason \"limits\" and scores 0")
	fl.BoolVar(&asJSON, "json", false, "print the summary as JSON on stdout")
	return cmd
}
