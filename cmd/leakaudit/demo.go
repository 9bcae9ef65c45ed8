package main

import (
	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/internal/demo"
	"github.com/leakaudit/leakaudit/internal/outpath"
)

func newDemoCmd() *cobra.Command {
	var (
		dir   string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the overlap audit and a full model audit on built-in synthetic benchmarks",
		Long: `demo generates a small synthetic benchmark (two training corpora, one of them a
Hugging Face-style Parquet file, and two test splits with planted copies of
training labels: exact, respaced, wrapped in $…$, and the \alpha b / \alphab
false-merge case), audits it at the raw, audit and ws levels, and checks that
exactly the planted copies are found. It then cleans the two training corpora
against the test splits (dedup) and checks that exactly the planted sources are
removed, each corpus is rewritten in its own format, and a second clean
removes nothing.

It then audits a synthetic model: a training corpus, train/val/test prediction
files in which some test labels were copied from the training corpus and ten
test labels are wrong (the wrong labels are in the training corpus too, and a
corrections file names them), and a "model" that recognises what it saw in
training and 70% of the rest and reproduces six of the wrong labels. The
audit scores every prediction with CDM, looks the labels up, and writes the
report into DIR/audit; the demo fails unless every planted contamination and
label error is found and nothing else.

Last, it compares three synthetic models (leakaudit compare), one of them
trained on a corpus that holds half of the test labels: it leads on all items
and falls behind a model trained by the benchmark's rules on the items neither
saw. The report goes into DIR/compare; the demo fails unless exactly that rank
flip is found. It needs no data and no network.`,
		Example: "  leakaudit demo --dir demo-report",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutputs(outpath.Output{Flag: "--dir", Path: dir, Dir: true, Force: force, What: "a demo folder", Previous: demoNames}); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			res, err := demo.Run(ctx, dir, toolName(), cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if _, err := demo.RunDedup(ctx, dir, toolName(), res.Bench, cmd.OutOrStdout()); err != nil {
				return err
			}
			if _, err := demo.RunModelAudit(ctx, dir, toolName(), cmd.OutOrStdout()); err != nil {
				return err
			}
			_, err = demo.RunCompare(ctx, dir, toolName(), cmd.OutOrStdout())
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "demo-report", "folder for the generated data, index and results")
	addForce(cmd, &force)
	return cmd
}
