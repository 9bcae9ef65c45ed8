package metrics

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The golden vectors of docs/metrics.md §6.
var golden = []struct {
	ref, pred, nref, npred string
	bleuU, edU, edP        float64
	bleuN, edN             float64
	tokLev                 int
}{
	{`\frac { a } { b }`, `\frac { a } { b }`, `\frac{a}{b}`, `\frac{a}{b}`, 1, 0, 0, 1, 0, 0},
	{`\frac { a } { c }`, `\frac { a } { b }`, `\frac{a}{c}`, `\frac{a}{b}`, 0.707107, 0.090909, 0.090909, 0.643459, 0.058824, 1},
	{`x ^ { 2 } + 1`, `x 2 + 1`, `x^{2}+1`, `x2+1`, 0, 0.428571, 0.428571, 5.35391e-155, 0.461538, 3},
	{`\mathrm { d } x + \alpha _ { i }`, `\mathrm { d x } + \alpha _ { i }`, `\mathrm{d}x+\alpha_{i}`, `\mathrm{dx}+\alpha_{i}`, 0.597418, 0.090909, 0.090909, 0.617965, 0.062500, 2},
	{`\sum _ { i = 1 } ^ { n } x _ { i }`, `\sum _ { i = 0 } ^ { n } x _ { i } ^ { 2 }`, `\sum_{i=1}^{n}x_{i}`, `\sum_{i=0}^{n}x_{i}^{2}`, 0.657716, 0.217391, 0.263158, 0.638324, 0.214286, 5},
}

func near(a, b float64) bool {
	if b != 0 && math.Abs(b) < 1e-100 {
		return math.Abs(a/b-1) < 1e-5
	}
	return math.Abs(a-b) < 5e-7
}

func TestGoldenVectors(t *testing.T) {
	var refs, preds []string
	for i, g := range golden {
		refs, preds = append(refs, g.ref), append(preds, g.pred)
		if n := NormalizeText(g.ref); n != g.nref {
			t.Errorf("%d: normalize_text(ref) = %q; want %q", i+1, n, g.nref)
		}
		if n := NormalizeText(g.pred); n != g.npred {
			t.Errorf("%d: normalize_text(pred) = %q; want %q", i+1, n, g.npred)
		}
		if b := BLEUUniMERNet([]string{g.ref}, []string{g.pred}).BLEU; !near(b, g.bleuU) {
			t.Errorf("%d: bleu_unimernet %.6f; want %.6f", i+1, b, g.bleuU)
		}
		if e := EDUniMERNet(g.ref, g.pred); !near(e, g.edU) {
			t.Errorf("%d: ed_unimernet %.6f; want %.6f", i+1, e, g.edU)
		}
		if e, _ := EDPix2tex(g.ref, g.pred); !near(e, g.edP) {
			t.Errorf("%d: ed_pix2tex %.6f; want %.6f", i+1, e, g.edP)
		}
		if b, _ := SentenceBLEUNougat(g.ref, g.pred); !near(b, g.bleuN) {
			t.Errorf("%d: bleu_nougat %.6g; want %.6g", i+1, b, g.bleuN)
		}
		if e, _ := EDNougat(g.ref, g.pred); !near(e, g.edN) {
			t.Errorf("%d: ed_nougat %.6f; want %.6f", i+1, e, g.edN)
		}
		if d := TokenDistance(g.pred, g.ref); d != g.tokLev {
			t.Errorf("%d: token distance %d; want %d", i+1, d, g.tokLev)
		}
	}
	u := BLEUUniMERNet(refs, preds)
	if !near(u.BLEU, 0.693482) || u.HypLength != 52 || u.RefLength != 53 || !near(u.BP, 0.980953) {
		t.Errorf("corpus bleu_unimernet %+v; want 0.693482, BP 0.980953, 52/53", u)
	}
	for i, p := range []float64{0.846154, 0.744681, 0.666667, 0.594595} {
		if !near(u.Precisions[i], p) {
			t.Errorf("precision %d = %.6f; want %.6f", i+1, u.Precisions[i], p)
		}
	}
	var sum float64
	for _, g := range golden {
		sum += EDUniMERNet(g.ref, g.pred)
	}
	if !near(sum/5, 0.165556) {
		t.Errorf("mean ed_unimernet %.6f; want 0.165556", sum/5)
	}
	m := BLEUIm2markup(refs, preds)
	if math.Round(m.BLEU*10000)/100 != 66.99 || m.HypLength != 49 || m.RefLength != 48 {
		t.Errorf("multi-bleu %+v; want BLEU = 66.99, hyp 49, ref 48", m)
	}
	for i, p := range []float64{87.8, 70.5, 61.5, 52.9} {
		if math.Round(m.Precisions[i]*1000)/10 != p {
			t.Errorf("multi-bleu precision %d = %.1f; want %.1f", i+1, 100*m.Precisions[i], p)
		}
	}
	if e := EDAccIm2markup(refs, preds); !near(e, 0.788462) {
		t.Errorf("edacc_im2markup %.6f; want 0.788462", e)
	}
	has := []bool{true, true, true, true, true}
	c, n := LeK(refs, preds, has)
	if n != 5 || c[0] != 1 || c[1] != 2 || c[2] != 3 {
		t.Errorf("le_k %v of %d; want 1, 2, 3 of 5", c, n)
	}
}

func TestNormalizeTextUnicode(t *testing.T) {
	// Python's \W is Unicode-aware: spaces around α are kept (a letter
	// that is not [a-zA-Z] is not a non-letter either).
	if got := NormalizeText(`a + α + b`); got != `a+ α +b` {
		t.Errorf("normalize_text(a + α + b) = %q; Python gives %q", got, `a+ α +b`)
	}
	if got := NormalizeText(`\ x`); got != `\ x` {
		t.Errorf("control space: %q", got)
	}
}

func TestCompute(t *testing.T) {
	gts := []string{`x ^ { 2 }`, `a + b`, `c`}
	preds := []string{`x ^ { 2 }`, `a - b`, ``}
	has := []bool{true, true, false}
	vs, err := Compute([]string{"exprate@raw", "le1@tokEdit", "le1@tokEdit:L3", "bleu_im2markup", "ed_unimernet"}, gts, preds, has, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Value != 1.0/3 || vs[0].Missing != 1 || vs[1].Value != 2.0/3 || vs[2].Value != 2.0/3 {
		t.Errorf("values %+v", vs)
	}
	for _, name := range []string{"texbleu", "bleu"} {
		if _, err := Compute([]string{name}, gts, preds, has, Options{}); err == nil {
			t.Errorf("%s: no error; an unavailable or unnamed metric must not give a number", name)
		}
	}
}

// imege renders both sides at 600 dpi: an exact prediction scores 0, a
// missing one 100, and a ground truth that cannot be rendered is left out.
func TestComputeIMEGE(t *testing.T) {
	gts := []string{`x ^ { 2 }`, `a`, `\frac{`}
	preds := []string{`x ^ { 2 }`, ``, `a`}
	has := []bool{true, false, true}
	vs, err := Compute([]string{"imege"}, gts, preds, has, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := vs[0]
	if v.IMEGE == nil || v.N != 2 || v.Missing != 1 || v.Value != 0.5 {
		t.Fatalf("value %+v", v)
	}
	it := v.IMEGE.Items
	if it[0].IMEGE != 0 || it[0].Precision != 1 || it[1].IMEGE != 100 || it[1].Failure == "" {
		t.Errorf("items %+v", it)
	}
	if n := len(v.IMEGE.GTFailures); n != 1 {
		t.Errorf("GT failures %v", v.IMEGE.GTFailures)
	}
}

// TestComputeTeXBLEU: without a table texbleu names the flag that gives
// it; with the made-up table of metrics/texbleu/testdata it is the mean of
// the independent script's scores.
func TestComputeTeXBLEU(t *testing.T) {
	if _, err := Compute([]string{"texbleu"}, []string{"x"}, []string{"x"}, []bool{true}, Options{}); err == nil || !strings.Contains(err.Error(), "--texbleu-embeddings") {
		t.Errorf("without a table: %v", err)
	}
	f, err := os.Open("texbleu/testdata/table.npy.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(t.TempDir(), "wte.npy")
	w, _ := os.Create(table)
	io.Copy(w, gz)
	w.Close()
	var cases []struct {
		Ref     string  `json:"ref"`
		Pred    string  `json:"pred"`
		TeXBLEU float64 `json:"texbleu"`
	}
	b, _ := os.ReadFile("texbleu/testdata/expected.json")
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	var gts, preds []string
	var has []bool
	var want float64
	for _, c := range cases {
		gts, preds, has = append(gts, c.Ref), append(preds, c.Pred), append(has, true)
		want += c.TeXBLEU
	}
	want /= float64(len(cases))
	vs, err := Compute([]string{"texbleu"}, gts, preds, has, Options{TeXBLEUEmbeddings: table})
	if err != nil || math.Abs(vs[0].Value-want) > 1e-12 || vs[0].N != len(cases) {
		t.Errorf("texbleu %+v (%v), want mean %v", vs, err, want)
	}
}
