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
// is reported when the fine hashes verify it (imagehash.VerifyDistance).
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
	// NoProbes searches with each test image's own hashes only: no probes
	// for ink cut at an edge, and imagehash.VerifyDistance for every query
	// (the stricter limit of a lone symbol needs the count of ink pieces
	// the probes compute). It is the search the SQL over image
	// fingerprints makes (sql/image_neardup.sql), for comparing the two.
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
	// Verified says imagehash.Verify accepts it (within VerifyDistance, or
	// the pixels are identical): a copy, not merely the same formula
	// written alike.
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
// training image within the radius.
func Run(ctx context.Context, job Job) (Report, error) {
	logf := job.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if job.Hash.Kind == "" {
		job.Hash.Kind = imagehash.PHash
	}
	if job.Hash.Canvas == "" {
		job.Hash.Canvas = imagehash.Stretch
	} else if _, err := imagehash.ParseCanvas(string(job.Hash.Canvas)); err != nil {
		return Report{Tool: job.Tool}, setting.Errorf("%s: %w", setting.Canvas, err)
	}
	rep := Report{Tool: job.Tool, MaxDistance: job.MaxDistance, LabelCheck: labelcheck.Version, Pairs: []Pair{},
		Hash: fmt.Sprintf("%s-64 %s canvas", job.Hash.Kind, job.Hash.Canvas), Canvas: job.Hash.Canvas}
	// Training images: hashed into the index, or read from image
	// fingerprints. sources names the corpora a test split may be (by its
	// input's SHA-256), to compare it with itself.
	var imgTrain []index.ImageCorpusInput
	var fps []checksum.Input
	var fpTrain []index.ImageCorpusInput
	for _, in := range job.Train {
		if fingerprint.Is(in.Source.Path) {
			fpTrain = append(fpTrain, in)
			continue
		}
		fp, err := checksum.Of(in.Source.Path)
		if err != nil {
			return rep, fmt.Errorf("training images %s: %w", in.Name, err)
		}
		imgTrain = append(imgTrain, in)
		fps = append(fps, checksum.Input{Name: in.Name, File: fp})
	}
	if len(job.Train) == 0 {
		return rep, errors.New("no training images to check against")
	}
	sources := map[string][]string{} // input SHA-256 → corpus names
	var train []index.ImageRecord
	var hashes []uint64
	var fromFP []bool // train[i] came from a fingerprint: no image for evidence
	keep := func(r index.ImageRecord, fp bool) {
		if !r.Print.Blank {
			train = append(train, r)
			hashes = append(hashes, r.Print.Hash)
			fromFP = append(fromFP, fp)
		}
	}
	if len(imgTrain) > 0 {
		dir, err := index.Dir(job.DB, fps)
		if err != nil {
			return rep, err
		}
		set := index.ImageSettings{Kind: job.Hash.Kind, Canvas: job.Hash.Canvas, Size: job.Hash.Size}
		ijob := job
		ijob.Train = imgTrain
		var recs []index.ImageRecord
		var m index.Manifest
		for attempt := 0; ; attempt++ {
			db, err := openImageIndex(ctx, dir, ijob, fps, set, logf)
			if err != nil {
				return rep, err
			}
			m, recs = db.Manifest(), nil
			err = db.Images(func(r index.ImageRecord) error { recs = append(recs, r); return nil })
			db.Close()
			if err != nil && attempt == 0 && errors.Is(err, index.ErrDamaged) {
				// A damaged default index is built again, once.
				if err := index.DropDamaged(err, dir, job.DB, logf); err != nil {
					return rep, err
				}
				continue
			}
			if err != nil {
				return rep, err
			}
			break
		}
		for i, c := range m.ImageCorpora {
			rep.Inputs = append(rep.Inputs, ImageInput{Role: "train", Name: c.Name, Path: imgTrain[i].Source.Path, Size: c.Input.Size, SHA256: c.Input.SHA256, Stats: c.Stats})
			sources[c.Input.SHA256] = append(sources[c.Input.SHA256], c.Name)
		}
		for _, r := range recs {
			keep(r, false)
		}
	}
	// A fingerprint's labels are compared by their digests at the
	// strongest level it holds (render, tokens, then ws), unless it holds
	// the labels themselves.
	fpKeys := map[fpSeq]canon.Digest{}
	var fpLevel canon.Level
	for _, in := range fpTrain {
		f, err := index.LoadImageFingerprint(in.Source.Path, job.Hash)
		if err == nil {
			if lv, ok := strongestLevel(f.Meta.Levels); ok {
				// Same rules, same salt.
				err = f.Meta.Check([]canon.Level{lv}, job.Salt)
				if err != nil {
					err = fmt.Errorf("fingerprint %s (its label digests): %w", in.Source.Path, err)
				} else if fpLevel.Name != "" && fpLevel.ID != lv.ID {
					err = fmt.Errorf("fingerprint %s holds %s digests at most, another training fingerprint %s: give fingerprints made at the same levels", in.Source.Path, lv.Name, fpLevel.Name)
				} else {
					fpLevel = lv
					_, err = fingerprint.ScanKeys(in.Source.Path, []canon.LevelID{lv.ID}, func(k *fingerprint.KeyRow) error {
						if k.Has[0] {
							fpKeys[fpSeq{k.Corpus, k.Seq}] = k.Keys[0]
						}
						return nil
					})
				}
			}
		}
		if err != nil {
			return rep, fmt.Errorf("training images %s: %w", in.Name, err)
		}
		rep.Inputs = append(rep.Inputs, ImageInput{Role: "train", Name: in.Name, Path: in.Source.Path, Size: f.Input.Size, SHA256: f.Input.SHA256, Stats: f.Stats})
		for corpus, sum := range f.Meta.Sources {
			sources[sum] = append(sources[sum], corpus)
		}
		for _, r := range f.Records {
			keep(r, true)
		}
	}
	mih := index.NewHammingIndex(hashes)
	ev := evidencePicker{max: job.Evidence}
	for _, sp := range job.Tests {
		sum := Summary{TestSplit: sp.Name}
		tfp, err := checksum.Of(sp.Source.Path)
		if err != nil {
			return rep, fmt.Errorf("test images %s: %w", sp.Name, err)
		}
		// A split that is itself a training corpus (the same input, or
		// the input a fingerprint was made from) is compared with the
		// others and with itself, each pair once and never an image with
		// itself.
		self := map[string]bool{}
		for _, name := range sources[tfp.SHA256] {
			self[name] = true
		}
		query := job.Hash
		query.Probe = !job.NoProbes
		st, _, err := imagehash.Scan(ctx, sp.Source, query, job.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
			sum.Items++
			if fp.Blank {
				sum.Blank++
				return nil
			}
			var hits []Pair
			var recs []index.ImageRecord
			var fromFPs []bool
			var testDigest, testWS canon.Digest
			if it.HasLabel && fpLevel.Name != "" {
				testDigest = fpLevel.Digest(it.Label, job.Salt)
				testWS = canon.DigestOf(canon.WSKey(it.Label), job.Salt)
			}
			mih.SearchAny(fp.SearchHashes(), job.MaxDistance, func(pos, d int) {
				r := train[pos]
				if self[r.Corpus] && r.Seq == it.Seq {
					return // the image itself
				}
				p := Pair{TestSplit: sp.Name, TestID: it.ID, TrainSplit: r.Corpus, TrainID: r.ID, Distance: d,
					Identical: r.Print.Digest == fp.Digest, TestLabel: it.Label, TrainLabel: r.Label}
				p.FineDistance, p.Verified = imagehash.Verify(fp, r.Print)
				if !p.Verified && !job.Unverified {
					return
				}
				if it.HasLabel && r.HasLabel {
					var c labelcheck.Result
					d, ok := fpKeys[fpSeq{r.Corpus, r.Seq}]
					switch {
					case fromFP[pos] && r.Label == "" && r.HasWSKey && r.WSKey == testWS:
						c = labelcheck.FromDigests("ws", true) // the weakest rung first, as Compare climbs
					case fromFP[pos] && r.Label == "" && ok:
						c = labelcheck.FromDigests(fpLevel.Name, d == testDigest)
					case fromFP[pos] && r.Label == "":
						c = labelcheck.FromDigests("ws", r.HasWSKey && r.WSKey == testWS)
					default:
						c = labelcheck.Compare(it.Label, r.Label)
					}
					p.LabelCheck, p.LabelMismatch = &c, !c.Same
				}
				hits = append(hits, p)
				recs = append(recs, r)
				fromFPs = append(fromFPs, fromFP[pos])
			})
			if len(hits) == 0 {
				return nil
			}
			order := make([]int, len(hits))
			for i := range order {
				order[i] = i
			}
			sort.Slice(order, func(a, b int) bool {
				x, y := hits[order[a]], hits[order[b]]
				if x.Distance != y.Distance {
					return x.Distance < y.Distance
				}
				if x.TrainSplit != y.TrainSplit {
					return x.TrainSplit < y.TrainSplit
				}
				if x.TrainID != y.TrainID {
					return x.TrainID < y.TrainID
				}
				return recs[order[a]].Seq < recs[order[b]].Seq
			})
			sum.WithNearDuplicate++
			identical, mismatch, verified, notation := false, false, false, false
			for _, i := range order {
				identical = identical || hits[i].Identical
				verified = verified || hits[i].Verified
				mismatch = mismatch || hits[i].LabelMismatch
				if c := hits[i].LabelCheck; c != nil && c.Same && c.Level != labelcheck.LevelWS {
					notation = true
				}
				// Within one corpus, list each unordered pair once.
				if self[hits[i].TrainSplit] && recs[i].Seq < it.Seq {
					continue
				}
				rep.Pairs = append(rep.Pairs, hits[i])
				if !fromFPs[i] { // a fingerprint has no image to show
					ev.offer(hits[i], it, recs[i])
				}
			}
			if identical {
				sum.Identical++
			}
			if verified {
				sum.Verified++
			}
			if mismatch {
				sum.LabelMismatch++
			} else if notation {
				sum.LabelNotation++
			}
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("test images %s: %w", sp.Name, err)
		}
		sum.Skipped = st.Skipped
		rep.Inputs = append(rep.Inputs, ImageInput{Role: "test", Name: sp.Name, Path: sp.Source.Path, Size: tfp.Size, SHA256: tfp.SHA256, Stats: st})
		rep.Summary = append(rep.Summary, sum)
	}
	for _, in := range rep.Inputs {
		rep.Check(in.Role+" "+in.Name, in.Path, in.Stats)
	}
	rep.Done()
	var err2 error
	rep.Evidence, err2 = ev.images(imgTrain, job.Tests)
	return rep, err2
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
	if !job.Rebuild {
		db, err := index.OpenReadOnly(dir, job.IndexOpts)
		if err == nil {
			if db.Manifest().CoversImages(fps, set) {
				logf("using index %s", dir)
				return db, nil
			}
			db.Close()
		}
		if errors.Is(err, index.ErrLocked) {
			return nil, err
		}
		if errors.Is(err, index.ErrDamaged) {
			if err := index.DropDamaged(err, dir, job.DB, logf); err != nil {
				return nil, err
			}
		}
	}
	if job.Rebuild {
		if err := index.Remove(dir); err != nil {
			return nil, setting.Errorf("%s: %w", setting.Rebuild, err)
		}
	}
	db, err := index.Open(dir, job.IndexOpts)
	if err != nil {
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
