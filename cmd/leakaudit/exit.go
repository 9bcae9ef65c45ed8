package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/panics"
)

// Exit statuses. They are documented in the root command's help and the
// README: a script can tell an audit of every record from one of a part.
const (
	exitOK       = 0 // every input was read completely
	exitError    = 1 // the command failed
	exitUsage    = 2 // the command line or the configuration is invalid; nothing was read
	exitPartial  = 3 // the command ran, but an input was read only in part
	exitInternal = 4 // an internal error (a recovered panic): a bug to report
)

// errPartial is returned by a command whose results are written but whose
// inputs were read only in part; main exits with exitPartial.
type errPartial struct{ n int }

func (e errPartial) Error() string {
	return fmt.Sprintf("%d input(s) read only in part (listed above and under \"incomplete\" in --json); the results cover what was read; --allow-partial accepts this", e.n)
}

// usageError marks an error in the command line or the configuration
// (a flag's value out of range, an unknown level, a configuration value):
// main exits with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCode maps a command's error to the process status.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(errPartial)):
		return exitPartial
	case errors.As(err, new(*panics.Error)): // a recovered panic
		return exitInternal
	case errors.As(err, new(usageError)):
		return exitUsage
	}
	return exitError
}

// checkComplete reports the inputs read only in part on stderr and returns
// errPartial unless --allow-partial was given. Call it after the results
// are printed and written: partial results are still results.
func checkComplete(cmd *cobra.Command, c dataset.Completeness) error {
	if len(c.Incomplete) == 0 {
		return nil
	}
	for _, s := range c.Incomplete {
		fmt.Fprintln(cmd.ErrOrStderr(), "leakaudit: partial input:", s)
	}
	if allow, _ := cmd.Flags().GetBool("allow-partial"); allow {
		return nil
	}
	return errPartial{len(c.Incomplete)}
}
