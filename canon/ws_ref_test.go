package canon_test

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// refCanonWS is the ws level written the plain way, rune by rune, as it
// was before the byte-level fast paths: the oracle they are checked
// against.
func refCanonWS(s string) string {
	if !isASCII(s) {
		s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	}
	s = canon.StripWrappers(s)
	letter := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
	var b strings.Builder
	afterWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		next := rune(-1)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '\\' && letter(next):
			j := i + 1
			for j < len(rs) && letter(rs[j]) {
				j++
			}
			b.WriteString(string(rs[i:j]))
			i, afterWord = j, true
		case r == '\\' && next >= 0 && canon.IsSpace(next):
			b.WriteString(`\ `)
			for i += 2; i < len(rs) && canon.IsSpace(rs[i]); i++ {
			}
			afterWord = false
		case r == '\\' && next >= 0:
			b.WriteString(string(rs[i : i+2]))
			i, afterWord = i+2, false
		case canon.IsSpace(r):
			for i < len(rs) && canon.IsSpace(rs[i]) {
				i++
			}
			if afterWord && i < len(rs) && letter(rs[i]) {
				b.WriteByte(' ')
			}
		default:
			b.WriteRune(r)
			i, afterWord = i+1, false
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TestWSAgainstReference checks WSKey and the ws level's AppendKey
// (byte-level fast paths) against refCanonWS on edge cases and on every
// label of the shared label lists.
func TestWSAgainstReference(t *testing.T) {
	cases := []string{"", " ", "\\", "\\ ", "a\\", "\\alpha b", "\\alpha  2", "\\ \t x", "x\u00a0y", "\\alpha\u3000b", "a\xffb \\c d",
		"\\\u00e9 x", "$ x $", "\\[ \\frac { a } { b } \\]", "\\begin{equation} x \\end{equation}", "e\u0301 \\cdot  x", "\u200b\\sin\ufeffx"}
	files, _ := filepath.Glob(filepath.Join(shareddata.Find(), "labels", "*.json"))
	for _, f := range files {
		cases = append(cases, shareddata.JSONStrings(t, filepath.Join("labels", filepath.Base(f)))...)
	}
	ws, _ := canon.ParseLevels("ws")
	bad := 0
	for _, s := range cases {
		want := refCanonWS(s)
		if got := canon.WSKey(s); got != want {
			if bad++; bad <= 5 {
				t.Errorf("WSKey(%q) = %q, want %q", s, got, want)
			}
		}
		if got := string(ws[0].Append(nil, s)); got != want {
			if bad++; bad <= 5 {
				t.Errorf("ws Append(%q) = %q, want %q", s, got, want)
			}
		}
	}
	t.Logf("%d labels (%d label files)", len(cases), len(files))
}
