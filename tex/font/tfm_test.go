package font

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestTFMGolden compares every embedded font, at its design size and at
// 12, 8 and 6 pt, with what TeX itself computes (tex/testdata, made by
// `make goldens` from e-TeX): each character's width, height, depth and
// italic correction, each \fontdimen and the kerns of a few letter pairs,
// all to the scaled point.
func TestTFMGolden(t *testing.T) {
	f, err := os.Open("testdata/tfm_golden.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(gz)
	var font *Font
	var seen map[int]bool
	loads, chars, params, kerns := 0, 0, 0, 0
	checkAll := func() {
		if font == nil {
			return
		}
		for c := font.TFM.BC; c <= font.TFM.EC; c++ {
			if _, ok := font.Char(c); ok && !seen[c] {
				t.Errorf("%s: character %d exists here but not for TeX", font.TFM.Name, c)
			}
		}
	}
	for sc.Scan() {
		var kind string
		var a, b, c, d, e int
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "F "):
			checkAll()
			var name string
			var size int
			fmt.Sscanf(line, "F %s %d", &name, &size)
			tfm, err := LoadTFM(name)
			if err != nil {
				t.Fatal(err)
			}
			font, seen = tfm.Scale(Scaled(size)), map[int]bool{}
			loads++
		case strings.HasPrefix(line, "C "):
			fmt.Sscanf(line, "%s %d %d %d %d %d", &kind, &a, &b, &c, &d, &e)
			wd, ht, dp, ic, ok := font.Metrics(a)
			seen[a] = true
			chars++
			if !ok || int(wd) != b || int(ht) != c || int(dp) != d || int(ic) != e {
				t.Errorf("%s at %d sp, char %d: %d %d %d %d (ok %v), TeX %d %d %d %d", font.TFM.Name, font.Size, a, wd, ht, dp, ic, ok, b, c, d, e)
			}
		case strings.HasPrefix(line, "P "):
			fmt.Sscanf(line, "%s %d %d", &kind, &a, &b)
			params++
			if got := font.Param(a); int(got) != b {
				t.Errorf("%s at %d sp, \\fontdimen%d: %d, TeX %d", font.TFM.Name, font.Size, a, got, b)
			}
		case strings.HasPrefix(line, "K "):
			fmt.Sscanf(line, "%s %d %d %d", &kind, &a, &b, &c)
			kerns++
			got, _ := font.Kern(a, b)
			if int(got) != c {
				t.Errorf("%s at %d sp, kern %q%q: %d, TeX %d", font.TFM.Name, font.Size, rune(a), rune(b), got, c)
			}
		}
	}
	checkAll()
	if loads != 7*len(EmbeddedFonts()) || chars < 20000 {
		t.Errorf("golden covers %d loads and %d characters", loads, chars)
	}
	t.Logf("%d font loads, %d characters, %d parameters, %d kern pairs identical to TeX", loads, chars, params, kerns)
}

func TestParseTFMRejectsDamage(t *testing.T) {
	data, err := fontFiles.ReadFile("fonts/cmr12.tfm")
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": data[:len(data)/2],
		"bad sizes": append([]byte{0, 1}, data[2:]...),
	} {
		if _, err := ParseTFM(name, bad); err == nil {
			t.Errorf("%s TFM accepted", name)
		}
	}
}

func FuzzParseTFM(f *testing.F) {
	data, _ := fontFiles.ReadFile("fonts/cmmi12.tfm")
	f.Add(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		tfm, err := ParseTFM("fuzz", b)
		if err != nil {
			return
		}
		font := tfm.Scale(12 * Unity)
		for c := 0; c < 256; c++ {
			font.Metrics(c)
			font.Kern(c, 'A')
		}
	})
}

// TestAFMAgreesWithTFM checks every embedded AFM against its TFM: each
// character the TFM has is in the AFM, and the AFM's advance is TeX's
// width to within one 1/1000 of the design size (these AFMs sometimes
// truncate, 702.774 written 702, and sometimes round, 574.997 written
// 575). A mismatched file pair would differ by far more.
func TestAFMAgreesWithTFM(t *testing.T) {
	checked, fonts := 0, 0
	for _, name := range EmbeddedFonts() {
		a, err := LoadAFM(name)
		if err != nil {
			continue // Euler at 6 and 8 pt: no AFM in TeX Live
		}
		fonts++
		tfm, _ := LoadTFM(name)
		font := tfm.Scale(0)
		for c := tfm.BC; c <= tfm.EC; c++ {
			wd, _, _, _, ok := font.Metrics(c)
			if !ok {
				continue
			}
			g, found := a.Glyph[c]
			if !found {
				t.Errorf("%s: character %d has no AFM entry", name, c)
				continue
			}
			thousandths := float64(wd) / float64(font.Size) * 1000
			if d := thousandths - float64(g.WX); d <= -1 || d >= 1 {
				t.Errorf("%s: character %d: TFM width %.3f/1000, AFM WX %d", name, c, thousandths, g.WX)
			}
			checked++
		}
	}
	if fonts != len(EmbeddedFonts())-4 || checked < 4000 {
		t.Errorf("checked %d fonts, %d characters", fonts, checked)
	}
	t.Logf("%d fonts, %d characters: AFM advances agree with TFM widths", fonts, checked)
}

func TestInkBox(t *testing.T) {
	tfm, _ := LoadTFM("cmmi12")
	font := tfm.Scale(0)
	// The design's example: cmmi12 f is "B 51 -204 546 704".
	llx, lly, urx, ury, ok := font.InkBox('f')
	want := [4]Scaled{51 * 12 * Unity / 1000, -204 * 12 * Unity / 1000, 546 * 12 * Unity / 1000, 704 * 12 * Unity / 1000}
	if !ok || [4]Scaled{llx, lly, urx, ury} != want {
		t.Errorf("cmmi12 f ink %v %v %v %v (ok %v), want %v", llx, lly, urx, ury, ok, want)
	}
	eurm6, _ := LoadTFM("eurm6")
	if _, _, _, _, ok := eurm6.Scale(0).InkBox('a'); ok {
		t.Error("eurm6 has no AFM but InkBox answered")
	}
	if _, err := ParseAFM("bad", []byte("StartCharMetrics 1\nC 65 ; WX 500 ; N A ; B 1 2 x 4 ;\n")); err == nil {
		t.Error("bad AFM accepted")
	}
}
