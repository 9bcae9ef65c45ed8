// Package font reads the font files the TeX layout engine (package tex)
// sets formulas with, all embedded unmodified with their licences
// (fonts/LICENSES.md): TeX font metrics (TFM: widths, heights, depths,
// italic corrections, lig/kern programs, extensible recipes and
// \fontdimen parameters, scaled to a size exactly as TeX scales them), the
// Adobe font metrics pdflatex's Type 1 fonts come with (AFM: each glyph's
// ink box), and the Type 1 fonts themselves (PFB: eexec and charstring
// decryption and a charstring interpreter that yields each glyph's
// outline, for the rasterizer).
//
// TestTFMGolden checks every embedded font at several sizes against what
// TeX itself computes, to the scaled point; TestType1AgainstAFM checks
// every outline's bounding box against its AFM.
package font
