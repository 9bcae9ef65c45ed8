package canon

import (
	"strings"
	"testing"
)

// TestAuditKeyOfSpaceless: the audit key from the label less its spaces
// is AuditKey's, with the delimiters at the very ends, after or among
// spaces, overlapping or not there.
func TestAuditKeyOfSpaceless(t *testing.T) {
	for _, label := range []string{
		``, ` `, `x`, `a b`, `\[x\]`, `\[ x \]`, `\[\]`, `\[ \]`, `\[`, `\]`, `\[]`, `\[\`,
		` \[x\]`, `\[x\] `, `\ [x\]`, `\[x\ ]`, `\[\]\]`, `\[ \[ x \] \]`, `\\[x\\]`, `\[x \]  `,
		"\\[\tx\\]", "é \\[ α \\]",
	} {
		got := AuditKeyOfSpaceless(label, strings.ReplaceAll(label, " ", ""))
		if want := AuditKey(label); got != want {
			t.Errorf("%q: AuditKeyOfSpaceless %q, AuditKey %q", label, got, want)
		}
	}
}
