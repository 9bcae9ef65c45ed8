package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/dataset"
)

// checkInputs prints on stderr the format notes of the inputs whose
// format was detected on mixed evidence (a file read as captions although
// some lines are not "name label", say), then reports the inputs read
// only in part as checkComplete does. The notes are also in --json, as
// format_note in each input's stats.
func checkInputs(cmd *cobra.Command, c dataset.Completeness) error {
	for _, n := range c.Notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "leakaudit: format:", n)
	}
	return checkComplete(cmd, c)
}
