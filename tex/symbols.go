package tex

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// symKind says how a control sequence of the symbol table acts in math.
type symKind uint8

const (
	symMathChar  symKind = iota + 1 // \mathchar"XYZZ
	symDelimiter                    // \delimiter"XYYYZZZ
	symAccent                       // \mathaccent (amsmath \mathaccentV)
	symRadical                      // \radical
)

// symbol is a control sequence's math meaning, decoded from the generated
// table of LaTeX's own \meaning output (symtab.go).
type symbol struct {
	kind  symKind
	class int
	fam   int
	c     int
	delim delimiter
}

var (
	symOnce sync.Once
	symbols map[string]symbol

	reMathChar  = regexp.MustCompile(`^\\mathchar"([0-9A-F]+)$`)
	reDelimiter = regexp.MustCompile(`^(?:\\protected )?macro:->\\delimiter ("[0-9A-F]+|[0-9]+) $`)
	reAccentV   = regexp.MustCompile(`^macro:->\\mathaccentV \{[a-z]+\}([0-9A-F])([0-9A-F]{2})$`)
	reRadical   = regexp.MustCompile(`^macro:->\\radical "([0-9A-F]+)\\relax $`)
)

func parseNum(s string) (int, bool) {
	if strings.HasPrefix(s, `"`) {
		v, err := strconv.ParseInt(s[1:], 16, 64)
		return int(v), err == nil
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

func delimFromCode(v int) delimiter {
	return delimiter{smallFam: v >> 20 & 0xF, smallChar: v >> 12 & 0xFF, largeFam: v >> 8 & 0xF, largeChar: v & 0xFF}
}

func loadSymbols() {
	symOnce.Do(func() {
		symbols = make(map[string]symbol, len(meanings))
		for name, m := range meanings {
			if s, ok := decodeMeaning(m); ok {
				symbols[name] = s
			}
		}
	})
}

func decodeMeaning(m string) (symbol, bool) {
	if g := reMathChar.FindStringSubmatch(m); g != nil {
		v, _ := strconv.ParseInt(g[1], 16, 64)
		return symbol{kind: symMathChar, class: int(v >> 12 & 7), fam: int(v >> 8 & 0xF), c: int(v & 0xFF)}, true
	}
	if g := reDelimiter.FindStringSubmatch(m); g != nil {
		v, ok := parseNum(g[1])
		if !ok {
			return symbol{}, false
		}
		d := delimFromCode(v & 0xFFFFFF)
		return symbol{kind: symDelimiter, class: v >> 24 & 7, fam: d.smallFam, c: d.smallChar, delim: d}, true
	}
	if g := reAccentV.FindStringSubmatch(m); g != nil {
		fam, _ := strconv.ParseInt(g[1], 16, 64)
		c, _ := strconv.ParseInt(g[2], 16, 64)
		return symbol{kind: symAccent, fam: int(fam), c: int(c)}, true
	}
	if g := reRadical.FindStringSubmatch(m); g != nil {
		v, _ := strconv.ParseInt(g[1], 16, 64)
		return symbol{kind: symRadical, delim: delimFromCode(int(v) & 0xFFFFFF)}, true
	}
	return symbol{}, false
}

// mathcodeOf returns an ASCII character's mathcode (class, family,
// slot); class 8 means "active" (mathcode "8000).
func mathcodeOf(c rune) (class, fam, slot int) {
	if c < 0 || c >= 128 {
		return -1, 0, 0
	}
	v := int(mathcodes[c][0])
	if v == 0x8000 {
		return 8, 0, 0
	}
	return v >> 12 & 7, v >> 8 & 0xF, v & 0xFF
}

// delcodeOf returns a character's delimiter code, and false when it has
// none (\delcode −1).
func delcodeOf(c rune) (delimiter, bool) {
	if c < 0 || c >= 128 || mathcodes[c][1] < 0 {
		return delimiter{}, false
	}
	return delimFromCode(int(mathcodes[c][1])), true
}
