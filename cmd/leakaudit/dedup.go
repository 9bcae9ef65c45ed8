package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/dedup"
	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/report"
)

// dedupEvidence is how many removed items the --report page draws beside
// what they matched.
const dedupEvidence = 24

func newDedupCmd() *cobra.Command {
	var (
		in                 inputFlags
		releases, against  []string
		out, levels        string
		salt               string
		images, within     bool
		withinLabels       bool
		force, asJSON      bool
		maxDist, near      int
		nearMin, workers   int
		maxPixels, maxImgB int64
		reportDir          string
	)
	cmd := &cobra.Command{
		Use:   "dedup --release [NAME=]PATH... --against [NAME=]PATH... --out DIR [flags]",
		Short: "Write a release without the items that leak a benchmark",
		Long: `dedup writes a clean release: each --release split rewritten in its own format
without the items found in the --against sets (benchmark test sets: label files,
caption folders with images, image folders, or fingerprints), with a manifest of
what was removed and why.

An item is removed when its label's canonical key at a --level equals an against
item's ("label"), when --images finds a verified copy of its image among the
against images ("image", found and verified as neardup does), when --near K finds an against label within K token
edits ("near", sequences of at least --near-min tokens), or when --within finds
an earlier copy inside the release ("within": the first surviving copy in input
order stays). In a split with images (a caption folder with img/, Parquet
images, InkML, an image folder or archive) a copy is a verified copy of an
image; an item that only repeats
another's label is another writer's sample of the same formula: it is kept and
listed in DIR/repeats.jsonl, unless --within-labels removes label repeats too.
A split without images is deduplicated by label; the summary says which rule
each split had. A release split identical to an against input (a test split shipped
in the release) is never compared with it: its items stay, and the other splits'
copies of them go as label matches. A record the reader cannot use, a record
a limit skips (--max-label-bytes, --max-pixels, --max-image-bytes: it would be
dropped from the release), or whose image cannot be decoded with --images, is
removed as "unreadable" and makes the exit status 3 unless --allow-partial.
Lines of a caption folder with one id share its image: when one goes as a leak
(label, image or near), the others go with it.

DIR/<NAME>/ holds each split in its own format: a caption folder gets
caption.txt (kept lines as they were) and img/ (kept images copied unchanged);
a JSON, JSONL, CSV or TSV file keeps each kept record's bytes; a Parquet file
keeps its schema, metadata and every column; an InkML folder keeps the kept
files. Ids that are positions (JSON string lists, line lists) are renumbered
by the rewrite; removed.jsonl names the original ones. DIR/removed.jsonl and
DIR/removed.parquet list every removed item (release, id, seq, reason, level
or distance, the first 10 matching items); DIR/summary.json and summary.md
count them. With --images, DIR/unverified.jsonl lists the kept items whose
image is a lone symbol with against images within the radius, none verified
as a copy (another writer's sample, or a copy the image cannot tell from one). DIR is built beside its place and renamed into it when complete;
an existing DIR is replaced only when it is an empty folder, or with --force;
a DIR that is an input, or lies inside or holds one, is refused. A link out of
a release (an image, or caption.txt) is refused. Cleaning the cleaned release
again removes nothing.`,
		Example: `  # CROHME train without the CROHME 2014/2016/2019 test labels and images
  leakaudit dedup --release train=crohme/train --against 2014=crohme/2014 \
    --against 2016=crohme/2016 --against 2019=crohme/2019 --images --out clean/

  # a Hugging Face Parquet release against a fingerprint, at two levels
  leakaudit dedup --release train.parquet --against bench.fp.parquet --level ws,tokens --out clean/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNames(namedArgs{"release", releases}, namedArgs{"against", against}); err != nil {
				return err
			}
			lv, err := canon.ParseLevels(levels)
			if err != nil {
				return usageError{fmt.Errorf("--level: %w", err)}
			}
			job := dedup.Job{Out: out, Force: force, Levels: lv, Salt: []byte(salt), Images: images, MaxDistance: maxDist,
				ImageLimits: dataset.ImageLimits{MaxPixels: maxPixels, MaxBytes: maxImgB}, Within: within, WithinLabels: withinLabels,
				Near: near, NearMin: nearMin, Workers: workers, Tool: toolName(), Progress: progress.New(),
				Log: stderrLog(cmd)}
			if asJSON {
				job.Log = nil
			}
			if reportDir != "" {
				job.Evidence = dedupEvidence
			}
			for _, list := range []struct {
				args []string
				dst  *[]dedup.Input
			}{{releases, &job.Releases}, {against, &job.Against}} {
				srcs, err := in.sources(list.args)
				if err != nil {
					return err
				}
				for _, s := range srcs {
					*list.dst = append(*list.dst, dedup.Input{Name: s.name, Source: s.Source})
				}
			}
			var inputs []string
			for _, in := range append(append([]dedup.Input{}, job.Releases...), job.Against...) {
				inputs = append(inputs, in.Source.Path)
			}
			if err := checkOutputs(outpath.Output{Flag: "--report", Path: reportDir, Dir: true, Inputs: inputs, Force: force, What: "a report page folder", Previous: pageNames}); err != nil {
				return err
			}
			ctx, stop := interruptContext()
			defer stop()
			res, err := dedup.Run(ctx, job)
			if err != nil {
				return err
			}
			if reportDir != "" {
				if err := report.DedupPage(res).Write(reportDir); err != nil {
					return err
				}
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), res)
			} else {
				_, err = fmt.Fprint(cmd.OutOrStdout(), dedup.Markdown(res))
			}
			if err != nil {
				return err
			}
			return checkInputs(cmd, res.Completeness)
		},
	}
	in.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&releases, "release", nil, "a release split to clean, [NAME=]PATH (repeatable)")
	f.StringArrayVar(&against, "against", nil, "what must not leak into it: labels, images or a fingerprint, [NAME=]PATH (repeatable)")
	f.StringVar(&out, "out", "", "the output folder (required; refused if it exists, unless --force)")
	f.BoolVar(&force, "force", false, "replace an existing --out (and --report folder); an input is never replaced")
	f.StringVar(&levels, "level", "ws", "canonical levels labels are compared at, comma-separated; "+levelHelp())
	f.StringVar(&salt, "salt", "", "the salt of salted against fingerprints")
	f.BoolVar(&images, "images", false, "also remove items whose image is a verified copy of an against image")
	intFlag(f, &maxDist, "max-distance", 8, 1, 64, "pHash radius of an image candidate (then verified)")
	intFlag(f, &near, "near", 0, 0, math.MaxInt, "also remove items within this many token edits of an against label (0: off)")
	intFlag(f, &nearMin, "near-min", 0, 1, math.MaxInt, "shortest token sequence --near considers (default 4(K+1))")
	f.BoolVar(&within, "within", false, "also remove duplicates inside the release (copied images in a split with images, repeated labels in one without)")
	f.BoolVar(&withinLabels, "within-labels", false, "with --within, also remove repeated labels in splits with images (other samples of the same formula); implies --within")
	f.StringVar(&reportDir, "report", "", "also write a self-contained page of the results, DIR/index.html")
	f.BoolVar(&asJSON, "json", false, "print summary.json to stdout instead of the Markdown summary")
	intFlag(f, &workers, "workers", 0, 0, maxWorkers, "goroutines that canonicalize labels and hash images (default: all cores)")
	int64Flag(f, &maxPixels, "max-pixels", dataset.DefaultImageLimits.MaxPixels, 1, math.MaxInt64, "skip images declaring more pixels (counted, reported)")
	int64Flag(f, &maxImgB, "max-image-bytes", dataset.DefaultImageLimits.MaxBytes, 1, math.MaxInt64, "skip larger image files (counted, reported)")
	cmd.MarkFlagRequired("out")
	cmd.MarkFlagRequired("release")
	return cmd
}
