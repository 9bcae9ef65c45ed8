package dedup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/labelcheck"
	"github.com/leakaudit/leakaudit/neardup"
)

// keyedItem is an item's digests, one per level, and, when near matching
// runs, its token sequence (nil when the tokenizer rejects the label) or,
// on the release side, the near matches found for it.
type keyedItem struct {
	digests  []canon.Digest
	tokens   []string
	near     []string // release side: the nearest against items
	nearDist int
}

// keyer computes items' keys on all cores.
type keyer struct {
	levels  []canon.Level
	salt    []byte
	workers int
	tokens  bool // compute token sequences (near matching)
	// query, when set, looks the token sequence up in the worker and
	// keeps only the result.
	query func(tokens []string) ([]string, int)
	// filter, when set, spares the digests of keys no against label has
	// (see keyFilter).
	filter *keyFilter
}

// scan reads src and calls fn for every item in file order with its keys,
// computed on all cores.
func (kr *keyer) scan(ctx context.Context, src dataset.Source, fn func(dataset.Item, keyedItem) error) (dataset.Stats, error) {
	return dataset.ScanMapped(ctx, src, kr.workers, func(it dataset.Item) keyedItem { return kr.keyOf(it.Label) }, fn)
}

// keyOf computes one label's keys.
func (kr *keyer) keyOf(label string) keyedItem {
	if kr.filter != nil {
		return kr.filteredKeyOf(label)
	}
	k := keyedItem{digests: make([]canon.Digest, len(kr.levels))}
	ws, haveWS := "", false
	for i, l := range kr.levels {
		if l.ID == canon.WS && kr.tokens {
			// The tokens start from the ws key: compute it once.
			ws, haveWS = canon.WSKey(label), true
			k.digests[i] = canon.DigestOf(ws, kr.salt)
			continue
		}
		k.digests[i] = l.Digest(label, kr.salt) // a failure's key matches only the same failure
	}
	if kr.tokens && !haveWS {
		ws = canon.WSKey(label)
	}
	switch {
	case kr.tokens && kr.query != nil:
		// The release side keeps only the query's result: the tokens go
		// in a pooled buffer.
		bp := queryBufs.Get().(*[]string)
		toks, ok := canon.AppendWSTokens((*bp)[:0], ws)
		if ok {
			k.near, k.nearDist = kr.query(toks)
		}
		clear(toks)
		*bp = toks[:0]
		queryBufs.Put(bp)
	case kr.tokens:
		if toks, ok := canon.AppendWSTokens(nil, ws); ok {
			k.tokens = slices.Clip(toks)
		}
	}
	return k
}

var queryBufs = sync.Pool{New: func() any { b := make([]string, 0, 256); return &b }}

// withinSet remembers the first release item with each key.
type withinSet struct {
	first []map[canon.Digest]string // per level: key → "release:id"
	// labels removes repeated labels in splits with images too
	// (Job.WithinLabels).
	labels bool
	// kept are the kept images of earlier splits with images, for the
	// image rule across splits.
	kept []keptImage
	// repeats are the kept label repeats, and their count per split.
	repeats     []Repeat
	repeatCount map[string]int64
}

// keptImage is a kept release item's image, as the within rule compares it.
type keptImage struct {
	print    imagehash.Hashes
	name     string // "release:id"
	label    string
	labelled bool  // label is the item's (not an image-only release's)
	seq      int64 // in its split
}

// The within rules a split can be decided by (ReleaseSummary.WithinRule).
const (
	withinImages    = "image copies (label repeats kept and listed)"
	withinBoth      = "image copies and label repeats"
	withinLabels    = "label repeats (no images)"
	withinImageOnly = "image copies (no labels)"
)

func newWithinSet(levels int) *withinSet {
	w := &withinSet{first: make([]map[canon.Digest]string, levels), repeatCount: map[string]int64{}}
	for i := range w.first {
		w.first[i] = map[canon.Digest]string{}
	}
	return w
}

// streamed is what writing a release split during its scan did: the
// records written and the first error.
type streamed struct {
	n   int64
	err error
}

// matchRelease streams one release split and returns its removals by seq.
// When every removal is decided as the scan delivers its item (a stream
// file: no caption folder, no image rule), the split is written to the
// folder out during the scan too, and the result says how that went.
func matchRelease(ctx context.Context, job *Job, in Input, sum *ReleaseSummary, ag *againstSet, seen *withinSet, out string) (map[int64]*Removed, *streamed, error) {
	rm := map[int64]*Removed{}
	src := in.Source
	src.OnSkip = func(k dataset.Skip) {
		mark(rm, &Removed{Release: in.Name, ID: k.ID, Seq: k.Seq, Reason: ReasonUnreadable, Matches: []string{}, Detail: k.Reason + " (" + k.Where + ")"})
	}
	format := src.Format
	if format == "" {
		f, err := dataset.Detect(src.Path)
		if err != nil && !errors.Is(err, dataset.ErrEmptyInput) {
			return nil, nil, err
		}
		// An empty input is read (and reported) as empty.
		format = f
		src.Format = f
	}
	imgSrc, withImages, note := hasImages(src, format)
	useImages := job.Images && ag.match != nil
	// Inside a release with images, a duplicate is a copied image.
	withinImg := seen != nil && withImages
	switch {
	case withinImg && seen.labels:
		sum.WithinRule = withinBoth
	case withinImg:
		sum.WithinRule = withinImages
	case seen != nil:
		sum.WithinRule = withinLabels
	}
	if job.Images && !withImages {
		sum.ImagesNote = note
	}
	if job.Images && withImages && ag.match == nil {
		sum.ImagesNote = "no against images to compare with"
	}
	selfSrc := int32(-1)
	for i, n := range ag.names {
		if n == sum.Self {
			selfSrc = int32(i)
		}
	}
	// Images first, so that an item removed for its image never stands
	// as the first copy of a duplicate. Caption folders join images to
	// records by id, the others by position.
	var imgRm map[imageKey]*Removed
	var prints map[imageKey]imagehash.Hashes
	var lone map[imageKey]*Unverified
	if (useImages || withinImg) && withImages {
		imgSrc.Limits = job.ImageLimits
		ri, err := matchImages(ctx, job, in.Name, imgSrc, format == dataset.Caption, sum, ag, selfSrc, useImages, withinImg)
		if err != nil {
			return nil, nil, err
		}
		imgRm, prints, lone = ri.removed, ri.prints, ri.lone
	}
	var loneItems []Unverified // the records of lone's images, listed if kept
	if job.Progress != nil {
		job.Progress.Start("release "+in.Name, -1)
		defer job.Progress.Done()
	}
	kr := &keyer{levels: ag.levels, salt: job.Salt, workers: job.Workers, tokens: ag.near != nil}
	if ag.filter != nil && seen == nil && ag.near == nil && !filterOff {
		kr.filter = ag.filter
	}
	if ag.near != nil {
		kr.query = func(t []string) ([]string, int) { return ag.near.query(t, selfSrc) }
	}
	// Lines of a caption folder that share an id share its image.
	var byID map[string][]int64
	var pending []pendingItem // caption folders and the image rule: the within check, after the scan
	if format == dataset.Caption {
		byID = map[string][]int64{}
	}
	deferWithin := byID != nil || withinImg
	var sw *dataset.StreamWriter
	var wrote *streamed
	if !deferWithin && imgRm == nil {
		w, ok, err := dataset.NewStreamWriter(src, out)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			sw, wrote = w, &streamed{}
		}
	}
	st, err := kr.scan(ctx, src, func(it dataset.Item, k keyedItem) error {
		if job.Progress != nil {
			job.Progress.Add(1)
		}
		gone := false // the item is removed (rm has it)
		if byID != nil {
			byID[it.ID] = append(byID[it.ID], it.Seq)
		}
		if imgRm != nil {
			key := imageKey{seq: it.Seq}
			if format == dataset.Caption {
				key = imageKey{id: it.ID, byID: true}
			}
			if r := imgRm[key]; r != nil {
				c := *r
				c.ID, c.Seq = it.ID, it.Seq
				mark(rm, &c)
				gone = true
			}
			if u := lone[key]; u != nil {
				c := *u
				c.ID, c.Seq = it.ID, it.Seq
				loneItems = append(loneItems, c)
			}
		}
		for li, d := range k.digests {
			var names []string
			for _, e := range ag.keys[li][d] {
				if e.src != selfSrc {
					names = append(names, e.name)
				}
			}
			if len(names) > 0 {
				m, more := matchList(names)
				mark(rm, &Removed{Release: in.Name, ID: it.ID, Seq: it.Seq, Reason: ReasonLabel, Level: ag.levels[li].Name, Matches: m, MoreMatches: more})
				gone = true
				break
			}
		}
		if len(k.near) > 0 && !gone {
			if names, dist := k.near, k.nearDist; len(names) > 0 {
				m, more := matchList(names)
				d := int32(dist)
				mark(rm, &Removed{Release: in.Name, ID: it.ID, Seq: it.Seq, Reason: ReasonNear, Level: "tokens", Distance: &d, Matches: m, MoreMatches: more})
				gone = true
			}
		}
		// Only a surviving item is the first copy of its keys: a copy
		// removed for another reason must not take its duplicates with it.
		// In a caption folder a line may still go with another line of its
		// id (removeSharedImages), so its duplicates are decided after.
		if seen != nil && !gone {
			if deferWithin {
				p := pendingItem{seq: it.Seq, id: it.ID, digests: slices.Clone(k.digests)}
				if withinImg {
					p.label = it.Label
				}
				pending = append(pending, p)
			} else {
				seen.check(rm, in.Name, it.ID, it.Seq, k.digests, ag.levels)
				gone = rm[it.Seq] != nil
			}
		}
		// A write error is reported where the split's write is.
		if sw != nil && !gone && wrote.err == nil {
			wrote.err = sw.Put(it)
		}
		return nil
	})
	if sw != nil {
		if err != nil || wrote.err != nil {
			sw.Abort()
		} else {
			_, wrote.err = sw.Close(st)
		}
		wrote.n = sw.Written()
	}
	sum.Stats = st
	sum.Format = string(format)
	sum.Items = st.Items + st.Skipped
	if err == nil {
		removeSharedImages(rm, byID)
		if withinImg {
			if err := seen.checkImages(ctx, rm, in.Name, pending, prints, format == dataset.Caption, true, job.MaxDistance, ag.levels); err != nil {
				return nil, wrote, err
			}
		} else {
			for _, p := range pending {
				if rm[p.seq] == nil {
					seen.check(rm, in.Name, p.id, p.seq, p.digests, ag.levels)
				}
			}
		}
	}
	sum.setUnverified(rm, loneItems)
	return rm, wrote, err
}

// setUnverified keeps, of the lone symbols with unverified candidates
// only, those rm does not remove, in input order, and counts them.
func (s *ReleaseSummary) setUnverified(rm map[int64]*Removed, items []Unverified) {
	s.unverified = nil
	for _, u := range items {
		if rm[u.Seq] == nil {
			s.unverified = append(s.unverified, u)
		}
	}
	sort.SliceStable(s.unverified, func(a, b int) bool { return s.unverified[a].Seq < s.unverified[b].Seq })
	s.LoneUnverified = int64(len(s.unverified))
}

// checkImages is the within rule of a split with images, after its scan:
// in input order, a surviving item whose image is a verified copy of a
// kept item's (of this split or an earlier one, found as neardup finds a
// copy: neardup.Matcher) goes; a kept item whose label repeats a kept
// item's is listed as a repeat, and goes only with WithinLabels.
func (w *withinSet) checkImages(ctx context.Context, rm map[int64]*Removed, release string, pending []pendingItem, prints map[imageKey]imagehash.Hashes, byID, labelled bool, radius int, levels []canon.Level) error {
	keyOf := func(p pendingItem) imageKey {
		if byID {
			return imageKey{id: p.id, byID: true}
		}
		return imageKey{seq: p.seq}
	}
	// This split's images, then the earlier splits' kept ones; one of
	// this split counts only once its item is kept (earlier in input
	// order).
	var keys []imageKey
	var all []imagehash.Hashes
	for _, p := range pending {
		k := keyOf(p)
		if fp, ok := prints[k]; ok && !fp.Blank {
			keys = append(keys, k)
			all = append(all, fp)
		}
	}
	here := len(all)
	for _, k := range w.kept {
		all = append(all, k.print)
	}
	matcher, err := neardup.NewMatcher(ctx, len(all), func(i int) *imagehash.Hashes { return &all[i] }, true)
	if err != nil {
		return err
	}
	kept := map[imageKey]*keptImage{}
	var keptHere []keptImage
	for _, p := range pending {
		if rm[p.seq] != nil {
			continue
		}
		k := keyOf(p)
		fp, hasImage := prints[k]
		if hasImage && !fp.Blank {
			var best *keptImage
			bestFine := -1
			consider := func(c *keptImage, fine int) {
				if best == nil || fine < bestFine || fine == bestFine && c.seq < best.seq {
					best, bestFine = c, fine
				}
			}
			if c := kept[k]; c != nil {
				consider(c, 0) // another line of the same image
			}
			candidate := func(pos int) *keptImage {
				if pos < here {
					return kept[keys[pos]] // nil until its item is kept
				}
				return &w.kept[pos-here]
			}
			for _, m := range matcher.Search(fp, radius, false, func(pos int) bool {
				return pos < here && (keys[pos] == k || kept[keys[pos]] == nil)
			}) {
				c, fine := candidate(m.Pos), m.Fine
				if c.print.Digest == fp.Digest {
					fine = 0
				}
				consider(c, fine)
			}
			if best != nil {
				detail := fmt.Sprintf("its image is a verified copy of %s's (fine distance %d)", best.name, bestFine)
				if best.print.Digest == fp.Digest {
					detail = fmt.Sprintf("its image is %s's (identical normalized pixels)", best.name)
				}
				if labelled && best.labelled {
					detail += "; labels: " + labelcheck.Compare(p.label, best.label).Reason()
				}
				lone := fp.Parts == 1 && best.print.Digest != fp.Digest
				mark(rm, &Removed{Release: release, ID: p.id, Seq: p.seq, Reason: ReasonWithin, Level: "image", Matches: []string{best.name}, Detail: detail, LoneSymbol: lone})
				continue
			}
		}
		// Kept: a repeated label is another sample of the formula.
		name := release + ":" + p.id
		for li, d := range p.digests {
			first, ok := w.first[li][d]
			if !ok {
				continue
			}
			if w.labels {
				mark(rm, &Removed{Release: release, ID: p.id, Seq: p.seq, Reason: ReasonWithin, Level: levels[li].Name, Matches: []string{first}})
			} else {
				w.repeats = append(w.repeats, Repeat{Release: release, ID: p.id, Seq: p.seq, Level: levels[li].Name, First: first})
				w.repeatCount[release]++
			}
			break
		}
		if rm[p.seq] != nil {
			continue
		}
		for li, d := range p.digests {
			if _, ok := w.first[li][d]; !ok {
				w.first[li][d] = name
			}
		}
		if hasImage && !fp.Blank && kept[k] == nil {
			keptHere = append(keptHere, keptImage{print: fp, name: name, label: p.label, labelled: labelled, seq: p.seq})
			kept[k] = &keptHere[len(keptHere)-1]
		}
	}
	w.kept = append(w.kept, keptHere...)
	return nil
}

// pendingItem is a caption folder's line whose within check waits for the
// end of the scan.
type pendingItem struct {
	seq     int64
	id      string
	digests []canon.Digest
	label   string // with the image rule, for its label check
}

// check removes a surviving item that has a key of an earlier surviving
// item, or records it as the first copy of its keys.
func (w *withinSet) check(rm map[int64]*Removed, release, id string, seq int64, digests []canon.Digest, levels []canon.Level) {
	for li, d := range digests {
		if first, ok := w.first[li][d]; ok {
			mark(rm, &Removed{Release: release, ID: id, Seq: seq, Reason: ReasonWithin, Level: levels[li].Name, Matches: []string{first}})
			return
		}
	}
	name := release + ":" + id
	for li, d := range digests {
		w.first[li][d] = name
	}
}

// removeSharedImages removes, with a line of a caption folder removed as a
// leak (label, image or near), every other line with its id: they share
// one image, which would otherwise stay in the release with the kept line.
// A line removed only as unreadable or within leaves the others (and the
// image) in place.
func removeSharedImages(rm map[int64]*Removed, byID map[string][]int64) {
	for id, seqs := range byID {
		if len(seqs) < 2 {
			continue
		}
		var leak *Removed
		for _, s := range seqs {
			if r := rm[s]; r != nil && isLeak(r.Reason) && (leak == nil || r.Reason.rank() < leak.Reason.rank()) {
				leak = r
			}
		}
		if leak == nil {
			continue
		}
		for _, s := range seqs {
			if r := rm[s]; r != nil && isLeak(r.Reason) {
				continue
			}
			c := *leak
			c.ID, c.Seq = id, s
			c.Detail = fmt.Sprintf("shares id %s, and so its image, with seq %d, removed for %s", id, leak.Seq, leak.Reason)
			mark(rm, &c)
		}
	}
}

// isLeak says whether a reason is a match with the against sets.
func isLeak(r Reason) bool { return r == ReasonLabel || r == ReasonImage || r == ReasonNear }

// imageKey joins an image to its record: by id in a caption folder, by
// position otherwise.
type imageKey struct {
	seq  int64
	id   string
	byID bool
}

// matchImages hashes a release split's images and returns the removals
// they decide (image copies, images that cannot be read), by imageKey.
//
// With against, the split's images are compared with the against images;
// with keep, every image's fingerprint is returned too, for the within
// rule.
func matchImages(ctx context.Context, job *Job, release string, src dataset.ImageSource, byID bool, sum *ReleaseSummary, ag *againstSet, selfSrc int32, against, keep bool) (*releaseImages, error) {
	out := map[imageKey]*Removed{}
	lone := map[imageKey]*Unverified{}
	var prints map[imageKey]imagehash.Hashes
	if keep {
		prints = map[imageKey]imagehash.Hashes{}
	}
	keyOf := func(seq int64, id string) imageKey {
		if byID {
			return imageKey{id: id, byID: true}
		}
		return imageKey{seq: seq}
	}
	put := func(k imageKey, r *Removed) {
		if old := out[k]; old == nil || r.Reason.rank() < old.Reason.rank() {
			out[k] = r
		}
	}
	// Images the scan skips and images that cannot be decoded alike.
	src.OnSkip = func(k dataset.Skip) {
		if strings.HasPrefix(k.Where, "caption.txt ") {
			return // a caption record, counted by the label scan
		}
		put(keyOf(k.Seq, k.ID), &Removed{Release: release, Reason: ReasonUnreadable, Matches: []string{}, Detail: k.Reason + " (" + k.Where + ")"})
	}
	st, _, err := imagehash.Scan(ctx, src, probeOptions, job.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
		sum.Images++
		if keep {
			if _, dup := prints[keyOf(it.Seq, it.ID)]; !dup {
				prints[keyOf(it.Seq, it.ID)] = fp
			}
		}
		if fp.Blank || !against {
			return nil
		}
		if r := ag.imageRemoval(fp, job.MaxDistance, selfSrc); r != nil {
			r.Release = release
			put(keyOf(it.Seq, it.ID), r)
		} else if u := ag.loneUnverified(fp, job.MaxDistance, selfSrc); u != nil {
			u.Release = release
			lone[keyOf(it.Seq, it.ID)] = u
		}
		return nil
	})
	sum.ImageStats = &st
	return &releaseImages{out, prints, lone}, err
}

// releaseImages is what matchImages found in a split's images, by
// imageKey: the removals they decide, every image's fingerprint (for the
// within rule; nil without it), and the images that are lone symbols with
// unverified candidates only (againstSet.loneUnverified; their records'
// ids and seqs not set).
type releaseImages struct {
	removed map[imageKey]*Removed
	prints  map[imageKey]imagehash.Hashes
	lone    map[imageKey]*Unverified
}

// formatImages is the format reported for an image-only release.
const formatImages = "images"

// imageOnly says whether a release is an image folder (without
// caption.txt) or a zip or tar archive of images: a source with images and
// no labels.
func imageOnly(src dataset.Source) bool {
	if src.Format != "" {
		return false
	}
	if isArchive(src.Path) {
		return true
	}
	fi, err := os.Stat(src.Path)
	if err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(src.Path, "caption.txt")); !os.IsNotExist(err) {
		return false
	}
	_, err = dataset.Detect(src.Path)
	return err != nil // not an InkML folder
}

// isArchive says whether a path names a zip or tar archive.
func isArchive(p string) bool {
	lower := strings.ToLower(p)
	for _, ext := range []string{".zip", ".tar", ".tar.gz", ".tgz"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// matchImageRelease matches an image-only release: by verified image copy
// against the against images and, with Within, by verified image copy
// inside the release (checkImages, after the scan; the first copy in input
// order stays).
func matchImageRelease(ctx context.Context, job *Job, in Input, sum *ReleaseSummary, ag *againstSet, seen *withinSet) (map[int64]*Removed, error) {
	sum.Format = formatImages
	if !job.Images {
		return nil, setting.Errorf("%s holds images and no labels: give %s to compare them", in.Source.Path, setting.Images)
	}
	if ag.match == nil && seen == nil {
		return nil, fmt.Errorf("%s holds images and no labels, and no against input gives images", in.Source.Path)
	}
	selfSrc := int32(-1)
	for i, n := range ag.names {
		if n == sum.Self {
			selfSrc = int32(i)
		}
	}
	rm := map[int64]*Removed{}
	var pending []pendingItem
	var loneItems []Unverified // lone symbols with unverified candidates only, listed if kept
	var prints map[imageKey]imagehash.Hashes
	if seen != nil {
		sum.WithinRule = withinImageOnly
		prints = map[imageKey]imagehash.Hashes{}
	}
	src := dataset.ImageSource{Path: in.Source.Path, Limits: job.ImageLimits}
	src.OnSkip = func(k dataset.Skip) {
		mark(rm, &Removed{Release: in.Name, ID: k.ID, Seq: k.Seq, Reason: ReasonUnreadable, Matches: []string{}, Detail: k.Reason + " (" + k.Where + ")"})
	}
	st, _, err := imagehash.Scan(ctx, src, probeOptions, job.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
		sum.Images++
		if !filepath.IsLocal(filepath.FromSlash(it.Name)) {
			mark(rm, &Removed{Release: in.Name, ID: it.ID, Seq: it.Seq, Reason: ReasonUnreadable, Matches: []string{}, Detail: "entry name leaves the archive's root (" + it.Where + ")"})
			return nil
		}
		if fp.Blank {
			return nil
		}
		if ag.match != nil {
			if r := ag.imageRemoval(fp, job.MaxDistance, selfSrc); r != nil {
				r.Release, r.ID, r.Seq = in.Name, it.ID, it.Seq
				mark(rm, r)
				return nil
			}
			if u := ag.loneUnverified(fp, job.MaxDistance, selfSrc); u != nil {
				u.Release, u.ID, u.Seq = in.Name, it.ID, it.Seq
				loneItems = append(loneItems, *u)
			}
		}
		if seen != nil {
			pending = append(pending, pendingItem{seq: it.Seq, id: it.ID})
			prints[imageKey{seq: it.Seq}] = fp
		}
		return nil
	})
	sum.Stats = st
	sum.Items = st.Items + st.Skipped
	if err == nil && seen != nil {
		sort.Slice(pending, func(a, b int) bool { return pending[a].seq < pending[b].seq })
		err = seen.checkImages(ctx, rm, in.Name, pending, prints, false, false, job.MaxDistance, nil)
	}
	sum.setUnverified(rm, loneItems)
	return rm, err
}

// loneUnverified returns, when fp is a lone symbol whose against images
// within the radius (not from source skip) are none of them verified
// (neardup.Matcher.LoneUnverified), those images (release, id and seq
// left to the caller), or nil.
func (ag *againstSet) loneUnverified(fp imagehash.Hashes, radius int, skip int32) *Unverified {
	names, best, _ := ag.matchNames(ag.match.LoneUnverified(fp, radius, ag.skipSource(skip)), fp)
	if len(names) == 0 {
		return nil
	}
	c, more := matchList(names)
	return &Unverified{Distance: int32(best), Candidates: c, MoreCandidates: more}
}

// skipSource is the Matcher's skip function for the against images of
// source skip.
func (ag *againstSet) skipSource(skip int32) func(pos int) bool {
	return func(pos int) bool { return ag.owners[pos].src == skip }
}

// matchNames returns the names of the against images matched, sorted, their
// smallest pHash distance, and whether one has fp's pixels.
func (ag *againstSet) matchNames(found []neardup.Match, fp imagehash.Hashes) (names []string, best int, identical bool) {
	best = -1
	for _, m := range found {
		names = append(names, ag.owners[m.Pos].name)
		identical = identical || ag.prints[m.Pos].Digest == fp.Digest
		if best < 0 || m.Distance < best {
			best = m.Distance
		}
	}
	sortNames(names)
	return names, best, identical
}

// imageRemoval is fp's removal as an image copy (ReasonImage; its
// release, id and seq left to the caller), or nil: the against images that
// are verified copies of fp (not from source skip), as neardup finds them
// (neardup.Matcher), sorted, at the smallest pHash distance, marked a lone
// symbol when fp is one piece of ink and none of them has its pixels.
func (ag *againstSet) imageRemoval(fp imagehash.Hashes, radius int, skip int32) *Removed {
	names, best, identical := ag.matchNames(ag.match.Search(fp, radius, false, ag.skipSource(skip)), fp)
	if len(names) == 0 {
		return nil
	}
	m, more := matchList(names)
	d := int32(best)
	return &Removed{Reason: ReasonImage, Distance: &d, Matches: m, MoreMatches: more, LoneSymbol: fp.Parts == 1 && !identical}
}
