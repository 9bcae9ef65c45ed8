package stats

import (
	"math"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	for _, c := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{1, 5, 2 * 7.0 / 64}, // (C(6,0)+C(6,1))/2^6, doubled
		{5, 1, 2 * 7.0 / 64}, // symmetric
		{0, 5, 2 * 1.0 / 32}, // the most uneven split of 5
		{3, 3, 1},            // even: capped at 1
		{0, 1, 1},            // 2·½
		{10, 0, 2 * 1.0 / 1024},
	} {
		if got := McNemarExact(c.b, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", c.b, c.c, got, c.want)
		}
	}
}

// With φ = 0 (Both·Neither = OnlyA·OnlyB) the paired interval is the
// independent-samples Newcombe interval of the two margins; a positive
// correlation narrows it.
func TestNewcombePaired(t *testing.T) {
	ind := Paired{Both: 25, OnlyA: 25, OnlyB: 5, Neither: 5} // 25·5 = 25·5
	got, _ := NewcombePaired(ind, Z95)
	want, _ := Newcombe(50, 60, 30, 60, Z95)
	if math.Abs(got.Lo-want.Lo) > 1e-12 || math.Abs(got.Hi-want.Hi) > 1e-12 {
		t.Errorf("φ=0: paired %v, independent %v", got, want)
	}
	cor := Paired{Both: 45, OnlyA: 5, OnlyB: 3, Neither: 7}
	iv, _ := NewcombePaired(cor, Z95)
	indep, _ := Newcombe(50, 60, 48, 60, Z95)
	if d := cor.Diff(); !iv.Contains(d) || iv.Hi-iv.Lo >= indep.Hi-indep.Lo {
		t.Errorf("φ>0: %v (width %.4f) should hold %.4f and be narrower than %v", iv, iv.Hi-iv.Lo, d, indep)
	}
	if _, ok := NewcombePaired(Paired{}, Z95); ok {
		t.Error("an empty table gives an interval")
	}
	// Swapping A and B mirrors the interval.
	sw, _ := NewcombePaired(Paired{Both: 45, OnlyA: 3, OnlyB: 5, Neither: 7}, Z95)
	if math.Abs(sw.Lo+iv.Hi) > 1e-12 || math.Abs(sw.Hi+iv.Lo) > 1e-12 {
		t.Errorf("swapped %v is not the mirror of %v", sw, iv)
	}
}

func TestMHRiskDifference(t *testing.T) {
	// One stratum: Agresti–Caffo's interval of p1 − p0 centred on the
	// observed difference.
	rd, iv, ok := MHRiskDifference([]Stratum{{K1: 30, N1: 40, K0: 20, N0: 50}}, Z95)
	se := math.Sqrt(31.0/42*11.0/42/42 + 21.0/52*31.0/52/52)
	if !ok || math.Abs(rd-0.35) > 1e-12 || math.Abs(iv.Lo-(0.35-Z95*se)) > 1e-12 || math.Abs(iv.Hi-(0.35+Z95*se)) > 1e-12 {
		t.Errorf("one stratum: %v %v %v, want 0.35 ± %.4f", rd, iv, ok, Z95*se)
	}
	// Every item right in both groups: a gap of 0, not known exactly.
	if rd, iv, _ := MHRiskDifference([]Stratum{{K1: 60, N1: 60, K0: 900, N0: 900}}, Z95); rd != 0 || iv.Hi-iv.Lo < 0.01 {
		t.Errorf("all right: %v %v, want 0 with an interval of some width", rd, iv)
	}
	// The estimate is MantelHaenszel's.
	strata := []Stratum{{K1: 30, N1: 40, K0: 20, N0: 50}, {K1: 5, N1: 10, K0: 60, N0: 100}, {K1: 3, N1: 3, K0: 0, N0: 0}}
	rd, _, _ = MHRiskDifference(strata, Z95)
	want, _, _ := MantelHaenszel(strata)
	if math.Abs(rd-want) > 1e-12 {
		t.Errorf("MH estimate %v, MantelHaenszel %v", rd, want)
	}
	if _, _, ok := MHRiskDifference([]Stratum{{K1: 1, N1: 2}}, Z95); ok {
		t.Error("no stratum with both groups gives an estimate")
	}
}

// Against a control that never gets an item right, the difference in
// differences is the model's own Mantel–Haenszel risk difference, its
// interval no narrower.
func TestMHDiffInDiff(t *testing.T) {
	strata := []Stratum{{K1: 30, N1: 40, K0: 20, N0: 50}, {K1: 5, N1: 10, K0: 60, N0: 100}}
	var diff []DiffStratum
	for _, s := range strata {
		diff = append(diff, DiffStratum{Sum1: s.K1, Sq1: s.K1, N1: s.N1, Sum0: s.K0, Sq0: s.K0, N0: s.N0})
	}
	est, iv, ok := MHDiffInDiff(diff, Z95)
	rd, miv, _ := MHRiskDifference(strata, Z95)
	if !ok || math.Abs(est-rd) > 1e-12 || iv.Lo > miv.Lo || iv.Hi < miv.Hi || iv.Hi-iv.Lo > 1.5*(miv.Hi-miv.Lo) {
		t.Errorf("diff in diff %v %v, MH %v %v", est, iv, rd, miv)
	}
	// Two identical models: no excess, an interval around 0.
	same := []DiffStratum{{N1: 40, N0: 50}, {N1: 10, N0: 100}}
	if est, iv, _ := MHDiffInDiff(same, Z95); est != 0 || !iv.Contains(0) || iv.Hi-iv.Lo < 0.01 {
		t.Errorf("identical models: %v %v", est, iv)
	}
}
