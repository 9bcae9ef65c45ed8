package cdm

import "testing"

// TestScriptCutAtEnd: a prediction cut right after a _ or ^ (im2latex's
// cut tails, after an unclosed \left or {, where the reference's
// colouring keeps the script character) is set by pdflatex after its
// errors: \end{displaymath} is read as the field ("Missing { inserted"),
// the display's $ closes the new group ("Missing } inserted") and the
// script is empty. Reference-scored pairs (UniMERNet cdm/ run locally);
// the first three and the last two are from the fresh printed seed
// 3580491749, where the engine called them fatal (F1 0).
func TestScriptCutAtEnd(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\Phi \left( g _ { 1 } , g _ { 2 } \right) = \Phi \left( g _ { 2 } , g _ { 1 } \right)`,
			`\Phi \left( g _ { 1 } , g _`, 0.522},
		{`f \left( x _ { 1 } , x _ { 2 } \right) = 0`,
			`f \left( x _ { 1 } , x ^`, 0.75},
		{`\left[ a ^ { 2 } + b ^ { 2 } \right] = c ^ { 2 }`,
			`\left[ a ^ { 2 } + b ^`, 0.667},
		{`x = { a _ { i } b _ { j } }`,
			`x = { a _ { i } b _`, 0.909},
		{`\left\{ \frac { 1 } { 2 } \sum _ { i } x _ { i } \right\}`,
			`\left\{ \frac { 1 } { 2 } \sum _`, 0.714},
		{`\left( \int _ { 0 } ^ { 1 } f ( x ) d x \right) ^ { 2 }`,
			`\left( \int _ { 0 } ^`, 0.4},
		{`\left| \psi _ { n } \right| ^ { 2 } = 1`,
			`\left| \psi _`, 0.444},
		{`\left( A _ { \mu } B ^ { \nu } \right)`,
			`\left( A _ { \mu } B ^`, 0.8},
		{`\left( x ^ { \prime } _ { 1 } \right)`,
			`\left( x ^ { \prime } _`, 0.75},
		{`c _ { d } ( f _ { 1 } , f _ { 2 } ) = d \left\{ m _ { 1 } \lambda _ { 2 } - m _ { 2 } \lambda _ { 1 } + \frac { 1 } { 4 \pi } \int _ { 0 } ^ { 2 \pi } \biggl ( \frac { d \tilde { f } _ { 1 } } { d \sigma } \tilde { f } _ { 2 } - \frac { d \tilde { f } _ { 2 } } { d \sigma } \tilde { f } _ { 1 } \biggr ) d \sigma \right\} .`,
			`c _ { d } ( f _ { 1 } , f _ { 2 } ) = d \left\{ m _ { 1 } \lambda _ { 2 } - m _ { 2 } \lambda _ { 1 } + \frac { 1 } { 4 \pi } \int _ { 0 } ^ { 2 \pi } \biggl ( \frac { d \tilde { f } _ { 1 } } { d \sigma } \tilde { f } _ { 2 } - \frac { d \tilde { f } _ { 2 } } { d \sigma } \tilde { f } _`, 0.944},
		{`\sigma _ { \mathrm { c l } } = \int d x _ { \bot } \left[ \frac { 1 } { 2 } ( \partial _ { \bot } h ( x _ { \bot } ) ) ^ { 2 } - \frac { m ^ { 2 } } { 2 } h ( x _ { \bot } ) ^ { 2 } + \frac { \lambda } { 4 ! } h ( x _ { \bot } ) ^ { 4 } + \frac { 3 m ^ { 4 } } { 2 \lambda } \right] ,`,
			`\sigma _ { \mathrm { l c } } = \int d x _ { \bot } \left[ \frac { 1 } { 2 } ( \partial _ { \bot } h ( x _ { \bot } ) ) ^`, 0.568},
		{`\frac { 1 } { 2 } \left( x _ { 1 } + x _ { 2 } \right)`,
			`\frac { 1 } { 2 } \left( x _ { 1 } + x _`, 0.889},
		{`\left( \sum _ { k } a _ { k } ^ { 2 } \right)`,
			`\left( \sum _ { k } a _ { k } ^`, 0.833},
		{`{ \alpha _ { 1 } \beta ^ { 2 } }`,
			`{ \alpha _ { 1 } \beta ^`, 0.857},
	}, true)
	// after a \right the colouring drops the ^: no error left to report
	checkRecovered(t, []referencePair{
		{`{ \cal L } = \left( \partial _ { \mu } \phi \right) ^ { 2 }`,
			`{ \cal L } = \left( \partial _ { \mu } \phi \right) ^`, 0.933},
	}, false)
}

// TestRightInStyledFraction: amsmath's \dfrac and \tfrac are \genfrac's
// {\displaystyle{\begingroup#1\endgroup\@@over\relax#2}}: a \right in an
// argument (its \left dropped) is off_save's as in \frac, with one }
// more inserted for the outer group. The reference's tokenizer fails on
// these predictions and its colouring leaves \dfrac alone in its
// \mathcolor body, so that the colour's end is #1 and the rule is drawn
// after the colour is popped (no box of \dfrac's colour).
func TestRightInStyledFraction(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`\left( 1 + \dfrac { \left( a + b \right) } { 2 } \right)`,
			`\left( 1 + \dfrac { a + b \right) } { 2 } \right)`, 0.737},
		{`\left( \dfrac { 1 } { \left( x \right) } \right)`,
			`\left( \dfrac { 1 } { x \right) } \right)`, 0.545},
		{`\left( \tfrac { 1 } { \left( x \right) } \right) + y`,
			`\left( \tfrac { 1 } { x \right) } \right) + y`, 0.667},
		{`x = \left[ \tfrac { \left[ a \right] } { b } + c \right]`,
			`x = \left[ \tfrac { a \right] } { b } + c \right]`, 0.737},
		{`\left( a + { b \dfrac { \left( c \right) } { d } } \right)`,
			`\left( a + { b \dfrac { c \right) } { d } } \right)`, 0.588},
		{`y = \dfrac { \left( a \right) } { b }`,
			`y = \dfrac { a \right) } { b }`, 0.545},
		{`\sqrt { \dfrac { \left( a + b \right) } { c } } + d`,
			`\sqrt { \dfrac { a + b \right) } { c } } + d`, 0.824},
		{`\left| \tfrac { \partial f } { \partial \left( x \right) } \right| \leq 1`,
			`\left| \tfrac { \partial f } { \partial x \right) } \right| \leq 1`, 0.632},
		{`f = \left\{ 1 + \dfrac { x ^ { 2 } } { \left\{ y \right\} } \right\} d x`,
			`f = \left\{ 1 + \dfrac { x ^ { 2 } } { y \right\} } \right\} d x`, 0.72},
		{`\left( { a + \tfrac { \left( b \right) } { c } } \right)`,
			`\left( { a + \tfrac { b \right) } { c } } \right)`, 0.667},
	}, true)
}

// TestLapAlone: the reference's colouring leaves \llap and \rlap alone
// in a \mathcolor body, so that the colour's end is their argument:
// \hb@xt@\z@{\hss#1} is an empty box of width zero, and what was to be
// lapped follows as an ordinary group. Reference-scored pairs; the last
// is the ground truth the fresh printed seed 3580491749 left out
// (engine_unsupported: \llap).
func TestLapAlone(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`a = [ \kern - 0 . 4 5 e m \llap [ b`,
			`a = [ \kern - 0 . 4 5 e m \llap [ b`, 1.0},
		{`x \llap { / } y = z`,
			`x \llap { / } y = z`, 1.0},
		{`x \llap { / } y = z`,
			`x y = z`, 0.889},
		{`\rlap { / } D = \gamma ^ { \mu } D _ { \mu }`,
			`\rlap { / } D = \gamma ^ { \mu } D _ { \mu }`, 1.0},
		{`\rlap { / } D = \gamma ^ { \mu } D _ { \mu }`,
			`\rlap { / } D = \gamma ^ { \nu } D _ { \mu }`, 0.857},
		{`\llap { - } \int f = 0`,
			`\llap { - } \int f = 0`, 1.0},
		{`[ [ \llap [ a , b ] ]`,
			`[ [ \llap [ a , b ] ]`, 1.0},
		{`\delta _ { \kappa } J _ { \mu } ^ { a b } ( x ) = { \frac 1 2 } [ \kern - 0 . 4 5 e m \llap [ ~`,
			`\delta _ { \kappa } J _ { \mu } ^ { a b } ( x ) = { \frac 1 2 } [ \kern - 0 . 4 5 e m \llap [ ~`, 1.0},
	}, false)
}

// TestGlyphEdgePair: a pair of the fresh handwritten seed 3580491749
// whose F1 turned on one pixel: the right edge of cmmi12's a and the top
// of cmsy8's \circ, which the AFM box put on the wrong side of the raster
// threshold before the per-glyph corrections (tex.glyphAdjust).
func TestGlyphEdgePair(t *testing.T) {
	checkRecovered(t, []referencePair{
		{`( 1 8 0 ^ { \circ } - a ) - ( 1 0 ^ { \circ } - a ) = ( 1 8 0 ^ { \circ } - 2 B + 6 ^ { \circ } ) - ( 6 0 ^ { \circ } - \frac { 1 } { 3 } B - 1 4 ^ { \circ } )`,
			`(180^{ \circ}- \alpha)-(10^{ \circ}- \alpha)=(180^{ \circ}-2 \beta+6^{ \circ})-(60^{ \circ}- \frac{1}{3}- \beta-14^{ \circ})`, 0.899},
	}, false)
}
