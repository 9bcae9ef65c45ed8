package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/internal/panics"
)

// tracebackEnv names the environment variable that, when set, makes an
// internal error print its stack trace on stderr (for developers).
const tracebackEnv = "LEAKAUDIT_TRACEBACK"

// jsonError is what every command prints on stdout under --json when it
// fails (exit status 1, 2 or 4) and has printed nothing else, so that a
// script never has to parse stderr.
type jsonError struct {
	Error    string `json:"error"`
	Complete bool   `json:"complete"`  // always false: there are no results
	ExitCode int    `json:"exit_code"` // the process's exit status
	// Kind is "usage" (exit 2: the command line or the configuration is
	// invalid), "error" (exit 1) or "internal" (exit 4: a bug to report).
	Kind    string `json:"kind"`
	Command string `json:"command,omitempty"` // the command, such as "leakaudit overlap"
}

// runCLI runs the command line args (without the program's name) with
// the given stdout and stderr, and returns the exit status: main's whole
// work, callable in process by tests.
//
// An error is reported as one line on stderr ("leakaudit: …") and, under
// --json, as a jsonError on stdout unless the command printed its own
// document. An error found before the command ran (an unknown command or
// flag, a flag's value out of range, arguments, a required flag) is a
// usage error; a panic is recovered as an internal error, its stack
// printed only when LEAKAUDIT_TRACEBACK is set.
func runCLI(args []string, stdout, stderr io.Writer) int {
	return runRoot(newRoot(), args, stdout, stderr)
}

// runRoot is runCLI with the command tree root.
func runRoot(root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	out := &countingWriter{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	root.SetArgs(args)
	var ran *cobra.Command // set when a command's own work starts
	markRun(root, &ran)
	err := executeRecovering(root)
	if err == nil {
		return exitOK
	}
	var ie *panics.Error
	isInternal := errors.As(err, &ie)
	if ran == nil && !isInternal {
		err = usageError{err} // cobra refused the command line
	}
	code := exitCode(err)
	msg := oneLine(err.Error())
	if errors.Is(err, context.Canceled) && !strings.Contains(msg, "interrupt") {
		msg = "interrupted by a signal (SIGINT or SIGTERM): " + msg
	}
	fmt.Fprintln(stderr, "leakaudit:", msg)
	if isInternal && os.Getenv(tracebackEnv) != "" {
		stderr.Write(ie.Stack)
	}
	if code == exitPartial || out.n > 0 {
		return code // the command printed its results (or its own error document)
	}
	cmd := ran
	if cmd == nil {
		cmd, _, _ = root.Find(args)
	}
	if wantsJSON(cmd, ran != nil, args) {
		je := jsonError{Error: msg, ExitCode: code, Kind: errorKind(code)}
		if cmd != nil {
			je.Command = cmd.CommandPath()
		}
		writeJSON(stdout, je)
	}
	return code
}

// markRun wraps the Run and RunE of c and of every command under it so
// that *ran is set to the command when its own work starts: an error
// returned before that is cobra's (parsing, arguments, required flags).
func markRun(c *cobra.Command, ran **cobra.Command) {
	if f := c.RunE; f != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			*ran = cmd
			return f(cmd, args)
		}
	}
	if f := c.Run; f != nil {
		c.Run = func(cmd *cobra.Command, args []string) {
			*ran = cmd
			f(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		markRun(sub, ran)
	}
}

// oneLine puts a message of several lines (cobra's suggestions, joined
// errors) on one: its lines are joined by "; ", a line ending in "?" by a
// space.
func oneLine(msg string) string {
	var b strings.Builder
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			if strings.HasSuffix(b.String(), "?") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// executeRecovering executes root, turning a panic into a *panics.Error.
func executeRecovering(root *cobra.Command) error {
	var err error
	if perr := panics.Catch(func() { err = root.Execute() }); perr != nil {
		return perr
	}
	return err
}

// errorKind names an exit status in a jsonError.
func errorKind(code int) string {
	switch code {
	case exitUsage:
		return "usage"
	case exitInternal:
		return "internal"
	}
	return "error"
}

// wantsJSON reports whether the command line asked for --json: from the
// parsed flag when cobra parsed it, else from the arguments themselves
// (an unknown flag or a value out of range stops the parse early).
func wantsJSON(cmd *cobra.Command, parsed bool, args []string) bool {
	if parsed && cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil {
			return f.Value.String() == "true"
		}
		return false
	}
	want := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" {
			want = true
		} else if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			want = err == nil && b
		}
	}
	return want
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
