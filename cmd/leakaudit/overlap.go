package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/report"
)

func newOverlapCmd() *cobra.Command {
	var (
		in           inputFlags
		train, tests []string
		levels       string
		db, items    string
		asJSON       bool
		maxIDs       int
		allowMissing bool
		rebuild      bool
		workers      int
		salt         string
		near         int
		nearMin      int
		reportDir    string
		nearControls []string
	)
	cmd := &cobra.Command{
		Use:   "overlap --train [NAME=]FILE... --test [NAME=]FILE... [flags]",
		Short: "Count test items whose label occurs in the training corpora",
		Long: `overlap indexes the training corpora (once; the index is reused while the
files are unchanged) and reports, for each test split and canonical level, how
many test items have a label found in the training data: the audit paper's
Table 1.

Levels (--level, comma-separated):
` + levelHelp() + `
Counting follows the published protocol: every test entry counts, duplicates
included; the rate is round(100*found/total, 2). Items that cannot be read
(invalid UTF-8, empty or over-long labels, malformed records) are not in the
total; they are counted and listed with their reasons. A training corpus that
does not exist is an error unless --allow-missing is given.

Inputs are files or folders in any format leakaudit reads (` + formatNames() + `),
detected from the name and content. --items writes per-item evidence (test id,
canonical key, matching training ids) as JSONL, or Parquet for a .parquet name.

--near K also counts the test items with a training label within K token
edits (Levenshtein distance over the tokens level's tokens), streaming the
training labels once. Items shorter than --near-min tokens (default 4(K+1))
are not looked for and are counted. --near-control [NAME=]FILE names label
sets that cannot be in the training corpora (another benchmark of unrelated
origin, or made after the corpora): their near rate, weighted to each split's
lengths, is the chance level the split's rate is read against. With --items,
every row gets the near columns (distance, exact, train_distances) and each
considered item a row at level nearK.`,
		Example: `  # The audit's Table 1 row for CROHME 2014 against CROHME train
  leakaudit overlap --train crohme_train_captions.json --test crohme2014=crohme_2014_captions.json

  # Several splits against a Hugging Face Parquet corpus, as JSON, with evidence
  leakaudit overlap --train tex80m=train.parquet --test a.json --test b/caption.txt \
      --level audit,ws --items matches.parquet --json

  # Near copies (2 token edits) of HME100K test in HME100K train, CROHME 2019 as the control
  leakaudit overlap --train hme100k_train_captions.json --test hme100k_test_captions.json \
      --near 2 --near-control crohme2019=crohme_2019_captions.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(train) == 0 || len(tests) == 0 {
				return fmt.Errorf("give at least one --train and one --test")
			}
			lv, err := canon.ParseLevels(levels)
			if err != nil {
				return err
			}
			if near < 0 {
				return fmt.Errorf("--near %d: want 0 (off) or a positive number of token edits", near)
			}
			if near == 0 && (len(nearControls) > 0 || cmd.Flags().Changed("near-min")) {
				return fmt.Errorf("--near-control and --near-min need --near K")
			}
			job := audit.OverlapJob{Levels: lv, DB: db, IndexOpts: index.Options{Salt: []byte(salt)}, AllowMissing: allowMissing, Rebuild: rebuild,
				MaxRefs: maxIDs, Workers: workers, Tool: toolName(), Progress: progress.New(), Near: near, NearMin: nearMin, Stream: db == "",
				Log: func(f string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), f+"\n", a...) }}
			trainSrc, err := in.sources(train)
			if err != nil {
				return err
			}
			for _, src := range trainSrc {
				job.Train = append(job.Train, index.CorpusInput{Name: src.name, Source: src.Source})
			}
			testSrc, err := in.sources(tests)
			if err != nil {
				return err
			}
			for _, src := range testSrc {
				job.Tests = append(job.Tests, audit.Split{Name: src.name, Source: src.Source})
			}
			controlSrc, err := in.sources(nearControls)
			if err != nil {
				return err
			}
			for _, src := range controlSrc {
				job.NearControls = append(job.NearControls, audit.Split{Name: src.name, Source: src.Source})
			}
			// The near columns only with --near, so that the items file
			// is unchanged without it.
			var iw interface{ Close() error }
			switch {
			case items != "" && near > 0:
				w, err := report.CreateItems[audit.NearItemMatch](items)
				if err != nil {
					return err
				}
				job.Item = func(m audit.ItemMatch) error { return w.Write(audit.NearRow(m)) }
				job.NearItem, iw = w.Write, w
			case items != "":
				w, err := report.CreateItems[audit.ItemMatch](items)
				if err != nil {
					return err
				}
				job.Item, iw = w.Write, w
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rep, err := audit.RunOverlap(ctx, job)
			if iw != nil {
				if cerr := iw.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := report.OverlapText(out, rep); err != nil {
				return err
			}
			if reportDir != "" {
				if err := report.OverlapPage(rep).Write(reportDir); err != nil {
					return err
				}
			}
			if n := rep.Failed(); n > 0 {
				return fmt.Errorf("%d test split(s) could not be read; see test_inputs", n)
			}
			return checkInputs(cmd, rep.Completeness)
		},
	}
	in.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&train, "train", nil, "training corpus, [NAME=]FILE (repeatable)")
	f.StringArrayVar(&tests, "test", nil, "test split, [NAME=]FILE (repeatable)")
	f.StringVar(&levels, "level", "audit,ws", "canonical levels to check, comma-separated: "+canon.LevelNames())
	f.StringVar(&db, "db", "", "index folder (default: under the user cache dir, one per training set)")
	f.StringVar(&items, "items", "", "write per-item evidence to FILE (.jsonl or .parquet)")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON on stdout")
	f.IntVar(&maxIDs, "max-ids", 10, "training ids named per matched item (the count is always complete)")
	f.BoolVar(&allowMissing, "allow-missing", false, "go on when a training corpus does not exist (reported)")
	f.BoolVar(&rebuild, "rebuild", false, "drop the index and build it again")
	f.IntVar(&workers, "workers", 0, "concurrent lookups (default: number of CPUs)")
	f.StringVar(&salt, "salt", "", "the salt of salted fingerprints given as --train")
	f.StringVar(&reportDir, "report", "", "write a self-contained page of the results, DIR/index.html")
	f.IntVar(&near, "near", 0, "also count test items with a training label within this many token edits (tokens level; streams the training labels; 0: off)")
	f.IntVar(&nearMin, "near-min", 0, "shortest token sequence --near considers (default 4(K+1); short formulas collide by chance)")
	f.StringArrayVar(&nearControls, "near-control", nil, "control split for --near, [NAME=]FILE: labels that cannot be in the training corpora (repeatable)")
	return cmd
}
