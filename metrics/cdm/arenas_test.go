package cdm

import (
	"bufio"
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// TestEvaluateArenasConcurrent scores printed pairs on four goroutines,
// whose layouts and parses take their arenas from the same pools at the
// same time, and requires every result to be the one ScorePair gives
// the pair alone: no arena is shared by two formulas at once, and none
// keeps anything of the formula before.
func TestEvaluateArenasConcurrent(t *testing.T) {
	f, err := os.Open(shareddata.Path(t, "im2latex/formulas/test.formulas.norm.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pairs []Pair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && len(pairs) < 400 {
		gt := strings.TrimRight(sc.Text(), "\r")
		toks := strings.Fields(gt)
		pred := strings.Join(toks[:max(1, len(toks)-1)], " ")
		if len(pairs)%3 == 0 && len(toks) > 2 {
			toks[0], toks[1] = toks[1], toks[0]
			pred = strings.Join(toks, " ")
		}
		pairs = append(pairs, Pair{ID: strconv.Itoa(len(pairs)), GT: gt, Pred: pred})
	}
	got, err := Evaluate(context.Background(), pairs, UniMERNet, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if want := ScorePair(p, UniMERNet); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("pair %d: Evaluate %v, ScorePair %v", i, got[i], want)
		}
	}
}
