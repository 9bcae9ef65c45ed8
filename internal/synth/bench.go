package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/leakaudit/leakaudit/canon"

	"github.com/parquet-go/parquet-go"
)

// Planted is what a generated test split is known to contain.
type Planted struct {
	Exact    int // copies of a training label as they are
	Respaced int // copies written without token spaces (found at audit and ws)
	Wrapped  int // copies in $…$, \(…\) or with no-break spaces (found at ws only)
	Glued    int // \alpha b against a training \alphab (found at audit only)
	Dups     int // extra entries repeating an exact copy (each counts)
}

// FoundAudit is the number of entries the audit level must find.
func (p Planted) FoundAudit() int { return p.Exact + p.Respaced + p.Glued + p.Dups }

// FoundWS is the number of entries the ws level must find.
func (p Planted) FoundWS() int { return p.Exact + p.Respaced + p.Wrapped + p.Dups }

// TestSplit is a generated test split.
type TestSplit struct {
	Name    string
	Path    string
	Items   int // entries written, bad ones included
	Bad     int // entries a reader must skip (empty labels)
	Planted Planted
}

// Benchmark is a generated benchmark on disk.
type Benchmark struct {
	Train []Corpus
	Tests []TestSplit
	// Copied are the training items whose labels were planted in a test
	// split (each once), by corpus name and 0-based position.
	Copied []Position
}

// Position is a training item by corpus and position.
type Position struct {
	Corpus string
	Index  int
}

// Corpus is a generated training corpus.
type Corpus struct {
	Name  string
	Path  string
	Items int
}

type pqRow struct {
	LatexFormula string `parquet:"latex_formula"`
}

// WriteParquet writes labels as a Hugging Face-style Parquet file with one
// string column, latex_formula.
func WriteParquet(path string, labels []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[pqRow](f, parquet.Compression(&parquet.Zstd))
	rows := make([]pqRow, len(labels))
	for i, l := range labels {
		rows[i] = pqRow{l}
	}
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteJSONStrings writes labels as a JSON array of strings, one per line,
// streaming, so that corpora of millions of labels can be written.
func WriteJSONStrings(path string, n int, next func(i int) string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("[\n")
	for i := 0; i < n; i++ {
		b, _ := json.Marshal(next(i))
		w.Write(b)
		if i < n-1 {
			w.WriteString(",\n")
		}
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// keySet remembers the audit and ws keys of labels, to keep fresh test
// labels away from every training label at both levels.
type keySet map[string]bool

func (k keySet) add(s string) {
	k["a\x00"+canon.AuditKey(s)] = true
	k["w\x00"+canon.WSKey(s)] = true
}

func (k keySet) has(s string) bool {
	return k["a\x00"+canon.AuditKey(s)] || k["w\x00"+canon.WSKey(s)]
}

// fresh draws formulas from g until one whose keys k does not hold, adds
// it and returns it.
func (k keySet) fresh(g *Generator) string {
	for {
		f := g.Formula()
		if !k.has(f) {
			k.add(f)
			return f
		}
	}
}

// GenerateDemo writes a small benchmark into dir: two training corpora (a
// Parquet file in the Hugging Face layout and a CROHME-style caption
// folder) and two test splits (a JSON label list and a caption folder) with
// planted copies of training labels.
func GenerateDemo(dir string, seed uint64) (Benchmark, error) {
	g := New(seed)
	var bm Benchmark
	if err := os.MkdirAll(dir+"/own-train", 0o755); err != nil {
		return bm, err
	}
	if err := os.MkdirAll(dir+"/test-b", 0o755); err != nil {
		return bm, err
	}
	seen := keySet{}
	web := make([]string, 20000)
	for i := range web {
		web[i] = g.Formula()
		seen.add(web[i])
	}
	own := make([]string, 5000)
	for i := range own {
		own[i] = g.Formula()
		seen.add(own[i])
	}
	// Glue plants: the web corpus holds the space-deleted form of a label
	// whose test copy keeps the space.
	var glue []string
	for len(glue) < 3 {
		f := g.GlueFormula()
		if seen.has(f) {
			continue
		}
		glue = append(glue, f)
		web = append(web, Glued(f))
		seen.add(Glued(f))
	}
	fresh := func() string {
		for {
			f := g.Formula()
			if !seen.has(f) {
				return f
			}
		}
	}
	all := append(append([]string(nil), web...), own...)
	copied := map[int]bool{}
	copyOf := func() string {
		i := g.Intn(len(all))
		copied[i] = true
		return all[i]
	}

	// Split A: a JSON list of 1,000 entries, one of them empty.
	pa := Planted{Exact: 100, Respaced: 60, Wrapped: 40, Glued: len(glue), Dups: 10}
	var a []string
	var exact []string
	for i := 0; i < pa.Exact; i++ {
		f := copyOf()
		exact = append(exact, f)
		a = append(a, f)
	}
	for i := 0; i < pa.Dups; i++ {
		a = append(a, exact[i])
	}
	for i := 0; i < pa.Respaced; i++ {
		a = append(a, Compact(copyOf()))
	}
	wrappers := []func(string) string{
		func(s string) string { return "$" + s + "$" },
		func(s string) string { return `\(` + s + `\)` },
		func(s string) string { return " " + replaceFirstSpace(s, "\u00a0") + "\t" },
	}
	for i := 0; i < pa.Wrapped; i++ {
		a = append(a, wrappers[i%len(wrappers)](copyOf()))
	}
	a = append(a, glue...)
	a = append(a, "") // a bad entry: counted as skipped, never silently lost
	for len(a) < 1000 {
		a = append(a, fresh())
	}
	shuffle(g, a)
	pathA := dir + "/test-a.json"
	if err := WriteJSONStrings(pathA, len(a), func(i int) string { return a[i] }); err != nil {
		return bm, err
	}
	// Split B: a caption folder of 500 entries.
	pb := Planted{Exact: 50}
	var b []string
	for i := 0; i < pb.Exact; i++ {
		b = append(b, copyOf())
	}
	for len(b) < 500 {
		b = append(b, fresh())
	}
	shuffle(g, b)
	if err := writeCaptions(dir+"/test-b/caption.txt", "b", b); err != nil {
		return bm, err
	}
	if err := WriteParquet(dir+"/web-corpus.parquet", web); err != nil {
		return bm, err
	}
	if err := writeCaptions(dir+"/own-train/caption.txt", "train", own); err != nil {
		return bm, err
	}
	bm.Train = []Corpus{
		{Name: "web-corpus", Path: dir + "/web-corpus.parquet", Items: len(web)},
		{Name: "own-train", Path: dir + "/own-train", Items: len(own)},
	}
	bm.Tests = []TestSplit{
		{Name: "test-a", Path: pathA, Items: len(a), Bad: 1, Planted: pa},
		{Name: "test-b", Path: dir + "/test-b", Items: len(b), Planted: pb},
	}
	for i := range all {
		if !copied[i] {
			continue
		}
		if i < len(web) {
			bm.Copied = append(bm.Copied, Position{"web-corpus", i})
		} else {
			bm.Copied = append(bm.Copied, Position{"own-train", i - len(web)})
		}
	}
	return bm, nil
}

func replaceFirstSpace(s, with string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i] + with + s[i+1:]
		}
	}
	return s
}

func shuffle(g *Generator, s []string) {
	for i := len(s) - 1; i > 0; i-- {
		j := g.Intn(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

func writeCaptions(path, prefix string, labels []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, l := range labels {
		fmt.Fprintf(w, "%s_%05d\t%s\n", prefix, i, l)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
