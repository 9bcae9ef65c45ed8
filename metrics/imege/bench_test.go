package imege

import "testing"

// BenchmarkIMEGE is one full IMEGE comparison of the original's example
// pair (both directions, the default 35 31 -i 2).
func BenchmarkIMEGE(b *testing.B) {
	rec, ref := example(b)
	for b.Loop() {
		if _, err := Compare(rec, ref, DefaultParams, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
