package cdm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/leakaudit/leakaudit/internal/panics"
	"github.com/leakaudit/leakaudit/internal/rounding"
)

// Evaluate scores pairs on workers goroutines (0: one per CPU) and
// returns the results in input order. done, if not nil, is called after
// each pair (from any goroutine). It stops early when ctx is cancelled.
func Evaluate(ctx context.Context, pairs []Pair, prof Profile, workers int, done func()) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	results := make([]Result, len(pairs))
	sides := newSideCache(pairs, prof)
	next := make(chan int, 256)
	var wg sync.WaitGroup
	var once sync.Once
	var internal error // the first panic, recovered
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := panics.Catch(func() { results[i] = sides.score(pairs[i]) }); err != nil {
					once.Do(func() { internal = fmt.Errorf("CDM of item %s: %w", pairs[i].ID, err) })
				}
				if done != nil {
					done()
				}
			}
		}()
	}
	var err error
feed:
	for i := range pairs {
		select {
		case next <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if internal != nil {
		return results, internal
	}
	return results, err
}

// sideCache renders each formula that occurs more than once among a
// run's pairs (a ground truth shared by several items, a prediction equal
// to its ground truth) once, and hands the same Side to every pair that
// has it: Render depends on nothing but the formula and the profile, and
// Score does not change the sides it is given, so every result is what
// ScorePair gives. A formula's Side is dropped when its last pair has
// taken it, so the cache holds only the repeated formulas still to be
// scored.
type sideCache struct {
	prof    Profile
	mu      sync.Mutex
	entries map[string]*cachedSide
}

// cachedSide is one repeated formula: its Side once rendered, and the
// renders of it still to be served.
type cachedSide struct {
	once sync.Once
	side Side
	ok   bool // side was rendered (false if Render panicked)
	left int
}

// newSideCache counts the formulas pairs render (ScorePair's: every
// ground truth, every prediction that is given) and keeps an entry for
// each one rendered more than once.
func newSideCache(pairs []Pair, prof Profile) *sideCache {
	uses := make(map[string]int, len(pairs))
	for _, p := range pairs {
		uses[p.GT]++
		if !p.NoPred {
			uses[p.Pred]++
		}
	}
	c := &sideCache{prof: prof, entries: map[string]*cachedSide{}}
	for f, n := range uses {
		if n > 1 {
			c.entries[f] = &cachedSide{left: n}
		}
	}
	return c
}

// render is Render(formula, c.prof), rendered once for a repeated formula.
func (c *sideCache) render(formula string) Side {
	c.mu.Lock()
	e := c.entries[formula]
	c.mu.Unlock()
	if e == nil {
		return Render(formula, c.prof)
	}
	e.once.Do(func() {
		e.side = Render(formula, c.prof)
		e.ok = true
	})
	if !e.ok {
		// the first render panicked: render again, so that this pair
		// fails as it would alone
		return Render(formula, c.prof)
	}
	c.mu.Lock()
	if e.left--; e.left == 0 {
		delete(c.entries, formula)
	}
	c.mu.Unlock()
	return e.side
}

// score is ScorePair(p, c.prof) with the cache's sides.
func (c *sideCache) score(p Pair) Result {
	gt := c.render(p.GT)
	if p.NoPred {
		return Score(gt, Side{Failure: FailMissing}, c.prof)
	}
	return Score(gt, c.render(p.Pred), c.prof)
}

// Summary is a split's CDM outcome.
type Summary struct {
	Profile     string  `json:"profile"`
	Pairs       int     `json:"pairs"`
	Counted     int     `json:"counted"` // in the mean and ExpRate@CDM
	Scored      int     `json:"scored"`
	PredFailed  int     `json:"pred_failed"`
	GTFailed    int     `json:"gt_failed"`
	Unsupported int     `json:"unsupported"` // left out: leakaudit's engine cannot render a side
	Approximate int     `json:"approximate"` // scored on a layout that is not TeX-exact (CJK)
	Exact       int     `json:"exact"`
	MeanScore   float64 `json:"mean_score"`
	ExpRate     float64 `json:"exp_rate"`
	// Reasons counts failures and unsupported constructs by reason.
	Reasons map[string]int `json:"reasons,omitempty"`
}

// Summarize aggregates results as the reference does: the mean F1 and
// the share of exact items over the counted pairs, rounded to 3 decimals
// (unrounded under OmniDocBench).
func Summarize(results []Result, prof Profile) Summary {
	s := Summary{Profile: prof.Name, Pairs: len(results), Reasons: map[string]int{}}
	var sum float64
	for _, r := range results {
		switch r.Status {
		case Scored:
			s.Scored++
		case PredFailed:
			s.PredFailed++
		case GTFailed:
			s.GTFailed++
		case Unsupported:
			s.Unsupported++
		}
		if r.Reason != "" {
			s.Reasons[r.Reason]++
		}
		if r.Approximate {
			s.Approximate++
		}
		if !r.Counted {
			continue
		}
		s.Counted++
		sum += r.F1
		if r.Exact {
			s.Exact++
		}
	}
	if s.Counted > 0 {
		s.MeanScore = sum / float64(s.Counted)
		s.ExpRate = float64(s.Exact) / float64(s.Counted)
		if !prof.Unrounded {
			s.MeanScore, s.ExpRate = rounding.Python(s.MeanScore, 3), rounding.Python(s.ExpRate, 3)
		}
	}
	return s
}

// WriteMetricsRes writes the reference's metrics_res.json: mean_score,
// exp_rate and details {id: {recall, precision, F1_score}} for the
// counted pairs, keys sorted.
func WriteMetricsRes(w io.Writer, pairs []Pair, results []Result, prof Profile) error {
	type detail struct {
		Recall    float64 `json:"recall"`
		Precision float64 `json:"precision"`
		F1        float64 `json:"F1_score"`
	}
	s := Summarize(results, prof)
	out := struct {
		MeanScore float64           `json:"mean_score"`
		ExpRate   float64           `json:"exp_rate"`
		Details   map[string]detail `json:"details"`
	}{s.MeanScore, s.ExpRate, map[string]detail{}}
	for i, r := range results {
		if r.Counted {
			out.Details[pairs[i].ID] = detail{r.Recall, r.Precision, r.F1}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ItemRow is one pair's evidence in the per-item outputs.
type ItemRow struct {
	ID          string  `json:"id" parquet:"id"`
	Status      string  `json:"status" parquet:"status"`
	Reason      string  `json:"reason,omitempty" parquet:"reason"`
	Counted     bool    `json:"counted" parquet:"counted"`
	Exact       bool    `json:"exact" parquet:"exact"`
	Recall      float64 `json:"recall" parquet:"recall"`
	Precision   float64 `json:"precision" parquet:"precision"`
	F1          float64 `json:"f1" parquet:"f1"`
	GTBoxed     int     `json:"gt_boxed" parquet:"gt_boxed"`
	PredBoxed   int     `json:"pred_boxed" parquet:"pred_boxed"`
	Matched     int     `json:"matched" parquet:"matched"`
	Approximate bool    `json:"approximate,omitempty" parquet:"approximate"`
	GT          string  `json:"gt" parquet:"gt"`
	Pred        string  `json:"pred" parquet:"pred"`
	// Unmatched lists the rejected pairs and unpaired tokens, as
	// "gt:TOKEN/pred:TOKEN (reason)" strings.
	Unmatched []string `json:"unmatched,omitempty" parquet:"unmatched,list"`
}

// Row makes a result's evidence row. It reads only the result's own token
// lists, so it is the same for every status: a failed side simply has no
// tokens.
func Row(p Pair, r Result) ItemRow {
	row := ItemRow{ID: p.ID, Status: r.Status.String(), Reason: r.Reason, Counted: r.Counted, Exact: r.Exact,
		Recall: r.Recall, Precision: r.Precision, F1: r.F1, GTBoxed: len(r.GTTokens), PredBoxed: len(r.PredTokens), Matched: r.TP,
		Approximate: r.Approximate, GT: p.GT, Pred: p.Pred}
	gSeen := make([]bool, len(r.GTTokens))
	pSeen := make([]bool, len(r.PredTokens))
	for _, m := range r.Matches {
		if m.G < 0 || m.G >= len(gSeen) || m.P < 0 || m.P >= len(pSeen) {
			continue // not possible for a Score result; a hand-made Result is not trusted
		}
		gSeen[m.G], pSeen[m.P] = true, true
		if !m.Accepted {
			row.Unmatched = append(row.Unmatched, fmt.Sprintf("gt:%s/pred:%s (%s)", r.GTTokens[m.G], r.PredTokens[m.P], m.Reason))
		}
	}
	for i, ok := range gSeen {
		if !ok {
			row.Unmatched = append(row.Unmatched, "gt:"+r.GTTokens[i]+" (unpaired)")
		}
	}
	for i, ok := range pSeen {
		if !ok {
			row.Unmatched = append(row.Unmatched, "pred:"+r.PredTokens[i]+" (unpaired)")
		}
	}
	return row
}

// ReasonList returns the reasons of a summary sorted by count.
func (s Summary) ReasonList() []string {
	var keys []string
	for k := range s.Reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if s.Reasons[keys[i]] != s.Reasons[keys[j]] {
			return s.Reasons[keys[i]] > s.Reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%d %s", s.Reasons[k], strings.TrimSpace(k))
	}
	return out
}
