package dedup

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/parquet-go/parquet-go"
)

// formulaPNG draws a distinct pattern of strokes for seed.
func formulaPNG(t *testing.T, seed int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 160, 60))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	x := 5
	for k := 0; k < 8; k++ {
		w := 4 + (seed*7+k*13)%11
		h := 10 + (seed*5+k*17)%35
		y0 := 5 + (seed+k*3)%15
		for dx := 0; dx < w; dx++ {
			for dy := 0; dy < h; dy++ {
				img.SetGray(x+dx, y0+dy, color.Gray{})
			}
		}
		x += w + 6
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a release (caption folder with images), a benchmark test set
// (caption folder with images) and a label list, with planted leaks.
type fixture struct {
	dir, release, test, labels string
}

func newFixture(t *testing.T) fixture {
	dir := t.TempDir()
	f := fixture{dir: dir, release: filepath.Join(dir, "release"), test: filepath.Join(dir, "test"), labels: filepath.Join(dir, "bench.json")}
	// The release: r0 clean, r1 a label copy of test t0 (respaced), r2 an
	// image copy of test t1 with another label, r3 a duplicate of r0 (its
	// image, respaced label),
	// r4 has no separator (unreadable), r5 clean, r6 a copy of a label in
	// the label list, r7 an image that cannot be decoded.
	caption := "r0\t\\frac{a}{b} + c\n" +
		"r1\tx ^ { 2 } + y ^ { 2 }\n" +
		"r2\t\\sqrt{z} - 1\n" +
		"r3\t\\frac{a}{b}+c\n" +
		"r4\n" +
		"r5\t\\alpha + \\beta = \\gamma\n" +
		"r6\te^{i\\pi}+1=0\n" +
		"r7\t\\sum_{i=1}^{n} i\n"
	write(t, filepath.Join(f.release, "caption.txt"), []byte(caption))
	for i, id := range []string{"r0", "r1", "r2", "r3", "r5", "r6"} {
		seed := 100 + i
		switch id {
		case "r2":
			seed = 1 // test t1's image
		case "r3":
			seed = 100 // r0's image
		}
		write(t, filepath.Join(f.release, "img", id+".png"), formulaPNG(t, seed))
	}
	write(t, filepath.Join(f.release, "img", "r7.png"), []byte("not a png"))
	write(t, filepath.Join(f.test, "caption.txt"), []byte("t0\tx^{2}+y^{2}\nt1\t\\log n\n"))
	write(t, filepath.Join(f.test, "img", "t0.png"), formulaPNG(t, 0))
	write(t, filepath.Join(f.test, "img", "t1.png"), formulaPNG(t, 1))
	write(t, f.labels, []byte(`["e^{i\\pi}+1=0", "q"]`))
	return f
}

func ws(testing.TB) []canon.Level {
	l, _ := canon.LookupLevel("ws")
	return []canon.Level{l}
}

func (f fixture) job(t *testing.T, out string) Job {
	return Job{
		Releases: []Input{{Name: "release", Source: dataset.Source{Path: f.release, Format: dataset.Caption}}},
		Against: []Input{{Name: "test", Source: dataset.Source{Path: f.test}},
			{Name: "bench", Source: dataset.Source{Path: f.labels}}},
		Out: out, Levels: ws(t), Images: true, Within: true, Tool: "leakaudit test",
	}
}

func removedBy(res *Result) map[string]Reason {
	m := map[string]Reason{}
	for _, r := range res.Removed {
		m[r.ID] = r.Reason
	}
	return m
}

func TestRunPlanted(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "clean")
	res, err := Run(context.Background(), f.job(t, out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Reason{"r1": ReasonLabel, "r2": ReasonImage, "r3": ReasonWithin, "r4": ReasonUnreadable, "r6": ReasonLabel, "r7": ReasonUnreadable}
	if got := removedBy(res); !reflect.DeepEqual(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	s := res.Releases[0]
	if s.Items != 8 || s.Kept != 2 || s.Removed != 6 {
		t.Errorf("items %d kept %d removed %d, want 8/2/6", s.Items, s.Kept, s.Removed)
	}
	if res.Complete {
		t.Error("an unreadable record and an undecodable image should make the result incomplete")
	}
	caption, _ := os.ReadFile(filepath.Join(out, "release", "caption.txt"))
	if string(caption) != "r0\t\\frac{a}{b} + c\nr5\t\\alpha + \\beta = \\gamma\n" {
		t.Errorf("caption.txt = %q", caption)
	}
	imgs, _ := os.ReadDir(filepath.Join(out, "release", "img"))
	var names []string
	for _, e := range imgs {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"r0.png", "r5.png"}) {
		t.Errorf("img/ = %v", names)
	}
	for _, r := range res.Removed {
		if r.ID == "r1" && !reflect.DeepEqual(r.Matches, []string{"test:t0"}) {
			t.Errorf("r1 matches %v", r.Matches)
		}
		if r.ID == "r2" && (r.Distance == nil || !reflect.DeepEqual(r.Matches, []string{"test:t1"})) {
			t.Errorf("r2: %+v", r)
		}
		if r.ID == "r3" && !reflect.DeepEqual(r.Matches, []string{"release:r0"}) {
			t.Errorf("r3 matches %v", r.Matches)
		}
	}
	// removed.jsonl has one line per removed item; summary.json parses.
	lines, _ := os.ReadFile(filepath.Join(out, "removed.jsonl"))
	if n := strings.Count(string(lines), "\n"); n != 6 {
		t.Errorf("removed.jsonl has %d lines", n)
	}
	var sum map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	rows, err := readRemovedParquet(filepath.Join(out, "removed.parquet"))
	if err != nil || !reflect.DeepEqual(rows, res.Removed) {
		t.Errorf("removed.parquet differs from the result: %v\n%v\n%v", err, rows, res.Removed)
	}
}

func readRemovedParquet(p string) ([]Removed, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, _ := f.Stat()
	return parquetRead(f, fi.Size())
}

func TestRunIdempotentAndDeterministic(t *testing.T) {
	f := newFixture(t)
	a, b := filepath.Join(f.dir, "a"), filepath.Join(f.dir, "b")
	for _, out := range []string{a, b} {
		if _, err := Run(context.Background(), f.job(t, out)); err != nil {
			t.Fatal(err)
		}
	}
	if d := diffTrees(t, a, b); d != "" {
		t.Errorf("two runs differ: %s", d)
	}
	job := f.job(t, filepath.Join(f.dir, "again"))
	job.Releases[0].Source.Path = filepath.Join(a, "release")
	res, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 || !res.Complete {
		t.Errorf("cleaning the clean release removed %v (complete %v)", res.Removed, res.Complete)
	}
}

// diffTrees compares two folders file by file.
func diffTrees(t *testing.T, a, b string) string {
	t.Helper()
	list := func(root string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				data, _ := os.ReadFile(p)
				m[rel] = string(data)
			}
			return nil
		})
		return m
	}
	ma, mb := list(a), list(b)
	for k, v := range ma {
		if mb[k] != v {
			return k
		}
	}
	if len(ma) != len(mb) {
		return "file count"
	}
	return ""
}

func TestRunRefuses(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "clean")
	os.Mkdir(out, 0o755)
	write(t, filepath.Join(out, "keep.txt"), []byte("mine"))
	if _, err := Run(context.Background(), f.job(t, out)); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing --out: %v", err)
	}
	job := f.job(t, out)
	job.Force = true
	if _, err := Run(context.Background(), job); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "keep.txt")); !os.IsNotExist(err) {
		t.Error("--force kept the old folder's files")
	}
	// The output must not overlap an input, whichever contains the other.
	for _, o := range []string{filepath.Join(f.release, "out"), f.dir} {
		job := f.job(t, o)
		job.Force = true
		if _, err := Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "the input") {
			t.Errorf("--out %s: %v", o, err)
		}
	}
	for _, name := range []string{"../x", "/abs", "a/b", "", ".hidden", "summary.json", "a\x00b", ".."} {
		job := f.job(t, filepath.Join(f.dir, "n"))
		job.Releases[0].Name = name
		if _, err := Run(context.Background(), job); err == nil {
			t.Errorf("release name %q accepted", name)
		}
	}
}

func TestHostileIDsStayInside(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	// Ids that would escape if they became paths.
	caption := "../escape\tx+1\n/etc/passwd\ty+2\nsub/../../up\tz+3\nnul\x00id\tw+4\n..\tv+5\n"
	write(t, filepath.Join(rel, "caption.txt"), []byte(caption))
	write(t, filepath.Join(rel, "img", "ok.png"), formulaPNG(t, 3))
	write(t, filepath.Join(dir, "bench.json"), []byte(`["y+2"]`))
	out := filepath.Join(dir, "out")
	res, err := Run(context.Background(), Job{
		Releases: []Input{{Name: "rel", Source: dataset.Source{Path: rel, Format: dataset.Caption}}},
		Against:  []Input{{Name: "b", Source: dataset.Source{Path: filepath.Join(dir, "bench.json")}}},
		Out:      out, Levels: ws(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Releases[0].Removed != 1 {
		t.Errorf("removed %d, want 1", res.Releases[0].Removed)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			r, _ := filepath.Rel(dir, p)
			files = append(files, r)
		}
		return nil
	})
	sort.Strings(files)
	want := []string{"bench.json", "out/rel/caption.txt", "out/removed.jsonl", "out/removed.parquet", "out/summary.json", "out/summary.md", "rel/caption.txt", "rel/img/ok.png"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files after the run:\n%v\nwant\n%v", files, want)
	}
}

func TestSymlinkOutOfReleaseRefused(t *testing.T) {
	f := newFixture(t)
	secret := filepath.Join(f.dir, "secret.png")
	write(t, secret, formulaPNG(t, 50))
	os.Remove(filepath.Join(f.release, "img", "r5.png"))
	if err := os.Symlink(secret, filepath.Join(f.release, "img", "r5.png")); err != nil {
		t.Skip("no symlinks:", err)
	}
	job := f.job(t, filepath.Join(f.dir, "clean"))
	job.Images = false
	if _, err := Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "leads out") {
		t.Errorf("a link out of the release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "clean")); !os.IsNotExist(err) {
		t.Error("a failed run left its output")
	}
}

func TestSelfSplitKept(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	test := filepath.Join(dir, "test.jsonl")
	write(t, train, []byte("{\"id\":\"a\",\"latex\":\"x+1\"}\n{\"id\":\"b\",\"latex\":\"y+1\"}\n"))
	write(t, test, []byte("{\"id\":\"c\",\"latex\":\"x + 1\"}\n{\"id\":\"d\",\"latex\":\"z\"}\n"))
	// The test split is a release and the against set: it is never
	// compared with itself, its copy stays and train's goes, whatever the
	// order, with or without --within.
	for _, order := range [][]Input{
		{{Name: "train", Source: dataset.Source{Path: train}}, {Name: "test", Source: dataset.Source{Path: test}}},
		{{Name: "test", Source: dataset.Source{Path: test}}, {Name: "train", Source: dataset.Source{Path: train}}},
	} {
		for _, within := range []bool{false, true} {
			res, err := Run(context.Background(), Job{
				Releases: order,
				Against:  []Input{{Name: "bench", Source: dataset.Source{Path: test}}},
				Out:      filepath.Join(dir, fmt.Sprint(order[0].Name, within)), Levels: ws(t), Within: within,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := removedBy(res); !reflect.DeepEqual(got, map[string]Reason{"a": ReasonLabel}) {
				t.Errorf("%s first, within %v: removed %v", order[0].Name, within, got)
			}
		}
	}
	// Within only: the order decides.
	res, err := Run(context.Background(), Job{
		Releases: []Input{{Name: "train", Source: dataset.Source{Path: train}}, {Name: "test", Source: dataset.Source{Path: test}}},
		Out:      filepath.Join(dir, "within"), Levels: ws(t), Within: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := removedBy(res); !reflect.DeepEqual(got, map[string]Reason{"c": ReasonWithin}) {
		t.Errorf("within: removed %v", got)
	}
}

func TestFingerprintAgainstEqualsLabels(t *testing.T) {
	f := newFixture(t)
	fp := filepath.Join(f.dir, "bench.fp.parquet")
	lv := ws(t)
	if _, err := fingerprint.Write(fp, []fingerprint.Input{{Name: "test", Source: dataset.Source{Path: f.test}}, {Name: "bench", Source: dataset.Source{Path: f.labels}}}, fingerprint.Options{Levels: lv, Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	job := f.job(t, filepath.Join(f.dir, "a"))
	job.Images = false
	a, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	job.Out = filepath.Join(f.dir, "b")
	job.Against = []Input{{Name: "fp", Source: dataset.Source{Path: fp}}}
	b, err := Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(removedBy(a), removedBy(b)) {
		t.Errorf("labels %v, fingerprint %v", removedBy(a), removedBy(b))
	}
}

// TestImageFingerprintAgainstEqualsImages: an image fingerprint made with
// its ink (fingerprint --images --with-ink) stands in for the test set's
// images and labels: the release loses the same items, for the same
// reasons, as against the test set itself; without --images, or against a
// fingerprint without image hashes, no item goes by image, and the
// against input's note says why.
func TestImageFingerprintAgainstEqualsImages(t *testing.T) {
	f := newFixture(t)
	fp := filepath.Join(f.dir, "test.fp.parquet")
	if _, err := fingerprint.Write(fp, []fingerprint.Input{{Name: "test", Source: dataset.Source{Path: f.test}}}, fingerprint.Options{Levels: ws(t), Images: true, WithInk: true, Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	labelsOnly := filepath.Join(f.dir, "test-labels.fp.parquet")
	if _, err := fingerprint.Write(labelsOnly, []fingerprint.Input{{Name: "test", Source: dataset.Source{Path: f.test}}}, fingerprint.Options{Levels: ws(t), Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	run := func(out, against string, images bool) *Result {
		t.Helper()
		job := f.job(t, filepath.Join(f.dir, out))
		job.Against, job.Within, job.Images = []Input{{Name: "test", Source: dataset.Source{Path: against}}}, false, images
		res, err := Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	folder, byFP := run("a", f.test, true), run("b", fp, true)
	if !reflect.DeepEqual(folder.Removed, byFP.Removed) {
		t.Errorf("against the test set: %+v\nagainst its image fingerprint: %+v", folder.Removed, byFP.Removed)
	}
	if folder.Releases[0].ByReason[ReasonImage] == 0 {
		t.Errorf("the fixture's image leaks are not found: %v", folder.Releases[0].ByReason)
	}
	if a := byFP.Against[0]; a.Kind != "fingerprint+images" || a.Images == 0 {
		t.Errorf("against the image fingerprint: kind %q, %d images", a.Kind, a.Images)
	}
	for _, res := range []*Result{run("c", fp, false), run("d", labelsOnly, true)} {
		if n := res.Releases[0].ByReason[ReasonImage]; n != 0 {
			t.Errorf("%s (kind %s): %d items removed by image", res.Against[0].Path, res.Against[0].Kind, n)
		}
	}
	if note := run("e", labelsOnly, true).Against[0].Note; !strings.Contains(note, "images not compared") {
		t.Errorf("a fingerprint without image hashes, with --images: note %q", note)
	}
}

func TestNearMatches(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel.json")
	bench := filepath.Join(dir, "bench.json")
	write(t, rel, []byte(`["a + b + c + d + e", "a + b + c + d + e + 2", "a + b + c + x + y + z", "a + b", "q + r + s + t + u + v"]`))
	write(t, bench, []byte(`["a + b + c + d + e + 1", "a + c"]`))
	res, err := Run(context.Background(), Job{
		Releases: []Input{{Name: "rel", Source: dataset.Source{Path: rel}}},
		Against:  []Input{{Name: "bench", Source: dataset.Source{Path: bench}}},
		Out:      filepath.Join(dir, "out"), Levels: ws(t), Near: 2, NearMin: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for _, r := range res.Removed {
		if r.Reason != ReasonNear || r.Distance == nil {
			t.Fatalf("unexpected removal %+v", r)
		}
		got[r.ID] = *r.Distance
	}
	// "a + b" is below the minimum length; item 2 is 5 edits away.
	if want := map[string]int32{"0": 2, "1": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("near removals %v, want %v", got, want)
	}
}

func parquetRead(f *os.File, size int64) ([]Removed, error) {
	return parquet.Read[Removed](f, size)
}

func TestImageOnlyReleases(t *testing.T) {
	f := newFixture(t)
	imgs := map[string][]byte{"a/r0.png": formulaPNG(t, 200), "a/r1.png": formulaPNG(t, 1), "b/r2.png": formulaPNG(t, 201), "b/r3.png": formulaPNG(t, 200)}
	names := []string{"a/r0.png", "a/r1.png", "b/r2.png", "b/r3.png"}
	folder := filepath.Join(f.dir, "imgs")
	for _, n := range names {
		write(t, filepath.Join(folder, n), imgs[n])
	}
	write(t, filepath.Join(folder, "notes.txt"), []byte("not an item"))
	zp := filepath.Join(f.dir, "imgs.zip")
	zf, _ := os.Create(zp)
	zw := zip.NewWriter(zf)
	tp := filepath.Join(f.dir, "imgs.tar.gz")
	tf, _ := os.Create(tp)
	gz := gzip.NewWriter(tf)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		w, _ := zw.Create(n)
		w.Write(imgs[n])
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(imgs[n])), Typeflag: tar.TypeReg})
		tw.Write(imgs[n])
	}
	zw.Close()
	zf.Close()
	tw.Close()
	gz.Close()
	tf.Close()
	out := filepath.Join(f.dir, "clean")
	res, err := Run(context.Background(), Job{
		Releases: []Input{{Name: "folder", Source: dataset.Source{Path: folder}}, {Name: "zip", Source: dataset.Source{Path: zp}}, {Name: "tar", Source: dataset.Source{Path: tp}}},
		Against:  []Input{{Name: "test", Source: dataset.Source{Path: f.test}}},
		Out:      out, Levels: ws(t), Images: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Releases {
		if s.Format != formatImages || s.Items != 4 || s.Kept != 3 || s.ByReason[ReasonImage] != 1 {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	want := []string{"a/r0.png", "b/r2.png", "b/r3.png"}
	var got []string
	filepath.WalkDir(filepath.Join(out, "folder"), func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			r, _ := filepath.Rel(filepath.Join(out, "folder"), p)
			got = append(got, filepath.ToSlash(r))
		}
		return nil
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("folder output %v", got)
	}
	for _, p := range []string{filepath.Join(out, "zip", "imgs.zip"), filepath.Join(out, "tar", "imgs.tar.gz")} {
		var ids []string
		if _, err := dataset.ScanImages(dataset.ImageSource{Path: p}, func(it dataset.ImageItem) error {
			ids = append(ids, it.Name)
			if !bytes.Equal(it.Data, imgs[it.Name]) {
				t.Errorf("%s: %s changed", p, it.Name)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("%s holds %v", p, ids)
		}
	}
	// Within: identical pixels inside the release (r3 is r0 again).
	res, err = Run(context.Background(), Job{Releases: []Input{{Name: "zip", Source: dataset.Source{Path: zp}}},
		Out: filepath.Join(f.dir, "within"), Levels: ws(t), Images: true, Within: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := removedBy(res); !reflect.DeepEqual(got, map[string]Reason{"b/r3": ReasonWithin}) {
		t.Errorf("within: removed %v", got)
	}
	// Without --images an image-only release is refused.
	if _, err := Run(context.Background(), Job{Releases: []Input{{Name: "folder", Source: dataset.Source{Path: folder}}},
		Against: []Input{{Name: "test", Source: dataset.Source{Path: f.test}}}, Out: filepath.Join(f.dir, "x"), Levels: ws(t)}); err == nil {
		t.Error("an image-only release without --images was accepted")
	}
}
