package cdm

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// BenchmarkCDMIm2latexTest scores the 9,443 im2latex-100k test formulas
// (printed math, 3–5× longer than handwritten labels) end to end on all
// CPUs, each against itself with its last token dropped, so that both
// sides are laid out and matched; the figure to read is pairs/s.
func BenchmarkCDMIm2latexTest(b *testing.B) {
	f, err := os.Open(shareddata.Path(b, "im2latex/formulas/test.formulas.norm.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var pairs []Pair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		gt := strings.TrimRight(sc.Text(), "\r")
		pred := gt
		if i := strings.LastIndexByte(gt, ' '); i > 0 {
			pred = gt[:i]
		}
		pairs = append(pairs, Pair{ID: strconv.Itoa(len(pairs)), GT: gt, Pred: pred})
	}
	f.Close()
	benchEvaluate(b, pairs)
}
