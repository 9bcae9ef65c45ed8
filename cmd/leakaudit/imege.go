package main

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/metrics/imege"
)

func newIMEGECmd() *cobra.Command {
	var (
		asJSON bool
		p      = imege.DefaultParams
	)
	cmd := &cobra.Command{
		Use:   "imege [--json] REC REF",
		Short: "IMEGE between two formula images (BIDM precision, recall and the error)",
		Long: `imege compares a recognized formula's image (REC) with its reference (REF)
as IMEGE does: precision is BIDM(REC → REF), recall BIDM(REF → REC), and
IMEGE = 100·(1 − F) with F their harmonic mean. Images are PGM (P2, P5),
PNG or BMP; ink is any gray below 255. The defaults are the released
script's call (bidm A B 35 31 -i 2), and the values are the original
program's to the printed digit.`,
		Example: `  leakaudit imege rec.pgm ref.pgm
  leakaudit imege --warp 40 --context 27 --interp 0 rec.png ref.png`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := imege.ReadFile(args[0], imege.Limits{})
			if err != nil {
				return err
			}
			ref, err := imege.ReadFile(args[1], imege.Limits{})
			if err != nil {
				return err
			}
			r, err := imege.Compare(rec, ref, p, imege.Limits{})
			if err != nil {
				return err
			}
			pr, rc, e := r.Format()
			w := cmd.OutOrStdout()
			if asJSON {
				num := func(v float64, s string) any {
					if math.IsNaN(v) {
						return nil // the original prints nan: no ink in the test image
					}
					return json.Number(s)
				}
				return writeJSONLine(w, map[string]any{"precision": num(r.Precision, pr), "recall": num(r.Recall, rc), "imege": json.Number(e)})
			}
			_, err = fmt.Fprintf(w, "precision %s\nrecall    %s\nIMEGE     %s\n", pr, rc, e)
			return err
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, `print {"precision", "recall", "imege"}`)
	intFlag(fl, &p.Warp, "warp", p.Warp, 1, 1000, "warp range w: a pixel may map within ±w pixels of its proportional position")
	oddIntFlag(fl, &p.Context, "context", p.Context, 1, 201, "context window c (odd): c×c derivative features are compared")
	intFlag(fl, &p.Interp, "interp", p.Interp, 0, 2, "interpolation level (the original's -i): match every 1st, 2nd or 3rd row and column")
	intFlag(fl, &p.Size, "deriv-size", p.Size, 1, 50, "derivative cell half-size (the original's -d)")
	return cmd
}
