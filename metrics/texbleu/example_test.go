package texbleu_test

import (
	"fmt"

	"github.com/leakaudit/leakaudit/metrics/texbleu"
)

// The tokens TeXBLEU compares: GPT-2's BPE after a space is put before each
// backslash.
func ExampleScorer_Tokens() {
	tok, err := texbleu.GPT2()
	if err != nil {
		fmt.Println(err)
		return
	}
	sc := texbleu.Scorer{Tok: tok}
	for _, id := range sc.Tokens(`\frac{3}{2}`) {
		fmt.Printf("%d %q\n", id, tok.Token(id))
	}
	// Output:
	// 3467 " \\"
	// 31944 "frac"
	// 90 "{"
	// 18 "3"
	// 18477 "}{"
	// 17 "2"
	// 92 "}"
}
