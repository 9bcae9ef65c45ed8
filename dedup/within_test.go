package dedup

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
)

// TestWithinImageRule: inside a release with images, a copied image is a
// duplicate whatever its label, and a repeated label with another image
// (another writer's sample) is kept and listed, unless WithinLabels; a
// release without images keeps the label rule.
func TestWithinImageRule(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	// a and b: one formula, two writers; c: a's image with another label;
	// d: its own formula; e: b's image and label again.
	write(t, filepath.Join(rel, "caption.txt"), []byte("a\tx^2\nb\tx ^2\nc\ty^2\nd\t\\alpha\ne\tx^ 2\n"))
	for id, seed := range map[string]int{"a": 11, "b": 12, "c": 11, "d": 13, "e": 12} {
		write(t, filepath.Join(rel, "img", id+".png"), formulaPNG(t, seed))
	}
	labels := filepath.Join(dir, "labels.json")
	write(t, labels, []byte(`["x^2", "x ^2", "y"]`))
	cases := []struct {
		name        string
		src         dataset.Source
		labels      bool
		wantRemoved map[string]Reason
		wantLevel   map[string]string
		wantRepeats []string
		wantRule    string
	}{
		{"images", dataset.Source{Path: rel, Format: dataset.Caption}, false,
			map[string]Reason{"c": ReasonWithin, "e": ReasonWithin}, map[string]string{"c": "image", "e": "image"}, []string{"b"}, withinImages},
		{"images+labels", dataset.Source{Path: rel, Format: dataset.Caption}, true,
			map[string]Reason{"b": ReasonWithin, "c": ReasonWithin, "e": ReasonWithin}, map[string]string{"b": "ws", "c": "image", "e": "ws"}, nil, withinBoth},
		{"no images", dataset.Source{Path: labels}, false,
			map[string]Reason{"1": ReasonWithin}, map[string]string{"1": "ws"}, nil, withinLabels},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: c.src}}, Out: out, Levels: ws(t),
			Within: true, WithinLabels: c.labels, Tool: "leakaudit test"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := removedBy(res); !reflect.DeepEqual(got, c.wantRemoved) {
			t.Errorf("%s: removed %v, want %v", c.name, got, c.wantRemoved)
		}
		for _, r := range res.Removed {
			if r.Level != c.wantLevel[r.ID] {
				t.Errorf("%s: %s removed at level %q, want %q", c.name, r.ID, r.Level, c.wantLevel[r.ID])
			}
			if r.Level == "image" && !strings.Contains(r.Detail, "labels: ") {
				t.Errorf("%s: %s: detail %q does not say how the labels compare", c.name, r.ID, r.Detail)
			}
		}
		var ids []string
		for _, r := range res.Repeats {
			ids = append(ids, r.ID)
		}
		if !reflect.DeepEqual(ids, c.wantRepeats) {
			t.Errorf("%s: repeats %v, want %v", c.name, ids, c.wantRepeats)
		}
		s := res.Releases[0]
		if s.WithinRule != c.wantRule || s.LabelRepeats != int64(len(c.wantRepeats)) {
			t.Errorf("%s: rule %q, %d repeats; want %q, %d", c.name, s.WithinRule, s.LabelRepeats, c.wantRule, len(c.wantRepeats))
		}
		if !strings.Contains(Markdown(res), "duplicates inside the release decided by") {
			t.Errorf("%s: summary.md does not say which rule was applied:\n%s", c.name, Markdown(res))
		}
		b, err := os.ReadFile(filepath.Join(out, "repeats.jsonl"))
		switch {
		case c.wantRule == withinLabels && err == nil:
			t.Errorf("%s: repeats.jsonl written for a release without images", c.name)
		case c.wantRule != withinLabels && (err != nil || strings.Count(string(b), "\n") != len(c.wantRepeats)):
			t.Errorf("%s: repeats.jsonl %q, %v", c.name, b, err)
		}
	}
}

// TestWithinImageOnlyRelease: inside a release of images without labels,
// an image goes when it is a verified copy of an earlier one, by the
// matcher's rule, not only when its pixels are identical: the same
// formula drawn at twice the size goes, as its identical copy does; another
// formula stays. The rule is named in the summary.
func TestWithinImageOnlyRelease(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	a := formulaPNG(t, 31)
	for name, img := range map[string][]byte{"a.png": a, "b.png": twicePNG(t, a), "c.png": a, "d.png": formulaPNG(t, 32)} {
		write(t, filepath.Join(rel, name), img)
	}
	res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
		Out: filepath.Join(dir, "out"), Levels: ws(t), Images: true, Within: true, Tool: "leakaudit test"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Reason{"b": ReasonWithin, "c": ReasonWithin}
	if got := removedBy(res); !reflect.DeepEqual(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, r := range res.Removed {
		if r.Level != "image" || len(r.Matches) != 1 || r.Matches[0] != "r:a" || strings.Contains(r.Detail, "labels:") {
			t.Errorf("%s: level %q, matches %v, detail %q; want an image copy of r:a, no label check", r.ID, r.Level, r.Matches, r.Detail)
		}
	}
	s := res.Releases[0]
	if s.WithinRule != withinImageOnly || !strings.Contains(Markdown(res), "the split has no labels") {
		t.Errorf("rule %q; summary.md:\n%s", s.WithinRule, Markdown(res))
	}
	// A labelled split after it: its copy of a.png goes, and no label is
	// compared with the image-only split's, which has none.
	labelled := filepath.Join(dir, "cap")
	write(t, filepath.Join(labelled, "caption.txt"), []byte("e\tx^2\n"))
	write(t, filepath.Join(labelled, "img", "e.png"), a)
	res, err = Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}, {Name: "c", Source: dataset.Source{Path: labelled, Format: dataset.Caption}}},
		Out: filepath.Join(dir, "out2"), Levels: ws(t), Images: true, Within: true, Tool: "leakaudit test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Removed {
		if r.Release == "c" && (r.ID != "e" || r.Matches[0] != "r:a" || strings.Contains(r.Detail, "labels:")) {
			t.Errorf("c: %s removed matching %v, detail %q; want e, a copy of r:a, no label check", r.ID, r.Matches, r.Detail)
		}
	}
	if res.Releases[1].Removed != 1 {
		t.Errorf("c: %d removed, want 1", res.Releases[1].Removed)
	}
}
