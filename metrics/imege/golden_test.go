package imege

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goldenParams parses bidm's trailing arguments ("35 31 -i 2").
func goldenParams(t *testing.T, args string) Params {
	f := strings.Fields(args)
	p := Params{Size: 3}
	var err error
	if p.Warp, err = strconv.Atoi(f[0]); err != nil {
		t.Fatal(err)
	}
	if p.Context, err = strconv.Atoi(f[1]); err != nil {
		t.Fatal(err)
	}
	if len(f) == 4 && f[2] == "-i" {
		p.Interp, _ = strconv.Atoi(f[3])
	}
	return p
}

// Every golden pair (testdata/golden.tsv, written by imegegolden from the
// original bidm's outputs) gives the original's printed values.
func TestGoldenPairs(t *testing.T) {
	f, err := os.Open("testdata/golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		name, p := c[0], goldenParams(t, c[3])
		if testing.Short() && p.Interp == 0 {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			rec, err := ReadFile(filepath.Join("testdata/pairs", c[1]), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := ReadFile(filepath.Join("testdata/pairs", c[2]), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compare(rec, ref, p, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			gp, gr, _ := r.Format()
			if gp != c[4] || gr != c[5] {
				t.Errorf("%s %s: P %s R %s, original %s %s", name, c[3], gp, gr, c[4], c[5])
			}
		})
	}
	if n < 20 && !testing.Short() {
		t.Errorf("%d golden pairs, want at least 20", n)
	}
}
