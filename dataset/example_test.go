package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/leakaudit/leakaudit/dataset"
)

// Scan detects the format, delivers every usable record and counts the
// others with their reason; Shortfall says the input was read only in part.
func ExampleScan() {
	dir, _ := os.MkdirTemp("", "scan")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "preds.jsonl")
	os.WriteFile(path, []byte(`{"img_id": "a", "gt": "x ^ { 2 }", "pred": "x^2"}
{"img_id": "b", "gt": ""}
{"img_id": "c", "gt": "\\frac { 1 } { 2 }", "pred": "\\frac12"}
`), 0o644)
	st, err := dataset.Scan(dataset.Source{Path: path}, func(it dataset.Item) error {
		fmt.Printf("%s: %q → %q\n", it.ID, it.Label, it.Pred)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Format, st.Items, "items,", st.Skipped, "skipped:", st.Shortfall())
	// Output:
	// a: "x ^ { 2 }" → "x^2"
	// c: "\\frac { 1 } { 2 }" → "\\frac12"
	// jsonl 2 items, 1 skipped: 1 record(s) skipped (empty label: 1 (first at line 2))
}
