package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
)

// Build indexes a training corpus at the ws level; Lookup then finds every
// training item with a test label's key.
func ExampleDB_Lookup() {
	dir, _ := os.MkdirTemp("", "index")
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "train.json")
	os.WriteFile(corpus, []byte(`["x ^ { 2 }", "y", "x^{2}"]`), 0o644)

	ws, _ := canon.LookupLevel("ws")
	inputs := []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: corpus}}}
	fp, _ := checksum.Of(corpus)
	db, err := index.Open(filepath.Join(dir, "db"), index.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	if _, err := db.Build(context.Background(), inputs, []checksum.Input{{Name: "train", File: fp}}, []canon.Level{ws}, "example", nil); err != nil {
		fmt.Println(err)
		return
	}
	key, _ := ws.Canon(`$x^{2}$`)
	m, _ := db.Lookup(ws, key, 10)
	fmt.Println(key, m.Count, m.Refs)
	// Output:
	// x^{2} 2 [{train 0} {train 2}]
}
