package font

import (
	"bytes"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// The Type 1 outlines pdflatex embeds for the fonts of fonts/ (the AMS
// Type 1 versions of Computer Modern, AMS symbols and Euler), unmodified,
// under the SIL Open Font License (fonts/OFL.txt).
//
//go:embed fonts/*.pfb
var pfbFiles embed.FS

// Type1 is a Type 1 font program (Adobe Type 1 Font Format, 1990): its
// built-in encoding and the decrypted charstrings of its glyphs. Glyph
// outlines come from Outline.
type Type1 struct {
	Name        string
	Encoding    [256]string // glyph name per character code; "" for none
	charStrings map[string][]byte
	subrs       [][]byte
}

// Limits of the Type 1 reader and interpreter, so that a damaged font
// cannot loop or exhaust memory.
const (
	maxCharstringOps = 20_000
	maxSubrDepth     = 10
	maxType1Glyphs   = 4096
)

var errType1 = errors.New("tex: bad Type 1 font")

// ParseType1 reads a Type 1 font in PFB form (segments of clear text and
// eexec-encrypted binary, as TeX Live ships them).
func ParseType1(name string, data []byte) (*Type1, error) {
	clear, enc, err := pfbSegments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &Type1{Name: name, charStrings: map[string][]byte{}}
	if err := f.parseEncoding(clear); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	priv := decrypt(enc, 55665, 4)
	if err := f.parsePrivate(priv); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// pfbSegments splits a PFB file into its clear text and its encrypted
// part: each segment is 0x80, a type (1 text, 2 binary, 3 end) and a
// little-endian length.
func pfbSegments(data []byte) (clear, enc []byte, err error) {
	for len(data) > 0 {
		if len(data) < 2 || data[0] != 0x80 {
			return nil, nil, fmt.Errorf("%w: not a PFB segment", errType1)
		}
		typ := data[1]
		if typ == 3 {
			break
		}
		if len(data) < 6 {
			return nil, nil, fmt.Errorf("%w: truncated segment header", errType1)
		}
		n := int(binary.LittleEndian.Uint32(data[2:6]))
		data = data[6:]
		if n < 0 || n > len(data) {
			return nil, nil, fmt.Errorf("%w: segment of %d bytes past the end", errType1, n)
		}
		switch typ {
		case 1:
			if enc == nil {
				clear = append(clear, data[:n]...)
			}
		case 2:
			enc = append(enc, data[:n]...)
		default:
			return nil, nil, fmt.Errorf("%w: segment type %d", errType1, typ)
		}
		data = data[n:]
	}
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: no encrypted part", errType1)
	}
	return clear, enc, nil
}

// decrypt is Type 1 decryption (§7.1) with key r, dropping the first skip
// plain bytes.
func decrypt(cipher []byte, r uint16, skip int) []byte {
	out := make([]byte, len(cipher))
	for i, c := range cipher {
		out[i] = c ^ byte(r>>8)
		r = (uint16(c)+r)*52845 + 22719
	}
	if skip > len(out) {
		return nil
	}
	return out[skip:]
}

// psScanner reads PostScript-like tokens from the font's text.
type psScanner struct {
	b   []byte
	pos int
}

func isPSSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0
}

func isPSDelim(c byte) bool {
	return isPSSpace(c) || c == '/' || c == '[' || c == ']' || c == '{' || c == '}' || c == '(' || c == ')' || c == '<' || c == '>' || c == '%'
}

// next returns the next token: a name with its slash, a number, an
// operator, or a delimiter.
func (s *psScanner) next() string {
	for s.pos < len(s.b) && isPSSpace(s.b[s.pos]) {
		s.pos++
	}
	if s.pos >= len(s.b) {
		return ""
	}
	start := s.pos
	if s.b[s.pos] == '/' {
		s.pos++
	} else if isPSDelim(s.b[s.pos]) {
		s.pos++
		return string(s.b[start:s.pos])
	}
	for s.pos < len(s.b) && !isPSDelim(s.b[s.pos]) {
		s.pos++
	}
	return string(s.b[start:s.pos])
}

// parseEncoding reads /Encoding from the clear text: StandardEncoding or
// a list of "dup code /name put".
func (f *Type1) parseEncoding(clear []byte) error {
	i := bytes.Index(clear, []byte("/Encoding"))
	if i < 0 {
		return fmt.Errorf("%w: no /Encoding", errType1)
	}
	s := &psScanner{b: clear, pos: i + len("/Encoding")}
	if t := s.next(); t == "StandardEncoding" {
		f.Encoding = stdEncoding
		return nil
	}
	for {
		t := s.next()
		switch t {
		case "":
			return fmt.Errorf("%w: unterminated /Encoding", errType1)
		case "def", "readonly":
			return nil
		case "dup":
			code, err := strconv.Atoi(s.next())
			name := s.next()
			if err != nil || code < 0 || code > 255 || len(name) < 2 || name[0] != '/' {
				return fmt.Errorf("%w: bad /Encoding entry", errType1)
			}
			f.Encoding[code] = name[1:]
		}
	}
}

// binaryArg reads "n RD " and the n bytes after the single space that
// follows RD (or -|).
func (s *psScanner) binaryArg() ([]byte, error) {
	n, err := strconv.Atoi(s.next())
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: bad charstring length", errType1)
	}
	s.next() // RD or -|
	s.pos++  // the one space
	if s.pos+n > len(s.b) {
		return nil, fmt.Errorf("%w: charstring past the end", errType1)
	}
	out := s.b[s.pos : s.pos+n]
	s.pos += n
	return out, nil
}

// parsePrivate reads lenIV, the Subrs and the CharStrings of the
// decrypted private part.
func (f *Type1) parsePrivate(priv []byte) error {
	lenIV := 4
	if i := bytes.Index(priv, []byte("/lenIV")); i >= 0 {
		s := &psScanner{b: priv, pos: i + len("/lenIV")}
		if v, err := strconv.Atoi(s.next()); err == nil && v >= -1 && v < 64 {
			lenIV = v
		}
	}
	plain := func(cs []byte) []byte {
		if lenIV < 0 {
			return append([]byte(nil), cs...)
		}
		return decrypt(cs, 4330, lenIV)
	}
	if i := bytes.Index(priv, []byte("/Subrs")); i >= 0 {
		s := &psScanner{b: priv, pos: i + len("/Subrs")}
		n, err := strconv.Atoi(s.next())
		if err != nil || n < 0 || n > maxType1Glyphs {
			return fmt.Errorf("%w: bad /Subrs count", errType1)
		}
		f.subrs = make([][]byte, n)
		for k := 0; k < n; k++ {
			for t := s.next(); t != "dup"; t = s.next() {
				if t == "" {
					return fmt.Errorf("%w: truncated /Subrs", errType1)
				}
			}
			idx, err := strconv.Atoi(s.next())
			if err != nil || idx < 0 || idx >= n {
				return fmt.Errorf("%w: bad subroutine index", errType1)
			}
			cs, err := s.binaryArg()
			if err != nil {
				return err
			}
			f.subrs[idx] = plain(cs)
		}
	}
	i := bytes.Index(priv, []byte("/CharStrings"))
	if i < 0 {
		return fmt.Errorf("%w: no /CharStrings", errType1)
	}
	s := &psScanner{b: priv, pos: i + len("/CharStrings")}
	n, err := strconv.Atoi(s.next())
	if err != nil || n < 0 || n > maxType1Glyphs {
		return fmt.Errorf("%w: bad /CharStrings count", errType1)
	}
	for len(f.charStrings) < n {
		t := s.next()
		switch {
		case t == "" || t == "end":
			return nil
		case len(t) > 1 && t[0] == '/':
			cs, err := s.binaryArg()
			if err != nil {
				return err
			}
			f.charStrings[t[1:]] = plain(cs)
		}
	}
	return nil
}

// Point is a point of a glyph outline.
type Point struct{ X, Y float64 }

// PathOp is one step of an outline: MoveTo (one point), LineTo (one),
// CubeTo (two control points and the end) or Close.
type PathOp struct {
	Kind byte // 'M', 'L', 'C', 'Z'
	Pts  [3]Point
}

// Outline is a glyph's outline in font units (1/1000 of the font size for
// these fonts), y up, with its advance.
type Outline struct {
	Ops     []PathOp
	Advance float64
}

// Outline interprets the charstring of the glyph that code has in the
// font's built-in encoding (Type 1 charstrings, §6: hints are ignored,
// flex is drawn as its two curves, seac composes two glyphs).
func (f *Type1) Outline(code int) (*Outline, error) {
	if code < 0 || code > 255 || f.Encoding[code] == "" {
		return nil, fmt.Errorf("%s: no glyph for code %d", f.Name, code)
	}
	return f.outlineByName(f.Encoding[code], 0)
}

func (f *Type1) outlineByName(name string, depth int) (*Outline, error) {
	cs, ok := f.charStrings[name]
	if !ok {
		return nil, fmt.Errorf("%s: no charstring %q", f.Name, name)
	}
	in := &t1interp{f: f, depth: depth}
	if err := in.run(cs, 0); err != nil {
		return nil, fmt.Errorf("%s: glyph %q: %w", f.Name, name, err)
	}
	return &in.out, nil
}

// t1interp is the state of one charstring run.
type t1interp struct {
	f       *Type1
	out     Outline
	stack   []float64
	ps      []float64 // the PostScript stack of callothersubr/pop
	x, y    float64
	open    bool // a subpath is open
	flex    bool
	flexPts []Point
	ops     int
	depth   int // seac nesting
	done    bool
}

func (in *t1interp) pop(n int) ([]float64, error) {
	if n < 0 || len(in.stack) < n {
		return nil, fmt.Errorf("%w: stack underflow", errType1)
	}
	args := in.stack[len(in.stack)-n:]
	in.stack = in.stack[:len(in.stack)-n]
	return args, nil
}

func (in *t1interp) moveTo(dx, dy float64) {
	in.x += dx
	in.y += dy
	if in.flex {
		in.flexPts = append(in.flexPts, Point{in.x, in.y})
		return
	}
	if in.open {
		in.out.Ops = append(in.out.Ops, PathOp{Kind: 'Z'})
	}
	in.out.Ops = append(in.out.Ops, PathOp{Kind: 'M', Pts: [3]Point{{in.x, in.y}}})
	in.open = true
}

func (in *t1interp) lineTo(dx, dy float64) {
	in.x += dx
	in.y += dy
	in.out.Ops = append(in.out.Ops, PathOp{Kind: 'L', Pts: [3]Point{{in.x, in.y}}})
}

func (in *t1interp) curveTo(dx1, dy1, dx2, dy2, dx3, dy3 float64) {
	p1 := Point{in.x + dx1, in.y + dy1}
	p2 := Point{p1.X + dx2, p1.Y + dy2}
	p3 := Point{p2.X + dx3, p2.Y + dy3}
	in.x, in.y = p3.X, p3.Y
	in.out.Ops = append(in.out.Ops, PathOp{Kind: 'C', Pts: [3]Point{p1, p2, p3}})
}

func (in *t1interp) closePath() {
	if in.open {
		in.out.Ops = append(in.out.Ops, PathOp{Kind: 'Z'})
		in.open = false
	}
}

// t1Arity is the number of operands each one-byte charstring operator
// takes from the stack (−1: not an operator).
var t1Arity = [32]int8{-1, 0, -1, 0, 1, 2, 1, 1, 6, 0, 1, 0, 0, 2, 0, -1, -1, -1, -1, -1, -1, 2, 1, -1, -1, -1, -1, -1, -1, -1, 4, 4}

// run interprets one charstring (or subroutine at call depth level).
func (in *t1interp) run(cs []byte, level int) error {
	if level > maxSubrDepth {
		return fmt.Errorf("%w: subroutines nested too deep", errType1)
	}
	for i := 0; i < len(cs) && !in.done; {
		in.ops++
		if in.ops > maxCharstringOps {
			return fmt.Errorf("%w: charstring too long", errType1)
		}
		if len(in.stack) > 48 {
			return fmt.Errorf("%w: stack overflow", errType1)
		}
		v := cs[i]
		i++
		switch {
		case v >= 32 && v <= 246:
			in.stack = append(in.stack, float64(int(v)-139))
			continue
		case v >= 247 && v <= 250:
			if i >= len(cs) {
				return fmt.Errorf("%w: truncated number", errType1)
			}
			in.stack = append(in.stack, float64((int(v)-247)*256+int(cs[i])+108))
			i++
			continue
		case v >= 251 && v <= 254:
			if i >= len(cs) {
				return fmt.Errorf("%w: truncated number", errType1)
			}
			in.stack = append(in.stack, float64(-(int(v)-251)*256-int(cs[i])-108))
			i++
			continue
		case v == 255:
			if i+4 > len(cs) {
				return fmt.Errorf("%w: truncated number", errType1)
			}
			in.stack = append(in.stack, float64(int32(binary.BigEndian.Uint32(cs[i:]))))
			i += 4
			continue
		}
		if int(v) >= len(t1Arity) || t1Arity[v] < 0 {
			return fmt.Errorf("%w: operator %d", errType1, v)
		}
		a, err := in.pop(int(t1Arity[v]))
		if err != nil {
			return err
		}
		switch v {
		case 1, 3: // hstem, vstem
			in.stack = in.stack[:0]
		case 4: // vmoveto
			in.moveTo(0, a[0])
		case 5: // rlineto
			in.lineTo(a[0], a[1])
		case 6: // hlineto
			in.lineTo(a[0], 0)
		case 7: // vlineto
			in.lineTo(0, a[0])
		case 8: // rrcurveto
			in.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
		case 9: // closepath
			in.closePath()
			in.stack = in.stack[:0]
		case 10: // callsubr
			k := int(a[0])
			if k < 0 || k >= len(in.f.subrs) || in.f.subrs[k] == nil {
				return fmt.Errorf("%w: subroutine %d missing", errType1, k)
			}
			if err := in.run(in.f.subrs[k], level+1); err != nil {
				return err
			}
		case 11: // return
			return nil
		case 12:
			if i >= len(cs) {
				return fmt.Errorf("%w: truncated escape", errType1)
			}
			if err := in.escape(cs[i]); err != nil {
				return err
			}
			i++
		case 13: // hsbw
			in.x, in.y, in.out.Advance = a[0], 0, a[1]
			in.stack = in.stack[:0]
		case 14: // endchar
			in.closePath()
			in.done = true
		case 21: // rmoveto
			in.moveTo(a[0], a[1])
		case 22: // hmoveto
			in.moveTo(a[0], 0)
		case 30: // vhcurveto
			in.curveTo(0, a[0], a[1], a[2], a[3], 0)
		case 31: // hvcurveto
			in.curveTo(a[0], 0, a[1], a[2], 0, a[3])
		}
	}
	return nil
}

// escape runs a two-byte operator (12 v).
func (in *t1interp) escape(v byte) error {
	switch v {
	case 0, 1, 2: // dotsection, vstem3, hstem3
		in.stack = in.stack[:0]
	case 6: // seac: asb adx ady bchar achar
		a, err := in.pop(5)
		if err != nil {
			return err
		}
		return in.seac(a[0], a[1], a[2], int(a[3]), int(a[4]))
	case 7: // sbw
		a, err := in.pop(4)
		if err != nil {
			return err
		}
		in.x, in.y, in.out.Advance = a[0], a[1], a[2]
		in.stack = in.stack[:0]
	case 12: // div
		a, err := in.pop(2)
		if err != nil {
			return err
		}
		if a[1] == 0 {
			return fmt.Errorf("%w: division by zero", errType1)
		}
		in.stack = append(in.stack, a[0]/a[1])
	case 16: // callothersubr
		a, err := in.pop(2)
		if err != nil {
			return err
		}
		n, other := int(a[0]), int(a[1])
		args, err := in.pop(n)
		if err != nil {
			return err
		}
		return in.otherSubr(other, args)
	case 17: // pop
		if len(in.ps) == 0 {
			return fmt.Errorf("%w: PostScript stack underflow", errType1)
		}
		in.stack = append(in.stack, in.ps[len(in.ps)-1])
		in.ps = in.ps[:len(in.ps)-1]
	case 33: // setcurrentpoint
		a, err := in.pop(2)
		if err != nil {
			return err
		}
		in.x, in.y = a[0], a[1]
	default:
		return fmt.Errorf("%w: operator 12 %d", errType1, v)
	}
	return nil
}

// otherSubr runs the standard OtherSubrs: 0–2 flex, 3 hint replacement;
// any other returns its arguments, as the fonts' own procedures do.
func (in *t1interp) otherSubr(k int, args []float64) error {
	push := func(vals ...float64) {
		for j := len(vals) - 1; j >= 0; j-- {
			in.ps = append(in.ps, vals[j])
		}
	}
	switch k {
	case 1: // start flex
		in.flex = true
		in.flexPts = in.flexPts[:0]
	case 2: // a flex point: recorded by the rmoveto before it
	case 0: // end flex: flexheight x y
		if len(args) != 3 {
			return fmt.Errorf("%w: flex end with %d arguments", errType1, len(args))
		}
		in.flex = false
		p := in.flexPts
		if len(p) != 7 {
			return fmt.Errorf("%w: flex with %d points", errType1, len(p))
		}
		// p[0] is the reference point; the two curves follow it.
		for _, c := range [][3]Point{{p[1], p[2], p[3]}, {p[4], p[5], p[6]}} {
			in.out.Ops = append(in.out.Ops, PathOp{Kind: 'C', Pts: c})
		}
		in.x, in.y = p[6].X, p[6].Y
		push(args[1], args[2])
	case 3: // hint replacement: returns its subroutine number
		push(3)
		if len(args) > 0 {
			in.ps[len(in.ps)-1] = args[0]
		}
	default:
		push(args...)
	}
	return nil
}

// seac draws an accented character from two glyphs of the standard
// encoding: the base at the origin, the accent moved by (adx − asb, ady).
func (in *t1interp) seac(asb, adx, ady float64, base, accent int) error {
	if in.depth > 0 {
		return fmt.Errorf("%w: nested seac", errType1)
	}
	std := &stdEncoding
	if base < 0 || base > 255 || accent < 0 || accent > 255 || std[base] == "" || std[accent] == "" {
		return fmt.Errorf("%w: seac codes %d %d", errType1, base, accent)
	}
	b, err := in.f.outlineByName(std[base], in.depth+1)
	if err != nil {
		return err
	}
	a, err := in.f.outlineByName(std[accent], in.depth+1)
	if err != nil {
		return err
	}
	in.out.Ops = append(in.out.Ops[:0], b.Ops...)
	dx, dy := adx-asb, ady
	for _, op := range a.Ops {
		for j := range op.Pts {
			op.Pts[j].X += dx
			op.Pts[j].Y += dy
		}
		in.out.Ops = append(in.out.Ops, op)
	}
	in.open = false
	in.done = true
	return nil
}

var stdEncoding = standardEncoding()

// standardEncoding is Adobe StandardEncoding for the codes seac may name:
// printable ASCII and the accents.
func standardEncoding() [256]string {
	var e [256]string
	ascii := []string{"space", "exclam", "quotedbl", "numbersign", "dollar", "percent", "ampersand", "quoteright",
		"parenleft", "parenright", "asterisk", "plus", "comma", "hyphen", "period", "slash",
		"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"colon", "semicolon", "less", "equal", "greater", "question", "at"}
	for i, n := range ascii {
		e[32+i] = n
	}
	for c := 'A'; c <= 'Z'; c++ {
		e[c] = string(c)
	}
	for i, n := range []string{"bracketleft", "backslash", "bracketright", "asciicircum", "underscore", "quoteleft"} {
		e[91+i] = n
	}
	for c := 'a'; c <= 'z'; c++ {
		e[c] = string(c)
	}
	for i, n := range []string{"braceleft", "bar", "braceright", "asciitilde"} {
		e[123+i] = n
	}
	for i, n := range []string{"grave", "acute", "circumflex", "tilde", "macron", "breve", "dotaccent", "dieresis", "", "ring", "cedilla", "", "hungarumlaut", "ogonek", "caron"} {
		e[193+i] = n
	}
	e[245] = "dotlessi"
	return e
}

// pfbFor is the Type 1 file pdfTeX embeds for a TFM name (pdftex.map):
// Euler at 6 and 8 pt uses the 7 pt outlines.
func pfbFor(tfm string) string {
	switch tfm {
	case "eufm6", "eufm8":
		return "eufm7"
	case "eurm6", "eurm8":
		return "eurm7"
	}
	return tfm
}

var (
	type1Mu    sync.Mutex
	type1Fonts = map[string]*Type1{}
	type1Errs  = map[string]error{}
)

// LoadType1 returns the embedded Type 1 font pdfTeX uses for a TFM name
// ("cmmi12", "eufm6").
func LoadType1(tfm string) (*Type1, error) {
	name := pfbFor(tfm)
	type1Mu.Lock()
	defer type1Mu.Unlock()
	if f, ok := type1Fonts[name]; ok {
		return f, nil
	}
	if err, ok := type1Errs[name]; ok {
		return nil, err
	}
	data, err := pfbFiles.ReadFile("fonts/" + name + ".pfb")
	var f *Type1
	if err == nil {
		f, err = ParseType1(name, data)
	} else {
		err = fmt.Errorf("no embedded Type 1 font for %q", tfm)
	}
	if err != nil {
		type1Errs[name] = err
		return nil, err
	}
	type1Fonts[name] = f
	return f, nil
}
