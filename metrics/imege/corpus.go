package imege

import (
	"runtime"
	"strings"
	"sync"
)

// Item is one formula pair's IMEGE in a corpus.
type Item struct {
	Index     int     `json:"index"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	IMEGE     float64 `json:"imege"` // 0…100, as the original prints it
	// Failure is why the prediction could not be rendered (scored as the
	// original scores a failed render: IMEGE 100), or "no prediction".
	Failure string `json:"failure,omitempty"`
}

// Corpus is IMEGE over a corpus.
type Corpus struct {
	Mean  float64 `json:"mean"` // mean IMEGE over the items scored, 0…100
	Items []Item  `json:"items"`
	// GTFailures counts ground truths that could not be rendered, by
	// reason; those items are left out of Items and Mean.
	GTFailures map[string]int `json:"gt_failures,omitempty"`
}

// Reasons a formula is not rendered.
const (
	FailNoPrediction = "no prediction"
)

// ScoreCorpus renders every ground truth and prediction with leakaudit's
// TeX engine at 600 dpi, as IMEGE's script renders with l2p, and scores
// each pair with p. A prediction that is missing or fails to render
// scores IMEGE 100 (P = R = 0), as the script scores a failed render; a
// ground truth that fails to render leaves its item out, counted by
// reason. Items are scored in parallel, in a deterministic result.
func ScoreCorpus(gts, preds []string, has []bool, p Params) Corpus {
	type out struct {
		it     Item
		gtFail string
	}
	res := make([]out, len(gts))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(1, len(gts))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i] = func() out {
					g, err := Render(gts[i], DPI, 0)
					if err != nil {
						return out{gtFail: reason(err)}
					}
					it := Item{Index: i, IMEGE: 100}
					if !has[i] {
						it.Failure = FailNoPrediction
						return out{it: it}
					}
					r, err := Render(preds[i], DPI, 0)
					if err == nil {
						var c Result
						if c, err = Compare(r, g, p, Limits{}); err == nil {
							it.Precision, it.Recall, it.IMEGE = c.Precision, c.Recall, c.IMEGE
						}
					}
					if err != nil {
						it.Failure = reason(err)
					}
					return out{it: it}
				}()
			}
		}()
	}
	for i := range gts {
		next <- i
	}
	close(next)
	wg.Wait()
	c := Corpus{Items: []Item{}}
	var sum float64
	for _, o := range res {
		if o.gtFail != "" {
			if c.GTFailures == nil {
				c.GTFailures = map[string]int{}
			}
			c.GTFailures[o.gtFail]++
			continue
		}
		c.Items = append(c.Items, o.it)
		sum += o.it.IMEGE
	}
	if len(c.Items) > 0 {
		c.Mean = sum / float64(len(c.Items))
	}
	return c
}

// reason shortens an error to a reason to count by: its text up to the
// first colon.
func reason(err error) string {
	s := err.Error()
	if k := strings.Index(s, ":"); k > 0 {
		s = s[:k]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
