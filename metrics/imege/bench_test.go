package imege

import "testing"

// BenchmarkIMEGE is one full IMEGE comparison of the original's example
// pair (both directions, the default 35 31 -i 2). The original bidm takes
// 7.2 s + 7.8 s of CPU for it; run with -cpu 1 to compare.
func BenchmarkIMEGE(b *testing.B) {
	rec, ref := example(b)
	for b.Loop() {
		if _, err := Compare(rec, ref, DefaultParams, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
