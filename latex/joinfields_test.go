package latex

import (
	"strings"
	"testing"
)

// TestPyJoinFieldsMatchesFieldsFunc checks pyJoinFields against the
// strings.Join of strings.FieldsFunc it replaces.
func TestPyJoinFieldsMatchesFieldsFunc(t *testing.T) {
	for _, s := range []string{
		"", " ", "  ", "a", " a", "a ", "a b", "a  b", "\\frac { a } { b }", "a\tb", "a\nb", "\x1cx\x1f",
		"x\u00a0y", "x\u3000y", "\u00a0", "\u2028a", "、 。", "é è", "a \u200b b", " \\sum _ { i } ",
	} {
		want := strings.Join(strings.FieldsFunc(s, isPySpace), " ")
		if got := pyJoinFields(s); got != want {
			t.Errorf("pyJoinFields(%q) = %q, want %q", s, got, want)
		}
	}
}
