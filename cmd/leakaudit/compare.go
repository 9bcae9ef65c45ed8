package main

import (
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/report"
)

func newCompareCmd() *cobra.Command {
	var (
		config, out   string
		workers, near int
		maxLabel      int
		asJSON, force bool
	)
	cmd := &cobra.Command{
		Use:   "compare --config compare.yaml --out DIR",
		Short: "Audit a ranking: do the models' ranks hold on items none of them saw?",
		Long: `compare takes two or more models' predictions on the same test splits, each
model's training data (label corpora, image sets or fingerprints; "rules: true"
for a model trained on the benchmark's own training split only) and the
ExpRates reported, and asks what a reviewer of a state-of-the-art claim asks:

  - each model's ExpRate@CDM on all items, on the common clean subset (items
    whose label, near label and image are in none of the models' training
    data) and on its own seen items, with Wilson intervals;
  - its seen gap stratified by label length (Mantel-Haenszel) with its
    interval, and the excess of that gap over each rules: true model's on
    the same items;
  - every pair of models on all items and on clean items: the paired
    difference with Newcombe's interval and an exact McNemar p,
    Holm-adjusted over all comparisons; the ranks, and rank flips.

Every prediction is scored with leakaudit's CDM once (a "score --out" folder
given as cdm: is reused). DIR receives comparison.json, report.md, a
self-contained report.html whose first screen is the leaderboard of each
split, the figures, the items behind each flip drawn as CDM sees them, and
items.parquet (one row per item and model).

The configuration (YAML) is strict, as the audit's: "leakaudit compare init"
prints a commented example of every key (docs/compare.md has the statistics).`,
		Example: `  leakaudit compare init > compare.yaml
  leakaudit compare --config compare.yaml --out compare-report/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" || out == "" {
				return usagef("give --config and --out")
			}
			c, err := compare.LoadConfig(config)
			if err != nil {
				return configError(err)
			}
			if cmd.Flags().Changed("max-label-bytes") {
				c.MaxLabelBytes = maxLabel
			}
			if cmd.Flags().Changed("near") {
				c.Near, c.NearMin = near, 0
			}
			if err := checkOutputs(outpath.Output{Flag: "--out", Path: out, Dir: true, Inputs: append([]string{config}, c.InputPaths()...),
				Force: force, What: "a comparison report", Previous: compareNames(out, c.DB)}); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			res, err := compare.Run(ctx, compare.Job{Config: c, Tool: toolName(), Workers: workers,
				Log: configLog(cmd), Progress: progress.New()})
			if err != nil {
				return setting.ForConfig(err) // settings named as the configuration names them
			}
			return setting.ForConfig(finishReport(cmd, out, res, res.Completeness, asJSON,
				func(dir string) error { return report.WriteCompare(dir, res) },
				func(w io.Writer, dir string) error { return report.CompareText(w, res, dir) }))
		},
	}
	cmd.AddCommand(initCmd("leakaudit compare init > compare.yaml", compare.ExampleConfig))
	fl := cmd.Flags()
	fl.StringVar(&config, "config", "", "comparison configuration (YAML)")
	fl.StringVar(&out, "out", "", "folder for the report")
	intFlag(fl, &workers, "workers", 0, 0, maxWorkers, "goroutines of each stage (CDM scoring, label lookups, image hashing); the stages run in turn (default: number of CPUs)")
	intFlag(fl, &near, "near", 0, 0, math.MaxInt, "also count a label as seen when a training label is within this many token edits (overrides near of the config; 0: off)")
	addForce(cmd, &force)
	fl.BoolVar(&asJSON, "json", false, "print comparison.json on stdout")
	intFlag(fl, &maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, 1, math.MaxInt, "skip items whose label is longer (counted per input; overrides max_label_bytes of the config)")
	return cmd
}

// compareNames recognizes a comparison report folder (and the
// configuration's index folder inside it, as auditNames does).
func compareNames(out, db string) func(string) bool {
	return reportNames(out, db, report.CompareNames...)
}
