// Package reftemplate holds the reference CDM's LaTeX preamble (UniMERNet
// cdm/ formular_template, docs/cdm.md §6), shared by the generators that ask
// real LaTeX for goldens.
package reftemplate

import "fmt"

// Preamble returns the reference template up to and including its
// \makeatother, for a paper size such as "a5".
func Preamble(paper string) string {
	return fmt.Sprintf(`\documentclass[12pt]{article}
\usepackage[landscape]{geometry}
\usepackage{geometry}
\geometry{%spaper,scale=0.98}
\pagestyle{empty}
\usepackage{booktabs}
\usepackage{amsmath}
\usepackage{upgreek}
\usepackage{amssymb}
\usepackage{xcolor}
\begin{document}
\makeatletter
\renewcommand*{\@textcolor}[3]{%%
  \protect\leavevmode
  \begingroup
    \color#1{#2}#3%%
  \endgroup
}
\makeatother
`, paper)
}
