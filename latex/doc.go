// Package latex is leakaudit's pure-Go reproduction of the reference CDM's
// LaTeX tokenizer: what the reference makes of a formula string before it
// is typeset. The canonical levels built on it live in package canon.
//
// # The CDM tokenizer
//
// [TokenizeCDM] reproduces the reference CDM's preprocessing chain
// (docs/cdm.md §2–5): CJK wrapping and percent protection; [KaTeXNormalize], our
// own emulation of the patched KaTeX 0.6 parser and im2markup printer the
// reference shells out to, including its failures and the raw-string
// fallback they trigger; the reference's Python passes
// ([NormalizeLatexCDM]); and the token selection that decides which tokens
// get a colour and hence a box ([ColorTokensCDM]). The Python passes are
// reproduced with Python's list semantics, quirks and failures included.
// Inputs are bounded by [MaxFormulaBytes] and [MaxNesting].
package latex
