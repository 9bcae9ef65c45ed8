//go:build duckdb

// Command engine runs leakaudit's SQL in embedded DuckDB over fingerprints
// of the shared benchmark data, and checks that the engine gives exactly
// leakaudit's own answers: ../label_overlap.sql and ../label_matches.sql
// against leakaudit's overlap counts and per-item matches, and
// ../image_neardup.sql (over image fingerprints of the CROHME images)
// against leakaudit's own neardup pairs on the images at the same radius.
// It is its own module, built with the duckdb tag ("make engine"), so that
// leakaudit's build stays pure Go and CGO-free.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/overlap"
)

var (
	data   = flag.String("data", "../shared/data", "the shared data folder")
	sqlDir = flag.String("sql", "sql", "the folder of leakaudit's SQL")
	out    = flag.String("out", "", "working folder (default: a temporary one)")
	radii  = flag.String("radius", "6,10", "Hamming radii of the image near-duplicate check, comma-separated")
)

// The corpora checked: CROHME, HME100K and MNE-style label lists.
var (
	trainFiles = map[string]string{"crohme_train": "crohme_train_captions.json", "crohme2023_train": "crohme2023_train_captions.json", "hme100k_train": "hme100k_train_captions.json"}
	testFiles  = map[string]string{"crohme_2014": "crohme_2014_captions.json", "crohme_2016": "crohme_2016_captions.json", "crohme_2019": "crohme_2019_captions.json",
		"hme100k_test": "hme100k_test_captions.json", "mne_n1": "N1_captions.json", "mne_n2": "N2_captions.json", "mne_n3": "N3_captions.json"}
)

func inputs(files map[string]string) []fingerprint.Input {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var in []fingerprint.Input
	for _, n := range names {
		in = append(in, fingerprint.Input{Name: n, Source: dataset.Source{Path: filepath.Join(*data, "labels", files[n])}})
	}
	return in
}

func main() {
	flag.Parse()
	dir := *out
	if dir == "" {
		d, err := os.MkdirTemp("", "leakaudit-engine")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	levels, err := canon.ParseLevels("audit,ws,tokens")
	if err != nil {
		log.Fatal(err)
	}
	train, test := inputs(trainFiles), inputs(testFiles)
	trainFP, testFP := filepath.Join(dir, "train"), filepath.Join(dir, "test.parquet")
	// The training fingerprints partitioned, as a cluster would hold them.
	if _, err := fingerprint.Write(trainFP, train, fingerprint.Options{Levels: levels, Partitions: 8, Tool: "engine"}); err != nil {
		log.Fatal(err)
	}
	if _, err := fingerprint.Write(testFP, test, fingerprint.Options{Levels: levels, Tool: "engine"}); err != nil {
		log.Fatal(err)
	}

	// leakaudit's own answer, from the label files themselves.
	job := overlap.Job{Levels: levels, DB: filepath.Join(dir, "db"), MaxRefs: 1}
	for _, t := range train {
		job.Train = append(job.Train, index.CorpusInput{Name: t.Name, Source: t.Source})
	}
	for _, t := range test {
		job.Tests = append(job.Tests, overlap.Split{Name: t.Name, Source: t.Source})
	}
	want := map[string]int64{}
	job.Item = func(m overlap.ItemMatch) error {
		if m.Found {
			want[fmt.Sprintf("%s/%d/%s", m.Split, m.Seq, m.Level)] = m.Matches
		}
		return nil
	}
	rep, err := overlap.Run(context.Background(), job)
	if err != nil {
		log.Fatal(err)
	}

	// The engine's answer, from the fingerprints.
	db, err := sql.Open("duckdb", "")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	views, err := os.ReadFile(filepath.Join(*sqlDir, "duckdb", "views.sql"))
	if err != nil {
		log.Fatal(err)
	}
	setup := fmt.Sprintf("SET VARIABLE train = '%s'; SET VARIABLE test = '%s';\n%s",
		filepath.Join(trainFP, "**", "*.parquet"), testFP, views)
	if _, err := db.Exec(setup); err != nil {
		log.Fatal(err)
	}
	query := func(name string) *sql.Rows {
		q, err := os.ReadFile(filepath.Join(*sqlDir, name))
		if err != nil {
			log.Fatal(err)
		}
		rows, err := db.Query(string(q))
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		return rows
	}
	var bad []string
	got := map[string]string{}
	rows := query("label_overlap.sql")
	for rows.Next() {
		var split, level string
		var total, found, unique, uniqueFound int64
		var rate float64
		if err := rows.Scan(&split, &level, &total, &found, &rate, &unique, &uniqueFound); err != nil {
			log.Fatal(err)
		}
		got[split+"/"+level] = fmt.Sprintf("%d %d %d %d", total, found, unique, uniqueFound)
	}
	rows.Close()
	for _, s := range rep.Splits {
		w := fmt.Sprintf("%d %d %d %d", s.Total, s.Found, s.Unique, s.UniqueFound)
		g := got[s.Name+"/"+s.Level]
		fmt.Printf("%-14s %-7s leakaudit %-28s engine %s\n", s.Name, s.Level, w, g)
		if g != w {
			bad = append(bad, fmt.Sprintf("%s at %s: leakaudit %s, engine %s", s.Name, s.Level, w, g))
		}
	}
	if len(got) != len(rep.Splits) {
		bad = append(bad, fmt.Sprintf("%d split×level rows from the engine, %d from leakaudit", len(got), len(rep.Splits)))
	}
	n := 0
	rows = query("label_matches.sql")
	for rows.Next() {
		var split, id, level string
		var seq, matches int64
		if err := rows.Scan(&split, &id, &seq, &level, &matches); err != nil {
			log.Fatal(err)
		}
		k := fmt.Sprintf("%s/%d/%s", split, seq, level)
		if want[k] != matches {
			bad = append(bad, fmt.Sprintf("%s: leakaudit %d matches, engine %d", k, want[k], matches))
		}
		delete(want, k)
		n++
	}
	rows.Close()
	for k := range want {
		bad = append(bad, k+": matched by leakaudit, not by the engine")
	}
	if len(bad) > 0 {
		fmt.Println(strings.Join(bad[:min(len(bad), 20)], "\n"))
		log.Fatalf("the engine and leakaudit differ in %d place(s)", len(bad))
	}
	fmt.Printf("\nDuckDB over fingerprints gives exactly leakaudit's counts: %d split×level rows and %d item matches identical.\n\n", len(rep.Splits), n)
	checkImages(db, dir)
}
