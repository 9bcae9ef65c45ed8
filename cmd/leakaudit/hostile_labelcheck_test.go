package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileLabelCheckPages: labels the TeX engine cannot set, an image
// that cannot be decoded, an empty label and a repeated label, through
// dedup --within --report and neardup --gallery --report: no crash, every
// item accounted for, the pages written with their cards, and only the
// named outputs written.
func TestHostileLabelCheckPages(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	// a and b: one image; c: a's label with its own ink; d: undecodable;
	// e: an empty label (unreadable) with a's image again.
	caption := "a\t\\frac{x}{\nb\t}}{\\left(\nc\t\\frac{x}{\nd\tx\ne\t\n"
	if err := os.MkdirAll(filepath.Join(rel, "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, "caption.txt"), []byte(caption), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "e"} {
		hostilePNG(t, filepath.Join(rel, "img", id+".png"), 10)
	}
	// c: another stroke (a cross), not a copy of a's once cropped.
	cross := image.NewGray(image.Rect(0, 0, 64, 32))
	for i := range cross.Pix {
		cross.Pix[i] = 255
	}
	for i := 4; i < 28; i++ {
		for w := 0; w < 4; w++ {
			cross.SetGray(20+w, i, color.Gray{})
			cross.SetGray(8+i, 14+w, color.Gray{})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, cross); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, "img", "c.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, "img", "d.png"), []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	out, page := filepath.Join(dir, "out"), filepath.Join(dir, "page")
	stdout, stderr, code := runCode(t, "dedup", "--json", "--release", "r="+rel, "--within", "--out", out, "--report", page)
	if code != exitPartial {
		t.Fatalf("dedup: exit %d, want %d (an undecodable image)\n%s", code, exitPartial, stderr)
	}
	for _, want := range []string{`"within_rule": "image copies (label repeats kept and listed)"`, `"label_repeats": 1`, `"items": 5`, `"kept": 2`, `"removed": 3`, `"unreadable": 2`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dedup --json lacks %s:\n%s", want, stdout)
		}
	}
	html, err := os.ReadFile(filepath.Join(page, "index.html"))
	if err != nil || !strings.Contains(string(html), "data:image/png;base64,") || !strings.Contains(string(html), "its image is a copy") {
		t.Errorf("dedup --report page: %v, %d bytes, without the removed items' cards", err, len(html))
	}
	g, rp := filepath.Join(dir, "gallery"), filepath.Join(dir, "ndpage")
	_, stderr, code = runCode(t, "neardup", "--db", filepath.Join(dir, "db"), "--train", "r="+rel, "--test", "r="+rel, "--gallery", g, "--report", rp)
	if code != exitPartial {
		t.Fatalf("neardup: exit %d, want %d\n%s", code, exitPartial, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(g, "index.html")); err != nil || !strings.Contains(string(b), "labels: ") {
		t.Errorf("gallery: %v\n%s", err, b)
	}
	after := snapshot(t, dir)
	for _, p := range changed(before, after) {
		if !strings.HasPrefix(p, "out") && !strings.HasPrefix(p, "page") && !strings.HasPrefix(p, "gallery") && !strings.HasPrefix(p, "ndpage") && !strings.HasPrefix(p, "db") {
			t.Errorf("written outside the named outputs: %s", p)
		}
	}
}
