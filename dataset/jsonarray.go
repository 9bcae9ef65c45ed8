package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// arrayScanner reads the elements of a top-level JSON array one at a time
// as raw bytes, without the per-value cost of encoding/json's Decoder. It
// is used for JSON label lists, the audit protocol's native format, which
// can hold tens of millions of labels.
type arrayScanner struct {
	r    *bufio.Reader
	off  int64 // bytes consumed
	buf  []byte
	max  int // longest element kept; longer ones are read through and dropped
	long bool
	// elemStart and elemEnd delimit the last element returned by next,
	// with the separator before it.
	elemStart, elemEnd int64
}

var errArrayEnd = errors.New("end of array")

func (s *arrayScanner) readByte() (byte, error) {
	c, err := s.r.ReadByte()
	if err == nil {
		s.off++
	}
	return c, err
}

func (s *arrayScanner) skipSpace() (byte, error) {
	for {
		c, err := s.readByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

func (s *arrayScanner) fault(msg string) error {
	return fmt.Errorf("invalid JSON near byte %d: %s; the rest of the file was not read", s.off, msg)
}

// start consumes the opening bracket (after an optional byte order mark).
func (s *arrayScanner) start() error {
	if b, _ := s.r.Peek(3); string(b) == "\xef\xbb\xbf" {
		s.r.Discard(3)
		s.off += 3
	}
	c, err := s.skipSpace()
	if err == io.EOF {
		return errBlank
	}
	if err != nil {
		return s.fault(err.Error())
	}
	if c != '[' {
		return s.fault(fmt.Sprintf("expected '[' at the top level, found %q", c))
	}
	return nil
}

// end checks that only white space follows the closing bracket: a second
// array after the first (two files joined) would otherwise go unread.
func (s *arrayScanner) end() error {
	c, err := s.skipSpace()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return s.fault(err.Error())
	}
	return s.fault(fmt.Sprintf("data after the closing ']' (%q)", c))
}

// next returns the raw bytes of the next element (valid until the next
// call), or errArrayEnd after the closing bracket. first tells whether this
// is the first element, which has no comma before it.
func (s *arrayScanner) next(first bool) ([]byte, error) {
	s.elemStart = s.off // the separator before the element is part of its span
	c, err := s.skipSpace()
	if err != nil {
		return nil, s.fault("unexpected end of file inside the array")
	}
	if c == ']' {
		return nil, errArrayEnd
	}
	if !first {
		if c != ',' {
			return nil, s.fault(fmt.Sprintf("expected ',' or ']', found %q", c))
		}
		if c, err = s.skipSpace(); err != nil {
			return nil, s.fault("unexpected end of file after ','")
		}
	}
	s.buf, s.long = s.buf[:0], false
	s.add(c)
	if c == '"' {
		err = s.readString()
	} else {
		err = s.readOther(c)
	}
	s.elemEnd = s.off
	return s.buf, err
}

func (s *arrayScanner) addAll(b []byte) {
	if room := s.max - len(s.buf); len(b) > room {
		s.buf = append(s.buf, b[:max(room, 0)]...)
		s.long = true
		return
	}
	s.buf = append(s.buf, b...)
}

func (s *arrayScanner) add(c byte) {
	if len(s.buf) < s.max {
		s.buf = append(s.buf, c)
	} else {
		s.long = true
	}
}

func (s *arrayScanner) readString() error {
	run := 0 // backslashes ending the bytes read so far
	for {
		chunk, err := s.r.ReadSlice('"')
		s.off += int64(len(chunk))
		s.addAll(chunk)
		if err == bufio.ErrBufferFull {
			run = trailingBackslashes(chunk, run)
			continue
		}
		if err != nil {
			return s.fault("unterminated string")
		}
		// The quote ends the string unless an odd run of backslashes
		// precedes it.
		if trailingBackslashes(chunk[:len(chunk)-1], run)%2 == 0 {
			return nil
		}
		run = 0
	}
}

// trailingBackslashes counts the backslashes that end b, adding carry when
// b is all backslashes.
func trailingBackslashes(b []byte, carry int) int {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	if n == len(b) {
		return carry + n
	}
	return n
}

// readOther reads a number, literal, array or object element.
func (s *arrayScanner) readOther(c byte) error {
	depth := 0
	if c == '[' || c == '{' {
		depth = 1
	}
	inString, escaped := false, false
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return s.fault("unexpected end of file in a value")
		}
		c := b[0]
		if depth == 0 && (c == ',' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
			return nil
		}
		s.readByte()
		s.add(c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '[' || c == '{'):
			depth++
		case !inString && (c == ']' || c == '}'):
			depth--
		}
	}
}

// unquote decodes a JSON string literal, quotes included. It refuses raw
// control characters and malformed escapes, as a strict JSON parser does.
// Runs without escapes are copied in bulk into one allocation.
func unquote(raw []byte) (string, bool) {
	raw = raw[1 : len(raw)-1]
	var out strings.Builder
	out.Grow(len(raw))
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			i = len(raw)
		}
		if hasControl(raw[:i]) {
			return "", false
		}
		out.Write(raw[:i])
		if i == len(raw) {
			break
		}
		raw = raw[i+1:] // after the backslash
		if len(raw) == 0 {
			return "", false
		}
		n := 1 // bytes of the escape after the backslash
		switch raw[0] {
		case '"', '\\', '/':
			out.WriteByte(raw[0])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw, 1)
			if !ok {
				return "", false
			}
			n = 5
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw, 7); ok && len(raw) >= 11 && raw[5] == '\\' && raw[6] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						n = 11
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out.WriteRune(r)
		default:
			return "", false
		}
		raw = raw[n:]
	}
	return out.String(), true
}

// hasControl reports whether b holds a byte below 0x20, eight bytes at a
// time: a word has such a byte exactly when (x − 0x20…20) & ^x & 0x80…80
// is not zero.
func hasControl(b []byte) bool {
	const lo, hi = 0x2020202020202020, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if (x-lo)&^x&hi != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// hex4 reads the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(v), err == nil
}

// scanJSONStrings is the serial reader of JSON string lists, the oracle
// of the parallel one (scanJSONStringsParallel) in the tests.
func scanJSONStrings(r *bufio.Reader, e *emitter) error {
	s := &arrayScanner{r: r, max: e.limits.maxLabel() + 2}
	if err := s.start(); err != nil {
		return err
	}
	return s.elements(0, e)
}

// elements reads the elements of the array from the one numbered seq on
// (the serial reader; see scanJSONStringsParallel for the parallel one).
func (s *arrayScanner) elements(seq int64, e *emitter) error {
	for ; ; seq++ {
		raw, err := s.next(seq == 0)
		if err == errArrayEnd {
			return s.end()
		}
		if err != nil {
			return err
		}
		id := strconv.FormatInt(seq, 10)
		switch {
		case s.long:
			e.skip(seq, id, "element "+id, ReasonTooLong)
			continue
		case !utf8.Valid(raw):
			e.skip(seq, id, "element "+id, ReasonInvalidUTF8)
			continue
		}
		var label string
		var ok bool
		if raw[0] == '"' {
			label, ok = unquote(raw)
			if !ok {
				e.skip(seq, id, "element "+id, ReasonMalformed)
				continue
			}
		} else if json.Valid(raw) {
			if label, ok = coerceString(raw); !ok {
				e.skip(seq, id, "element "+id, ReasonNotString)
				continue
			}
		} else {
			return s.fault(fmt.Sprintf("invalid value %.40q", raw))
		}
		if err := e.deliverAt(Item{Seq: seq, ID: id, Label: label, Start: s.elemStart, End: s.elemEnd}, "element "); err != nil {
			return err
		}
	}
}
