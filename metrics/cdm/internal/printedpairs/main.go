// Command printedpairs writes metrics/cdm/testdata/printed/pairs.json:
// printed (ground truth, prediction) pairs made from im2latex-100k
// validation formulas with the edits a printed-math recogniser makes, for
// the printed-math parity test against the reference CDM
// (TestParityPrinted). The sample and the edits come from a fixed seed,
// so the file is reproducible; the reference's metrics_res.json for it is
// committed beside it (run the reference as reference-cdm-setup.md says).
//
//	go run ./metrics/cdm/internal/printedpairs [-n 300] [-o FILE]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

var (
	n   = flag.Int("n", 300, "pairs")
	out = flag.String("o", "metrics/cdm/testdata/printed/pairs.json", "output file")
)

// Pair is one printed pair; ImgID has no dot (the reference cuts ids at
// their first dot).
type Pair struct {
	ImgID string `json:"img_id"`
	GT    string `json:"gt"`
	Pred  string `json:"pred"`
}

// confusions are substitutions a printed-math recogniser makes.
var confusions = [][]string{
	{"x", "X", `\times`, `\chi`}, {"1", "l", "I", `\ell`}, {"0", "o", "O", `\circ`}, {"v", `\nu`}, {"u", `\mu`},
	{"a", `\alpha`}, {"w", `\omega`}, {"p", `\rho`}, {"B", `\beta`}, {"n", `\eta`}, {"t", `\tau`}, {"e", `\epsilon`, `\varepsilon`},
	{`\epsilon`, `\varepsilon`}, {`\phi`, `\varphi`, `\Phi`}, {`\theta`, `\vartheta`}, {"k", `\kappa`}, {"s", "S"}, {"c", "C"},
	{"z", "Z", "2"}, {"5", "S"}, {"-", "+", "="}, {",", "."}, {`\prime`, "'"}, {`\cdot`, "."}, {`\ldots`, `\cdots`},
	{`\leq`, `\le`, "<"}, {`\geq`, `\ge`, ">"}, {`\tilde`, `\hat`, `\bar`}, {`\to`, `\rightarrow`}, {"(", `\left(`}, {"|", `\vert`, "l"},
}

func main() {
	flag.Parse()
	root := shareddata.Find()
	if root == "" {
		log.Fatal("shared data not found (../shared/data or $LEAKAUDIT_DATA)")
	}
	f, err := os.Open(filepath.Join(root, "im2latex", "formulas", "val.formulas.norm.txt"))
	if err != nil {
		log.Fatal(err)
	}
	var formulas []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		formulas = append(formulas, strings.TrimRight(sc.Text(), "\r"))
	}
	f.Close()
	sub := map[string][]string{}
	for _, c := range confusions {
		for _, a := range c {
			for _, b := range c {
				if a != b {
					sub[a] = append(sub[a], b)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(2026, 300))
	perm := rng.Perm(len(formulas))
	var pairs []Pair
	for _, i := range perm {
		if len(pairs) == *n {
			break
		}
		gt := formulas[i]
		toks := strings.Fields(gt)
		if len(toks) < 3 || len(toks) > 400 {
			continue
		}
		exact := rng.IntN(4) == 0 // a quarter of the pairs are exact
		pred := toks
		for try := 0; !exact && try < 8 && strings.Join(pred, " ") == gt; try++ {
			pred = edit(rng, toks, sub)
		}
		pairs = append(pairs, Pair{ImgID: fmt.Sprintf("val_%d", i), GT: gt, Pred: strings.Join(pred, " ")})
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		log.Fatal(err)
	}
	data, err := json.MarshalIndent(pairs, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d pairs to %s", len(pairs), *out)
}

// plain reports a token an edit may touch without unbalancing the
// formula: no brace, no environment, no \left or \right, no alignment.
func plain(t string) bool {
	switch t {
	case "{", "}", "&", `\\`, `\begin`, `\end`, `\left`, `\right`, "^", "_":
		return false
	}
	return true
}

// edit applies what a recogniser gets wrong: a confusion, a dropped or repeated token, a swap of
// two neighbours, a lost script, or several of these.
func edit(rng *rand.Rand, toks []string, sub map[string][]string) []string {
	out := append([]string(nil), toks...)
	edits := 1
	if rng.IntN(5) == 0 {
		edits = 2 + rng.IntN(3)
	}
	for range edits {
		var idx []int
		for i, t := range out {
			if plain(t) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			break
		}
		i := idx[rng.IntN(len(idx))]
		switch k := rng.IntN(6); k {
		case 0, 1: // a confusion, or a near token when none is known
			if alt := sub[out[i]]; len(alt) > 0 {
				out[i] = alt[rng.IntN(len(alt))]
			} else {
				out[i] = []string{"x", "1", ",", "-", `\prime`}[rng.IntN(5)]
			}
		case 2: // a dropped token
			if !strings.HasPrefix(out[i], `\`) || len(out[i]) <= 2 || i+1 == len(out) || out[i+1] != "{" {
				out = append(out[:i:i], out[i+1:]...)
			}
		case 3: // a repeated token
			if !strings.HasPrefix(out[i], `\`) {
				out = append(out[:i+1:i+1], out[i:]...)
			}
		case 4: // two neighbours swapped
			if i+1 < len(out) && plain(out[i+1]) && !strings.HasPrefix(out[i], `\`) && !strings.HasPrefix(out[i+1], `\`) {
				out[i], out[i+1] = out[i+1], out[i]
			}
		case 5: // a script lost: "^ { 2 }" becomes "2"
			for j := i; j+3 < len(out); j++ {
				if (out[j] == "^" || out[j] == "_") && out[j+1] == "{" && out[j+3] == "}" {
					out = append(out[:j:j], append([]string{out[j+2]}, out[j+4:]...)...)
					break
				}
			}
		}
	}
	return out
}
