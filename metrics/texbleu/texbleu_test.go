package texbleu

import (
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testTable loads the made-up table of testdata (made by expected.py).
func testTable(t testing.TB) *Embeddings {
	t.Helper()
	f, err := os.Open("testdata/table.npy.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "table.npy")
	w, _ := os.Create(p)
	io.Copy(w, gz)
	w.Close()
	e, err := LoadEmbeddings(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAgainstIndependentScript: on a made-up 50257×4 table, token ids and
// scores equal those of an independent numpy implementation of the
// published code with the npm encoder's ids (testdata/expected.json).
func TestAgainstIndependentScript(t *testing.T) {
	tok, err := GPT2()
	if err != nil {
		t.Fatal(err)
	}
	sc := Scorer{Tok: tok, Emb: testTable(t)}
	b, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Ref     string  `json:"ref"`
		Pred    string  `json:"pred"`
		RefIDs  []int   `json:"ref_ids"`
		PredIDs []int   `json:"pred_ids"`
		TeXBLEU float64 `json:"texbleu"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		predIDs := c.PredIDs
		if got := sc.Tokens(c.Ref); !reflect.DeepEqual(got, c.RefIDs) && len(got)+len(c.RefIDs) > 0 {
			t.Errorf("%q: ids %v, want %v", c.Ref, got, c.RefIDs)
		}
		if got := sc.Tokens(c.Pred); !reflect.DeepEqual(got, predIDs) && len(got)+len(predIDs) > 0 {
			t.Errorf("%q: ids %v, want %v", c.Pred, got, predIDs)
		}
		got, err := sc.Score(c.Ref, c.Pred)
		if err != nil || got != c.TeXBLEU {
			t.Errorf("%q / %q: %v (%v), want %v", c.Ref, c.Pred, got, err, c.TeXBLEU)
		}
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
}

// TestPublishedExamples: the examples of the TeXBLEU repository, with
// GPT-2 small's real wte table given as $LEAKAUDIT_GPT2_WTE (.npy or
// safetensors); skipped without it.
func TestPublishedExamples(t *testing.T) {
	path := os.Getenv("LEAKAUDIT_GPT2_WTE")
	if path == "" {
		t.Skip("set LEAKAUDIT_GPT2_WTE to GPT-2 small's wte table (.npy, or safetensors with wte.weight) to check the published examples (0.7903, 0.7, 0.7864)")
	}
	e, err := LoadEmbeddings(path)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := GPT2()
	sc := Scorer{Tok: tok, Emb: e}
	for _, ex := range publishedExamples {
		if got, err := sc.Score(ex.ref, ex.pred); err != nil || got != ex.score {
			t.Errorf("%q / %q: %v (%v), want %v", ex.ref, ex.pred, got, err, ex.score)
		}
	}
}

// publishedExamples are the repository's example.ipynb: the pairs, the
// scores it printed, and the tokens GPT2TokenizerFast gave (its "Decoded
// tokens" lines).
var publishedExamples = []struct {
	ref, pred         string
	score             float64
	refToks, predToks string
}{
	{`F(x)={\sqrt{\frac{10x^{-8}}{-8}}}+C_{1} =-{\frac{5}{4x^{8}}}+C_{1}\quad{\mathrm {if~}}x<0.`,
		`F(x)=\sqrt{10}x^{-8/-8}+C_{1}=-\frac{5} {4}x^{8}+C_{1}\quad\mathrm{if~}x<0.`, 0.7903,
		`F|(|x|)|={| \|sq|rt|{| \|frac|{|10|x|^{|-|8|}}|{|-|8|}}}|+|C|_{|1|}| =|-|{| \|frac|{|5|}{|4|x|^{|8|}}}|+|C|_{|1|}| \|quad|{| \|math|rm| {|if|~|}}|x|<|0|.`,
		`F|(|x|)=| \|sq|rt|{|10|}|x|^{|-|8|/-|8|}|+|C|_{|1|}|=-| \|frac|{|5|}| {|4|}|x|^{|8|}|+|C|_{|1|}| \|quad| \|math|rm|{|if|~|}|x|<|0|.`},
	{`\frac{3}{2}`, `3/2`, 0.7, ` \|frac|{|3|}{|2|}`, `3|/|2`},
	{`x = \frac{{-b \pm \sqrt{{b^2 - 4ac}}}}{{2a}}`, `3/2`, 0.7864,
		`x| =| \|frac|{{|-|b| \|pm| \|sq|rt|{{|b|^|2| -| 4|ac|}}|}}|{{|2|a|}}`, `3|/|2`},
}

// TestPublishedTokens: the published examples tokenize as the published
// run printed them (no embedding table needed).
func TestPublishedTokens(t *testing.T) {
	tok, _ := GPT2()
	sc := Scorer{Tok: tok}
	for _, ex := range publishedExamples {
		for _, c := range [][2]string{{ex.ref, ex.refToks}, {ex.pred, ex.predToks}} {
			var words []string
			for _, id := range sc.Tokens(c[0]) {
				words = append(words, tok.Token(id))
			}
			if got := strings.Join(words, "|"); got != c[1] {
				t.Errorf("%q:\n got %s\nwant %s", c[0], got, c[1])
			}
		}
	}
}

// TestSafetensors: a safetensors table with transformer.wte.weight in F32,
// F16 and BF16 reads as the same values; a damaged file is an error.
func TestSafetensors(t *testing.T) {
	vals := []float32{1, -2, 0.5, 0.25, 3, -0.125}
	for _, dtype := range []string{"F32", "F16", "BF16"} {
		var data []byte
		for _, v := range vals {
			switch dtype {
			case "F32":
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
			case "BF16":
				data = binary.LittleEndian.AppendUint16(data, uint16(math.Float32bits(v)>>16))
			case "F16": // exact for these values
				bits := math.Float32bits(v)
				exp := int(bits>>23&0xff) - 127 + 15
				h := uint16(bits>>16&0x8000) | uint16(exp)<<10 | uint16(bits>>13&0x3ff)
				data = binary.LittleEndian.AppendUint16(data, h)
			}
		}
		header, _ := json.Marshal(map[string]any{"transformer.wte.weight": map[string]any{"dtype": dtype, "shape": []int{3, 2}, "data_offsets": []int{0, len(data)}}})
		file := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		file = append(append(file, header...), data...)
		p := filepath.Join(t.TempDir(), "m.safetensors")
		os.WriteFile(p, file, 0o644)
		e, err := LoadEmbeddings(p)
		if err != nil || e.Rows != 3 || e.Dim != 2 || !reflect.DeepEqual(e.Data, vals) {
			t.Errorf("%s: %+v %v", dtype, e, err)
		}
		os.WriteFile(p, file[:len(file)-3], 0o644)
		if _, err := LoadEmbeddings(p); err == nil {
			t.Errorf("%s: a truncated file was read", dtype)
		}
	}
}

func TestSpacing(t *testing.T) {
	for in, want := range map[string]string{`\frac{a}{b}`: ` \frac{a}{b}`, `x \alpha\beta`: `x \alpha \beta`, ``: ``, `a\\b`: `a \ \b`} {
		if got := Spacing(in); got != want {
			t.Errorf("Spacing(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.Contains(Spacing(`\\`), ` \`) {
		t.Error("a leading backslash gets a space")
	}
}

// BenchmarkTeXBLEU scores TeXBLEU pairs with the made-up table.
func BenchmarkTeXBLEU(b *testing.B) {
	tok, _ := GPT2()
	sc := Scorer{Tok: tok, Emb: testTable(b)}
	ref, pred := `\sum_{i=1}^{n} i = \frac{n(n+1)}{2}`, `\sum_{i=1}^n i=\frac{n(n+1)}2`
	b.ResetTimer()
	for b.Loop() {
		sc.Score(ref, pred)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
