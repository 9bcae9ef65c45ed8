package dataset

import (
	"fmt"
	"strings"
)

// A Shortfall is an input that was read only in part: records were
// skipped for a reason other than a limit the user sets, or the read
// stopped early. Commands list shortfalls and exit with a distinct status
// (3) unless the user allowed partial input, because an overlap computed on
// part of a file understates it without anyone noticing.
type Shortfall struct {
	Input  string `json:"input"`  // the input's role and name, such as "test crohme2014"
	Path   string `json:"path"`   // the file or folder
	Reason string `json:"reason"` // what was lost, naming the byte or line where known
}

// String renders the shortfall as "input (path): reason".
func (s Shortfall) String() string { return fmt.Sprintf("%s (%s): %s", s.Input, s.Path, s.Reason) }

// isLimit reports whether a skip reason comes from a limit the user sets
// (--max-label-bytes, --max-pixels, --max-image-bytes): such records are
// counted and reported, but they do not make the input partial.
func isLimit(reason string) bool {
	return reason == ReasonTooLong || strings.HasPrefix(reason, ReasonImageTooLarge)
}

// Shortfall says why the input was read only in part, or "" when every
// record was delivered or skipped by a user-set limit. The reason names
// where the read stopped and the first record skipped for each reason.
func (s Stats) Shortfall() string {
	var parts []string
	if s.FileError != "" {
		parts = append(parts, "reading stopped early: "+s.FileError)
	}
	var n int64
	var reasons []string
	for _, r := range sortedKeys(s.Reasons) {
		if isLimit(r) {
			continue
		}
		n += s.Reasons[r]
		what := fmt.Sprintf("%s: %d", r, s.Reasons[r])
		for _, ex := range s.Examples {
			if ex.Reason == r {
				what += fmt.Sprintf(" (first at %s)", ex.Where)
				break
			}
		}
		reasons = append(reasons, what)
	}
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) skipped (%s)", n, strings.Join(reasons, "; ")))
	}
	return strings.Join(parts, "; ")
}

// Completeness records whether a job read all of its inputs. Reports embed
// it, so that their JSON carries "complete" and, when false, "incomplete":
// the inputs read only in part and why.
type Completeness struct {
	Complete   bool        `json:"complete"`
	Incomplete []Shortfall `json:"incomplete,omitempty"`
}

// Check records input's shortfall, if its stats show one.
func (c *Completeness) Check(input, path string, st Stats) {
	if r := st.Shortfall(); r != "" {
		c.Fail(input, path, r)
	}
}

// Fail records an input that was read only in part, or not at all.
func (c *Completeness) Fail(input, path, reason string) {
	c.Incomplete = append(c.Incomplete, Shortfall{Input: input, Path: path, Reason: reason})
}

// Done sets Complete from what was recorded; call it once every input has
// been checked.
func (c *Completeness) Done() { c.Complete = len(c.Incomplete) == 0 }
