package tex

// noadKind is the type of an item of a math list (tex.web part 34).
// The atom kinds come first, in TeX's order, because spacing and the
// Bin rules index by them.
type noadKind uint8

const (
	ordNoad noadKind = iota
	opNoad
	binNoad
	relNoad
	openNoad
	closeNoad
	punctNoad
	innerNoad
	radicalNoad
	fractionNoad
	underNoad
	overNoad
	accentNoad
	vcenterNoad
	leftNoad
	rightNoad
	styleNoad
	choiceNoad
	// non-noad items of a math list
	glueItem
	kernItem
	penaltyItem
	whatsitItem // a colour special: transparent to spacing, blocks rule 14
	boxItem     // a box placed directly in the list (\raise…\box in \sqrt[n])
)

// fieldKind says what a noad field holds.
type fieldKind uint8

const (
	emptyField fieldKind = iota
	mathChar
	mathTextChar
	subBox
	subMlist
)

// field is a nucleus, superscript or subscript.
type field struct {
	fam  int
	c    int
	box  *node
	list []*noad
	tok  int32 // token of a math char
	kind fieldKind
}

// delimiter is a TeX delimiter code: small and large variants.
type delimiter struct {
	smallFam, smallChar, largeFam, largeChar int
	tok                                      int32
}

// Limits of an Op noad.
const (
	limitsNormal uint8 = iota
	limitsOn
	limitsOff
)

// noad is one item of a math list.
//
// The small fields come last, together, so that a noad takes 240 bytes
// (its allocation size class) rather than 288.
type noad struct {
	nucleus field
	sub     field
	sup     field
	glue    *node // glue, kern (width/stretch/shrink), math units when mu
	box     *node
	newList []*node
	// *noadParts holds what only fractions, radicals, accents, \left,
	// \right and \mathchoice have: it is set on those noads (and nil on
	// the others, characters and colour marks, which stay half the size).
	*noadParts
	// accents: the extensible variant flag not needed; underline/overline use nucleus.
	tok    int32 // token of the construct (fraction bar, radical, accent…)
	kind   noadKind
	limits uint8
	style  style
	mu     bool
	// nonscript marks \nonscript glue
	nonscript bool
}

// noadParts are the fields of the noads that need more than a nucleus
// and scripts.
type noadParts struct {
	num, den     []*noad
	thickness    Scaled // fractions; defaultCode for the default
	left, right  delimiter
	delim        delimiter // radical, left/right
	accFam, accC int
	choice       [4][]*noad
}

// defaultCode marks a fraction thickness equal to the font's rule
// thickness (tex.web's default_code).
const defaultCode Scaled = 1 << 30

// style is a TeX math style: 2×{D,T,S,SS} + cramped.
type style uint8

const (
	styleD   style = 0
	styleDc  style = 1
	styleT   style = 2
	styleTc  style = 3
	styleS   style = 4
	styleSc  style = 5
	styleSS  style = 6
	styleSSc style = 7
)

func (s style) cramped() style  { return s | 1 }
func (s style) isCramped() bool { return s&1 == 1 }
func (s style) size() int {
	switch {
	case s < styleS:
		return textSize
	case s < styleSS:
		return scriptSize
	}
	return scriptScriptSize
}
func (s style) sup() style { return 2*(s/4) + 4 + (s & 1) }
func (s style) sub() style { return 2*(s/4) + 5 }
func (s style) num() style { return s + 2 - 2*(s/6) }
func (s style) denom() style {
	return 2*(s/2) + 1 + 2 - 2*(s/6)
}
