package neardup

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sort"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/labelcheck"
)

// DefaultMaxDistance is the default pHash radius of a candidate pair, which
// is reported when imagehash.Verify verifies it.
// Measured on the CROHME 2014 InkML rasterized by eight pipelines against
// the CROHME bitmaps (pens normalized, queries probed): radius 8 finds
// 83–100% of the copies per pipeline, radius 10 another 1–5%, while the
// pairs verified within CROHME train (other writers) grow from 14 to 33.
const DefaultMaxDistance = 8

// ImageSplit is a named set of test images.
type ImageSplit struct {
	Name   string
	Source dataset.ImageSource
}

// Job is a near-duplicate search of test images in training images.
// A Train path may be an image fingerprint (fingerprint --images) in place
// of the images: the same hashes, so the same pairs, summaries and
// verification (see package fingerprint); its pairs name the items as in
// their corpora, and have no images for evidence.
type Job struct {
	Train       []index.ImageCorpusInput
	Tests       []ImageSplit
	MaxDistance int
	Hash        imagehash.Options
	DB          string
	Rebuild     bool
	Workers     int
	IndexOpts   index.Options
	Tool        string
	Progress    progress.Reporter
	Log         func(format string, args ...any)
	// Evidence is how many pairs the report keeps with both images
	// decoded (Report.Evidence), for a gallery or a report: copies
	// whose labels differ first, then other pairs whose labels differ,
	// then the rest, each in the order found. Pairs whose training image
	// comes from a fingerprint have no image and are never evidence.
	Evidence int
	// Salt is the salt of salted image fingerprints among Train: their
	// labels are compared by digest, which needs it.
	Salt []byte
	// Unverified also reports candidate pairs whose fine hashes do not
	// verify them as copies (Verified false): most are the same formula
	// by another writer.
	Unverified bool
	// NoProbes searches with each test image's own hashes only: no probes,
	// edge keys or cut variants for ink cut at an edge, and
	// imagehash.VerifyDistance for every query
	// (the stricter limit of a lone symbol needs the count of ink pieces
	// the probes compute). It is the search the SQL over image
	// fingerprints makes (sql/image_neardup.sql), for comparing the two;
	// the SQL's verdict is the fine hash's, without the ink.
	NoProbes bool
}

// Pair is one test image with a training image within the radius.
type Pair struct {
	TestSplit  string `json:"test_split"`
	TestID     string `json:"test_id"`
	TrainSplit string `json:"train_split"`
	TrainID    string `json:"train_id"`
	Distance   int    `json:"distance"`
	Identical  bool   `json:"identical"` // same normalized pixels
	// FineDistance is the 256-bit difference-hash distance of the pair;
	// Verified says imagehash.Verify accepts it (the inks' chamfer
	// distance, or the pixels are identical): a copy, not merely the same
	// formula written alike.
	FineDistance int    `json:"fine_distance"`
	Verified     bool   `json:"verified"`
	TestLabel    string `json:"test_label"`
	TrainLabel   string `json:"train_label"`
	// LabelMismatch flags a pair whose labels are different formulas
	// (package labelcheck): not merely another notation of one formula,
	// but another formula at every rung of the check. LabelCheck says at
	// which rung the labels agree or, when they differ, by how much (nil
	// when a side has no label).
	LabelMismatch bool               `json:"label_mismatch"`
	LabelCheck    *labelcheck.Result `json:"label_check,omitempty"`
	// EdgeKey marks a pair found by the edge key only (imagehash.EdgeKeys,
	// for ink cut at an edge): its Distance, the pHash distance from the
	// query's nearest probe, is beyond the radius, and it was verified by
	// imagehash.VerifyEdge.
	EdgeKey bool `json:"edge_key,omitempty"`
	// SmallInk marks a pair found by the small-ink keys only
	// (imagehash.Hashes.SmallKeys, for ink a thick pen merged on a small
	// canvas): its Distance is beyond the radius, and it is reported only
	// when imagehash.Verify verifies it.
	SmallInk bool `json:"small_ink,omitempty"`
	// Squeezed marks a pair verified only by the test image's ink drawn
	// with a thinner pen than estimated (imagehash.Hashes.Squeezed: ink
	// squeezed along one axis by a canvas of another aspect, or small
	// against a thick pen, its strokes merged by the pen there): within
	// imagehash.VerifyInk of the training image's.
	Squeezed bool `json:"squeezed,omitempty"`
	// ThickerPen marks a pair verified only by the test image's ink drawn
	// with a thicker pen than estimated (the estimate falls short where
	// strokes are short against a thick pen): within imagehash.VerifyInk
	// of the training image's (imagehash.ByThickerPen).
	ThickerPen bool `json:"thicker_pen,omitempty"`
	// Cut marks a pair verified by a cut variant of the training image
	// only (imagehash.Ink.CutVariantKeys, for a copy whose cut moved its
	// ink box more than a probe restores): neither the pHash search
	// (within the radius, imagehash.Verify) nor the edge keys verified
	// it, imagehash.VerifyCut did. Its Distance is the pHash distance
	// from the query's nearest probe, within the radius or beyond.
	Cut bool `json:"cut,omitempty"`
	// InkTooSmall marks a pair whose test image's ink is too small to
	// tell one formula from another (imagehash.Hashes.TooSmall): such a
	// pair is verified only when its pixels are identical, and is
	// otherwise reported only with Job.Unverified.
	InkTooSmall bool `json:"ink_too_small,omitempty"`
	// LoneSymbol marks a verified pair whose test image is one piece of
	// ink (imagehash.Hashes.Parts) and whose pixels are not the training
	// image's: another sample of one symbol can lie as close as a copy
	// (imagehash.LoneSymbolNote), so such a pair asks for a look at both
	// images.
	LoneSymbol bool `json:"lone_symbol,omitempty"`
}

// Summary counts one test split.
type Summary struct {
	TestSplit         string `json:"test_split"`
	Items             int64  `json:"items"`
	WithNearDuplicate int64  `json:"with_near_duplicate"`
	Verified          int64  `json:"verified"`
	Identical         int64  `json:"identical"`
	LabelMismatch     int64  `json:"label_mismatch"`
	// LabelNotation counts the items whose labels agree with their
	// pairs' only in another notation (above the ws rung), none
	// differing.
	LabelNotation int64 `json:"label_notation"`
	Blank         int64 `json:"blank"`   // no ink: never matched
	Skipped       int64 `json:"skipped"` // not read or not decodable
	// InkTooSmall counts the items whose ink is too small to verify a
	// copy on the image alone (imagehash.Hashes.TooSmall): none of their
	// pairs is verified unless the pixels are identical.
	InkTooSmall int64 `json:"ink_too_small,omitempty"`
	// LoneSymbol counts the verified items that are verified only by
	// pairs of a lone symbol (Pair.LoneSymbol): none of their pairs is
	// pixel-identical, and their images are one piece of ink.
	LoneSymbol int64 `json:"lone_symbol,omitempty"`
	// LoneUnverified counts the items that are lone symbols (one piece of
	// ink, imagehash.Hashes.Parts; ink not too small) with no verified
	// pair but with training images within the radius all the same: a
	// lone symbol's copy drawn by another pipeline can lie as far from its
	// source as other writers' samples of the symbol lie from each other
	// (imagehash.LoneUnverifiedNote), so such an item may hide a copy that
	// no rule verifies. Job.Unverified lists their candidates.
	LoneUnverified int64 `json:"lone_unverified,omitempty"`
}

// ImageInput records an image input in a report.
type ImageInput struct {
	Role   string        `json:"role"` // train or test
	Name   string        `json:"name"`
	Path   string        `json:"path"`
	Size   int64         `json:"size,omitempty"`
	SHA256 string        `json:"sha256,omitempty"`
	Stats  dataset.Stats `json:"stats"`
}

// ImageEvidence is one near-duplicate pair with both images.
type ImageEvidence struct {
	Pair        Pair
	Test, Train image.Image
}

// Report is the result of Run; like overlap.Report it holds
// nothing that depends on the machine or the time.
type Report struct {
	Tool        string `json:"tool"`
	Hash        string `json:"hash"`
	MaxDistance int    `json:"max_distance"`
	// LabelCheck is the rules version of the label check (labelcheck.Version).
	LabelCheck int          `json:"label_check_version"`
	Pairs      []Pair       `json:"pairs"`
	Summary    []Summary    `json:"summary"`
	Inputs     []ImageInput `json:"inputs"`
	dataset.Completeness
	// Evidence holds the first Job.Evidence pairs with their
	// images, in the job's order of precedence.
	Evidence []ImageEvidence `json:"-"`
	// Canvas is the hash's canvas, to draw the evidence as normalized.
	Canvas imagehash.Canvas `json:"-"`
}

// Run hashes the training images (reusing their index when it is
// current), hashes each test split, and reports every test image with a
// training image within the radius. Its phases, all under ctx: the
// training hashes (from the index, built when needed, and from image
// fingerprints), the search of each test split, and the evidence's
// images.
func Run(ctx context.Context, job Job) (Report, error) {
	if job.Hash.Kind == "" {
		job.Hash.Kind = imagehash.PHash
	}
	if job.Hash.Canvas == "" {
		job.Hash.Canvas = imagehash.Stretch
	} else if _, err := imagehash.ParseCanvas(string(job.Hash.Canvas)); err != nil {
		return Report{Tool: job.Tool}, setting.Errorf("%s: %w", setting.Canvas, err)
	}
	r := &run{job: job, logf: job.Log, ev: evidencePicker{max: job.Evidence},
		rep: Report{Tool: job.Tool, MaxDistance: job.MaxDistance, LabelCheck: labelcheck.Version, Pairs: []Pair{},
			Hash: fmt.Sprintf("%s-64 %s canvas", job.Hash.Kind, job.Hash.Canvas), Canvas: job.Hash.Canvas}}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	if err := r.trainHashes(ctx); err != nil {
		return r.rep, err
	}
	recs := r.train.records
	m, err := NewMatcher(ctx, len(recs), func(i int) *imagehash.Hashes { return &recs[i].Print }, !job.NoProbes)
	if err != nil {
		return r.rep, err
	}
	r.match = m
	for _, sp := range job.Tests {
		if err := r.searchSplit(ctx, sp); err != nil {
			return r.rep, err
		}
	}
	for _, in := range r.rep.Inputs {
		r.rep.Check(in.Role+" "+in.Name, in.Path, in.Stats)
	}
	r.rep.Done()
	r.rep.Evidence, err = r.ev.images(r.train.images, job.Tests)
	return r.rep, err
}

// run is one search under way: the training hashes, and the report as it
// grows.
type run struct {
	job   Job
	logf  func(format string, args ...any)
	rep   Report
	train trainSet
	match *Matcher // over train.records
	ev    evidencePicker
}

// trainSet is what the test images are searched among: the training
// images' records with ink, and how to compare their labels.
type trainSet struct {
	records []index.ImageRecord
	fromFP  []bool // records[i] came from a fingerprint: no image for evidence
	// images are the training inputs that are images, not fingerprints.
	images []index.ImageCorpusInput
	// sources names the corpora a test split may be, by its input's
	// SHA-256, to compare it with itself.
	sources map[string][]string
	// fpKeys are the fingerprints' label digests at fpLevel, the
	// strongest level they hold (render, tokens, then ws; "" when none).
	fpKeys  map[fpSeq]canon.Digest
	fpLevel canon.Level
}

// keep adds a training record, unless it has no ink.
func (t *trainSet) keep(r index.ImageRecord, fromFP bool) {
	if !r.Print.Blank {
		t.records = append(t.records, r)
		t.fromFP = append(t.fromFP, fromFP)
	}
}

// trainHashes is the first phase: the training images are hashed into
// the index (or their hashes read from it), and the image fingerprints
// among them read.
func (r *run) trainHashes(ctx context.Context) error {
	r.train = trainSet{sources: map[string][]string{}, fpKeys: map[fpSeq]canon.Digest{}}
	var fps []checksum.Input
	var fpTrain []index.ImageCorpusInput
	for _, in := range r.job.Train {
		if fingerprint.Is(in.Source.Path) {
			fpTrain = append(fpTrain, in)
			continue
		}
		fp, err := checksum.Of(in.Source.Path)
		if err != nil {
			return fmt.Errorf("training images %s: %w", in.Name, err)
		}
		r.train.images = append(r.train.images, in)
		fps = append(fps, checksum.Input{Name: in.Name, File: fp})
	}
	if len(r.job.Train) == 0 {
		return errors.New("no training images to check against")
	}
	if len(r.train.images) > 0 {
		if err := r.indexedHashes(ctx, fps); err != nil {
			return err
		}
	}
	for _, in := range fpTrain {
		if err := r.fingerprintHashes(in); err != nil {
			return fmt.Errorf("training images %s: %w", in.Name, err)
		}
	}
	return nil
}

// indexedHashes reads the training images' hashes from their index,
// built when it is not current; a damaged default index is built again,
// once.
func (r *run) indexedHashes(ctx context.Context, fps []checksum.Input) error {
	job := r.job
	dir, err := index.Dir(job.DB, fps)
	if err != nil {
		return err
	}
	set := index.ImageSettings{Kind: job.Hash.Kind, Canvas: job.Hash.Canvas, Size: job.Hash.Size}
	ijob := job
	ijob.Train = r.train.images
	var recs []index.ImageRecord
	var m index.Manifest
	for attempt := 0; ; attempt++ {
		db, err := openImageIndex(ctx, dir, ijob, fps, set, r.logf)
		if err != nil {
			return err
		}
		m, recs = db.Manifest(), nil
		err = db.Images(func(rec index.ImageRecord) error { recs = append(recs, rec); return nil })
		db.Close()
		if err != nil && attempt == 0 && errors.Is(err, index.ErrDamaged) {
			if err := index.DropDamaged(err, dir, job.DB, r.logf); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	for i, c := range m.ImageCorpora {
		r.rep.Inputs = append(r.rep.Inputs, ImageInput{Role: "train", Name: c.Name, Path: r.train.images[i].Source.Path, Size: c.Input.Size, SHA256: c.Input.SHA256, Stats: c.Stats})
		r.train.sources[c.Input.SHA256] = append(r.train.sources[c.Input.SHA256], c.Name)
	}
	for _, rec := range recs {
		r.train.keep(rec, false)
	}
	return nil
}

// fingerprintHashes reads an image fingerprint's hashes. Its labels are
// compared by their digests at the strongest level it holds (render,
// tokens, then ws), unless it holds the labels themselves; every
// fingerprint must hold the same strongest level.
func (r *run) fingerprintHashes(in index.ImageCorpusInput) error {
	f, err := index.LoadImageFingerprint(in.Source.Path, r.job.Hash)
	if err != nil {
		return err
	}
	if lv, ok := strongestLevel(f.Meta.Levels); ok {
		// Same rules, same salt.
		if err := f.Meta.Check([]canon.Level{lv}, r.job.Salt); err != nil {
			return fmt.Errorf("fingerprint %s (its label digests): %w", in.Source.Path, err)
		}
		if r.train.fpLevel.Name != "" && r.train.fpLevel.ID != lv.ID {
			return fmt.Errorf("fingerprint %s holds %s digests at most, another training fingerprint %s: give fingerprints made at the same levels", in.Source.Path, lv.Name, r.train.fpLevel.Name)
		}
		r.train.fpLevel = lv
		if _, err := fingerprint.ScanKeys(in.Source.Path, []canon.LevelID{lv.ID}, func(k *fingerprint.KeyRow) error {
			if k.Has[0] {
				r.train.fpKeys[fpSeq{k.Corpus, k.Seq}] = k.Keys[0]
			}
			return nil
		}); err != nil {
			return err
		}
	}
	r.rep.Inputs = append(r.rep.Inputs, ImageInput{Role: "train", Name: in.Name, Path: in.Source.Path, Size: f.Input.Size, SHA256: f.Input.SHA256, Stats: f.Stats})
	for corpus, sum := range f.Meta.Sources {
		r.train.sources[sum] = append(r.train.sources[sum], corpus)
	}
	for _, rec := range f.Records {
		r.train.keep(rec, true)
	}
	return nil
}

// searchSplit is the second phase, for one test split: each of its
// images is hashed and searched among the training images, its pairs
// reported and the split summarized.
func (r *run) searchSplit(ctx context.Context, sp ImageSplit) error {
	sum := Summary{TestSplit: sp.Name}
	tfp, err := checksum.Of(sp.Source.Path)
	if err != nil {
		return fmt.Errorf("test images %s: %w", sp.Name, err)
	}
	// A split that is itself a training corpus (the same input, or the
	// input a fingerprint was made from) is compared with the others and
	// with itself, each pair once and never an image with itself.
	self := map[string]bool{}
	for _, name := range r.train.sources[tfp.SHA256] {
		self[name] = true
	}
	query := r.job.Hash
	query.Probe = !r.job.NoProbes
	items := &splitItems{flags: map[int64]*itemFlags{}, listed: map[selfPair]bool{}, lone: map[int64]bool{}}
	st, _, err := imagehash.Scan(ctx, sp.Source, query, r.job.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
		sum.Items++
		if fp.Blank {
			sum.Blank++
			return nil
		}
		if fp.TooSmall() {
			sum.InkTooSmall++
		}
		found := r.candidates(sp.Name, it, fp, self)
		if len(found) > 0 {
			r.record(items, it, found, self)
		}
		if r.loneUnverified(it, fp, found, self) {
			items.lone[it.Seq] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("test images %s: %w", sp.Name, err)
	}
	items.count(&sum)
	sum.Skipped = st.Skipped
	r.rep.Inputs = append(r.rep.Inputs, ImageInput{Role: "test", Name: sp.Name, Path: sp.Source.Path, Size: tfp.Size, SHA256: tfp.SHA256, Stats: st})
	r.rep.Summary = append(r.rep.Summary, sum)
	return nil
}

// candidate is a training image found for a test image.
type candidate struct {
	pair   Pair
	rec    index.ImageRecord
	fromFP bool // the record came from a fingerprint
}

// candidates returns the training images a test image matches (Matcher:
// within the radius, those imagehash.Verify verifies, or all with
// Job.Unverified; beyond it, those the edge keys, the cut variants or,
// for small ink, the small-ink keys find and verify), their labels
// compared, nearest first; a split's image is never its own pair. A query
// whose ink is too small (imagehash.Hashes.TooSmall) has no edge keys and
// no cut keys to search with.
func (r *run) candidates(split string, it dataset.ImageItem, fp imagehash.Hashes, self map[string]bool) []candidate {
	var testDigest, testWS canon.Digest
	if it.HasLabel && r.train.fpLevel.Name != "" {
		testDigest = r.train.fpLevel.Digest(it.Label, r.job.Salt)
		testWS = canon.DigestOf(canon.WSKey(it.Label), r.job.Salt)
	}
	matches := r.match.Search(fp, r.job.MaxDistance, r.job.Unverified, r.itself(it, self))
	found := make([]candidate, 0, len(matches))
	for _, m := range matches {
		rec := r.train.records[m.Pos]
		p := Pair{TestSplit: split, TestID: it.ID, TrainSplit: rec.Corpus, TrainID: rec.ID, Distance: m.Distance,
			Identical: rec.Print.Digest == fp.Digest, TestLabel: it.Label, TrainLabel: rec.Label,
			EdgeKey: m.By == ByEdge, Cut: m.By == ByCut, SmallInk: m.By == BySmall, InkTooSmall: fp.TooSmall(),
			Verified: m.Verified, FineDistance: m.Fine,
			Squeezed:   m.Verified && m.Drawing == imagehash.ByThinnerPen,
			ThickerPen: m.Verified && m.Drawing == imagehash.ByThickerPen,
		}
		if it.HasLabel && rec.HasLabel {
			c := r.compareLabels(it.Label, rec, r.train.fromFP[m.Pos], testDigest, testWS)
			p.LabelCheck, p.LabelMismatch = &c, !c.Same
		}
		found = append(found, candidate{p, rec, r.train.fromFP[m.Pos]})
	}
	for i := range found {
		p := &found[i].pair
		p.LoneSymbol = p.Verified && !p.Identical && fp.Parts == 1
	}
	sort.Slice(found, func(a, b int) bool {
		x, y := found[a].pair, found[b].pair
		if x.Distance != y.Distance {
			return x.Distance < y.Distance
		}
		if x.TrainSplit != y.TrainSplit {
			return x.TrainSplit < y.TrainSplit
		}
		if x.TrainID != y.TrainID {
			return x.TrainID < y.TrainID
		}
		return found[a].rec.Seq < found[b].rec.Seq
	})
	return found
}

// itself returns the Matcher's skip function for a test image: the
// training position of the image itself, when its split is a training
// corpus.
func (r *run) itself(it dataset.ImageItem, self map[string]bool) func(pos int) bool {
	return func(pos int) bool {
		rec := &r.train.records[pos]
		return self[rec.Corpus] && rec.Seq == it.Seq
	}
}

// loneUnverified reports whether a test image is a lone symbol whose
// candidates within the radius are none of them verified
// (Matcher.LoneUnverified): Summary.LoneUnverified. A query with a
// verified pair among found is not searched again.
func (r *run) loneUnverified(it dataset.ImageItem, fp imagehash.Hashes, found []candidate, self map[string]bool) bool {
	for _, c := range found {
		if c.pair.Verified {
			return false
		}
	}
	return len(r.match.LoneUnverified(fp, r.job.MaxDistance, r.itself(it, self))) > 0
}

// compareLabels compares a test label with a training record's: by the
// labels themselves, or, for a fingerprint without them, by digests (the
// test label's at the fingerprint's level, testDigest, and at ws, testWS).
func (r *run) compareLabels(label string, rec index.ImageRecord, fromFP bool, testDigest, testWS canon.Digest) labelcheck.Result {
	d, ok := r.train.fpKeys[fpSeq{rec.Corpus, rec.Seq}]
	switch {
	case fromFP && rec.Label == "" && rec.HasWSKey && rec.WSKey == testWS:
		return labelcheck.FromDigests("ws", true) // the weakest rung first, as Compare climbs
	case fromFP && rec.Label == "" && ok:
		return labelcheck.FromDigests(r.train.fpLevel.Name, d == testDigest)
	case fromFP && rec.Label == "":
		return labelcheck.FromDigests("ws", rec.HasWSKey && rec.WSKey == testWS)
	}
	return labelcheck.Compare(label, rec.Label)
}

// record reports a test image's pairs (within one corpus, each unordered
// pair once, from whichever of its two items found it first) and offers
// them as evidence, and notes what the image, and a pair's other item when
// it is in the same split, were found to have.
func (r *run) record(items *splitItems, it dataset.ImageItem, found []candidate, self map[string]bool) {
	for _, c := range found {
		items.note(it.Seq, c.pair)
		if self[c.pair.TrainSplit] {
			// The pair's other item is in this split too: it has the pair
			// whichever of the two is the query.
			items.note(c.rec.Seq, c.pair)
			k := selfPair{c.pair.TrainSplit, min(it.Seq, c.rec.Seq), max(it.Seq, c.rec.Seq)}
			if items.listed[k] {
				continue
			}
			items.listed[k] = true
		}
		r.rep.Pairs = append(r.rep.Pairs, c.pair)
		if !c.fromFP { // a fingerprint has no image to show
			r.ev.offer(c.pair, it, c.rec)
		}
	}
}

// splitItems is what one test split's items were found to have, for its
// summary, and which of its pairs within one corpus were listed.
type splitItems struct {
	flags  map[int64]*itemFlags // by the item's seq
	listed map[selfPair]bool
	// lone holds the seqs of the lone symbols with unverified candidates
	// only (run.loneUnverified), counted unless a pair found from the
	// other side verifies them.
	lone map[int64]bool
}

// itemFlags is what an item's pairs are.
type itemFlags struct {
	identical, verified, mismatch, notation bool
	// firm says a verified pair of the item is not a lone symbol's
	// (Pair.LoneSymbol).
	firm bool
}

// selfPair is an unordered pair of items of a split that is itself a
// training corpus: the corpus, and the two seqs, smaller first.
type selfPair struct {
	corpus string
	a, b   int64
}

// note records a pair of the item seq.
func (s *splitItems) note(seq int64, p Pair) {
	f := s.flags[seq]
	if f == nil {
		f = &itemFlags{}
		s.flags[seq] = f
	}
	f.identical = f.identical || p.Identical
	f.verified = f.verified || p.Verified
	f.firm = f.firm || p.Verified && !p.LoneSymbol
	f.mismatch = f.mismatch || p.LabelMismatch
	if lc := p.LabelCheck; lc != nil && lc.Same && lc.Level != labelcheck.LevelWS {
		f.notation = true
	}
}

// count adds the split's items with pairs to its summary.
func (s *splitItems) count(sum *Summary) {
	for _, f := range s.flags {
		sum.WithNearDuplicate++
		if f.identical {
			sum.Identical++
		}
		if f.verified {
			sum.Verified++
			if !f.firm {
				sum.LoneSymbol++
			}
		}
		if f.mismatch {
			sum.LabelMismatch++
		} else if f.notation {
			sum.LabelNotation++
		}
	}
	for seq := range s.lone {
		if f := s.flags[seq]; f == nil || !f.verified {
			sum.LoneUnverified++
		}
	}
}

// fpSeq names a training record read from a fingerprint.
type fpSeq struct {
	corpus string
	seq    int64
}

// strongestLevel is the strongest canonical level a fingerprint holds
// digests at, among render, tokens and ws.
func strongestLevel(levels map[string]int) (canon.Level, bool) {
	for _, name := range []string{"render", "tokens", "ws"} {
		if levels[name] != 0 {
			return canon.LookupLevel(name)
		}
	}
	return canon.Level{}, false
}

// evidencePicker keeps the pairs to show, by precedence: copies whose
// labels are different formulas (a relabelled copy or a label error),
// then other pairs whose labels differ, then the rest.
type evidencePicker struct {
	max                    int
	copies, mismatch, same []pickedPair
}

type pickedPair struct {
	p     Pair
	test  dataset.ImageItem
	train index.ImageRecord
}

func (e *evidencePicker) offer(p Pair, t dataset.ImageItem, r index.ImageRecord) {
	switch {
	case p.LabelMismatch && p.Identical && len(e.copies) < e.max:
		e.copies = append(e.copies, pickedPair{p, t, r})
	case p.LabelMismatch && !p.Identical && len(e.mismatch) < e.max:
		e.mismatch = append(e.mismatch, pickedPair{p, t, r})
	case !p.LabelMismatch && len(e.same) < e.max:
		e.same = append(e.same, pickedPair{p, t, r})
	}
}

// images decodes the kept pairs' images, fetching the training images by
// scanning their corpora again. A pair whose image cannot be decoded is
// left out of the evidence (it is still in the report's pairs).
func (e *evidencePicker) images(train []index.ImageCorpusInput, tests []ImageSplit) ([]ImageEvidence, error) {
	kept := append(append(append([]pickedPair(nil), e.copies...), e.mismatch...), e.same...)
	if len(kept) > e.max {
		kept = kept[:e.max]
	}
	if len(kept) == 0 {
		return nil, nil
	}
	want := map[string]map[int64]bool{}
	for _, k := range kept {
		if want[k.train.Corpus] == nil {
			want[k.train.Corpus] = map[int64]bool{}
		}
		want[k.train.Corpus][k.train.Seq] = true
	}
	imgs, err := trainImages(train, want)
	if err != nil {
		return nil, err
	}
	lim := map[string]dataset.ImageLimits{}
	for _, t := range train {
		lim["train "+t.Name] = t.Source.Limits
	}
	for _, t := range tests {
		lim["test "+t.Name] = t.Source.Limits
	}
	var out []ImageEvidence
	for _, k := range kept {
		ti, err1 := k.test.Decode(lim["test "+k.p.TestSplit])
		ri, err2 := imgs[k.train.Corpus][k.train.Seq].Decode(lim["train "+k.train.Corpus])
		if err1 == nil && err2 == nil {
			out = append(out, ImageEvidence{Pair: k.p, Test: ti, Train: ri})
		}
	}
	return out, nil
}

func openImageIndex(ctx context.Context, dir string, job Job, fps []checksum.Input, set index.ImageSettings, logf func(string, ...any)) (*index.DB, error) {
	db, err := index.Reuse(dir, job.DB, job.Rebuild, job.IndexOpts, func(db *index.DB) (bool, error) {
		return db.Manifest().CoversImages(fps, set), nil
	}, logf)
	if db != nil || err != nil {
		return db, err
	}
	if db, err = index.Open(dir, job.IndexOpts); err != nil {
		return nil, err
	}
	logf("hashing training images into %s", dir)
	br, err := db.BuildImages(ctx, job.Train, fps, set, job.Tool, job.Workers, job.Progress)
	if br.Rebuilt != "" {
		logf("image index rebuilt: %s", br.Rebuilt)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	logf("image index: %d images hashed, %d corpora reused", br.Postings, len(br.Reused))
	return db, nil
}

// trainImages fetches the training images named by (corpus, seq), for
// evidence, by scanning the corpora again.
func trainImages(train []index.ImageCorpusInput, want map[string]map[int64]bool) (map[string]map[int64]dataset.ImageItem, error) {
	out := map[string]map[int64]dataset.ImageItem{}
	for _, in := range train {
		seqs := want[in.Name]
		if len(seqs) == 0 {
			continue
		}
		out[in.Name] = map[int64]dataset.ImageItem{}
		if _, err := dataset.ScanImages(in.Source, func(it dataset.ImageItem) error {
			if seqs[it.Seq] {
				out[in.Name][it.Seq] = it
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("training images %s: %w", in.Name, err)
		}
	}
	return out, nil
}
