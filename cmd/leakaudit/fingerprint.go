package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/report"
)

func newFingerprintCmd() *cobra.Command {
	var (
		in          inputFlags
		inputs      []string
		out, levels string
		salt        string
		partitions  int
		withLabels  bool
		withInk     bool
		asJSON      bool
		images      bool
		force       bool
		hash        string
		canvas      string
	)
	cmd := &cobra.Command{
		Use:   "fingerprint --input [NAME=]PATH... --out FILE.parquet [flags]",
		Short: "Write a corpus's digested canonical keys, to let others check test sets without the data",
		Long: `fingerprint writes, for every item of the inputs, the 128-bit digest of its
canonical key at each level (--level), its token count, its id and position,
and no label (unless --with-labels). Anyone can give the file to overlap,
audit or dedup as a training corpus: the counts and matched ids are those of
the corpus itself.

What publishing fingerprints reveals: anyone can test whether a label they
can guess is in the corpus (short formulas are easy to guess), but cannot
read labels they cannot guess. --salt digests every key with a secret shared
with one reviewer only: the file then matches only where that salt is given
(overlap --salt), and records a check value of the salt, never the salt.

The file's metadata records the leakaudit version, the hash and each level's
rules version; a fingerprint made under other rules is refused.

--images fingerprints the inputs' images instead (image folders, caption
folders with img/, zip and tar archives, Parquet image structs, InkML):
per image the hashes neardup searches and verifies with, and the keys of
its label when it has one. neardup --train and the audit's train_images
accept the file in place of the images. The hashes are not salted: they
reveal a coarse outline of each image. --with-ink keeps each image's
normalized ink too (64×64), so that candidates are verified as on the
images (the same pairs); the file then shows every formula at 64×64.
Without it, candidates are verified by the fine hash alone, which finds a
few copies fewer.
--partitions N writes a hive-style folder (part=NNN/data.parquet) by the
first byte of the first level's digest, which query engines read in
parallel.

The output is built beside --out and renamed into place when complete (an
interrupted run leaves nothing behind). --out is never an input, nor inside
an input folder; an existing --out is replaced only when it is a previous
fingerprint (or an empty folder, with --partitions), or with --force.`,
		Example: `  leakaudit fingerprint --input train=corpus.parquet --out train.fp.parquet --level audit,ws,tokens
  leakaudit overlap --train train.fp.parquet --test crohme2014=crohme_2014_captions.json
  leakaudit fingerprint --images --input train=crohme/train --out train.img.fp.parquet
  leakaudit neardup --train train.img.fp.parquet --test 2014=crohme/2014`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(inputs) == 0 || out == "" {
				return usagef("give at least one --input and --out")
			}
			if err := checkNames(namedArgs{"input", inputs}); err != nil {
				return err
			}
			lv, err := canon.ParseLevels(levels)
			if err != nil {
				return usageError{fmt.Errorf("--level: %w", err)}
			}
			srcs, err := in.sources(inputs)
			if err != nil {
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
			var fin []fingerprint.Input
			for _, s := range srcs {
				fin = append(fin, fingerprint.Input{Name: s.name, Source: s.Source})
			}
			opts := fingerprint.Options{Levels: lv, Salt: []byte(salt),
				WithLabels: withLabels, Partitions: partitions, Tool: toolName(), Force: force,
				Images: images, WithInk: withInk, Hash: imagehash.Options{Kind: kind, Canvas: canv}}
			if err := fingerprint.CheckOut(out, fin, opts); err != nil {
				return err
			}
			for i := range fin {
				if images { // lets neardup know a test split that is this input
					fp, err := checksum.Of(fin[i].Source.Path)
					if err != nil {
						return err
					}
					fin[i].SHA256 = fp.SHA256
				}
			}
			ctx, stop := interruptContext()
			defer stop()
			res, err := fingerprint.WriteContext(ctx, out, fin, opts)
			if err != nil {
				return err
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), res)
			} else {
				t := report.Table{Header: []string{"input", ">rows", ">skipped", ">blank images"}}
				for _, r := range res.Inputs {
					t.Add(r.Name, fmt.Sprint(r.Rows), fmt.Sprint(r.Stats.Skipped), fmt.Sprint(r.Blank))
				}
				err = t.Write(cmd.OutOrStdout())
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s (levels %v, salted %v)\n", res.Out, res.Levels, res.Salted)
				if res.ImageHash != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "images hashed with %s\n", res.ImageHash)
				}
			}
			if err != nil {
				return err
			}
			return checkInputs(cmd, res.Completeness)
		},
	}
	in.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&inputs, "input", nil, "corpus to fingerprint, [NAME=]PATH (repeatable)")
	f.StringVar(&out, "out", "", "the fingerprint file (or folder, with --partitions)")
	f.StringVar(&levels, "level", "audit,ws,tokens", "canonical levels to digest, comma-separated: "+canon.LevelNames())
	f.StringVar(&salt, "salt", "", "a secret digested before every key, for fingerprints shared with one reviewer")
	intFlag(f, &partitions, "partitions", 0, 0, 256, "write a folder of N partitions instead of one file (1 to 256, by the first byte of the first level's digest)")
	f.BoolVar(&withLabels, "with-labels", false, "keep the labels too (the file then reveals the corpus)")
	f.BoolVar(&asJSON, "json", false, "print what was written as JSON on stdout")
	addForce(cmd, &force)
	f.BoolVar(&withInk, "with-ink", false, "with --images: keep each image's normalized ink (64×64), so neardup verifies as on the images (the file then shows every formula)")
	f.BoolVar(&images, "images", false, "fingerprint the inputs' images (the hashes neardup uses) instead of their label records")
	f.StringVar(&hash, "hash", string(imagehash.PHash), "with --images: perceptual hash, as neardup --hash")
	f.StringVar(&canvas, "canvas", string(imagehash.Stretch), "with --images: stretch or aspect, as neardup --canvas")
	return cmd
}
