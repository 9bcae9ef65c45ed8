package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"sort"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// maxEvidenceItems is how many items a finding shows; items.parquet has
// them all.
const maxEvidenceItems = 6

// evidenceGroup is the items behind one finding, each drawn as CDM sees
// it: the ground truth above the prediction, typeset by leakaudit's TeX
// engine, each token's box green when matched and red when not.
type evidenceGroup struct {
	Title, Note string
	Items       []evidenceItem
}

type evidenceItem struct {
	File, Caption, Data string
}

// findingEvidence picks, per finding with items behind it, the first
// items: string-exact but not CDM-exact items (a reversal at item level),
// the memorized wrong labels, and for a contamination gap the longest
// contaminated labels the model reproduces CDM-exactly. The pictures go
// under dir/evidence.
func findingEvidence(dir string, f *audit.Findings) ([]evidenceGroup, error) {
	prof, ok := cdm.Profiles[f.Config.Profile]
	if !ok {
		prof = cdm.UniMERNet
	}
	var groups []evidenceGroup
	seen := map[string]bool{}
	for _, a := range mergeLevels(f.Anomalies) {
		var pick func(*audit.ItemEvidence) bool
		var order func(a, b *audit.ItemEvidence) bool
		note := ""
		switch a.Kind {
		case audit.CDMReversal:
			if _, item := a.Evidence.(*audit.ItemReversalEvidence); !item {
				continue
			}
			pick = func(it *audit.ItemEvidence) bool { return it.Class == audit.ClassA1 || it.Class == audit.ClassA2 }
			note = "string-exact at the audit level, not CDM-exact"
		case audit.ErrorLabelMemorization:
			pick = func(it *audit.ItemEvidence) bool { return it.Memorized }
			note = "the prediction reproduces a label known or suspected to be wrong"
		case audit.ContaminationGap:
			pick = func(it *audit.ItemEvidence) bool { return it.FoundIn != "" && it.CDMExact }
			order = func(a, b *audit.ItemEvidence) bool { return len(a.GT) > len(b.GT) }
			note = "the longest labels found in the training data that the model reproduces exactly"
		default:
			continue
		}
		key := string(a.Kind) + "\x00" + a.Split
		if seen[key] {
			continue // one group per kind and split (levels merged)
		}
		seen[key] = true
		var items []*audit.ItemEvidence
		for i := range f.Items {
			it := &f.Items[i]
			if it.Split == a.Split && pick(it) {
				items = append(items, it)
			}
		}
		if order != nil {
			sort.SliceStable(items, func(i, j int) bool { return order(items[i], items[j]) })
		}
		g := evidenceGroup{Title: fmt.Sprintf("%s (%s): %d item(s)", a.Kind, a.Split, len(items)), Note: note}
		for _, it := range items[:min(len(items), maxEvidenceItems)] {
			r := cdm.ScorePair(cdm.Pair{ID: it.ID, GT: it.GT, Pred: it.Pred}, prof)
			img := cdm.DrawMatch(r, cdm.Picture(it.GT), cdm.Picture(it.Pred))
			var buf bytes.Buffer
			if err := png.Encode(&buf, img); err != nil {
				return nil, err
			}
			name := fmt.Sprintf("evidence/%s-%s-%d.png", a.Kind, a.Split, it.Seq)
			if err := os.MkdirAll(filepath.Join(dir, "evidence"), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), buf.Bytes(), 0o644); err != nil {
				return nil, err
			}
			cap := fmt.Sprintf("%s, item %s: ground truth “%s” above, prediction “%s” below; CDM F1 %.3f", a.Split, it.ID, it.GT, it.Pred, it.CDMF1)
			if it.TrainIDs != "" {
				cap += "; in training data as " + it.TrainIDs
			}
			g.Items = append(g.Items, evidenceItem{File: name, Caption: cap, Data: base64.StdEncoding.EncodeToString(buf.Bytes())})
		}
		if len(g.Items) > 0 {
			groups = append(groups, g)
		}
	}
	return groups, nil
}
