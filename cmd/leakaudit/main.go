// Command leakaudit audits the integrity of formula-recognition benchmarks:
// train/test label overlap, image near-duplicates, CDM re-scoring and the
// findings a reviewer would publish.
//
// Run "leakaudit help" for the commands. The command files here only parse
// flags and print; the work is done by the packages under the module root.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "leakaudit:", err)
		os.Exit(exitCode(err))
	}
}
