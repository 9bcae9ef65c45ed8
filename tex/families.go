package tex

import (
	"fmt"
	"github.com/leakaudit/leakaudit/tex/font"
	"sync"
)

// mathFont is a TFM loaded at a size, as the layout uses it.
type mathFont struct {
	*font.Font
	Name string // TFM name, e.g. "cmmi12"
	id   int
	ink  []inkRec // per character: the AFM ink box, or the TFM box
}

// inkRec is a character's ink box relative to its reference point, y up.
type inkRec struct {
	llx, lly, urx, ury Scaled
	ok                 bool
	// edge corrects the raster thresholds of the character's left,
	// right, top and bottom edges, in pixels (glyphAdjust)
	edge [4]float64
}

// loadInk fills the font's ink table from its AFM (the glyph outlines'
// bounding boxes), falling back to the TFM box (width, height, depth)
// for a font without one.
func (f *mathFont) loadInk() {
	f.ink = make([]inkRec, f.TFM.EC+1)
	for c := f.TFM.BC; c <= f.TFM.EC; c++ {
		if llx, lly, urx, ury, ok := f.InkBox(c); ok {
			f.ink[c] = inkRec{llx: llx, lly: lly, urx: urx, ury: ury, ok: true}
			continue
		}
		if w, h, d, ok := f.tfmBox(c); ok {
			f.ink[c] = inkRec{lly: -d, urx: w, ury: h, ok: true}
		}
	}
	for c := range f.ink {
		f.ink[c].edge = glyphAdjust[edgeKey(f.Name, f.Size, c)]
	}
}

func (f *mathFont) tfmBox(c int) (w, h, d Scaled, ok bool) {
	w, h, d, _, ok = f.Metrics(c)
	return
}

func (f *mathFont) metrics(c int) (wd, ht, dp, ic Scaled) {
	wd, ht, dp, ic, _ = f.Metrics(c)
	return
}

func (f *mathFont) exists(c int) bool {
	_, ok := f.Char(c)
	return ok
}

// Size indices of the three math sizes.
const (
	textSize = iota
	scriptSize
	scriptScriptSize
)

// Families of the reference preamble. 0–3 are LaTeX's symbol fonts; the
// numbers of upgreek's and amsfonts' symbol fonts are the ones LaTeX
// gives them (symbolFamilies, read from LaTeX by symgen); math
// alphabets get the numbers LaTeX would allocate next. Only identity
// matters to the layout (rule 14 compares families).
const (
	famOperators = 0
	famLetters   = 1
	famSymbols   = 2
	famLarge     = 3
	famBF        = 7
	famIT        = 8
	famFrak      = 9
	famSF        = 10
	famTT        = 11
	numFams      = 12
)

// fontSpec names the TFM and at-size of a family at one math size.
type fontSpec struct {
	name string
	at   Scaled
}

func pt(n int) Scaled { return Scaled(n) * Unity }

// familyFonts is the font of each family at text, script and
// scriptscript size in the normal math version, from NFSS's font
// definitions (fontmath.ltx, ot1cmr.fd, omlcmm.fd, omscmsy.fd, amsfonts'
// cmex, umsa/umsb/ueur/ueuf.fd) at 12/8/6 pt; the golden DVIs' fnt_defs
// confirm them.
var familyFonts = map[int][3]fontSpec{
	famOperators: {{"cmr12", pt(12)}, {"cmr8", pt(8)}, {"cmr6", pt(6)}},
	famLetters:   {{"cmmi12", pt(12)}, {"cmmi8", pt(8)}, {"cmmi6", pt(6)}},
	famSymbols:   {{"cmsy10", pt(12)}, {"cmsy8", pt(8)}, {"cmsy6", pt(6)}},
	famLarge:     {{"cmex10", pt(12)}, {"cmex8", pt(8)}, {"cmex7", pt(6)}},
	4:            {{"eurm10", pt(12)}, {"eurm10", pt(8)}, {"eurm7", pt(6)}},
	5:            {{"msam10", pt(12)}, {"msam10", pt(8)}, {"msam7", pt(6)}},
	6:            {{"msbm10", pt(12)}, {"msbm10", pt(8)}, {"msbm7", pt(6)}},
	famBF:        {{"cmbx12", pt(12)}, {"cmbx8", pt(8)}, {"cmbx6", pt(6)}},
	famIT:        {{"cmti12", pt(12)}, {"cmti8", pt(8)}, {"cmti7", pt(6)}},
	famFrak:      {{"eufm10", pt(12)}, {"eufm10", pt(8)}, {"eufm7", pt(6)}},
	famSF:        {{"cmss12", pt(12)}, {"cmss8", pt(8)}, {"cmss8", pt(6)}}, // ot1cmss.fd
	famTT:        {{"cmtt12", pt(12)}, {"cmtt8", pt(8)}, {"cmtt8", pt(6)}}, // ot1cmtt.fd
}

// boldFamilyFonts replaces families in the bold math version
// (\boldsymbol); a family absent here has no bold font in the embedded
// set and keeps its normal one only where LaTeX does too (cmex, AMS).
var boldFamilyFonts = map[int][3]fontSpec{
	famOperators: {{"cmbx12", pt(12)}, {"cmbx8", pt(8)}, {"cmbx6", pt(6)}},
	famLetters:   {{"cmmib10", pt(12)}, {"cmmib8", pt(8)}, {"cmmib6", pt(6)}},
	famSymbols:   {{"cmbsy10", pt(12)}, {"cmbsy8", pt(8)}, {"cmbsy6", pt(6)}},
	famLarge:     familyFonts[famLarge],
	5:            familyFonts[5],
	6:            familyFonts[6],
	famBF:        {{"cmbx12", pt(12)}, {"cmbx8", pt(8)}, {"cmbx6", pt(6)}},
}

// fontTable holds every family's fonts at the three sizes, for one math
// version.
type fontTable [numFams][3]*mathFont

var (
	tablesOnce  sync.Once
	normalFonts fontTable
	boldFonts   fontTable
	fontsByID   []*mathFont
	fontsMu     sync.Mutex // guards fontsByID
	tablesErr   error
	textFontCMR *mathFont // the document's current text font: cmr12
)

func loadFont(spec fontSpec, cache map[fontSpec]*mathFont) (*mathFont, error) {
	if f, ok := cache[spec]; ok {
		return f, nil
	}
	t, err := font.LoadTFM(spec.name)
	if err != nil {
		return nil, err
	}
	f := &mathFont{Font: t.Scale(spec.at), Name: spec.name}
	f.loadInk()
	// the tables of other sizes may be loading at the same time
	fontsMu.Lock()
	f.id = len(fontsByID)
	fontsByID = append(fontsByID, f)
	fontsMu.Unlock()
	cache[spec] = f
	return f, nil
}

func initFonts() {
	tablesOnce.Do(func() {
		tablesErr = fillTables(&normalFonts, &boldFonts, familyFonts, boldFamilyFonts)
		if tablesErr != nil {
			return
		}
		textFontCMR = normalFonts[famOperators][textSize]
	})
}

// textCircleFont is the TS1 text companion font pdflatex uses for
// \textcircled at 12 pt (tcrm1200). leakaudit does not ship the ec fonts
// (their licence asks for the whole distribution); it holds the one
// glyph's metrics, facts read from tcrm1200.tfm (width, height, depth of
// character 79, the big circle) and its ink box from the bitmap font
// pdflatex makes of it.
func textCircleFont() *mathFont {
	circleOnce.Do(func() {
		t := &font.TFM{Name: "tcrm1200", DesignSize: 12 << 16, BC: 79, EC: 79,
			Chars: []font.CharInfo{{Exists: true, Width: 1, Height: 1, Depth: 1}}}
		f := font.NewFont(t, 12<<16, []Scaled{0, 855399}, []Scaled{0, 589680}, []Scaled{0, 196560}, []Scaled{0})
		circle = &mathFont{Font: f, Name: "tcrm1200", id: -1}
		circle.ink = make([]inkRec, 80)
		// the ink is the bitmap pdflatex embeds (no Type 1 ec fonts on the
		// reference's system: mktexpk makes tcrm1200.600pk, a 98×104
		// raster at hoff −5, voff 76), in sp: 7,894 sp a 600-dpi pixel
		circle.ink[79] = inkRec{llx: 5 * 7894, lly: -28 * 7894, urx: 103 * 7894, ury: 76 * 7894, ok: true}
	})
	return circle
}

var (
	circleOnce sync.Once
	circle     *mathFont
)

// smallSize is \small's size in the 12 pt article (size12.clo:
// \@setfontsize\small\@xipt{13.6}); its math sizes are 10.95, 8 and 6 pt
// (fontmath.ltx: \DeclareMathSizes{\@xipt}{\@xipt}{8}{6}).
var (
	smallSize         = Scaled(717619) // 10.95pt
	smallBaselineSkip = Scaled(891290) // 13.6pt
)

// smallTextFonts are the text-size fonts of each family at \small, from
// the same font definitions as familyFonts (ot1cmr.fd, omlcmm.fd,
// omscmsy.fd, amsmath's cmex, ueur/umsa/umsb/ueuf.fd, ot1cmss.fd,
// ot1cmtt.fd: the 10 pt designs at 10.95pt); the script sizes are the
// normal ones.
var smallTextFonts = map[int]string{
	famOperators: "cmr10", famLetters: "cmmi10", famSymbols: "cmsy10", famLarge: "cmex10",
	4: "eurm10", 5: "msam10", 6: "msbm10", famBF: "cmbx10", famIT: "cmti10", famFrak: "eufm10",
	famSF: "cmss10", famTT: "cmtt10",
}

// smallBoldTextFonts replace them in the bold math version.
var smallBoldTextFonts = map[int]string{famOperators: "cmbx10", famLetters: "cmmib10", famSymbols: "cmbsy10", famBF: "cmbx10"}

var (
	smallOnce                  sync.Once
	smallFonts, smallBoldFonts fontTable
	smallErr                   error
)

// smallTables returns the font tables of a formula set at \small (a cell
// of an array after \small: \check@mathfonts at its $ selects them).
func smallTables() (normal, bold *fontTable, err error) {
	smallOnce.Do(func() {
		smallFonts, smallBoldFonts = normalFonts, boldFonts
		cache := map[fontSpec]*mathFont{}
		for fam, name := range smallTextFonts {
			f, err := loadFont(fontSpec{name, smallSize}, cache)
			if err != nil {
				smallErr = err
				return
			}
			smallFonts[fam][textSize], smallBoldFonts[fam][textSize] = f, f
		}
		for fam, name := range smallBoldTextFonts {
			f, err := loadFont(fontSpec{name, smallSize}, cache)
			if err != nil {
				smallErr = err
				return
			}
			smallBoldFonts[fam][textSize] = f
		}
	})
	return &smallFonts, &smallBoldFonts, smallErr
}

// boldOf is the bold math version of a font table.
func boldOf(t *fontTable) *fontTable {
	switch t {
	case &smallFonts:
		return &smallBoldFonts
	case &article10Fonts:
		return &article10BoldFont
	}
	return &boldFonts
}

// article10FamilyFonts are the fonts of each family at text, script and
// scriptscript size in a 10 pt article (no class option: size10.clo's
// \normalsize, fontmath.ltx's \DeclareMathSizes{10}{10}{7}{5}), loaded as
// the font definitions load them (ot1cmr.fd, omlcmm.fd, omscmsy.fd,
// amsmath's cmex, umsa/umsb/ueur/ueuf.fd, ot1cmss.fd, ot1cmtt.fd); the
// 10 pt golden DVIs' fnt_defs confirm them.
var article10FamilyFonts = map[int][3]fontSpec{
	famOperators: {{"cmr10", pt(10)}, {"cmr7", pt(7)}, {"cmr5", pt(5)}},
	famLetters:   {{"cmmi10", pt(10)}, {"cmmi7", pt(7)}, {"cmmi5", pt(5)}},
	famSymbols:   {{"cmsy10", pt(10)}, {"cmsy7", pt(7)}, {"cmsy5", pt(5)}},
	famLarge:     {{"cmex10", pt(10)}, {"cmex7", pt(7)}, {"cmex7", pt(5)}},
	4:            {{"eurm10", pt(10)}, {"eurm7", pt(7)}, {"eurm5", pt(5)}},
	5:            {{"msam10", pt(10)}, {"msam7", pt(7)}, {"msam5", pt(5)}},
	6:            {{"msbm10", pt(10)}, {"msbm7", pt(7)}, {"msbm5", pt(5)}},
	famBF:        {{"cmbx10", pt(10)}, {"cmbx7", pt(7)}, {"cmbx5", pt(5)}},
	famIT:        {{"cmti10", pt(10)}, {"cmti7", pt(7)}, {"cmti7", pt(5)}},
	famFrak:      {{"eufm10", pt(10)}, {"eufm7", pt(7)}, {"eufm5", pt(5)}},
	famSF:        {{"cmss10", pt(10)}, {"cmss8", pt(7)}, {"cmss8", pt(5)}},
	famTT:        {{"cmtt10", pt(10)}, {"cmtt8", pt(7)}, {"cmtt8", pt(5)}},
}

// article10BoldFamilyFonts replace them in the bold math version.
var article10BoldFamilyFonts = map[int][3]fontSpec{
	famOperators: {{"cmbx10", pt(10)}, {"cmbx7", pt(7)}, {"cmbx5", pt(5)}},
	famLetters:   {{"cmmib10", pt(10)}, {"cmmib7", pt(7)}, {"cmmib5", pt(5)}},
	famSymbols:   {{"cmbsy10", pt(10)}, {"cmbsy7", pt(7)}, {"cmbsy5", pt(5)}},
	famBF:        {{"cmbx10", pt(10)}, {"cmbx7", pt(7)}, {"cmbx5", pt(5)}},
}

// The 10 pt article's \baselineskip (size10.clo: \@setfontsize\normalsize
// \@xpt\@xiipt), whose 0.7 and 0.3 make \strutbox.
var article10BaselineSkip = pt(12)

var (
	article10Once                     sync.Once
	article10Fonts, article10BoldFont fontTable
	article10Err                      error
)

// article10Tables returns the font tables of a formula set in a 10 pt
// article.
func article10Tables() (normal *fontTable, err error) {
	article10Once.Do(func() {
		article10Err = fillTables(&article10Fonts, &article10BoldFont, article10FamilyFonts, article10BoldFamilyFonts)
	})
	return &article10Fonts, article10Err
}

// fillTables loads a normal and a bold font table from their families'
// font specifications (fonts shared between them are loaded once); a
// family the bold table does not name is the normal table's.
func fillTables(normal, bold *fontTable, specs, boldSpecs map[int][3]fontSpec) error {
	cache := map[fontSpec]*mathFont{}
	fill := func(t *fontTable, specs map[int][3]fontSpec) error {
		for fam, s := range specs {
			for size := range 3 {
				f, err := loadFont(s[size], cache)
				if err != nil {
					return fmt.Errorf("tex: family %d: %w", fam, err)
				}
				t[fam][size] = f
			}
		}
		return nil
	}
	if err := fill(normal, specs); err != nil {
		return err
	}
	if err := fill(bold, boldSpecs); err != nil {
		return err
	}
	for fam := range numFams {
		for size := range 3 {
			if bold[fam][size] == nil {
				bold[fam][size] = normal[fam][size]
			}
		}
	}
	return nil
}
