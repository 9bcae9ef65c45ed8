package synth

import (
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
)

func TestGeneratorDeterministic(t *testing.T) {
	a, b := New(7), New(7)
	for i := 0; i < 1000; i++ {
		if x, y := a.Formula(), b.Formula(); x != y {
			t.Fatalf("formula %d differs: %q vs %q", i, x, y)
		}
	}
}

func TestCompactKeepsMeaning(t *testing.T) {
	g := New(3)
	for i := 0; i < 2000; i++ {
		f := g.Formula()
		c := Compact(f)
		if canon.WSKey(c) != canon.WSKey(f) || canon.AuditKey(c) != canon.AuditKey(f) {
			t.Fatalf("Compact(%q) = %q changes the ws or audit key", f, c)
		}
		if strings.Contains(Glued(f), " ") {
			t.Fatalf("Glued kept a space: %q", Glued(f))
		}
	}
	if got := Compact(`\alpha b + \frac { 1 } { x }`); got != `\alpha b+\frac{1}{x}` {
		t.Errorf("Compact = %q", got)
	}
}
