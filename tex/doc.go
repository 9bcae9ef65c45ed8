// Package tex lays out math formulas the way pdflatex does, with TeX's own
// rules over TeX's own font metrics, so that leakaudit knows every token's
// box without running TeX (see the TeX layout design, tex-layout.md).
//
// This first part holds the font metrics: the TFM files pdflatex uses for
// a 12 pt article with amsmath, amssymb and upgreek, embedded unmodified
// with their licences (fonts/LICENSES.md), a reader for the TFM format,
// and TeX's exact scaling of TFM fix_words to scaled points (tex.web
// §571–575), so that dimensions equal TeX's to the scaled point.
package tex
