package audit

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/gcpace"
	"github.com/leakaudit/leakaudit/internal/panics"
	"github.com/leakaudit/leakaudit/internal/parallel"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/neardup"
	"github.com/leakaudit/leakaudit/overlap"
	"github.com/leakaudit/leakaudit/stats"
)

// Job runs an audit.
type Job struct {
	Config *Config
	Tool   string
	// Workers bounds every pool of the audit by one rule: each stage
	// (CDM scoring, label lookups, image hashing and search) runs on at
	// most Workers goroutines, and the stages run one after another, so at
	// most Workers are busy at any time. 0 means one per CPU.
	Workers int
	// Progress, when set, follows each stage that reports progress (the
	// CDM scoring of each split) as one task.
	Progress progress.Reporter
	Log      func(format string, args ...any)
}

// The classes of a CDM-counted item whose string and CDM verdicts differ
// (ItemEvidence.Class, the item-level cdm_reversal).
const (
	// ClassA1: string-exact at the audit level, not at ws, and CDM < 1:
	// deleting spaces merged two formulas.
	ClassA1 = "A1"
	// ClassA2: string-exact at the audit and ws levels, and CDM < 1: the
	// CDM pipeline tells them apart.
	ClassA2 = "A2"
	// ClassB1: CDM-exact, not string-exact at the audit level, and exact
	// at the render level.
	ClassB1 = "B1"
	// ClassB2: CDM-exact, not string-exact at the audit or render level.
	ClassB2 = "B2"
)

// Run executes the configuration's plan (NewPlan) in phases, all under
// ctx: it reads every split and scores its predictions with CDM and the
// text ExpRate, looks the test labels up in the training corpora, compares
// the splits' images with the training images, derives the per-item
// evidence and the findings, and computes the test splits' fingerprints.
// Each input is read and digested once, the test splits once more for
// their fingerprints.
func Run(ctx context.Context, job Job) (*Findings, error) {
	pl, err := NewPlan(job.Config)
	if err != nil {
		return nil, err
	}
	r := &run{job: job, plan: pl, logf: job.Log, digests: map[string]checksum.File{},
		f: &Findings{Tool: job.Tool, Config: &pl.Config}}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	data, err := r.readAndScore(ctx)
	if err != nil {
		return nil, err
	}
	found, err := r.lookUp(ctx, data)
	if err != nil {
		return nil, err
	}
	near, err := r.imageDuplicates(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.itemEvidence(ctx, data, found, near); err != nil {
		return nil, err
	}
	r.derive()
	if r.f.TestFingerprints, err = r.testFingerprints(ctx); err != nil {
		return nil, fmt.Errorf("test fingerprints: %w", err)
	}
	return r.f, nil
}

// run is one audit under way: its plan, and the findings as they grow.
type run struct {
	job     Job
	plan    *Plan
	logf    func(format string, args ...any)
	f       *Findings
	digests map[string]checksum.File // every input's, by path: each is read for its digest once
	// corrections are the corrections file's, nil without one.
	corrections map[itemID]Correction
}

// itemID names a test item by its split and id.
type itemID struct{ split, id string }

// itemSeq names a test item by its split and position.
type itemSeq struct {
	split string
	seq   int64
}

// levelMatches are the training ids a test item's label matched, by level
// name ("audit", "ws", …, "near2").
type levelMatches map[string][]string

// foundLabels are the test items whose label is in the training corpora.
type foundLabels map[itemSeq]levelMatches

// nearestPairs are the test images with a near-copy among the training
// images, each with its nearest pair.
type nearestPairs map[itemID]neardup.Pair

// splitData is one split as read and scored.
type splitData struct {
	plan    splitPlan
	items   []dataset.Item
	results []cdm.Result
	stats   dataset.Stats
	missing int64 // items with no prediction
}

// addInput digests an input and lists it among the findings' inputs.
func (r *run) addInput(role, name, path string) (*InputFile, error) {
	fp, err := checksum.Of(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", role, name, err)
	}
	r.digests[path] = fp
	r.f.Inputs = append(r.f.Inputs, InputFile{Input: checksum.Input{Role: role, Name: name, File: fp}})
	return &r.f.Inputs[len(r.f.Inputs)-1], nil
}

// readAndScore is the first phase: it digests the training corpora and
// the corrections file, reads every split (refusing predictions that are
// not, before scoring any), and scores every split with predictions.
func (r *run) readAndScore(ctx context.Context) ([]*splitData, error) {
	// The splits are read and digested meanwhile, on at most Workers
	// goroutines, and recorded below in order. A panic reading a split is
	// that split's error, reported in order as a reading error is.
	reads := make([]splitRead, len(r.plan.splits))
	var readErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		readErr = parallel.For(ctx, len(r.plan.splits), r.job.Workers, func(i int) error {
			if err := panics.Catch(func() { reads[i] = splitReader(r.plan.splits[i]) }); err != nil {
				reads[i].err = err
			}
			return nil
		})
	})
	defer wg.Wait() // when an error returns early
	for _, t := range r.plan.train {
		if _, err := r.addInput("train corpus", t.Name, t.Source.Path); err != nil {
			return nil, err
		}
	}
	if path := r.plan.corrections; path != "" {
		if _, err := r.addInput("corrections", "corrections", path); err != nil {
			return nil, err
		}
		var err error
		if r.corrections, err = readCorrections(path); err != nil {
			return nil, err
		}
	}
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	var data []*splitData
	for i, sp := range r.plan.splits {
		d, err := r.readSplit(sp, reads[i])
		if err != nil {
			return nil, err
		}
		data = append(data, d)
	}
	defer gcpace.Start()() // fewer collections of CDM's layouts, memory bounded
	for _, d := range data {
		if d.plan.labelsOnly {
			continue
		}
		if err := r.score(ctx, d); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// splitRead is a split's file as read and digested by readSplitFile.
type splitRead struct {
	fp      checksum.File
	items   []dataset.Item
	stats   dataset.Stats
	missing int64 // items with no prediction
	// digestErr and err are the errors of the digest and of the reading
	// (the first one stops before the other).
	digestErr, err error
}

// splitReader reads a split's file (a variable for the tests).
var splitReader = readSplitFile

// readSplitFile digests a split's file and reads its items.
func readSplitFile(sp splitPlan) splitRead {
	var rd splitRead
	if rd.fp, rd.digestErr = checksum.Of(sp.source.Path); rd.digestErr != nil {
		return rd
	}
	rd.stats, rd.err = dataset.Scan(sp.source, func(it dataset.Item) error {
		rd.items = append(rd.items, it)
		if !it.HasPred {
			rd.missing++
		}
		return nil
	})
	return rd
}

// readSplit records a split as read (rd), with its digest, and checks that
// a predictions file holds predictions.
func (r *run) readSplit(sp splitPlan, rd splitRead) (*splitData, error) {
	s := sp.cfg
	role := "predictions"
	if sp.labelsOnly {
		role = "labels"
	}
	if rd.digestErr != nil {
		return nil, fmt.Errorf("%s %s: %w", role, s.Name, rd.digestErr)
	}
	r.digests[sp.source.Path] = rd.fp
	r.f.Inputs = append(r.f.Inputs, InputFile{Input: checksum.Input{Role: role, Name: s.Name, File: rd.fp}})
	in := &r.f.Inputs[len(r.f.Inputs)-1]
	if rd.err != nil {
		return nil, fmt.Errorf("split %s: %w", s.Name, rd.err)
	}
	d := &splitData{plan: sp, items: rd.items, stats: rd.stats, missing: rd.missing}
	st := rd.stats
	in.Items, in.Skipped, in.FormatNote = st.Items, st.Reasons, st.FormatNote
	r.f.Check(role+" "+s.Name, sp.source.Path, st)
	if sp.labelsOnly {
		d.results = make([]cdm.Result, len(d.items)) // not scored
		r.f.Limitations = append(r.f.Limitations, fmt.Sprintf("%s has labels and no predictions: the model checks (ExpRate@CDM, split inversions, reversals, the contamination gap, memorization) did not run for it", s.Name))
	} else if err := metrics.CheckPredictions(int64(len(d.items)), d.missing); err != nil {
		return nil, fmt.Errorf("split %s: predictions: %s: %w; a file of labels alone is given as labels: instead", s.Name, sp.source.Path, err)
	}
	return d, nil
}

// score scores a split's predictions with CDM.
func (r *run) score(ctx context.Context, d *splitData) error {
	s := d.plan.cfg
	if d.missing > 0 {
		msg := fmt.Sprintf("%s: %d of %d items have no prediction; they are scored as wrong", s.Name, d.missing, len(d.items))
		r.logf("%s", msg)
		r.f.Limitations = append(r.f.Limitations, msg)
	}
	pairs := make([]cdm.Pair, 0, len(d.items))
	for _, it := range d.items {
		pairs = append(pairs, cdm.Pair{ID: it.ID, GT: it.Label, Pred: it.Pred, NoPred: !it.HasPred})
	}
	var done func()
	if p := r.job.Progress; p != nil {
		p.Start("CDM "+s.Name, int64(len(pairs)))
		done = func() { p.Add(1) }
	}
	var err error
	d.results, err = evaluate(ctx, pairs, r.plan.profile, r.job.Workers, done)
	if p := r.job.Progress; p != nil {
		p.Done()
	}
	if err != nil {
		return err
	}
	r.logf("%s: %d items scored", s.Name, len(d.items))
	return nil
}

// lookUp is the label overlap phase: it looks the non-train splits'
// labels up in the training corpora, at every level (and within the
// near edits), and returns the items found.
func (r *run) lookUp(ctx context.Context, data []*splitData) (foundLabels, error) {
	c := &r.plan.Config
	found := foundLabels{}
	if len(c.Train) == 0 {
		r.f.Limitations = append(r.f.Limitations, "no training corpus given: contamination was not measured")
		return found, nil
	}
	var tests []overlap.Split
	for _, d := range data {
		if d.plan.cfg.Role != "train" {
			items := d.items
			if items == nil {
				items = []dataset.Item{} // read, and empty: not to be read again
			}
			tests = append(tests, overlap.Split{Name: d.plan.cfg.Name, Source: d.plan.source, Items: items, Stats: d.stats})
		}
	}
	rep, err := overlap.Run(ctx, overlap.Job{Train: r.plan.train, Checksums: r.digests, Tests: tests, Levels: r.plan.levels,
		DB: c.DB, Tool: r.job.Tool, MaxRefs: 5, Workers: r.job.Workers, Log: r.job.Log,
		Near: c.Near, NearMin: c.NearMin, Stream: c.DB == "", // as overlap without --db
		Item: func(m overlap.ItemMatch) error {
			if !m.Found {
				return nil
			}
			k := itemSeq{m.Split, m.Seq}
			if found[k] == nil {
				found[k] = levelMatches{}
			}
			found[k][m.Level] = index.RefNames(m.TrainIDs)
			return nil
		}})
	if err != nil {
		return nil, err
	}
	r.f.Overlap, r.f.Near = rep.Splits, rep.Near
	r.f.Incomplete = append(r.f.Incomplete, rep.TrainShortfalls()...)
	for _, tr := range rep.Train {
		for i := range r.f.Inputs {
			if in := &r.f.Inputs[i]; in.Role == "train corpus" && in.Name == tr.Name && tr.Stats != nil {
				in.Items, in.Skipped, in.FormatNote = tr.Stats.Items, tr.Stats.Reasons, tr.Stats.FormatNote
			}
		}
	}
	return found, nil
}

// imageDuplicates is the image phase: it searches each split's images
// among the training images, and returns each test image's nearest pair.
// The first pairs' images are kept for the report.
func (r *run) imageDuplicates(ctx context.Context) (nearestPairs, error) {
	near := nearestPairs{}
	if len(r.plan.trainImages) == 0 {
		return near, nil
	}
	// The image hashes go into the same index folder as the labels (an
	// index holds both, each with its own part of the manifest): nothing
	// is written beside the folder the configuration names.
	nj := neardup.Job{MaxDistance: neardup.DefaultMaxDistance, DB: r.plan.Config.DB, Tool: r.job.Tool, Workers: r.job.Workers,
		Log: r.job.Log, Train: r.plan.trainImages, Evidence: maxEvidence}
	for _, s := range r.plan.splits {
		if s.images != "" {
			nj.Tests = append(nj.Tests, neardup.ImageSplit{Name: s.cfg.Name, Source: dataset.ImageSource{Path: s.images}})
		}
	}
	if len(nj.Tests) == 0 {
		r.f.Limitations = append(r.f.Limitations, "training images given but no split has images: no near-duplicate search")
		return near, nil
	}
	rep, err := neardup.Run(ctx, nj)
	if err != nil {
		return nil, fmt.Errorf("near-duplicates: %w", err)
	}
	for _, p := range rep.Pairs {
		k := itemID{p.TestSplit, p.TestID}
		if q, ok := near[k]; !ok || p.Distance < q.Distance {
			near[k] = p
		}
	}
	r.f.NearDups = rep.Pairs
	r.f.Incomplete = append(r.f.Incomplete, rep.Incomplete...)
	r.f.Evidence = rep.Evidence
	return near, nil
}

// evidenceLevels are the canonical levels the per-item figures use.
type evidenceLevels struct{ audit, ws, tokens, render canon.Level }

// lookupEvidenceLevels finds the levels of the per-item figures.
func lookupEvidenceLevels() (evidenceLevels, error) {
	var lv evidenceLevels
	for _, l := range []struct {
		name string
		dst  *canon.Level
	}{{"audit", &lv.audit}, {"ws", &lv.ws}, {"tokens", &lv.tokens}, {"render", &lv.render}} {
		var ok bool
		if *l.dst, ok = canon.LookupLevel(l.name); !ok {
			return lv, fmt.Errorf("the canonical level %s is not registered", l.name)
		}
	}
	return lv, nil
}

// itemEvidence is the per-item phase: each split's figures, and each of
// its items' evidence (exactness, class, training matches, near-copy,
// suspect rules, known errors).
func (r *run) itemEvidence(ctx context.Context, data []*splitData, found foundLabels, near nearestPairs) error {
	lv, err := lookupEvidenceLevels()
	if err != nil {
		return err
	}
	for _, d := range data {
		sf := r.splitFinding(d)
		exact1 := 0
		evs := make([]ItemEvidence, len(d.items))
		if err := parallel.For(ctx, len(d.items), r.job.Workers, func(i int) error {
			evs[i] = r.item(d, d.items[i], d.results[i], lv, found, near)
			return nil
		}); err != nil {
			return fmt.Errorf("split %s: item evidence: %w", d.plan.cfg.Name, err)
		}
		for _, ev := range evs {
			if ev.ExactL1 {
				exact1++
			}
			if ev.Class != "" {
				sf.Classes[ev.Class]++
			}
			r.f.Items = append(r.f.Items, ev)
		}
		if sf.N > 0 {
			sf.ExpRate = pct(float64(exact1) / float64(sf.N))
		}
		if sf.CDMCounted > 0 && sf.ExpRateCDM < 70 {
			sf.Flags = append(sf.Flags, "LOW")
		}
		r.f.Splits = append(r.f.Splits, sf)
	}
	return nil
}

// splitFinding is a split's CDM figures, with its interval.
func (r *run) splitFinding(d *splitData) SplitFinding {
	cfg := d.plan.cfg
	sf := SplitFinding{Name: cfg.Name, Role: cfg.Role, Benchmark: cfg.Benchmark, N: len(d.items), Reported: cfg.ReportedExpRate, Classes: map[string]int{}}
	scored := d.results
	if d.plan.labelsOnly {
		scored = nil
		sf.LabelsOnly = true
		sf.Flags = append(sf.Flags, "LABELS_ONLY")
	}
	sum := cdm.Summarize(scored, r.plan.profile)
	sf.CDMExact, sf.CDMCounted, sf.CDMGTFailed, sf.CDMUnsupported = sum.Exact, sum.Counted, sum.GTFailed, sum.Unsupported
	sf.MeanCDM = sum.MeanScore
	sf.CDMReasons = sum.Reasons
	if iv, ok := stats.Wilson(sum.Exact, sum.Counted, stats.Z95); ok {
		sf.ExpRateCDM = pct(float64(sum.Exact) / float64(sum.Counted))
		sf.ExpRateCDMCI = [2]float64{pct(iv.Lo), pct(iv.Hi)}
	}
	return sf
}

// item is one item's evidence.
func (r *run) item(d *splitData, it dataset.Item, res cdm.Result, lv evidenceLevels, found foundLabels, near nearestPairs) ItemEvidence {
	split := d.plan.cfg.Name
	ev := ItemEvidence{Split: split, ID: it.ID, Seq: it.Seq, GT: it.Label, Pred: it.Pred,
		CDMStatus: res.Status.String(), CDMF1: res.F1, CDMExact: res.Counted && res.Exact}
	if d.plan.labelsOnly {
		ev.CDMStatus = NotScored
	}
	ev.ExactL1 = it.HasPred && metrics.Exact(lv.audit, it.Label, it.Pred)
	ev.ExactL3 = it.HasPred && metrics.Exact(lv.tokens, it.Label, it.Pred)
	if k, err := lv.tokens.Canon(it.Label); err == nil {
		ev.Tokens = len(strings.Fields(k))
	}
	if res.Counted {
		ev.Class = itemClass(ev.ExactL1, res.Exact, func(l canon.Level) bool { return metrics.Exact(l, it.Label, it.Pred) }, lv)
	}
	r.trainMatches(&ev, found[itemSeq{split, it.Seq}])
	ev.suspects = suspectRules(it.Label, res)
	if p, ok := near[itemID{split, it.ID}]; ok {
		ev.NearDup = fmt.Sprintf("%s/%s (%d)", p.TrainSplit, p.TrainID, p.Distance)
		if p.LabelMismatch && p.Identical { // a copy: the same normalized pixels (a verified pair may be another formula written alike)
			ev.suspects |= ruleS3
		}
	}
	if corr, ok := r.corrections[itemID{split, it.ID}]; ok {
		ev.Erroneous, ev.Corrected = true, corr.Corrected
	}
	ev.Suspect = ev.suspects.String()
	ev.Memorized = (ev.Erroneous || ev.suspects != 0) && ev.ExactL3 && (!ev.Erroneous || !metrics.Exact(lv.tokens, ev.Corrected, it.Pred))
	return ev
}

// itemClass is a CDM-counted item's class (ClassA1 … ClassB2), "" when
// its string and CDM verdicts agree; exact says whether the prediction is
// exact at a level.
func itemClass(exactL1, cdmExact bool, exact func(canon.Level) bool, lv evidenceLevels) string {
	switch {
	case exactL1 && !cdmExact:
		if !exact(lv.ws) {
			return ClassA1
		}
		return ClassA2
	case !exactL1 && cdmExact:
		if exact(lv.render) {
			return ClassB1
		}
		return ClassB2
	}
	return ""
}

// trainMatches records in ev the levels at which its label was found in
// the training corpora, and the training ids of the first.
func (r *run) trainMatches(ev *ItemEvidence, lm levelMatches) {
	if len(lm) == 0 {
		return
	}
	var names []string
	take := func(name string, ids []string) {
		names = append(names, name)
		if ev.TrainIDs == "" {
			ev.TrainIDs = strings.Join(ids, " ")
		}
	}
	for _, l := range r.plan.levels {
		if ids, ok := lm[l.Name]; ok {
			take(l.Name, ids)
			ev.foundAt = ev.foundAt.with(l.ID)
		}
	}
	if k := r.plan.Config.Near; k > 0 {
		if ids, ok := lm[overlap.NearLevel(k)]; ok {
			take(overlap.NearLevel(k), ids)
			ev.near = true
		}
	}
	ev.FoundIn = strings.Join(names, ",")
}

// derive computes the findings from the splits' figures and the items'
// evidence: inversions, reversals, the contamination gap, memorized label
// errors and the verdicts.
func (r *run) derive() {
	f := r.f
	f.inversions()
	f.reversals()
	f.gaps(r.plan.levels, r.plan.Config.Near)
	f.memorization(r.corrections != nil)
	f.verdicts()
	f.Done()
	for _, sf := range f.Splits {
		if sf.CDMUnsupported > 0 {
			f.Limitations = append(f.Limitations, fmt.Sprintf("%s: %d item(s) left out of ExpRate@CDM because leakaudit's TeX engine does not lay out one of their constructs (listed in items)", sf.Name, sf.CDMUnsupported))
		}
	}
}

// testFingerprints is the last phase: the fingerprints of the non-train
// splits (their ground-truth labels, digested at the audit's levels),
// what an author publishes so that others can check the test set against
// their own training data without receiving it. Nil when every split is
// a training split.
func (r *run) testFingerprints(ctx context.Context) (*fingerprint.Table, error) {
	var inputs []fingerprint.Input
	for _, sp := range r.plan.splits {
		if sp.cfg.Role != "train" {
			inputs = append(inputs, fingerprint.Input{Name: sp.cfg.Name, Source: sp.source})
		}
	}
	if len(inputs) == 0 {
		return nil, nil
	}
	return fingerprint.Compute(ctx, inputs, fingerprint.Options{Levels: r.plan.levels, Tool: r.f.Tool})
}
