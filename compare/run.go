package compare

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/panics"
	"github.com/leakaudit/leakaudit/internal/parallel"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/neardup"
	"github.com/leakaudit/leakaudit/overlap"
)

// Job runs a comparison.
type Job struct {
	Config *Config
	Tool   string
	// Workers bounds each stage (CDM scoring, label lookups, image
	// hashing); the stages run one after another. 0: one per CPU.
	Workers int
	// Progress, when set, follows the CDM scoring of each split as one
	// task.
	Progress progress.Reporter
	Log      func(format string, args ...any)
}

// Seen kinds, as bits of an item's seen mask.
const (
	seenLabel uint8 = 1 << iota // the label at a canonical level
	seenNear                    // a training label within near edits
	seenImage                   // a verified copy of the image
)

// splitData is one split's items and every model's results on them.
type splitData struct {
	cfg   SplitConfig
	items []dataset.Item // the universe, Seq = position
	keys  map[string]int // joinKey(id) → position
	// per model (index into Config.Models); nil when the model has no
	// predictions on the split
	models []*modelData
	tokens []int    // ground-truth length in tokens (L3), as the audit's strata
	gtL3   []string // the ground truth's tokens-level key ("" when it fails)
	// seen and ids, per model (all of them, with predictions on the
	// split or not) and item: the seen mask by the model's training data
	// and the first training ids.
	seen [][]uint8
	ids  [][]string
	// clean marks the items no model saw.
	clean []bool
}

// modelData is one model's predictions and results on one split.
type modelData struct {
	pred    []string
	has     []bool
	res     []cdm.Result
	reused  []bool
	exactL1 []bool
	dist    []int // token edit distance at L3; -1 when a side fails
	missing int
	nReused int
	source  string
	// gtDiffers counts items whose ground truth in the prediction file
	// differs from the split's.
	gtDiffers int
	// notInSplit counts predictions for ids the split's labels lack.
	notInSplit int
}

// Run reads the inputs, scores, looks up and compares: see the package
// comment.
func Run(ctx context.Context, job Job) (*Comparison, error) {
	c := job.Config
	if err := c.Check(); err != nil {
		return nil, &audit.ConfigError{Err: err}
	}
	logf := job.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	levels, err := canon.ParseLevels(strings.Join(c.Levels, ","))
	if err != nil {
		return nil, err
	}
	prof := cdm.Profiles[c.Profile]
	lim := dataset.Limits{MaxLabelBytes: c.MaxLabelBytes}
	out := &Comparison{Tool: job.Tool, Config: c}
	digests := map[string]checksum.File{}
	addInput := func(role, name, p string) (*audit.InputFile, error) {
		fp, err := checksum.Of(p)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", role, name, err)
		}
		digests[p] = fp
		out.Inputs = append(out.Inputs, audit.InputFile{Input: checksum.Input{Role: role, Name: name, File: fp}})
		return &out.Inputs[len(out.Inputs)-1], nil
	}
	l1, _ := canon.LookupLevel("audit")
	l3, _ := canon.LookupLevel("tokens")

	// 1. Read every split: its labels, then every model's predictions.
	var data []*splitData
	for _, sc := range c.Splits {
		d := &splitData{cfg: sc, keys: map[string]int{}, models: make([]*modelData, len(c.Models))}
		if sc.Labels != "" {
			f, _ := dataset.ParseFormat(sc.Format)
			src := dataset.Source{Path: c.Path(sc.Labels), Format: f, Field: sc.Field, IDField: sc.IDField, Limits: lim}
			in, err := addInput("labels", sc.Name, src.Path)
			if err != nil {
				return nil, err
			}
			st, err := dataset.Scan(src, func(it dataset.Item) error {
				k := joinKey(it.ID)
				if _, dup := d.keys[k]; dup {
					return fmt.Errorf("id %q occurs twice: items are matched by id", it.ID)
				}
				d.keys[k] = len(d.items)
				d.items = append(d.items, dataset.Item{Seq: int64(len(d.items)), ID: it.ID, Label: it.Label})
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("split %s: labels %s: %w", sc.Name, src.Path, err)
			}
			in.Items, in.Skipped, in.FormatNote = st.Items, st.Reasons, st.FormatNote
			out.Check("labels "+sc.Name, src.Path, st)
			if len(d.items) == 0 {
				return nil, fmt.Errorf("split %s: labels %s: no item", sc.Name, src.Path)
			}
		}
		for mi, m := range c.Models {
			for _, p := range m.Predictions {
				if p.Split != sc.Name {
					continue
				}
				md, err := readPredictions(d, c, m, p, lim, addInput, &out.Completeness)
				if err != nil {
					return nil, err
				}
				d.models[mi] = md
			}
		}
		// Every model's arrays cover the items, the ones added by later
		// files included.
		n := len(d.items)
		for mi, md := range d.models {
			if md == nil {
				continue
			}
			for len(md.pred) < n {
				md.pred, md.has = append(md.pred, ""), append(md.has, false)
			}
			md.missing = 0
			for _, h := range md.has {
				if !h {
					md.missing++
				}
			}
			name := c.Models[mi].Name
			if err := metrics.CheckPredictions(int64(n), int64(md.missing)); err != nil {
				return nil, fmt.Errorf("model %s, split %s: predictions %s: %w of the split's %d items; a file of some items only (such as a file of bad cases) cannot be scored as the model's results", name, sc.Name, md.source, err, n)
			}
			if md.missing > 0 {
				out.Limitations = append(out.Limitations, fmt.Sprintf("%s: %s has no prediction for %d of the %d items (%s); they are scored as wrong", sc.Name, name, md.missing, n, md.source))
			}
			if md.gtDiffers > 0 {
				out.Limitations = append(out.Limitations, fmt.Sprintf("%s: %d ground truths in %s's predictions differ from the split's; every model is scored against the split's", sc.Name, md.gtDiffers, name))
			}
		}
		if sc.Labels == "" {
			out.Limitations = append(out.Limitations, fmt.Sprintf("%s: no labels file: the items are those of the prediction files, with the first file's ground truths", sc.Name))
		}
		d.tokens, d.gtL3 = make([]int, n), make([]string, n)
		if err := parallel.For(ctx, n, job.Workers, func(i int) error {
			if k, err := l3.Canon(d.items[i].Label); err == nil {
				d.gtL3[i] = k
				d.tokens[i] = len(strings.Fields(k))
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("split %s: labels: %w", sc.Name, err)
		}
		data = append(data, d)
	}

	// 2. Score every model once: CDM (reusing score --out results), the
	// text ExpRate at the audit level and the token distance at L3.
	for _, d := range data {
		if err := score(ctx, job, d, prof, logf); err != nil {
			return nil, err
		}
		for _, md := range d.models {
			if md == nil {
				continue
			}
			n := len(d.items)
			md.exactL1, md.dist = make([]bool, n), make([]int, n)
			if err := parallel.For(ctx, n, job.Workers, func(i int) error {
				md.dist[i] = -1
				if !md.has[i] {
					return nil
				}
				md.exactL1[i] = metrics.Exact(l1, d.items[i].Label, md.pred[i])
				if kp, err := l3.Canon(md.pred[i]); err == nil && d.gtL3[i] != "" {
					md.dist[i] = metrics.TokenDistance(kp, d.gtL3[i])
				}
				return nil
			}); err != nil {
				return nil, fmt.Errorf("split %s: text scores: %w", d.cfg.Name, err)
			}
		}
	}

	// 3. Look every split's labels up in each distinct training corpus,
	// and its images in each distinct training image set.
	if err := lookups(ctx, job, levels, lim, data, digests, out, addInput); err != nil {
		return nil, err
	}

	// 4. The statistics.
	out.derive(data, levels)
	out.Done()
	return out, nil
}

// score scores every model's predictions on split d with CDM, as
// cdm.ScorePair does, but renders each distinct formula of the split once
// (a ground truth is rendered once for all the models, and a prediction
// equal to the ground truth or to another model's is not rendered
// again): cdm.Score does not change the sides it is given, so the
// results are the same. Results of score --out (cdm:) are used where
// they hold the item's ground truth and prediction as they are here.
func score(ctx context.Context, job Job, d *splitData, prof cdm.Profile, logf func(string, ...any)) error {
	c := job.Config
	n := len(d.items)
	// Reuse, then the formulas left to render.
	idx := map[string]int{}
	var formulas []string
	side := func(f string) int {
		k, ok := idx[f]
		if !ok {
			k = len(formulas)
			idx[f] = k
			formulas = append(formulas, f)
		}
		return k
	}
	type job1 struct{ model, item, gt, pred int } // pred −1: no prediction
	var todo []job1
	for mi, md := range d.models {
		if md == nil {
			continue
		}
		name := c.Models[mi].Name
		md.res, md.reused = make([]cdm.Result, n), make([]bool, n)
		for _, p := range c.Models[mi].Predictions {
			if p.Split != d.cfg.Name || p.CDM == "" {
				continue
			}
			rows, err := readScoreRows(c.Path(p.CDM))
			if err != nil {
				return fmt.Errorf("model %s, split %s: cdm %s: %w", name, d.cfg.Name, p.CDM, err)
			}
			for i, it := range d.items {
				if r, ok := rows[joinKey(it.ID)]; ok && md.has[i] && r.GT == it.Label && r.Pred == md.pred[i] {
					if res, ok := resultOf(r); ok {
						md.res[i], md.reused[i] = res, true
						md.nReused++
					}
				}
			}
			logf("%s on %s: %d of %d CDM results reused from %s", name, d.cfg.Name, md.nReused, n, p.CDM)
		}
		for i, it := range d.items {
			if md.reused[i] {
				continue
			}
			j := job1{model: mi, item: i, gt: side(it.Label), pred: -1}
			if md.has[i] {
				j.pred = side(md.pred[i])
			}
			todo = append(todo, j)
		}
	}
	sides := make([]cdm.Side, len(formulas))
	tick, end := func() {}, func() {}
	if p := job.Progress; p != nil {
		p.Start("CDM "+d.cfg.Name, int64(len(formulas)+len(todo)))
		tick, end = func() { p.Add(1) }, p.Done
	}
	err := parallel.For(ctx, len(formulas), job.Workers, func(k int) error {
		sides[k] = cdm.Render(formulas[k], prof)
		tick()
		return nil
	})
	if err != nil {
		end()
		return cdmError(err)
	}
	missing := cdm.Side{Failure: cdm.FailMissing}
	err = parallel.For(ctx, len(todo), job.Workers, func(k int) error {
		j := todo[k]
		pred := missing
		if j.pred >= 0 {
			pred = sides[j.pred]
		}
		r := cdm.Score(sides[j.gt], pred, prof)
		// Keep what the statistics and the items need.
		d.models[j.model].res[j.item] = cdm.Result{Status: r.Status, Reason: r.Reason, F1: r.F1, Exact: r.Exact, Counted: r.Counted}
		tick()
		return nil
	})
	end()
	if err != nil {
		return cdmError(err)
	}
	for mi, md := range d.models {
		if md != nil {
			logf("%s on %s: %d items scored (%d CDM results reused)", c.Models[mi].Name, d.cfg.Name, n, md.nReused)
		}
	}
	logf("%s: %d distinct formulas rendered for %d pairs", d.cfg.Name, len(formulas), len(todo))
	return nil
}

// cdmError is err of the CDM stage: a panic in it named as such, a
// cancelled context as it is.
func cdmError(err error) error {
	var pe *panics.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("CDM: %w", err)
	}
	return err
}

// readPredictions reads one model's predictions on a split into d: items
// matched by id; a file without predictions gives its labels as the
// predictions (a decode output: name, then the prediction) when the
// split has labels.
func readPredictions(d *splitData, c *Config, m ModelConfig, p PredConfig, lim dataset.Limits,
	addInput func(role, name, p string) (*audit.InputFile, error), comp *dataset.Completeness) (*modelData, error) {
	f, _ := dataset.ParseFormat(p.Format)
	src := dataset.Source{Path: c.Path(p.Path), Format: f, Field: p.Field, IDField: p.IDField, Limits: lim}
	in, err := addInput("predictions", m.Name+" "+d.cfg.Name, src.Path)
	if err != nil {
		return nil, err
	}
	var recs []dataset.Item
	withPred := 0
	st, err := dataset.Scan(src, func(it dataset.Item) error {
		recs = append(recs, it)
		if it.HasPred {
			withPred++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("model %s, split %s: predictions %s: %w", m.Name, d.cfg.Name, src.Path, err)
	}
	in.Items, in.Skipped, in.FormatNote = st.Items, st.Reasons, st.FormatNote
	comp.Check("predictions "+m.Name+" "+d.cfg.Name, src.Path, st)
	if len(recs) == 0 {
		return nil, fmt.Errorf("model %s, split %s: predictions %s: no item", m.Name, d.cfg.Name, src.Path)
	}
	predOnly := withPred == 0
	if predOnly && d.cfg.Labels == "" {
		return nil, fmt.Errorf("model %s, split %s: predictions %s: no item has a prediction field (looked for pred, predi, prediction); for a file of predictions alone (a decode output), give the split's labels", m.Name, d.cfg.Name, src.Path)
	}
	// A file of bad cases holds only the wrong predictions: not one of
	// its predictions equals its ground truth.
	if !predOnly && withPred >= 20 {
		same := 0
		for _, it := range recs {
			if it.HasPred && strings.TrimSpace(it.Pred) == strings.TrimSpace(it.Label) {
				same++
			}
		}
		if same == 0 {
			return nil, fmt.Errorf("model %s, split %s: predictions %s: not one of its %d predictions equals its ground truth: a file of wrong cases only (the correct ones left out) cannot be scored as the model's results", m.Name, d.cfg.Name, src.Path, withPred)
		}
	}
	md := &modelData{source: src.Path, pred: make([]string, len(d.items)), has: make([]bool, len(d.items))}
	seen := map[string]bool{}
	for _, it := range recs {
		k := joinKey(it.ID)
		if seen[k] {
			return nil, fmt.Errorf("model %s, split %s: predictions %s: id %q occurs twice: items are matched by id", m.Name, d.cfg.Name, src.Path, it.ID)
		}
		seen[k] = true
		pred, has := it.Pred, it.HasPred
		if predOnly {
			pred, has = it.Label, true
		}
		i, ok := d.keys[k]
		if !ok {
			if d.cfg.Labels != "" {
				md.notInSplit++
				continue
			}
			// No labels file: the items are the prediction files'.
			i = len(d.items)
			d.keys[k] = i
			d.items = append(d.items, dataset.Item{Seq: int64(i), ID: it.ID, Label: it.Label})
			md.pred, md.has = append(md.pred, ""), append(md.has, false)
		} else if !predOnly && it.Label != d.items[i].Label {
			md.gtDiffers++
		}
		md.pred[i], md.has[i] = pred, has
	}
	if md.notInSplit > 0 {
		comp.Fail("predictions "+m.Name+" "+d.cfg.Name, src.Path, fmt.Sprintf("%d prediction(s) have an id the split's labels (%s) do not hold; they are not scored", md.notInSplit, c.Path(d.cfg.Labels)))
	}
	return md, nil
}

// joinKey is an id as items are matched: an image extension (TAMER's
// test_8045.jpg) is ignored, as "score --gt" does.
func joinKey(id string) string {
	switch strings.ToLower(path.Ext(id)) {
	case ".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".inkml":
		return strings.TrimSuffix(id, path.Ext(id))
	}
	return id
}

// readScoreRows reads the per-item rows of a "leakaudit score --out"
// folder (items.parquet, else items.jsonl), by join key.
func readScoreRows(dir string) (map[string]cdm.ItemRow, error) {
	var rows []cdm.ItemRow
	pq := filepath.Join(dir, "items.parquet")
	if _, err := os.Stat(pq); err == nil {
		rows, err = parquet.ReadFile[cdm.ItemRow](pq)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pq, err)
		}
	} else {
		js := filepath.Join(dir, "items.jsonl")
		if _, err := os.Stat(js); err != nil {
			return nil, errors.New("neither items.parquet nor items.jsonl: not a folder written by leakaudit score --out")
		}
		var err error
		rows, err = readJSONLRows(js)
		if err != nil {
			return nil, err
		}
	}
	out := make(map[string]cdm.ItemRow, len(rows))
	for _, r := range rows {
		out[joinKey(r.ID)] = r
	}
	return out, nil
}

// resultOf is a score row as a result; ok is false for a status it does
// not know.
func resultOf(r cdm.ItemRow) (cdm.Result, bool) {
	for _, s := range []cdm.Status{cdm.Scored, cdm.PredFailed, cdm.GTFailed, cdm.Unsupported} {
		if s.String() == r.Status {
			return cdm.Result{Status: s, Reason: r.Reason, F1: r.F1, Exact: r.Exact, Counted: r.Counted}, true
		}
	}
	return cdm.Result{}, false
}

// lookups fills every model's seen masks and training ids.
func lookups(ctx context.Context, job Job, levels []canon.Level, lim dataset.Limits, data []*splitData,
	digests map[string]checksum.File, out *Comparison, addInput func(role, name, p string) (*audit.InputFile, error)) error {
	c := job.Config
	for _, d := range data {
		d.seen, d.ids = make([][]uint8, len(c.Models)), make([][]string, len(c.Models))
		for mi := range c.Models {
			d.seen[mi], d.ids[mi] = make([]uint8, len(d.items)), make([]string, len(d.items))
		}
	}
	// Distinct corpora, by what is read.
	type corpus struct {
		in     index.CorpusInput
		models []int
	}
	var corpora []*corpus
	byKey := map[string]*corpus{}
	for mi, m := range c.Models {
		if len(m.Train) == 0 && len(m.TrainImages) == 0 {
			out.Limitations = append(out.Limitations, fmt.Sprintf("%s: no training data given: no item counts as seen by it, so the clean subset does not exclude what it saw", m.Name))
		}
		for _, t := range m.Train {
			f, _ := dataset.ParseFormat(t.Format)
			src := dataset.Source{Path: c.Path(t.Path), Format: f, Field: t.Field, IDField: t.IDField, Limits: lim}
			key := strings.Join([]string{src.Path, string(f), t.Field, t.IDField}, "\x00")
			co := byKey[key]
			if co == nil {
				co = &corpus{in: index.CorpusInput{Name: t.Name, Source: src}}
				byKey[key] = co
				corpora = append(corpora, co)
				if _, err := addInput("train corpus", t.Name, src.Path); err != nil {
					return err
				}
			}
			co.models = append(co.models, mi)
		}
	}
	var tests []overlap.Split
	for _, d := range data {
		tests = append(tests, overlap.Split{Name: d.cfg.Name, Items: d.items, Source: dataset.Source{Path: d.cfg.Name}})
	}
	byName := map[string]*splitData{}
	for _, d := range data {
		byName[d.cfg.Name] = d
	}
	near := fmt.Sprintf("near%d", c.Near)
	for _, co := range corpora {
		var mu sync.Mutex
		rep, err := overlap.Run(ctx, overlap.Job{Train: []index.CorpusInput{co.in}, Checksums: digests, Tests: tests, Levels: levels,
			DB: c.DB, Stream: true, Tool: job.Tool, MaxRefs: 3, Workers: job.Workers, Log: job.Log, Near: c.Near, NearMin: c.NearMin,
			Item: func(m overlap.ItemMatch) error {
				if !m.Found {
					return nil
				}
				mu.Lock()
				defer mu.Unlock()
				d := byName[m.Split]
				bit := seenLabel
				if c.Near > 0 && m.Level == near {
					bit = seenNear
				}
				ids := index.RefNames(m.TrainIDs)
				for _, mi := range co.models {
					d.seen[mi][m.Seq] |= bit
					if d.ids[mi][m.Seq] == "" {
						d.ids[mi][m.Seq] = strings.Join(ids, " ")
					}
				}
				return nil
			}})
		if err != nil {
			return fmt.Errorf("training corpus %s: %w", co.in.Name, err)
		}
		out.Incomplete = append(out.Incomplete, rep.TrainShortfalls()...)
		for _, tr := range rep.Train {
			for i := range out.Inputs {
				if out.Inputs[i].Role == "train corpus" && out.Inputs[i].Path == tr.Path && tr.Stats != nil {
					out.Inputs[i].Items, out.Inputs[i].Skipped, out.Inputs[i].FormatNote = tr.Stats.Items, tr.Stats.Reasons, tr.Stats.FormatNote
				}
			}
		}
		for _, s := range rep.Splits {
			out.Overlap = append(out.Overlap, CorpusOverlap{Corpus: co.in.Name, Split: s.Name, Level: s.Level, Found: s.Found, Total: s.Total})
		}
		for _, s := range rep.Near {
			out.Overlap = append(out.Overlap, CorpusOverlap{Corpus: co.in.Name, Split: s.Name, Level: near, Found: s.Within, Total: s.Total})
		}
	}
	// Images: each model's training images against the splits' images.
	var imgTests []neardup.ImageSplit
	for _, d := range data {
		if d.cfg.Images != "" {
			imgTests = append(imgTests, neardup.ImageSplit{Name: d.cfg.Name, Source: dataset.ImageSource{Path: c.Path(d.cfg.Images)}})
		}
	}
	for mi, m := range c.Models {
		if len(m.TrainImages) == 0 {
			continue
		}
		if len(imgTests) == 0 {
			out.Limitations = append(out.Limitations, fmt.Sprintf("%s: training images given but no split has images: no image comparison", m.Name))
			continue
		}
		nj := neardup.Job{MaxDistance: neardup.DefaultMaxDistance, DB: c.DB, Tool: job.Tool, Workers: job.Workers, Log: job.Log, Tests: imgTests}
		for _, t := range m.TrainImages {
			nj.Train = append(nj.Train, index.ImageCorpusInput{Name: t.Name, Source: dataset.ImageSource{Path: c.Path(t.Path), Field: t.Field}})
		}
		rep, err := neardup.Run(ctx, nj)
		if err != nil {
			return fmt.Errorf("model %s: training images: %w", m.Name, err)
		}
		out.Incomplete = append(out.Incomplete, rep.Incomplete...)
		for _, p := range rep.Pairs {
			d := byName[p.TestSplit]
			if d == nil || !p.Verified {
				continue
			}
			i, ok := d.keys[joinKey(p.TestID)]
			if !ok {
				continue
			}
			d.seen[mi][i] |= seenImage
			if d.ids[mi][i] == "" {
				d.ids[mi][i] = "image " + p.TrainSplit + "/" + p.TrainID
			}
		}
	}
	return nil
}

// readJSONLRows reads score's items.jsonl.
func readJSONLRows(p string) ([]cdm.ItemRow, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []cdm.ItemRow
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	for {
		var r cdm.ItemRow
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return rows, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", p, len(rows)+1, err)
		}
		rows = append(rows, r)
	}
}
