// Command bpegolden regenerates metrics/texbleu/testdata/bpe_golden.jsonl.gz:
// GPT-2 token ids of a fixed sample of real labels and predictions (with
// TeXBLEU's space before each backslash), and of hand-written cases with
// Unicode, whitespace runs and long formulas, as the npm package
// gpt-3-encoder@1.1.4 encodes them under node. Run by "make goldens":
//
//	npm install --prefix DIR gpt-3-encoder@1.1.4
//	go run ./metrics/texbleu/internal/bpegolden -node-modules DIR/node_modules
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/metrics/texbleu"
)

var (
	modules = flag.String("node-modules", "", "a node_modules folder holding gpt-3-encoder@1.1.4")
	out     = flag.String("o", "metrics/texbleu/testdata/bpe_golden.jsonl.gz", "output file")
	perFile = flag.Int("n", 300, "labels sampled per file")
)

func main() {
	flag.Parse()
	data := shareddata.Find()
	if data == "" || *modules == "" {
		log.Fatal("needs the shared data (../shared/data or $LEAKAUDIT_DATA) and -node-modules")
	}
	inputs := []string{
		"", " ", "  ", "x", "x  y", "a\t\tb", "a\n\nb ", "   leading", "trailing   ", "\\frac{a}{b}", " \\alpha", "'s 're 've 'm 'll 'd 't",
		"x's", "It's", "速度 v = 3 m/s", "√ x 、 y 。", "ℝ ⊂ ℂ", "α+β=γ", "é ü ß", "x\u00a0y", "x\u3000y", "x\ufeffy", "x\u0085y",
		"1234567890 12 3.14", "Ḹ ဂ �", "😀 smile", strings.Repeat("\\frac { 1 } { 2 } + ", 200),
	}
	rng := rand.New(rand.NewPCG(1, 19))
	for _, rel := range []string{"predictions/texteller/hme100k_test.json", "predictions/texteller/mathwriting_valid.json", "predictions/tamer/hme100k_test.json", "labels/unimer_net_hwe_captions.json", "labels/hme100k_train_captions.json"} {
		var all []string
		if _, err := dataset.Scan(dataset.Source{Path: filepath.Join(data, rel)}, func(it dataset.Item) error {
			all = append(all, it.Label)
			if it.HasPred {
				all = append(all, it.Pred)
			}
			return nil
		}); err != nil {
			log.Fatal(err)
		}
		for range *perFile {
			inputs = append(inputs, texbleu.Spacing(all[rng.IntN(len(all))]))
		}
	}
	in, _ := json.Marshal(inputs)
	cmd := exec.Command("node", filepath.Join("metrics", "texbleu", "internal", "bpegolden", "encode.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+*modules)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	lines, err := cmd.Output()
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Name = "bpe_golden.jsonl" // no timestamp: reproducible bytes
	gz.Write(lines)
	gz.Close()
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d inputs → %s", len(inputs), *out)
}
