// Package setting names, in errors, the settings both of leakaudit's
// interfaces share: the command line's flags (--field) and the keys of the
// audit and compare configuration files (field:).
//
// A library error that asks the user to change a setting is made with
// [Errorf] and names it by a [Key] argument. Its message names the setting
// as the command line does, so the commands print it unchanged; a run
// driven by a configuration file passes its error through [ForConfig],
// which names every setting as the configuration does. That works through
// wrapping: fmt.Errorf's %w copies the wrapped message whole, so each
// *Error's command-line message is found in the outer one and replaced by
// its configuration wording.
package setting

import (
	"errors"
	"fmt"
	"strings"
)

// Key is one setting: its flag, its configuration key (when the
// configuration files have one) and words for it that need neither.
type Key struct {
	flag  string // "--field"
	key   string // "field", or "" when no configuration file has the setting
	words string // "the label field"
}

// The settings library errors name.
var (
	Field        = Key{"--field", "field", "the label field"}
	Format       = Key{"--format", "format", "the input format"}
	DB           = Key{"--db", "db", "the index folder"}
	Near         = Key{"--near", "near", "the near-label search"}
	MaxFileBytes = Key{"--max-file-bytes", "", "the input file size limit"}
	Salt         = Key{"--salt", "", "the salt"}
	Hash         = Key{"--hash", "", "the image hash"}
	Canvas       = Key{"--canvas", "", "the image canvas"}
	Images       = Key{"--images", "", "image comparison"}
	// Rebuild has no configuration key: a run configured by a file
	// builds its index again in an empty index folder.
	Rebuild = Key{"--rebuild", "", "an empty index folder"}
	// AllowMissing has no configuration key: a run configured by a file
	// goes on without a training corpus when its list leaves it out.
	AllowMissing = Key{"--allow-missing", "", "a training list that leaves it out"}
	GT           = Key{"--gt", "", "the ground truths"}
	Release      = Key{"--release", "", "the release splits"}
	Against      = Key{"--against", "", "the sets to clean against"}
	Within       = Key{"--within", "", "the search for duplicates inside the release"}
	Out          = Key{"--out", "", "the output folder"}
	// TeXBLEUEmbeddings is GPT-2 small's token embeddings, for TeXBLEU.
	TeXBLEUEmbeddings = Key{"--texbleu-embeddings", "", "GPT-2 small's token embeddings"}
)

// Flag returns the setting as the command line names it: "--field".
func (k Key) Flag() string { return k.flag }

// String returns the setting as the command line names it, so that a Key
// formatted with %s outside Errorf reads as the flag.
func (k Key) String() string { return k.flag }

// ConfigName returns the setting as a configuration file names it: its
// key followed by a colon ("field:"), or, for a setting no configuration
// file has, words for it ("the input file size limit").
func (k Key) ConfigName() string {
	if k.key == "" {
		return k.words
	}
	return k.key + ":"
}

// Error is an error whose message names one or more settings.
type Error struct {
	format string
	args   []any
	err    error // fmt.Errorf(format, args...): the command line's message
}

// Errorf formats an error as fmt.Errorf does (%w included); each Key
// among args names a setting, as the command line does in Error and as a
// configuration file does through ForConfig.
func Errorf(format string, args ...any) error {
	return &Error{format: format, args: args, err: fmt.Errorf(format, args...)}
}

// Error returns the message with each setting named by its flag.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the errors wrapped with %w.
func (e *Error) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// Keys returns the settings the message names.
func (e *Error) Keys() []Key {
	var keys []Key
	for _, a := range e.args {
		if k, ok := a.(Key); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// message returns the message with each setting named by name.
func (e *Error) message(name func(Key) string) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if k, ok := a.(Key); ok {
			a = name(k)
		}
		args[i] = a
	}
	// The wrapped errors print as %v would print them: their own
	// command-line message, which render replaces in turn.
	return fmt.Sprintf(strings.ReplaceAll(e.format, "%w", "%v"), args...)
}

// render returns err's message with the settings of every *Error in its
// chain named by name, outermost first.
func render(err error, name func(Key) string) string {
	msg := err.Error()
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if e, ok := err.(*Error); ok {
			msg = strings.ReplaceAll(msg, e.Error(), e.message(name))
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, w := range u.Unwrap() {
				walk(w)
			}
		}
	}
	walk(err)
	return msg
}

// ConfigArgs returns a log line's arguments worded for a run configured
// by a file: each Key named as the configuration does (Key.ConfigName)
// and each error as ForConfig words it. A library logs a note that names
// a setting with the Key as an argument (logf("%s DIR builds one", DB)),
// so that the command line, formatting the arguments as they are, prints
// the flag, and a configured run, formatting ConfigArgs(args), the key.
func ConfigArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case Key:
			a = v.ConfigName()
		case error:
			a = ForConfig(v)
		}
		out[i] = a
	}
	return out
}

// ForConfig returns err worded for a run configured by a file: every
// setting its message names is named as the configuration does
// (Key.ConfigName). errors.Is and errors.As see err as before. It returns
// err itself when it names no setting.
func ForConfig(err error) error {
	if err == nil || !errors.As(err, new(*Error)) {
		return err
	}
	return &configError{err}
}

type configError struct{ err error }

func (e *configError) Error() string { return render(e.err, Key.ConfigName) }
func (e *configError) Unwrap() error { return e.err }
