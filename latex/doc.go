// Package latex holds what leakaudit knows about LaTeX formulas as strings:
// the canonicalization ladder that decides when two labels count as "the
// same", and a pure-Go reproduction of the reference CDM's tokenizer.
//
// # Canonical levels
//
// A [Level] is a named, versioned function from a raw label to a canonical
// key. Levels form a ladder (see the audit protocol, §3):
//
//	raw    (L0)  the label exactly as decoded from its file
//	audit  (L1)  the published TexTeller audit protocol, byte for byte:
//	             one outer \[ … \] strip on the raw string, then every
//	             U+0020 deleted and nothing else touched
//	ws     (L2)  NFC, trimmed, outer math wrappers stripped repeatedly,
//	             whitespace dropped except where it ends a control word
//	             before a letter
//	tokens (L3)  the CDM tokenizer's normalized tokens of the ws form, with
//	             primes kept and synonyms, delimiter sizes and operator
//	             forms unified; a formula the tokenizer rejects gets a tagged
//	             failure key that equals only another failure with the same
//	             ws key
//	render (L4)  tokens mapped to render-identical classes, ink-free
//	             tokens and redundant braces dropped
//
// L1 is a parity side branch: it coarsens L0 but is not comparable with L2,
// because deleting a space can glue a control word to a letter (\alpha b
// becomes \alphab). Every other step of the ladder is a function of the
// previous one, so it only merges more.
//
// Levels are looked up by name with [LookupLevel] and listed in ladder order
// by [Levels]. Each level has a stable numeric [LevelID] used in persistent
// indexes and a Version that changes whenever its rules change, so that an
// index built with old rules is never silently reused.
//
// # The CDM tokenizer
//
// [TokenizeCDM] reproduces the reference CDM's preprocessing chain
// (cdm-spec §3–6): CJK wrapping and percent protection; [KaTeXNormalize], our
// own emulation of the patched KaTeX 0.6 parser and im2markup printer the
// reference shells out to, including its failures and the raw-string
// fallback they trigger; the reference's Python passes
// ([NormalizeLatexCDM]); and the token selection that decides which tokens
// get a colour and hence a box ([ColorTokensCDM]). The Python passes are
// reproduced with Python's list semantics, quirks and failures included.
// Inputs are bounded by [MaxFormulaBytes] and [MaxNesting].
package latex
