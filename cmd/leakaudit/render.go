package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/internal/outpath"
	"github.com/leakaudit/leakaudit/metrics/cdm"
	"github.com/leakaudit/leakaudit/report"
	"github.com/leakaudit/leakaudit/tex"
)

func newRenderCmd() *cobra.Command {
	var (
		out   string
		dpi   float64
		boxes bool
		raw   bool
		force bool
	)
	cmd := &cobra.Command{
		Use:   "render 'LATEX' -o out.png",
		Short: "Draw a formula as leakaudit's TeX engine sets it, with its CDM token boxes",
		Long: `render lays a formula out with leakaudit's TeX engine, exactly where pdflatex
puts each glyph in the reference CDM's template, and rasterizes it from the
outlines of the Type 1 fonts pdflatex embeds (anti-aliased, glyph origins on
whole pixels as Ghostscript puts them), on the reference's page and cropped
8 px around the ink, as the reference's 200-dpi renders are. With --boxes,
each CDM token's box is outlined in its own colour, as the CDM matcher sees it.

By default the formula goes through the reference's tokenizer and colouring
first (what CDM renders); --raw lays out the LaTeX as given.`,
		Example: `  leakaudit render '\frac{a}{b} + x^2' -o f.png --boxes`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("give -o FILE.png")
			}
			if err := checkOutputs(outpath.Output{Flag: "--out", Path: out, Force: force, What: "a PNG image", Previous: isPNG}); err != nil {
				return err
			}
			var t cdm.Typeset
			var err error
			if raw {
				// the LaTeX as given, on the page of a one-token formula
				t.Page = tex.PageFor(1)
				t.Layout, err = tex.Typeset(args[0])
			} else {
				// as CDM renders it: tokenized, coloured, on its page
				t, err = cdm.Lay(args[0])
			}
			if err != nil {
				return err
			}
			ntok := len(t.Tokens)
			img, err := t.Picture(dpi)
			if err != nil {
				return err
			}
			rgba := image.NewRGBA(img.Bounds())
			draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
			if boxes && ntok > 0 {
				// The boxes are the reference's (ink extent ±1 px in its
				// crop), so they may stand a pixel off this render's crop.
				pb, _, _ := t.Boxes(dpi)
				for i, b := range pb {
					if b.Empty {
						continue
					}
					c := color.RGBA{uint8(60 + 97*i%196), uint8(200 - 53*i%150), uint8(40 + 71*i%200), 255}
					cdm.Outline(rgba, b.X1, b.Y1, b.X2, b.Y2, c)
				}
			}
			if err := report.WritePNG(out, rgba); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d×%d px, %d glyphs, %d rules, %d tokens\n", out, img.Bounds().Dx(), img.Bounds().Dy(), len(t.Layout.Glyphs), len(t.Layout.Rules), ntok)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "PNG file to write")
	floatFlag(cmd.Flags(), &dpi, "dpi", 200, 1, 2400, "resolution, 1 to 2400")
	cmd.Flags().BoolVar(&boxes, "boxes", false, "outline each CDM token's box")
	addForce(cmd, &force)
	cmd.Flags().BoolVar(&raw, "raw", false, "lay out the LaTeX as given, without the CDM tokenizer")
	return cmd
}
