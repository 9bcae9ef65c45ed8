package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/latex"
)

// tokensOutput is one formula's record in `leakaudit tokens --json`.
type tokensOutput struct {
	Input      string            `json:"input"`
	KaTeXOK    bool              `json:"katex_ok"`
	Katex      string            `json:"katex_normalized,omitempty"`
	Normalized string            `json:"normalized,omitempty"`
	Tokens     []string          `json:"tokens"`
	Kinds      []tokenKind       `json:"kinds,omitempty"`
	Levels     map[string]string `json:"levels"`
	Error      string            `json:"error,omitempty"`
}

type tokenKind struct {
	Token string `json:"token"`
	Kind  string `json:"kind"`
}

func newTokensCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tokens [FORMULA...]",
		Short: "Show how a formula is normalized and cut into tokens",
		Long: `tokens runs formulas (arguments, or one per line on stdin) through the
reference CDM's preprocessing chain as leakaudit reproduces it: the patched
KaTeX 0.6 normalizer (with its silent fallback to the raw string when it
fails), normalize_latex, and the token selection that decides which tokens get
a colour and a box. It also prints the formula's key at every canonical level,
so you can see why two labels match or not.`,
		Example: `  leakaudit tokens 'x^2 + \frac ab' '\sin\theta'
  echo '\left( x \right)' | leakaudit tokens --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			formulas := args
			if len(formulas) == 0 {
				sc := bufio.NewScanner(cmd.InOrStdin())
				sc.Buffer(make([]byte, 1<<20), latex.MaxFormulaBytes+1<<10)
				for sc.Scan() {
					formulas = append(formulas, sc.Text())
				}
				if err := sc.Err(); err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
			}
			out := cmd.OutOrStdout()
			for _, f := range formulas {
				rec := tokenize(f)
				if asJSON {
					if err := writeJSONLine(out, rec); err != nil {
						return err
					}
					continue
				}
				printTokens(out, rec)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per formula")
	return cmd
}

func tokenize(f string) tokensOutput {
	rec := tokensOutput{Input: f, Tokens: []string{}, Levels: map[string]string{}}
	res, err := latex.TokenizeCDM(f)
	rec.KaTeXOK, rec.Katex, rec.Normalized = res.KaTeXOK, res.Katex, res.Normalized
	if err != nil {
		rec.Error = err.Error()
	} else {
		rec.Tokens = res.Tokens
		for i, s := range res.Split {
			if s != "" {
				rec.Kinds = append(rec.Kinds, tokenKind{s, res.Kinds[i].String()})
			}
		}
	}
	for _, l := range canon.Levels() {
		k, _ := l.Canon(f)
		if canon.IsFailedKey(k) {
			k = "⊥ (tokenizer fails)"
		}
		rec.Levels[l.Name] = k
	}
	return rec
}

func printTokens(w io.Writer, rec tokensOutput) {
	fmt.Fprintf(w, "input:      %s\n", rec.Input)
	if rec.KaTeXOK {
		fmt.Fprintf(w, "katex:      %s\n", rec.Katex)
	} else {
		fmt.Fprintf(w, "katex:      FAILED; the reference falls back to the raw string\n")
	}
	if rec.Error != "" {
		fmt.Fprintf(w, "error:      %s (the reference counts this as a render failure)\n\n", rec.Error)
		return
	}
	fmt.Fprintf(w, "normalized: %s\n", strings.TrimSpace(rec.Normalized))
	fmt.Fprintf(w, "tokens:     %d: %s\n", len(rec.Tokens), strings.Join(rec.Tokens, "  "))
	var skipped []string
	for _, k := range rec.Kinds {
		if k.Kind != "visible" && k.Kind != "structural" {
			skipped = append(skipped, k.Token+" ("+k.Kind+")")
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "not drawn:  %s\n", strings.Join(skipped, ", "))
	}
	for _, l := range canon.Levels() {
		fmt.Fprintf(w, "%-11s %s\n", l.Name+":", rec.Levels[l.Name])
	}
	fmt.Fprintln(w)
}
