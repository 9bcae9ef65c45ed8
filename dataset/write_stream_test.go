package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSubsetLongRuns rewrites files whose kept runs are longer than
// directSpan (copied file to file) between short ones and single removed
// records: the output is the kept records' bytes, in order.
func TestWriteSubsetLongRuns(t *testing.T) {
	dir := t.TempDir()
	const n = 30000
	removed := func(s int64) bool {
		return s == 0 || s == 2 || s == 5000 || s == 5001 || s == 17000 || s == n-1 || s%9000 == 7
	}
	var jsonl, jsonList, wantL, wantJ strings.Builder
	jsonList.WriteString("[\n")
	wantJ.WriteString("[\n")
	first := true
	for i := range n {
		rec := fmt.Sprintf(`{"label": "x_{%d} + %s"}`, i, strings.Repeat("y", i%17))
		jsonl.WriteString(rec + "\n")
		s := fmt.Sprintf(`"x_{%d} + %s"`, i, strings.Repeat("y", i%17))
		if i > 0 {
			jsonList.WriteString(",\n")
		}
		jsonList.WriteString("  " + s)
		if !removed(int64(i)) {
			wantL.WriteString(rec + "\n")
			if !first {
				wantJ.WriteString(",\n")
			}
			wantJ.WriteString("  " + s)
			first = false
		}
	}
	jsonList.WriteString("\n]\n")
	wantJ.WriteString("\n]\n")
	for _, c := range []struct{ name, body, want string }{
		{"train.jsonl", jsonl.String(), wantL.String()},
		{"train.json", jsonList.String(), wantJ.String()},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+c.name)
		if _, err := WriteSubset(Source{Path: p, Field: "label"}, out, func(s int64) bool { return !removed(s) }); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			i := 0
			for i < len(got) && i < len(c.want) && got[i] == c.want[i] {
				i++
			}
			t.Errorf("%s: %d bytes, want %d; first difference at byte %d", c.name, len(got), len(c.want), i)
		}
	}
}
