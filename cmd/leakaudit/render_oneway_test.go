package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// TestRenderLaysOutAsCDM: render draws a formula as CDM scores it, laid
// out on the reference's page. An array with a rule (im2latex test) needs
// that page: laid out without one, it was refused as an unsupported
// construct.
func TestRenderLaysOutAsCDM(t *testing.T) {
	f := `g ^ { a b } = \left( \begin{array} { c | c } { g ^ { i j } } & { 0 } \\ \hline { 0 } & { g ^ { d d } } \\ \end{array} \right) .`
	s := cdm.Render(f, cdm.UniMERNet)
	if s.Failure != "" {
		t.Fatalf("CDM fails on the formula: %s", s.Failure)
	}
	out := filepath.Join(t.TempDir(), "f.png")
	r := cliRun(t, "render", f, "-o", out, "--boxes")
	if r.code != 0 {
		t.Fatalf("render: exit %d: %s", r.code, r.stderr)
	}
	if want := fmt.Sprintf(", %d tokens\n", len(s.Tokens)); !strings.HasSuffix(r.stdout, want) {
		t.Errorf("render printed %q, want it to end in %q", r.stdout, want)
	}
	lt, err := cdm.Lay(f)
	if err != nil {
		t.Fatal(err)
	}
	pic, err := lt.Picture(200)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != pic.Bounds() {
		t.Errorf("render drew %v, CDM's picture is %v", img.Bounds(), pic.Bounds())
	}
}
