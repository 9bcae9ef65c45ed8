// Command paritypairs measures leakaudit's CDM against the reference CDM
// (UniMERNet cdm/, run locally as reference-cdm-setup.md says) on fresh
// pairs: it draws (ground truth, prediction) pairs with a seed and scores
// them, and compares leakaudit's scores with the reference's
// metrics_res.json for the same pairs. scripts/parity.sh runs the three
// steps; the pairs and the reference's output stay outside the
// repository.
//
//	go run ./metrics/cdm/internal/paritypairs gen -kind printed|handwritten -n 600 -seed S -o pairs.json
//	go run ./metrics/cdm/internal/paritypairs compare -pairs pairs.json [-ref metrics_res.json]
//
// Printed pairs are im2latex-100k test and validation formulas with a
// recogniser's edits. Handwritten pairs are HME100K test, CROHME
// 2014/2016/2019 and UniMER-HWE labels with the same edits, half of them
// replaced by the published predictions' own wrong predictions (TAMER and
// TexTeller on HME100K, TexTeller on CROHME, SAN and CAN on CROHME 2014).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/leakaudit/leakaudit/internal/shareddata"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// Pair is one drawn pair. ImgID has no dot (the reference cuts ids at
// their first dot); Source and Edit say where the pair came from and the
// reference ignores them.
type Pair struct {
	ImgID  string `json:"img_id"`
	GT     string `json:"gt"`
	Pred   string `json:"pred"`
	Source string `json:"source"`
	Edit   string `json:"edit"`
}

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal("usage: paritypairs gen|compare [flags]")
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "compare":
		err = compare(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown mode %q: want gen or compare", os.Args[1])
	}
	if err != nil {
		log.Fatal("paritypairs: ", err)
	}
}

// source is one pool of ground truths (with real predictions when Pred
// is set).
type source struct {
	name  string
	gts   []string
	preds []string // real wrong predictions, parallel to gts; nil for label pools
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	n := fs.Int("n", 600, "pairs")
	seed := fs.Uint64("seed", 0, "seed (required: draw a fresh one for a measurement)")
	kind := fs.String("kind", "printed", "printed or handwritten")
	out := fs.String("o", "", "output file (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *seed == 0 {
		return errors.New("gen needs -o and a non-zero -seed")
	}
	root := shareddata.Find()
	if root == "" {
		return errors.New("shared data not found (../shared/data or $LEAKAUDIT_DATA)")
	}
	var srcs []source
	var err error
	switch *kind {
	case "printed":
		srcs, err = printedSources(root)
	case "handwritten":
		srcs, err = handwrittenSources(root)
	default:
		return fmt.Errorf("-kind %q: want printed or handwritten", *kind)
	}
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15))
	sub := confusionMap()
	seen := map[string]bool{}
	var pairs []Pair
	for tries := 0; len(pairs) < *n && tries < 100**n; tries++ {
		s := srcs[rng.IntN(len(srcs))]
		i := rng.IntN(len(s.gts))
		gt := strings.TrimSpace(s.gts[i])
		if gt == "" || len(strings.Fields(gt)) > 400 {
			continue
		}
		var pred, what string
		if s.preds != nil {
			pred, what = s.preds[i], "real"
		} else {
			pred, what = edit(rng, gt, sub)
		}
		key := gt + "\x00" + pred
		if seen[key] {
			continue
		}
		seen[key] = true
		pairs = append(pairs, Pair{ImgID: fmt.Sprintf("%s_%d_%d", s.name, i, len(pairs)), GT: gt, Pred: pred, Source: s.name, Edit: what})
	}
	data, err := json.MarshalIndent(pairs, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	log.Printf("wrote %d %s pairs (seed %d) to %s", len(pairs), *kind, *seed, *out)
	return nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func printedSources(root string) ([]source, error) {
	var srcs []source
	for _, name := range []string{"test", "val"} {
		l, err := readLines(filepath.Join(root, "im2latex", "formulas", name+".formulas.norm.txt"))
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, source{name: "im2latex" + name, gts: l})
	}
	return srcs, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// squash is a formula without spaces: a prediction equal to its ground
// truth up to spacing is not a wrong prediction.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func handwrittenSources(root string) ([]source, error) {
	var srcs []source
	for _, f := range []struct{ name, file string }{
		{"hme100k", "hme100k_test_captions.json"}, {"crohme14", "crohme_2014_captions.json"},
		{"crohme16", "crohme_2016_captions.json"}, {"crohme19", "crohme_2019_captions.json"},
		{"unimerhwe", "unimer_net_hwe_captions.json"},
	} {
		var l []string
		if err := readJSON(filepath.Join(root, "labels", f.file), &l); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // UniMER-HWE may be absent
			}
			return nil, err
		}
		srcs = append(srcs, source{name: f.name, gts: l})
	}
	// real wrong predictions, weighted as much as the label pools together
	var real source
	real.name = "real"
	var tamer map[string]struct{ Pred, GT string }
	if err := readJSON(filepath.Join(root, "predictions", "tamer", "hme100k_test.json"), &tamer); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(tamer))
	for k := range tamer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := tamer[k]; v.Pred != "" && squash(v.Pred) != squash(v.GT) {
			real.gts, real.preds = append(real.gts, v.GT), append(real.preds, v.Pred)
		}
	}
	for _, split := range []string{"crohme_2014", "crohme_2016", "crohme_2019", "hme100k_test"} {
		var tt []struct{ GT, Pred string }
		if err := readJSON(filepath.Join(root, "predictions", "texteller", split+".json"), &tt); err != nil {
			return nil, err
		}
		for _, v := range tt {
			if v.Pred != "" && squash(v.Pred) != squash(v.GT) {
				real.gts, real.preds = append(real.gts, v.GT), append(real.preds, v.Pred)
			}
		}
	}
	for _, m := range []string{"san", "can"} {
		var bad map[string]struct{ Label, Predi string }
		if err := readJSON(filepath.Join(root, "predictions", m, "crohme_2014_bad_cases.json"), &bad); err != nil {
			return nil, err
		}
		keys := keys[:0]
		for k := range bad {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := bad[k]; v.Predi != "" && squash(v.Predi) != squash(v.Label) {
				real.gts, real.preds = append(real.gts, v.Label), append(real.preds, v.Predi)
			}
		}
	}
	for range len(srcs) {
		srcs = append(srcs, real)
	}
	return srcs, nil
}

// confusions are substitutions a recogniser makes.
var confusions = [][]string{
	{"x", "X", `\times`, `\chi`}, {"1", "l", "I", `\ell`}, {"0", "o", "O", `\circ`}, {"v", `\nu`}, {"u", `\mu`},
	{"a", `\alpha`}, {"w", `\omega`}, {"p", `\rho`}, {"B", `\beta`}, {"n", `\eta`}, {"t", `\tau`}, {"e", `\epsilon`, `\varepsilon`},
	{`\epsilon`, `\varepsilon`}, {`\phi`, `\varphi`, `\Phi`}, {`\theta`, `\vartheta`}, {"k", `\kappa`}, {"s", "S"}, {"c", "C"},
	{"z", "Z", "2"}, {"5", "S"}, {"-", "+", "="}, {",", "."}, {`\prime`, "'"}, {`\cdot`, "."}, {`\ldots`, `\cdots`},
	{`\leq`, `\le`, "<"}, {`\geq`, `\ge`, ">"}, {`\tilde`, `\hat`, `\bar`}, {`\to`, `\rightarrow`}, {"(", `\left(`}, {"|", `\vert`, "l"},
	{"9", "q", "g"}, {"y", `\gamma`}, {"r", `\Gamma`}, {`\sum`, `\Sigma`, "E"}, {`\pi`, "n"}, {`\ne`, `\neq`}, {`\in`, `\epsilon`},
}

// sameRender are rewrites the reference renders alike (or nearly).
var sameRender = map[string]string{
	`\leq`: `\le`, `\le`: `\leq`, `\geq`: `\ge`, `\ge`: `\geq`, `\rightarrow`: `\to`, `\to`: `\rightarrow`,
	`\ldots`: `\dots`, `\cdots`: `\dots`, `\ne`: `\neq`, `\neq`: `\ne`, `\varepsilon`: `\epsilon`, `\vert`: "|", `\prime`: "'",
	`\lbrace`: `\{`, `\{`: `\lbrace`, `\Vert`: `\|`, `\mid`: "|",
}

func confusionMap() map[string][]string {
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
	return sub
}

// plain reports a token an edit may touch without unbalancing the
// formula on purpose.
func plain(t string) bool {
	switch t {
	case "{", "}", "&", `\\`, `\begin`, `\end`, `\left`, `\right`, "^", "_":
		return false
	}
	return !strings.HasPrefix(t, `\begin`) && !strings.HasPrefix(t, `\end`)
}

// edit applies what a recogniser gets wrong, and names the edits.
func edit(rng *rand.Rand, gt string, sub map[string][]string) (string, string) {
	toks := strings.Fields(gt)
	if rng.IntN(10) == 0 {
		return gt, "none"
	}
	out := append([]string(nil), toks...)
	edits := 1
	if rng.IntN(5) == 0 {
		edits = 2 + rng.IntN(2)
	}
	var names []string
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
		switch k := rng.IntN(12); {
		case k < 3: // a confusion, or a near token when none is known
			names = append(names, "sub")
			if alt := sub[out[i]]; len(alt) > 0 {
				out[i] = alt[rng.IntN(len(alt))]
			} else {
				out[i] = []string{"x", "1", ",", "-", `\prime`, "a", "2", "(", ")"}[rng.IntN(9)]
			}
		case k < 5: // a dropped token
			names = append(names, "drop")
			out = append(out[:i:i], out[i+1:]...)
		case k < 8: // two neighbours swapped
			names = append(names, "swap")
			if i+1 < len(out) && plain(out[i+1]) {
				out[i], out[i+1] = out[i+1], out[i]
			} else if i > 0 && plain(out[i-1]) {
				out[i-1], out[i] = out[i], out[i-1]
			}
		case k < 9: // an inserted token
			names = append(names, "insert")
			t := []string{"x", "1", ",", "-", "(", ")", "2", "=", out[rng.IntN(len(out))]}[rng.IntN(9)]
			out = append(out[:i:i], append([]string{t}, out[i:]...)...)
		case k < 10: // the tail cut, the groups closed or not
			names = append(names, "cut")
			cut := len(out) / 2
			if len(out) > 2 {
				cut = 1 + rng.IntN(len(out)-1)
			}
			out = out[:cut]
			if rng.IntN(2) == 0 {
				depth := 0
				for _, t := range out {
					switch t {
					case "{":
						depth++
					case "}":
						depth--
					}
				}
				for ; depth > 0; depth-- {
					out = append(out, "}")
				}
			}
		default: // a rewrite that renders the same
			names = append(names, "same")
			if r, ok := sameRender[out[i]]; ok {
				out[i] = r
			} else if (out[i] == "^" || out[i] == "_") && i+1 < len(out) && out[i+1] == "{" {
				// x ^ { a } _ { b } -> x _ { b } ^ { a }
				j := groupEnd(out, i+1)
				if j > 0 && j+2 < len(out) && (out[j+1] == "^" || out[j+1] == "_") && out[j+1] != out[i] && out[j+2] == "{" {
					if k := groupEnd(out, j+2); k > 0 {
						a := append([]string(nil), out[i:j+1]...)
						b := append([]string(nil), out[j+1:k+1]...)
						out = append(append(append(out[:i:i], b...), a...), out[k+1:]...)
					}
				}
			} else if !strings.HasPrefix(out[i], `\`) && (i == 0 || out[i-1] != "^" && out[i-1] != "_" && !strings.HasPrefix(out[i-1], `\`)) {
				out[i] = "{ " + out[i] + " }"
			}
		}
	}
	return strings.Join(strings.Fields(strings.Join(out, " ")), " "), strings.Join(names, "+")
}

// groupEnd returns the index of the } closing the { at i, or -1.
func groupEnd(t []string, i int) int {
	depth := 0
	for j := i; j < len(t); j++ {
		switch t[j] {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

type refMetrics struct {
	Details map[string]struct {
		F1 float64 `json:"F1_score"`
	} `json:"details"`
}

func compare(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	pairsPath := fs.String("pairs", "", "pairs file (required)")
	refPath := fs.String("ref", "", "the reference's metrics_res.json for those pairs (optional)")
	show := fs.Int("show", 40, "disagreements listed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var pairs []Pair
	if err := readJSON(*pairsPath, &pairs); err != nil {
		return err
	}
	var ref *refMetrics
	if *refPath != "" {
		ref = &refMetrics{}
		if err := readJSON(*refPath, ref); err != nil {
			return err
		}
	}
	start := time.Now()
	res := make([]cdm.Result, len(pairs))
	for i, p := range pairs {
		res[i] = cdm.ScorePair(cdm.Pair{ID: p.ImgID, GT: p.GT, Pred: p.Pred}, cdm.UniMERNet)
	}
	el := time.Since(start)
	var counted, exact, unsupported int
	for _, r := range res {
		if r.Status == cdm.Unsupported {
			unsupported++
		}
		if r.Counted {
			counted++
			if r.Exact {
				exact++
			}
		}
	}
	fmt.Fprintf(w, "pairs: %d (leakaudit: %d counted, %d exact, %d engine_unsupported; %.0f pairs/s on one core)\n",
		len(pairs), counted, exact, unsupported, float64(len(pairs))/el.Seconds())
	if ref == nil {
		fmt.Fprintln(w, "no reference results given: nothing compared")
		return nil
	}
	var left, compared, decision, same, falseExact, falseInexact int
	var diffs []string
	for i, p := range pairs {
		r := res[i]
		want, inRef := ref.Details[p.ImgID]
		if r.Status == cdm.Unsupported || r.Counted != inRef {
			left++
			diffs = append(diffs, fmt.Sprintf("LEFT OUT %s [%s %s]: leakaudit %s (%s), reference counted %v\n    gt:   %s\n    pred: %s",
				p.ImgID, p.Source, p.Edit, r.Status, r.Reason, inRef, p.GT, p.Pred))
			continue
		}
		compared++
		if !inRef { // neither counts it
			decision++
			same++
			continue
		}
		refExact := want.F1 == 1
		switch {
		case r.Exact == refExact:
			decision++
		case r.Exact:
			falseExact++
		default:
			falseInexact++
		}
		if math.Abs(r.F1-want.F1) == 0 {
			same++
		} else {
			tag := "F1"
			if r.Exact != refExact {
				tag = "DECISION"
			}
			diffs = append(diffs, fmt.Sprintf("%s %s [%s %s]: leakaudit %.3f (%s), reference %.3f\n    gt:   %s\n    pred: %s",
				tag, p.ImgID, p.Source, p.Edit, r.F1, r, want.F1, p.GT, p.Pred))
		}
	}
	pct := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f%%", 100*float64(a)/float64(b))
	}
	fmt.Fprintf(w, "left out: %d\n", left)
	fmt.Fprintf(w, "decisions agree: %d of %d (%s)\n", decision, compared, pct(decision, compared))
	fmt.Fprintf(w, "F1 identical: %d of %d (%s)\n", same, compared, pct(same, compared))
	fmt.Fprintf(w, "leakaudit-exact-but-reference-not: %d\n", falseExact)
	fmt.Fprintf(w, "reference-exact-but-leakaudit-not: %d\n", falseInexact)
	for _, d := range diffs[:min(len(diffs), *show)] {
		fmt.Fprintln(w, d)
	}
	return nil
}
