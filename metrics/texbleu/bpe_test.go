package texbleu

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestBPEGolden: every golden input (real labels and predictions with
// TeXBLEU's spacing, Unicode, whitespace runs, a 4,000-token formula)
// encodes to exactly the ids of the npm package gpt-3-encoder@1.1.4 under
// node (make goldens).
func TestBPEGolden(t *testing.T) {
	tok, err := GPT2()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/bpe_golden.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n, bad := 0, 0
	for sc.Scan() {
		var g struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		if got := tok.Encode(g.Text); !reflect.DeepEqual(got, g.IDs) && !(len(got) == 0 && len(g.IDs) == 0) {
			bad++
			if bad <= 5 {
				t.Errorf("%q: %v, want %v", g.Text, got, g.IDs)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("%d golden inputs", n)
	}
	t.Logf("%d of %d inputs tokenized as gpt-3-encoder does", n-bad, n)
}
