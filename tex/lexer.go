package tex

import (
	"sync"
	"unicode/utf8"
)

// tokKind is the category of an input token.
type tokKind uint8

const (
	tkChar     tokKind = iota // letter or other character
	tkCS                      // control sequence; s is its name
	tkBegin                   // {
	tkEnd                     // }
	tkSup                     // ^
	tkSub                     // _
	tkAlign                   // &
	tkSpace                   // space
	tkActive                  // ~ (or ' in math, via its mathcode)
	tkShift                   // $
	tkParam                   // #
	tkColorEnd                // internal: end of a \mathcolor body
	tkArgEnd                  // internal: end of a macro argument (\endgroup)
	tkEndgroup                // internal: \frac's \endgroup read after a \right left its numerator (fraction.go)
)

// token is one input token, with LaTeX's catcodes.
type token struct {
	kind tokKind
	c    rune
	s    string
}

// lex splits a formula into tokens (TeX's get_next with LaTeX's
// catcodes: spaces after a control word are skipped, runs of spaces are
// one token, % starts a comment).
func lex(s string) []token {
	toks, _ := lexEnds(s, false)
	return toks
}

// lexEnds is lex, and with ends set also where the lexer resumed after
// each token: the byte offset in s (after the blanks a control word
// skips), for \verb, which reads the rest of the line itself (verb.go).
func lexEnds(s string, ends bool) ([]token, []int32) {
	return lexTo(make([]token, 0, countTokens(s)), s, ends)
}

// lexTo is lexEnds appending the tokens to toks.
func lexTo(toks []token, s string, ends bool) ([]token, []int32) {
	var end []int32
	for i := 0; i < len(s); {
		if ends {
			// each token's end is the position the next iteration
			// starts at
			for len(end) < len(toks) {
				end = append(end, int32(i))
			}
		}
		if b := s[i]; asciiKind[b] != 0 {
			// a character that is one token of its own (lexTo's switch
			// below makes the same token of it)
			toks = append(toks, token{kind: asciiKind[b] - 1, c: rune(b)})
			i++
			continue
		}
		c, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == '\\':
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			if j == i+1 { // control symbol
				if j >= len(s) {
					// \ at the end of the line is \^^M, which LaTeX
					// defines as control space
					toks = append(toks, token{kind: tkCS, s: " "})
					i = j
					continue
				}
				r, m := utf8.DecodeRuneInString(s[j:])
				toks = append(toks, token{kind: tkCS, s: string(r)})
				i = j + m
				if r == ' ' {
					continue
				}
				continue
			}
			toks = append(toks, token{kind: tkCS, s: s[i+1 : j]})
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			i = j
			continue
		case c == '{':
			toks = append(toks, token{kind: tkBegin, c: c})
		case c == '}':
			toks = append(toks, token{kind: tkEnd, c: c})
		case c == '^':
			toks = append(toks, token{kind: tkSup, c: c})
		case c == '_':
			toks = append(toks, token{kind: tkSub, c: c})
		case c == '&':
			toks = append(toks, token{kind: tkAlign, c: c})
		case c == '~':
			toks = append(toks, token{kind: tkActive, c: c})
		case c == '$':
			toks = append(toks, token{kind: tkShift, c: c})
		case c == '#':
			toks = append(toks, token{kind: tkParam, c: c})
		case c == '%':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			toks = append(toks, token{kind: tkSpace, c: ' '})
			i = j
			continue
		case c == 0 || c == 0x7F:
			// ^^@ is ignored (catcode 9); ^^? is invalid (catcode 15)
		default:
			toks = append(toks, token{kind: tkChar, c: c})
		}
		i += n
	}
	for ends && len(end) < len(toks) {
		end = append(end, int32(len(s)))
	}
	return toks, end
}

// asciiKind is, for each ASCII character that the lexer makes one token
// of by itself, its token kind plus one (0 for the others: the
// backslash, the comment sign, blanks, ^^@ and ^^?, and non-ASCII bytes).
var asciiKind = func() (k [256]tokKind) {
	for b := range 128 {
		switch b {
		case '\\', '%', ' ', '\t', '\n', '\r', 0, 0x7F:
			continue
		}
		kind := tkChar
		switch b {
		case '{':
			kind = tkBegin
		case '}':
			kind = tkEnd
		case '^':
			kind = tkSup
		case '_':
			kind = tkSub
		case '&':
			kind = tkAlign
		case '~':
			kind = tkActive
		case '$':
			kind = tkShift
		case '#':
			kind = tkParam
		}
		k[b] = kind + 1
	}
	return k
}()

// lexBufs holds the token buffers typeset lexes formulas into: a
// formula's tokens are read by its parser alone and never kept once its
// layout is made, so one run's buffer serves the next.
var lexBufs sync.Pool

// maxPooledTokens bounds the buffers lexBufs keeps (a hostile formula's
// buffer is left to the collector).
const maxPooledTokens = 1 << 14

// lexPooled lexes s into a buffer from lexBufs; release hands it back
// once nothing reads the tokens any more. A pooled buffer is used as it
// is (appending grows it, once, when a formula needs more), so s is not
// counted first: a coloured formula has about one token for every two
// of its bytes.
func lexPooled(s string) (toks []token, release func()) {
	b, _ := lexBufs.Get().(*[]token)
	if b == nil {
		b = new([]token)
	}
	if cap(*b) < len(s)/4 {
		*b = make([]token, 0, max(len(s)/2, 64))
	}
	toks, _ = lexTo((*b)[:0], s, false)
	return toks, func() {
		if cap(toks) > maxPooledTokens {
			return
		}
		clear(toks) // drop the formula's strings
		*b = toks[:0]
		lexBufs.Put(b)
	}
}

// countTokens is about the number of tokens lexEnds makes of s (at most
// len(s)), to size its slice once: it follows the same rules for control
// words, blanks and comments, and counts one token for every other
// character.
func countTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			if j == i+1 {
				j++ // a control symbol (its rune's other bytes count as characters: an overestimate)
			}
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
				i++
			}
		case c == '%':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		n++
	}
	return n
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
