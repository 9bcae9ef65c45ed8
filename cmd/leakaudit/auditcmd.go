package main

import (
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/report"
)

func newAuditCmd() *cobra.Command {
	var (
		config, out string
		workers     int
		maxLabel    int
		asJSON      bool
	)
	var force bool
	cmd := &cobra.Command{
		Use:   "audit --config audit.yaml --out DIR",
		Short: "Audit a model's benchmark results: inversions, reversals, contamination, memorized label errors",
		Long: `audit takes a model's predictions on the splits of its benchmarks, the
training corpora it may have seen and the ExpRates its authors reported, and
writes the evidence a reviewer would publish:

  split_inversion           a split scoring significantly above one that should
                            be easier (train below val or test), by ExpRate@CDM
                            with Newcombe intervals and Holm-adjusted tests
  cdm_reversal              a reported text ExpRate above the measured
                            ExpRate@CDM's 95% bound, or items string-exact but
                            CDM < 1
  contamination_gap         test items whose label is in a training corpus
                            recognised significantly more often than the others
                            (with a length-stratified Mantel-Haenszel estimate)
  error_label_memorization  predictions reproducing ground-truth labels known to
                            be wrong (a corrections file)

Every prediction is scored with leakaudit's CDM (no TeX needed) and its text
ExpRate at the audit level. DIR receives findings.json, report.md, a
self-contained report.html, per-item evidence (items.parquet, items.jsonl) and
the figures; every input is listed with its size and sha256.

The configuration (YAML) is strict: an unknown key, format, role, level or
profile is an error naming its line, and paths are relative to the file.
"leakaudit audit init" prints a commented example of every key.`,
		Example: `  leakaudit audit init > audit.yaml
  leakaudit audit --config texteller.yaml --out texteller-report/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" || out == "" {
				return usagef("give --config and --out")
			}
			c, err := audit.LoadConfig(config)
			if err != nil {
				return configError(err)
			}
			if cmd.Flags().Changed("max-label-bytes") {
				c.MaxLabelBytes = maxLabel
			}
			if err := checkOutputs(outpath.Output{Flag: "--out", Path: out, Dir: true, Inputs: append([]string{config}, c.InputPaths()...),
				Force: force, What: "an audit report", Previous: auditNames(out, c.DB)}); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			f, err := audit.Run(ctx, audit.Job{Config: c, Tool: toolName(), Workers: workers,
				Log: configLog(cmd), Progress: progress.New()})
			if err != nil {
				return setting.ForConfig(err) // settings named as the configuration names them
			}
			return setting.ForConfig(finishReport(cmd, out, f, f.Completeness, asJSON,
				func(dir string) error { return report.WriteAudit(dir, f) },
				func(w io.Writer, dir string) error { return report.AuditText(w, f, dir) }))
		},
	}
	cmd.AddCommand(initCmd("leakaudit audit init > audit.yaml", audit.ExampleConfig))
	fl := cmd.Flags()
	fl.StringVar(&config, "config", "", "audit configuration (YAML)")
	fl.StringVar(&out, "out", "", "folder for the report")
	intFlag(fl, &workers, "workers", 0, 0, maxWorkers, "goroutines of each stage (CDM scoring, label lookups, image hashing, reading the splits); the stages run in turn, but the training corpora and the corrections file are checksummed on one more goroutine while the splits are read (default: number of CPUs)")
	addForce(cmd, &force)
	fl.BoolVar(&asJSON, "json", false, "print findings.json on stdout")
	intFlag(fl, &maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, 1, math.MaxInt, "skip items whose label is longer (counted per input; overrides max_label_bytes of the config); predictions beyond the tokenizer's limits fail with reason \"limits\"")
	return cmd
}
