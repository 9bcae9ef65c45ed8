// Package outpath is the one check every command makes before it writes an
// output file or folder, so that no command overwrites one of its own
// inputs or replaces a file or folder of the user's that it did not write.
//
// The rules, in order:
//
//   - The output is never one of the inputs: not the same path, and not
//     the same file through a symbolic link, a hard link or another path
//     to it (os.SameFile). --force does not change this.
//   - The output never lies inside an input folder (writing there would
//     change the input), and never holds an input (replacing it would
//     remove the input). --force does not change this either.
//   - An output that does not exist yet is written.
//   - An existing output is replaced (or, for a folder a command writes
//     into, written into) only when it is an empty folder, when the
//     command recognizes it as its own earlier output (Output.Previous),
//     or with --force. Anything else is refused with a message that says
//     what is there and how to go on.
package outpath

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// An Output is a file or folder a command is about to write.
type Output struct {
	// Flag names the output in messages, as "--out".
	Flag string
	// Path is the output; "" means there is no output and Check passes.
	Path string
	// Dir says the output is a folder (else a file).
	Dir bool
	// Inputs are the paths the command reads (files or folders). Empty
	// strings are ignored.
	Inputs []string
	// Force replaces an existing output that is not a previous one; it
	// never allows writing over or into an input.
	Force bool
	// What names a previous output in messages, as "a fingerprint file".
	What string
	// Previous recognizes an earlier output of the same command, which is
	// replaced without Force; nil recognizes none.
	Previous func(path string) bool
}

// Check returns an error when writing o would overwrite an input or
// replace something the command did not write (unless o.Force).
func Check(o Output) error {
	if o.Path == "" {
		return nil
	}
	if err := CheckInputs(o); err != nil {
		return err
	}
	fi, err := os.Stat(o.Path)
	if errors.Is(err, os.ErrNotExist) {
		if _, lerr := os.Lstat(o.Path); lerr == nil {
			// A link to nowhere: replacing it loses only the link, but
			// writing through it would create a file elsewhere.
			return o.refuse("is a symbolic link to a missing file")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.Flag, o.Path, err)
	}
	if o.Force {
		return nil
	}
	if fi.IsDir() {
		empty, err := isEmptyDir(o.Path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.Flag, o.Path, err)
		}
		if empty && o.Dir {
			return nil
		}
	}
	if o.Previous != nil && o.Previous(o.Path) {
		return nil
	}
	return o.refuse(describe(fi, o))
}

// CheckInputs applies only the rules about inputs: o.Path is none of
// o.Inputs, lies inside none of them, and holds none of them.
func CheckInputs(o Output) error {
	if o.Path == "" {
		return nil
	}
	outInfo, outErr := os.Stat(o.Path)
	realOut := realPath(o.Path)
	for _, in := range o.Inputs {
		if in == "" {
			continue
		}
		inInfo, err := os.Stat(in)
		if err == nil && outErr == nil && os.SameFile(inInfo, outInfo) {
			if inInfo.IsDir() {
				return fmt.Errorf("%s %s is the input folder %s: inputs are never written to; choose another path", o.Flag, o.Path, in)
			}
			return fmt.Errorf("%s %s is the input %s: inputs are never written to (not even with --force); choose another path", o.Flag, o.Path, in)
		}
		realIn := realPath(in)
		if realIn == realOut {
			return fmt.Errorf("%s %s is the input %s: inputs are never written to (not even with --force); choose another path", o.Flag, o.Path, in)
		}
		if err == nil && inInfo.IsDir() && within(realIn, realOut) {
			return fmt.Errorf("%s %s is inside the input folder %s: inputs are never written to (not even with --force); choose a path outside it", o.Flag, o.Path, in)
		}
		if within(realOut, realIn) {
			return fmt.Errorf("%s %s holds the input %s: replacing or writing into it could change the input (not even with --force); choose another path", o.Flag, o.Path, in)
		}
	}
	return nil
}

func (o Output) refuse(what string) error {
	return fmt.Errorf("%s %s exists and %s: choose another path, or give --force to replace it", o.Flag, o.Path, what)
}

// describe says what is at the output, for the refusal.
func describe(fi os.FileInfo, o Output) string {
	prev := "an earlier output of this command"
	if o.What != "" {
		prev = o.What
	}
	switch {
	case fi.IsDir() && !o.Dir:
		return "is a folder (a file is written here)"
	case fi.IsDir():
		n := "entries"
		if entries, err := os.ReadDir(o.Path); err == nil && len(entries) == 1 {
			n = "1 entry"
		} else if err == nil {
			n = fmt.Sprintf("%d entries", len(entries))
		}
		if o.Previous == nil {
			return fmt.Sprintf("is a folder of %s", n)
		}
		return fmt.Sprintf("is a folder of %s that is not %s", n, prev)
	case o.Dir:
		return "is a file (a folder is written here)"
	case o.Previous == nil:
		return "is a file"
	}
	return fmt.Sprintf("is a file that is not %s", prev)
}

// isEmptyDir reports whether the folder dir has no entries.
func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}

// Names returns a Previous that recognizes a folder whose entries all
// match one of the patterns (filepath.Match, against the entry's name): a
// folder holding only what the command writes. A folder entry matching a
// pattern that ends in "/" is accepted with whatever it holds.
func Names(patterns ...string) func(string) bool {
	return func(dir string) bool {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return false
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if !matchAny(patterns, e) {
				return false
			}
		}
		return true
	}
}

func matchAny(patterns []string, e os.DirEntry) bool {
	for _, p := range patterns {
		isDir := strings.HasSuffix(p, "/")
		if isDir != e.IsDir() {
			continue
		}
		if ok, _ := filepath.Match(strings.TrimSuffix(p, "/"), e.Name()); ok {
			return true
		}
	}
	return false
}

// realPath resolves p to an absolute path with links followed (as far as
// it exists: the missing tail is joined to its resolved parent).
func realPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	dir, base := filepath.Split(a)
	dir = filepath.Clean(dir)
	if dir == a {
		return a
	}
	return filepath.Join(realPath(dir), base)
}

// within reports whether p is parent or inside it.
func within(parent, p string) bool {
	rel, err := filepath.Rel(parent, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Install moves tmp, a file or folder built beside out, into out's place,
// replacing what is there (which Check has allowed). A file replaces a
// file (or a link) in one rename; anything else is moved aside under tmp's
// name with ".old" added, and removed once tmp is in place (a link is
// removed, never what it points to).
func Install(tmp, out string) error {
	fi, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	if err != nil {
		return err
	}
	tfi, err := os.Lstat(tmp)
	if err != nil {
		return err
	}
	if !fi.IsDir() && !tfi.IsDir() {
		return os.Rename(tmp, out)
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		if rerr := os.Rename(old, out); rerr != nil {
			return fmt.Errorf("%w (and %s could not be moved back from %s: %v)", err, out, old, rerr)
		}
		return err
	}
	return os.RemoveAll(old)
}
