// Command leakaudit audits the integrity of formula-recognition benchmarks:
// train/test label overlap, image near-duplicates, CDM re-scoring and the
// findings a reviewer would publish.
//
// Run "leakaudit help" for the commands. The command files here only parse
// flags and print; the work is done by the packages under the module root.
//
// For developers: LEAKAUDIT_CPUPROFILE=FILE writes a CPU profile of the run
// to FILE (go tool pprof reads it), and LEAKAUDIT_TRACEBACK=1 prints the
// stack trace of an internal error (exit status 4).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	stop := startProfile(os.Getenv("LEAKAUDIT_CPUPROFILE"))
	code := runCLI(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startProfile starts a CPU profile into path ("" for none) and returns
// the function that ends it.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leakaudit: LEAKAUDIT_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
