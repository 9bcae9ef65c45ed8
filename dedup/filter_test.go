package dedup

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// TestKeyFilterChangesNothing: a release cleaned against label sets with
// the key filter and without it removes the same items for the same
// reasons and levels, at one level and at three (with matches found only
// at the second).
func TestKeyFilterChangesNothing(t *testing.T) {
	defer func() { filterOff = false }()
	rng := rand.New(rand.NewPCG(3, 37))
	toks := []string{`\frac`, `{`, `}`, `x`, `y`, `2`, `+`, `=`, `\alpha`, `^`, `_`, `\left(`, `\right)`, `\sqrt`}
	label := func() string {
		var b []string
		for range 1 + rng.IntN(8) {
			b = append(b, toks[rng.IntN(len(toks))])
		}
		return strings.Join(b, " ")
	}
	var release, against1, against2 []string
	for range 3000 {
		release = append(release, label())
	}
	for i := range 300 {
		against1 = append(against1, release[rng.IntN(len(release))])
		against2 = append(against2, strings.ReplaceAll(label(), " ", "")) // matches at audit and ws only
		switch i % 3 {
		case 0: // matches at audit
			against2[i] = `\[ ` + release[rng.IntN(len(release))] + ` \]`
		case 1: // matches at ws only
			against2[i] = `$ ` + release[rng.IntN(len(release))] + ` $`
		}
	}
	dir := t.TempDir()
	files := map[string][]string{"release.json": release, "a1.json": against1, "a2.json": against2}
	for name, labels := range files {
		b, _ := json.Marshal(labels)
		write(t, filepath.Join(dir, name), b)
	}
	var levels []canon.Level
	for _, n := range []string{"audit", "ws", "tokens"} {
		l, ok := canon.LookupLevel(n)
		if !ok {
			t.Fatal(n)
		}
		levels = append(levels, l)
	}
	for _, lv := range [][]canon.Level{levels[1:2], levels} {
		var results []*Result
		var outs []string
		for i, off := range []bool{true, false} {
			filterOff = off
			job := Job{Releases: []Input{{Name: "release", Source: dataset.Source{Path: filepath.Join(dir, "release.json")}}},
				Against: []Input{{Name: "a1", Source: dataset.Source{Path: filepath.Join(dir, "a1.json")}}, {Name: "a2", Source: dataset.Source{Path: filepath.Join(dir, "a2.json")}}},
				Out:     filepath.Join(dir, fmt.Sprintf("out-%d-%d", len(lv), i)), Levels: lv}
			res, err := Run(context.Background(), job)
			if err != nil {
				t.Fatal(err)
			}
			results, outs = append(results, res), append(outs, job.Out)
		}
		a, b := results[0], results[1]
		if len(a.Removed) < 100 || len(lv) > 1 && a.Releases[0].ByLevel["ws"] == 0 || !reflect.DeepEqual(a.Removed, b.Removed) || !reflect.DeepEqual(a.Releases[0].ByLevel, b.Releases[0].ByLevel) {
			t.Errorf("%d levels: without the filter %d removed %v, with it %d %v", len(lv), len(a.Removed), a.Releases[0].ByLevel, len(b.Removed), b.Releases[0].ByLevel)
		}
		if d := diffTrees(t, outs[0], outs[1]); d != "" {
			t.Errorf("%d levels: outputs differ: %s", len(lv), d)
		}
	}
}
