package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/imagehash"
)

// corruption damages one file of an index.
type corruption struct {
	name string
	do   func(path string, size int64, rng *rand.Rand) error
}

// corruptions are the damages TestHostileIndexCorruption applies to every
// file kind: removal, truncations, zeroed and random byte ranges at the
// start, the middle and the end, and bytes appended.
func corruptions() []corruption {
	at := func(frac float64) func(int64) int64 { return func(n int64) int64 { return int64(float64(n) * frac) } }
	write := func(path string, off int64, b []byte) error {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteAt(b, off)
		return err
	}
	zero := func(off func(int64) int64, n int64) func(string, int64, *rand.Rand) error {
		return func(p string, size int64, _ *rand.Rand) error {
			o := off(size)
			return write(p, o, make([]byte, max(0, min(n, size-o))))
		}
	}
	random := func(off func(int64) int64, n int64) func(string, int64, *rand.Rand) error {
		return func(p string, size int64, rng *rand.Rand) error {
			o := off(size)
			b := make([]byte, max(0, min(n, size-o)))
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			return write(p, o, b)
		}
	}
	trunc := func(to func(int64) int64) func(string, int64, *rand.Rand) error {
		return func(p string, size int64, _ *rand.Rand) error { return os.Truncate(p, to(size)) }
	}
	return []corruption{
		{"remove", func(p string, _ int64, _ *rand.Rand) error { return os.Remove(p) }},
		{"truncate to 0", trunc(at(0))},
		{"truncate to half", trunc(at(0.5))},
		{"truncate by 1", trunc(func(n int64) int64 { return max(0, n-1) })},
		{"zero the first 4 KiB", zero(at(0), 4096)},
		{"zero 512 bytes at a third", zero(at(1.0/3), 512)},
		{"zero the second half", zero(at(0.5), 1<<40)},
		{"zero the last 64 bytes", zero(func(n int64) int64 { return max(0, n-64) }, 64)},
		{"random 16 bytes at a quarter", random(at(0.25), 16)},
		{"random 16 bytes at two thirds", random(at(2.0/3), 16)},
		{"random byte at a random offset", func(p string, size int64, rng *rand.Rand) error {
			if size == 0 {
				return nil
			}
			return random(func(int64) int64 { return rng.Int64N(size) }, 1)(p, size, rng)
		}},
		{"random last 8 bytes", random(func(n int64) int64 { return max(0, n-8) }, 8)},
		{"append 100 bytes", func(p string, _ int64, _ *rand.Rand) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write(make([]byte, 100))
			return err
		}},
	}
}

// copyTree copies the index folder src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	os.RemoveAll(dst)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// indexFiles lists the files of an index folder, relative to it.
func indexFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// hostileAnswer runs read against a copy of the index (work, copied from
// orig on first use) with one file damaged and checks that the answer is exactly want or an error that
// names the folder and says to rebuild, never another answer and never a
// panic.
func hostileAnswer(t *testing.T, orig, work, file string, c corruption, rng *rand.Rand, want string, read func(string) (string, error)) (failed bool) {
	t.Helper()
	if _, err := os.Stat(work); err != nil {
		copyTree(t, orig, work)
	}
	p := filepath.Join(work, file)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// Only this file is damaged, and restored afterwards.
	saved, err := os.ReadFile(filepath.Join(orig, file))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.WriteFile(p, saved, fi.Mode()); err != nil {
			t.Fatal(err)
		}
	}()
	if err := c.do(p, fi.Size(), rng); err != nil {
		t.Fatalf("%s %s: %v", c.name, file, err)
	}
	var got string
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s %s: panic %v", c.name, file, r)
				failed = true
			}
		}()
		got, err = read(work)
	}()
	switch {
	case failed:
	case err != nil:
		if !strings.Contains(err.Error(), work) || !strings.Contains(err.Error(), "rebuild") {
			t.Errorf("%s %s: error %q does not name the folder and say how to rebuild", c.name, file, err)
		}
		return true
	case got != want:
		t.Errorf("%s %s: a different answer, no error:\n%.300s\nwant\n%.300s", c.name, file, got, want)
	}
	return false
}

// TestHostileIndexCorruption builds a small label index and a small image
// index, damages each file of them in every way of corruptions, one at a
// time, and checks that every answer is exactly the undamaged one or an
// error naming the folder, never another count and never a panic.
func TestHostileIndexCorruption(t *testing.T) {
	dir := t.TempDir()
	// Two corpora; keys shared by 3 items, and one by 300 (count records).
	var la, lb []string
	for i := range 3000 {
		la = append(la, fmt.Sprintf("x_{%d}+y", i%1000))
	}
	for range 300 {
		la = append(la, "z")
	}
	for i := range 1500 {
		lb = append(lb, fmt.Sprintf("x_{%d}+y", i))
	}
	a, fa := corpus(t, dir, "a", la)
	b, fb := corpus(t, dir, "b", lb)
	orig := filepath.Join(dir, "orig")
	ix, err := Open(orig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ls := levels(t, "audit,ws")
	build(t, ix, []CorpusInput{a, b}, []checksum.Input{fa, fb}, ls)
	folder := imageFolder(t, 20)
	ifp, err := checksum.Of(folder)
	if err != nil {
		t.Fatal(err)
	}
	set := ImageSettings{Kind: imagehash.PHash, Canvas: imagehash.Stretch}
	if _, err := ix.BuildImages(context.Background(), []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}},
		[]checksum.Input{{Name: "imgs", File: ifp}}, set, "test", 2, nil); err != nil {
		t.Fatal(err)
	}
	ix.Close()

	labels := func(work string) (string, error) {
		r, err := OpenReadOnly(work, Options{})
		if err != nil {
			return "", err
		}
		defer r.Close()
		var out strings.Builder
		for _, l := range ls {
			for i := 0; i < 1600; i += 3 {
				for _, label := range []string{fmt.Sprintf("x_{%d}+y", i), "z"} {
					key, _ := l.Canon(label)
					m, err := r.Lookup(l, key, 2)
					if err != nil {
						return "", err
					}
					fmt.Fprintln(&out, l.Name, label, m.Count, m.Refs)
				}
			}
		}
		return out.String(), nil
	}
	images := func(work string) (string, error) {
		r, err := OpenReadOnly(work, Options{})
		if err != nil {
			return "", err
		}
		defer r.Close()
		var out strings.Builder
		err = r.Images(func(rec ImageRecord) error {
			fmt.Fprintln(&out, rec.Corpus, rec.Seq, rec.ID, rec.Print)
			return nil
		})
		return out.String(), err
	}
	wantLabels, err := labels(orig)
	if err != nil {
		t.Fatal(err)
	}
	wantImages, err := images(orig)
	if err != nil || strings.Count(wantImages, "\n") != 20 {
		t.Fatalf("images: %v\n%s", err, wantImages)
	}

	// Every file of a shard and of the image database, the filters of
	// another shard, and the manifest: each kind of file.
	var files []string
	for _, f := range indexFiles(t, orig) {
		d := filepath.Dir(f)
		if d == "shard-00" || d == "images" || f == manifestFile || (d == "shard-05" && strings.HasPrefix(filepath.Base(f), "filter-1-")) {
			files = append(files, f)
		}
	}
	kinds := map[string]bool{}
	for _, f := range files {
		k := filepath.Base(f)
		if i := strings.IndexAny(k, ".-"); i >= 0 {
			k = k[i:]
		}
		kinds[k] = true
	}
	for _, k := range []string{".sst", ".vlog", "DISCARD", "KEYREGISTRY", "MANIFEST", "-0-1", ".json"} {
		if !kinds[k] && !kinds[strings.TrimPrefix(k, "-")] {
			t.Errorf("no %s file among %v", k, files)
		}
	}
	work := filepath.Join(dir, "work")
	// A file added to a database's folder: an error, and nothing
	// removed (Badger deletes a table file its manifest does not name).
	copyTree(t, orig, work)
	stray := filepath.Join(work, "shard-00", "000099.sst")
	os.WriteFile(stray, []byte("stray"), 0o644)
	if _, err := labels(work); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "000099.sst") {
		t.Errorf("a stray table file: %v", err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Errorf("the stray file was removed: %v", err)
	}
	os.Remove(stray)
	rng := rand.New(rand.NewPCG(1, 2))
	errs, cases := 0, 0
	for _, f := range files {
		read, want := labels, wantLabels
		if filepath.Dir(f) == "images" {
			read, want = images, wantImages
		}
		for _, c := range corruptions() {
			cases++
			if hostileAnswer(t, orig, work, f, c, rng, want, read) {
				errs++
			}
			if f == manifestFile {
				// The other side reads the same manifest: damage must not
				// change it either.
				hostileAnswer(t, orig, work, f, c, rng, wantImages, images)
			}
		}
	}
	t.Logf("%d files × %d corruptions: %d errors, %d exact answers", len(files), len(corruptions()), errs, cases-errs)
	// A build over a damaged index (another level asked for) starts
	// over, says why, and answers right.
	for _, side := range []string{"shard-00/000001.sst", "images/000001.sst"} {
		copyTree(t, orig, work)
		os.Truncate(filepath.Join(work, side), 100)
		w, err := Open(work, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var rep BuildReport
		if filepath.Dir(side) == "images" {
			rep, err = w.BuildImages(context.Background(), []ImageCorpusInput{{Name: "imgs", Source: dataset.ImageSource{Path: folder}}},
				[]checksum.Input{{Name: "imgs", File: ifp}}, set, "test", 2, nil)
		} else {
			rep, err = w.Build(context.Background(), []CorpusInput{a, b}, []checksum.Input{fa, fb}, levels(t, "audit,ws,raw"), "test", nil)
		}
		w.Close()
		if err != nil || !strings.Contains(rep.Rebuilt, "damaged") || !strings.Contains(rep.Rebuilt, side) {
			t.Errorf("build over a damaged %s: %v, rebuilt %q", side, err, rep.Rebuilt)
		}
		if got, err := labels(work); err != nil || got != wantLabels {
			t.Errorf("labels after a build over a damaged %s: %v", side, err)
		}
		if got, err := images(work); err != nil || got != wantImages {
			t.Errorf("images after a build over a damaged %s: %v", side, err)
		}
	}
	os.RemoveAll(work)
	// The undamaged copy still answers: the damage was all there was.
	copyTree(t, orig, work)
	if got, err := labels(work); err != nil || got != wantLabels {
		t.Errorf("an undamaged copy: %v", err)
	}
}

// TestHostileCorruptBlocks damages table data blocks in the middle of the
// tables, which the opening of a database does not read, and checks that
// lookups fail rather than count fewer postings: Badger's iterator ends
// silently at a block it cannot read, and the chain of blocks catches it.
func TestHostileCorruptBlocks(t *testing.T) {
	dir := t.TempDir()
	var la []string
	for i := range 20000 {
		la = append(la, fmt.Sprintf("x_{%d}", i%4000))
	}
	a, fa := corpus(t, dir, "a", la)
	orig := filepath.Join(dir, "orig")
	ix, _ := Open(orig, Options{})
	ls := levels(t, "ws")
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, ls)
	ix.Close()
	read := func(work string) (string, error) {
		r, err := OpenReadOnly(work, Options{})
		if err != nil {
			return "", err
		}
		defer r.Close()
		var out strings.Builder
		for i := range 4000 {
			key, _ := ls[0].Canon(fmt.Sprintf("x_{%d}", i))
			m, err := r.Lookup(ls[0], key, 1)
			if err != nil {
				return "", err
			}
			fmt.Fprintln(&out, i, m.Count)
		}
		return out.String(), nil
	}
	want, err := read(orig)
	if err != nil {
		t.Fatal(err)
	}
	ssts, _ := filepath.Glob(filepath.Join(orig, "shard-0[0-3]", "*.sst"))
	if len(ssts) == 0 {
		t.Fatal("no table")
	}
	work := filepath.Join(dir, "work")
	rng := rand.New(rand.NewPCG(3, 4))
	errs := 0
	for _, p := range ssts {
		f, _ := filepath.Rel(orig, p)
		fi, _ := os.Stat(p)
		for _, frac := range []float64{0.05, 0.2, 0.4, 0.6} {
			off := int64(float64(fi.Size()) * frac)
			for _, c := range []corruption{
				{fmt.Sprintf("zero 4 KiB at %.0f%%", 100*frac), func(p string, _ int64, _ *rand.Rand) error {
					fh, err := os.OpenFile(p, os.O_WRONLY, 0)
					if err != nil {
						return err
					}
					defer fh.Close()
					_, err = fh.WriteAt(make([]byte, 4096), off)
					return err
				}},
				{fmt.Sprintf("flip a byte at %.0f%%", 100*frac), func(p string, _ int64, _ *rand.Rand) error {
					b, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					b[off] ^= 0x5a
					return os.WriteFile(p, b, 0o644)
				}},
			} {
				if hostileAnswer(t, orig, work, f, c, rng, want, read) {
					errs++
				}
			}
		}
	}
	if errs == 0 {
		t.Error("no damage to a table block was found")
	}
	// Reading any of them must fail: every lookup key is read.
	if want := len(ssts) * 8; errs != want {
		t.Errorf("%d of %d damaged tables found", errs, want)
	}
}

// TestHostileNotIndexFolder: a folder that is not an index (a project
// folder given as --db by mistake) is refused by a writer and by Remove,
// with a message naming it, and loses nothing; an index folder is
// emptied by Remove.
func TestHostileNotIndexFolder(t *testing.T) {
	dir := t.TempDir()
	a, fa := corpus(t, dir, "a", []string{"x", "y"})
	write := func(root string, files map[string]string) {
		for name, content := range files {
			p := filepath.Join(root, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, files := range []map[string]string{
		{"train.txt": "a_0\tx\n", "notes.md": "mine"},
		{"manifest.json": `{"name": "a web app"}`, "index.html": "<p>"},
		{"images/a.png": "png"},
		{"shard-00/photo.jpg": "jpg"},
		{"manifest.json": "{}", "MANIFEST": "", "report.pdf": "%PDF"},
	} {
		proj := filepath.Join(dir, fmt.Sprint("proj", i))
		write(proj, files)
		if w, err := Open(proj, Options{}); err == nil || !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), proj) {
			t.Errorf("%v: Open: %v", files, err)
			if w != nil {
				w.Close()
			}
		}
		if err := Remove(proj); !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), proj) {
			t.Errorf("%v: Remove: %v", files, err)
		}
		for name, content := range files {
			if b, err := os.ReadFile(filepath.Join(proj, name)); err != nil || string(b) != content {
				t.Errorf("%v: %s changed: %v", files, name, err)
			}
		}
		if n := len(indexFiles(t, proj)); n != len(files) {
			t.Errorf("%v: %d files in the folder", files, n)
		}
	}
	// An index: removed whole, leaving the folder empty; with a file of
	// the user's in it, refused.
	ixdir := filepath.Join(dir, "ix")
	ix, err := Open(ixdir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	build(t, ix, []CorpusInput{a}, []checksum.Input{fa}, levels(t, "ws"))
	ix.Close()
	write(ixdir, map[string]string{"mine.txt": "keep"})
	if err := Remove(ixdir); !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), "mine.txt") {
		t.Errorf("Remove of an index holding a file of the user's: %v", err)
	}
	os.Remove(filepath.Join(ixdir, "mine.txt"))
	if err := Remove(ixdir); err != nil {
		t.Fatal(err)
	}
	if n := len(indexFiles(t, ixdir)); n != 0 {
		t.Errorf("%d files left after Remove", n)
	}
	if err := Remove(filepath.Join(dir, "none")); err != nil {
		t.Errorf("Remove of no folder: %v", err)
	}
}
