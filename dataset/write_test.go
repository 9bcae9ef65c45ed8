package dataset

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// scanAll returns the items of a source as id→label pairs in order.
func scanAll(t *testing.T, src Source) [][2]string {
	t.Helper()
	var out [][2]string
	st, err := Scan(src, func(it Item) error {
		out = append(out, [2]string{it.ID, it.Label})
		return nil
	})
	if err != nil || st.FileError != "" {
		t.Fatalf("scan %s: %v %s", src.Path, err, st.FileError)
	}
	return out
}

func TestWriteSubset(t *testing.T) {
	files := []struct {
		name, content string
	}{
		{"list.json", "[\n  \"a^2\",\n  \"b_1\",\n  \"x + y\",\n  \"\\\\frac{1}{2}\"\n]\n"},
		{"compact.json", `["a^2","b_1","x + y","\\frac{1}{2}"]`},
		{"objects.json", "[{\"img_id\": \"i0\", \"gt\": \"a^2\", \"pred\": \"a^3\"}, {\"img_id\": \"i1\", \"gt\": \"b_1\", \"extra\": [1, {\"k\": \"]\"}]},\n {\"img_id\": \"i2\", \"gt\": \"x + y\"}, {\"img_id\": \"i3\", \"gt\": \"\\\\frac{1}{2}\"}]"},
		{"map.json", "{\n \"i0\": {\"gt\": \"a^2\", \"pred\": \"a\"},\n \"i1\": {\"gt\": \"b_1\", \"pred\": \"b\"},\n \"i2\": {\"gt\": \"x + y\", \"pred\": \"x\"},\n \"i3\": {\"gt\": \"\\\\frac{1}{2}\", \"pred\": \"y\"}\n}\n"},
		{"items.jsonl", "{\"id\": \"i0\", \"latex\": \"a^2\"}\n{\"id\": \"i1\", \"latex\": \"b_1\"}\r\n{\"id\": \"i2\", \"latex\": \"x + y\"}\n{\"id\": \"i3\", \"latex\": \"\\\\frac{1}{2}\"}"},
		{"table.csv", "id,latex,note\ni0,a^2,plain\ni1,b_1,\"two\nlines\"\ni2,x + y,\"a, b\"\ni3,\\frac{1}{2},last\n"},
		{"table.tsv", "id\tlatex\ni0\ta^2\ni1\tb_1\ni2\tx + y\ni3\t\\frac{1}{2}\n"},
		{"caption.txt", "i0\ta^2\ni1\tb_1\ni2\tx + y\ni3\t\\frac{1}{2}\n"},
		{"formulas.txt", "a^2\nb_1\nx + y\n\\frac{1}{2}\n"},
	}
	keeps := map[string]func(int64) bool{
		"all":     func(int64) bool { return true },
		"none":    func(int64) bool { return false },
		"first":   func(s int64) bool { return s != 0 },
		"last":    func(s int64) bool { return s != 3 },
		"middle":  func(s int64) bool { return s == 0 || s == 3 },
		"onlyone": func(s int64) bool { return s == 2 },
	}
	for _, f := range files {
		dir := t.TempDir()
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		src := Source{Path: p}
		if f.name == "caption.txt" {
			src.Format = Caption
		}
		if f.name == "formulas.txt" {
			src.Format = Lines
		}
		all := scanAll(t, src)
		if len(all) != 4 {
			t.Fatalf("%s: fixture has %d items", f.name, len(all))
		}
		for kname, keep := range keeps {
			out := filepath.Join(t.TempDir(), "out")
			n, err := WriteSubset(src, out, keep)
			if err != nil {
				t.Fatalf("%s/%s: %v", f.name, kname, err)
			}
			var want [][2]string
			positional := f.name == "list.json" || f.name == "compact.json" || f.name == "formulas.txt"
			for i, it := range all {
				if keep(int64(i)) {
					if positional { // ids are positions: they are renumbered
						it[0] = ""
					}
					want = append(want, it)
				}
			}
			if n != int64(len(want)) {
				t.Errorf("%s/%s: wrote %d, want %d", f.name, kname, n, len(want))
			}
			op := filepath.Join(out, f.name)
			data, err := os.ReadFile(op)
			if err != nil {
				t.Fatal(err)
			}
			if kname == "all" && f.name != "items.jsonl" && string(data) != f.content {
				t.Errorf("%s: keeping everything changed the bytes:\n%q\nwant\n%q", f.name, data, f.content)
			}
			if filepath.Ext(f.name) == ".json" && !json.Valid(data) {
				t.Errorf("%s/%s: output is not valid JSON: %q", f.name, kname, data)
			}
			osrc := src
			osrc.Path = op
			var got [][2]string
			if len(want) > 0 || filepath.Ext(f.name) == ".json" {
				got = scanAll(t, osrc)
			}
			if positional {
				for i := range got {
					got[i][0] = ""
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: rewritten file holds %q, want %q (bytes %q)", f.name, kname, got, want, data)
			}
		}
	}
}

func TestWriteSubsetKeepsRecordBytes(t *testing.T) {
	// Odd spacing and escapes inside a kept record survive unchanged.
	content := "[ {\"gt\" :\"a\\u0062\",  \"z\":1} ,\n\t{\"gt\":\"c\"},{\"gt\":\"d\"} ]"
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	os.WriteFile(p, []byte(content), 0o644)
	out := filepath.Join(dir, "out")
	if _, err := WriteSubset(Source{Path: p}, out, func(s int64) bool { return s != 1 }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "x.json"))
	want := "[ {\"gt\" :\"a\\u0062\",  \"z\":1},{\"gt\":\"d\"} ]"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteSubsetCaptionFolder(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "train")
	os.MkdirAll(filepath.Join(rel, "img"), 0o755)
	os.WriteFile(filepath.Join(rel, "caption.txt"), []byte("a\tx^2\nb\ty\nc\tz\n"), 0o644)
	for _, n := range []string{"a.png", "b.bmp", "c.jpg"} {
		os.WriteFile(filepath.Join(rel, "img", n), []byte("image "+n), 0o644)
	}
	// A link leading out of the release must not be followed.
	secret := filepath.Join(dir, "secret.png")
	os.WriteFile(secret, []byte("secret"), 0o644)
	out := filepath.Join(dir, "out")
	n, err := WriteSubset(Source{Path: rel, Format: Caption}, out, func(s int64) bool { return s != 1 })
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "caption.txt"))
	if string(got) != "a\tx^2\nc\tz\n" {
		t.Errorf("caption.txt = %q", got)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "img"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"a.png", "c.jpg"}) {
		t.Errorf("img/ = %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "img", "c.jpg")); string(b) != "image c.jpg" {
		t.Errorf("image bytes changed: %q", b)
	}
	os.Remove(filepath.Join(rel, "img", "c.jpg"))
	if err := os.Symlink(secret, filepath.Join(rel, "img", "c.png")); err != nil {
		t.Skip("no symlinks:", err)
	}
	_, err = WriteSubset(Source{Path: rel, Format: Caption}, filepath.Join(dir, "out2"), func(int64) bool { return true })
	if err == nil {
		t.Fatal("a link out of the release was followed")
	}
}

func TestWriteSubsetParquet(t *testing.T) {
	type img struct {
		Bytes []byte `parquet:"bytes"`
		Path  string `parquet:"path"`
	}
	type row struct {
		Image img    `parquet:"image"`
		Latex string `parquet:"latex_formula"`
		N     int64  `parquet:"n"`
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "train.parquet")
	f, _ := os.Create(p)
	w := parquet.NewGenericWriter[row](f, parquet.Compression(&parquet.Zstd), parquet.KeyValueMetadata("huggingface", `{"info":1}`), parquet.MaxRowsPerRowGroup(3))
	var rows []row
	for i := range 10 {
		rows = append(rows, row{Image: img{Bytes: bytes.Repeat([]byte{byte(i)}, 100), Path: "p" + string(rune('a'+i)) + ".png"}, Latex: "x_" + string(rune('a'+i)), N: int64(i)})
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f.Close()
	out := filepath.Join(dir, "out")
	n, err := WriteSubset(Source{Path: p}, out, func(s int64) bool { return s%3 != 1 })
	if err != nil || n != 7 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	rf, err := os.Open(filepath.Join(out, "train.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	fi, _ := rf.Stat()
	pf, err := parquet.OpenFile(rf, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := pf.Lookup("huggingface"); v != `{"info":1}` {
		t.Errorf("metadata lost: %q", v)
	}
	got, err := parquet.Read[row](rf, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	var want []row
	for i, r := range rows {
		if i%3 != 1 {
			want = append(want, r)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows differ:\n%v\nwant\n%v", got, want)
	}
}
