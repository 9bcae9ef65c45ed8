package dedup

import (
	"context"
	"image"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/labelcheck"
)

// EvidenceSide is one item of a removal's evidence: its name, label and
// image, as far as its input has them.
type EvidenceSide struct {
	Name     string // "source:id"
	Label    string
	HasLabel bool
	Image    image.Image // nil when the input has no image for it
}

// Evidence is a removed item beside the first item it matched, for the
// report page: both images, both labels and how the labels compare.
type Evidence struct {
	Removed Removed
	Item    EvidenceSide
	Match   EvidenceSide
	// Check compares the two labels (nil when a side has none).
	Check *labelcheck.Result
}

// collectEvidence reads again the inputs that hold the first max removed
// items (taken in turn from each reason, so that every reason is shown)
// and what each matched, and returns them with their labels and images.
// An item its input no longer yields is shown without them.
func collectEvidence(ctx context.Context, job *Job, removed []Removed, max int) []Evidence {
	var picked []Removed
	byReason := map[Reason][]Removed{}
	for _, r := range removed {
		if r.Reason != ReasonUnreadable && len(r.Matches) > 0 {
			byReason[r.Reason] = append(byReason[r.Reason], r)
		}
	}
	for n := 0; len(picked) < max; n++ {
		added := false
		for _, reason := range Reasons {
			if rs := byReason[reason]; n < len(rs) && len(picked) < max {
				picked = append(picked, rs[n])
				added = true
			}
		}
		if !added {
			break
		}
	}
	if len(picked) == 0 {
		return nil
	}
	want := map[string]map[string]*EvidenceSide{} // source → id → side
	need := func(source, id string) *EvidenceSide {
		if want[source] == nil {
			want[source] = map[string]*EvidenceSide{}
		}
		if want[source][id] == nil {
			want[source][id] = &EvidenceSide{Name: source + ":" + id}
		}
		return want[source][id]
	}
	type pair struct{ item, match *EvidenceSide }
	pairs := make([]pair, len(picked))
	for i, r := range picked {
		src, id, _ := strings.Cut(r.Matches[0], ":")
		pairs[i] = pair{need(r.Release, r.ID), need(src, id)}
	}
	inputs := map[string]Input{}
	for _, in := range job.Against {
		inputs[in.Name] = in
	}
	for _, in := range job.Releases { // a release name shadows an against name in within matches
		inputs[in.Name] = in
	}
	for source, ids := range want {
		in, ok := inputs[source]
		if !ok || fingerprint.Is(in.Source.Path) || ctx.Err() != nil {
			continue
		}
		if imageCapable(in.Source.Path) {
			dataset.ScanImages(dataset.ImageSource{Path: in.Source.Path, Field: in.Source.Field, Limits: job.ImageLimits}, func(it dataset.ImageItem) error {
				s := ids[it.ID]
				if s == nil || s.Image != nil {
					return nil
				}
				if img, err := it.Decode(job.ImageLimits); err == nil {
					s.Image = img
				}
				if it.HasLabel && !s.HasLabel {
					s.Label, s.HasLabel = it.Label, true
				}
				return ctx.Err()
			})
		}
		missing := false
		for _, s := range ids {
			missing = missing || !s.HasLabel
		}
		if missing && !isArchive(in.Source.Path) {
			dataset.Scan(in.Source, func(it dataset.Item) error {
				if s := ids[it.ID]; s != nil && !s.HasLabel {
					s.Label, s.HasLabel = it.Label, true
				}
				return ctx.Err()
			})
		}
	}
	out := make([]Evidence, len(picked))
	for i, r := range picked {
		e := Evidence{Removed: r, Item: *pairs[i].item, Match: *pairs[i].match}
		if e.Item.HasLabel && e.Match.HasLabel {
			c := labelcheck.Compare(e.Item.Label, e.Match.Label)
			e.Check = &c
		}
		out[i] = e
	}
	return out
}
