package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/rounding"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
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
	Verdicts []Verdict      `json:"verdicts,omitempty"`
	Inputs   []InputFile    `json:"inputs"`
	Splits   []SplitFinding `json:"splits"`
	Overlap  []SplitLevel   `json:"overlap,omitempty"`
	// Near is the near-label overlap, with the configuration's near.
	Near      []NearSplit `json:"near,omitempty"`
	Gaps      []Gap       `json:"contamination,omitempty"`
	Anomalies []Anomaly   `json:"anomalies"`
	// NearDups are the test images with a near-copy among the training
	// images.
	NearDups []NearDupPair `json:"near_duplicates,omitempty"`
	// Limitations lists what the audit could not check.
	Limitations []string       `json:"limitations,omitempty"`
	Items       []ItemEvidence `json:"-"`
	// Completeness lists the inputs read only in part.
	dataset.Completeness
	// Evidence are side-by-side image pairs for the report (test image,
	// training image), the first ones found.
	Evidence []ImageEvidence `json:"-"`
}

// NotScored is the CDM status of an item of a split given by its labels
// alone.
const NotScored = "not_scored"

// maxEvidence is how many image pairs the report shows.
const maxEvidence = 12

// InputFile is one input with its checksum.
type InputFile struct {
	Role   string `json:"role"`
	Name   string `json:"name"`
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Items  int64  `json:"items,omitempty"`
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
	// ClassA and ClassB count items string-exact at L1 with CDM < 1, and
	// CDM-exact but not string-exact (cdm_reversal at item level).
	ClassA, ClassA1, ClassB, ClassB1 int            `json:"-"`
	Classes                          map[string]int `json:"item_classes"`
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

// AuditJob runs an audit.
type AuditJob struct {
	Config *Config
	Tool   string
	// Workers bounds every pool of the audit by one rule: each stage
	// (CDM scoring, label lookups, image hashing and search) runs on at
	// most Workers goroutines, and the stages run one after another, so at
	// most Workers are busy at any time. 0 means one per CPU.
	Workers  int
	Progress func(stage string, done, total int)
	Log      func(format string, args ...any)
}

type splitData struct {
	labelsOnly bool
	cfg        SplitConfig
	items      []dataset.Item
	results    []cdm.Result
	stats      dataset.Stats
	missing    int64 // items with no prediction
}

// RunAudit scores every split with CDM and text ExpRate, looks the test
// labels up in the training corpora, and derives the findings. Each input
// is read and digested once.
func RunAudit(ctx context.Context, job AuditJob) (*Findings, error) {
	c := job.Config
	logf := job.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	pl, err := c.plan()
	if err != nil {
		return nil, err
	}
	prof, levels := pl.profile, pl.levels
	f := &Findings{Tool: job.Tool, Config: c}
	digests := map[string]index.Fingerprint{} // every input is read for its digest once
	addInput := func(role, name, path string) (*InputFile, error) {
		fp, err := index.FingerprintFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", role, name, err)
		}
		digests[path] = fp
		f.Inputs = append(f.Inputs, InputFile{Role: role, Name: name, Path: path, Size: fp.Size, SHA256: fp.SHA256})
		return &f.Inputs[len(f.Inputs)-1], nil
	}
	for _, t := range pl.train {
		if _, err := addInput("train corpus", t.Name, t.Source.Path); err != nil {
			return nil, err
		}
	}
	var corrections map[string]Correction
	if pl.corrections != "" {
		if _, err := addInput("corrections", "corrections", pl.corrections); err != nil {
			return nil, err
		}
		if corrections, err = readCorrections(pl.corrections); err != nil {
			return nil, err
		}
	}
	// Read every split, and refuse predictions that are not, before
	// scoring any.
	var data []*splitData
	for _, sp := range pl.splits {
		s := sp.cfg
		role := "predictions"
		if sp.labelsOnly {
			role = "labels"
		}
		in, err := addInput(role, s.Name, sp.source.Path)
		if err != nil {
			return nil, err
		}
		d := &splitData{cfg: s, labelsOnly: sp.labelsOnly}
		st, err := dataset.Scan(sp.source, func(it dataset.Item) error {
			d.items = append(d.items, it)
			if !it.HasPred {
				d.missing++
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("split %s: %w", s.Name, err)
		}
		d.stats = st
		in.Items, in.Skipped, in.FormatNote = st.Items, st.Reasons, st.FormatNote
		f.Check(role+" "+s.Name, sp.source.Path, st)
		if sp.labelsOnly {
			d.results = make([]cdm.Result, len(d.items)) // not scored
			f.Limitations = append(f.Limitations, fmt.Sprintf("%s has labels and no predictions: the model checks (ExpRate@CDM, split inversions, reversals, the contamination gap, memorization) did not run for it", s.Name))
		} else if err := metrics.CheckPredictions(int64(len(d.items)), d.missing); err != nil {
			return nil, fmt.Errorf("split %s: predictions: %s: %w; a file of labels alone is given as labels: instead", s.Name, sp.source.Path, err)
		}
		data = append(data, d)
	}
	// Score every split with predictions.
	for _, d := range data {
		if d.labelsOnly {
			continue
		}
		s := d.cfg
		if d.missing > 0 {
			msg := fmt.Sprintf("%s: %d of %d items have no prediction; they are scored as wrong", s.Name, d.missing, len(d.items))
			logf("%s", msg)
			f.Limitations = append(f.Limitations, msg)
		}
		pairs := make([]cdm.Pair, 0, len(d.items))
		for _, it := range d.items {
			pairs = append(pairs, cdm.Pair{ID: it.ID, GT: it.Label, Pred: it.Pred, NoPred: !it.HasPred})
		}
		var done atomic.Int64
		var err error
		d.results, err = cdm.Evaluate(ctx, pairs, prof, job.Workers, func() {
			if n := done.Add(1); job.Progress != nil && n%256 == 0 {
				job.Progress("CDM "+s.Name, int(n), len(pairs))
			}
		})
		if err != nil {
			return nil, err
		}
		logf("%s: %d items scored", s.Name, len(d.items))
	}
	// Look the non-train splits' labels up in the training corpora.
	found := map[string]map[int64]map[string][]string{} // split → seq → level → train ids
	if len(c.Train) > 0 {
		var tests []Split
		for i, d := range data {
			if d.cfg.Role != "train" {
				items := d.items
				if items == nil {
					items = []dataset.Item{} // read, and empty: not to be read again
				}
				tests = append(tests, Split{Name: d.cfg.Name, Source: pl.splits[i].source, Items: items, Stats: d.stats})
			}
		}
		rep, err := RunOverlap(ctx, OverlapJob{Train: pl.train, Fingerprints: digests, Tests: tests, Levels: levels, DB: c.DB, Tool: job.Tool, MaxRefs: 5, Workers: job.Workers, Log: job.Log,
			Near: c.Near, NearMin: c.NearMin, Stream: c.DB == "", // as overlap without --db
			Item: func(m ItemMatch) error {
				if !m.Found {
					return nil
				}
				if found[m.Split] == nil {
					found[m.Split] = map[int64]map[string][]string{}
				}
				if found[m.Split][m.Seq] == nil {
					found[m.Split][m.Seq] = map[string][]string{}
				}
				ids := index.RefNames(m.TrainIDs)
				found[m.Split][m.Seq][m.Level] = ids
				return nil
			}})
		if err != nil {
			return nil, err
		}
		f.Overlap, f.Near = rep.Splits, rep.Near
		f.Incomplete = append(f.Incomplete, rep.TrainShortfalls()...)
		for _, tr := range rep.Train {
			for i := range f.Inputs {
				if f.Inputs[i].Role == "train corpus" && f.Inputs[i].Name == tr.Name && tr.Stats != nil {
					f.Inputs[i].Items, f.Inputs[i].Skipped, f.Inputs[i].FormatNote = tr.Stats.Items, tr.Stats.Reasons, tr.Stats.FormatNote
				}
			}
		}
	} else {
		f.Limitations = append(f.Limitations, "no training corpus given: contamination was not measured")
	}
	// Compare the splits' images with the training images.
	near := map[string]map[string]NearDupPair{} // split → test id → pair
	if len(c.TrainImages) > 0 {
		if err := f.nearDups(ctx, job, pl, near); err != nil {
			return nil, err
		}
	}
	// Per split figures and per item evidence.
	l1, _ := canon.LookupLevel("audit")
	l2, _ := canon.LookupLevel("ws")
	l3, _ := canon.LookupLevel("tokens")
	l4, _ := canon.LookupLevel("render")
	for _, d := range data {
		sf := SplitFinding{Name: d.cfg.Name, Role: d.cfg.Role, Benchmark: d.cfg.Benchmark, N: len(d.items), Reported: d.cfg.ReportedExpRate, Classes: map[string]int{}}
		scored := d.results
		if d.labelsOnly {
			scored = nil
			sf.LabelsOnly = true
			sf.Flags = append(sf.Flags, "LABELS_ONLY")
		}
		sum := cdm.Summarize(scored, prof)
		sf.CDMExact, sf.CDMCounted, sf.CDMGTFailed, sf.CDMUnsupported = sum.Exact, sum.Counted, sum.GTFailed, sum.Unsupported
		sf.MeanCDM = sum.MeanScore
		sf.CDMReasons = sum.Reasons
		if iv, ok := stats.Wilson(sum.Exact, sum.Counted, stats.Z95); ok {
			sf.ExpRateCDM = pct(float64(sum.Exact) / float64(sum.Counted))
			sf.ExpRateCDMCI = [2]float64{pct(iv.Lo), pct(iv.Hi)}
		}
		exact1 := 0
		for i, it := range d.items {
			r := d.results[i]
			ev := ItemEvidence{Split: d.cfg.Name, ID: it.ID, Seq: it.Seq, GT: it.Label, Pred: it.Pred,
				CDMStatus: r.Status.String(), CDMF1: r.F1, CDMExact: r.Counted && r.Exact}
			if d.labelsOnly {
				ev.CDMStatus = NotScored
			}
			ev.ExactL1 = it.HasPred && metrics.Exact(l1, it.Label, it.Pred)
			ev.ExactL3 = it.HasPred && metrics.Exact(l3, it.Label, it.Pred)
			if ev.ExactL1 {
				exact1++
			}
			if k, err := l3.Canon(it.Label); err == nil {
				ev.Tokens = len(strings.Fields(k))
			}
			if r.Counted {
				switch {
				case ev.ExactL1 && !r.Exact:
					ev.Class = "A2"
					if !metrics.Exact(l2, it.Label, it.Pred) {
						ev.Class = "A1"
					}
				case !ev.ExactL1 && r.Exact:
					ev.Class = "B2"
					if metrics.Exact(l4, it.Label, it.Pred) {
						ev.Class = "B1"
					}
				}
				if ev.Class != "" {
					sf.Classes[ev.Class]++
				}
			}
			if lv := found[d.cfg.Name][it.Seq]; len(lv) > 0 {
				var names []string
				for _, l := range levels {
					if ids, ok := lv[l.Name]; ok {
						names = append(names, l.Name)
						ev.foundAt = ev.foundAt.with(l.ID)
						if ev.TrainIDs == "" {
							ev.TrainIDs = strings.Join(ids, " ")
						}
					}
				}
				if c.Near > 0 {
					if ids, ok := lv[nearLevel(c.Near)]; ok {
						names = append(names, nearLevel(c.Near))
						ev.near = true
						if ev.TrainIDs == "" {
							ev.TrainIDs = strings.Join(ids, " ")
						}
					}
				}
				ev.FoundIn = strings.Join(names, ",")
			}
			ev.suspects = suspectRules(it.Label, r)
			if p, ok := near[d.cfg.Name][it.ID]; ok {
				ev.NearDup = fmt.Sprintf("%s/%s (%d)", p.TrainSplit, p.TrainID, p.Distance)
				if p.LabelMismatch && p.Identical { // a copy: the same normalized pixels (a verified pair may be another formula written alike)
					ev.suspects |= ruleS3
				}
			}
			if corr, ok := corrections[d.cfg.Name+"\x00"+it.ID]; ok {
				ev.Erroneous, ev.Corrected = true, corr.Corrected
			}
			ev.Suspect = ev.suspects.String()
			ev.Memorized = (ev.Erroneous || ev.suspects != 0) && ev.ExactL3 && (!ev.Erroneous || !metrics.Exact(l3, ev.Corrected, it.Pred))
			f.Items = append(f.Items, ev)
		}
		if sf.N > 0 {
			sf.ExpRate = pct(float64(exact1) / float64(sf.N))
		}
		if sf.CDMCounted > 0 && sf.ExpRateCDM < 70 {
			sf.Flags = append(sf.Flags, "LOW")
		}
		f.Splits = append(f.Splits, sf)
	}
	f.inversions()
	f.reversals()
	f.gaps(levels, c.Near)
	f.memorization(corrections != nil)
	f.verdicts()
	f.Done()
	for _, sf := range f.Splits {
		if sf.CDMUnsupported > 0 {
			f.Limitations = append(f.Limitations, fmt.Sprintf("%s: %d item(s) left out of ExpRate@CDM because leakaudit's TeX engine does not lay out one of their constructs (listed in items)", sf.Name, sf.CDMUnsupported))
		}
	}
	return f, nil
}

func pct(x float64) float64 { return rounding.PercentHalfAway(x) }

func readCorrections(path string) (map[string]Correction, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	out := map[string]Correction{}
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
		out[c.Split+"\x00"+c.ID] = c
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
		a := s.Classes["A1"] + s.Classes["A2"]
		if a == 0 {
			continue
		}
		var ex []string
		for _, it := range f.Items {
			if it.Split == s.Name && (it.Class == "A1" || it.Class == "A2") && len(ex) < 10 {
				ex = append(ex, it.ID)
			}
		}
		f.Anomalies = append(f.Anomalies, Anomaly{Kind: CDMReversal, Split: s.Name,
			Summary:  fmt.Sprintf("%d item(s) string-exact at the audit level but CDM < 1 (A1 false merges %d, A2 CDM pipeline %d)", a, s.Classes["A1"], s.Classes["A2"]),
			Evidence: &ItemReversalEvidence{Scope: "item", Level: "audit", A1: s.Classes["A1"], A2: s.Classes["A2"], B1: s.Classes["B1"], B2: s.Classes["B2"], Examples: ex}})
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
		strata = append(strata, stratum{nearLevel(near), fmt.Sprintf("items with a training label within %d token edits", near), func(it *ItemEvidence) bool { return it.near || it.foundAt != 0 }})
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

// nearDups searches each split's images among the training images and
// keeps the pairs by split and test id, and the first pairs' images.
func (f *Findings) nearDups(ctx context.Context, job AuditJob, pl *plan, near map[string]map[string]NearDupPair) error {
	// The image hashes go into the same index folder as the labels (an
	// index holds both, each with its own part of the manifest): nothing
	// is written beside the folder the configuration names.
	nj := NearDupJob{MaxDistance: DefaultMaxDistance, DB: job.Config.DB, Tool: job.Tool, Workers: job.Workers, Log: job.Log, Train: pl.trainImages, Evidence: maxEvidence}
	for _, s := range pl.splits {
		if s.images != "" {
			nj.Tests = append(nj.Tests, ImageSplit{Name: s.cfg.Name, Source: dataset.ImageSource{Path: s.images}})
		}
	}
	if len(nj.Tests) == 0 {
		f.Limitations = append(f.Limitations, "training images given but no split has images: no near-duplicate search")
		return nil
	}
	rep, err := RunNearDup(ctx, nj)
	if err != nil {
		return fmt.Errorf("near-duplicates: %w", err)
	}
	for _, p := range rep.Pairs {
		if near[p.TestSplit] == nil {
			near[p.TestSplit] = map[string]NearDupPair{}
		}
		if q, ok := near[p.TestSplit][p.TestID]; !ok || p.Distance < q.Distance {
			near[p.TestSplit][p.TestID] = p
		}
	}
	f.NearDups = rep.Pairs
	f.Incomplete = append(f.Incomplete, rep.Incomplete...)
	f.Evidence = rep.Evidence
	return nil
}
