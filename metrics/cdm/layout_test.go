package cdm

import (
	"errors"
	"image"
	"image/color"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/latex"
)

func TestOutline(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	c := color.RGBA{200, 10, 10, 255}
	Outline(img, 1, 2, 5, 4, c)
	Outline(img, 6, 6, 9, 9, c) // partly outside: clipped, no panic
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			onBox := (x == 1 || x == 5) && y >= 2 && y <= 4 || (y == 2 || y == 4) && x >= 1 && x <= 5
			onClipped := (x == 6 && y >= 6) || (y == 6 && x >= 6)
			if got := img.RGBAAt(x, y) == c; got != (onBox || onClipped) {
				t.Errorf("pixel (%d,%d) drawn %v, want %v", x, y, got, onBox || onClipped)
			}
		}
	}
}

func TestLay(t *testing.T) {
	deep := strings.Repeat("{", latex.MaxNesting+1) + "x" + strings.Repeat("}", latex.MaxNesting+1)
	if _, err := Lay(deep); !errors.Is(err, latex.ErrTooLarge) || !strings.HasPrefix(err.Error(), "tokenizer: ") {
		t.Errorf("nested too deep: err %v, want the tokenizer's", err)
	}
	// Lay is the path Render scores: the same tokens and boxes.
	for _, f := range []string{`\frac{a}{b}+x^2`, `\sum_{i=1}^{n} i`, `\sqrt{x^2+y^2}`} {
		lt, err := Lay(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s := Render(f, UniMERNet)
		boxes, w, h := lt.Boxes(0)
		if !reflect.DeepEqual(lt.Tokens, s.Tokens) || !reflect.DeepEqual(boxes, s.Boxes) || w != s.W || h != s.H {
			t.Errorf("%s: Lay and Render disagree", f)
		}
		pic, err := lt.Picture(0)
		if err != nil || !reflect.DeepEqual(pic, Picture(f)) {
			t.Errorf("%s: Lay's picture is not Picture's (%v)", f, err)
		}
	}
}
