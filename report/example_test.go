package report_test

import (
	"os"

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/overlap"
	"github.com/leakaudit/leakaudit/report"
)

// OverlapText writes an overlap report as the audit's Table 1, then notes
// on what was skipped.
func ExampleOverlapText() {
	st := &dataset.Stats{Items: 8834}
	rep := overlap.Report{
		Train: []overlap.TrainInput{{Name: "crohme_train", Stats: st}},
		Splits: []overlap.SplitLevel{
			{Name: "crohme2014", Level: "audit", Total: 986, Found: 30, Rate: overlap.NewPercent(30, 986), Unique: 973, UniqueFound: 29},
			{Name: "crohme2014", Level: "ws", Total: 986, Found: 30, Rate: overlap.NewPercent(30, 986), Unique: 973, UniqueFound: 29},
		},
		TestInputs: []overlap.SplitInput{{Name: "crohme2014", Stats: dataset.Stats{Items: 986, Skipped: 1, Reasons: map[string]int64{"empty label": 1}}}},
	}
	report.OverlapText(os.Stdout, rep)
	// Output:
	// Training corpora: crohme_train (8834 labels)
	//
	// split       level  total  found in train  overlap %  unique found
	// crohme2014  audit    986              30       3.04        29/973
	// crohme2014  ws       986              30       3.04        29/973
	//
	// note: test crohme2014: 1 record(s) skipped (empty label: 1)
}
