package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// toolName returns "leakaudit VERSION", recorded in indexes and reports.
func toolName() string { return "leakaudit " + version }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "leakaudit",
		Short: "Audit formula-recognition benchmarks for train/test leakage",
		Long: `leakaudit checks whether a formula-recognition test set was seen in training.

It canonicalizes LaTeX labels at several levels, from the published TexTeller
audit protocol exactly ("audit") to stronger normalizations ("ws"), indexes
training corpora of tens of millions of labels, and reports for each test
split how many items occur in the training data, with the matching ids.

Exit status:
  0  every input was read completely
  1  an error: the command failed
  2  a usage error: an unknown command or flag, a flag's value out of its
     range, or an invalid configuration value; nothing was read
  3  the command ran but an input was read only in part (a file cut short,
     a record that could not be parsed, a label that is not valid UTF-8,
     an empty input):
     the results are written, the inputs are listed on stderr and under
     "incomplete" in --json, and --allow-partial makes the status 0
  4  an internal error (a bug, please report it): one line on stderr;
     LEAKAUDIT_TRACEBACK=1 adds the stack trace
Records skipped only by a limit you set (--max-label-bytes, --max-pixels,
--max-image-bytes) are counted and reported but do not make the input
partial, except in dedup, where they would be dropped from the release. On an error (1, 2, 4) with --json, stdout holds one JSON object,
{"error": …, "complete": false, "exit_code": N, "kind": …, "command": …},
and stderr the same error as one line.`,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print the version, as leakaudit version does")
	root.PersistentFlags().Bool("allow-partial", false, "exit 0 even when an input was read only in part (it is still reported)")
	root.AddCommand(newVersionCmd(), newOverlapCmd(), newFingerprintCmd(), newNearDupCmd(), newDedupCmd(), newTokensCmd(), newScoreCmd(), newAuditCmd(), newRenderCmd(), newDemoCmd())
	root.AddCommand(newIMEGECmd())
	root.AddCommand(newCompareCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version",
		Example: "  leakaudit version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
		},
	}
}

// versionLine is what "leakaudit version" and "leakaudit --version" print.
func versionLine() string {
	commit := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	return fmt.Sprintf("leakaudit %s (commit %s, %s, %s/%s)", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
