package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/demo"
)

func newDemoCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run an overlap audit on a built-in synthetic benchmark",
		Long: `demo generates a small synthetic benchmark (two training corpora, one of them a
Hugging Face-style Parquet file, and two test splits with planted copies of
training labels: exact, respaced, wrapped in $…$, and the \alpha b / \alphab
false-merge case), audits it at the raw, audit and ws levels, and checks that
exactly the planted copies are found. It needs no data and no network.`,
		Example: "  leakaudit demo --dir demo-report",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			_, err := demo.Run(ctx, dir, toolName(), cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "demo-report", "folder for the generated data, index and results")
	return cmd
}
