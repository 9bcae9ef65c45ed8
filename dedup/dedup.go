package dedup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
)

// A Reason says why an item was removed.
type Reason string

// The reasons, in precedence order: an item that qualifies for several is
// removed for the first.
const (
	ReasonUnreadable Reason = "unreadable" // the reader skipped the record, or its image cannot be decoded
	ReasonLabel      Reason = "label"      // its canonical key equals an against item's
	ReasonImage      Reason = "image"      // its image is a verified near-copy of an against image
	ReasonNear       Reason = "near"       // its token sequence is within the edit distance of an against item's
	ReasonWithin     Reason = "within"     // an earlier release item is a copy of it: its image (a release with images) or its canonical key
)

// Reasons lists every reason in precedence order.
var Reasons = []Reason{ReasonUnreadable, ReasonLabel, ReasonImage, ReasonNear, ReasonWithin}

func (r Reason) rank() int {
	for i, x := range Reasons {
		if x == r {
			return i
		}
	}
	return len(Reasons)
}

// Input is a named input: a release split or an against set.
type Input struct {
	Name   string
	Source dataset.Source // Path, and optionally Format, Field, IDField
}

// A Job is one clean release.
type Job struct {
	Releases []Input
	Against  []Input
	Out      string // the output folder; it must not exist unless Force
	Force    bool   // replace an existing Out
	// Levels are the canonical levels labels are compared at (default ws).
	Levels []canon.Level
	// Salt is the salt of salted against fingerprints.
	Salt []byte
	// Images compares the release's images (caption folders' img/,
	// Parquet image columns, InkML strokes) with the against images;
	// MaxDistance is the pHash radius of a candidate (default 8), and
	// only pairs verified as copies remove an item.
	Images      bool
	MaxDistance int
	ImageLimits dataset.ImageLimits
	// Within removes duplicates inside the release: the first surviving
	// copy in input order stays. In a split with images (a caption folder
	// with img/, a Parquet image column, InkML) an item is a duplicate
	// when its image is a verified copy of an earlier item's; a label
	// repeated by another item with another image is another sample of
	// the same formula: it is kept and listed (Result.Repeats), unless
	// WithinLabels. In a split without images a repeated label is the
	// duplicate. (A release split identical to an against input, the
	// benchmark's test split shipped in the release, is never compared
	// with that input, so its copies always stay and the other splits'
	// copies go as label matches.)
	Within bool
	// WithinLabels removes repeated labels inside the release in splits
	// with images too (implies Within).
	WithinLabels bool
	// Near removes items whose token sequence is within Near token edits
	// of an against item's, for sequences of at least NearMin tokens.
	Near, NearMin int
	Workers       int
	// Evidence is how many removed items Result.Evidence shows beside
	// what they matched, with their labels and images (0: none).
	Evidence int
	Tool     string
	Progress progress.Reporter
	Log      func(format string, args ...any)
}

// Removed is one removed item: a row of removed.jsonl and removed.parquet.
type Removed struct {
	Release string `json:"release" parquet:"release"`
	ID      string `json:"id" parquet:"id"`
	Seq     int64  `json:"seq" parquet:"seq"`
	Reason  Reason `json:"reason" parquet:"reason"`
	// Level is the canonical level of a label or within match.
	Level string `json:"level,omitempty" parquet:"level,optional"`
	// Distance is a near match's token edit distance or an image match's
	// pHash distance.
	Distance *int32 `json:"distance,omitempty" parquet:"distance,optional"`
	// Matches are the items it matched, as "source:id", the first
	// MaxMatches; MoreMatches counts the rest.
	Matches     []string `json:"matches" parquet:"matches,list"`
	MoreMatches int32    `json:"more_matches,omitempty" parquet:"more_matches"`
	// Detail is the reader's reason for an unreadable item.
	Detail string `json:"detail,omitempty" parquet:"detail,optional"`
	// LoneSymbol marks an item removed as an image copy (ReasonImage, or
	// ReasonWithin at level "image") whose image is one piece of ink
	// (imagehash.Hashes.Parts) and whose normalized pixels are not those
	// of any item it matched: another sample of one symbol can lie as
	// close as a copy (imagehash.LoneSymbolNote), so its removal asks for
	// a look at both images. It does not change what is removed.
	LoneSymbol bool `json:"lone_symbol,omitempty" parquet:"lone_symbol"`
}

// MaxMatches is how many matching items a removed row names.
const MaxMatches = 10

// ReleaseSummary counts one release split.
type ReleaseSummary struct {
	Name     string           `json:"name"`
	Path     string           `json:"path"`
	Format   string           `json:"format"`
	Items    int64            `json:"items"` // records in the input, unreadable ones included
	Kept     int64            `json:"kept"`
	Removed  int64            `json:"removed"`
	ByReason map[Reason]int64 `json:"by_reason"`
	// ByLevel counts label removals by the level that matched.
	ByLevel map[string]int64 `json:"by_level,omitempty"`
	// WithinRule says how duplicates inside the release were decided in
	// this split (with Within): "image copies" (label repeats kept and
	// listed), "image copies and label repeats" (WithinLabels), or
	// "label repeats (no images)".
	WithinRule string `json:"within_rule,omitempty"`
	// LabelRepeats counts the kept items whose label repeats an earlier
	// kept item's (they are listed in repeats.jsonl).
	LabelRepeats int64 `json:"label_repeats,omitempty"`
	// LoneSymbol counts the removed items marked Removed.LoneSymbol.
	LoneSymbol int64 `json:"lone_symbol,omitempty"`
	// LoneUnverified counts the kept items whose image is a lone symbol
	// (one piece of ink, not too small to verify) with against images
	// within the radius, none verified as a copy: they may hide copies
	// (imagehash.LoneUnverifiedNote). They are listed, with their
	// candidates, in unverified.jsonl (Result.Unverified).
	LoneUnverified int64 `json:"lone_unverified,omitempty"`
	// unverified lists them, in input order.
	unverified []Unverified
	// Images is how many of the split's images were compared ("" when
	// the split has none or Images is off); ImagesNote says why not.
	Images     int64  `json:"images_compared,omitempty"`
	ImagesNote string `json:"images_note,omitempty"`
	// Self names an against input with the same content, which the split
	// is not compared with.
	Self   string        `json:"same_as_against,omitempty"`
	Output string        `json:"output"` // the split's folder under Out
	Stats  dataset.Stats `json:"stats"`
	// ImageStats is what reading its images counted, with Images.
	ImageStats *dataset.Stats `json:"image_stats,omitempty"`
}

// AgainstSummary describes one against input.
type AgainstSummary struct {
	Name   string        `json:"name"`
	Path   string        `json:"path"`
	Kind   string        `json:"kind"` // labels, images, labels+images, fingerprint, fingerprint+images
	Labels int64         `json:"labels"`
	Images int64         `json:"images"`
	Note   string        `json:"note,omitempty"`
	Stats  dataset.Stats `json:"stats"`
	// ImageStats is what reading its images counted, with Images.
	ImageStats *dataset.Stats `json:"image_stats,omitempty"`
}

// Result is what Run did: summary.json.
type Result struct {
	Tool        string   `json:"tool"`
	Levels      []string `json:"levels"`
	Images      bool     `json:"images"`
	MaxDistance int      `json:"max_distance,omitempty"`
	Near        int      `json:"near,omitempty"`
	NearMin     int      `json:"near_min_tokens,omitempty"`
	// NearSelf is how dense the against items' own formulas are at the
	// near distance (not a chance level; see NearSelf).
	NearSelf *NearSelf `json:"near_self,omitempty"`
	Within   bool      `json:"within"`
	// WithinLabels says repeated labels were removed in splits with
	// images too.
	WithinLabels bool             `json:"within_labels,omitempty"`
	Releases     []ReleaseSummary `json:"releases"`
	Against      []AgainstSummary `json:"against"`
	Inputs       []checksum.Input `json:"inputs"` // each with the role "release" or "against"
	dataset.Completeness
	// Removed lists every removed item in release and input order.
	Removed []Removed `json:"-"`
	// Repeats lists the kept items whose label repeats an earlier kept
	// item's (With Within, in splits with images): repeats.jsonl.
	Repeats []Repeat `json:"-"`
	// Unverified lists the kept lone symbols with unverified candidates
	// only (ReleaseSummary.LoneUnverified), in release and input order:
	// unverified.jsonl.
	Unverified []Unverified `json:"-"`
	// Evidence shows the first Job.Evidence removed items beside what
	// they matched, for the report page.
	Evidence []Evidence `json:"-"`
}

// Unverified is a kept item whose image is a lone symbol with against
// images within the radius (Candidates, the first MaxMatches as
// "source:id", sorted; MoreCandidates the rest; Distance the smallest
// pHash distance), none of them verified as a copy: another writer's
// sample of the symbol, or a copy drawn by another pipeline that the image
// cannot tell from one (imagehash.LoneUnverifiedNote).
type Unverified struct {
	Release        string   `json:"release"`
	ID             string   `json:"id"`
	Seq            int64    `json:"seq"`
	Distance       int32    `json:"distance"`
	Candidates     []string `json:"candidates"`
	MoreCandidates int32    `json:"more_candidates,omitempty"`
}

// Repeat is a kept item whose label, at Level, is the label of an
// earlier kept item with another image: another sample of the same
// formula (another writer), not a copy.
type Repeat struct {
	Release string `json:"release"`
	ID      string `json:"id"`
	Seq     int64  `json:"seq"`
	Level   string `json:"level"`
	First   string `json:"first"` // the earlier item, "release:id"
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// reserved are the names of Out's own files.
var reserved = map[string]bool{"removed.jsonl": true, "removed.parquet": true, "repeats.jsonl": true, "unverified.jsonl": true, "summary.json": true, "summary.md": true}

// checkName refuses a release name that could not be a folder of Out.
func checkName(role, name string) error {
	if !safeName.MatchString(name) || reserved[name] || strings.Contains(name, "..") {
		return fmt.Errorf("%s name %q: use letters, digits, '.', '_' and '-' (starting with a letter or digit; not %s)", role, name, strings.Join(sortedKeys(reserved), ", "))
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// realPath resolves p to an absolute path with links followed (as far as
// it exists).
func realPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// check validates the job before anything is read.
func (job *Job) check() error {
	if len(job.Releases) == 0 {
		return setting.Errorf("no release to clean (%s)", setting.Release)
	}
	if job.WithinLabels {
		job.Within = true
	}
	if len(job.Against) == 0 && !job.Within {
		return setting.Errorf("nothing to clean against: give %s, or %s for duplicates inside the release", setting.Against, setting.Within)
	}
	if job.Out == "" {
		return setting.Errorf("no output folder (%s)", setting.Out)
	}
	if len(job.Levels) == 0 {
		ws, _ := canon.LookupLevel("ws")
		job.Levels = []canon.Level{ws}
	}
	if job.MaxDistance <= 0 {
		job.MaxDistance = 8
	}
	if job.Near < 0 {
		return fmt.Errorf("near %d: want 0 (off) or a positive edit distance", job.Near)
	}
	seen := map[string]bool{}
	for _, r := range job.Releases {
		if err := checkName("release", r.Name); err != nil {
			return err
		}
		if seen[r.Name] {
			return fmt.Errorf("release name %q given twice", r.Name)
		}
		seen[r.Name] = true
	}
	var paths []string
	for _, in := range append(append([]Input{}, job.Releases...), job.Against...) {
		if _, err := os.Stat(in.Source.Path); err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		paths = append(paths, in.Source.Path)
	}
	return outpath.Check(job.output(paths))
}

// output is Out as package outpath checks it: a folder that is never an
// input, never inside one and never holds one, and replaces an existing
// folder only when it is empty or with Force (an earlier clean release is
// not replaced without Force either).
func (job *Job) output(inputs []string) outpath.Output {
	return outpath.Output{Flag: "--out", Path: job.Out, Dir: true, Inputs: inputs, Force: job.Force}
}

// Run cleans the release and writes Out.
func Run(ctx context.Context, job Job) (*Result, error) {
	if err := job.check(); err != nil {
		return nil, err
	}
	logf := job.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	res := &Result{Tool: job.Tool, Images: job.Images, Within: job.Within, WithinLabels: job.WithinLabels, Removed: []Removed{}}
	for _, l := range job.Levels {
		res.Levels = append(res.Levels, l.Name)
	}
	if job.Images {
		res.MaxDistance = job.MaxDistance
	}
	if job.Near > 0 {
		res.Near, res.NearMin = job.Near, job.nearMin()
	}
	digests := map[string]string{} // content digest → against name
	sizes := map[int64]bool{}      // the against files' sizes
	for _, in := range job.Against {
		fp, err := checksum.Of(in.Source.Path)
		if err != nil {
			return nil, fmt.Errorf("against %s: %w", in.Name, err)
		}
		res.Inputs = append(res.Inputs, checksum.Input{Role: "against", Name: in.Name, File: fp})
		digests[fp.SHA256] = in.Name
		sizes[fp.Size] = true
	}
	// A release's checksum tells whether it is an against input (Self)
	// before it is matched, unless it is a file of a size no against
	// file has: that one's is computed while the releases are matched
	// and written.
	relDigest := make([]string, len(job.Releases))
	relFP := make([]checksum.File, len(job.Releases))
	relErr := make([]error, len(job.Releases))
	var sums sync.WaitGroup
	for i, in := range job.Releases {
		if fi, err := os.Stat(in.Source.Path); err == nil && fi.Mode().IsRegular() && !sizes[fi.Size()] {
			sums.Add(1)
			go func() {
				defer sums.Done()
				relFP[i], relErr[i] = checksum.Of(in.Source.Path)
			}()
			continue
		}
		relFP[i], relErr[i] = checksum.Of(in.Source.Path)
		if relErr[i] != nil {
			sums.Wait()
			return nil, fmt.Errorf("release %s: %w", in.Name, relErr[i])
		}
		relDigest[i] = relFP[i].SHA256
	}
	defer sums.Wait()
	ag, err := loadAgainst(ctx, &job, logf)
	if err != nil {
		return nil, err
	}
	res.Against = ag.summaries
	if ag.near != nil {
		c := ag.near.self()
		res.NearSelf = &c
	}
	for _, s := range ag.summaries {
		if s.Stats.Format != "" || s.Stats.Empty {
			res.Check("against "+s.Name, s.Path, s.Stats)
		}
		if s.ImageStats != nil {
			res.Check("against "+s.Name+" images", s.Path, *s.ImageStats)
		}
	}

	res.Releases = make([]ReleaseSummary, len(job.Releases))
	removed := make([]map[int64]*Removed, len(job.Releases))
	var seen *withinSet
	if job.Within {
		seen = newWithinSet(len(job.Levels))
		seen.labels = job.WithinLabels
	}
	// A split whose removals are all decided as its scan delivers them is
	// written during the scan (streamed); the others after.
	tmp, err := os.MkdirTemp(filepath.Dir(realPath(job.Out)), "."+filepath.Base(job.Out)+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	streamed := make([]*streamed, len(job.Releases))
	for i, in := range job.Releases {
		sum := &res.Releases[i]
		*sum = ReleaseSummary{Name: in.Name, Path: in.Source.Path, ByReason: map[Reason]int64{}, Output: in.Name}
		if self, ok := digests[relDigest[i]]; ok {
			sum.Self = self
		}
		logf("release %s: matching %s", in.Name, in.Source.Path)
		var rm map[int64]*Removed
		var err error
		if imageOnly(in.Source) {
			rm, err = matchImageRelease(ctx, &job, in, sum, ag, seen)
		} else {
			rm, streamed[i], err = matchRelease(ctx, &job, in, sum, ag, seen, filepath.Join(tmp, in.Name))
		}
		if err != nil {
			return nil, fmt.Errorf("release %s: %w", in.Name, err)
		}
		removed[i] = rm
	}
	if seen != nil {
		res.Repeats = seen.repeats
		for i := range res.Releases {
			res.Releases[i].LabelRepeats = seen.repeatCount[res.Releases[i].Name]
		}
	}
	for _, s := range res.Releases {
		res.Unverified = append(res.Unverified, s.unverified...)
	}
	for i, in := range job.Releases {
		sum := &res.Releases[i]
		rm := removed[i]
		logf("release %s: writing %d of %d items", in.Name, sum.Items-int64(len(rm)), sum.Items)
		keep := newSeqSet(rm).keep
		var n int64
		var err error
		switch {
		case streamed[i] != nil:
			n, err = streamed[i].n, streamed[i].err
		case sum.Format == formatImages:
			n, err = dataset.WriteImageSubset(dataset.ImageSource{Path: in.Source.Path, Limits: job.ImageLimits}, filepath.Join(tmp, in.Name), keep)
		default:
			n, err = dataset.WriteSubset(in.Source, filepath.Join(tmp, in.Name), keep)
		}
		if err != nil {
			return nil, fmt.Errorf("release %s: write: %w", in.Name, err)
		}
		sum.Removed = int64(len(rm))
		sum.Kept = sum.Items - sum.Removed
		if n != sum.Kept {
			return nil, fmt.Errorf("release %s: wrote %d items, expected %d kept of %d (a reader disagreed with itself; nothing was written)", in.Name, n, sum.Kept, sum.Items)
		}
		seqs := make([]int64, 0, len(rm))
		for s := range rm {
			seqs = append(seqs, s)
		}
		sort.Slice(seqs, func(a, b int) bool { return seqs[a] < seqs[b] })
		for _, s := range seqs {
			r := rm[s]
			sum.ByReason[r.Reason]++
			if r.LoneSymbol {
				sum.LoneSymbol++
			}
			if r.Reason == ReasonLabel {
				if sum.ByLevel == nil {
					sum.ByLevel = map[string]int64{}
				}
				sum.ByLevel[r.Level]++
			}
			res.Removed = append(res.Removed, *r)
		}
		if r := releaseShortfall(sum.Stats); r != "" {
			res.Fail("release "+in.Name, in.Source.Path, r)
		}
		if sum.ImageStats != nil {
			if r := releaseShortfall(*sum.ImageStats); r != "" {
				res.Fail("release "+in.Name+" images", in.Source.Path, r)
			}
		}
	}
	// The releases' checksums were computed while they were matched and
	// written.
	sums.Wait()
	for i, in := range job.Releases {
		if relErr[i] != nil {
			return nil, fmt.Errorf("release %s: %w", in.Name, relErr[i])
		}
		fp := relFP[i]
		res.Inputs = append(res.Inputs, checksum.Input{Role: "release", Name: in.Name, File: fp})
	}
	res.Done()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: nothing was written to %s", job.Out)
	}
	if err := writeManifest(tmp, res); err != nil {
		return nil, err
	}
	// Checked again: something may have appeared while cleaning.
	var paths []string
	for _, in := range append(append([]Input{}, job.Releases...), job.Against...) {
		paths = append(paths, in.Source.Path)
	}
	if err := outpath.Check(job.output(paths)); err != nil {
		return nil, fmt.Errorf("not replaced: %w", err)
	}
	if err := outpath.Install(tmp, job.Out); err != nil {
		return nil, err
	}
	if job.Evidence > 0 {
		res.Evidence = collectEvidence(ctx, &job, res.Removed, job.Evidence)
	}
	return res, nil
}

// seqSet is the set of a split's removed seqs, as a bit set: a write asks
// about every seq, and a bit is cheaper to test than a map.
type seqSet []uint64

// newSeqSet returns the set of rm's seqs.
func newSeqSet(rm map[int64]*Removed) seqSet {
	var top int64 = -1
	for seq := range rm {
		top = max(top, seq)
	}
	s := make(seqSet, (top+64)/64)
	for seq := range rm {
		if seq >= 0 {
			s[seq/64] |= 1 << (seq % 64)
		}
	}
	return s
}

// keep says whether seq is not in the set.
func (s seqSet) keep(seq int64) bool {
	return seq < 0 || seq/64 >= int64(len(s)) || s[seq/64]&(1<<(seq%64)) == 0
}

// releaseShortfall is what a release split lost: what makes any input
// partial (dataset.Stats.Shortfall), and, unlike other commands' inputs,
// the records a limit skipped, since they are dropped from the release
// too.
func releaseShortfall(st dataset.Stats) string {
	var parts []string
	if r := st.Shortfall(); r != "" {
		parts = append(parts, r)
	}
	if n, reasons := st.Skips(true); n > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) over a limit removed from the release (%s): raise --max-label-bytes, --max-pixels or --max-image-bytes to keep them", n, reasons))
	}
	return strings.Join(parts, "; ")
}

// matches is the list of "source:id" names for a removed row.
func matchList(all []string) ([]string, int32) {
	if len(all) <= MaxMatches {
		return append([]string{}, all...), 0
	}
	return append([]string{}, all[:MaxMatches]...), int32(len(all) - MaxMatches)
}

// mark records a removal unless the item is already removed for a reason
// of higher precedence.
func mark(rm map[int64]*Removed, r *Removed) {
	if old := rm[r.Seq]; old != nil && old.Reason.rank() <= r.Reason.rank() {
		return
	}
	rm[r.Seq] = r
}

// imageSource says whether a release split carries images, and how.
func hasImages(src dataset.Source, format dataset.Format) (dataset.ImageSource, bool, string) {
	fi, err := os.Stat(src.Path)
	if err != nil {
		return dataset.ImageSource{}, false, err.Error()
	}
	switch {
	case format == dataset.Caption && fi.IsDir():
		if st, err := os.Stat(filepath.Join(src.Path, "img")); err != nil || !st.IsDir() {
			return dataset.ImageSource{}, false, "caption folder without img/"
		}
		return dataset.ImageSource{Path: src.Path}, true, ""
	case format == dataset.Parquet:
		return dataset.ImageSource{Path: src.Path, Field: src.Field}, true, ""
	case format == dataset.InkML:
		return dataset.ImageSource{Path: src.Path}, true, ""
	}
	return dataset.ImageSource{}, false, fmt.Sprintf("a %s file has no images", format)
}

// hashOptions are the neardup defaults: pHash on a stretched canvas.
var hashOptions = imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch}

// probeOptions hash a release's images as queries, with probes.
var probeOptions = imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: true}
