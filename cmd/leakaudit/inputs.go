package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/spf13/cobra"
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
	intFlag(cmd.Flags(), &f.maxLabel, "max-label-bytes", dataset.DefaultMaxLabelBytes, 1, math.MaxInt, "skip labels longer than this many bytes (counted and reported)")
	int64Flag(cmd.Flags(), &f.maxFile, "max-file-bytes", dataset.DefaultMaxFileBytes, 1, math.MaxInt64, "refuse an input file larger than this")
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
		return dataset.Source{}, usageError{fmt.Errorf("--format: %w", err)}
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

func levelHelp() string {
	var b strings.Builder
	for _, l := range canon.Levels() {
		fmt.Fprintf(&b, "  %-7s (%s) %s\n", l.Name, l.Rung, l.Doc)
	}
	return b.String()
}

// uniqueNames refuses two arguments of one flag that get the same name
// (given as NAME=, or taken from the file name): their results could not
// be told apart. The error is a usage error naming the flag.
func uniqueNames(flag string, args []string) error {
	paths := map[string]string{}
	for _, a := range args {
		name, path := splitNamed(a)
		if first, dup := paths[name]; dup {
			return usagef("--%s: two inputs are named %q (%s and %s); give each its own name as NAME=PATH", flag, name, first, path)
		}
		paths[name] = path
	}
	return nil
}

// checkNames applies uniqueNames to each flag's arguments in turn.
func checkNames(lists ...namedArgs) error {
	for _, l := range lists {
		if err := uniqueNames(l.flag, l.args); err != nil {
			return err
		}
	}
	return nil
}

// namedArgs are the [NAME=]PATH arguments of one repeatable flag.
type namedArgs struct {
	flag string
	args []string
}
