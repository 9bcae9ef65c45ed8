package overlap_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/overlap"
)

// Run indexes the training corpus (once: the index is reused while
// the file is unchanged) and counts, per test split and level, the test
// items whose label occurs in it.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "overlap")
	defer os.RemoveAll(dir)
	train := filepath.Join(dir, "train.json")
	test := filepath.Join(dir, "test.json")
	os.WriteFile(train, []byte(`["x ^ { 2 }", "\\alpha b", "y"]`), 0o644)
	os.WriteFile(test, []byte(`["x^{2}", "\\alphab", "z", "y"]`), 0o644)
	levels, _ := canon.ParseLevels("audit,ws")
	rep, err := overlap.Run(context.Background(), overlap.Job{
		Train:  []index.CorpusInput{{Name: "train", Source: dataset.Source{Path: train}}},
		Tests:  []overlap.Split{{Name: "test", Source: dataset.Source{Path: test}}},
		Levels: levels, DB: filepath.Join(dir, "db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range rep.Splits {
		fmt.Printf("%s %-5s %d/%d found (%s%%)\n", s.Name, s.Level, s.Found, s.Total, s.Rate)
	}
	fmt.Println("complete:", rep.Complete)
	// Output:
	// test audit 3/4 found (75.00%)
	// test ws    2/4 found (50.00%)
	// complete: true
}
