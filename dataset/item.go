package dataset

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// An Item is one record of a source: a ground-truth label, and a prediction
// when the source carries one.
type Item struct {
	Seq     int64  // 0-based position among all records, skipped ones included
	ID      string // the record's name, or its position when the source has none
	Label   string // the ground-truth label, exactly as decoded
	Pred    string // the prediction, when HasPred
	HasPred bool
	// Start and End delimit the record's bytes in a stream file (a line
	// with its terminator; a CSV record; a JSON element, or a JSON map's
	// key and value, possibly preceded by the separator before it). They
	// are zero for Parquet and InkML. [WriteRecords] copies records by
	// them.
	Start, End int64
}

// A Skip describes one record that was not delivered.
type Skip struct {
	Seq    int64  `json:"seq"`
	ID     string `json:"id,omitempty"`
	Where  string `json:"where"`
	Reason string `json:"reason"`
}

// Reasons for skipping a record. Readers use these so that counts from
// different files add up under the same names.
const (
	ReasonInvalidUTF8 = "invalid UTF-8"
	ReasonEmpty       = "empty label"
	ReasonTooLong     = "label too long"
	ReasonNotString   = "label is not a string"
	ReasonNoLabel     = "no label field"
	ReasonNull        = "null label"
	ReasonMalformed   = "malformed record"
	ReasonNoSeparator = "no separator between name and label"
	ReasonEmptyFile   = "empty file"
	ReasonBadXML      = "malformed XML"
	ReasonNoTruth     = "no truth annotation"
)

// maxExamples is how many skipped records Stats keeps in full.
const maxExamples = 20

// Stats counts what a scan delivered and what it skipped, and why.
type Stats struct {
	Format    Format           `json:"format"`
	Field     string           `json:"field,omitempty"`    // label field or column used
	IDField   string           `json:"id_field,omitempty"` // id field or column used
	Items     int64            `json:"items"`              // records delivered
	Skipped   int64            `json:"skipped"`            // records not delivered
	Reasons   map[string]int64 `json:"skip_reasons,omitempty"`
	Examples  []Skip           `json:"skip_examples,omitempty"`
	FileError string           `json:"file_error,omitempty"` // what stopped the read early, if anything
	// Empty is set when the input holds no record at all: a file of no
	// bytes or of white space only, an empty JSON array or map, a CSV
	// file with only its header, a Parquet file with no rows, a folder
	// with no image. Such an input is partial (see Shortfall).
	Empty bool `json:"empty,omitempty"`
	// FormatNote, when the format was detected on mixed evidence, says
	// which format was chosen and why (see DetectNote).
	FormatNote string `json:"format_note,omitempty"`
	// FieldsSeen, when no label field could be chosen, lists the fields
	// of the first record, the ones that were there to choose from.
	FieldsSeen []string `json:"fields_seen,omitempty"`
}

func (s *Stats) skip(k Skip) {
	s.Skipped++
	if s.Reasons == nil {
		s.Reasons = map[string]int64{}
	}
	s.Reasons[k.Reason]++
	if len(s.Examples) < maxExamples {
		s.Examples = append(s.Examples, k)
	}
}

// ReasonSummary renders the skip reasons as "reason: n; …" in a stable
// order, or "" when nothing was skipped.
func (s Stats) ReasonSummary() string {
	var parts []string
	for _, k := range sortedKeys(s.Reasons) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, s.Reasons[k]))
	}
	return strings.Join(parts, "; ")
}

// sortedKeys returns the reasons of a count map in lexical order.
func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Limits bound what a reader accepts.
type Limits struct {
	// MaxLabelBytes is the longest label delivered; longer ones are
	// skipped as ReasonTooLong. Zero means DefaultMaxLabelBytes.
	MaxLabelBytes int
	// MaxFileBytes refuses a larger input file. Zero means
	// DefaultMaxFileBytes. (Readers stream, so this bounds time, not
	// memory.)
	MaxFileBytes int64
}

// DefaultMaxFileBytes is the default input file size limit (64 GiB).
const DefaultMaxFileBytes = 64 << 30

func (l Limits) maxFile() int64 {
	if l.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return l.MaxFileBytes
}

// DefaultMaxLabelBytes is the default label length limit. The longest label
// in the public benchmark lists is under 2 KiB.
const DefaultMaxLabelBytes = 16 << 10

func (l Limits) maxLabel() int {
	if l.MaxLabelBytes <= 0 {
		return DefaultMaxLabelBytes
	}
	return l.MaxLabelBytes
}

// emitter applies the label checks shared by every format and keeps Stats.
type emitter struct {
	stats  *Stats
	limits Limits
	fn     func(Item) error
	onSkip func(Skip) // Source.OnSkip or ImageSource.OnSkip
	hook   *mapHook   // ScanMapped's, for the parallel JSON string list reader
	// spans, for the parallel JSON string list reader, delivers items
	// with their Seq, Start and End only (a rewrite's scan).
	spans bool
}

// emit checks it and either delivers it or records a skip.
func (e *emitter) emit(it Item, where string) error {
	if reason := e.check(it); reason != "" {
		e.skip(it.Seq, it.ID, where, reason)
		return nil
	}
	e.stats.Items++
	return e.fn(it)
}

func (e *emitter) check(it Item) string {
	switch {
	case !utf8.ValidString(it.Label) || !utf8.ValidString(it.ID):
		return ReasonInvalidUTF8
	case strings.TrimSpace(it.Label) == "":
		return ReasonEmpty
	case len(it.Label) > e.limits.maxLabel():
		return ReasonTooLong
	}
	return ""
}

func (e *emitter) skip(seq int64, id, where, reason string) {
	k := Skip{Seq: seq, ID: id, Where: where, Reason: reason}
	e.stats.skip(k)
	if e.onSkip != nil {
		e.onSkip(k)
	}
}

// AddSkip records a skipped record found after the scan, such as an image
// that could not be decoded.
func (s *Stats) AddSkip(k Skip) { s.skip(k) }
