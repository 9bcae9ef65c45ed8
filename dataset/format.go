package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A Format names a file layout that Scan can read.
type Format string

// The formats Scan reads.
const (
	JSONStrings Format = "json-strings"
	JSONObjects Format = "json-objects"
	JSONMap     Format = "json-map"
	JSONL       Format = "jsonl"
	Caption     Format = "caption"
	Lines       Format = "lines"
	CSV         Format = "csv"
	TSV         Format = "tsv"
	Parquet     Format = "parquet"
	InkML       Format = "inkml"
)

// Formats lists every format name, for help texts and flag validation.
var Formats = []Format{JSONStrings, JSONObjects, JSONMap, JSONL, Caption, Lines, CSV, TSV, Parquet, InkML}

// ParseFormat validates a --format value. The empty string means "detect".
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (known: %s)", s, formatList())
}

func formatList() string {
	var names []string
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// ErrEmptyInput marks a Detect failure on an input that holds nothing: a
// file of no bytes or of white space only, or a folder with no file. Scan
// reports such an input as empty (Stats.Empty) instead of failing, and
// WriteSubset copies it as it is; callers that detect formats themselves
// test for it with errors.Is.
var ErrEmptyInput = errors.New("empty input: nothing to read")

// Detect guesses the format of the file or folder at path from its name and
// its first bytes. It explains itself in the error when it cannot decide.
func Detect(path string) (Format, error) {
	f, _, err := DetectNote(path)
	return f, err
}

// DetectNote is Detect, and also says why the format was chosen when the
// choice was not clear cut (a text file whose lines read partly as
// "name label" captions, partly not, or whose names repeat): the note is ""
// when the file's name or content leaves no doubt. Scan records the note
// in Stats.FormatNote; commands print it, so that a file is never read in
// a meaning its owner did not intend without anyone being told.
func DetectNote(path string) (Format, string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "caption.txt")); err == nil {
			return Caption, "", nil
		}
		found, files := false, 0
		_ = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			files++
			if strings.EqualFold(filepath.Ext(p), ".inkml") {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return InkML, "", nil
		}
		if files == 0 {
			return "", "", fmt.Errorf("%s: a folder with no file: %w", path, ErrEmptyInput)
		}
		return "", "", fmt.Errorf("%s: folder holds neither caption.txt nor .inkml files", path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return Parquet, "", nil
	case ".inkml":
		return InkML, "", nil
	case ".jsonl", ".ndjson":
		return JSONL, "", nil
	case ".csv":
		return CSV, "", nil
	case ".tsv":
		return TSV, "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", "", err
	}
	whole := n < len(head) // the head is the whole file
	head = head[:n]
	if n == 0 {
		return "", "", fmt.Errorf("%s: a file of 0 bytes: %w", path, ErrEmptyInput)
	}
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return Parquet, "", nil
	}
	// A binary file (an archive, an image, a compressed stream) is not a
	// label list: reading it as lines would deliver garbage as labels.
	if bytes.IndexByte(head, 0) >= 0 {
		return "", "", fmt.Errorf("%s: a binary file, not a label file (archives and images are image sources: neardup, dedup --images)", path)
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(trimmed) == 0 && whole:
		return "", "", fmt.Errorf("%s: white space only: %w", path, ErrEmptyInput)
	case len(trimmed) > 0 && trimmed[0] == '[':
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		if len(rest) > 0 && rest[0] == '{' {
			return JSONObjects, "", nil
		}
		return JSONStrings, "", nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		return detectObjects(trimmed, whole), "", nil
	case bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<ink")):
		return InkML, "", nil
	}
	ev := sampleLines(head, whole)
	if strings.EqualFold(filepath.Base(path), "caption.txt") {
		// The name declares the format; say so when the content does
		// not agree.
		note := ""
		if ev.lines > 0 && 2*ev.named < ev.lines {
			note = fmt.Sprintf("read as captions because the file is named caption.txt, although only %d of the first %d lines read as name<TAB or SPACE>label", ev.named, ev.lines)
		}
		return Caption, note, nil
	}
	if f, cols := headerLine(trimmed); f != "" {
		return f, fmt.Sprintf("read as %s: the first line is a header naming the columns %s; give --format caption or lines if it is a record", f, strings.Join(cols, ", ")), nil
	}
	format, note := ev.decide()
	return format, note, nil
}

// headerName is a column name: an identifier.
var headerName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

// headerLine reports whether the first line of a text file is the header
// of a TSV or CSV file: two fields or more separated by tabs (or, without
// a tab, by commas), each a plain name, one of them a label column leakaudit
// knows (gt, label, latex_formula, …). Read as captions or lines, such a
// header would be a record, and its columns would be split wrongly.
func headerLine(text []byte) (Format, []string) {
	line, _, _ := bytes.Cut(text, []byte("\n"))
	first := strings.TrimRight(string(line), "\r")
	f, sep := TSV, "\t"
	if !strings.Contains(first, sep) {
		f, sep = CSV, ","
	}
	cols := strings.Split(first, sep)
	if len(cols) < 2 {
		return "", nil
	}
	label := false
	for i, c := range cols {
		c = strings.Trim(strings.TrimSpace(c), `"`)
		if !headerName.MatchString(c) {
			return "", nil
		}
		cols[i] = c
		for _, l := range defaultLabelFields {
			label = label || c == l
		}
	}
	if !label {
		return "", nil
	}
	return f, cols
}

// detectObjects tells JSONL (one object per line) from a JSON object map
// (name → record), given a text starting with '{'. A file whose first line
// is a whole object ended by a newline is JSONL (without a newline, or
// longer than the sample, it is one object: a map), unless that line is the
// file's only line and every value in it is an object (the first, when the
// line is cut short): then it is a map written on one line (TAMER's and
// SAN's files are), whose entries JSONL would read as one record without a
// label.
func detectObjects(trimmed []byte, whole bool) Format {
	line, rest, ok := bytes.Cut(trimmed, []byte("\n"))
	if !ok || !isJSONObjectLine(line) {
		return JSONMap
	}
	if len(bytes.TrimSpace(rest)) > 0 || !whole {
		return JSONL
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		// Cut short or damaged: a map when its first value is an object.
		dec := json.NewDecoder(bytes.NewReader(line))
		for range 2 { // the '{' and the first key
			if _, err := dec.Token(); err != nil {
				return JSONL
			}
		}
		if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
			return JSONMap
		}
		return JSONL
	}
	for _, v := range obj {
		if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '{' {
			return JSONL
		}
	}
	return JSONMap
}

func isJSONObjectLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) >= 2 && line[0] == '{' && line[len(line)-1] == '}'
}

// nameChars is what a record name is made of: file-name characters.
var nameChars = regexp.MustCompile(`^[A-Za-z0-9_.\-/]+$`)

// hasLetter reports whether a name has a letter or an underscore: a name
// made only of digits, dots and dashes (200922-947-9) could as well be a
// number that starts a formula, when a space follows it.
func hasLetter(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
}

// lineEvidence is what the first lines of a text file say about its
// format: how many read as "name<TAB or SPACE>label" captions.
type lineEvidence struct {
	lines     int    // non-blank lines sampled
	named     int    // lines that read as name<TAB or SPACE>label
	weak      int    // of those, a name without a letter before a space
	repeats   int    // named lines whose name was seen before
	firstRep  string // the first repeated name
	firstWeak string // the first weak name
}

// maxSampleLines bounds the lines Detect looks at.
const maxSampleLines = 1000

// sampleLines classifies the complete lines of head (its last line too
// when head is the whole file).
func sampleLines(head []byte, whole bool) lineEvidence {
	var ev lineEvidence
	seen := map[string]bool{}
	text := string(head)
	for ev.lines < maxSampleLines {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok && !whole {
			break // a line cut by the sample's end
		}
		text = rest
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) != "" {
			ev.lines++
			if name, weak, ok := captionName(line); ok {
				ev.named++
				if weak {
					if ev.weak == 0 {
						ev.firstWeak = name
					}
					ev.weak++
				}
				if seen[name] {
					if ev.repeats == 0 {
						ev.firstRep = name
					}
					ev.repeats++
				}
				seen[name] = true
			}
		}
		if !ok {
			break
		}
	}
	return ev
}

// captionName reports whether a line reads as name<TAB>label or
// name<SPACE>label, and its name. After a tab, any name of file-name
// characters does (a LaTeX label has no tab); after a space, the name must
// also be three characters or more (LaTeX tokens such as x, 2 or ( are
// shorter), and a name with no letter is weak evidence, and none at all
// when the rest of the line starts like the rest of a formula (100 + 1).
func captionName(line string) (name string, weak, ok bool) {
	if n, label, tab := strings.Cut(line, "\t"); tab {
		return n, false, nameChars.MatchString(n) && strings.TrimSpace(label) != ""
	}
	name, label, ok := strings.Cut(line, " ")
	label = strings.TrimSpace(label)
	if !ok || len(name) < 3 || !nameChars.MatchString(name) || label == "" {
		return name, false, false
	}
	if hasLetter(name) {
		return name, false, true
	}
	if strings.ContainsRune("+-=*/^_)]}!,.<>|:;", rune(label[0])) {
		return name, false, false
	}
	return name, true, true
}

// decide chooses between captions and plain lines. Captions when most
// lines read as name<sep>label and most of those names are distinct (a
// name repeated now and then is a duplicate record, not a formula's first
// token); plain lines otherwise. The note says why when the evidence is
// mixed.
func (ev lineEvidence) decide() (Format, string) {
	if ev.lines == 0 {
		return Lines, ""
	}
	distinct := ev.named - ev.repeats
	if 2*ev.named >= ev.lines && 2*distinct >= ev.named {
		var why []string
		if ev.named < ev.lines {
			why = append(why, fmt.Sprintf("%d of them do not", ev.lines-ev.named))
		}
		if ev.repeats > 0 {
			why = append(why, fmt.Sprintf("%d name(s) repeat (first: %q)", ev.repeats, ev.firstRep))
		}
		if ev.weak > 0 {
			why = append(why, fmt.Sprintf("%d name(s) have no letter and are followed by a space (first: %q), so they could be numbers that start formulas", ev.weak, ev.firstWeak))
		}
		if len(why) == 0 {
			return Caption, ""
		}
		return Caption, fmt.Sprintf("read as captions (name, then label): %d of the first %d lines read as name<TAB or SPACE>label; %s; give --format lines if every line is one label", ev.named, ev.lines, strings.Join(why, "; "))
	}
	if 10*ev.named < ev.lines {
		return Lines, ""
	}
	why := fmt.Sprintf("only %d of the first %d lines read as name<TAB or SPACE>label", ev.named, ev.lines)
	if 2*ev.named >= ev.lines {
		why = fmt.Sprintf("%d of the first %d lines read as name<TAB or SPACE>label, but %d of those names repeat (first: %q), as the first tokens of formulas do", ev.named, ev.lines, ev.repeats, ev.firstRep)
	}
	return Lines, "read as one label per line: " + why + "; give --format caption if each line starts with a record name"
}
