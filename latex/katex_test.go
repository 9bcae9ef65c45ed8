package latex

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// largeGolden is one line of the large tokenizer golden.
type largeGolden struct {
	Input      string   `json:"input"`
	KatexOK    bool     `json:"katex_ok"`
	Katex      *string  `json:"katex_normalized"`
	Normalized *string  `json:"normalized"`
	Tokens     []string `json:"tokens"`
	Error      *string  `json:"error"`
}

// eachLargeGolden calls fn for every line of the large golden.
func eachLargeGolden(t *testing.T, fn func(g largeGolden)) {
	f, err := os.Open(shareddata.Path(t, "refcdm/tokenizer_golden_large.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<22), 1<<22)
	for sc.Scan() {
		var g largeGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		fn(g)
	}
}

// TestKaTeXNormalizeLarge measures parity of our KaTeX-normalizer
// emulation with the reference on the large golden.
func TestKaTeXNormalizeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("185k formulas")
	}
	var total, same, okMismatch, textDiff int
	var ex []string
	eachLargeGolden(t, func(g largeGolden) {
		total++
		out, ok := KaTeXNormalize(ProtectCDM(g.Input))
		switch {
		case ok != g.KatexOK:
			okMismatch++
			if len(ex) < 40 {
				want := "<fail>"
				if g.Katex != nil {
					want = *g.Katex
				}
				ex = append(ex, "OK-MISMATCH in="+g.Input+"\n   got="+out+"\n  want="+want)
			}
		case !ok || out == *g.Katex:
			same++
		default:
			textDiff++
			if len(ex) < 40 {
				ex = append(ex, "TEXT in="+g.Input+"\n   got="+out+"\n  want="+*g.Katex)
			}
		}
	})
	for _, e := range ex {
		t.Log(e)
	}
	t.Logf("%d formulas: identical %d (%.3f%%), failure disagreements %d, text differences %d", total, same, 100*float64(same)/float64(total), okMismatch, textDiff)
}

// TestTokenizeCDMSmallGolden runs the whole chain on every construct of the
// small golden: KaTeX output (or fallback), normalized string, tokens and
// coloured LaTeX must all match the reference.
func TestTokenizeCDMSmallGolden(t *testing.T) {
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
			Input      string   `json:"input"`
			KatexOK    bool     `json:"katex_ok"`
			AfterKatex string   `json:"after_katex"`
			AfterNorm  string   `json:"after_normalize_latex"`
			Tokens     []string `json:"tokens"`
			Colored    string   `json:"colored_latex_placeholders"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		res, err := TokenizeCDM(g.Input)
		if err != nil {
			t.Errorf("%q: %v", g.Input, err)
			continue
		}
		// The golden records the KaTeX stage after the CJK and percent fix-ups.
		if res.KaTeXOK != g.KatexOK || strings.TrimSpace(PrepareCDM(res.Katex)) != strings.TrimSpace(g.AfterKatex) {
			t.Errorf("%q: KaTeX %v %q, want %v %q", g.Input, res.KaTeXOK, res.Katex, g.KatexOK, g.AfterKatex)
		}
		if strings.TrimSpace(res.Normalized) != strings.TrimSpace(g.AfterNorm) || res.Colored != g.Colored {
			t.Errorf("%q: normalized %q coloured %q, want %q %q", g.Input, res.Normalized, res.Colored, g.AfterNorm, g.Colored)
		}
		if strings.Join(res.Tokens, " ") != strings.Join(g.Tokens, " ") {
			t.Errorf("%q: tokens %q, want %q", g.Input, res.Tokens, g.Tokens)
		}
	}
	if n < 100 {
		t.Errorf("%d lines", n)
	}
}

// BenchmarkTokenizeCDM measures the whole reference chain on the CROHME
// train labels (run with -cpu 1 for the one-core figure).
func BenchmarkTokenizeCDM(b *testing.B) {
	labels := shareddata.JSONStrings(b, "labels/crohme_train_captions.json")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		TokenizeCDM(labels[i%len(labels)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "formulas/s")
}

// FuzzTokenizeCDM runs arbitrary input through the whole tokenizer chain:
// it must never panic and must respect the limits (the canonical levels
// built on it have their own fuzz target, canon.FuzzTokenLevels).
func FuzzTokenizeCDM(f *testing.F) {
	for _, s := range []string{`x^2`, `\frac{a}{b}`, `\begin{array}{cc} a & b \\ c & d \end{array}`, `\left( x \right.`,
		`\text{速度 v}`, `x''^{2}`, `\sqrt[3]{x}`, `{a \over b}`, `\mathrm{\alpha}`, `\hat \bar x`, `\color{red}{x}`, `\frac{a}`,
		`\begin{aligned} a &= b \\ &= c \end{aligned}`, `\rule{1pt}{2pt}`, `100\%`, `\begin{cases} a \end{cases}`, `}{`, `\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		res, err := TokenizeCDM(s)
		if err == nil && len(res.Kinds) != len(res.Split) {
			t.Fatalf("%d kinds for %d items", len(res.Kinds), len(res.Split))
		}
	})
}

// TestTokenizerLimits feeds hostile inputs: each must end quickly with an
// error, not a crash or a stack overflow.
func TestTokenizerLimits(t *testing.T) {
	for name, s := range map[string]string{
		"100k characters":      strings.Repeat("x+", 50000),
		"10k nested braces":    strings.Repeat("{", 10000) + "x" + strings.Repeat("}", 10000),
		"10k nested fractions": strings.Repeat(`\frac{`, 10000),
	} {
		if _, err := TokenizeCDM(s); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
	}
	// Deep but allowed nesting parses.
	ok := strings.Repeat("{", 400) + "x" + strings.Repeat("}", 400)
	if _, err := TokenizeCDM(ok); err != nil {
		t.Errorf("400 nested braces: %v", err)
	}
}

// TestBracesShort: katexRender fails at once on a line with more { tokens
// than } tokens (bracesShort) only where the parse itself fails: on hand
// cases (escaped braces, a brace after \\, braces in text and size
// arguments) and on the labels of three shared lists, each as it is and
// with a brace dropped or added.
func TestBracesShort(t *testing.T) {
	for _, c := range []struct {
		in    string
		short bool
	}{
		{`{a}`, false}, {`{a`, true}, {`\{a`, false}, {`\\{a`, true}, {`a}`, false}, {`\left\{ x \right.`, false},
		{`\text{{}`, true}, {`\rule{1em}{`, true}, {`\{ \}`, false}, {`\`, false}, {`\sqrt }`, false}, {`x^{\{}`, false},
	} {
		if got := bracesShort(c.in); got != c.short {
			t.Errorf("bracesShort(%q) = %v, want %v", c.in, got, c.short)
		}
	}
	braceVariants(t, bracesShort, func(v string) {
		for _, keep := range []bool{false, true} {
			if out, err := katexParse(v, keep); err == nil {
				t.Errorf("bracesShort(%q), but it parses: %q", v, out)
			}
		}
	})
}

// braceVariants calls check with every line that pick picks among the
// labels of three shared lists, each as it is and with a brace dropped or
// added, and fails the test if fewer than 1,000 are picked.
func braceVariants(t *testing.T, pick func(string) bool, check func(string)) {
	t.Helper()
	checked := 0
	for _, list := range []string{"labels/crohme_2014_captions.json", "labels/hme100k_test_captions.json", "labels/mathwriting_valid_captions.json"} {
		for _, s := range shareddata.JSONStrings(t, list) {
			for _, v := range []string{s, s + " {", "{ " + s, strings.Replace(s, "}", "", 1), strings.Replace(s, "{", "", 1), s[:max(strings.LastIndex(s, "}"), 0)]} {
				if pick(v) {
					checked++
					check(v)
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d lines picked", checked)
	}
}

// TestFailsOnBraces: FailsOnBraces holds only where NormalizeKeepingPrimes
// fails: on the labels of three shared lists, as they are and with a
// brace dropped or added; and not where a preparing pass could change the
// braces.
func TestFailsOnBraces(t *testing.T) {
	for _, c := range []struct {
		in    string
		fails bool
	}{
		{`\frac { a } { b`, true}, {`x ^ { 2`, true}, {`\{ x`, false}, {`x ^ { 2 } }`, false}, {`{ x % }`, false}, {`{ x $`, false},
		{`{ \label { a }`, false}, {`\{\rm x {`, false}, {`{ a \\ b`, false}, {`{ \begin{matrix} a \end{matrix}`, false}, {"{ é", false},
	} {
		if got := FailsOnBraces(c.in); got != c.fails {
			t.Errorf("FailsOnBraces(%q) = %v, want %v", c.in, got, c.fails)
		}
	}
	braceVariants(t, FailsOnBraces, func(v string) {
		if out, ok := NormalizeKeepingPrimes(v); ok {
			t.Errorf("FailsOnBraces(%q), but it normalizes: %q", v, out)
		}
	})
}

// TestParsedAsIs: where ParsedAsIs holds, the reference's preparation
// (ProtectCDM, then prepareLine) leaves the formula as it is but for the
// trailing space, on hand cases and on the labels of three shared lists,
// each as it is and with a brace dropped or added; and it does not hold
// where a preparing pass acts.
func TestParsedAsIs(t *testing.T) {
	for _, c := range []struct {
		in   string
		asIs bool
	}{
		{`x ^ { 2 } }`, true}, {`\frac { a } { b`, true}, {`\{ x \}`, true}, {`a % b`, false}, {`\%`, false}, {`a $ b`, false},
		{`a \~ b`, false}, {`a \> b`, false}, {`a \label { b }`, false}, {`{ \rm x }`, false}, {`a \\ b`, false},
		{`\begin{split} a \end{split}`, false}, {"a\nb", false}, {"é", false},
	} {
		if got := ParsedAsIs(c.in); got != c.asIs {
			t.Errorf("ParsedAsIs(%q) = %v, want %v", c.in, got, c.asIs)
		}
	}
	braceVariants(t, ParsedAsIs, func(v string) {
		if got := prepareLine(ProtectCDM(v)); got != v+" " {
			t.Errorf("ParsedAsIs(%q), but it is prepared as %q", v, got)
		}
	})
}
