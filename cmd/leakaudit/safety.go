package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/internal/outpath"
)

// interruptContext is cancelled by SIGINT (Ctrl-C) or SIGTERM: a command
// stops, removes what it had written beside its output, and exits with an
// error. A second signal kills the process as usual.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// forceHelp is the --force flag's help, the same on every command.
const forceHelp = "replace an existing output that is not a previous output of this command (an input is never replaced)"

// addForce registers --force on cmd.
func addForce(cmd *cobra.Command, force *bool) {
	cmd.Flags().BoolVar(force, "force", false, forceHelp)
}

// checkOutputs checks every output a command is about to write (see
// package outpath), before it reads anything.
func checkOutputs(outs ...outpath.Output) error {
	for _, o := range outs {
		if err := outpath.Check(o); err != nil {
			return err
		}
	}
	return nil
}
