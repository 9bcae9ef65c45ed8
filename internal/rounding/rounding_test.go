package rounding

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestPythonGolden checks Python against Python's own round on every row
// of testdata/python_round.tsv (ties, near-ties, rates, negative, large,
// tiny and special values at 2, 3, 4 and 6 decimals), bit for bit.
func TestPythonGolden(t *testing.T) {
	f, err := os.Open("testdata/python_round.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 5 {
			t.Fatalf("line %d: %d fields, want 5", line, len(c))
		}
		d, err1 := strconv.Atoi(c[0])
		x, err2 := strconv.ParseFloat(c[1], 64)
		want, err3 := strconv.ParseFloat(c[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("line %d: %v %v %v", line, err1, err2, err3)
		}
		rows++
		if got := Python(x, d); !same(got, want) {
			t.Errorf("line %d: Python(%s, %d) = %v, Python's round gives %s", line, c[3], d, got, c[4])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 5000 {
		t.Fatalf("only %d rows read", rows)
	}
}

// same is bitwise equality, NaN equal to NaN.
func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func TestHalfAway(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int
		want float64
	}{
		{3.125, 2, 3.13}, // an exact tie: away from zero (Python: 3.12)
		{-3.125, 2, -3.13},
		{0.0625, 3, 0.063}, // Python: 0.062
		{2.5, 0, 3},
		{2.675, 2, 2.68}, // 2.675 is 2.67499…, but 2.675·100 rounds to 267.5 (Python: 2.67)
		{1.005, 2, 1},    // 1.005·100 is 100.49999…
		{0.9995, 3, 1},   // Python: 0.999
		{0.1234, 3, 0.123},
		{-0.0004, 3, 0},
	} {
		if got := HalfAway(c.x, c.d); got != c.want {
			t.Errorf("HalfAway(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
}

// TestRulesDiffer keeps the two rules apart: on the golden table's exact
// ties they must disagree somewhere, else one function would do.
func TestRulesDiffer(t *testing.T) {
	for _, c := range []struct {
		x float64
		d int
	}{{3.125, 2}, {0.0625, 3}, {2.675, 2}} {
		if Python(c.x, c.d) == HalfAway(c.x, c.d) {
			t.Errorf("Python and HalfAway agree on %v at %d decimals", c.x, c.d)
		}
	}
}

func TestPercentHalfAway(t *testing.T) {
	for _, c := range []struct {
		f, want float64
	}{
		{97.0 / 160, 60.63}, // f·10⁴ is 6062.5 (HalfAway(100·f, 2) and Python give 60.62)
		{-97.0 / 160, -60.63},
		{1.0 / 32, 3.13}, // an exact tie (Python(3.125, 2) is 3.12)
		{943.0 / 986, 95.64},
		{0, 0},
		{1, 100},
	} {
		if got := PercentHalfAway(c.f); got != c.want {
			t.Errorf("PercentHalfAway(%v) = %v, want %v", c.f, got, c.want)
		}
	}
	if f := 97.0 / 160; PercentHalfAway(f) == HalfAway(100*f, 2) {
		t.Errorf("PercentHalfAway(97/160) = HalfAway(100·97/160, 2): the test no longer tells them apart")
	}
}
