// Package panics turns a panic into an error: the command line recovers
// one in its own goroutine, and worker goroutines (whose panics nothing
// else could recover) call through Catch or Call, so that a panic is
// reported as an internal error (exit status 4) and never crashes the
// process with a stack trace.
package panics

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic: what was passed to panic, and the stack of
// the goroutine where it happened.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("internal error: %v (please report)", e.Value)
}

// Catch calls f and returns a panic in it as an *Error, or nil.
func Catch(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Error{Value: v, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

// Call calls f and returns its results, or a panic in it as an *Error.
func Call[T any](f func() (T, error)) (v T, err error) {
	if perr := Catch(func() { v, err = f() }); perr != nil {
		var zero T
		return zero, perr
	}
	return v, err
}
