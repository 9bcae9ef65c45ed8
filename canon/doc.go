// Package canon is the canonicalization ladder: the levels that decide
// when two formula labels count as "the same", from the published audit
// protocol byte for byte to stronger normalizations. The tokens and render
// levels are built on package latex's reproduction of the reference CDM
// tokenizer; the lower levels are string rules of their own.
//
// A [Level] is a named, versioned function from a raw label to a canonical
// key. Levels form a ladder (see docs/canonical-ladder.md):
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
package canon
