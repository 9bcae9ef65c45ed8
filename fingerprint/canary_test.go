package fingerprint

import (
	"regexp"
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
