package overlap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// Job is a whole overlap audit: training corpora to index, test
// splits to check, and how.
type Job struct {
	Train  []index.CorpusInput
	Tests  []Split
	Levels []canon.Level
	// DB is the index folder; empty means index.DefaultDir.
	DB string
	// AllowMissing lets the run go on when a training corpus does not
	// exist. The protocol's script did this silently; leakaudit refuses by
	// default because a shrunken reference understates overlap.
	AllowMissing bool
	// Rebuild drops the index and builds it again.
	Rebuild   bool
	MaxRefs   int
	Workers   int
	IndexOpts index.Options
	Tool      string
	Progress  progress.Reporter
	// Item receives per-item evidence; see Options.Item.
	Item func(ItemMatch) error
	// Checksums, when set, holds the checksums of training corpora
	// already read, by path, so that a caller that checksummed its inputs
	// (the audit) does not read them twice.
	Checksums map[string]checksum.File
	// Log receives human notes about index reuse and building; may be nil.
	Log func(format string, args ...any)
	// Stream reads the training corpora once past the test keys, without
	// building an index, unless a current index is already in DB (or the
	// default folder): the fast path for a one-off check. The results are
	// the same as through the index.
	Stream bool
	// Near > 0 also looks for training labels within Near token edits of
	// each test item of at least NearMin tokens (0: index.DefaultNearMin),
	// streaming the training corpora's labels (NearSplit).
	Near, NearMin int
	// NearControls are the control splits of near matching: label sets
	// that cannot be in the training corpora, whose near rate is the
	// chance level (see NearControl). Controls of one name are pooled.
	NearControls []Split
	// NearItem, when set, receives the near rows (NearItemMatch), after
	// every level row; otherwise Item receives them as ItemMatch rows
	// (level "nearK", without the distances).
	NearItem func(NearItemMatch) error
}

// TrainInput records a training corpus in a report.
type TrainInput struct {
	Name    string         `json:"name"`
	Path    string         `json:"path"`
	Size    int64          `json:"size,omitempty"`
	SHA256  string         `json:"sha256,omitempty"`
	Stats   *dataset.Stats `json:"stats,omitempty"`
	Missing bool           `json:"missing,omitempty"`
}

// Report is the result of Run. It holds nothing that depends
// on the machine or the time, so the same inputs give the same JSON.
type Report struct {
	Tool       string       `json:"tool"`
	Levels     []string     `json:"levels"`
	Splits     []SplitLevel `json:"splits"`
	AuditOnly  []AuditOnly  `json:"audit_only,omitempty"`
	Train      []TrainInput `json:"train_inputs"`
	TestInputs []SplitInput `json:"test_inputs"`
	// Near is the near-label overlap of each test split, with
	// Job.Near; NearControls that of each control split.
	Near         []NearSplit `json:"near,omitempty"`
	NearControls []NearSplit `json:"near_controls,omitempty"`
	// Completeness lists the inputs read only in part (a missing
	// training corpus the user allowed is reported under train_inputs,
	// not here).
	dataset.Completeness
}

// TrainShortfalls are the training corpora among the inputs read only
// in part.
func (r Report) TrainShortfalls() []dataset.Shortfall {
	var out []dataset.Shortfall
	for _, sf := range r.Incomplete {
		if strings.HasPrefix(sf.Input, "train ") {
			out = append(out, sf)
		}
	}
	return out
}

// Failed reports how many test splits could not be read at all.
func (r Report) Failed() int {
	n := 0
	for _, in := range r.TestInputs {
		if in.Error != "" {
			n++
		}
	}
	return n
}

// Run checksums the training corpora, then either streams them once past
// the test keys or reuses their index when it is complete and current
// (building it otherwise), and checks every split. Its phases, all under
// ctx: find the training corpora, open what the labels are looked up in,
// check the splits (and the near labels), and account for the inputs.
func Run(ctx context.Context, job Job) (Report, error) {
	r := &run{job: job, logf: job.Log}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	rep := Report{Tool: job.Tool}
	for _, l := range job.Levels {
		rep.Levels = append(rep.Levels, l.Name)
	}
	train, err := r.trainCorpora()
	if err != nil {
		return rep, err
	}
	src, err := r.openSource(ctx, train)
	if err != nil {
		return rep, err
	}
	defer src.close()
	rep.Train = trainInputs(job.Train, src.corpora)
	err = r.checkSplits(ctx, &rep, src, train.inputs)
	rep.account()
	return rep, err
}

// run is one overlap check under way.
type run struct {
	job  Job // its Tests get their items when the corpora are streamed
	logf func(format string, args ...any)
}

// trainFiles are the training corpora that exist, in the order given.
type trainFiles struct {
	inputs  []index.CorpusInput
	names   []string
	sizes   []int64
	regular bool // every input a file, whose size a manifest records as is
}

// trainCorpora finds the training corpora: a missing one is an error,
// or, with Job.AllowMissing, left out after saying so.
func (r *run) trainCorpora() (trainFiles, error) {
	tf := trainFiles{regular: true}
	for _, in := range r.job.Train {
		fi, err := os.Stat(in.Source.Path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && r.job.AllowMissing {
				r.logf("warning: training corpus %s (%s) does not exist; going on without it (%s)", in.Name, in.Source.Path, setting.AllowMissing)
				continue
			}
			if errors.Is(err, os.ErrNotExist) {
				return tf, setting.Errorf("training corpus %s: %s does not exist; a missing reference understates overlap, so this is an error (use %s to go on without it)", in.Name, in.Source.Path, setting.AllowMissing)
			}
			return tf, fmt.Errorf("training corpus %s: %w", in.Name, err)
		}
		tf.inputs = append(tf.inputs, in)
		tf.names, tf.sizes = append(tf.names, in.Name), append(tf.sizes, fi.Size())
		tf.regular = tf.regular && fi.Mode().IsRegular()
	}
	if len(tf.inputs) == 0 {
		return tf, errors.New("no training corpus to check against")
	}
	return tf, nil
}

// source is what the test labels are looked up in: the training corpora
// streamed past the test keys (an index.Probe), or their index.
type source struct {
	ix      Lookuper
	corpora []index.Corpus
	// db is the open index (nil for a probe), closed by close.
	db *index.DB
	// again, for the default index folder, builds the index again after
	// a lookup found it damaged; nil otherwise.
	again func(ctx context.Context, damage error) error
}

// close closes the index, if one is open.
func (s *source) close() {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
}

// openSource opens what the labels are looked up in. A one-off check
// (Job.Stream) streams the corpora when no current index holds them: at
// once, checksumming them meanwhile, when no index in the default folder
// can hold them (none has their names and sizes); after checksumming them
// otherwise. Every other check uses their index.
func (r *run) openSource(ctx context.Context, train trainFiles) (*source, error) {
	job := &r.job
	if job.Stream && !job.Rebuild && job.DB == "" && train.regular && !index.DefaultMayCover(train.names, train.sizes) {
		return r.streamWhileChecksumming(ctx, train.inputs)
	}
	fps, err := checksumInputs(job.Checksums, train.inputs)
	if err != nil {
		return nil, err
	}
	dir, err := index.Dir(job.DB, fps)
	if err != nil {
		return nil, err
	}
	if job.Stream && !job.Rebuild && !indexCovers(dir, fps, *job) {
		r.logStreaming()
		probe, err := probeTests(ctx, job, train.inputs, fps)
		if err != nil {
			return nil, err
		}
		return &source{ix: probe, corpora: probe.Corpora}, nil
	}
	return r.openIndexed(ctx, dir, train.inputs, fps)
}

// logStreaming says that the training corpora are read once, with no
// index kept. It names the setting that keeps one by its Key, so that a
// run configured by a file names it by its key (setting.ConfigArgs).
func (r *run) logStreaming() {
	r.logf("reading the training corpora once (no index kept; %s DIR builds one for repeated runs)", setting.DB)
}

// streamWhileChecksumming streams the corpora past the test keys and
// computes their checksums meanwhile, for the report.
func (r *run) streamWhileChecksumming(ctx context.Context, inputs []index.CorpusInput) (*source, error) {
	r.logStreaming()
	type checksums struct {
		fps []checksum.Input
		err error
	}
	sums := make(chan checksums, 1)
	given := r.job.Checksums
	go func() {
		fps, err := checksumInputs(given, inputs)
		sums <- checksums{fps, err}
	}()
	probe, err := probeTests(ctx, &r.job, inputs, make([]checksum.Input, len(inputs)))
	cs := <-sums
	if err != nil {
		return nil, err
	}
	if cs.err != nil {
		return nil, cs.err
	}
	for i := range probe.Corpora {
		probe.Corpora[i].Input = cs.fps[i].File
	}
	return &source{ix: probe, corpora: probe.Corpora}, nil
}

// openIndexed opens the corpora's index in dir (reused, resumed or built).
// The default index folder, the tool's own, is built again when it holds
// a corpus read in another format than the one asked for now, and, once,
// when a lookup finds it damaged; an index folder the user gave is an
// error in both cases.
func (r *run) openIndexed(ctx context.Context, dir string, inputs []index.CorpusInput, fps []checksum.Input) (*source, error) {
	s := &source{}
	open := func(ctx context.Context) error {
		db, err := openIndex(ctx, dir, inputs, fps, r.job, r.logf)
		if err != nil {
			return err
		}
		s.db, s.ix, s.corpora = db, db, db.Manifest().Corpora
		return nil
	}
	if err := open(ctx); err != nil {
		return nil, err
	}
	if err := sameReading(dir, inputs, s.corpora); err != nil {
		s.close()
		if r.job.DB != "" {
			return nil, err
		}
		r.logf("%v; it is the default index folder: building it again", err)
		if err := index.Remove(dir); err != nil {
			return nil, err
		}
		if err := open(ctx); err != nil {
			return nil, err
		}
	}
	if r.job.DB == "" {
		// Damage that only a lookup finds (a table block).
		s.again = func(ctx context.Context, damage error) error {
			s.close()
			if err := index.DropDamaged(damage, dir, r.job.DB, r.logf); err != nil {
				return err
			}
			return open(ctx)
		}
	}
	return s, nil
}

// trainInputs lists the training corpora in the order given, the missing
// ones included, with what the source read of the others.
func trainInputs(given []index.CorpusInput, corpora []index.Corpus) []TrainInput {
	ti := 0
	var train []TrainInput
	for _, in := range given {
		if ti < len(corpora) && corpora[ti].Name == in.Name {
			c := corpora[ti]
			st := c.Stats
			train = append(train, TrainInput{Name: c.Name, Path: in.Source.Path, Size: c.Input.Size, SHA256: c.Input.SHA256, Stats: &st})
			ti++
			continue
		}
		train = append(train, TrainInput{Name: in.Name, Path: in.Source.Path, Missing: true})
	}
	return train
}

// checkSplits looks every split's labels up at every level, once more after
// the default index was built again when a lookup found it damaged (unless
// per-item evidence was already given out, which a second check would
// repeat), and then finds the near labels (Job.Near).
func (r *run) checkSplits(ctx context.Context, rep *Report, src *source, inputs []index.CorpusInput) error {
	job := &r.job
	oo := Options{Levels: job.Levels, MaxRefs: job.MaxRefs, Workers: job.Workers, Item: job.Item}
	emitted := false // per-item evidence was given out
	if item := oo.Item; item != nil {
		oo.Item = func(m ItemMatch) error { emitted = true; return item(m) }
	}
	res, err := Check(ctx, src.ix, job.Tests, oo)
	if errors.Is(err, index.ErrDamaged) && src.again != nil && !emitted {
		if err := src.again(ctx, err); err != nil {
			return err
		}
		res, err = Check(ctx, src.ix, job.Tests, oo)
	}
	rep.Splits, rep.AuditOnly, rep.TestInputs = res.Splits, res.AuditOnly, res.Inputs
	if err == nil && job.Near > 0 {
		rep.Near, rep.NearControls, err = findNear(ctx, *job, inputs)
	}
	return err
}

// account lists the inputs read only in part, training corpora first.
func (rep *Report) account() {
	for _, t := range rep.Train {
		if t.Stats != nil {
			rep.Check("train "+t.Name, t.Path, *t.Stats)
		}
	}
	for _, in := range rep.TestInputs {
		if in.Error != "" {
			rep.Fail("test "+in.Name, in.Path, "not read: "+in.Error)
			continue
		}
		rep.Check("test "+in.Name, in.Path, in.Stats)
	}
	rep.Done()
}

// checksumInputs returns the training inputs' checksums (given's,
// by path, where present).
func checksumInputs(given map[string]checksum.File, inputs []index.CorpusInput) ([]checksum.Input, error) {
	fps := make([]checksum.Input, len(inputs))
	for i, in := range inputs {
		fp, ok := given[in.Source.Path]
		if !ok {
			var err error
			if fp, err = checksum.Of(in.Source.Path); err != nil {
				return nil, fmt.Errorf("training corpus %s: %w", in.Name, err)
			}
		}
		fps[i] = checksum.Input{Name: in.Name, File: fp}
	}
	return fps, nil
}

// indexCovers says whether dir holds a complete index of these inputs.
func indexCovers(dir string, fps []checksum.Input, job Job) bool {
	ix, err := index.OpenReadOnly(dir, job.IndexOpts)
	if err != nil {
		return false
	}
	defer ix.Close()
	return ix.Manifest().Covers(fps, job.Levels, job.IndexOpts.Salt)
}

// probeTests reads the test splits (keeping their items for Check),
// collects their keys at every level, and streams the training corpora
// past them.
func probeTests(ctx context.Context, job *Job, inputs []index.CorpusInput, fps []checksum.Input) (*index.Probe, error) {
	keys := make([][]string, len(job.Levels))
	for i := range job.Tests {
		sp := &job.Tests[i]
		if sp.Items == nil {
			st, err := dataset.Scan(sp.Source, func(it dataset.Item) error {
				sp.Items = append(sp.Items, it)
				return nil
			})
			if err != nil {
				continue // Check reads it again and reports the error
			}
			sp.Stats = st
			if sp.Items == nil {
				sp.Items = []dataset.Item{}
			}
		}
		var err error
		if sp.keys, err = splitKeys(sp.Items, job.Levels, job.Workers); err != nil {
			return nil, fmt.Errorf("split %s: %w", sp.Name, err)
		}
		for li := range job.Levels {
			for _, k := range sp.keys[li] {
				keys[li] = append(keys[li], k.key)
			}
		}
	}
	p := index.NewProbe(job.Levels, keys, job.IndexOpts.Salt, job.MaxRefs)
	return p, p.Read(ctx, inputs, fps, job.Workers, job.Progress)
}

// openIndex returns an index that is complete for the inputs and levels:
// shared read-only when one already is (its files checked), built (or
// resumed) otherwise. A damaged index in the default folder is removed
// and built again, after saying so; one given as job.DB is an error.
func openIndex(ctx context.Context, dir string, inputs []index.CorpusInput, fps []checksum.Input, job Job, logf func(string, ...any)) (*index.DB, error) {
	ix, err := index.Reuse(dir, job.DB, job.Rebuild, job.IndexOpts, func(ix *index.DB) (bool, error) {
		m := ix.Manifest()
		if m.Covers(fps, job.Levels, job.IndexOpts.Salt) {
			return true, ix.Verify()
		}
		if len(m.Corpora) > 0 && !m.Complete {
			logf("index %s is incomplete (an earlier build was interrupted); resuming", dir)
		}
		return false, nil
	}, logf)
	if ix != nil || err != nil {
		return ix, err
	}
	if ix, err = index.Open(dir, job.IndexOpts); err != nil {
		return nil, err
	}
	logf("building index %s", dir)
	br, err := ix.Build(ctx, inputs, fps, job.Levels, job.Tool, job.Progress)
	if br.Rebuilt != "" {
		logf("index rebuilt: %s", br.Rebuilt)
	}
	if err != nil {
		ix.Close()
		return nil, err
	}
	logf("index: %d postings written (%d corpus×level pairs built, %d reused)", br.Postings, len(br.Indexed), len(br.Reused))
	return ix, nil
}

// sameReading refuses an index whose corpora were read in another format
// than the one they are read in now: the index is reused by the files'
// names and checksums, so an index built before a change of --format, or
// of the format detection (a renamed caption file once read as one label
// per line), would otherwise answer for a reading nobody asked for.
func sameReading(dir string, inputs []index.CorpusInput, corpora []index.Corpus) error {
	stored := map[string]dataset.Format{}
	for _, c := range corpora {
		stored[c.Name] = c.Stats.Format
	}
	for _, in := range inputs {
		was, ok := stored[in.Name]
		if !ok || was == "" || fingerprint.Is(in.Source.Path) {
			continue
		}
		now := in.Source.Format
		if now == "" {
			f, err := dataset.Detect(in.Source.Path)
			if err != nil {
				continue // read as empty, or refused when it is read
			}
			now = f
		}
		if now != was {
			return setting.Errorf("index %s holds training corpus %s (%s) read as %s, but it is read as %s now (another %s, or an earlier version's format detection): give %s to index it again", dir, in.Name, in.Source.Path, was, now, setting.Format, setting.Rebuild)
		}
	}
	return nil
}
