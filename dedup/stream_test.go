package dedup

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/dataset"
)

// TestStreamedReleaseEqualsRewrite: a stream file written during its scan
// (JSON, JSONL, CSV, lines) is the file dataset.WriteSubset writes from
// the final removals, the first record removed or not, with the within
// rule, near matches and an unreadable record among the removals; a file
// read only in part is refused, as by WriteSubset.
func TestStreamedReleaseEqualsRewrite(t *testing.T) {
	dir := t.TempDir()
	against := filepath.Join(dir, "test.json")
	write(t, against, []byte(`["x^2", "\\frac { a } { b } + c + d + e + f", "y"]`))
	cases := []struct {
		name, file, body, field string
		near                    int
	}{
		{"json first removed", "a.json", "[\n  \"x ^ 2\",\n  \"z\",\n  \"z\",\n  \"\\ud800\",\n  \"w\", \"y\"\n]\n", "", 0},
		{"json first kept", "b.json", `["q", "x^2", "q", "r" ,"y","s"]`, "", 0},
		{"json near", "c.json", `["\\frac { a } { b } + c + d + e + g", "k", "k"]`, "", 1},
		{"jsonl", "d.jsonl", "{\"gt\": \"x^2\"}\n{\"gt\": \"m\"}\n\n{\"gt\": \"m\"}\n{\"gt\": 3}\n{\"gt\": \"n\"}\n", "gt", 0},
		{"csv", "e.csv", "id,gt\n1,x^2\n2,\"a,b\"\n3,\"a,b\"\n4,c\n", "gt", 0},
		{"lines", "f.txt", "x^2\nu\nu\n\nv\ny\n", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := filepath.Join(dir, c.file)
			write(t, rel, []byte(c.body))
			src := dataset.Source{Path: rel, Field: c.field}
			out := filepath.Join(dir, "out-"+c.file)
			res, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: src}},
				Against: []Input{{Name: "t", Source: dataset.Source{Path: against}}},
				Out:     out, Levels: ws(t), Within: true, Near: c.near, NearMin: 2, Tool: "leakaudit test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Releases[0].Removed < 2 {
				t.Fatalf("removed %d: the case should remove some", res.Releases[0].Removed)
			}
			gone := map[int64]bool{}
			for _, r := range res.Removed {
				gone[r.Seq] = true
			}
			want := filepath.Join(dir, "want-"+c.file)
			n, err := dataset.WriteSubset(src, want, func(s int64) bool { return !gone[s] })
			if err != nil {
				t.Fatal(err)
			}
			if n != res.Releases[0].Kept {
				t.Errorf("kept %d, the rewrite wrote %d", res.Releases[0].Kept, n)
			}
			got, err := os.ReadFile(filepath.Join(out, "r", c.file))
			if err != nil {
				t.Fatal(err)
			}
			w, err := os.ReadFile(filepath.Join(want, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, w) {
				t.Errorf("streamed\n%q\nwant\n%q", got, w)
			}
		})
	}
	t.Run("partial", func(t *testing.T) {
		rel := filepath.Join(dir, "cut.json")
		write(t, rel, []byte(`["a", "x^2", "b",`))
		out := filepath.Join(dir, "out-cut")
		_, err := Run(context.Background(), Job{Releases: []Input{{Name: "r", Source: dataset.Source{Path: rel}}},
			Against: []Input{{Name: "t", Source: dataset.Source{Path: against}}}, Out: out, Levels: ws(t)})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("release r: write: ")) {
			t.Errorf("a file read in part: %v, want the rewrite refused", err)
		}
		if _, serr := os.Stat(out); !os.IsNotExist(serr) {
			t.Errorf("%s exists after a refused rewrite", out)
		}
	})
}
