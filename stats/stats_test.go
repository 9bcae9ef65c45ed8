package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The worked examples of docs/audit-statistics.md §2 and §3.
func TestWilsonWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{8514, 8834, 95.97, 96.75},
		{943, 986, 94.18, 96.75},
		{17505, 19901, 87.50, 88.41},
		{534, 555, 94.28, 97.51},
		{2197, 2300, 94.60, 96.29},
		{9125, 15670, 57.46, 59.00},
		{4730, 7639, 60.82, 63.00},
	} {
		iv, ok := Wilson(tc.k, tc.n, Z95)
		if !ok || !near(100*iv.Lo, tc.lo, 0.006) || !near(100*iv.Hi, tc.hi, 0.006) {
			t.Errorf("Wilson(%d, %d) = [%.2f, %.2f]; want [%.2f, %.2f]", tc.k, tc.n, 100*iv.Lo, 100*iv.Hi, tc.lo, tc.hi)
		}
	}
	if _, ok := Wilson(0, 0, Z95); ok {
		t.Error("Wilson with n = 0 is n/a")
	}
}

func TestNewcombeAndZWorkedExamples(t *testing.T) {
	// CROHME-2023: val − train = +8.26 pp [6.27, 9.63], z = 5.94, p = 2.8e-9
	iv, _ := Newcombe(534, 555, 17505, 19901, Z95)
	if !near(100*iv.Lo, 6.27, 0.006) || !near(100*iv.Hi, 9.63, 0.006) {
		t.Errorf("Newcombe = [%.2f, %.2f]; want [6.27, 9.63]", 100*iv.Lo, 100*iv.Hi)
	}
	tt := TwoProportions(534, 555, 17505, 19901)
	if tt.Method != "z" || !near(tt.Z, 5.94, 0.006) || !near(tt.P/2.8e-9, 1, 0.05) {
		t.Errorf("z-test = %+v; want z 5.94, p 2.8e-9", tt)
	}
	// test − train = +7.56 pp [6.54, 8.46], z = 10.86
	iv, _ = Newcombe(2197, 2300, 17505, 19901, Z95)
	if !near(100*iv.Lo, 6.54, 0.006) || !near(100*iv.Hi, 8.46, 0.006) {
		t.Errorf("Newcombe = [%.2f, %.2f]; want [6.54, 8.46]", 100*iv.Lo, 100*iv.Hi)
	}
	if tt := TwoProportions(2197, 2300, 17505, 19901); !near(tt.Z, 10.86, 0.006) {
		t.Errorf("z = %.3f; want 10.86", tt.Z)
	}
	// MathWriting: test − valid = +3.69 pp [2.35, 5.02], z = 5.38
	iv, _ = Newcombe(4730, 7639, 9125, 15670, Z95)
	if !near(100*iv.Lo, 2.35, 0.006) || !near(100*iv.Hi, 5.02, 0.006) {
		t.Errorf("Newcombe = [%.2f, %.2f]; want [2.35, 5.02]", 100*iv.Lo, 100*iv.Hi)
	}
}

func TestFisherAndHolm(t *testing.T) {
	// A classic table: [[1 9] [11 3]] has two-sided p = 0.002759
	if p := Fisher(1, 9, 11, 3); !near(p, 0.002759, 1e-5) {
		t.Errorf("Fisher = %.6f; want 0.002759", p)
	}
	if tt := TwoProportions(1, 10, 3, 14); tt.Method != "fisher" {
		t.Errorf("small cells use Fisher, got %s", tt.Method)
	}
	adj := Holm([]float64{0.01, 0.04, 0.03})
	want := []float64{0.03, 0.06, 0.06}
	for i := range want {
		if !near(adj[i], want[i], 1e-12) {
			t.Errorf("Holm = %v; want %v", adj, want)
			break
		}
	}
}

func TestMantelHaenszel(t *testing.T) {
	// identical strata: the MH difference equals each stratum's
	rd, chi2, p := MantelHaenszel([]Stratum{{90, 100, 80, 100}, {45, 50, 40, 50}})
	if !near(rd, 0.1, 1e-12) || chi2 <= 0 || p >= 0.05 {
		t.Errorf("MH = %.4f, χ² %.3f, p %.4f", rd, chi2, p)
	}
}
