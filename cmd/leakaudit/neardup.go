package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/report"
)

func newNearDupCmd() *cobra.Command {
	var (
		train, tests  []string
		maxDist       int
		asJSON        bool
		gallery       string
		galleryMax    int
		hash, canvas  string
		db            string
		rebuild       bool
		workers       int
		maxPixels     int64
		maxImageBytes int64
		maxEntries    int64
	)
	cmd := &cobra.Command{
		Use:   "neardup --train [NAME=]PATH... --test [NAME=]PATH... [flags]",
		Short: "Find test images that are near-copies of training images",
		Long: `neardup finds test images that are copies, or near copies, of training images,
whatever their polarity (white ink on black or black on white), scale, margins,
or a mild stretch or noise.

Each image is made dark-on-light, cropped to its ink and fitted to a 64×64
canvas, then hashed (pHash by default). A pixel digest of the normalized image
marks exact copies. Training hashes are kept in the index (--db) and searched
by multi-index hashing, so a radius query does not scan them all.

A match is evidence of a copied sample, to be read with the labels: a
one-symbol edit moves pHash by about 6 bits. Pairs whose labels differ (at the
ws level) are flagged: a label error or a relabelled copy.

Image sources: a folder of PNG, BMP or JPEG files; a CROHME split folder
(caption.txt and img/, labels attached by file stem); a zip or tar(.gz)
archive; a Parquet file with an image struct {bytes, path}; InkML files or
folders, whose strokes are rasterized. An image that cannot be read or whose
header declares more than --max-pixels is counted and reported, never fatal.`,
		Example: `  # CROHME tests against CROHME train, with side-by-side evidence
  leakaudit neardup --train crohme/train --test 2014=crohme/2014 --gallery pairs/

  # Duplicates inside one split: give it as both train and test
  leakaudit neardup --train t=crohme/train --test t=crohme/train --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(train) == 0 || len(tests) == 0 {
				return fmt.Errorf("give at least one --train and one --test")
			}
			kind, err := imagehash.ParseKind(hash)
			if err != nil {
				return err
			}
			if canvas != string(imagehash.Stretch) && canvas != string(imagehash.Aspect) {
				return fmt.Errorf("--canvas must be stretch or aspect")
			}
			lim := dataset.ImageLimits{MaxPixels: maxPixels, MaxBytes: maxImageBytes, MaxItems: maxEntries}
			job := audit.NearDupJob{MaxDistance: maxDist, Hash: imagehash.Options{Kind: kind, Canvas: imagehash.Canvas(canvas)},
				DB: db, Rebuild: rebuild, Workers: workers, Tool: toolName(), Progress: progress.New(),
				Log: func(f string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), f+"\n", a...) }}
			for _, t := range train {
				name, path := splitNamed(t)
				job.Train = append(job.Train, index.ImageCorpusInput{Name: name, Source: dataset.ImageSource{Path: path, Limits: lim}})
			}
			for _, t := range tests {
				name, path := splitNamed(t)
				job.Tests = append(job.Tests, audit.ImageSplit{Name: name, Source: dataset.ImageSource{Path: path, Limits: lim}})
			}
			type kept struct {
				pair  audit.NearDupPair
				test  dataset.ImageItem
				train index.ImageRecord
			}
			var evidence []kept
			if gallery != "" {
				job.Pair = func(p audit.NearDupPair, t dataset.ImageItem, r index.ImageRecord) error {
					if len(evidence) < galleryMax {
						evidence = append(evidence, kept{p, t, r})
					}
					return nil
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rep, err := audit.RunNearDup(ctx, job)
			if err != nil {
				return err
			}
			if gallery != "" {
				want := map[string]map[int64]bool{}
				for _, e := range evidence {
					if want[e.train.Corpus] == nil {
						want[e.train.Corpus] = map[int64]bool{}
					}
					want[e.train.Corpus][e.train.Seq] = true
				}
				imgs, err := audit.TrainImages(job.Train, want)
				if err != nil {
					return err
				}
				var pairs []report.GalleryPair
				for _, e := range evidence {
					ti, err1 := e.test.Decode(lim)
					ri, err2 := imgs[e.train.Corpus][e.train.Seq].Decode(lim)
					if err1 != nil || err2 != nil {
						continue
					}
					g := report.GalleryPair{Test: ti, Train: ri, Caption: []string{
						fmt.Sprintf("test  %s/%s: %s", e.pair.TestSplit, e.pair.TestID, e.pair.TestLabel),
						fmt.Sprintf("train %s/%s: %s", e.pair.TrainSplit, e.pair.TrainID, e.pair.TrainLabel),
						fmt.Sprintf("distance %d, fine %d, verified %v%s", e.pair.Distance, e.pair.FineDistance, e.pair.Verified, map[bool]string{true: ", identical normalized pixels"}[e.pair.Identical]),
					}}
					if e.pair.LabelMismatch {
						g.Flag = "labels differ"
					}
					pairs = append(pairs, g)
				}
				note := fmt.Sprintf("%d of %d pairs shown; test image on the left, training image on the right, uniform resizing only.", len(pairs), len(rep.Pairs))
				if err := report.WriteGallery(gallery, "leakaudit near-duplicates", note, pairs); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "gallery: %d pairs in %s\n", len(pairs), gallery)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := printNearDup(out, rep); err != nil {
				return err
			}
			return checkComplete(cmd, rep.Completeness)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&train, "train", nil, "training images, [NAME=]PATH (repeatable)")
	f.StringArrayVar(&tests, "test", nil, "test images, [NAME=]PATH (repeatable)")
	f.IntVar(&maxDist, "max-distance", audit.DefaultMaxDistance, "largest Hamming distance reported as a near-duplicate")
	f.BoolVar(&asJSON, "json", false, "print pairs and summary as JSON on stdout")
	f.StringVar(&gallery, "gallery", "", "write side-by-side PNG pairs and index.html into DIR")
	f.IntVar(&galleryMax, "gallery-max", 200, "pairs drawn in the gallery at most")
	f.StringVar(&hash, "hash", string(imagehash.PHash), "perceptual hash: phash, dhash or ahash (ahash is not discriminative on formulas)")
	f.StringVar(&canvas, "canvas", string(imagehash.Stretch), "fit the ink box to the square (stretch) or keep its aspect (aspect)")
	f.StringVar(&db, "db", "", "index folder (default: under the user cache dir, one per training set)")
	f.BoolVar(&rebuild, "rebuild", false, "drop the index and hash the training images again")
	f.IntVar(&workers, "workers", 0, "hashing goroutines (default: number of CPUs)")
	f.Int64Var(&maxPixels, "max-pixels", dataset.DefaultImageLimits.MaxPixels, "skip images whose header declares more pixels (decompression bombs)")
	f.Int64Var(&maxImageBytes, "max-image-bytes", dataset.DefaultImageLimits.MaxBytes, "skip image files larger than this")
	f.Int64Var(&maxEntries, "max-archive-entries", dataset.DefaultImageLimits.MaxItems, "refuse an archive with more entries (read from its directory record before anything else)")
	return cmd
}

func printNearDup(w io.Writer, rep audit.NearDupReport) error {
	fmt.Fprintf(w, "Near-duplicates (%s, distance ≤ %d)\n\n", rep.Hash, rep.MaxDistance)
	t := report.Table{Header: []string{"test split", ">items", ">with near-dup", ">verified copy", ">identical", ">labels differ", ">blank", ">skipped"}}
	for _, s := range rep.Summary {
		t.Add(s.TestSplit, fmt.Sprint(s.Items), fmt.Sprint(s.WithNearDuplicate), fmt.Sprint(s.Verified), fmt.Sprint(s.Identical), fmt.Sprint(s.LabelMismatch), fmt.Sprint(s.Blank), fmt.Sprint(s.Skipped))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if len(rep.Pairs) == 0 {
		fmt.Fprintln(w, "\nno pairs")
		return nil
	}
	fmt.Fprintf(w, "\n%d pair(s)", len(rep.Pairs))
	if len(rep.Pairs) > 20 {
		fmt.Fprint(w, "; the first 20 (all in --json)")
	}
	fmt.Fprintln(w, ":")
	p := report.Table{Header: []string{"test", "train", ">dist", ">fine", "verified", "identical", "labels"}}
	for i, x := range rep.Pairs {
		if i == 20 {
			break
		}
		labels := "same"
		if x.LabelMismatch {
			labels = "DIFFER"
		}
		p.Add(x.TestSplit+"/"+x.TestID, x.TrainSplit+"/"+x.TrainID, fmt.Sprint(x.Distance), fmt.Sprint(x.FineDistance), fmt.Sprint(x.Verified), fmt.Sprint(x.Identical), labels)
	}
	return p.Write(w)
}
