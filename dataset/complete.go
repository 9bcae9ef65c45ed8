package dataset

import (
	"fmt"
	"strings"

	"github.com/leakaudit/leakaudit/internal/setting"
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
	if s.Empty {
		return "empty input: it holds no record at all"
	}
	var parts []string
	if s.FileError != "" {
		parts = append(parts, "reading stopped early: "+s.FileError)
	}
	if n, reasons := s.Skips(false); n > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) skipped (%s)", n, reasons))
	}
	return strings.Join(parts, "; ")
}

// Skips counts the records skipped for a limit the user sets (limits
// true) or for any other reason (limits false), and lists them by
// reason with where each was first met: "empty label: 1 (first at line
// 2); …".
func (s Stats) Skips(limits bool) (n int64, reasons string) {
	var list []string
	for _, r := range sortedKeys(s.Reasons) {
		if isLimit(r) != limits {
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
		list = append(list, what)
	}
	return n, strings.Join(list, "; ")
}

// Completeness records whether a job read all of its inputs. Reports embed
// it, so that their JSON carries "complete" and, when false, "incomplete":
// the inputs read only in part and why.
type Completeness struct {
	Complete   bool        `json:"complete"`
	Incomplete []Shortfall `json:"incomplete,omitempty"`
	// Notes are the inputs whose format was detected on mixed evidence,
	// with the note saying which format was chosen and why (the JSON
	// carries it in each input's stats as format_note); commands print
	// them on stderr. Reason holds the note.
	Notes []Shortfall `json:"-"`
}

// Check records input's shortfall, if its stats show one, and its format
// note, if it has one.
func (c *Completeness) Check(input, path string, st Stats) {
	if st.FormatNote != "" {
		c.Notes = append(c.Notes, Shortfall{Input: input, Path: path, Reason: st.FormatNote})
	}
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

// markEmpty sets Empty when a read found no record and no fault: nothing
// was delivered, nothing skipped, nothing cut short.
func (s *Stats) markEmpty() {
	if s.Items == 0 && s.Skipped == 0 && s.FileError == "" {
		s.Empty = true
	}
}

// NoItems explains why a read delivered no item, for the error of a
// command left with nothing to work on: the input was empty, it was cut
// short before its first record, or every record was skipped, with the
// label field looked for and the fields found when that was the reason.
// field is the label field the user asked for ("" for the defaults). It
// returns "" when items were delivered.
func (s Stats) NoItems(field string) string {
	if s.Items > 0 {
		return ""
	}
	read := ""
	if s.Format != "" {
		read = fmt.Sprintf(" (read as %s)", s.Format)
	}
	switch {
	case s.Empty:
		return "the input is empty: it holds no record at all"
	case s.Skipped == 0 && s.FileError != "":
		return fmt.Sprintf("reading stopped before the first record%s: %s", read, s.FileError)
	case s.Skipped == 0:
		return "no record was found" + read
	}
	msg := fmt.Sprintf("all %d record(s)%s were skipped (%s)", s.Skipped, read, s.ReasonSummary())
	if s.Reasons[ReasonNoLabel] > 0 {
		defaults := defaultLabelFields
		if s.Format == InkML {
			defaults = defaultInkMLFields
		}
		msg += fmt.Sprintf("; the label field was looked for as %s", orDefaults(field, defaults))
		if len(s.FieldsSeen) > 0 {
			msg += fmt.Sprintf(" and the first record has the fields %s", strings.Join(s.FieldsSeen, ", "))
		}
		msg += "; choose one with " + setting.Field.Flag()
	}
	if s.FileError != "" {
		msg += "; then reading stopped: " + s.FileError
	}
	return msg
}
