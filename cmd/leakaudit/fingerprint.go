package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/fingerprint"
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
		asJSON      bool
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
--partitions N writes a hive-style folder (part=NNN/data.parquet) by the
first byte of the first level's digest, which query engines read in
parallel.`,
		Example: `  leakaudit fingerprint --input train=corpus.parquet --out train.fp.parquet --level audit,ws,tokens
  leakaudit overlap --train train.fp.parquet --test crohme2014=crohme_2014_captions.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(inputs) == 0 || out == "" {
				return fmt.Errorf("give at least one --input and --out")
			}
			lv, err := canon.ParseLevels(levels)
			if err != nil {
				return err
			}
			srcs, err := in.sources(inputs)
			if err != nil {
				return err
			}
			var fin []fingerprint.Input
			for _, s := range srcs {
				fin = append(fin, fingerprint.Input{Name: s.name, Source: s.Source})
			}
			res, err := fingerprint.Write(out, fin, fingerprint.Options{Levels: lv, Salt: []byte(salt),
				WithLabels: withLabels, Partitions: partitions, Tool: toolName()})
			if err != nil {
				return err
			}
			if asJSON {
				err = writeJSON(cmd.OutOrStdout(), res)
			} else {
				t := report.Table{Header: []string{"input", ">rows", ">skipped"}}
				for _, r := range res.Inputs {
					t.Add(r.Name, fmt.Sprint(r.Rows), fmt.Sprint(r.Stats.Skipped))
				}
				err = t.Write(cmd.OutOrStdout())
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s (levels %v, salted %v)\n", res.Out, res.Levels, res.Salted)
			}
			if err != nil {
				return err
			}
			return checkComplete(cmd, res.Completeness)
		},
	}
	in.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&inputs, "input", nil, "corpus to fingerprint, [NAME=]PATH (repeatable)")
	f.StringVar(&out, "out", "", "the fingerprint file (or folder, with --partitions)")
	f.StringVar(&levels, "level", "audit,ws,tokens", "canonical levels to digest, comma-separated: "+canon.LevelNames())
	f.StringVar(&salt, "salt", "", "a secret digested before every key, for fingerprints shared with one reviewer")
	f.IntVar(&partitions, "partitions", 0, "write a folder of N partitions instead of one file")
	f.BoolVar(&withLabels, "with-labels", false, "keep the labels too (the file then reveals the corpus)")
	f.BoolVar(&asJSON, "json", false, "print what was written as JSON on stdout")
	return cmd
}
