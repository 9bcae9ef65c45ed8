package inkraster

import (
	"math"

	"github.com/leakaudit/leakaudit/dataset"
)

// glyphs are made-up handwriting symbols, polylines in a unit box.
var glyphs = map[byte][]dataset.Stroke{
	'x': {{{0, 0}, {1, 1}}, {{1, 0}, {0, 1}}},
	'2': {{{0, 0.2}, {0.3, 0}, {0.8, 0}, {1, 0.3}, {0, 1}, {1, 1}}},
	'+': {{{0.5, 0.1}, {0.5, 0.9}}, {{0.1, 0.5}, {0.9, 0.5}}},
	'y': {{{0, 0}, {0.5, 0.6}}, {{1, 0}, {0.2, 1.3}}},
	'=': {{{0, 0.35}, {1, 0.35}}, {{0, 0.65}, {1, 0.65}}},
	'1': {{{0.2, 0.2}, {0.6, 0}, {0.6, 1}}},
	'7': {{{0, 0}, {1, 0}, {0.4, 1}}},
	'a': {{{1, 0.3}, {0.5, 0}, {0, 0.5}, {0.5, 1}, {1, 0.6}}, {{1, 0}, {1, 1}}},
	'b': {{{0, -0.6}, {0, 1}}, {{0, 0.5}, {0.5, 0}, {1, 0.5}, {0.5, 1}, {0, 0.8}}},
	'-': {{{0, 0.5}, {1, 0.5}}},
}

// Formula returns made-up handwriting of s: one glyph per byte of
// "x2+y=17ab-" (others are left blank), laid out left to right with a
// slight wobble, so that the ink is wide as a written formula's is. It is
// the tests' fixture of strokes that no dataset holds.
func Formula(s string) []dataset.Stroke {
	var out []dataset.Stroke
	for i := 0; i < len(s); i++ {
		for _, g := range glyphs[s[i]] {
			var st dataset.Stroke
			for j, p := range g {
				wob := 0.03 * math.Sin(float64(7*i+3*j))
				st = append(st, [2]float64{100 * (1.4*float64(i) + p[0] + wob), 100 * (p[1] - wob)})
			}
			out = append(out, st)
		}
	}
	return out
}
