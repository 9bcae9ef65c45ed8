package tex

import "testing"

// TestMathColorFastPaths checks that the token-level readings of a
// \mathcolor's model and spec (isRGB, digitsRGB) and of a colour body
// (operatornameText) agree with the text-level ones they stand in for
// (tokText, parseRGB) on the palette's specs and on every odd spec a
// formula may carry.
func TestMathColorFastPaths(t *testing.T) {
	specs := []string{
		"0,0,15", "255,255,255", "15,30,45", "0,0,0", "007,08,9", "256,0,0", "0,0,256", "999,1,1",
		"1,2", "1,2,3,4", ",1,2", "1,,2", "1,2,", "", "1 ,2,3", " 1,2,3 ", "1,2,3 ", "+1,2,3", "-1,2,3",
		"1000,0,0", "0001,2,3", "a,b,c", "1.5,2,3", "１,2,3", `\x,1,2`, "{1},2,3", "1,2,3{}",
	}
	for _, spec := range specs {
		toks := lex(spec)
		wr, wg, wb, wok := parseRGB(tokString(toks))
		r, g, b, ok, sure := digitsRGB(toks)
		if !sure {
			continue // parseRGB reads it
		}
		if ok != wok || ok && (r != wr || g != wg || b != wb) {
			t.Errorf("spec %q: digitsRGB %d,%d,%d %v, parseRGB %d,%d,%d %v", spec, r, g, b, ok, wr, wg, wb, wok)
		}
	}
	for _, model := range []string{"RGB", "rgb", "RG", "RGBA", " RGB", "R G B", "{RGB}", `\RGB`, "ＲGB"} {
		toks := lex(model)
		if isRGB(toks) && tokString(toks) != "RGB" {
			t.Errorf("model %q: isRGB, text %q", model, tokString(toks))
		}
	}
	p := &parser{}
	for _, body := range []string{`\operatorname`, `\operatorname*`, `\operatorname *`, ` \operatorname `, `x`, `\frac`, `\operatornamex`, `{\operatorname}`, `\\operatorname`, `\operatorname\operatorname`} {
		toks := lex(body)
		want := tokString(toks)
		got := p.operatornameText(toks)
		if (got == `\operatorname` || got == `\operatorname*`) != (want == `\operatorname` || want == `\operatorname*`) || got != "" && got != want {
			t.Errorf("body %q: operatornameText %q, text %q", body, got, want)
		}
	}
}
