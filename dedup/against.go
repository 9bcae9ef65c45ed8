package dedup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/neardup"
)

// An entry is one against item a release item can match.
type entry struct {
	src  int32  // index into Job.Against
	name string // "source:id"
}

// againstSet is everything the release must not contain.
type againstSet struct {
	levels []canon.Level
	keys   []map[canon.Digest][]entry // per level
	// images: perceptual hashes of non-blank against images, and the
	// matcher over them (nil when there are none), neardup's.
	prints []imagehash.Hashes
	owners []entry
	match  *neardup.Matcher
	near   *nearSet
	// filter has the keys of every against label (nil once a
	// fingerprint is read: it has no keys).
	filter *keyFilter
	names  []string // against names by index
	// summaries describe each against input.
	summaries []AgainstSummary
}

// imageCapable says whether a path can be read as an image source.
func imageCapable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	lower := strings.ToLower(path)
	if fi.IsDir() {
		return true // caption folder with img/, image folder or InkML folder
	}
	for _, ext := range []string{".zip", ".tar", ".tar.gz", ".tgz", ".parquet", ".inkml", ".png", ".bmp", ".jpg", ".jpeg"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// loadAgainst reads every against input into memory.
func loadAgainst(ctx context.Context, job *Job, logf func(string, ...any)) (*againstSet, error) {
	ag := &againstSet{levels: job.Levels, keys: make([]map[canon.Digest][]entry, len(job.Levels)), filter: newKeyFilter(len(job.Levels))}
	for i := range ag.keys {
		ag.keys[i] = map[canon.Digest][]entry{}
	}
	if job.Near > 0 {
		ag.near = newNearSet(job.Near, job.nearMin())
	}
	for ai, in := range job.Against {
		ag.names = append(ag.names, in.Name)
		sum := AgainstSummary{Name: in.Name, Path: in.Source.Path}
		logf("against %s: reading %s", in.Name, in.Source.Path)
		var kinds []string
		if fingerprint.Is(in.Source.Path) {
			if err := ag.addFingerprint(int32(ai), in, job, &sum); err != nil {
				return nil, fmt.Errorf("against %s: %w", in.Name, err)
			}
			kinds = append(kinds, "fingerprint")
			if job.Images {
				if err := ag.addImageFingerprint(int32(ai), in, &sum); err != nil {
					sum.Note = joinNote(sum.Note, "images not compared: "+err.Error())
				} else {
					kinds = append(kinds, "images")
				}
			}
		} else if _, err := dataset.Detect(in.Source.Path); !isArchive(in.Source.Path) && (err == nil || in.Source.Format != "" || errors.Is(err, dataset.ErrEmptyInput)) {
			if err := ag.addLabels(ctx, int32(ai), in, job, &sum); err != nil {
				return nil, fmt.Errorf("against %s: %w", in.Name, err)
			}
			kinds = append(kinds, "labels")
		}
		if job.Images && imageCapable(in.Source.Path) && !fingerprint.Is(in.Source.Path) {
			err := ag.addImages(ctx, int32(ai), in, job, &sum)
			switch {
			case err != nil && len(kinds) == 0:
				return nil, fmt.Errorf("against %s: %w", in.Name, err)
			case err != nil:
				sum.Note = "no images: " + err.Error()
			default:
				kinds = append(kinds, "images")
			}
		}
		if len(kinds) == 0 {
			return nil, setting.Errorf("against %s: %s gives neither labels nor (with %s) images to compare with", in.Name, in.Source.Path, setting.Images)
		}
		sum.Kind = strings.Join(kinds, "+")
		ag.summaries = append(ag.summaries, sum)
	}
	if len(ag.prints) > 0 {
		m, err := neardup.NewMatcher(ctx, len(ag.prints), func(i int) *imagehash.Hashes { return &ag.prints[i] }, true)
		if err != nil {
			return nil, err
		}
		ag.match = m
	}
	return ag, nil
}

// addLabels canonicalizes a label source's items at every level.
func (ag *againstSet) addLabels(ctx context.Context, ai int32, in Input, job *Job, sum *AgainstSummary) error {
	kr := &keyer{levels: job.Levels, salt: job.Salt, workers: job.Workers, tokens: ag.near != nil}
	st, err := kr.scan(ctx, in.Source, func(it dataset.Item, k keyedItem) error {
		e := entry{src: ai, name: in.Name + ":" + it.ID}
		for li, d := range k.digests {
			ag.keys[li][d] = append(ag.keys[li][d], e)
		}
		if ag.near != nil {
			ag.near.add(k.tokens, e)
		}
		if ag.filter != nil {
			ag.filter.addLabel(ag.levels, it.Label)
		}
		sum.Labels++
		return nil
	})
	sum.Stats = st
	return err
}

// addFingerprint takes the digests of a fingerprint made under the same
// rules (and salt).
func (ag *againstSet) addFingerprint(ai int32, in Input, job *Job, sum *AgainstSummary) error {
	meta, err := fingerprint.Open(in.Source.Path)
	if err != nil {
		return err
	}
	if err := meta.Check(job.Levels, job.Salt); err != nil {
		return err
	}
	if job.Near > 0 {
		sum.Note = "a fingerprint has no token sequences: near matching skipped for it"
	}
	ag.filter = nil // its digests have no keys to filter by
	st, err := fingerprint.ScanKeys(in.Source.Path, canon.IDs(job.Levels), func(k *fingerprint.KeyRow) error {
		name := in.Name + ":" + k.ID
		if k.Corpus != "" && k.Corpus != in.Name {
			name = in.Name + "/" + k.Corpus + ":" + k.ID
		}
		e := entry{src: ai, name: name}
		for li := range job.Levels {
			if k.Has[li] {
				ag.keys[li][k.Keys[li]] = append(ag.keys[li][k.Keys[li]], e)
			}
		}
		sum.Labels++
		return nil
	})
	sum.Stats = st
	return err
}

// addImageFingerprint takes the image hashes of an image fingerprint
// (fingerprint --images) made with the settings and the imagehash version
// dedup hashes with; the rows without image hashes are counted in
// sum.ImageStats as skipped.
func (ag *againstSet) addImageFingerprint(ai int32, in Input, sum *AgainstSummary) error {
	set, err := index.LoadImageFingerprint(in.Source.Path, hashOptions)
	if err != nil {
		return err
	}
	for _, rec := range set.Records {
		if rec.Print.Blank {
			continue
		}
		name := in.Name + ":" + rec.ID
		if rec.Corpus != "" && rec.Corpus != in.Name {
			name = in.Name + "/" + rec.Corpus + ":" + rec.ID
		}
		ag.prints = append(ag.prints, rec.Print)
		ag.owners = append(ag.owners, entry{src: ai, name: name})
		sum.Images++
	}
	sum.ImageStats = &set.Stats
	return nil
}

// joinNote adds a note to an against input's notes.
func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}

// addImages hashes an image source.
func (ag *againstSet) addImages(ctx context.Context, ai int32, in Input, job *Job, sum *AgainstSummary) error {
	src := dataset.ImageSource{Path: in.Source.Path, Limits: job.ImageLimits, Field: in.Source.Field}
	st, _, err := imagehash.Scan(ctx, src, hashOptions, job.Workers, nil, func(it dataset.ImageItem, fp imagehash.Hashes) error {
		if fp.Blank {
			return nil
		}
		ag.prints = append(ag.prints, fp)
		ag.owners = append(ag.owners, entry{src: ai, name: in.Name + ":" + it.ID})
		sum.Images++
		return nil
	})
	if err != nil {
		return err
	}
	sum.ImageStats = &st
	return nil
}
