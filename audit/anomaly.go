package audit

import "encoding/json"

// AnomalyKind names a kind of finding.
type AnomalyKind string

// The kinds of finding, each with its evidence type.
const (
	// SplitInversion: a split significantly below one that should be
	// harder (train below val or test). Evidence: *InversionEvidence.
	SplitInversion AnomalyKind = "split_inversion"
	// CDMReversal: a reported text ExpRate above the measured
	// ExpRate@CDM's upper bound (*SplitReversalEvidence), or items
	// string-exact but CDM < 1 (*ItemReversalEvidence).
	CDMReversal AnomalyKind = "cdm_reversal"
	// ContaminationGap: items whose label is in the training data
	// recognised significantly more often. Evidence: *GapEvidence.
	ContaminationGap AnomalyKind = "contamination_gap"
	// ErrorLabelMemorization: predictions reproducing labels known or
	// strongly suspected to be wrong. Evidence: *MemorizationEvidence.
	ErrorLabelMemorization AnomalyKind = "error_label_memorization"
)

// An Anomaly is one finding: its kind, the split it concerns, a sentence
// for the report, and the evidence behind it.
type Anomaly struct {
	Kind     AnomalyKind `json:"kind"`
	Split    string      `json:"split"`
	Summary  string      `json:"summary"`
	Evidence Evidence    `json:"evidence"`
}

// Evidence is the evidence of one kind of anomaly; the concrete types are
// the *…Evidence types of this package. Their JSON field names are those
// of findings.json, in its order.
type Evidence interface{ evidence() }

// InversionEvidence backs a SplitInversion: the two splits' CDM-exact
// counts, the difference with its Newcombe interval, and the test.
type InversionEvidence struct {
	Metric      string // always "exprate@CDM"
	LowerRole   string
	LowerSplit  string
	HigherRole  string
	HigherSplit string
	// AccLower and AccHigher are the splits' ExpRate@CDM in percent;
	// KNLower and KNHigher their "exact/counted".
	AccLower, AccHigher float64
	KNLower, KNHigher   string
	DifferencePP        float64
	DifferenceCIPP      [2]float64
	Test                string
	Z, P, PHolm         float64
}

func (*InversionEvidence) evidence() {}

// MarshalJSON writes the evidence with the keys findings.json has always
// used, some of which are named after the splits and roles
// ("acc_train", "k_n_crohme2023_val").
func (e *InversionEvidence) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"metric": e.Metric, "lower_role": e.LowerRole, "lower_split": e.LowerSplit, "higher_split": e.HigherSplit,
		"acc_" + e.LowerRole: e.AccLower, "acc_" + e.HigherRole: e.AccHigher,
		"k_n_" + e.LowerSplit: e.KNLower, "k_n_" + e.HigherSplit: e.KNHigher,
		"difference_pp": e.DifferencePP, "difference_ci_pp": e.DifferenceCIPP,
		"test": e.Test, "z": e.Z, "p": e.P, "p_holm": e.PHolm,
	})
}

// SplitReversalEvidence backs a split-level CDMReversal: the reported
// ExpRate against the measured ExpRate@CDM and its interval.
type SplitReversalEvidence struct {
	ExpRateCDM   float64    `json:"exprate_cdm"`
	ExpRateCDMCI [2]float64 `json:"exprate_cdm_ci"`
	KN           string     `json:"k_n"`
	MagnitudePP  float64    `json:"magnitude_pp"`
	Reported     float64    `json:"reported_exprate"`
	Scope        string     `json:"scope"` // "split"
	Source       string     `json:"source"`
}

func (*SplitReversalEvidence) evidence() {}

// ItemReversalEvidence backs an item-level CDMReversal: the A/B classes
// of the split and the first items of class A.
type ItemReversalEvidence struct {
	A1       int      `json:"A1"`
	A2       int      `json:"A2"`
	B1       int      `json:"B1"`
	B2       int      `json:"B2"`
	Examples []string `json:"examples"`
	Level    string   `json:"level"`
	Scope    string   `json:"scope"` // "item"
}

func (*ItemReversalEvidence) evidence() {}

// GapEvidence backs a ContaminationGap: the accuracies of contaminated and
// clean items, the difference with its interval and test, and the
// length-stratified Mantel–Haenszel estimate.
type GapEvidence struct {
	AccClean        float64    `json:"acc_clean"`
	AccContaminated float64    `json:"acc_contaminated"`
	CMHChi2         float64    `json:"cmh_chi2"`
	CMHP            float64    `json:"cmh_p"`
	DeltaCIPP       [2]float64 `json:"delta_ci_pp"`
	DeltaPP         float64    `json:"delta_pp"`
	Level           string     `json:"level"`
	MHDeltaPP       float64    `json:"mh_delta_pp"`
	NClean          int        `json:"n_clean"`
	NContaminated   int        `json:"n_contaminated"`
	P               float64    `json:"p"`
	Test            string     `json:"test"`
}

func (*GapEvidence) evidence() {}

// MemorizationEvidence backs an ErrorLabelMemorization: how many labels
// of the split are known or suspected wrong, and the predictions that
// reproduce them.
type MemorizationEvidence struct {
	ErroneousItems int              `json:"erroneous_items"`
	Memorized      []MemorizedLabel `json:"memorized"`
}

func (*MemorizationEvidence) evidence() {}

// MemorizedLabel is one prediction that reproduces a wrong label.
type MemorizedLabel struct {
	Corrected     string   `json:"corrected,omitempty"`
	ID            string   `json:"id"`
	Label         string   `json:"label"`
	NearDuplicate string   `json:"near_duplicate,omitempty"`
	Prediction    string   `json:"prediction"`
	Sources       []string `json:"sources"` // "corrections", "S1", "S3"
}
