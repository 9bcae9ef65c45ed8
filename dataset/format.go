package dataset

import (
	"bufio"
	"bytes"
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

// Detect guesses the format of the file or folder at path from its name and
// its first bytes. It explains itself in the error when it cannot decide.
func Detect(path string) (Format, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "caption.txt")); err == nil {
			return Caption, nil
		}
		found := false
		_ = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".inkml") {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return InkML, nil
		}
		return "", fmt.Errorf("%s: folder holds neither caption.txt nor .inkml files", path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return Parquet, nil
	case ".inkml":
		return InkML, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	case ".csv":
		return CSV, nil
	case ".tsv":
		return TSV, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	if n == 0 {
		return "", fmt.Errorf("%s: empty file", path)
	}
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return Parquet, nil
	}
	// A binary file (an archive, an image, a compressed stream) is not a
	// label list: reading it as lines would deliver garbage as labels.
	if bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s: a binary file, not a label file (archives and images are image sources: neardup, dedup --images)", path)
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		if len(rest) > 0 && rest[0] == '{' {
			return JSONObjects, nil
		}
		return JSONStrings, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		// One object per line is JSONL; otherwise a single object map.
		if line, _, ok := bytes.Cut(trimmed, []byte("\n")); ok && isJSONObjectLine(line) {
			return JSONL, nil
		}
		return JSONMap, nil
	case bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<ink")):
		return InkML, nil
	}
	if strings.EqualFold(filepath.Base(path), "caption.txt") || looksLikeCaptions(head) {
		return Caption, nil
	}
	return Lines, nil
}

func isJSONObjectLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) >= 2 && line[0] == '{' && line[len(line)-1] == '}'
}

// idToken is what a record name looks like: file-name characters with at
// least one letter or underscore, three characters or more.
var idToken = regexp.MustCompile(`^[A-Za-z0-9_.\-]*[A-Za-z_][A-Za-z0-9_.\-]*$`)

// looksLikeCaptions reports whether the sample's lines read as
// "name<sep>label": each line's first field looks like a record name and
// no name repeats. One-formula-per-line files fail this because their first
// tokens are LaTeX (\frac, {) or repeat (x, (, 2).
func looksLikeCaptions(head []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	seen := map[string]bool{}
	lines := 0
	for sc.Scan() && lines < 50 {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			continue
		}
		name, _, ok := splitCaption(line)
		if !ok || len(name) < 3 || !idToken.MatchString(name) || seen[name] {
			return false
		}
		seen[name] = true
		lines++
	}
	return lines > 0
}
