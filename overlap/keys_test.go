package overlap

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
)

// TestSplitKeys: the keys computed on several goroutines are each item's
// keys at each level, in order, failures marked, whatever the number of
// workers and items (below, at and above a goroutine's share).
func TestSplitKeys(t *testing.T) {
	levels, err := canon.ParseLevels("audit,ws,tokens")
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{`x ^ 2`, `\[ \frac{a}{b} \]`, `\alpha b`, `\left( x`, `{`, `a\ b`, `\sqrt [ 3 ] { x }`}
	for _, n := range []int{0, 1, 7, 1023, 1024, 1025, 5000} {
		items := make([]dataset.Item, n)
		for i := range items {
			items[i] = dataset.Item{ID: fmt.Sprint(i), Label: labels[i%len(labels)] + fmt.Sprint(i%13)}
		}
		want := make([][]keyed, len(levels))
		for li, l := range levels {
			want[li] = make([]keyed, n)
			for i, it := range items {
				k, err := l.Canon(it.Label)
				want[li][i] = keyed{k, err != nil}
			}
		}
		for _, workers := range []int{0, 1, 3} {
			if got, err := splitKeys(items, levels, workers); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%d items, %d workers: keys differ (%v)", n, workers, err)
			}
		}
	}
}
