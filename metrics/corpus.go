package metrics

import (
	"fmt"
	"strings"

	"github.com/leakaudit/leakaudit/latex"
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
}

// Compute computes the named corpus metrics in one pass over the items;
// a missing prediction (has false) is an empty string for BLEU and edit
// distances.
func Compute(names []string, gts, preds []string, has []bool) ([]Value, error) {
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
	var l3 [][2]string // lazily: both sides at the tokens level
	for _, name := range names {
		v := Value{Name: name, N: len(gts)}
		switch {
		case strings.HasPrefix(name, "exprate@"):
			l, ok := latex.LookupLevel(strings.TrimPrefix(name, "exprate@"))
			if !ok {
				return nil, fmt.Errorf("unknown level in %q", name)
			}
			k, n := ExpRate(l, gts, p, has)
			v.Value, v.Missing = frac(k, n), missing
		case strings.HasPrefix(name, "le") && strings.Contains(name, "@tokEdit"):
			k := int(name[2] - '0')
			if k < 1 || k > 3 {
				return nil, fmt.Errorf("unknown metric %q", name)
			}
			g, q := gts, p
			if strings.HasSuffix(name, ":L3") {
				if l3 == nil {
					l3 = make([][2]string, len(gts))
					for i := range gts {
						l3[i][0], _ = latex.CanonTokens(gts[i])
						l3[i][1], _ = latex.CanonTokens(p[i])
					}
				}
				g, q = make([]string, len(gts)), make([]string, len(gts))
				for i := range l3 {
					g[i], q[i] = l3[i][0], l3[i][1]
				}
			}
			c, n := LeK(g, q, has)
			v.Value, v.Missing = frac(c[k], n), missing
		case name == "bleu_unimernet":
			v.Value = BLEUUniMERNet(gts, p).BLEU
		case name == "bleu_im2markup":
			v.Value = BLEUIm2markup(gts, p).BLEU
		case name == "bleu_nougat":
			v.Value, v.N = BLEUNougat(gts, p)
		case name == "ed_unimernet":
			var s float64
			for i := range gts {
				s += EDUniMERNet(gts[i], p[i])
			}
			v.Value = s / float64(max(1, len(gts)))
		case name == "ed_pix2tex", name == "ed_nougat":
			f := EDPix2tex
			if name == "ed_nougat" {
				f = EDNougat
			}
			var s float64
			v.N = 0
			for i := range gts {
				if e, ok := f(gts[i], p[i]); ok {
					s += e
					v.N++
				}
			}
			v.Value = s / float64(max(1, v.N))
		case name == "edacc_im2markup":
			v.Value = EDAccIm2markup(gts, p)
		case name == "texbleu":
			return nil, fmt.Errorf("texbleu is unavailable: it needs the GPT-2 token embeddings (not shipped); leakaudit never makes up a value")
		case name == "imege":
			return nil, fmt.Errorf("imege is unavailable: it needs rendered images of both formulas (glyph rasterizer not implemented yet)")
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
