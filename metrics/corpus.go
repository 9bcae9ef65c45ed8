package metrics

import (
	"context"
	"fmt"
	"strings"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/internal/parallel"
	"github.com/leakaudit/leakaudit/internal/setting"

	"github.com/leakaudit/leakaudit/metrics/imege"
	"github.com/leakaudit/leakaudit/metrics/texbleu"
)

// Names are the text metrics Compute knows, in the order it reports
// them. exprate@LEVEL works for every canonical level; le_k@tokEdit uses
// the tokens as given, le_k@tokEdit:L3 the tokens level on both sides
// (for untokenized predictions).
var Names = []string{
	"exprate@raw", "exprate@audit", "exprate@ws", "exprate@tokens", "exprate@render",
	"le1@tokEdit", "le2@tokEdit", "le3@tokEdit",
	"le1@tokEdit:L3", "le2@tokEdit:L3", "le3@tokEdit:L3",
	"bleu_unimernet", "bleu_im2markup", "bleu_nougat",
	"ed_unimernet", "ed_pix2tex", "ed_nougat", "edacc_im2markup",
}

// Value is one corpus metric: its value (a fraction, ×1) and the number
// of items it is over.
type Value struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	N     int     `json:"n"`
	// Missing counts ground-truth items without a prediction (counted
	// wrong by ExpRate and ≤k; empty for the others).
	Missing int `json:"missing,omitempty"`
	// IMEGE holds imege's per-item values and render failures (Value is
	// its mean error as a fraction: IMEGE/100).
	IMEGE *imege.Corpus `json:"imege,omitempty"`
}

// Options configure the metrics that need more than the strings.
type Options struct {
	// TeXBLEUEmbeddings is GPT-2 small's token-embedding table wte (a .npy
	// file, or a safetensors file with wte.weight) for texbleu; it is not
	// shipped.
	TeXBLEUEmbeddings string
}

// Compute computes the named corpus metrics in one pass over the items;
// a missing prediction (has false) is an empty string for BLEU, edit
// distances and TeXBLEU.
func Compute(names []string, gts, preds []string, has []bool, opt Options) ([]Value, error) {
	missing := 0
	p := make([]string, len(preds))
	for i := range preds {
		if has[i] {
			p[i] = preds[i]
		} else {
			missing++
		}
	}
	var out []Value
	// each calls f for every item, on all CPUs; a panic in f is returned.
	each := func(f func(i int)) error {
		return parallel.For(context.Background(), len(gts), 0, func(i int) error { f(i); return nil })
	}
	// Canonical keys and normalized strings are computed once per run.
	keys := map[string][2][]string{}
	keysAt := func(l canon.Level) ([2][]string, error) {
		if k, ok := keys[l.Name]; ok {
			return k, nil
		}
		// the tokens and render levels share one tokenizer run per
		// string, so they are computed together
		levels := []canon.Level{l}
		if l.Name == "tokens" || l.Name == "render" {
			t, _ := canon.LookupLevel("tokens")
			r, _ := canon.LookupLevel("render")
			levels = []canon.Level{t, r}
		}
		out := make([][2][]string, len(levels))
		for j := range levels {
			out[j][0], out[j][1] = make([]string, len(gts)), make([]string, len(gts))
		}
		if err := each(func(i int) {
			for side, s := range [2]string{gts[i], p[i]} {
				for j, lv := range levels {
					k, err := lv.Canon(s)
					if err != nil {
						k = "\x00failed" + string(rune('0'+side))
					}
					out[j][side][i] = k
				}
			}
		}); err != nil {
			return [2][]string{}, fmt.Errorf("%s keys: %w", l.Name, err)
		}
		for j, lv := range levels {
			keys[lv.Name] = out[j]
		}
		return keys[l.Name], nil
	}
	dists := map[bool][]int{} // token distances, as given (false) and at L3 (true)
	var normG, normP []string
	normalized := func() error {
		if normG == nil {
			g, q := make([]string, len(gts)), make([]string, len(gts))
			if err := each(func(i int) { g[i], q[i] = NormalizeText(gts[i]), NormalizeText(p[i]) }); err != nil {
				return fmt.Errorf("normalizing: %w", err)
			}
			normG, normP = g, q
		}
		return nil
	}
	for _, name := range names {
		v := Value{Name: name, N: len(gts)}
		switch {
		case strings.HasPrefix(name, "exprate@"):
			l, ok := canon.LookupLevel(strings.TrimPrefix(name, "exprate@"))
			if !ok {
				return nil, fmt.Errorf("unknown level in %q", name)
			}
			k, err := keysAt(l)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			exact := 0
			for i := range gts {
				if has[i] && k[0][i] == k[1][i] {
					exact++
				}
			}
			v.Value, v.Missing = frac(exact, len(gts)), missing
		case strings.HasPrefix(name, "le") && strings.Contains(name, "@tokEdit"):
			k := int(name[2] - '0')
			if k < 1 || k > 3 {
				return nil, fmt.Errorf("unknown metric %q", name)
			}
			g, q := gts, p
			if strings.HasSuffix(name, ":L3") {
				l, _ := canon.LookupLevel("tokens")
				k, err := keysAt(l)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				g, q = k[0], k[1]
			}
			l3 := strings.HasSuffix(name, ":L3")
			d, ok := dists[l3]
			if !ok {
				d = make([]int, len(gts))
				if err := each(func(i int) { d[i] = TokenDistance(q[i], g[i]) }); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				dists[l3] = d
			}
			within := 0
			for i := range gts {
				if has[i] && d[i] <= k {
					within++
				}
			}
			v.Value, v.Missing = frac(within, len(gts)), missing
		case name == "bleu_unimernet":
			if err := normalized(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			v.Value = bleuUniMERNetNormalized(normG, normP).BLEU
		case name == "bleu_im2markup":
			v.Value = BLEUIm2markup(gts, p).BLEU
		case name == "bleu_nougat":
			b := make([]float64, len(gts))
			ok := make([]bool, len(gts))
			if err := each(func(i int) { b[i], ok[i] = SentenceBLEUNougat(gts[i], p[i]) }); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var sum float64
			v.N = 0
			for i := range b {
				if ok[i] {
					sum += b[i]
					v.N++
				}
			}
			v.Value = sum / float64(max(1, v.N))
		case name == "ed_unimernet":
			if err := normalized(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			e := make([]float64, len(gts))
			if err := each(func(i int) { e[i] = edNormalized(normG[i], normP[i], false) }); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var s float64
			for _, x := range e {
				s += x
			}
			v.Value = s / float64(max(1, len(gts)))
		case name == "ed_pix2tex":
			if err := normalized(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			e := make([]float64, len(gts))
			if err := each(func(i int) {
				if normG[i] != "" {
					e[i] = edNormalized(normG[i], normP[i], true)
				}
			}); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var s float64
			v.N = 0
			for i := range gts {
				if normG[i] != "" {
					s += e[i]
					v.N++
				}
			}
			v.Value = s / float64(max(1, v.N))
		case name == "ed_nougat":
			e := make([]float64, len(gts))
			ok := make([]bool, len(gts))
			if err := each(func(i int) { e[i], ok[i] = EDNougat(gts[i], p[i]) }); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var s float64
			v.N = 0
			for i := range gts {
				if ok[i] {
					s += e[i]
					v.N++
				}
			}
			v.Value = s / float64(max(1, v.N))
		case name == "edacc_im2markup":
			v.Value = EDAccIm2markup(gts, p)
		case name == "texbleu":
			if opt.TeXBLEUEmbeddings == "" {
				return nil, setting.Errorf("texbleu needs GPT-2 small's token embeddings, which leakaudit does not ship: give %s FILE (wte as .npy, or a safetensors file with wte.weight)", setting.TeXBLEUEmbeddings)
			}
			emb, err := texbleu.LoadEmbeddings(opt.TeXBLEUEmbeddings)
			if err != nil {
				return nil, fmt.Errorf("texbleu: %w", err)
			}
			tok, err := texbleu.GPT2()
			if err != nil {
				return nil, fmt.Errorf("texbleu: %w", err)
			}
			sc := texbleu.Scorer{Tok: tok, Emb: emb}
			scores := make([]float64, len(gts))
			errs := make([]error, len(gts))
			if err := each(func(i int) { scores[i], errs[i] = sc.Score(gts[i], p[i]) }); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			var sum float64
			for i := range gts {
				if errs[i] != nil {
					return nil, fmt.Errorf("texbleu: item %d: %w", i, errs[i])
				}
				sum += scores[i]
			}
			v.Value = sum / float64(max(1, len(gts)))
		case name == "imege":
			c := imege.ScoreCorpus(gts, preds, has, imege.DefaultParams)
			v.Value, v.N, v.Missing, v.IMEGE = c.Mean/100, len(c.Items), missing, &c
		default:
			return nil, fmt.Errorf("unknown metric %q (known: %s, and cdm)", name, strings.Join(Names, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}

func frac(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}
