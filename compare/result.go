package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/rounding"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/stats"
)

// Comparison is the outcome of Run (comparison.json). It holds nothing
// that depends on the machine or the time.
type Comparison struct {
	Tool   string  `json:"tool"`
	Config *Config `json:"config"`
	// Leaderboards are the first screen: per split, the models ranked on
	// all items and on the common clean subset, and one sentence.
	Leaderboards []Leaderboard `json:"leaderboards"`
	Splits       []SplitResult `json:"splits"`
	// Pairwise holds every pair of models on every split, on all items
	// and on clean items; the p-values are Holm-adjusted over all of them.
	Pairwise []PairResult `json:"pairwise"`
	// Excess holds each model's seen gap minus each control's (rules:
	// true) on the same items.
	Excess []ExcessGap `json:"excess_gaps"`
	// Flips are the rank flips, with the items behind each.
	Flips []Flip `json:"flips"`
	// Overlap counts each training corpus's matches per split and level.
	Overlap     []CorpusOverlap   `json:"overlap"`
	Inputs      []audit.InputFile `json:"inputs"`
	Limitations []string          `json:"limitations,omitempty"`
	Items       []ItemRow         `json:"-"`
	dataset.Completeness
}

// Rate is a proportion k/n in percent with its 95% Wilson interval.
type Rate struct {
	K    int        `json:"k"`
	N    int        `json:"n"`
	Pct  float64    `json:"pct"`
	CI   [2]float64 `json:"ci"`
	None bool       `json:"none,omitempty"` // n is 0
}

func rate(k, n int) Rate {
	r := Rate{K: k, N: n}
	iv, ok := stats.Wilson(k, n, stats.Z95)
	if !ok {
		r.None = true
		return r
	}
	r.Pct = rounding.PercentHalfAway(float64(k) / float64(n))
	r.CI = [2]float64{rounding.PercentHalfAway(iv.Lo), rounding.PercentHalfAway(iv.Hi)}
	return r
}

// String is "87.45 [87.03, 87.86]" or "–".
func (r Rate) String() string {
	if r.None {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", r.Pct, r.CI[0], r.CI[1])
}

// Leaderboard is one split's ranking.
type Leaderboard struct {
	Split string           `json:"split"`
	Items int              `json:"items"`
	Clean int              `json:"clean_items"`
	Rows  []LeaderboardRow `json:"rows"`
	// Class is holds, not_significant, flips, no_clean or single; Text
	// the sentence.
	Class string `json:"class"`
	Text  string `json:"text"`
}

// LeaderboardRow is one model's place on a split, in the order of the
// full ranking.
type LeaderboardRow struct {
	Model     string   `json:"model"`
	Rules     bool     `json:"rules"`
	Reported  *float64 `json:"reported_exprate"`
	Full      Rate     `json:"full"`
	FullRank  int      `json:"full_rank"`
	Clean     Rate     `json:"clean"`
	CleanRank int      `json:"clean_rank"`
	// Flip: the model's rank on clean items differs from the one on
	// all items by a flip with another model (see Flips).
	Flip    bool `json:"flip"`
	Missing int  `json:"missing_predictions"`
	// Text are the text metrics on all items, as extra columns.
	Text TextRates `json:"text"`
}

// SplitResult is one split's figures.
type SplitResult struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
	// Clean counts the common clean subset: items no model saw.
	Clean int `json:"clean_items"`
	// SeenAny counts the items some model saw.
	SeenAny int           `json:"seen_by_any"`
	Models  []ModelResult `json:"models"`
}

// ModelResult is one model's figures on one split.
type ModelResult struct {
	Model      string   `json:"model"`
	Rules      bool     `json:"rules"`
	Reported   *float64 `json:"reported_exprate"`
	Predicted  int      `json:"predicted"`
	Missing    int      `json:"missing_predictions"`
	CDMReused  int      `json:"cdm_reused"`
	CDMLeftOut int      `json:"cdm_left_out"` // ground truth failed, or a side the engine does not lay out
	// ExpRate@CDM on all items, clean items, the model's seen items and
	// the rest.
	Full   Rate `json:"full"`
	Clean  Rate `json:"clean"`
	Seen   Rate `json:"seen"`
	Unseen Rate `json:"unseen"`
	// Seen items by kind: label (a level), near, image.
	SeenLabel int `json:"seen_label"`
	SeenNear  int `json:"seen_near,omitempty"`
	SeenImage int `json:"seen_image,omitempty"`
	// Text metrics over all items and over clean items: ExpRate at the
	// audit level, ≤1 and ≤2 token edits at the tokens level.
	Text      TextRates `json:"text"`
	TextClean TextRates `json:"text_clean"`
	Gap       Gap       `json:"seen_gap"`
	FullRank  int       `json:"full_rank"`
	CleanRank int       `json:"clean_rank"`
}

// TextRates are the text metrics of one subset.
type TextRates struct {
	ExpRate Rate `json:"exprate_audit"`
	Le1     Rate `json:"le1_tokens"`
	Le2     Rate `json:"le2_tokens"`
}

// Gap is a model's seen gap: ExpRate@CDM on its seen items minus the
// rest, raw (Newcombe interval) and stratified by label length
// (Mantel–Haenszel with its Greenland–Robins interval, CMH test).
type Gap struct {
	Seen      int        `json:"n_seen"`
	Unseen    int        `json:"n_unseen"`
	Delta     float64    `json:"delta_pp"`
	CI        [2]float64 `json:"delta_ci_pp"`
	MHDelta   float64    `json:"mh_delta_pp"`
	MHCI      [2]float64 `json:"mh_ci_pp"`
	CMHP      float64    `json:"cmh_p"`
	Undefined string     `json:"undefined,omitempty"`
}

// ExcessGap is a model's stratified seen gap minus a control's on the
// same items (those both scored), with the model's seen items as the
// seen group of both.
type ExcessGap struct {
	Split      string     `json:"split"`
	Model      string     `json:"model"`
	Control    string     `json:"control"`
	Seen       int        `json:"n_seen"`
	Unseen     int        `json:"n_unseen"`
	ModelGap   float64    `json:"model_mh_gap_pp"`
	ControlGap float64    `json:"control_mh_gap_pp"`
	Excess     float64    `json:"excess_pp"`
	CI         [2]float64 `json:"excess_ci_pp"`
	Positive   bool       `json:"significant_excess"` // the interval is above 0
	Undefined  string     `json:"undefined,omitempty"`
}

// PairResult compares two models on one split and subset (all or clean)
// over the items both scored: A's ExpRate@CDM minus B's.
type PairResult struct {
	Split       string     `json:"split"`
	Subset      string     `json:"subset"` // "all" or "clean"
	A           string     `json:"a"`
	B           string     `json:"b"`
	N           int        `json:"n"`
	Both        int        `json:"both_exact"`
	OnlyA       int        `json:"only_a_exact"`
	OnlyB       int        `json:"only_b_exact"`
	Neither     int        `json:"neither_exact"`
	AccA        float64    `json:"acc_a"`
	AccB        float64    `json:"acc_b"`
	Diff        float64    `json:"diff_pp"`
	CI          [2]float64 `json:"diff_ci_pp"`
	P           float64    `json:"mcnemar_p"`
	PHolm       float64    `json:"p_holm"`
	Significant bool       `json:"significant"`
}

// Flip is a rank flip: Above ranks above Below on all items, Below above
// Above on clean items.
type Flip struct {
	Split string `json:"split"`
	Above string `json:"above_on_all"`
	Below string `json:"below_on_all"`
	// Clean is the clean-items comparison, Above minus Below (negative).
	Clean PairResult `json:"clean"`
	// Items are the clean items Below recognises and Above does not, the
	// first in split order (all of them in items.parquet).
	Items []string `json:"items"`
}

// CorpusOverlap is one training corpus's matches in one split at one
// level (or near stratum).
type CorpusOverlap struct {
	Corpus string `json:"corpus"`
	Split  string `json:"split"`
	Level  string `json:"level"`
	Found  int64  `json:"found"`
	Total  int64  `json:"total"`
}

// ItemRow is one item and model (items.parquet).
type ItemRow struct {
	Split     string  `json:"split" parquet:"split"`
	ID        string  `json:"id" parquet:"id"`
	Seq       int64   `json:"seq" parquet:"seq"`
	Model     string  `json:"model" parquet:"model"`
	GT        string  `json:"gt" parquet:"gt"`
	Pred      string  `json:"pred" parquet:"pred"`
	HasPred   bool    `json:"has_pred" parquet:"has_pred"`
	CDMStatus string  `json:"cdm_status" parquet:"cdm_status"`
	CDMF1     float64 `json:"cdm_f1" parquet:"cdm_f1"`
	CDMExact  bool    `json:"cdm_exact" parquet:"cdm_exact"`
	CDMReused bool    `json:"cdm_reused" parquet:"cdm_reused"`
	ExactL1   bool    `json:"exact_audit" parquet:"exact_audit"`
	TokenDist int     `json:"token_distance" parquet:"token_distance"` // at the tokens level; -1 when a side fails or no prediction
	GTTokens  int     `json:"gt_tokens" parquet:"gt_tokens"`
	Seen      string  `json:"seen,omitempty" parquet:"seen"` // by this model's training data: label, near, image
	TrainIDs  string  `json:"train_ids,omitempty" parquet:"train_ids"`
	Clean     bool    `json:"clean" parquet:"clean"` // seen by no model
}

// lengthBins are the audit's ground-truth length strata (L3 tokens).
var lengthBins = []int{5, 10, 15, 20, 30, math.MaxInt}

// LengthBins names the strata: "≤5", …, ">30".
func LengthBins() []string {
	var out []string
	for i, b := range lengthBins {
		if b == math.MaxInt {
			out = append(out, fmt.Sprintf(">%d", lengthBins[i-1]))
		} else {
			out = append(out, fmt.Sprintf("≤%d", b))
		}
	}
	return out
}

// LengthBin is the stratum of a ground truth of n tokens (an index into
// LengthBins).
func LengthBin(n int) int {
	for i, b := range lengthBins {
		if n <= b {
			return i
		}
	}
	return len(lengthBins) - 1
}

// maxFlipItems is how many items each flip names.
const maxFlipItems = 6

// counted says the model's CDM result enters ExpRate@CDM.
func (md *modelData) counted(i int) bool { return md.res[i].Counted }
func (md *modelData) exact(i int) bool   { return md.res[i].Counted && md.res[i].Exact }

// derive computes every figure from the scored, looked-up data.
func (out *Comparison) derive(data []*splitData, levels []canon.Level) {
	c := out.Config
	var pairs []*PairResult
	for _, d := range data {
		n := len(d.items)
		clean := make([]bool, n)
		sr := SplitResult{Name: d.cfg.Name, Items: n}
		for i := range n {
			seen := false
			for mi := range c.Models {
				seen = seen || d.seen[mi][i] != 0
			}
			clean[i] = !seen
			if seen {
				sr.SeenAny++
			} else {
				sr.Clean++
			}
		}
		var present []int // models with predictions on the split
		for mi, md := range d.models {
			if md == nil {
				continue
			}
			present = append(present, mi)
			m := c.Models[mi]
			mr := ModelResult{Model: m.Name, Rules: m.Rules, Missing: md.missing, Predicted: n - md.missing, CDMReused: md.nReused}
			for _, p := range m.Predictions {
				if p.Split == d.cfg.Name {
					mr.Reported = p.Reported
				}
			}
			var kf, nf, kc, nc, ks, ns, ku, nu int
			var tf, tc [3][2]int // exact, ≤1, ≤2: k, n
			strata := make([]stats.Stratum, len(lengthBins))
			for i := range n {
				s := d.seen[mi][i]
				if s&seenLabel != 0 {
					mr.SeenLabel++
				}
				if s&seenNear != 0 {
					mr.SeenNear++
				}
				if s&seenImage != 0 {
					mr.SeenImage++
				}
				// The text metrics count every item; a missing
				// prediction is wrong.
				for k, ok := range [3]bool{md.exactL1[i], md.dist[i] >= 0 && md.dist[i] <= 1, md.dist[i] >= 0 && md.dist[i] <= 2} {
					x := 0
					if ok {
						x = 1
					}
					tf[k][0], tf[k][1] = tf[k][0]+x, tf[k][1]+1
					if clean[i] {
						tc[k][0], tc[k][1] = tc[k][0]+x, tc[k][1]+1
					}
				}
				if !md.counted(i) {
					mr.CDMLeftOut++
					continue
				}
				x := 0
				if md.exact(i) {
					x = 1
				}
				kf, nf = kf+x, nf+1
				if clean[i] {
					kc, nc = kc+x, nc+1
				}
				b := LengthBin(d.tokens[i])
				if s != 0 {
					ks, ns = ks+x, ns+1
					strata[b].K1 += x
					strata[b].N1++
				} else {
					ku, nu = ku+x, nu+1
					strata[b].K0 += x
					strata[b].N0++
				}
			}
			mr.Full, mr.Clean, mr.Seen, mr.Unseen = rate(kf, nf), rate(kc, nc), rate(ks, ns), rate(ku, nu)
			mr.Text = TextRates{rate(tf[0][0], tf[0][1]), rate(tf[1][0], tf[1][1]), rate(tf[2][0], tf[2][1])}
			mr.TextClean = TextRates{rate(tc[0][0], tc[0][1]), rate(tc[1][0], tc[1][1]), rate(tc[2][0], tc[2][1])}
			mr.Gap = gapOf(ks, ns, ku, nu, strata)
			sr.Models = append(sr.Models, mr)
		}
		// Pairwise, on all items and on clean items.
		for x := 0; x < len(present); x++ {
			for y := x + 1; y < len(present); y++ {
				a, b := d.models[present[x]], d.models[present[y]]
				for _, subset := range []string{"all", "clean"} {
					var t stats.Paired
					for i := range n {
						if subset == "clean" && !clean[i] || !a.counted(i) || !b.counted(i) {
							continue
						}
						switch ea, eb := a.exact(i), b.exact(i); {
						case ea && eb:
							t.Both++
						case ea:
							t.OnlyA++
						case eb:
							t.OnlyB++
						default:
							t.Neither++
						}
					}
					pr := &PairResult{Split: d.cfg.Name, Subset: subset, A: c.Models[present[x]].Name, B: c.Models[present[y]].Name,
						N: t.N(), Both: t.Both, OnlyA: t.OnlyA, OnlyB: t.OnlyB, Neither: t.Neither, P: stats.McNemarExact(t.OnlyA, t.OnlyB)}
					if t.N() > 0 {
						pr.AccA = rounding.PercentHalfAway(float64(t.Both+t.OnlyA) / float64(t.N()))
						pr.AccB = rounding.PercentHalfAway(float64(t.Both+t.OnlyB) / float64(t.N()))
						pr.Diff = rounding.PercentHalfAway(t.Diff())
						iv, _ := stats.NewcombePaired(t, stats.Z95)
						pr.CI = [2]float64{rounding.PercentHalfAway(iv.Lo), rounding.PercentHalfAway(iv.Hi)}
					}
					pairs = append(pairs, pr)
				}
			}
		}
		// Excess gaps against every control.
		for _, ci := range present {
			if !c.Models[ci].Rules {
				continue
			}
			for _, mi := range present {
				if mi == ci {
					continue
				}
				out.Excess = append(out.Excess, excessOf(d, mi, ci, c.Models[mi].Name, c.Models[ci].Name))
			}
		}
		d.clean = clean
		out.Splits = append(out.Splits, sr)
	}
	// Holm over every comparison of the run.
	ps := make([]float64, len(pairs))
	for i, p := range pairs {
		ps[i] = p.P
	}
	adj := stats.Holm(ps)
	for i, p := range pairs {
		p.PHolm = adj[i]
		p.Significant = p.N > 0 && adj[i] < c.Alpha && (p.CI[0] > 0 || p.CI[1] < 0)
		out.Pairwise = append(out.Pairwise, *p)
	}
	for si, d := range data {
		out.leaderboard(si, d)
	}
	out.items(data)
}

// gapOf is a seen gap from its counts and length strata.
func gapOf(ks, ns, ku, nu int, strata []stats.Stratum) Gap {
	g := Gap{Seen: ns, Unseen: nu}
	switch {
	case ns == 0:
		g.Undefined = "no seen item"
		return g
	case nu == 0:
		g.Undefined = "no unseen item"
		return g
	}
	g.Delta = rounding.PercentHalfAway(float64(ks)/float64(ns) - float64(ku)/float64(nu))
	iv, _ := stats.Newcombe(ks, ns, ku, nu, stats.Z95)
	g.CI = [2]float64{rounding.PercentHalfAway(iv.Lo), rounding.PercentHalfAway(iv.Hi)}
	rd, miv, ok := stats.MHRiskDifference(strata, stats.Z95)
	if !ok {
		g.Undefined = "no length stratum has both seen and unseen items"
		return g
	}
	_, _, p := stats.MantelHaenszel(strata)
	g.MHDelta, g.MHCI, g.CMHP = rounding.PercentHalfAway(rd), [2]float64{rounding.PercentHalfAway(miv.Lo), rounding.PercentHalfAway(miv.Hi)}, p
	return g
}

// excessOf compares model mi's stratified seen gap with control ci's on
// the items both scored, mi's seen items against the rest.
func excessOf(d *splitData, mi, ci int, model, control string) ExcessGap {
	e := ExcessGap{Split: d.cfg.Name, Model: model, Control: control}
	a, b := d.models[mi], d.models[ci]
	diff := make([]stats.DiffStratum, len(lengthBins))
	sa, sb := make([]stats.Stratum, len(lengthBins)), make([]stats.Stratum, len(lengthBins))
	for i := range d.items {
		if !a.counted(i) || !b.counted(i) {
			continue
		}
		xa, xb := 0, 0
		if a.exact(i) {
			xa = 1
		}
		if b.exact(i) {
			xb = 1
		}
		dd := xa - xb
		k := LengthBin(d.tokens[i])
		if d.seen[mi][i] != 0 {
			e.Seen++
			diff[k].Sum1, diff[k].Sq1, diff[k].N1 = diff[k].Sum1+dd, diff[k].Sq1+dd*dd, diff[k].N1+1
			sa[k].K1, sa[k].N1 = sa[k].K1+xa, sa[k].N1+1
			sb[k].K1, sb[k].N1 = sb[k].K1+xb, sb[k].N1+1
		} else {
			e.Unseen++
			diff[k].Sum0, diff[k].Sq0, diff[k].N0 = diff[k].Sum0+dd, diff[k].Sq0+dd*dd, diff[k].N0+1
			sa[k].K0, sa[k].N0 = sa[k].K0+xa, sa[k].N0+1
			sb[k].K0, sb[k].N0 = sb[k].K0+xb, sb[k].N0+1
		}
	}
	est, iv, ok := stats.MHDiffInDiff(diff, stats.Z95)
	if !ok {
		e.Undefined = fmt.Sprintf("no length stratum has both items %s saw and items it did not", model)
		return e
	}
	ga, _, _ := stats.MHRiskDifference(sa, stats.Z95)
	gb, _, _ := stats.MHRiskDifference(sb, stats.Z95)
	e.ModelGap, e.ControlGap, e.Excess = rounding.PercentHalfAway(ga), rounding.PercentHalfAway(gb), rounding.PercentHalfAway(est)
	e.CI = [2]float64{rounding.PercentHalfAway(iv.Lo), rounding.PercentHalfAway(iv.Hi)}
	e.Positive = iv.Lo > 0
	return e
}

// above says model a's rate is above b's (exact comparison of k/n).
func above(a, b Rate) bool {
	if a.None || b.None {
		return !a.None && b.None
	}
	return int64(a.K)*int64(b.N) > int64(b.K)*int64(a.N)
}

// ranks gives competition ranks (1, 2, 2, 4) by rate, highest first.
func ranks(rs []Rate) []int {
	out := make([]int, len(rs))
	for i := range rs {
		out[i] = 1
		for j := range rs {
			if above(rs[j], rs[i]) {
				out[i]++
			}
		}
	}
	return out
}

// leaderboard ranks the models of split si on all and on clean items,
// finds the flips and words the sentence.
func (out *Comparison) leaderboard(si int, d *splitData) {
	sr := &out.Splits[si]
	lb := Leaderboard{Split: sr.Name, Items: sr.Items, Clean: sr.Clean}
	var full, clean []Rate
	for _, m := range sr.Models {
		full, clean = append(full, m.Full), append(clean, m.Clean)
	}
	fr, cr := ranks(full), ranks(clean)
	for i := range sr.Models {
		sr.Models[i].FullRank, sr.Models[i].CleanRank = fr[i], cr[i]
	}
	order := make([]int, len(sr.Models))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return fr[order[a]] < fr[order[b]] })
	pair := func(a, b, subset string) *PairResult {
		for i := range out.Pairwise {
			p := &out.Pairwise[i]
			if p.Split == sr.Name && p.Subset == subset && (p.A == a && p.B == b || p.A == b && p.B == a) {
				return p
			}
		}
		return nil
	}
	// oriented returns the comparison as a minus b.
	oriented := func(p *PairResult, a string) PairResult {
		q := *p
		if q.A != a {
			q.A, q.B = q.B, q.A
			q.OnlyA, q.OnlyB = q.OnlyB, q.OnlyA
			q.AccA, q.AccB = q.AccB, q.AccA
			q.Diff, q.CI = -q.Diff, [2]float64{-q.CI[1], -q.CI[0]}
		}
		return q
	}
	flipped := map[int]bool{}
	var flips []Flip
	for x := range sr.Models {
		for y := range sr.Models {
			a, b := sr.Models[x], sr.Models[y]
			if above(a.Full, b.Full) && above(b.Clean, a.Clean) {
				flipped[x], flipped[y] = true, true
				f := Flip{Split: sr.Name, Above: a.Model, Below: b.Model}
				if p := pair(a.Model, b.Model, "clean"); p != nil {
					f.Clean = oriented(p, a.Model)
				}
				f.Items = flipItems(d, out.Config, a.Model, b.Model)
				flips = append(flips, f)
			}
		}
	}
	sort.SliceStable(flips, func(i, j int) bool {
		return fr[indexOf(sr.Models, flips[i].Above)] < fr[indexOf(sr.Models, flips[j].Above)]
	})
	for _, i := range order {
		m := sr.Models[i]
		lb.Rows = append(lb.Rows, LeaderboardRow{Model: m.Model, Rules: m.Rules, Reported: m.Reported, Full: m.Full, FullRank: m.FullRank,
			Clean: m.Clean, CleanRank: m.CleanRank, Flip: flipped[i], Missing: m.Missing, Text: m.Text})
	}
	switch {
	case len(sr.Models) < 2:
		lb.Class, lb.Text = "single", "one model only on this split: nothing to compare"
	case sr.Clean == 0:
		lb.Class, lb.Text = "no_clean", "no clean item: every item is in some model's training data, so the ranking cannot be checked on unseen items"
	case len(flips) > 0:
		var parts []string
		for _, f := range flips {
			s := fmt.Sprintf("%s is above %s on clean items (%+.2f pp [%.2f, %.2f], Holm p %s)", f.Below, f.Above, -f.Clean.Diff, -f.Clean.CI[1], -f.Clean.CI[0], FormatP(f.Clean.PHolm))
			if !f.Clean.Significant {
				s += ", not significant"
			}
			parts = append(parts, s)
		}
		lb.Class, lb.Text = "flips", "the ranking flips: "+strings.Join(parts, "; ")
	default:
		var weak []string
		for k := 0; k+1 < len(order); k++ {
			a, b := sr.Models[order[k]], sr.Models[order[k+1]]
			if !above(a.Full, b.Full) {
				continue // tied on all items
			}
			p := pair(a.Model, b.Model, "clean")
			if p == nil || !p.Significant {
				q := PairResult{}
				if p != nil {
					q = oriented(p, a.Model)
				}
				weak = append(weak, fmt.Sprintf("%s's lead over %s is not significant on clean items (%+.2f pp [%.2f, %.2f], Holm p %s)", a.Model, b.Model, q.Diff, q.CI[0], q.CI[1], FormatP(q.PHolm)))
			}
		}
		if len(weak) > 0 {
			lb.Class, lb.Text = "not_significant", strings.Join(weak, "; ")
		} else {
			lb.Class, lb.Text = "holds", "the ranking holds on clean items"
		}
	}
	out.Leaderboards = append(out.Leaderboards, lb)
	out.Flips = append(out.Flips, flips...)
}

func indexOf(ms []ModelResult, name string) int {
	for i, m := range ms {
		if m.Model == name {
			return i
		}
	}
	return -1
}

// FormatP prints a p-value: "0.031", "2.1e-05", "<1e-300".
func FormatP(p float64) string {
	switch {
	case p == 0:
		return "<1e-300"
	case p >= 0.001:
		return fmt.Sprintf("%.3f", p)
	}
	return fmt.Sprintf("%.1e", p)
}

// flipItems names the first clean items the lower model (on all items)
// recognises and the upper one does not.
func flipItems(d *splitData, c *Config, upper, lower string) []string {
	var a, b *modelData
	for mi, m := range c.Models {
		switch m.Name {
		case upper:
			a = d.models[mi]
		case lower:
			b = d.models[mi]
		}
	}
	var ids []string
	for i, it := range d.items {
		if d.clean[i] && a.counted(i) && b.counted(i) && b.exact(i) && !a.exact(i) {
			ids = append(ids, it.ID)
			if len(ids) == maxFlipItems {
				break
			}
		}
	}
	return ids
}

// items makes the per-item rows: one per item and model with
// predictions on the split.
func (out *Comparison) items(data []*splitData) {
	c := out.Config
	near := fmt.Sprintf("near%d", c.Near)
	for _, d := range data {
		for i, it := range d.items {
			for mi, md := range d.models {
				if md == nil {
					continue
				}
				r := md.res[i]
				row := ItemRow{Split: d.cfg.Name, ID: it.ID, Seq: it.Seq, Model: c.Models[mi].Name, GT: it.Label, Pred: md.pred[i], HasPred: md.has[i],
					CDMStatus: r.Status.String(), CDMF1: r.F1, CDMExact: r.Counted && r.Exact, CDMReused: md.reused[i],
					ExactL1: md.exactL1[i], TokenDist: md.dist[i], GTTokens: d.tokens[i], TrainIDs: d.ids[mi][i], Clean: d.clean[i]}
				var kinds []string
				s := d.seen[mi][i]
				if s&seenLabel != 0 {
					kinds = append(kinds, "label")
				}
				if s&seenNear != 0 {
					kinds = append(kinds, near)
				}
				if s&seenImage != 0 {
					kinds = append(kinds, "image")
				}
				row.Seen = strings.Join(kinds, ",")
				out.Items = append(out.Items, row)
			}
		}
	}
}

// Profile is the configuration's CDM profile.
func (out *Comparison) Profile() cdm.Profile { return cdm.Profiles[out.Config.Profile] }
