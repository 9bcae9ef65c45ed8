// Command tabgolden regenerates latex/testdata/tabular_golden.jsonl, the
// golden of the reference's tabular tokenizer path (docs/cdm.md §3).
//
// It takes the formulas holding "tabular" from the shared data (the
// im2latex formula lists and the benchmark label files) and the
// hand-written variants below, and runs them through the reference's own
// code: tokenize_latex.py's tabular branch (perl, then
// preprocess_tabular.js under Node), normalize_latex and
// token_add_color_RGB, as latex2bbox_color calls them (reftab.py, a driver
// that only calls the reference's functions). The reference is read from a
// git mirror of UniMERNet (git archive HEAD cdm); it needs git, python3,
// perl and node. Tests only read the committed file.
//
//	go run ./latex/internal/tabgolden -ref /work/.mirror/opendatalab+UniMERNet/repo
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"flag"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/shareddata"
)

//go:embed reftab.py
var driver string

var (
	ref = flag.String("ref", "/work/.mirror/opendatalab+UniMERNet/repo", "bare git mirror of opendatalab/UniMERNet")
	out = flag.String("o", "latex/testdata/tabular_golden.jsonl", "output file")
)

// variants exercise the tabular path's steps: the % cut and \% kept, a
// missing \end{tabular}, hskip rewriting, \label, \> and \~, the parser's
// failures (the reference then falls back to the raw formula), the
// \begin/\end name joining, an infix after a style command (recorded
// twice), and constructs the colouring treats specially.
var variants = []string{
	`\begin{tabular}{cc} a & b \\ c & d \end{tabular}`,
	`\begin{tabular} { l r } { x } & { y } \\ \end{tabular}`,
	`\begin{tabular}{|l|} \hline abc def \\ \hline \end{tabular}`,
	`\begin{tabular}{cc} a & b`,
	`\begin{tabular}{cc} a & b % comment \end{tabular}`,
	`\begin{tabular}{cc} 50\% & b \end{tabular}`,
	`\begin{tabular}{c} a \\% x \end{tabular}`,
	`\begin{tabular}{c} a \hskip 1cm b \end{tabular}`,
	`\begin{tabular}{c} a \label{x} b \> c \~ d \end{tabular}`,
	`\begin{tabular}{c} \frac{a}{b} & x^2 \end{tabular}`,
	`\begin{tabular}{c} a \end{array}`,
	`\begin{tabular}{c} {a \end{tabular}`,
	`x = \left[ \begin{tabular}{c|c} 1 & 2 \\ \hline 3 & 4 \end{tabular} \right]`,
	`\begin{tabular}{p{2cm}c} a & b \end{tabular}`,
	`\begin{tabular}[t]{c} a \end{tabular}`,
	`\begin{tabular}{c} \multicolumn{2}{c}{a} \\ \cline{1-2} b \end{tabular}`,
	`tabular`,
	`\mathrm{tabular} x`,
	`\begin{tabular}{c} {\displaystyle a \over b} \end{tabular}`,
	`\begin{tabular}{c} \textbf{bold} \text{t} \end{tabular}`,
	`\begin{tabular}{cc} 1 & 2 \\ 3 & 4 \\ \end{tabular} \\ x`,
	`\begin{tabular}{c} α β \end{tabular}`,
	`\begin{tabular}{c} a \end{ tabular }`,
	`\begin {tabular} {c} a \end {tabular}`,
	`\begin{tabular}{@{}c@{}} a \end{tabular}`,
	`\begin{tabular}{c} \hline \hline a \\ \hline \end{tabular}`,
	`\begin{tabular}{c} \sqrt[3]{x} \rule{1pt}{2pt} \end{tabular}`,
	`\begin{tabular}{c} \color{red} a \end{tabular}`,
	`\begin{tabular}{c} a \\[2pt] b \end{tabular}`,
	`\begin{tabular}{c} x \end{tabular} \begin{tabular}{c} y \end{tabular}`,
	`\begin{tabular}{c} \begin{array}{c} a \end{array} \end{tabular}`,
	`\begin{tabular}{c} $x$ \end{tabular}`,
	`\begin{tabular}{c} 中文 \end{tabular}`,
}

func main() {
	flag.Parse()
	root := shareddata.Find()
	if root == "" {
		log.Fatal("shared data not found (../shared/data or $LEAKAUDIT_DATA)")
	}
	var inputs []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			inputs = append(inputs, s)
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "im2latex", "formulas", "*.txt"))
	labels, _ := filepath.Glob(filepath.Join(root, "labels", "*.json"))
	for _, p := range append(files, labels...) {
		if _, err := dataset.Scan(dataset.Source{Path: p}, func(it dataset.Item) error {
			if strings.Contains(it.Label, "tabular") {
				add(it.Label)
			}
			return nil
		}); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("%d tabular formulas in the shared data", len(inputs))
	for _, v := range variants {
		add(v)
	}

	dir, err := os.MkdirTemp("", "tabgolden")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	archive := exec.Command("sh", "-c", `git --git-dir="$1" archive HEAD cdm/modules | tar -x -C "$2"`, "sh", *ref, dir)
	archive.Stderr = os.Stderr
	if err := archive.Run(); err != nil {
		log.Fatalf("extracting the reference: %v", err)
	}
	script := filepath.Join(dir, "reftab.py")
	if err := os.WriteFile(script, []byte(driver), 0o644); err != nil {
		log.Fatal(err)
	}
	var in bytes.Buffer
	for _, s := range inputs {
		b, _ := json.Marshal(s)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command("python3", script, filepath.Join(dir, "cdm"))
	cmd.Dir = dir
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	res, err := cmd.Output()
	if err != nil {
		log.Fatalf("reference driver: %v", err)
	}
	if n := bytes.Count(res, []byte("\n")); n != len(inputs) {
		log.Fatalf("reference driver wrote %d lines for %d formulas", n, len(inputs))
	}
	if err := os.WriteFile(*out, res, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d formulas to %s", len(inputs), *out)
}
