package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// stderrLog returns a run's log callback: one line on the command's stderr.
func stderrLog(cmd *cobra.Command) func(format string, a ...any) {
	return func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", a...) }
}

// configLog returns the log callback of a run configured by a file: one
// line on the command's stderr, the settings it names worded as the
// configuration names them (setting.ConfigArgs).
func configLog(cmd *cobra.Command) func(format string, a ...any) {
	return func(format string, a ...any) {
		fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", setting.ConfigArgs(a)...)
	}
}

// finishReport ends a report command once its run returned result: it
// writes the report folder out with write, prints result as JSON (asJSON)
// or as text with text, and then reports the inputs read only in part.
func finishReport(cmd *cobra.Command, out string, result any, complete dataset.Completeness, asJSON bool,
	write func(dir string) error, text func(w io.Writer, dir string) error) error {
	if err := write(out); err != nil {
		return err
	}
	var err error
	if asJSON {
		err = writeJSON(cmd.OutOrStdout(), result)
	} else {
		err = text(cmd.OutOrStdout(), out)
	}
	if err != nil {
		return err
	}
	return checkInputs(cmd, complete)
}

// configError makes a configuration's invalid value (an
// *audit.ConfigError) a usage error; other errors are returned as they
// are.
func configError(err error) error {
	if errors.As(err, new(*audit.ConfigError)) {
		return usageError{err}
	}
	return err
}

// initCmd is a report command's "init": it prints example, a commented
// configuration; use is the line of the example.
func initCmd(use, example string) *cobra.Command {
	return &cobra.Command{
		Use:     "init",
		Short:   "Print a commented example configuration with every key",
		Example: "  " + use,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(cmd.OutOrStdout(), example)
			return err
		},
	}
}

// reportNames recognizes a report folder's names, with the top folder of
// the configuration's index folder db when it lies inside out.
func reportNames(out, db string, names ...string) func(string) bool {
	names = append([]string(nil), names...)
	if db != "" {
		if rel, err := filepath.Rel(out, db); err == nil && filepath.IsLocal(rel) {
			names = append(names, strings.Split(filepath.ToSlash(rel), "/")[0]+"/")
		}
	}
	return outpath.Names(names...)
}
