package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/latex"
	"github.com/leakaudit/leakaudit/report"
)

// inputFlags are the reading options shared by every input of a command.
type inputFlags struct {
	format, field, idField string
	maxLabel               int
	maxFile                int64
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.format, "format", "", "input format for every input (default: detect); one of "+formatNames())
	cmd.Flags().StringVar(&f.field, "field", "", "label field, column or InkML annotation type (default: gt, label, latex_formula, latex, formula, text, caption; InkML: truth, normalizedLabel, label)")
	cmd.Flags().StringVar(&f.idField, "id-field", "", "id field or column (default: img_id, id, name, …; else positions)")
	cmd.Flags().IntVar(&f.maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, "skip labels longer than this many bytes (counted and reported)")
	cmd.Flags().Int64Var(&f.maxFile, "max-file-bytes", dataset.DefaultMaxFileBytes, "refuse an input file larger than this")
}

func formatNames() string {
	var s []string
	for _, f := range dataset.Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

func (f *inputFlags) source(path string) (dataset.Source, error) {
	format, err := dataset.ParseFormat(f.format)
	if err != nil {
		return dataset.Source{}, err
	}
	return dataset.Source{Path: path, Format: format, Field: f.field, IDField: f.idField,
		Limits: dataset.Limits{MaxLabelBytes: f.maxLabel, MaxFileBytes: f.maxFile}}, nil
}

// namedSource is an input given as [NAME=]PATH.
type namedSource struct {
	name string
	dataset.Source
}

// sources parses [NAME=]PATH arguments into sources.
func (f *inputFlags) sources(args []string) ([]namedSource, error) {
	var out []namedSource
	for _, a := range args {
		name, path := splitNamed(a)
		src, err := f.source(path)
		if err != nil {
			return nil, err
		}
		out = append(out, namedSource{name, src})
	}
	return out, nil
}

// splitNamed parses NAME=PATH, or PATH alone, whose name is then the file
// name without extension (for caption.txt, its folder's name).
func splitNamed(arg string) (name, path string) {
	if n, p, ok := strings.Cut(arg, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
		return n, p
	}
	base := filepath.Base(filepath.Clean(arg))
	if strings.EqualFold(base, "caption.txt") {
		base = filepath.Base(filepath.Dir(filepath.Clean(arg)))
	}
	return strings.TrimSuffix(base, filepath.Ext(base)), arg
}

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
canonical key, matching training ids) as JSONL, or Parquet for a .parquet name.`,
		Example: `  # The audit's Table 1 row for CROHME 2014 against CROHME train
  leakaudit overlap --train crohme_train_captions.json --test crohme2014=crohme_2014_captions.json

  # Several splits against a Hugging Face Parquet corpus, as JSON, with evidence
  leakaudit overlap --train tex80m=train.parquet --test a.json --test b/caption.txt \
      --level audit,ws --items matches.parquet --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(train) == 0 || len(tests) == 0 {
				return fmt.Errorf("give at least one --train and one --test")
			}
			lv, err := latex.ParseLevels(levels)
			if err != nil {
				return err
			}
			job := audit.OverlapJob{Levels: lv, DB: db, AllowMissing: allowMissing, Rebuild: rebuild,
				MaxRefs: maxIDs, Workers: workers, Tool: toolName(), Progress: progress.New(),
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
			var iw *report.ItemWriter[audit.ItemMatch]
			if items != "" {
				if iw, err = report.CreateItems[audit.ItemMatch](items); err != nil {
					return err
				}
				job.Item = iw.Write
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
			} else if err := printOverlap(out, rep); err != nil {
				return err
			}
			if n := rep.Failed(); n > 0 {
				return fmt.Errorf("%d test split(s) could not be read; see test_inputs", n)
			}
			return checkComplete(cmd, rep.Completeness)
		},
	}
	in.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&train, "train", nil, "training corpus, [NAME=]FILE (repeatable)")
	f.StringArrayVar(&tests, "test", nil, "test split, [NAME=]FILE (repeatable)")
	f.StringVar(&levels, "level", "audit,ws", "canonical levels to check, comma-separated: "+latex.LevelNames())
	f.StringVar(&db, "db", "", "index folder (default: under the user cache dir, one per training set)")
	f.StringVar(&items, "items", "", "write per-item evidence to FILE (.jsonl or .parquet)")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON on stdout")
	f.IntVar(&maxIDs, "max-ids", 10, "training ids named per matched item (the count is always complete)")
	f.BoolVar(&allowMissing, "allow-missing", false, "go on when a training corpus does not exist (reported)")
	f.BoolVar(&rebuild, "rebuild", false, "drop the index and build it again")
	f.IntVar(&workers, "workers", 0, "concurrent lookups (default: number of CPUs)")
	return cmd
}

func levelHelp() string {
	var b strings.Builder
	for _, l := range latex.Levels() {
		fmt.Fprintf(&b, "  %-7s (%s) %s\n", l.Name, l.Rung, l.Doc)
	}
	return b.String()
}

// printOverlap writes the human report: Table 1, then what was skipped.
func printOverlap(w io.Writer, rep audit.OverlapReport) error {
	var train []string
	for _, t := range rep.Train {
		switch {
		case t.Missing:
			train = append(train, t.Name+" (MISSING)")
		case t.Stats != nil:
			train = append(train, fmt.Sprintf("%s (%d labels)", t.Name, t.Stats.Items))
		}
	}
	fmt.Fprintf(w, "Training corpora: %s\n\n", strings.Join(train, ", "))
	t := report.Table{Header: []string{"split", "level", ">total", ">found in train", ">overlap %", ">unique found"}}
	for _, s := range rep.Splits {
		t.Add(s.Name, s.Level, fmt.Sprint(s.Total), fmt.Sprint(s.Found), s.Rate.String(), fmt.Sprintf("%d/%d", s.UniqueFound, s.Unique))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	var notes []string
	for _, tr := range rep.Train {
		if tr.Stats != nil && (tr.Stats.Skipped > 0 || tr.Stats.FileError != "") {
			notes = append(notes, inputNote("train "+tr.Name, *tr.Stats, ""))
		}
	}
	for _, in := range rep.TestInputs {
		if in.Stats.Skipped > 0 || in.Stats.FileError != "" || in.Error != "" {
			notes = append(notes, inputNote("test "+in.Name, in.Stats, in.Error))
		}
	}
	for _, s := range rep.Splits {
		if s.Failed > 0 {
			notes = append(notes, fmt.Sprintf("%s at %s: %d label(s) could not be tokenized; each matches only a label failing with the same ws key (see leakaudit tokens)", s.Name, s.Level, s.Failed))
		}
	}
	if len(rep.AuditOnly) > 0 {
		notes = append(notes, fmt.Sprintf("%d item(s) match at audit but not at ws: deleting a space glued a control word to a letter (\\alpha b → \\alphab); listed in --json under audit_only", len(rep.AuditOnly)))
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, "note:", n)
		}
	}
	return nil
}

func inputNote(what string, st dataset.Stats, fatal string) string {
	var parts []string
	if fatal != "" {
		parts = append(parts, "could not be read: "+fatal)
	}
	if st.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) skipped (%s)", st.Skipped, st.ReasonSummary()))
	}
	if st.FileError != "" {
		parts = append(parts, "reading stopped early: "+st.FileError)
	}
	return what + ": " + strings.Join(parts, "; ")
}
