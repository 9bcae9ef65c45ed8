package metrics

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/internal/progress"
	"github.com/leakaudit/leakaudit/internal/setting"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// A ScoreJob scores one file of predictions: CDM and any text metrics in
// one pass, as "leakaudit score" runs it.
type ScoreJob struct {
	// Input holds ground truths and predictions, or predictions only when
	// GT is set.
	Input dataset.Source
	// GT, when set, holds the ground truths, and Input the predictions:
	// a prediction-only file such as a model's decode output (name, then
	// the prediction). Items are joined by id (an image extension such as
	// .jpg is ignored on either side) and taken in GT's order.
	GT *dataset.Source
	// Metrics names the metrics: "cdm" and the names of Compute, with
	// Options for those that need more than the strings.
	Metrics []string
	Options Options
	Profile cdm.Profile
	Workers int // CDM goroutines; 0 means one per CPU
	// Progress, if not nil, follows the CDM pairs.
	Progress progress.Reporter
}

// ScoreResult is what a ScoreJob measured.
type ScoreResult struct {
	Input string `json:"input"`
	GT    string `json:"gt,omitempty"`
	// MissingPredictions counts items with no prediction: they are scored
	// as wrong (CDM F1 0 with reason "pred: missing prediction", and
	// wrong for every text metric), never left out.
	MissingPredictions int            `json:"missing_predictions"`
	CDM                *cdm.Summary   `json:"cdm,omitempty"`
	Text               []Value        `json:"text_metrics,omitempty"`
	Read               dataset.Stats  `json:"read"`
	GTRead             *dataset.Stats `json:"gt_read,omitempty"`
	NoGT               []string       `json:"predictions_without_gt,omitempty"` // ids of predictions with no ground truth (GT only)
	Pairs              []cdm.Pair     `json:"-"`
	Results            []cdm.Result   `json:"-"` // CDM results in Pairs' order, when cdm was asked for
	dataset.Completeness
}

// CheckPredictions is the rule for a file read as ground truths with
// predictions (score --input without --gt, an audit split's
// predictions): of its items, missing have no prediction. A few missing
// predictions are scored as wrong and counted, but a file in which none
// has one (a label list given as predictions) or more than half lack one
// would be read as a model that fails, so it is refused.
func CheckPredictions(items, missing int64) error {
	const fields = "looked for pred, predi, prediction"
	switch {
	case items == 0 || missing == 0:
		return nil
	case missing == items:
		return fmt.Errorf("none of its %d items has a prediction field (%s)", items, fields)
	case 2*missing > items:
		return fmt.Errorf("%d of its %d items have no prediction (%s): more than half, which would be scored as the model's failures", missing, items, fields)
	}
	return nil
}

// RunScore reads the job's input, scores every item and summarizes.
func RunScore(ctx context.Context, job ScoreJob) (*ScoreResult, error) {
	res := &ScoreResult{Input: job.Input.Path}
	var gts, preds []string
	var has []bool
	add := func(id, gt, pred string, ok bool) {
		gts, preds, has = append(gts, gt), append(preds, pred), append(has, ok)
		if !ok {
			res.MissingPredictions++
		}
		res.Pairs = append(res.Pairs, cdm.Pair{ID: id, GT: gt, Pred: pred, NoPred: !ok})
	}
	if job.GT == nil {
		st, err := dataset.Scan(job.Input, func(it dataset.Item) error {
			add(it.ID, it.Label, it.Pred, it.HasPred)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job.Input.Path, err)
		}
		res.Read = st
		res.Check("predictions", job.Input.Path, st)
		if err := CheckPredictions(st.Items, int64(res.MissingPredictions)); err != nil {
			return nil, setting.Errorf("%s: %w; for a file of predictions alone, give the ground truths with %s", job.Input.Path, err, setting.GT)
		}
	} else {
		res.GT = job.GT.Path
		// A prediction-only file: its label field is the prediction.
		predOf := map[string]string{}
		var order []string
		st, err := dataset.Scan(job.Input, func(it dataset.Item) error {
			p := it.Label
			if it.HasPred {
				p = it.Pred
			}
			k := joinKey(it.ID)
			if _, dup := predOf[k]; !dup {
				order = append(order, it.ID)
			}
			predOf[k] = p
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job.Input.Path, err)
		}
		res.Read = st
		res.Check("predictions", job.Input.Path, st)
		used := map[string]bool{}
		gst, err := dataset.Scan(*job.GT, func(it dataset.Item) error {
			k := joinKey(it.ID)
			p, ok := predOf[k]
			used[k] = true
			add(it.ID, it.Label, p, ok)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job.GT.Path, err)
		}
		res.GTRead = &gst
		res.Check("ground truths", job.GT.Path, gst)
		for _, id := range order {
			if !used[joinKey(id)] {
				res.NoGT = append(res.NoGT, id)
			}
		}
		if n := len(res.NoGT); n > 0 {
			res.Fail("predictions", job.Input.Path, fmt.Sprintf("%d prediction(s) have no ground truth in %s (first: %s); they are not scored", n, job.GT.Path, res.NoGT[0]))
		}
	}
	if len(res.Pairs) == 0 {
		// Say why: the input that gave no item, and what it held.
		src, st := job.Input, res.Read
		if job.GT != nil && res.GTRead != nil {
			src, st = *job.GT, *res.GTRead
		}
		why := st.NoItems(src.Field)
		if why == "" {
			why = "no item was read"
		}
		return nil, fmt.Errorf("%s: no items to score: %s", src.Path, why)
	}
	wantCDM := false
	var text []string
	for _, m := range job.Metrics {
		if m == "cdm" {
			wantCDM = true
		} else {
			text = append(text, m)
		}
	}
	var err error
	if res.Text, err = Compute(text, gts, preds, has, job.Options); err != nil {
		return nil, err
	}
	if wantCDM {
		var done func()
		if p := job.Progress; p != nil {
			p.Start("CDM", int64(len(res.Pairs)))
			defer p.Done()
			done = func() { p.Add(1) }
		}
		if res.Results, err = cdm.Evaluate(ctx, res.Pairs, job.Profile, job.Workers, done); err != nil {
			return nil, err
		}
		s := cdm.Summarize(res.Results, job.Profile)
		res.CDM = &s
	}
	res.Done()
	return res, nil
}

// joinKey is an item id as the join of predictions and ground truths sees
// it: TAMER names its predictions test_8045.jpg, the labels say test_8045.
func joinKey(id string) string {
	switch strings.ToLower(path.Ext(id)) {
	case ".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".inkml":
		return strings.TrimSuffix(id, path.Ext(id))
	}
	return id
}
