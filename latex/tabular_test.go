package latex

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// tabularGolden is one line of testdata/tabular_golden.jsonl, written by
// internal/tabgolden from the reference's own tokenize_latex.py (its
// tabular branch: perl and preprocess_tabular.js under Node),
// normalize_latex and token_add_color_RGB.
type tabularGolden struct {
	Input      string   `json:"input"`
	OK         bool     `json:"tokenize_ok"`
	Tokenized  *string  `json:"tokenized"`
	Normalized *string  `json:"normalized"`
	Tokens     []string `json:"tokens"`
	Colored    *string  `json:"colored"`
	Error      *string  `json:"error"`
}

// TestTabularGolden pins the tabular path of TokenizeCDM to the
// reference's output on every tabular formula of the shared data and on
// hand-written variants.
func TestTabularGolden(t *testing.T) {
	f, err := os.Open("testdata/tabular_golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	n := 0
	for sc.Scan() {
		var g tabularGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		res, err := TokenizeCDM(g.Input)
		if res.KaTeXOK != g.OK {
			t.Errorf("%q: tokenizer ok %v, reference %v", g.Input, res.KaTeXOK, g.OK)
			continue
		}
		if g.OK && res.Katex != *g.Tokenized {
			t.Errorf("%q: tokenized\n got %q\nwant %q", g.Input, res.Katex, *g.Tokenized)
			continue
		}
		if g.Error != nil {
			if err == nil {
				t.Errorf("%q: no error, reference %s", g.Input, *g.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", g.Input, err)
			continue
		}
		if res.Normalized != *g.Normalized || !slices.Equal(res.Tokens, g.Tokens) || res.Colored != *g.Colored {
			t.Errorf("%q:\n got %q %q\nwant %q %q", g.Input, res.Normalized, res.Colored, *g.Normalized, *g.Colored)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Errorf("only %d golden lines", n)
	}
}
