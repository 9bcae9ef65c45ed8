package font

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed fonts/*.afm
var afmFiles embed.FS

// Ink is a glyph's ink bounding box from an AFM file, in 1/1000 of the
// font's design size, with y up: (Llx, Lly) to (Urx, Ury).
type Ink struct {
	Llx, Lly, Urx, Ury int
	WX                 int // the AFM's rounded advance; never used to advance
}

// AFM holds the glyph ink boxes of one font by character code.
type AFM struct {
	Name  string
	Glyph map[int]Ink
}

// ParseAFM reads the character metrics of an AFM file: for each
// "C code ; WX w ; N name ; B llx lly urx ury ;" line with a code in
// 0–255, the box and advance.
func ParseAFM(name string, data []byte) (*AFM, error) {
	a := &AFM{Name: name, Glyph: map[int]Ink{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "StartCharMetrics"):
			in = true
			continue
		case strings.HasPrefix(line, "EndCharMetrics"):
			in = false
			continue
		}
		if !in || !strings.HasPrefix(line, "C ") {
			continue
		}
		code, ink, ok := -1, Ink{}, false
		for _, field := range strings.Split(line, ";") {
			f := strings.Fields(field)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "C":
				if len(f) == 2 {
					code, _ = strconv.Atoi(f[1])
				}
			case "WX":
				if len(f) == 2 {
					ink.WX, _ = strconv.Atoi(f[1])
				}
			case "B":
				if len(f) != 5 {
					return nil, fmt.Errorf("%s: bad bounding box in %q", name, line)
				}
				var vals [4]int
				for i := range vals {
					v, err := strconv.Atoi(f[i+1])
					if err != nil {
						return nil, fmt.Errorf("%s: bad bounding box in %q", name, line)
					}
					vals[i] = v
				}
				ink.Llx, ink.Lly, ink.Urx, ink.Ury = vals[0], vals[1], vals[2], vals[3]
				ok = true
			}
		}
		if code >= 0 && code < 256 && ok {
			a.Glyph[code] = ink
		}
	}
	return a, sc.Err()
}

var (
	afmMu sync.Mutex
	afms  = map[string]*AFM{}
)

// LoadAFM returns the embedded AFM of a font ("cmmi12"), or an error when
// TeX Live has none (Euler at 6 and 8 pt).
func LoadAFM(name string) (*AFM, error) {
	afmMu.Lock()
	defer afmMu.Unlock()
	if a, ok := afms[name]; ok {
		return a, nil
	}
	data, err := afmFiles.ReadFile("fonts/" + name + ".afm")
	if err != nil {
		return nil, fmt.Errorf("no embedded AFM for %q", name)
	}
	a, err := ParseAFM(name, data)
	if err != nil {
		return nil, err
	}
	afms[name] = a
	return a, nil
}

// InkBox returns a character's ink box in scaled points at the font's
// size, relative to its reference point, with y up: the AFM box scaled by
// size/1000.
func (f *Font) InkBox(c int) (llx, lly, urx, ury Scaled, ok bool) {
	a, err := LoadAFM(f.TFM.Name)
	if err != nil {
		return 0, 0, 0, 0, false
	}
	g, found := a.Glyph[c]
	if !found {
		return 0, 0, 0, 0, false
	}
	s := func(v int) Scaled { return Scaled(int64(v) * int64(f.Size) / 1000) }
	return s(g.Llx), s(g.Lly), s(g.Urx), s(g.Ury), true
}
