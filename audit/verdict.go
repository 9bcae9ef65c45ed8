package audit

import (
	"fmt"
	"strings"

	"github.com/leakaudit/leakaudit/overlap"
)

// A Verdict answers, for one test split, "is this benchmark contaminated,
// and how badly?" in one line: the first screen of the report. The wording
// rules are in docs/report-verdicts.md.
type Verdict struct {
	Split string `json:"split"`
	Items int    `json:"items"`
	// Level is the canonical level at which the most labels were found
	// (the lowest rung among equals), Same the levels that give exactly
	// the same counts ("audit = ws"), Found and Share its figures.
	Level string          `json:"level,omitempty"`
	Same  []string        `json:"same_levels,omitempty"`
	Found int64           `json:"found"`
	Share overlap.Percent `json:"share"`
	// NearDuplicates counts the split's images with a verified near-copy
	// among the training images.
	NearDuplicates int `json:"near_duplicates"`
	// Reported and ExpRateCDM (with its interval) are the split's
	// published and measured figures; Reversal says the reported one is
	// above the interval.
	Reported     *float64   `json:"reported_exprate"`
	ExpRateCDM   float64    `json:"exprate_cdm"`
	ExpRateCDMCI [2]float64 `json:"exprate_cdm_ci"`
	Reversal     bool       `json:"reversal"`
	// Gap is the contamination gap at Level (nil when it is undefined).
	GapPP          *float64    `json:"gap_pp"`
	GapCI          *[2]float64 `json:"gap_ci_pp"`
	GapSignificant bool        `json:"gap_significant"`
	// LabelsOnly: no predictions, so no model figures.
	LabelsOnly bool `json:"labels_only,omitempty"`
	// Class is contaminated, overlap, images or clean; Text the sentence.
	Class string `json:"class"`
	Text  string `json:"text"`
}

// The verdict classes.
const (
	VerdictContaminated = "contaminated" // labels in training data, and the model does measurably better on them
	VerdictOverlap      = "overlap"      // labels in training data, no measurable advantage on them
	VerdictImages       = "images"       // no label found, but copied images
	VerdictClean        = "clean"        // nothing found at the levels and images checked
)

// verdicts computes one verdict per non-train split.
func (f *Findings) verdicts() {
	for _, s := range f.Splits {
		if s.Role == "train" {
			continue
		}
		v := Verdict{Split: s.Name, Items: s.N, Reported: s.Reported, ExpRateCDM: s.ExpRateCDM, ExpRateCDMCI: s.ExpRateCDMCI, LabelsOnly: s.LabelsOnly}
		v.Reversal = s.Reported != nil && s.CDMCounted > 0 && *s.Reported > s.ExpRateCDMCI[1]
		var best *overlap.SplitLevel
		for i := range f.Overlap {
			o := &f.Overlap[i]
			if o.Name != s.Name {
				continue
			}
			if best == nil || o.Found > best.Found {
				best = o
			}
		}
		if best != nil {
			v.Level, v.Found, v.Share = best.Level, best.Found, best.Rate
			for _, o := range f.Overlap {
				if o.Name == s.Name && o.Level != best.Level && o.Found == best.Found && o.Total == best.Total && o.UniqueFound == best.UniqueFound {
					v.Same = append(v.Same, o.Level)
				}
			}
			for _, g := range f.Gaps {
				if g.Split == s.Name && g.Level == best.Level && g.Undefined == "" {
					d, ci := g.Delta, g.CI
					v.GapPP, v.GapCI, v.GapSignificant = &d, &ci, g.Significant
				}
			}
		}
		seen := map[string]bool{}
		for _, p := range f.NearDups {
			if p.TestSplit == s.Name && p.Verified && !seen[p.TestID] {
				seen[p.TestID] = true
				v.NearDuplicates++
			}
		}
		v.Class, v.Text = verdictText(v)
		f.Verdicts = append(f.Verdicts, v)
	}
}

// verdictText applies the wording rules of docs/report-verdicts.md.
func verdictText(v Verdict) (class, text string) {
	var parts []string
	switch {
	case v.Found > 0 && v.GapSignificant && v.GapPP != nil && *v.GapPP > 0:
		class = VerdictContaminated
		parts = append(parts, fmt.Sprintf("contaminated: %s%% of labels in training data, %+.1f pp on them", v.Share, *v.GapPP))
	case v.Found > 0:
		class = VerdictOverlap
		adv := "no measurable advantage on them"
		switch {
		case v.LabelsOnly:
			adv = "no predictions, so no model advantage measured"
		case v.GapPP == nil:
			adv = "the advantage on them cannot be measured"
		}
		parts = append(parts, fmt.Sprintf("overlap: %s%% of labels in training data, %s", v.Share, adv))
	case v.NearDuplicates > 0:
		class = VerdictImages
		parts = append(parts, "copied images: no label in training data")
	default:
		class = VerdictClean
		parts = append(parts, "clean at the levels checked")
	}
	if v.NearDuplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d image(s) copied from training images", v.NearDuplicates))
	}
	if v.Reversal {
		parts = append(parts, fmt.Sprintf("reported ExpRate %.1f%% above the measured ExpRate@CDM %.1f%% [%.1f, %.1f]", *v.Reported, v.ExpRateCDM, v.ExpRateCDMCI[0], v.ExpRateCDMCI[1]))
	}
	return class, strings.Join(parts, "; ")
}
