// Package reftemplate holds the reference CDM's LaTeX preambles (UniMERNet
// cdm/ formular_template and tabular_template, docs/cdm.md §6), shared by
// the generators that ask real LaTeX for goldens.
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
