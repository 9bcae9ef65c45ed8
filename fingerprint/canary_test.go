package fingerprint

import (
	"regexp"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
)

// TestImageCanary: the canary is a 32-digit hex digest, the same on every
// call, and the canary images are not blank (their hashes say something
// about the code).
func TestImageCanary(t *testing.T) {
	d := ImageCanary()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(d) {
		t.Fatalf("canary %q", d)
	}
	if again := ImageCanary(); again != d {
		t.Errorf("canary %s, then %s", d, again)
	}
	for i, img := range canaryImages() {
		fp, err := imagehash.Compute(img, imagehash.Options{})
		if err != nil || fp.Blank || fp.Ink.IsZero() {
			t.Errorf("canary image %d: blank %v, ink %v, %v", i, fp.Blank, !fp.Ink.IsZero(), err)
		}
	}
}

// TestCanaryDigest: a change in any stored part of a canary fingerprint
// changes the digest.
func TestCanaryDigest(t *testing.T) {
	base, err := imagehash.Compute(canaryImages()[0], imagehash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := canaryDigest([]imagehash.Hashes{base})
	if got := canaryDigest([]imagehash.Hashes{base}); got != want {
		t.Fatalf("digest of the same fingerprint: %s, then %s", want, got)
	}
	for _, tc := range []struct {
		name   string
		change func(*imagehash.Hashes)
	}{
		{"hash", func(fp *imagehash.Hashes) { fp.Hash ^= 1 }},
		{"fine hash", func(fp *imagehash.Hashes) { fp.Fine[3] ^= 1 << 63 }},
		{"pixel digest", func(fp *imagehash.Hashes) { fp.Digest[15]++ }},
		{"blank", func(fp *imagehash.Hashes) { fp.Blank = !fp.Blank }},
		{"width", func(fp *imagehash.Hashes) { fp.Width++ }},
		{"height", func(fp *imagehash.Hashes) { fp.Height-- }},
		{"ink", func(fp *imagehash.Hashes) { fp.Ink[40] ^= 1 << 7 }},
	} {
		fp := base
		tc.change(&fp)
		if got := canaryDigest([]imagehash.Hashes{fp}); got == want {
			t.Errorf("%s changed, digest unchanged", tc.name)
		}
	}
}

// TestCheckImagesCanary: an image fingerprint is accepted only when its
// images were hashed by code with this build's canary; one without a
// canary (made before it was recorded) or with another is refused, and the
// settings are recorded and read back with it.
func TestCheckImagesCanary(t *testing.T) {
	want := Settings(imagehash.Options{})
	if want.Canary != ImageCanary() {
		t.Fatalf("settings canary %q", want.Canary)
	}
	if got, err := parseImageSettings(want.String()); err != nil || got != want {
		t.Errorf("%s read back as %+v, %v", want, got, err)
	}
	withCanary := func(c string) *ImageSettings { s := want; s.Canary = c; return &s }
	otherKind := *withCanary("0123")
	otherKind.Kind = imagehash.DHash
	for _, tc := range []struct {
		name   string
		images *ImageSettings
		err    string // "" for accepted
	}{
		{"this canary", withCanary(want.Canary), ""},
		{"no canary", withCanary(""), "recorded no image canary"},
		{"another canary", withCanary("0123456789abcdef0123456789abcdef"), "hashes the canary images differently"},
		{"another hash", &otherKind, "this search uses kind=phash canvas=stretch size=64 version="},
	} {
		m := Meta{Tool: "leakaudit test", Images: tc.images}
		err := m.CheckImages(imagehash.Options{})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "canary="):
			t.Errorf("%s: the message shows the canary as a setting: %v", tc.name, err)
		}
	}
}
