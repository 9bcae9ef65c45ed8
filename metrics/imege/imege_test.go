package imege

import (
	"crypto/md5"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

func example(tb testing.TB) (rec, ref *Image) {
	tb.Helper()
	dir := filepath.Dir(shareddata.Path(tb, "imege/rec.pgm"))
	var err error
	if rec, err = ReadFile(filepath.Join(dir, "rec.pgm"), Limits{}); err != nil {
		tb.Fatal(err)
	}
	if ref, err = ReadFile(filepath.Join(dir, "ref.pgm"), Limits{}); err != nil {
		tb.Fatal(err)
	}
	return rec, ref
}

// p2 writes a derivative plane as the original's -f option does.
func p2(w, h int, v []int32) string {
	b := fmt.Appendf(nil, "P2\n%d %d\n255\n", w, h)
	for y := range h {
		for x := range w {
			b = fmt.Appendf(b, " %3d", v[y*w+x])
		}
		b = append(b, '\n')
	}
	return fmt.Sprintf("%x", md5.Sum(b))
}

func TestDerivativesMatchOriginal(t *testing.T) {
	rec, ref := example(t)
	for _, c := range []struct {
		name   string
		g      *Image
		dh, dv string
	}{
		{"rec", rec, "3245c152ce9db373363802f4d0366385", "c2ef1ef234ccbfb79921a8da98ca382c"},
		{"ref", ref, "363f4c0293d082063406ae7fcebabc1f", "adb1d5b484aa3f047d8a64619ae69fcb"},
	} {
		f := derive(c.g, 3)
		if got := p2(f.w, f.h, f.dh); got != c.dh {
			t.Errorf("%s dh md5 %s, want %s", c.name, got, c.dh)
		}
		if got := p2(f.w, f.h, f.dv); got != c.dv {
			t.Errorf("%s dv md5 %s, want %s", c.name, got, c.dv)
		}
	}
}

// The spec's fast values (docs/metrics.md §8.3).
func TestExampleFastSettings(t *testing.T) {
	rec, ref := example(t)
	for _, c := range []struct {
		w, c, i int
		p, r    string
	}{
		{1, 1, 0, "0.671226", "0.592698"},
		{3, 3, 0, "0.309233", "0.354820"},
		{5, 5, 0, "0.380557", "0.579007"},
		{5, 5, 1, "0.361505", "0.580719"},
		{5, 5, 2, "0.391793", "0.567598"},
		{8, 7, 0, "0.556913", "0.751284"},
		{8, 7, 2, "0.541768", "0.775242"},
	} {
		p := Params{Warp: c.w, Context: c.c, Interp: c.i, Size: 3}
		res, err := Compare(rec, ref, p, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		gp, gr, _ := res.Format()
		if gp != c.p || gr != c.r {
			t.Errorf("%+v: P %s R %s, want %s %s", p, gp, gr, c.p, c.r)
		}
	}
}

func TestExampleDefault(t *testing.T) {
	rec, ref := example(t)
	res, err := Compare(rec, ref, DefaultParams, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	p, r, e := res.Format()
	if p != "0.685393" || r != "0.764404" || e != "27.73" {
		t.Errorf("P %s R %s IMEGE %s, want 0.685393 0.764404 27.73", p, r, e)
	}
}

// Without -i 2 every pixel is matched: the original takes about 55 s per
// direction here.
func TestExampleNoInterpolation(t *testing.T) {
	if testing.Short() {
		t.Skip("every pixel matched: seconds")
	}
	rec, ref := example(t)
	p := DefaultParams
	p.Interp = 0
	res, err := Compare(rec, ref, p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if pr, r, _ := res.Format(); pr != "0.688324" || r != "0.764974" {
		t.Errorf("P %s R %s, want 0.688324 0.764974", pr, r)
	}
}
