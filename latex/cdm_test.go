package latex

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

func TestNormalizeLatexCDM(t *testing.T) {
	tests := []struct{ in, want string }{
		{`x ^ { 2 }`, ` x ^ { 2 } `},
		{`\hat x`, ` \hat { x } `},
		{`\hat \bar x`, ` \hat { \bar { x } } `},
		{`\sqrt x`, ` \sqrt { x } `},
		{`\sqrt [ n ] x`, ` \sqrt [ n ] { x } `},
		{`\frac a b`, ` \frac { a } { b } `},
		{`\sin x`, ` \mathrm { s i n } x `},
		{`a \cdots b -- c`, ` a . . . b - - c `},
		{`\big ( x \big )`, ` \big( x \big) `},
		{`\bigl \langle x`, ` \bigl\langle x `},
		{`\operatorname * { l i m }`, ` \operatorname { l i m } `},
		{`\hspace { 1 . 5 cm } x`, ` \hspace{1.5cm} x `},
		{`\begin{array} { l l } a & b \end{array}`, ` \begin{array} {ll} a & b \end{array} `},
		{`\color { red } x`, ` x `},
		{`\hat`, ` \hat {  }`}, // the trailing empty item is wrapped, as in Python
	}
	for _, tt := range tests {
		got, err := NormalizeLatexCDM(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeLatexCDM(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`\frac { a`, `\sqrt [ n`, `\mathbf { x`} {
		if _, err := NormalizeLatexCDM(bad); !errors.Is(err, ErrCDMPass) {
			t.Errorf("NormalizeLatexCDM(%q): %v, want a reference failure", bad, err)
		}
	}
}

func TestColorTokensCDM(t *testing.T) {
	res, err := ColorTokensCDM(` \frac { a } { \mathrm { x y } } _ { 2 } \phantom { z } \mathbf { w } `)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`\frac`, "a", "x", "y", "2", "w"}; !reflect.DeepEqual(res.Tokens, want) {
		t.Errorf("tokens %q, want %q", res.Tokens, want)
	}
	kinds := map[string]TokenKind{}
	for i, s := range res.Split {
		kinds[s] = res.Kinds[i]
	}
	if kinds[`\mathrm`] != FontSwitch || kinds["z"] != Phantom || kinds["_"] != Structural || kinds[`\frac`] != Visible {
		t.Errorf("kinds %v", kinds)
	}
}

// runCDM runs PrepareCDM, NormalizeLatexCDM and ColorTokensCDM.
func runCDM(in string) (string, []string, string, error) {
	n, err := NormalizeLatexCDM(PrepareCDM(in))
	if err != nil {
		return "", nil, "", err
	}
	res, err := ColorTokensCDM(n)
	if err != nil {
		return n, nil, "", err
	}
	return n, res.Tokens, res.Colored, nil
}

// TestCDMGoldenSmall checks every construct of the small golden, from the
// KaTeX normalizer's output on: the normalized string, the tokens and the
// coloured LaTeX.
func TestCDMGoldenSmall(t *testing.T) {
	f, err := os.Open(shareddata.Path(t, "refcdm/tokenizer_golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var g struct {
			AfterKatex string   `json:"after_katex"`
			AfterNorm  string   `json:"after_normalize_latex"`
			Tokens     []string `json:"tokens"`
			Colored    string   `json:"colored_latex_placeholders"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		norm, toks, colored, err := runCDM(g.AfterKatex)
		if err != nil {
			t.Errorf("%q: %v", g.AfterKatex, err)
			continue
		}
		if strings.TrimSpace(norm) != strings.TrimSpace(g.AfterNorm) {
			t.Errorf("%q: normalized %q, want %q", g.AfterKatex, norm, g.AfterNorm)
		}
		if !reflect.DeepEqual(toks, g.Tokens) && !(len(toks) == 0 && len(g.Tokens) == 0) {
			t.Errorf("%q: tokens %q, want %q", g.AfterKatex, toks, g.Tokens)
		}
		if colored != g.Colored {
			t.Errorf("%q: coloured %q, want %q", g.AfterKatex, colored, g.Colored)
		}
	}
	if n < 100 {
		t.Errorf("only %d golden lines", n)
	}
}

// TestCDMGoldenLarge runs the string passes on the 185,569 real formulas of
// the large golden, from the KaTeX normalizer's output (or the raw input
// where the reference fell back to it), and requires the normalized string
// and the token list to match the reference for all but a handful.
func TestCDMGoldenLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("185k formulas")
	}
	var total, okNorm, okTok, errorsBoth int
	diffs := map[string]int{}
	examples := map[string]string{}
	eachLargeGolden(t, func(g largeGolden) {
		total++
		in := g.Input
		if g.KatexOK && g.Katex != nil {
			in = *g.Katex
		}
		norm, toks, _, err := runCDM(in)
		switch {
		case g.Error != nil && err != nil:
			errorsBoth++
			okNorm++
			okTok++
			return
		case g.Error != nil:
			diffs["reference failed, we did not"]++
			examples["reference failed, we did not"] = in
			return
		case err != nil:
			class := "we failed: " + strings.SplitN(err.Error(), ": ", 3)[1]
			diffs[class]++
			examples[class] = in
			return
		}
		if g.Normalized != nil && norm == *g.Normalized {
			okNorm++
		} else {
			diffs["normalized differs"]++
			examples["normalized differs"] = in
		}
		if reflect.DeepEqual(toks, g.Tokens) || len(toks) == 0 && len(g.Tokens) == 0 {
			okTok++
		} else {
			diffs["tokens differ"]++
			examples["tokens differ"] = in
		}
	})
	var classes []string
	for k := range diffs {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	for _, k := range classes {
		t.Logf("%s: %d (e.g. %q)", k, diffs[k], examples[k])
	}
	t.Logf("%d formulas: normalized identical %d, tokens identical %d, both failing %d", total, okNorm, okTok, errorsBoth)
	if total < 185000 || float64(okNorm) < 0.999*float64(total) || float64(okTok) < 0.999*float64(total) {
		t.Errorf("parity below 99.9%%: normalized %d, tokens %d of %d", okNorm, okTok, total)
	}
}

func TestTokenColor(t *testing.T) {
	for _, tc := range []struct {
		k       int
		r, g, b uint8
	}{{0, 0, 0, 15}, {1, 0, 0, 30}, {16, 0, 0, 255}, {17, 0, 15, 0}, {322, 0, 255, 255}, {323, 15, 0, 0}, {5799, 255, 240, 60}} {
		r, g, b, ok := TokenColor(tc.k)
		if !ok || r != tc.r || g != tc.g || b != tc.b {
			t.Errorf("TokenColor(%d) = %d,%d,%d,%v; want %d,%d,%d", tc.k, r, g, b, ok, tc.r, tc.g, tc.b)
		}
		if k := ColorToken(r, g, b); k != tc.k {
			t.Errorf("ColorToken(%d,%d,%d) = %d; want %d", r, g, b, k, tc.k)
		}
	}
	if _, _, _, ok := TokenColor(5800); ok {
		t.Error("TokenColor(5800) is beyond the palette")
	}
	if k := ColorToken(0, 0, 0); k != -1 {
		t.Errorf("black is token %d", k)
	}
	res, err := TokenizeCDM(`x^2`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Rendered(), `\mathcolor[RGB]{0,0,15}{x} ^ { \mathcolor[RGB]{0,0,30}{2} }`; got != want {
		t.Errorf("Rendered = %q; want %q", got, want)
	}
}

// TestColorRunaway: formulas on which the reference's colouring pass never
// ends fail as the reference's MemoryError makes them fail, in bounded
// time and memory.
func TestColorRunaway(t *testing.T) {
	for _, s := range []string{`\sqrt [ \sqrt ] { b }`, `\sqrt [ \sqrt ] { y }`} {
		_, err := TokenizeCDM(s)
		if !errors.Is(err, ErrCDMPass) || !strings.Contains(err.Error(), "does not end") {
			t.Errorf("%.40q: %v, want a runaway failure", s, err)
		}
	}
}
