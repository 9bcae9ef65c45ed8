package main

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/overlap"
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
		force        bool
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
				return usagef("give at least one --train and one --test")
			}
			if err := checkNames(namedArgs{"train", train}, namedArgs{"test", tests}); err != nil { // --near-control files of one name are pooled
				return err
			}
			lv, err := canon.ParseLevels(levels)
			if err != nil {
				return usageError{fmt.Errorf("--level: %w", err)}
			}
			if near == 0 && (len(nearControls) > 0 || cmd.Flags().Changed("near-min")) {
				return usagef("--near-control and --near-min need --near K")
			}
			job := overlap.Job{Levels: lv, DB: db, IndexOpts: index.Options{Salt: []byte(salt)}, AllowMissing: allowMissing, Rebuild: rebuild,
				MaxRefs: maxIDs, Workers: workers, Tool: toolName(), Progress: progress.New(), Near: near, NearMin: nearMin, Stream: db == "",
				Log: stderrLog(cmd)}
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
				job.Tests = append(job.Tests, overlap.Split{Name: src.name, Source: src.Source})
			}
			controlSrc, err := in.sources(nearControls)
			if err != nil {
				return err
			}
			for _, src := range controlSrc {
				job.NearControls = append(job.NearControls, overlap.Split{Name: src.name, Source: src.Source})
			}
			var inputs []string
			for _, list := range [][]namedSource{trainSrc, testSrc, controlSrc} {
				for _, s := range list {
					inputs = append(inputs, s.Path)
				}
			}
			if err := checkOutputs(
				outpath.Output{Flag: "--items", Path: items, Inputs: inputs, Force: force, What: "a per-item evidence file", Previous: isItemsFile},
				outpath.Output{Flag: "--report", Path: reportDir, Dir: true, Inputs: inputs, Force: force, What: "a report page folder", Previous: pageNames},
			); err != nil {
				return err
			}
			// The items file is written beside --items and renamed into
			// place when the run succeeds: an interrupted or failed run
			// leaves no partial file, nor truncates an earlier one.
			itemsTmp := ""
			if items != "" {
				if itemsTmp, err = tempBeside(items); err != nil {
					return err
				}
				defer os.Remove(itemsTmp) // gone once renamed into place
			}
			// The near columns only with --near, so that the items file
			// is unchanged without it.
			var iw interface{ Close() error }
			switch {
			case items != "" && near > 0:
				w, err := report.CreateItems[overlap.NearItemMatch](itemsTmp)
				if err != nil {
					return err
				}
				job.Item = func(m overlap.ItemMatch) error { return w.Write(overlap.NearRow(m)) }
				job.NearItem, iw = w.Write, w
			case items != "":
				w, err := report.CreateItems[overlap.ItemMatch](itemsTmp)
				if err != nil {
					return err
				}
				job.Item, iw = w.Write, w
			}
			ctx, stop := interruptContext()
			defer stop()
			rep, err := overlap.Run(ctx, job)
			if iw != nil {
				if cerr := iw.Close(); err == nil {
					err = cerr
				}
				if err == nil {
					err = outpath.Install(itemsTmp, items)
				}
			}
			if err != nil {
				return err
			}
			if reportDir != "" {
				if err := report.OverlapPage(rep).Write(reportDir); err != nil {
					return err
				}
			}
			failed := failedSplits(rep)
			out := cmd.OutOrStdout()
			if asJSON {
				// A failed split's document is the error object too.
				var doc any = rep
				if failed != nil {
					doc = overlapFailure{rep, failed.Error(), exitCode(failed), errorKind(exitCode(failed))}
				}
				if err := writeJSON(out, doc); err != nil {
					return err
				}
			} else if err := report.OverlapText(out, rep); err != nil {
				return err
			}
			if failed != nil {
				return failed
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
	intFlag(f, &maxIDs, "max-ids", 10, 0, math.MaxInt, "training ids named per matched item (the count is always complete)")
	f.BoolVar(&allowMissing, "allow-missing", false, "go on when a training corpus does not exist (reported)")
	f.BoolVar(&rebuild, "rebuild", false, "drop the index and build it again")
	intFlag(f, &workers, "workers", 0, 0, maxWorkers, "concurrent lookups (default: number of CPUs)")
	f.StringVar(&salt, "salt", "", "the salt of salted fingerprints given as --train")
	addForce(cmd, &force)
	f.StringVar(&reportDir, "report", "", "write a self-contained page of the results, DIR/index.html")
	intFlag(f, &near, "near", 0, 0, math.MaxInt, "also count test items with a training label within this many token edits (tokens level; streams the training labels; 0: off)").describe("0 (off) or a positive number of token edits")
	intFlag(f, &nearMin, "near-min", 0, 1, math.MaxInt, "shortest token sequence --near considers (default 4(K+1); short formulas collide by chance)")
	f.StringArrayVar(&nearControls, "near-control", nil, "control split for --near, [NAME=]FILE: labels that cannot be in the training corpora (repeatable)")
	return cmd
}

// overlapFailure is overlap's --json document when a test split could not
// be read: the results of the others, with the error object's fields.
type overlapFailure struct {
	overlap.Report
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
	Kind     string `json:"kind"`
}

// failedSplits returns the error of the test splits that could not be
// read at all, with each one's reason, or nil.
func failedSplits(rep overlap.Report) error {
	var reasons []string
	for _, in := range rep.TestInputs {
		if in.Error != "" {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %s", in.Name, in.Path, in.Error))
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	return fmt.Errorf("%d test split(s) could not be read: %s", len(reasons), strings.Join(reasons, "; "))
}
