package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/neardup"
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
		reportDir     string
		salt          string
		force         bool
		unverified    bool
	)
	cmd := &cobra.Command{
		Use:   "neardup --train [NAME=]PATH... --test [NAME=]PATH... [flags]",
		Short: "Find test images that are near-copies of training images",
		Long: `neardup finds test images that are copies, or near copies, of training images,
whatever their polarity (white ink on black or black on white), scale, margins,
or a mild stretch or noise.

Each image is made dark-on-light, cropped to its ink and fitted to a 64×64
canvas, its ink redrawn with one common pen (so that another rasterizer's pen
width, resolution or anti-aliasing does not hide a copy), then hashed (pHash
by default). A pixel digest of the cropped image marks exact copies. Training
hashes are kept in the index (--db) and searched by multi-index hashing, so a
radius query does not scan them all; a test image is also searched with its
ink box moved by 3% at each side, for ink cut at an edge. Candidates within
--max-distance are reported when a 256-bit difference hash verifies them as
copies (--unverified lists the others too: mostly other writers of one
formula).

A match is evidence of a copied sample, to be read with the labels: a
one-symbol edit moves pHash by about 6 bits. The labels of each pair are
compared by leakaudit's label check, which knows notation: a_n and a _ { n },
\sum_{l} and \sum \limits _ { l }, \left( … \right) and ( … ), $…$ wrappers,
\mathrm{kg} and k g are one formula (label_check names the rung at which they
agree: ws, tokens, render or typeset). Pairs whose labels are different formulas
are flagged (label_mismatch), with their token edit distance and the CDM F1 of
one label rendered against the other: a copy labelled anew, or a label error.
--gallery and --report draw each pair's images as given and as the matcher
normalized them, and both labels typeset.

Image sources: a folder of PNG, BMP or JPEG files; a CROHME split folder
(caption.txt and img/, labels attached by file stem); a zip or tar(.gz)
archive; a Parquet file with an image struct {bytes, path}; InkML files or
folders, whose strokes are rasterized. An image that cannot be read or whose
header declares more than --max-pixels is counted and reported, never fatal.
A training source may be an image fingerprint (fingerprint --images) in
place of the images: the same pairs, verified and marked identical from the
hashes it holds (no gallery images for them); its labels are compared by
their digests at the strongest level it holds (render, tokens, then ws: make
it with --level ws,tokens,render), without the typeset rung or a distance
unless it holds the labels; a salted one needs --salt, to compare labels.`,
		Example: `  # CROHME tests against CROHME train, with side-by-side evidence
  leakaudit neardup --train crohme/train --test 2014=crohme/2014 --gallery pairs/

  # Duplicates inside one split: give it as both train and test
  leakaudit neardup --train t=crohme/train --test t=crohme/train --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(train) == 0 || len(tests) == 0 {
				return usagef("give at least one --train and one --test")
			}
			if err := checkNames(namedArgs{"train", train}, namedArgs{"test", tests}); err != nil {
				return err
			}
			kind, err := imagehash.ParseKind(hash)
			if err != nil {
				return usageError{fmt.Errorf("--hash: %w", err)}
			}
			canv, err := imagehash.ParseCanvas(canvas)
			if err != nil {
				return usagef("--canvas must be stretch or aspect")
			}
			lim := dataset.ImageLimits{MaxPixels: maxPixels, MaxBytes: maxImageBytes, MaxItems: maxEntries}
			job := neardup.Job{MaxDistance: maxDist, Hash: imagehash.Options{Kind: kind, Canvas: canv},
				DB: db, Rebuild: rebuild, Workers: workers, Tool: toolName(), Progress: progress.New(), Salt: []byte(salt), Unverified: unverified,
				Log: stderrLog(cmd)}
			for _, t := range train {
				name, path := splitNamed(t)
				job.Train = append(job.Train, index.ImageCorpusInput{Name: name, Source: dataset.ImageSource{Path: path, Limits: lim}})
			}
			for _, t := range tests {
				name, path := splitNamed(t)
				job.Tests = append(job.Tests, neardup.ImageSplit{Name: name, Source: dataset.ImageSource{Path: path, Limits: lim}})
			}
			if gallery != "" || reportDir != "" {
				job.Evidence = galleryMax
			}
			var inputs []string
			for _, t := range job.Train {
				inputs = append(inputs, t.Source.Path)
			}
			for _, t := range job.Tests {
				inputs = append(inputs, t.Source.Path)
			}
			if err := checkOutputs(
				outpath.Output{Flag: "--gallery", Path: gallery, Dir: true, Inputs: inputs, Force: force, What: "a gallery folder", Previous: galleryNames},
				outpath.Output{Flag: "--report", Path: reportDir, Dir: true, Inputs: inputs, Force: force, What: "a report page folder", Previous: pageNames},
			); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			rep, err := neardup.Run(ctx, job)
			if err != nil {
				return err
			}
			if gallery != "" {
				n, err := report.WriteNearDupGallery(gallery, rep)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "gallery: %d pairs in %s\n", n, gallery)
			}
			if reportDir != "" {
				p, err := report.NearDupPage(rep)
				if err == nil {
					err = p.Write(reportDir)
				}
				if err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, rep); err != nil {
					return err
				}
			} else if err := report.NearDupText(out, rep); err != nil {
				return err
			}
			return checkInputs(cmd, rep.Completeness)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&train, "train", nil, "training images, [NAME=]PATH (repeatable)")
	f.StringArrayVar(&tests, "test", nil, "test images, [NAME=]PATH (repeatable)")
	intFlag(f, &maxDist, "max-distance", neardup.DefaultMaxDistance, 0, 64, "largest Hamming distance reported as a near-duplicate")
	f.BoolVar(&asJSON, "json", false, "print pairs and summary as JSON on stdout")
	f.StringVar(&gallery, "gallery", "", "write side-by-side PNG pairs and index.html into DIR")
	intFlag(f, &galleryMax, "gallery-max", 200, 1, math.MaxInt, "pairs drawn in the gallery (and the --report page) at most")
	addForce(cmd, &force)
	f.StringVar(&reportDir, "report", "", "write a self-contained page of the results with the pairs inlined, DIR/index.html")
	f.StringVar(&hash, "hash", string(imagehash.PHash), "perceptual hash: phash, dhash or ahash (ahash is not discriminative on formulas)")
	f.StringVar(&canvas, "canvas", string(imagehash.Stretch), "fit the ink box to the square (stretch) or keep its aspect (aspect)")
	f.StringVar(&db, "db", "", "index folder (default: under the user cache dir, one per training set)")
	f.BoolVar(&rebuild, "rebuild", false, "drop the index and hash the training images again")
	intFlag(f, &workers, "workers", 0, 0, maxWorkers, "hashing goroutines (default: number of CPUs)")
	int64Flag(f, &maxPixels, "max-pixels", dataset.DefaultImageLimits.MaxPixels, 1, math.MaxInt64, "skip images whose header declares more pixels (decompression bombs)")
	int64Flag(f, &maxImageBytes, "max-image-bytes", dataset.DefaultImageLimits.MaxBytes, 1, math.MaxInt64, "skip image files larger than this")
	f.BoolVar(&unverified, "unverified", false, "also report candidate pairs the fine hashes do not verify as copies (mostly other writers of one formula)")
	f.StringVar(&salt, "salt", "", "the salt of salted image fingerprints given as --train (their labels are compared by digest)")
	int64Flag(f, &maxEntries, "max-archive-entries", dataset.DefaultImageLimits.MaxItems, 1, math.MaxInt64, "refuse an archive with more entries (read from its directory record before anything else)")
	return cmd
}
