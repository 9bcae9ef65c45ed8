package imege_test

import (
	"fmt"

	"github.com/leakaudit/leakaudit/metrics/imege"
)

// A formula compared with itself and with a one-symbol edit, rendered by
// leakaudit at 300 dpi as l2p renders them (10 pt, in-line) and scored
// with the released script's parameters.
func Example() {
	ref, err := imege.Render(`a+b`, 300, 0)
	if err != nil {
		panic(err)
	}
	rec, err := imege.Render(`a-b`, 300, 0)
	if err != nil {
		panic(err)
	}
	for _, r := range []*imege.Image{ref, rec} {
		res, err := imege.Compare(r, ref, imege.DefaultParams, imege.Limits{})
		if err != nil {
			panic(err)
		}
		p, rc, e := res.Format()
		fmt.Println(p, rc, e)
	}
	// Output:
	// 1.000000 1.000000 0.00
	// 0.837838 0.747681 20.98
}
