package dataset

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captionLines makes n caption lines "name<sep>label" with names made by
// name(i).
func captionLines(n int, sep string, name func(int) string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s%s\\frac { %d } { 2 }\n", name(i), sep, i)
	}
	return b.String()
}

// TestHostileDetectCaptions: a caption file is read as captions whatever
// its name, when most of its lines read as name<TAB or SPACE>label; a file
// of one formula per line stays lines; a choice made on mixed evidence
// says so in its note, and a clear one has no note.
func TestHostileDetectCaptions(t *testing.T) {
	crohmeID := func(i int) string { return fmt.Sprintf("200922-%d-%d", 900+i, i%10) } // no letter
	wapID := func(i int) string { return fmt.Sprintf("%d_em_%d", 18+i/25, i) }
	repeated := captionLines(40, "\t", wapID)
	repeated = strings.SplitAfter(repeated, "\n")[0] + repeated // the first line twice
	var formulas, sinLines, mixed strings.Builder
	for i := range 40 {
		fmt.Fprintf(&formulas, "x ^ { %d } + \\frac { 1 } { %d }\n", i, i+1)
		fmt.Fprintf(&sinLines, "sin ( x + %d )\n", i)
		if i%10 < 6 {
			fmt.Fprintf(&mixed, "%s\t\\alpha _ { %d }\n", wapID(i), i)
		} else {
			fmt.Fprintf(&mixed, "\\alpha _ { %d }\n", i)
		}
	}
	var numbers strings.Builder
	for i := range 40 {
		fmt.Fprintf(&numbers, "%d + %d = %d\n", 100+i, i, 100+2*i)
	}
	cases := []struct {
		name, file, content string
		want                Format
		note                string // a substring of the note; "" for no note
	}{
		{"CROHME ids without letters, tab, renamed", "train_caps.txt", captionLines(40, "\t", crohmeID), Caption, ""},
		{"one id repeated", "crohme2014.txt", repeated, Caption, `repeat (first: "18_em_0")`},
		{"WAP results, space", "wap.txt", captionLines(40, " ", wapID), Caption, ""},
		{"ids without letters, space", "ids.txt", captionLines(40, " ", crohmeID), Caption, "no letter"},
		{"mostly captions", "mixed.txt", mixed.String(), Caption, "16 of them do not"},
		{"one formula per line", "formulas.txt", formulas.String(), Lines, ""},
		{"formulas starting with numbers", "sums.txt", numbers.String(), Lines, ""},
		{"formulas whose first word repeats", "sin.txt", sinLines.String(), Lines, "names repeat"},
		{"caption.txt holding formulas", "caption.txt", formulas.String(), Caption, "named caption.txt"},
		{"a map on one line", "tamer.json", `{"a.jpg": {"gt": "x", "pred": "x"}, "b.jpg": {"gt": "y", "pred": "y"}}` + "\n", JSONMap, ""},
		{"one record on one line", "one.json", `{"gt": "x", "pred": "x"}` + "\n", JSONL, ""},
		{"an empty object", "empty.json", "{}\n", JSONMap, ""},
		{"TSV with a header, named .txt", "preds.txt", "img_id\tgt\tpred\n18_em_0\tx\tx\n18_em_1\ty\ty\n", TSV, "header naming the columns img_id, gt, pred"},
		{"CSV with a header, named .txt", "preds.txt", "id,label\n1,x\n2,y\n", CSV, "header naming the columns id, label"},
		{"formulas with commas", "f.txt", "x , y\na , b\n", Lines, ""},
	}
	dir := t.TempDir()
	for i, c := range cases {
		sub := filepath.Join(dir, fmt.Sprint(i))
		os.Mkdir(sub, 0o755)
		path := filepath.Join(sub, c.file)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		f, note, err := DetectNote(path)
		if err != nil || f != c.want {
			t.Errorf("%s: DetectNote = %q, %v; want %q", c.name, f, err, c.want)
			continue
		}
		if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want one containing %q", c.name, note, c.note)
		}
		// Scan carries the note into the stats.
		st, err := Scan(Source{Path: path}, func(Item) error { return nil })
		if err != nil || st.Format != c.want || st.FormatNote != note {
			t.Errorf("%s: Scan: %v, %+v", c.name, err, st)
		}
	}
}

// TestHostileJSONCutShort: a JSON array or map without its closing bracket,
// or with data after it, is a file fault (the input is partial) in every
// JSON reader; the records before the fault are kept.
func TestHostileJSONCutShort(t *testing.T) {
	const objs = `[{"img_id": "a", "gt": "x"}, {"img_id": "b", "gt": "y"}`
	const m = `{"a": {"gt": "x"}, "b": {"gt": "y"}`
	const strs = `["x", "y"`
	cases := []struct {
		name, content string
		format        Format
		items         int64
		fault         string // a substring of Stats.FileError; "" for none
	}{
		{"objects", objs + "]\n", JSONObjects, 2, ""},
		{"objects without ]", objs + "\n", JSONObjects, 2, `without the closing "]"`},
		{"objects, then another array", objs + "]\n[{\"gt\": \"z\"}]\n", JSONObjects, 2, `data after the closing "]"`},
		{"map", m + "}\n", JSONMap, 2, ""},
		{"map without }", "{\n" + m[1:] + "\n", JSONMap, 2, `without the closing "}"`},
		{"map on one line without }", m + "\n", JSONMap, 2, `without the closing "}"`},
		{"map, then garbage", m + "} x", JSONMap, 2, `data after the closing "}"`},
		{"strings", strs + "]\n", JSONStrings, 2, ""},
		{"strings without ]", strs + "\n", JSONStrings, 2, "unexpected end of file inside the array"},
		{"strings, then another array", strs + "]\n[\"z\"]\n", JSONStrings, 2, "data after the closing ']'"},
		{"objects after a byte order mark", "\xef\xbb\xbf" + objs + "]\n", JSONObjects, 2, ""},
		{"map after a byte order mark", "\xef\xbb\xbf" + m + "}\n", JSONMap, 2, ""},
		{"map after a byte order mark, cut short", "\xef\xbb\xbf" + m, JSONMap, 2, `near byte 38: the file ends without the closing "}"`},
	}
	dir := t.TempDir()
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("%d.json", i))
		os.WriteFile(path, []byte(c.content), 0o644)
		st, err := Scan(Source{Path: path}, func(Item) error { return nil })
		if err != nil || st.Format != c.format || st.Items != c.items {
			t.Errorf("%s: %v, %+v", c.name, err, st)
			continue
		}
		if (c.fault == "") != (st.FileError == "") || !strings.Contains(st.FileError, c.fault) {
			t.Errorf("%s: file error %q, want one containing %q", c.name, st.FileError, c.fault)
		}
		if (c.fault == "") != (st.Shortfall() == "") {
			t.Errorf("%s: shortfall %q", c.name, st.Shortfall())
		}
		// The rewrite refuses exactly the inputs the reader reports.
		_, werr := WriteSubset(Source{Path: path}, filepath.Join(dir, fmt.Sprintf("out%d", i)), func(int64) bool { return true })
		if (c.fault == "") != (werr == nil) || werr != nil && !strings.Contains(werr.Error(), c.fault) {
			t.Errorf("%s: WriteSubset: %v", c.name, werr)
		}
	}
}

// TestHostileEmptyInputs: an input with no record at all is empty in every
// format, and empty is a shortfall that says so.
func TestHostileEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	emptyParquet := filepath.Join(dir, "rows0.parquet")
	if err := writeTestParquet(emptyParquet, nil); err != nil {
		t.Fatal(err)
	}
	emptyFolder := filepath.Join(dir, "nothing")
	os.Mkdir(emptyFolder, 0o755)
	write("capfolder/caption.txt", "")
	cases := []struct {
		name string
		src  Source
	}{
		{"0-byte .json", Source{Path: write("e.json", "")}},
		{"white space .json", Source{Path: write("w.json", " \n\t\n")}},
		{"[]", Source{Path: write("a.json", "[ ]\n")}},
		{"[] of objects, given", Source{Path: write("o.json", "[]"), Format: JSONObjects}},
		{"{}", Source{Path: write("m.json", "{}")}},
		{"0-byte .jsonl", Source{Path: write("e.jsonl", "")}},
		{"blank lines .jsonl", Source{Path: write("b.jsonl", "\n\n")}},
		{"0-byte .csv", Source{Path: write("e.csv", "")}},
		{"header-only .csv", Source{Path: write("h.csv", "id,gt\n")}},
		{"header-only .tsv", Source{Path: write("h.tsv", "id\tgt\n")}},
		{"0-byte .txt", Source{Path: write("e.txt", "")}},
		{"0-byte .parquet", Source{Path: write("e.parquet", "")}},
		{"Parquet with no row", Source{Path: emptyParquet}},
		{"empty caption.txt in a folder", Source{Path: filepath.Join(dir, "capfolder")}},
		{"empty folder", Source{Path: emptyFolder}},
		{"empty folder as InkML", Source{Path: emptyFolder, Format: InkML}},
		{"white space, given as JSON strings", Source{Path: write("ws1.json", "\xef\xbb\xbf \n"), Format: JSONStrings}},
		{"white space, given as JSON objects", Source{Path: write("ws2.json", " \n"), Format: JSONObjects}},
		{"white space, given as a JSON map", Source{Path: write("ws3.json", "\n"), Format: JSONMap}},
	}
	for _, c := range cases {
		n := 0
		st, err := Scan(c.src, func(Item) error { n++; return nil })
		if err != nil || n != 0 || !st.Empty {
			t.Errorf("%s: %v, %d items, %+v", c.name, err, n, st)
			continue
		}
		if !strings.Contains(st.Shortfall(), "empty input") || !strings.Contains(st.NoItems(""), "empty") {
			t.Errorf("%s: shortfall %q, no items %q", c.name, st.Shortfall(), st.NoItems(""))
		}
	}
	// Image sources alike.
	zpath := filepath.Join(dir, "none.zip")
	zf, _ := os.Create(zpath)
	zip.NewWriter(zf).Close()
	zf.Close()
	for _, p := range []string{emptyFolder, zpath, write("e.zip", "")} {
		st, err := ScanImages(ImageSource{Path: p}, func(ImageItem) error { return nil })
		if err != nil || !st.Empty || !strings.Contains(st.Shortfall(), "empty input") {
			t.Errorf("images %s: %v, %+v", p, err, st)
		}
	}
	// Not empty: a record skipped, or a file fault.
	for _, content := range []string{`[""]`, `[`, `["x"`} {
		st, _ := Scan(Source{Path: write("ne.json", content)}, func(Item) error { return nil })
		if st.Empty {
			t.Errorf("%q read as empty: %+v", content, st)
		}
	}
	// An empty input is its own rewrite.
	for _, p := range []string{filepath.Join(dir, "w.json"), filepath.Join(dir, "e.jsonl")} {
		out := filepath.Join(dir, "out-"+filepath.Base(p))
		if n, err := WriteSubset(Source{Path: p}, out, func(int64) bool { return true }); err != nil || n != 0 {
			t.Errorf("WriteSubset(%s) = %d, %v", p, n, err)
		}
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(out, filepath.Base(p)))
		if err != nil || string(a) != string(b) {
			t.Errorf("rewrite of %s: %q, %v", p, b, err)
		}
	}
}

// TestHostileNoItems: a read that delivers nothing says why: the label
// field looked for and the fields found.
func TestHostileNoItems(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	os.WriteFile(path, []byte(`[{"image": "a", "latex_code": "x"}, {"image": "b", "latex_code": "y"}]`), 0o644)
	cases := []struct {
		field string
		want  []string
	}{
		{"", []string{"all 2 record(s) (read as json-objects) were skipped", "no label field: 2", "gt, label, latex_formula", "fields image, latex_code", "--field"}},
		{"tex", []string{"looked for as tex", "fields image, latex_code"}},
	}
	for _, c := range cases {
		st, err := Scan(Source{Path: path, Field: c.field}, func(Item) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		why := st.NoItems(c.field)
		for _, w := range c.want {
			if !strings.Contains(why, w) {
				t.Errorf("field %q: %q lacks %q", c.field, why, w)
			}
		}
	}
	// A record that is a map of many names is summed up.
	var b strings.Builder
	b.WriteString(`{"details": {`)
	for i := range 50 {
		fmt.Fprintf(&b, `"n%02d": 1, `, i)
	}
	b.WriteString(`"z": 1}}`)
	os.WriteFile(path, []byte(b.String()), 0o644)
	st, _ := Scan(Source{Path: path}, func(Item) error { return nil })
	if len(st.FieldsSeen) != maxFieldsSeen+1 || st.FieldsSeen[maxFieldsSeen] != "… (31 more)" {
		t.Errorf("fields seen: %q", st.FieldsSeen)
	}
}
