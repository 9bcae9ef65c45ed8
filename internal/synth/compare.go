package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// CompareDemo is a generated comparison with one planted rank flip: a
// benchmark's training split and test split, a web corpus that holds
// half of the test labels, and three models:
//
//   - "memorizer", trained on the web corpus and the benchmark's training
//     split, recognises every test item whose label it saw and 60% of the
//     others: first on all items (80%), second on clean items (60%);
//   - "by-the-rules" (rules: true), trained on the benchmark's training
//     split only, recognises 75% of every kind of item: second on all
//     items, first on clean items;
//   - "baseline" (rules: true) recognises 45%: third on both.
//
// The only flip is memorizer above by-the-rules on all items and below it
// on clean items.
type CompareDemo struct {
	Config string // the comparison configuration (YAML) written for it
	// Flip is the planted flip: Above leads on all items, Below on
	// clean items.
	Split, Above, Below string
	// Memorized counts the test labels in the web corpus; BenchSeen those
	// in the benchmark's training split (seen by every model).
	Memorized, BenchSeen int
}

// GenerateCompareDemo writes the comparison demo into dir.
func GenerateCompareDemo(dir string, seed uint64) (CompareDemo, error) {
	g := New(seed)
	cd := CompareDemo{Split: "demo-test", Above: "memorizer", Below: "by-the-rules"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cd, err
	}
	seen := keySet{}
	fresh := func() string { return seen.fresh(g) }
	const n = 1000
	test := make([]string, n)
	for i := range test {
		test[i] = fresh()
	}
	// The web corpus holds test items 0–499 among 2,000 other labels; the
	// benchmark's training split holds items 500–539 among 1,500 others.
	web := append([]string(nil), test[:500]...)
	for range 2000 {
		web = append(web, fresh())
	}
	shuffle(g, web)
	bench := append([]string(nil), test[500:540]...)
	for range 1500 {
		bench = append(bench, fresh())
	}
	shuffle(g, bench)
	cd.Memorized, cd.BenchSeen = 500, 40
	if err := WriteJSONStrings(filepath.Join(dir, "web-corpus.json"), len(web), func(i int) string { return web[i] }); err != nil {
		return cd, err
	}
	if err := WriteJSONStrings(filepath.Join(dir, "bench-train.json"), len(bench), func(i int) string { return bench[i] }); err != nil {
		return cd, err
	}
	var caps []byte
	for i, f := range test {
		caps = fmt.Appendf(caps, "t%04d\t%s\n", i, f)
	}
	if err := os.WriteFile(filepath.Join(dir, "test-labels.txt"), caps, 0o644); err != nil {
		return cd, err
	}
	// Predictions: name, then the prediction (a decode output), each
	// model right on a fixed share of the items by position in a cycle
	// of 20, so that the rates are exact.
	write := func(name string, right func(i int) bool) error {
		var b []byte
		for i, f := range test {
			p := f
			if !right(i) {
				p = g.Corrupt(f)
			}
			b = fmt.Appendf(b, "t%04d %s\n", i, p)
		}
		return os.WriteFile(filepath.Join(dir, name+".txt"), b, 0o644)
	}
	if err := write("memorizer", func(i int) bool { return i < 500 || i%20 < 12 }); err != nil {
		return cd, err
	}
	if err := write("by-the-rules", func(i int) bool { return (i+7)%20 < 15 }); err != nil {
		return cd, err
	}
	if err := write("baseline", func(i int) bool { return (i+3)%20 < 9 }); err != nil {
		return cd, err
	}
	cd.Config = filepath.Join(dir, "compare.yaml")
	cfg := `name: leakaudit demo comparison
splits:
  - {name: demo-test, labels: test-labels.txt, format: caption}
models:
  - name: memorizer
    train:
      - {name: web-corpus, path: web-corpus.json}
      - {name: bench-train, path: bench-train.json}
    predictions:
      - {split: demo-test, path: memorizer.txt, format: caption, reported_exprate: ` + strconv.Itoa(80) + `}
  - name: by-the-rules
    rules: true
    train:
      - {name: bench-train, path: bench-train.json}
    predictions:
      - {split: demo-test, path: by-the-rules.txt, format: caption}
  - name: baseline
    rules: true
    train:
      - {name: bench-train, path: bench-train.json}
    predictions:
      - {split: demo-test, path: baseline.txt, format: caption}
`
	return cd, os.WriteFile(cd.Config, []byte(cfg), 0o644)
}
