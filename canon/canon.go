package canon

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// AuditKey is the published audit protocol's canonical function, byte for
// byte (docs/canonical-ladder.md §1.2): if s starts with `\[` and ends with `\]` the
// two delimiters are removed once, on the raw string with no trimming first;
// then every U+0020 is deleted. Tabs, newlines, other Unicode spaces and
// zero-width characters are kept, and no Unicode normalization or case
// folding is applied.
func AuditKey(s string) string {
	if len(s) >= 4 && strings.HasPrefix(s, `\[`) && strings.HasSuffix(s, `\]`) {
		s = s[2 : len(s)-2]
	}
	return strings.ReplaceAll(s, " ", "")
}

// AppendAuditKey appends AuditKey(s) to dst.
func AppendAuditKey(dst []byte, s string) []byte {
	if len(s) >= 4 && strings.HasPrefix(s, `\[`) && strings.HasSuffix(s, `\]`) {
		s = s[2 : len(s)-2]
	}
	// Every byte is written and only the non-spaces advance: labels are
	// often spaced token by token, where a search for each space costs
	// more than this branch-free copy.
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)]
	for i := 0; i < len(s); i++ {
		c := s[i]
		dst[n] = c
		if c != ' ' {
			n++
		}
	}
	return dst[:n]
}

// AuditKeyOfSpaceless returns AuditKey(label) given noSpace, which must be
// label with every U+0020 removed, without copying: the delimiters `\[`
// and `\]` hold no space, so removing them from the label and then its
// spaces is removing its spaces and then the first and last two bytes.
func AuditKeyOfSpaceless(label, noSpace string) string {
	if len(label) >= 4 && strings.HasPrefix(label, `\[`) && strings.HasSuffix(label, `\]`) {
		return noSpace[2 : len(noSpace)-2]
	}
	return noSpace
}

// IsSpace reports whether r counts as whitespace for the ws level: the
// Unicode White_Space property plus U+200B ZERO WIDTH SPACE and U+FEFF ZERO
// WIDTH NO-BREAK SPACE.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200B' || r == '\uFEFF'
}

// wrapperEnvs are the environments whose outer \begin … \end pair the ws
// level strips.
var wrapperEnvs = []string{"equation", "equation*", "displaymath", "math"}

// wrapperPairs are the \begin and \end lines of wrapperEnvs.
var wrapperPairs = func() (p [][2]string) {
	for _, env := range wrapperEnvs {
		p = append(p, [2]string{`\begin{` + env + `}`, `\end{` + env + `}`})
	}
	return p
}()

// WSKey is the ws level (L2, docs/canonical-ladder.md §2): NFC, trim, strip outer
// display wrappers repeatedly (\[…\], \(…\), $$…$$, $…$ when the inside has
// no other unescaped $, and the equation, equation*, displaymath and math
// environments), then drop every whitespace run except one that separates a
// control word from a following ASCII letter, which becomes one U+0020.
// A control space (a backslash followed by whitespace) is kept as `\ `.
// Invalid UTF-8 bytes become U+FFFD first, so that deleting whitespace can
// never join stray bytes into a character that was not there.
func WSKey(s string) string {
	if !isASCII(s) { // ASCII is already in NFC
		s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	}
	s = StripWrappers(s)
	return squeezeSpace(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// StripWrappers trims s and strips outer math wrappers until none is left.
// It is the second step of [WSKey].
func StripWrappers(s string) string {
	s = strings.TrimFunc(s, IsSpace)
	for {
		inner, ok := stripOne(s)
		if !ok {
			return s
		}
		s = strings.TrimFunc(inner, IsSpace)
	}
}

func stripOne(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\\' && s[0] != '$' {
		return s, false // every wrapper opens with one of them
	}
	switch {
	case len(s) >= 4 && strings.HasPrefix(s, `\[`) && endsWithControlSymbol(s, ']'):
		return s[2 : len(s)-2], true
	case len(s) >= 4 && strings.HasPrefix(s, `\(`) && endsWithControlSymbol(s, ')'):
		return s[2 : len(s)-2], true
	case len(s) >= 4 && strings.HasPrefix(s, "$$") && strings.HasSuffix(s, "$$") && unescapedAt(s, len(s)-2):
		return s[2 : len(s)-2], true
	case len(s) >= 2 && s[0] == '$' && s[len(s)-1] == '$' && unescapedAt(s, len(s)-1):
		inner := s[1 : len(s)-1]
		for i := 0; i < len(inner); i++ {
			if inner[i] == '$' && unescapedAt(inner, i) {
				return s, false
			}
		}
		return inner, true
	}
	for _, p := range wrapperPairs {
		begin, end := p[0], p[1]
		if len(s) >= len(begin)+len(end) && strings.HasPrefix(s, begin) && strings.HasSuffix(s, end) {
			return s[len(begin) : len(s)-len(end)], true
		}
	}
	return s, false
}

// endsWithControlSymbol reports whether s ends with the control symbol \c,
// that is with c preceded by an odd run of backslashes (`\\]` is a line
// break followed by a bracket, not `\]`).
func endsWithControlSymbol(s string, c byte) bool {
	n := len(s)
	if n < 2 || s[n-1] != c {
		return false
	}
	return backslashesBefore(s, n-1)%2 == 1
}

// unescapedAt reports whether the byte at i is not escaped by a backslash.
func unescapedAt(s string, i int) bool { return backslashesBefore(s, i)%2 == 0 }

func backslashesBefore(s string, i int) int {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// squeezeSpace is the lexing step of WSKey.
func squeezeSpace(s string) string {
	return string(appendSqueezed(make([]byte, 0, len(s)), s))
}

// plainASCII marks the bytes appendSqueezed copies without looking
// further: ASCII other than the backslash and whitespace.
var plainASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c != '\\' && !IsSpace(rune(c))
	}
	return t
}()

// AppendWSKey appends WSKey(s) to dst.
func AppendWSKey(dst []byte, s string) []byte {
	if !isASCII(s) {
		return append(dst, WSKey(s)...)
	}
	return appendSqueezed(dst, StripWrappers(s))
}

// appendSqueezed appends squeezeSpace(s) to dst.
func appendSqueezed(dst []byte, s string) []byte {
	afterWord := false // the last token emitted was a control word
	for i := 0; i < len(s); {
		if plainASCII[s[i]] {
			// A run of ASCII that is neither a backslash nor a space is
			// copied as it is.
			j := i + 1
			for j < len(s) && plainASCII[s[j]] {
				j++
			}
			dst = append(dst, s[i:j]...)
			i, afterWord = j, false
			continue
		}
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		next, nn := rune(-1), 0
		if i+n < len(s) {
			if next, nn = rune(s[i+n]), 1; next >= utf8.RuneSelf {
				next, nn = utf8.DecodeRuneInString(s[i+n:])
			}
		}
		switch {
		case r == '\\' && isASCIILetter(next):
			j := i + 1
			for j < len(s) && isASCIILetter(rune(s[j])) {
				j++
			}
			dst = append(dst, s[i:j]...)
			i, afterWord = j, true
		case r == '\\' && nn > 0 && IsSpace(next):
			dst = append(dst, `\ `...)
			i = skipSpace(s, i+1+nn)
			afterWord = false
		case r == '\\' && nn > 0:
			dst = append(dst, s[i:i+1+nn]...)
			i, afterWord = i+1+nn, false
		case IsSpace(r):
			i = skipSpace(s, i)
			if afterWord && i < len(s) && isASCIILetter(rune(s[i])) {
				dst = append(dst, ' ')
			}
		default:
			dst = append(dst, s[i:i+n]...)
			i, afterWord = i+n, false
		}
	}
	return dst
}

// skipSpace returns the index of the first non-space rune at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c] || c == '\\' {
				break
			}
			i++ // an ASCII space
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
