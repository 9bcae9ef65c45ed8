package dedup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
)

// TestHostileLimitIsPartial: a record a limit skips is dropped from the
// release, so the release is partial (exit 3 in the CLI), with the limit
// named; raising the limit keeps it.
func TestHostileLimitIsPartial(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel.json")
	write(t, rel, []byte(`["x ^ { 2 }", "a + b + c + d + e + f", "c"]`))
	bench := filepath.Join(dir, "bench.json")
	write(t, bench, []byte(`["x ^ { 2 }"]`))
	for _, c := range []struct {
		limit    int
		complete bool
		kept     int64
	}{{10, false, 1}, {100, true, 2}} {
		job := Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel, Limits: dataset.Limits{MaxLabelBytes: c.limit}}}},
			Against: []Input{{Name: "b", Source: dataset.Source{Path: bench}}}, Out: filepath.Join(dir, "out"), Force: true, Levels: ws(t)}
		res, err := Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete != c.complete || res.Releases[0].Kept != c.kept {
			t.Errorf("limit %d: complete %v, kept %d; want %v, %d (%+v)", c.limit, res.Complete, res.Releases[0].Kept, c.complete, c.kept, res.Incomplete)
		}
		if !c.complete && (len(res.Incomplete) != 1 || !strings.Contains(res.Incomplete[0].Reason, "label too long: 1") || !strings.Contains(res.Incomplete[0].Reason, "over a limit")) {
			t.Errorf("limit %d: %+v", c.limit, res.Incomplete)
		}
	}
}

// TestHostileCaptionLinkOut: a caption.txt that is a symbolic link out of
// the release is refused, and nothing is written.
func TestHostileCaptionLinkOut(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "secret", "caption.txt"), []byte("a\tx ^ { 2 }\nb\ty\n"))
	rel := filepath.Join(dir, "rel")
	write(t, filepath.Join(rel, "img", "b.png"), formulaPNG(t, 1))
	if err := os.Symlink(filepath.Join("..", "secret", "caption.txt"), filepath.Join(rel, "caption.txt")); err != nil {
		t.Fatal(err)
	}
	bench := filepath.Join(dir, "bench.json")
	write(t, bench, []byte(`["x ^ { 2 }"]`))
	out := filepath.Join(dir, "out")
	_, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
		Against: []Input{{Name: "b", Source: dataset.Source{Path: bench}}}, Out: out, Levels: ws(t)})
	if err == nil || !strings.Contains(err.Error(), "leads out of") {
		t.Fatalf("got %v, want a refusal", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "secret" && e.Name() != "rel" && e.Name() != "bench.json" {
			t.Errorf("written: %s", e.Name())
		}
	}
	// A link that stays inside the release is a caption file like another.
	os.Remove(filepath.Join(rel, "caption.txt"))
	write(t, filepath.Join(rel, "v2.txt"), []byte("a\tx ^ { 2 }\nb\ty\n"))
	os.Symlink("v2.txt", filepath.Join(rel, "caption.txt"))
	if _, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
		Against: []Input{{Name: "b", Source: dataset.Source{Path: bench}}}, Out: out, Levels: ws(t)}); err != nil {
		t.Fatal(err)
	}
}

// TestHostileSharedID: lines of a caption folder with one id share one
// image. When one is removed as a leak, the others go with it (the image
// must leave the release), and a duplicate of such a line is not removed
// as a copy of it; a line removed as a duplicate leaves the others.
func TestHostileSharedID(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	// a leaks (its first line), its second line z has a later duplicate
	// c; d's two lines are the same formula (the second goes as within).
	write(t, filepath.Join(rel, "caption.txt"), []byte("a\tx ^ { 2 }\nb\tq\na\tz\nc\tz\nd\tw + 1\nd\tw + 1\n"))
	for i, id := range []string{"a", "b", "c", "d"} {
		write(t, filepath.Join(rel, "img", id+".png"), formulaPNG(t, i))
	}
	bench := filepath.Join(dir, "bench.json")
	write(t, bench, []byte(`["x ^ { 2 }"]`))
	out := filepath.Join(dir, "out")
	res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
		Against: []Input{{Name: "b", Source: dataset.Source{Path: bench}}}, Out: out, Levels: ws(t), Within: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Removed {
		got = append(got, r.ID+":"+string(r.Reason))
	}
	if want := "a:label a:label d:within"; strings.Join(got, " ") != want {
		t.Errorf("removed %v, want %s", got, want)
	}
	caption, _ := os.ReadFile(filepath.Join(out, "r", "caption.txt"))
	if want := "b\tq\nc\tz\nd\tw + 1\n"; string(caption) != want {
		t.Errorf("caption.txt = %q, want %q", caption, want)
	}
	imgs, _ := filepath.Glob(filepath.Join(out, "r", "img", "*"))
	var names []string
	for _, p := range imgs {
		names = append(names, filepath.Base(p))
	}
	if strings.Join(names, " ") != "b.png c.png d.png" {
		t.Errorf("images %v, want b, c and d", names)
	}
}

// TestHostileInterrupted: a clean cancelled before it starts, or while it
// writes, returns an error and leaves nothing beside the inputs, neither
// Out nor its temporary folder.
func TestHostileInterrupted(t *testing.T) {
	for _, when := range []string{"before", "writing"} {
		t.Run(when, func(t *testing.T) { interrupted(t, when) })
	}
}

func interrupted(t *testing.T, when string) {
	f := newFixture(t)
	before, _ := os.ReadDir(f.dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	job := f.job(t, filepath.Join(f.dir, "clean"))
	if when == "before" {
		cancel()
	}
	job.Log = func(format string, args ...any) {
		if strings.Contains(format, "writing") {
			cancel()
		}
	}
	if _, err := Run(ctx, job); err == nil {
		t.Fatal("a cancelled clean succeeded")
	}
	after, _ := os.ReadDir(f.dir)
	if len(after) != len(before) {
		var names []string
		for _, e := range after {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}
