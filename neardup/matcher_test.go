package neardup

import (
	"context"
	"image"
	"testing"

	"github.com/leakaudit/leakaudit/imagehash"
)

// hashOf hashes an image with the default options, with probes for a
// query.
func hashOf(t *testing.T, img image.Image, probe bool) imagehash.Hashes {
	t.Helper()
	h, err := imagehash.Compute(img, imagehash.Options{Kind: imagehash.PHash, Canvas: imagehash.Stretch, Probe: probe})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestMatcherSearch: a Matcher finds a query's copy among its images and
// nothing else, verified; an image its skip function refuses is never
// matched; without Unverified a candidate Verify refuses is left out, and
// with it listed unverified.
func TestMatcherSearch(t *testing.T) {
	prints := []imagehash.Hashes{hashOf(t, bars(4, false), false), hashOf(t, ring(), false), hashOf(t, bars(-6, false), false)}
	m, err := NewMatcher(context.Background(), len(prints), func(i int) *imagehash.Hashes { return &prints[i] }, true)
	if err != nil {
		t.Fatal(err)
	}
	query := hashOf(t, twice(ring()), true)
	for _, tt := range []struct {
		name string
		skip func(int) bool
		want []int
	}{
		{"all", nil, []int{1}},
		{"skip the copy", func(pos int) bool { return pos == 1 }, nil},
		{"skip others", func(pos int) bool { return pos != 1 }, []int{1}},
	} {
		var got []int
		for _, mt := range m.Search(query, DefaultMaxDistance, false, tt.skip) {
			if !mt.Verified || mt.By != ByPHash {
				t.Errorf("%s: image %d matched verified %v by %d; want verified by the pHash", tt.name, mt.Pos, mt.Verified, mt.By)
			}
			got = append(got, mt.Pos)
		}
		if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] {
			t.Errorf("%s: matched %v, want %v", tt.name, got, tt.want)
		}
	}
	// The bars inverted: a copy of image 0. At a radius that takes every
	// image as a candidate, the two others are left out, or with
	// unverified listed so.
	inverted := hashOf(t, bars(4, true), true)
	for _, unverified := range []bool{false, true} {
		got := map[int]bool{}
		for _, mt := range m.Search(inverted, 64, unverified, nil) {
			got[mt.Pos] = mt.Verified
		}
		want := map[int]bool{0: true}
		if unverified {
			want = map[int]bool{0: true, 1: false, 2: false}
		}
		if len(got) != len(want) || got[0] != true || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("unverified %v: matched %v (image: verified), want %v", unverified, got, want)
		}
	}
}

// TestMatcherLoneUnverified: a lone symbol whose candidates within the
// radius are none verified gets them back; a lone symbol with a verified
// copy, and an image of two pieces with an unverified candidate, get nil.
func TestMatcherLoneUnverified(t *testing.T) {
	prints := []imagehash.Hashes{hashOf(t, rings(1, 0), false), hashOf(t, rings(2, 0), false)}
	m, err := NewMatcher(context.Background(), len(prints), func(i int) *imagehash.Hashes { return &prints[i] }, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		query image.Image
		want  []int
	}{
		{"egg", rings(1, 0.2), []int{0}},
		{"verified ring", twice(rings(1, 0)), nil},
		{"two eggs", rings(2, 0.4), nil},
	} {
		var got []int
		for _, mt := range m.LoneUnverified(hashOf(t, tt.query, true), 20, nil) {
			if mt.Verified {
				t.Errorf("%s: image %d verified", tt.name, mt.Pos)
			}
			got = append(got, mt.Pos)
		}
		if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
