package tex

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unicode/utf8"
)

// lexToBySwitch is lexTo as written before single-character tokens were
// looked up in asciiKind. TestLexASCIITable compares the two.
func lexToBySwitch(toks []token, s string, ends bool) ([]token, []int32) {
	var end []int32
	for i := 0; i < len(s); {
		if ends {
			// each token's end is the position the next iteration
			// starts at
			for len(end) < len(toks) {
				end = append(end, int32(i))
			}
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

// TestLexASCIITable lexes random strings of every ASCII character and a
// few others with lexTo and lexToBySwitch, token ends included, and
// requires the same tokens.
func TestLexASCIITable(t *testing.T) {
	alphabet := []rune{'é', '√', 'α', '中', utf8.RuneError}
	for b := range 128 {
		alphabet = append(alphabet, rune(b))
	}
	rng := rand.New(rand.NewPCG(37, 1))
	for range 20000 {
		r := make([]rune, rng.IntN(24))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(r)
		for _, ends := range []bool{false, true} {
			got, gotEnds := lexTo(nil, s, ends)
			want, wantEnds := lexToBySwitch(nil, s, ends)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotEnds, wantEnds) {
				t.Fatalf("%q (ends %v): lexTo %v %v, by switch %v %v", s, ends, got, gotEnds, want, wantEnds)
			}
		}
	}
}
