package dataset

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/leakaudit/leakaudit/internal/setting"
)

// A Source names an input and how to read it.
type Source struct {
	Path    string // a file, or a folder for caption and inkml
	Format  Format // empty: detect with Detect
	Field   string // label field, column or annotation type; empty: the format's default
	IDField string // id field or column; empty: the format's default, else positions
	Limits  Limits
	// OnSkip, when set, is called for every record the scan skips, in
	// file order (Stats keeps only the first few): for callers that must
	// account for each record, such as a release rewritten without some.
	OnSkip func(Skip)
}

// Default field names, tried in order when Source.Field or Source.IDField
// is empty.
var (
	defaultLabelFields = []string{"gt", "label", "latex_formula", "latex", "formula", "text", "caption"}
	defaultIDFields    = []string{"img_id", "id", "name", "image_id", "filename", "file"}
	defaultPredFields  = []string{"pred", "predi", "prediction"}
	defaultInkMLFields = []string{"truth", "normalizedLabel", "label"}
)

// Scan reads src and calls fn for every usable item in file order. It
// returns the counts of what it delivered and skipped. An error is returned
// when the source cannot be opened at all or when fn returns one; a fault
// part-way through a file is reported in Stats.FileError instead.
func Scan(src Source, fn func(Item) error) (Stats, error) {
	return scan(src, fn, nil, false)
}

// scan is Scan with ScanMapped's hook for the parallel JSON string list
// reader (nil for Scan), and spans for a rewrite's scan (see
// emitter.spans).
func scan(src Source, fn func(Item) error, hook *mapHook, spans bool) (Stats, error) {
	if fi, err := os.Stat(src.Path); err == nil && !fi.IsDir() {
		if fi.Size() > src.Limits.maxFile() {
			return Stats{}, setting.Errorf("%s: %d bytes, more than the %d-byte limit (%s)", src.Path, fi.Size(), src.Limits.maxFile(), setting.MaxFileBytes)
		}
		if fi.Size() == 0 {
			format := src.Format
			if format == "" {
				format, _ = Detect(src.Path) // by its name, if that tells
			}
			return Stats{Format: format, Empty: true}, nil
		}
	}
	format, note := src.Format, ""
	if format == "" {
		f, n, err := DetectNote(src.Path)
		if errors.Is(err, ErrEmptyInput) {
			return Stats{Empty: true}, nil
		}
		if err != nil {
			return Stats{}, fmt.Errorf("detect format: %w", err)
		}
		format, note = f, n
	}
	st := Stats{Format: format, FormatNote: note}
	e := &emitter{stats: &st, limits: src.Limits, fn: fn, onSkip: src.OnSkip, hook: hook, spans: spans}
	var err error
	switch format {
	case Parquet:
		err = scanParquet(src, e)
	case InkML:
		err = scanInkML(src, e)
	default:
		err = scanStream(src, format, e)
	}
	if err == nil {
		st.markEmpty()
	}
	return st, err
}

// errBlank is a JSON reader's report of a file with nothing but white space
// (and a byte order mark) in it: no record, and no fault either.
var errBlank = errors.New("blank file")

// errStop wraps an error returned by the caller's function, so that it is
// passed through rather than recorded as a file fault.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// deliverAt is deliver with the position "prefix+id", built only when the
// item is skipped (the hot path of label lists, whose ids are positions).
func (e *emitter) deliverAt(it Item, prefix string) error {
	if reason := e.check(it); reason != "" {
		e.skip(it.Seq, it.ID, prefix+it.ID, reason)
		return nil
	}
	e.stats.Items++
	if err := e.fn(it); err != nil {
		return errStop{err}
	}
	return nil
}

func (e *emitter) deliver(it Item, where string) error {
	if err := e.emit(it, where); err != nil {
		return errStop{err}
	}
	return nil
}

// finish turns a reader's error into the scan's result: caller errors pass
// through, anything else becomes the file fault.
func (e *emitter) finish(err error) error {
	if err == nil || err == errBlank {
		return nil // a blank file holds no record: Scan marks it empty
	}
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	e.stats.FileError = err.Error()
	return nil
}

func scanStream(src Source, format Format, e *emitter) error {
	path := src.Path
	if format == Caption {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			path = filepath.Join(path, "caption.txt")
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	switch format {
	case JSONStrings:
		return e.finish(scanJSONStringsParallel(r, e))
	case JSONObjects:
		return e.finish(scanJSONObjects(bomAsSpace(r), src, e))
	case JSONMap:
		return e.finish(scanJSONMap(bomAsSpace(r), src, e))
	case JSONL:
		return e.finish(scanJSONL(r, src, e))
	case Caption:
		return e.finish(scanCaption(r, e))
	case Lines:
		return e.finish(scanLines(r, e))
	case CSV, TSV:
		return e.finish(scanCSV(r, format, src, e))
	}
	return fmt.Errorf("format %q cannot be streamed", format)
}

// bomAsSpace reads r with a leading UTF-8 byte order mark turned into three
// spaces: encoding/json refuses the mark, and spaces keep every byte offset
// (the records' spans, the faults' positions) those of the file.
func bomAsSpace(r *bufio.Reader) io.Reader {
	if b, _ := r.Peek(3); string(b) == "\xef\xbb\xbf" {
		r.Discard(3)
		return io.MultiReader(strings.NewReader("   "), r)
	}
	return r
}

// jsonFault describes a JSON error with its byte offset.
func jsonFault(dec *json.Decoder, err error) error {
	return fmt.Errorf("invalid JSON near byte %d: %v; the rest of the file was not read", dec.InputOffset(), err)
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return errBlank
	}
	if err != nil {
		return jsonFault(dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("invalid JSON: expected %q at the top level, found %v", want, tok)
	}
	return nil
}

// coerceString converts a JSON scalar to a string the way the audit's Python
// code does with str(): strings as they are, numbers by their literal text,
// true/false/null as True/False/None. Arrays and objects are refused.
func coerceString(raw json.RawMessage) (string, bool) {
	// A string literal, the common case, decoded as encoding/json
	// decodes it (which it falls back to for anything else).
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && utf8.Valid(raw) {
		if s, ok := unquote(raw); ok {
			return s, true
		}
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case nil:
		return "None", true
	}
	return "", false
}

// record is a decoded JSON object with its fields left raw.
type record map[string]json.RawMessage

// fields chooses the label, id and prediction fields of a record.
type fields struct {
	label, id, pred string
	keyIsID         bool // json-map: the object key is the id
	chosen          bool
}

func (fs *fields) choose(rec record, src Source, e *emitter) {
	if fs.chosen {
		return
	}
	fs.chosen = true
	pick := func(want string, defaults []string) string {
		if want != "" {
			return want
		}
		for _, d := range defaults {
			if _, ok := rec[d]; ok {
				return d
			}
		}
		return ""
	}
	fs.label = pick(src.Field, defaultLabelFields)
	if !fs.keyIsID {
		fs.id = pick(src.IDField, defaultIDFields)
	}
	fs.pred = pick("", defaultPredFields)
	e.stats.Field, e.stats.IDField = fs.label, fs.id
	if _, ok := rec[fs.label]; !ok {
		e.stats.FieldsSeen = fieldNames(rec)
	}
	if fs.keyIsID {
		e.stats.IDField = "(object key)"
	}
}

// maxFieldsSeen bounds Stats.FieldsSeen: a record that is really a map of
// thousands of names is summed up by its first few.
const maxFieldsSeen = 20

// fieldNames lists a record's field names in order, the first
// maxFieldsSeen of them and then how many more there are.
func fieldNames(rec record) []string {
	names := make([]string, 0, len(rec))
	for k := range rec {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > maxFieldsSeen {
		names = append(names[:maxFieldsSeen], fmt.Sprintf("… (%d more)", len(names)-maxFieldsSeen))
	}
	return names
}

// item builds an Item from a record; a non-empty reason means skip it.
func (fs *fields) item(rec record, seq int64, id string) (Item, string) {
	it := Item{Seq: seq, ID: id}
	if fs.id != "" {
		if raw, ok := rec[fs.id]; ok {
			if s, ok := coerceString(raw); ok {
				it.ID = s
			}
		}
	}
	raw, ok := rec[fs.label]
	if fs.label == "" || !ok {
		return it, ReasonNoLabel
	}
	if string(raw) == "null" {
		return it, ReasonNull
	}
	label, ok := coerceString(raw)
	if !ok {
		return it, ReasonNotString
	}
	it.Label = label
	if fs.pred != "" {
		if raw, ok := rec[fs.pred]; ok {
			if p, ok := coerceString(raw); ok && string(raw) != "null" {
				it.Pred, it.HasPred = p, true
			}
		}
	}
	return it, ""
}

// object decodes one raw object, spanning bytes [start, end) of its file,
// and emits it.
func (fs *fields) object(raw json.RawMessage, seq int64, id, where string, start, end int64, src Source, e *emitter) error {
	if !utf8.Valid(raw) {
		e.skip(seq, id, where, ReasonInvalidUTF8)
		return nil
	}
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil || rec == nil {
		e.skip(seq, id, where, ReasonMalformed)
		return nil
	}
	fs.choose(rec, src, e)
	it, reason := fs.item(rec, seq, id)
	it.Start, it.End = start, end
	if reason != "" {
		e.skip(seq, it.ID, where, reason)
		return nil
	}
	return e.deliver(it, where)
}

func scanJSONObjects(r io.Reader, src Source, e *emitter) error {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	var fs fields
	// A record's span runs from the end of the previous one: Decoder.More
	// moves the offset past the white space it peeks at.
	start := dec.InputOffset()
	for seq := int64(0); dec.More(); seq++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonFault(dec, err)
		}
		id := strconv.FormatInt(seq, 10)
		end := dec.InputOffset()
		if err := fs.object(raw, seq, id, "element "+id, start, end, src, e); err != nil {
			return err
		}
		start = end
	}
	return closeJSON(dec, r, ']')
}

func scanJSONMap(r io.Reader, src Source, e *emitter) error {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	fs := fields{keyIsID: true}
	start := dec.InputOffset()
	for seq := int64(0); dec.More(); seq++ {
		tok, err := dec.Token()
		if err != nil {
			return jsonFault(dec, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonFault(dec, err)
		}
		end := dec.InputOffset()
		if err := fs.object(raw, seq, key, "key "+strconv.Quote(key), start, end, src, e); err != nil {
			return err
		}
		start = end
	}
	return closeJSON(dec, r, '}')
}

// closeJSON reads the closing delimiter of the top-level array or object
// and checks that nothing but white space follows it. Decoder.More is false
// at the end of the file as well as before the delimiter: a file cut short
// after a whole element, or two documents one after the other, would
// otherwise read as complete.
func closeJSON(dec *json.Decoder, r io.Reader, want json.Delim) error {
	tok, err := dec.Token()
	if err == io.EOF {
		return fmt.Errorf("invalid JSON near byte %d: the file ends without the closing %q (cut short?); records after this point, if any, were not read", dec.InputOffset(), want)
	}
	if err != nil {
		return jsonFault(dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("invalid JSON near byte %d: expected %q, found %v; the rest of the file was not read", dec.InputOffset(), want, tok)
	}
	return jsonEnd(dec.InputOffset(), io.MultiReader(dec.Buffered(), r), want)
}

// jsonEnd checks that the bytes after the top-level value, which ended at
// byte off, are white space only.
func jsonEnd(off int64, rest io.Reader, closed json.Delim) error {
	br := bufio.NewReader(rest)
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return fmt.Errorf("invalid JSON near byte %d: data after the closing %q (%q); the rest of the file was not read", off, closed, c)
		}
		off++
	}
}

// lineReader reads lines of bounded length, dropping the CR of CRLF.
type lineReader struct {
	r       *bufio.Reader
	max     int
	lineNo  int64
	tooLong bool // the last line exceeded max and was truncated
	// start and end delimit the last line, its terminator included.
	start, end int64
}

func (lr *lineReader) next() (string, error) {
	var buf []byte
	lr.tooLong = false
	lr.start = lr.end
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.end += int64(len(chunk))
		if len(buf)+len(chunk) <= lr.max {
			buf = append(buf, chunk...)
		} else {
			lr.tooLong = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 && !lr.tooLong {
			return "", io.EOF
		}
		if err != nil && err != io.EOF {
			return "", err
		}
		lr.lineNo++
		s := strings.TrimSuffix(string(buf), "\n")
		return strings.TrimSuffix(s, "\r"), nil
	}
}

func newLineReader(r *bufio.Reader, e *emitter) *lineReader {
	return &lineReader{r: r, max: e.limits.maxLabel() + 4096}
}

// splitCaption splits "name<TAB>label", or "name<SPACE>label" when the line
// has no tab.
func splitCaption(line string) (name, label string, ok bool) {
	if name, label, ok = strings.Cut(line, "\t"); ok {
		return name, label, true
	}
	return strings.Cut(line, " ")
}

// A lineSpan is a line's position: "line N" and its bytes in the file.
type lineSpan struct {
	where      string
	start, end int64
}

// eachLine calls fn for every line of r with its position and whether it
// was longer than the reader keeps.
func eachLine(r *bufio.Reader, e *emitter, fn func(line string, at lineSpan, tooLong bool) error) error {
	lr := newLineReader(r, e)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line, lineSpan{fmt.Sprintf("line %d", lr.lineNo), lr.start, lr.end}, lr.tooLong); err != nil {
			return err
		}
	}
}

func scanCaption(r *bufio.Reader, e *emitter) error {
	var seq int64
	return eachLine(r, e, func(line string, at lineSpan, tooLong bool) error {
		if line == "" && !tooLong {
			return nil // blank lines are not records
		}
		defer func() { seq++ }()
		name, label, ok := splitCaption(line)
		switch {
		case tooLong:
			e.skip(seq, name, at.where, ReasonTooLong)
		case !ok:
			e.skip(seq, name, at.where, ReasonNoSeparator)
		default:
			return e.deliver(Item{Seq: seq, ID: name, Label: label, Start: at.start, End: at.end}, at.where)
		}
		return nil
	})
}

func scanLines(r *bufio.Reader, e *emitter) error {
	var seq int64
	return eachLine(r, e, func(line string, at lineSpan, tooLong bool) error {
		defer func() { seq++ }()
		id := strconv.FormatInt(seq, 10)
		if tooLong {
			e.skip(seq, id, at.where, ReasonTooLong)
			return nil
		}
		return e.deliver(Item{Seq: seq, ID: id, Label: line, Start: at.start, End: at.end}, at.where)
	})
}

func scanJSONL(r *bufio.Reader, src Source, e *emitter) error {
	var fs fields
	var seq int64
	return eachLine(r, e, func(line string, at lineSpan, tooLong bool) error {
		if strings.TrimSpace(line) == "" && !tooLong {
			return nil
		}
		defer func() { seq++ }()
		id := strconv.FormatInt(seq, 10)
		if tooLong {
			e.skip(seq, id, at.where, ReasonTooLong)
			return nil
		}
		return fs.object(json.RawMessage(line), seq, id, at.where, at.start, at.end, src, e)
	})
}

func scanCSV(r io.Reader, format Format, src Source, e *emitter) error {
	cr := csv.NewReader(r)
	if format == TSV {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	pick := func(want string, defaults []string) (string, int) {
		if want != "" {
			if i, ok := col[want]; ok {
				return want, i
			}
			return want, -1
		}
		for _, d := range defaults {
			if i, ok := col[d]; ok {
				return d, i
			}
		}
		return "", -1
	}
	labelName, labelCol := pick(src.Field, defaultLabelFields)
	idName, idCol := pick(src.IDField, defaultIDFields)
	_, predCol := pick("", defaultPredFields)
	if labelCol < 0 {
		return setting.Errorf("no label column (looked for %q in header %q); choose one with %s", orDefaults(src.Field, defaultLabelFields), header, setting.Field)
	}
	e.stats.Field = labelName
	if idCol >= 0 {
		e.stats.IDField = idName
	}
	lastLine := -1
	for seq := int64(0); ; seq++ {
		start := cr.InputOffset()
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		id := strconv.FormatInt(seq, 10)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && pe.StartLine != lastLine {
				lastLine = pe.StartLine
				e.skip(seq, id, fmt.Sprintf("record starting at line %d", pe.StartLine), ReasonMalformed)
				continue
			}
			return err
		}
		line, _ := cr.FieldPos(0) // only after a successful Read: it panics otherwise
		where := fmt.Sprintf("record starting at line %d", line)
		if idCol >= 0 && idCol < len(rec) {
			id = rec[idCol]
		}
		if labelCol >= len(rec) {
			e.skip(seq, id, where, ReasonNoLabel)
			continue
		}
		it := Item{Seq: seq, ID: id, Label: rec[labelCol], Start: start, End: cr.InputOffset()}
		if predCol >= 0 && predCol < len(rec) {
			it.Pred, it.HasPred = rec[predCol], true
		}
		if err := e.deliver(it, where); err != nil {
			return err
		}
	}
}

func orDefaults(want string, defaults []string) string {
	if want != "" {
		return want
	}
	return strings.Join(defaults, ", ")
}
