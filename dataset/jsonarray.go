package dataset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
	if err != nil {
		return s.fault("empty file")
	}
	if c != '[' {
		return s.fault(fmt.Sprintf("expected '[' at the top level, found %q", c))
	}
	return nil
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
		for _, c := range chunk {
			s.add(c)
		}
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
func unquote(raw []byte) (string, bool) {
	raw = raw[1 : len(raw)-1]
	plain := true
	for _, c := range raw {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw, i+3); ok && i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(v), err == nil
}

func scanJSONStrings(r *bufio.Reader, e *emitter) error {
	s := &arrayScanner{r: r, max: e.limits.maxLabel() + 2}
	if err := s.start(); err != nil {
		return err
	}
	for seq := int64(0); ; seq++ {
		raw, err := s.next(seq == 0)
		if err == errArrayEnd {
			return nil
		}
		if err != nil {
			return err
		}
		id := strconv.FormatInt(seq, 10)
		where := "element " + id
		switch {
		case s.long:
			e.skip(seq, id, where, ReasonTooLong)
			continue
		case !utf8.Valid(raw):
			e.skip(seq, id, where, ReasonInvalidUTF8)
			continue
		}
		var label string
		var ok bool
		if raw[0] == '"' {
			label, ok = unquote(raw)
			if !ok {
				e.skip(seq, id, where, ReasonMalformed)
				continue
			}
		} else if json.Valid(raw) {
			if label, ok = coerceString(raw); !ok {
				e.skip(seq, id, where, ReasonNotString)
				continue
			}
		} else {
			return s.fault(fmt.Sprintf("invalid value %.40q", raw))
		}
		if err := e.deliver(Item{Seq: seq, ID: id, Label: label, Start: s.elemStart, End: s.elemEnd}, where); err != nil {
			return err
		}
	}
}
