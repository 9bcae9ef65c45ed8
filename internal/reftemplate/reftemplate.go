// Package reftemplate holds the reference programs' LaTeX documents: the
// reference CDM's preambles (UniMERNet cdm/ formular_template and
// tabular_template, docs/cdm.md §6) and the document IMEGE's renderer, l2p,
// writes (docs/metrics.md §8.5), shared by the generators that ask real
// LaTeX for goldens.
package reftemplate

import "fmt"

// Preamble returns the reference template up to and including its
// \makeatother, for a paper size such as "a5".
func Preamble(paper string) string {
	return preamble(paper, `\usepackage{booktabs}
\usepackage{amsmath}
\usepackage{upgreek}
\usepackage{amssymb}
\usepackage{xcolor}
`)
}

// TabularPreamble is Preamble for the reference's tabular_template, on
// which it typesets every formula holding "tabular": multirow is loaded
// and the packages come in another order.
func TabularPreamble(paper string) string {
	return preamble(paper, `\usepackage{booktabs}
\usepackage{multirow}
\usepackage{amssymb}
\usepackage{upgreek}
\usepackage{amsmath}
\usepackage{xcolor}
`)
}

func preamble(paper, packages string) string {
	return fmt.Sprintf(`\documentclass[12pt]{article}
\usepackage[landscape]{geometry}
\usepackage{geometry}
\geometry{%spaper,scale=0.98}
\pagestyle{empty}
%s\begin{document}
\makeatletter
\renewcommand*{\@textcolor}[3]{%%
  \protect\leavevmode
  \begingroup
    \color#1{#2}#3%%
  \endgroup
}
\makeatother
`, paper, packages)
}

// L2PPreamble is the document l2p writes around its input, up to and
// including \color{fg} (IMEGE's call: l2p -d 600 -p
// amsmath,amssymb,amsfonts FILE; default colours).
const L2PPreamble = `\documentclass{article}
\usepackage{color}
\usepackage{amsmath}
\usepackage{amssymb}
\usepackage{amsfonts}
\definecolor{bg}{rgb}{
1,1,1
}
\definecolor{fg}{rgb}{
0,0,0
}
\pagestyle{empty}
\pagecolor{bg}
\begin{document}
\color{fg}
`

// L2PDocument is the whole file l2p writes for a one-line input
// $formula$: the formula centred, in in-line math.
func L2PDocument(formula string) string {
	return L2PPreamble + "\\begin{center}\n$" + formula + "$\n\n\\end{center}\n\\end{document}\n"
}
