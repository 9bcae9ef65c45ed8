package tex

import (
	"errors"
	"fmt"
	"testing"
)

// TestLayoutGoldenInline checks TypesetInline against real LaTeX: the
// formulas of testdata/layout_golden_inline.jsonl.gz (tex/internal/
// dvigolden -inline) were typeset uncoloured as in-line math in l2p's
// 10 pt article, and the engine must put every glyph and rule where the
// DVI has them. Records LaTeX reported errors for, and formulas LaTeX
// broke across lines (the engine sets one line), are left out.
func TestLayoutGoldenInline(t *testing.T) {
	recs := readGoldenFile(t, "testdata/layout_golden_inline.jsonl.gz")
	var inScope, exact, unsupported, refused, broken, skipped int
	why := map[string]int{}
	var fails []string
	for i := range recs {
		r := &recs[i]
		if !r.Found || len(r.Errors) > 0 {
			skipped++
			continue
		}
		if r.Broken {
			broken++
			continue
		}
		l, err := TypesetInline(r.Colored)
		switch {
		case errors.Is(err, ErrUnsupported):
			why[err.Error()]++
			unsupported++
			continue
		case err != nil:
			refused++
			fails = append(fails, fmt.Sprintf("%s: %v", r.Input, err))
			continue
		}
		inScope++
		if msg := compareLayout(r, l); msg != "" {
			fails = append(fails, fmt.Sprintf("%s\n    %s", r.Input, msg))
			continue
		}
		if l.Width != Scaled(r.Width) {
			fails = append(fails, fmt.Sprintf("%s\n    width %.3f pt, golden %.3f", r.Input, l.Width.Pt(), Scaled(r.Width).Pt()))
			continue
		}
		exact++
	}
	t.Logf("%d inline golden formulas (%d with LaTeX errors or not shipped, %d broken across lines left out): %d in scope, %d exact (%.2f%%); %d unsupported, %d failed",
		len(recs), skipped, broken, inScope, exact, 100*float64(exact)/float64(max(inScope, 1)), unsupported, refused)
	logReasons(t, why, fails)
	if inScope < 1000 {
		t.Errorf("only %d inline golden formulas in scope", inScope)
	}
	if float64(exact) < 0.95*float64(inScope) || refused > 0 {
		t.Errorf("%d of %d in-scope formulas exact (the bar is 95%%), %d refused", exact, inScope, refused)
	}
}
