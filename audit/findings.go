package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/internal/rounding"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/neardup"
	"github.com/leakaudit/leakaudit/overlap"
	"github.com/leakaudit/leakaudit/stats"
)

// Findings is the outcome of an audit (findings.json). It holds nothing
// that depends on the machine or the time: the same inputs give the same
// bytes.
type Findings struct {
	Tool   string  `json:"tool"`
	Config *Config `json:"config"`
	// Verdicts answer, per test split, whether it is contaminated and how
	// badly: the report's first screen.
	Verdicts []Verdict            `json:"verdicts,omitempty"`
	Inputs   []InputFile          `json:"inputs"`
	Splits   []SplitFinding       `json:"splits"`
	Overlap  []overlap.SplitLevel `json:"overlap,omitempty"`
	// Near is the near-label overlap, with the configuration's near.
	Near      []overlap.NearSplit `json:"near,omitempty"`
	Gaps      []Gap               `json:"contamination,omitempty"`
	Anomalies []Anomaly           `json:"anomalies"`
	// NearDups are the test images with a near-copy among the training
	// images.
	NearDups []neardup.Pair `json:"near_duplicates,omitempty"`
	// Limitations lists what the audit could not check.
	Limitations []string       `json:"limitations,omitempty"`
	Items       []ItemEvidence `json:"-"`
	// Completeness lists the inputs read only in part.
	dataset.Completeness
	// Evidence are side-by-side image pairs for the report (test image,
	// training image), the first ones found.
	Evidence []neardup.ImageEvidence `json:"-"`
	// TestFingerprints are the fingerprints of the non-train splits,
	// computed and not yet written (test-fingerprints.parquet); nil when
	// every split is a training split.
	TestFingerprints *fingerprint.Table `json:"-"`
}

// NotScored is the CDM status of an item of a split given by its labels
// alone.
const NotScored = "not_scored"

// maxEvidence is how many image pairs the report shows.
const maxEvidence = 12

// InputFile is one input with its checksum and what was read of it.
type InputFile struct {
	checksum.Input
	Items int64 `json:"items,omitempty"`
	// Skipped records, by reason.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// FormatNote says which format was chosen and why, when the input's
	// format was detected on mixed evidence (dataset.Stats.FormatNote).
	FormatNote string `json:"format_note,omitempty"`
}

// SplitFinding is one split's measured figures.
type SplitFinding struct {
	Name      string `json:"name"`
	Role      string `json:"role"`
	Benchmark string `json:"benchmark"`
	N         int    `json:"n"`
	// ExpRate is the text ExpRate at the audit level (L1), percent.
	ExpRate float64 `json:"exprate"`
	// ExpRateCDM is ExpRate@CDM over the pairs CDM counts, percent, with
	// its Wilson interval.
	ExpRateCDM   float64    `json:"exprate_cdm"`
	ExpRateCDMCI [2]float64 `json:"exprate_cdm_ci"`
	CDMExact     int        `json:"cdm_exact"`
	CDMCounted   int        `json:"cdm_counted"`
	MeanCDM      float64    `json:"mean_cdm_f1"`
	// CDMLeftOut counts pairs CDM leaves out: ground truths that fail, and
	// items leakaudit's engine cannot lay out.
	CDMGTFailed    int `json:"cdm_gt_failed"`
	CDMUnsupported int `json:"cdm_unsupported"`
	// CDMReasons counts the failures and unsupported constructs (a
	// formula over the limits fails with reason "limits").
	CDMReasons map[string]int `json:"cdm_reasons,omitempty"`
	Reported   *float64       `json:"reported_exprate"`
	// LabelsOnly: the split was given by its labels, without predictions;
	// its model figures are not measured.
	LabelsOnly bool `json:"labels_only,omitempty"`
	// Flags: LOW, NO_GAP(train,test), REVERSAL, LABELS_ONLY.
	Flags []string `json:"flags,omitempty"`
	// Classes counts the items of each class (ClassA1 … ClassB2): items
	// string-exact at L1 with CDM < 1, and CDM-exact but not string-exact
	// (cdm_reversal at item level).
	Classes map[string]int `json:"item_classes"`
}

// Gap is the contaminated-versus-clean comparison of one split at one
// level (docs/audit-statistics.md §4).
type Gap struct {
	Split        string     `json:"split"`
	Level        string     `json:"level"`
	Contaminated int        `json:"n_contaminated"`
	Clean        int        `json:"n_clean"`
	AccC         float64    `json:"acc_contaminated"`
	AccU         float64    `json:"acc_clean"`
	Delta        float64    `json:"delta_pp"`
	CI           [2]float64 `json:"delta_ci_pp"`
	Test         stats.Test `json:"test"`
	MHDelta      float64    `json:"mh_delta_pp"`
	CMHChi2      float64    `json:"cmh_chi2"`
	CMHP         float64    `json:"cmh_p"`
	Significant  bool       `json:"significant"`
	Undefined    string     `json:"undefined,omitempty"`
}

// ItemEvidence is one test item's evidence (items.parquet).
type ItemEvidence struct {
	Split     string  `json:"split" parquet:"split"`
	ID        string  `json:"id" parquet:"id"`
	Seq       int64   `json:"seq" parquet:"seq"`
	GT        string  `json:"gt" parquet:"gt"`
	Pred      string  `json:"pred" parquet:"pred"`
	ExactL1   bool    `json:"exact_l1" parquet:"exact_l1"`
	ExactL3   bool    `json:"exact_l3" parquet:"exact_l3"`
	CDMStatus string  `json:"cdm_status" parquet:"cdm_status"`
	CDMF1     float64 `json:"cdm_f1" parquet:"cdm_f1"`
	CDMExact  bool    `json:"cdm_exact" parquet:"cdm_exact"`
	Class     string  `json:"class,omitempty" parquet:"class"`
	FoundIn   string  `json:"found_in_train,omitempty" parquet:"found_in_train"` // levels at which the label is in a training corpus
	TrainIDs  string  `json:"train_ids,omitempty" parquet:"train_ids"`
	Tokens    int     `json:"gt_tokens" parquet:"gt_tokens"`
	NearDup   string  `json:"near_duplicate,omitempty" parquet:"near_duplicate"` // nearest training image within the radius: corpus/id (distance)
	Suspect   string  `json:"suspect,omitempty" parquet:"suspect"`
	Erroneous bool    `json:"label_erroneous,omitempty" parquet:"label_erroneous"`
	Corrected string  `json:"label_corrected,omitempty" parquet:"label_corrected"`
	Memorized bool    `json:"memorized,omitempty" parquet:"memorized"`
	// foundAt and suspects are FoundIn and Suspect as sets, for the
	// findings; the string columns are for the evidence files.
	foundAt  levelSet
	near     bool // a training label within the configuration's near edits
	suspects ruleSet
}

// Correction is one line of a corrections file.
type Correction struct {
	Dataset   string `json:"dataset"`
	Split     string `json:"split"`
	ID        string `json:"id"`
	Erroneous string `json:"label_erroneous"`
	Corrected string `json:"label_corrected"`
	Source    string `json:"source"`
	Evidence  string `json:"evidence"`
	Locus     string `json:"locus"`
}

func pct(x float64) float64 { return rounding.PercentHalfAway(x) }

// readCorrections reads a corrections file, by split and id.
func readCorrections(path string) (map[itemID]Correction, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	out := map[itemID]Correction{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c Correction
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out[itemID{c.Split, c.ID}] = c
	}
	return out, sc.Err()
}

// suspectRules returns the automatic suspect rules a ground truth hits
// (S1: it fails to tokenize or render; S2: structural oddities).
func suspectRules(gt string, r cdm.Result) ruleSet {
	var rules ruleSet
	if r.Status == cdm.GTFailed {
		rules |= ruleS1
	}
	toks := strings.Fields(gt)
	s2 := false
	if len(toks) > 0 && (toks[0] == "^" || toks[0] == "_") {
		s2 = true // a script with no base at the start
	}
	depth := 0
	for i, t := range toks {
		switch t {
		case "(":
			depth++
		case ")":
			depth--
		}
		if (t == "^" || t == "_") && i+3 < len(toks) && toks[i+1] == "{" && toks[i+3] == "}" && strings.Contains(",.;:=<>", toks[i+2]) {
			s2 = true // a script of only punctuation or a relation
		}
		if t == "{" && i+1 < len(toks) && toks[i+1] == "}" {
			s2 = true // an empty group
		}
		for _, r := range t {
			if r >= 0x3000 && r <= 0x303F || r >= 0x4E00 && r <= 0x9FFF || r >= 0xFF00 && r <= 0xFFEF {
				s2 = true
			}
		}
	}
	if depth != 0 {
		s2 = true // unbalanced ( )
	}
	if s2 {
		rules |= ruleS2
	}
	return rules
}

// ruleSet is a set of suspect rules.
type ruleSet uint8

const (
	ruleS1 ruleSet = 1 << iota // the label fails to tokenize or render
	ruleS2                     // structural oddities
	ruleS3                     // a near-copy image carries another formula (package labelcheck)
)

// String lists the rules as the evidence column does: "S1,S3".
func (r ruleSet) String() string {
	var out []string
	for i, name := range []string{"S1", "S2", "S3"} {
		if r&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return strings.Join(out, ",")
}

// levelSet is a set of canonical levels.
type levelSet uint32

func (s levelSet) with(id canon.LevelID) levelSet { return s | 1<<id }
func (s levelSet) has(id canon.LevelID) bool      { return s&(1<<id) != 0 }

// inversions flags splits of one benchmark whose ExpRate@CDM runs the
// wrong way (train below val or test, val below test), with Newcombe
// intervals and Holm-adjusted tests.
func (f *Findings) inversions() {
	type pair struct{ a, b *SplitFinding }
	var pairs []pair
	byBench := map[string][]*SplitFinding{}
	var benches []string
	for i := range f.Splits {
		s := &f.Splits[i]
		if byBench[s.Benchmark] == nil {
			benches = append(benches, s.Benchmark)
		}
		byBench[s.Benchmark] = append(byBench[s.Benchmark], s)
	}
	order := map[string]int{"train": 0, "val": 1, "test": 2}
	for _, b := range benches {
		list := byBench[b]
		for _, x := range list {
			for _, y := range list {
				if order[x.Role] < order[y.Role] && x.CDMCounted > 0 && y.CDMCounted > 0 {
					pairs = append(pairs, pair{x, y})
				}
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	ps := make([]float64, len(pairs))
	tests := make([]stats.Test, len(pairs))
	for i, p := range pairs {
		tests[i] = stats.TwoProportions(p.b.CDMExact, p.b.CDMCounted, p.a.CDMExact, p.a.CDMCounted)
		ps[i] = tests[i].P
	}
	adj := stats.Holm(ps)
	for i, p := range pairs {
		iv, _ := stats.Newcombe(p.b.CDMExact, p.b.CDMCounted, p.a.CDMExact, p.a.CDMCounted, stats.Z95)
		diff := float64(p.b.CDMExact)/float64(p.b.CDMCounted) - float64(p.a.CDMExact)/float64(p.a.CDMCounted)
		ev := &InversionEvidence{Metric: "exprate@CDM", LowerRole: p.a.Role, LowerSplit: p.a.Name, HigherRole: p.b.Role, HigherSplit: p.b.Name,
			AccLower: p.a.ExpRateCDM, AccHigher: p.b.ExpRateCDM,
			KNLower: fmt.Sprintf("%d/%d", p.a.CDMExact, p.a.CDMCounted), KNHigher: fmt.Sprintf("%d/%d", p.b.CDMExact, p.b.CDMCounted),
			DifferencePP: pct(diff), DifferenceCIPP: [2]float64{pct(iv.Lo), pct(iv.Hi)},
			Test: tests[i].Method, Z: round3(tests[i].Z), P: tests[i].P, PHolm: adj[i]}
		if iv.Lo > 0 && adj[i] < f.Config.Alpha {
			f.Anomalies = append(f.Anomalies, Anomaly{Kind: SplitInversion, Split: p.a.Name,
				Summary: fmt.Sprintf("%s (%s) %.2f%% is below %s (%s) %.2f%% by %.2f pp [%.2f, %.2f], Holm-adjusted p %.2g",
					p.a.Name, p.a.Role, p.a.ExpRateCDM, p.b.Name, p.b.Role, p.b.ExpRateCDM, pct(diff), pct(iv.Lo), pct(iv.Hi), adj[i]),
				Evidence: ev})
		}
		if p.a.Role == "train" && p.b.Role == "test" && iv.Lo > -f.Config.NoGapDelta/100 && iv.Hi < f.Config.NoGapDelta/100 {
			p.a.Flags = append(p.a.Flags, "NO_GAP("+p.b.Name+")")
		}
	}
}

func round3(x float64) float64 { return rounding.HalfAway(x, 3) }

// reversals flags a reported text ExpRate above the measured
// ExpRate@CDM's upper bound (split level), and items that are
// string-exact but not CDM-exact (class A, item level).
func (f *Findings) reversals() {
	for i := range f.Splits {
		s := &f.Splits[i]
		if s.Reported != nil && s.CDMCounted > 0 && *s.Reported > s.ExpRateCDMCI[1] {
			s.Flags = append(s.Flags, "REVERSAL")
			f.Anomalies = append(f.Anomalies, Anomaly{Kind: CDMReversal, Split: s.Name,
				Summary: fmt.Sprintf("reported ExpRate %.2f%% is above the measured ExpRate@CDM %.2f%% [%.2f, %.2f] by %.2f pp",
					*s.Reported, s.ExpRateCDM, s.ExpRateCDMCI[0], s.ExpRateCDMCI[1], *s.Reported-s.ExpRateCDM),
				Evidence: &SplitReversalEvidence{Scope: "split", Reported: *s.Reported, Source: f.Config.ReportedSource,
					ExpRateCDM: s.ExpRateCDM, ExpRateCDMCI: s.ExpRateCDMCI, MagnitudePP: round3(*s.Reported - s.ExpRateCDM),
					KN: fmt.Sprintf("%d/%d", s.CDMExact, s.CDMCounted)}})
		}
		a := s.Classes[ClassA1] + s.Classes[ClassA2]
		if a == 0 {
			continue
		}
		var ex []string
		for _, it := range f.Items {
			if it.Split == s.Name && (it.Class == ClassA1 || it.Class == ClassA2) && len(ex) < 10 {
				ex = append(ex, it.ID)
			}
		}
		f.Anomalies = append(f.Anomalies, Anomaly{Kind: CDMReversal, Split: s.Name,
			Summary:  fmt.Sprintf("%d item(s) string-exact at the audit level but CDM < 1 (A1 false merges %d, A2 CDM pipeline %d)", a, s.Classes[ClassA1], s.Classes[ClassA2]),
			Evidence: &ItemReversalEvidence{Scope: "item", Level: "audit", A1: s.Classes[ClassA1], A2: s.Classes[ClassA2], B1: s.Classes[ClassB1], B2: s.Classes[ClassB2], Examples: ex}})
	}
}

// lengthBins are the GT-length strata (L3 tokens).
var lengthBins = []int{5, 10, 15, 20, 30, math.MaxInt}

func lengthBin(n int) int {
	for i, b := range lengthBins {
		if n <= b {
			return i
		}
	}
	return len(lengthBins) - 1
}

// gaps compares CDM-exact accuracy on contaminated and clean items of
// every non-train split at every level.
func (f *Findings) gaps(levels []canon.Level, near int) {
	if len(f.Overlap) == 0 {
		return
	}
	// The strata: each level, then the near labels when asked for.
	type stratum struct {
		name, what string
		found      func(*ItemEvidence) bool
	}
	var strata []stratum
	for _, l := range levels {
		id := l.ID
		strata = append(strata, stratum{l.Name, "items whose label is in the training data", func(it *ItemEvidence) bool { return it.foundAt.has(id) }})
	}
	if near > 0 {
		// Near contamination includes the exact kind: a label found at a
		// level, or a training label within the edits (short labels, not
		// looked for near, count when they are found exactly).
		strata = append(strata, stratum{overlap.NearLevel(near), fmt.Sprintf("items with a training label within %d token edits", near), func(it *ItemEvidence) bool { return it.near || it.foundAt != 0 }})
	}
	for _, s := range f.Splits {
		if s.Role == "train" || s.LabelsOnly {
			continue
		}
		for _, l := range strata {
			var kc, nc, ku, nu int
			strata := make([]stats.Stratum, len(lengthBins))
			for i := range f.Items {
				it := &f.Items[i]
				if it.Split != s.Name || it.CDMStatus == cdm.Unsupported.String() || it.CDMStatus == cdm.GTFailed.String() {
					continue
				}
				b := lengthBin(it.Tokens)
				x := 0
				if it.CDMExact {
					x = 1
				}
				if l.found(it) {
					kc, nc = kc+x, nc+1
					strata[b].K1 += x
					strata[b].N1++
				} else {
					ku, nu = ku+x, nu+1
					strata[b].K0 += x
					strata[b].N0++
				}
			}
			g := Gap{Split: s.Name, Level: l.name, Contaminated: nc, Clean: nu}
			switch {
			case nc == 0:
				g.Undefined = "no contaminated item"
			case nu == 0:
				g.Undefined = "no clean item: the split is entirely in the training data; a novel evaluation set is needed"
			default:
				g.AccC, g.AccU = pct(float64(kc)/float64(nc)), pct(float64(ku)/float64(nu))
				g.Delta = round3(g.AccC - g.AccU)
				iv, _ := stats.Newcombe(kc, nc, ku, nu, stats.Z95)
				g.CI = [2]float64{pct(iv.Lo), pct(iv.Hi)}
				g.Test = stats.TwoProportions(kc, nc, ku, nu)
				rd, chi2, p := stats.MantelHaenszel(strata)
				g.MHDelta, g.CMHChi2, g.CMHP = pct(rd), round3(chi2), p
				g.Significant = iv.Lo > 0 && g.Test.P < f.Config.Alpha
			}
			f.Gaps = append(f.Gaps, g)
			if g.Significant {
				f.Anomalies = append(f.Anomalies, Anomaly{Kind: ContaminationGap, Split: s.Name,
					Summary: fmt.Sprintf("at %s, %s are CDM-exact %.2f%% (n=%d) against %.2f%% for clean items (n=%d): +%.2f pp [%.2f, %.2f]; length-stratified %.2f pp",
						l.name, l.what, g.AccC, nc, g.AccU, nu, g.Delta, g.CI[0], g.CI[1], g.MHDelta),
					Evidence: &GapEvidence{Level: l.name, NContaminated: nc, NClean: nu, AccContaminated: g.AccC, AccClean: g.AccU,
						DeltaPP: g.Delta, DeltaCIPP: g.CI, Test: g.Test.Method, P: g.Test.P, MHDeltaPP: g.MHDelta, CMHChi2: g.CMHChi2, CMHP: g.CMHP}})
			}
		}
	}
}

// memorization lists, per split, the predictions that reproduce a
// ground truth known to be wrong (corrections file) or strongly suspected
// (S1: it fails to tokenize or render; S3: a near-copy of its image in
// the training images carries another formula, by package labelcheck),
// with the evidence. The
// S2 heuristics are reported in the items only.
func (f *Findings) memorization(haveCorrections bool) {
	var names []string
	bySplit := map[string][]ItemEvidence{}
	strong := func(it ItemEvidence) bool {
		return it.Erroneous || it.suspects&(ruleS1|ruleS3) != 0
	}
	for _, it := range f.Items {
		if !strong(it) || it.CDMStatus == NotScored {
			continue
		}
		if bySplit[it.Split] == nil {
			names = append(names, it.Split)
		}
		bySplit[it.Split] = append(bySplit[it.Split], it)
	}
	sort.Strings(names)
	for _, name := range names {
		var memorized []MemorizedLabel
		n := len(bySplit[name])
		for _, it := range bySplit[name] {
			if !it.Memorized {
				continue
			}
			var sources []string
			if it.Erroneous {
				sources = append(sources, "corrections")
			}
			for _, r := range []ruleSet{ruleS1, ruleS3} {
				if it.suspects&r != 0 {
					sources = append(sources, r.String())
				}
			}
			memorized = append(memorized, MemorizedLabel{ID: it.ID, Label: it.GT, Prediction: it.Pred, Sources: sources,
				Corrected: it.Corrected, NearDuplicate: it.NearDup})
		}
		if len(memorized) == 0 {
			continue
		}
		iv, _ := stats.Wilson(len(memorized), n, stats.Z95)
		f.Anomalies = append(f.Anomalies, Anomaly{Kind: ErrorLabelMemorization, Split: name,
			Summary: fmt.Sprintf("the model reproduces %d of %d labels known or strongly suspected to be wrong (%.1f%% [%.1f, %.1f])",
				len(memorized), n, 100*float64(len(memorized))/float64(n), 100*iv.Lo, 100*iv.Hi),
			Evidence: &MemorizationEvidence{Memorized: memorized, ErroneousItems: n}})
	}
	if !haveCorrections {
		f.Limitations = append(f.Limitations, "no corrections file: label errors are only the automatic suspects (S1 a label that fails to render, S3 a near-copy image with another label; S2 heuristics are listed per item)")
	}
}
