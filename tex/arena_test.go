package tex

import (
	"reflect"
	"testing"

	"github.com/leakaudit/leakaudit/latex"
)

// TestArenaReuse lays formulas out one after another, so that each
// reuses the arena its predecessor handed back, and checks that every
// layout is the one the formula gets from a fresh arena: nothing of a
// previous formula leaks into the next.
func TestArenaReuse(t *testing.T) {
	formulas := []string{
		`x ^ { 2 } _ { i } + \frac { a } { b }`,
		`\sqrt [ 3 ] { \left( \sum _ { k = 1 } ^ { n } k \right) }`,
		`\begin{array} { l r } a & b \\ c & d \end{array}`,
		`\hat { x } \cdot \overline { y z } = \mathrm { d } t`,
		`a`,
		`\int _ { 0 } ^ { \infty } e ^ { - x ^ { 2 } } d x = \frac { \sqrt { \pi } } { 2 }`,
	}
	var colored []string
	for _, f := range formulas {
		res, err := latex.TokenizeCDM(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		colored = append(colored, res.Rendered())
	}
	fresh := func(s string) *Layout {
		arenas.Put(new(arena)) // the next layout's arena is a new one
		l, err := Typeset(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return l
	}
	want := make([]*Layout, len(colored))
	for i, s := range colored {
		want[i] = fresh(s)
	}
	// every formula after every other, each on the arena the one before
	// handed back
	for _, a := range colored {
		for j, b := range colored {
			if _, err := Typeset(a); err != nil {
				t.Fatal(err)
			}
			got, err := Typeset(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want[j]) {
				t.Errorf("%s after %s: layout differs from a fresh arena's", formulas[j], a)
			}
		}
	}
}
