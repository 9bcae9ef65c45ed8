package font

import (
	"embed"
	"encoding/binary"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed fonts/*.tfm
var fontFiles embed.FS

// Scaled is a TeX dimension in scaled points: 2^-16 pt.
type Scaled int32

// Unity is one point in scaled points.
const Unity Scaled = 1 << 16

// Pt returns d in points.
func (d Scaled) Pt() float64 { return float64(d) / float64(Unity) }

// Tag says what a character's remainder byte means.
type Tag uint8

// Character tags of the TFM format.
const (
	NoTag   Tag = 0 // no remainder
	LigTag  Tag = 1 // remainder starts a lig/kern program
	ListTag Tag = 2 // remainder is the next larger character
	ExtTag  Tag = 3 // remainder indexes an extensible recipe
)

// CharInfo is one character's metric entry, with indices into the
// font's dimension tables.
type CharInfo struct {
	Exists                       bool
	Width, Height, Depth, Italic int // indices
	Tag                          Tag
	Remainder                    int
}

// LigKern is one lig/kern instruction.
type LigKern struct {
	Skip, Next, Op, Rem uint8
}

// Ext is an extensible recipe: top, middle, bottom and repeated pieces
// (0 for an absent piece, except the repeater).
type Ext struct {
	Top, Mid, Bot, Rep uint8
}

// TFM is a parsed font metric file. Dimensions are raw fix_words (signed,
// 20 fractional bits, in units of the design size).
type TFM struct {
	Name       string
	Checksum   uint32
	DesignSize Scaled // in scaled points
	BC, EC     int
	Chars      []CharInfo // index: code - BC
	Widths     []int32
	Heights    []int32
	Depths     []int32
	Italics    []int32
	LigKerns   []LigKern
	Kerns      []int32
	Exts       []Ext
	Params     []int32 // Params[0] is parameter 1 (slant)
}

// ParseTFM reads a TFM file.
func ParseTFM(name string, data []byte) (*TFM, error) {
	if len(data) < 24 {
		return nil, fmt.Errorf("%s: TFM file too short", name)
	}
	h := make([]int, 12)
	for i := range h {
		h[i] = int(binary.BigEndian.Uint16(data[2*i:]))
	}
	lf, lh, bc, ec, nw, nh, nd, ni, nl, nk, ne, np := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11]
	switch {
	case lf*4 > len(data): // TeX ignores bytes past the declared length
		return nil, fmt.Errorf("%s: length field %d words, file %d bytes", name, lf, len(data))
	case lh < 2 || bc > ec+1 || ec > 255:
		return nil, fmt.Errorf("%s: bad header (lh %d, bc %d, ec %d)", name, lh, bc, ec)
	case lf != 6+lh+(ec-bc+1)+nw+nh+nd+ni+nl+nk+ne+np:
		return nil, fmt.Errorf("%s: table sizes do not add up", name)
	}
	word := func(i int) []byte { return data[4*i : 4*i+4] }
	fix := func(i int) int32 { return int32(binary.BigEndian.Uint32(word(i))) }
	t := &TFM{Name: name, BC: bc, EC: ec}
	p := 6
	t.Checksum = binary.BigEndian.Uint32(word(p))
	t.DesignSize = Scaled(fix(p+1) >> 4)
	p += lh
	for c := bc; c <= ec; c++ {
		b := word(p)
		p++
		ci := CharInfo{Width: int(b[0]), Height: int(b[1] >> 4), Depth: int(b[1] & 15), Italic: int(b[2] >> 2), Tag: Tag(b[2] & 3), Remainder: int(b[3])}
		ci.Exists = ci.Width != 0
		t.Chars = append(t.Chars, ci)
	}
	table := func(n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = fix(p + i)
		}
		p += n
		return out
	}
	t.Widths, t.Heights, t.Depths, t.Italics = table(nw), table(nh), table(nd), table(ni)
	for i := 0; i < nl; i++ {
		b := word(p + i)
		t.LigKerns = append(t.LigKerns, LigKern{b[0], b[1], b[2], b[3]})
	}
	p += nl
	t.Kerns = table(nk)
	for i := 0; i < ne; i++ {
		b := word(p + i)
		t.Exts = append(t.Exts, Ext{b[0], b[1], b[2], b[3]})
	}
	p += ne
	t.Params = table(np)
	// Dimensions must be fix_words TeX accepts: |x| < 16 design units
	// (first byte 0 or 255), or scaling would be undefined.
	for _, tab := range [][]int32{t.Widths, t.Heights, t.Depths, t.Italics, t.Kerns, t.Params[min(1, len(t.Params)):]} {
		for _, v := range tab {
			if hi := uint32(v) >> 24; hi != 0 && hi != 255 {
				return nil, fmt.Errorf("%s: dimension %08x out of range", name, uint32(v))
			}
		}
	}
	// Indices must stay inside their tables.
	for c, ci := range t.Chars {
		if ci.Width >= nw || ci.Height >= nh || ci.Depth >= nd || ci.Italic >= ni {
			return nil, fmt.Errorf("%s: character %d indexes past a table", name, c+bc)
		}
		if ci.Tag == ExtTag && ci.Remainder >= ne || ci.Tag == LigTag && ci.Remainder >= nl {
			return nil, fmt.Errorf("%s: character %d has a bad remainder", name, c+bc)
		}
	}
	return t, nil
}

// Font is a TFM loaded at a size, with every dimension scaled to scaled
// points exactly as TeX scales them.
type Font struct {
	TFM                                     *TFM
	Size                                    Scaled
	widths, heights, depths, italics, kerns []Scaled
	params                                  []Scaled
}

// Scale returns the font at the given size (the design size when size is
// zero or negative).
func (t *TFM) Scale(size Scaled) *Font {
	if size <= 0 {
		size = t.DesignSize
	}
	f := &Font{TFM: t, Size: size}
	sc := newScaler(size)
	conv := func(in []int32) []Scaled {
		out := make([]Scaled, len(in))
		for i, v := range in {
			out[i] = sc.scale(v)
		}
		return out
	}
	f.widths, f.heights, f.depths, f.italics, f.kerns = conv(t.Widths), conv(t.Heights), conv(t.Depths), conv(t.Italics), conv(t.Kerns)
	f.params = make([]Scaled, len(t.Params))
	for i, v := range t.Params {
		if i == 0 {
			f.params[i] = Scaled(v >> 4) // slant is not scaled (tex.web §575)
		} else {
			f.params[i] = sc.scale(v)
		}
	}
	return f
}

// scaler is TeX's store_scaled (tex.web §571–572): fix_word × z computed
// with integer arithmetic that never overflows 32 bits.
type scaler struct {
	z, alpha, beta int64
}

func newScaler(z Scaled) scaler {
	zz := int64(z)
	alpha := int64(16)
	for zz >= 0x800000 {
		zz /= 2
		alpha += alpha
	}
	beta := 256 / alpha
	return scaler{z: zz, alpha: alpha * zz, beta: beta}
}

func (s scaler) scale(fix int32) Scaled {
	u := uint32(fix)
	a, b, c, d := int64(u>>24), int64(u>>16&255), int64(u>>8&255), int64(u&255)
	sw := (((((d * s.z) / 256) + (c * s.z)) / 256) + (b * s.z)) / s.beta
	switch a {
	case 0:
		return Scaled(sw)
	case 255:
		return Scaled(sw - s.alpha)
	}
	panic(fmt.Sprintf("tex: fix_word %08x out of range", u))
}

// Char returns a character's info, and whether it exists in the font.
func (f *Font) Char(c int) (CharInfo, bool) {
	if c < f.TFM.BC || c > f.TFM.EC {
		return CharInfo{}, false
	}
	ci := f.TFM.Chars[c-f.TFM.BC]
	return ci, ci.Exists
}

// Metrics returns a character's width, height, depth and italic
// correction in scaled points.
func (f *Font) Metrics(c int) (wd, ht, dp, ic Scaled, ok bool) {
	ci, ok := f.Char(c)
	if !ok {
		return 0, 0, 0, 0, false
	}
	return f.widths[ci.Width], f.heights[ci.Height], f.depths[ci.Depth], f.italics[ci.Italic], true
}

// Param returns font parameter n (1-based, as \fontdimen n), or 0 when the
// font has fewer.
func (f *Font) Param(n int) Scaled {
	if n < 1 || n > len(f.params) {
		return 0
	}
	return f.params[n-1]
}

// Kern returns the kern TeX inserts between characters left and right of
// this font, following left's lig/kern program (tex.web §545, §557), and
// whether there is one. Ligatures are not applied here.
func (f *Font) Kern(left, right int) (Scaled, bool) {
	lig, k, ok := f.ligKern(left, right)
	return k, ok && !lig
}

var (
	fontsMu sync.Mutex
	tfms    = map[string]*TFM{}
)

// LoadTFM returns an embedded TFM by name ("cmr12").
func LoadTFM(name string) (*TFM, error) {
	fontsMu.Lock()
	defer fontsMu.Unlock()
	if t, ok := tfms[name]; ok {
		return t, nil
	}
	data, err := fontFiles.ReadFile("fonts/" + name + ".tfm")
	if err != nil {
		return nil, fmt.Errorf("no embedded font %q", name)
	}
	t, err := ParseTFM(name, data)
	if err != nil {
		return nil, err
	}
	tfms[name] = t
	return t, nil
}

// EmbeddedFonts lists the embedded fonts' names in order.
func EmbeddedFonts() []string {
	var names []string
	fs.WalkDir(fontFiles, "fonts", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tfm") {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(p, "fonts/"), ".tfm"))
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// LigKernStep runs left's lig/kern program for right (tex.web §545,
// §752): op ≥ 128 is a kern of the given size, otherwise a ligature
// instruction (op and the ligature character rem).
func (f *Font) LigKernStep(left, right int) (op, rem int, kern Scaled, ok bool) {
	ci, found := f.Char(left)
	if !found || ci.Tag != LigTag {
		return 0, 0, 0, false
	}
	lk := f.TFM.LigKerns
	i := ci.Remainder
	if lk[i].Skip > 128 {
		i = 256*int(lk[i].Op) + int(lk[i].Rem)
	}
	for i < len(lk) {
		in := lk[i]
		if int(in.Next) == right && in.Skip <= 128 {
			if in.Op >= 128 {
				k := 256*int(in.Op-128) + int(in.Rem)
				if k >= len(f.kerns) {
					return 0, 0, 0, false
				}
				return int(in.Op), 0, f.kerns[k], true
			}
			return int(in.Op), int(in.Rem), 0, true
		}
		if in.Skip >= 128 {
			return 0, 0, 0, false
		}
		i += int(in.Skip) + 1
	}
	return 0, 0, 0, false
}

// ligKern reports the kern, or a ligature, between two characters.
func (f *Font) ligKern(left, right int) (lig bool, kern Scaled, ok bool) {
	op, _, k, ok := f.LigKernStep(left, right)
	if !ok {
		return false, 0, false
	}
	return op < 128, k, true
}

// SkewKern is the kern between c and the font's skew character, TeX's
// accent skew (tex.web §741).
func (f *Font) SkewKern(c, skew int) Scaled {
	if skew < 0 {
		return 0
	}
	lig, k, ok := f.ligKern(c, skew)
	if !ok || lig {
		return 0
	}
	return k
}

// NewFont returns a font at size whose scaled metrics are given rather
// than computed from t: for a glyph whose metrics leakaudit holds as facts
// read from a font it does not ship (widths, heights, depths and italics
// indexed by character from t.BC).
func NewFont(t *TFM, size Scaled, widths, heights, depths, italics []Scaled) *Font {
	return &Font{TFM: t, Size: size, widths: widths, heights: heights, depths: depths, italics: italics}
}
