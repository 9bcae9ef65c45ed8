package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/labelcheck"
	"github.com/leakaudit/leakaudit/metrics"
	"github.com/leakaudit/leakaudit/neardup"
	"github.com/leakaudit/leakaudit/overlap"
)

// OverlapText writes the overlap report for a person: Table 1, then what
// was skipped or merged only by the protocol.
func OverlapText(w io.Writer, rep overlap.Report) error {
	var train []string
	for _, t := range rep.Train {
		switch {
		case t.Missing:
			train = append(train, t.Name+" (MISSING)")
		case t.Stats != nil:
			train = append(train, fmt.Sprintf("%s (%d labels)", t.Name, t.Stats.Items))
		}
	}
	fmt.Fprintf(w, "Training corpora: %s\n\n", strings.Join(train, ", "))
	t := Table{Header: []string{"split", "level", ">total", ">found in train", ">overlap %", ">unique found"}}
	for _, s := range rep.Splits {
		t.Add(s.Name, s.Level, fmt.Sprint(s.Total), fmt.Sprint(s.Found), s.Rate.String(), fmt.Sprintf("%d/%d", s.UniqueFound, s.Unique))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if len(rep.Near) > 0 {
		if err := nearText(w, rep); err != nil {
			return err
		}
	}
	var notes []string
	for _, tr := range rep.Train {
		if tr.Stats != nil && (tr.Stats.Skipped > 0 || tr.Stats.FileError != "") {
			notes = append(notes, inputNote("train "+tr.Name, *tr.Stats, ""))
		}
	}
	for _, in := range rep.TestInputs {
		if in.Stats.Skipped > 0 || in.Stats.FileError != "" || in.Error != "" {
			notes = append(notes, inputNote("test "+in.Name, in.Stats, in.Error))
		}
	}
	for _, s := range rep.Splits {
		if s.Failed > 0 {
			notes = append(notes, fmt.Sprintf("%s at %s: %d label(s) could not be tokenized; each matches only a label failing with the same ws key (see leakaudit tokens)", s.Name, s.Level, s.Failed))
		}
	}
	if len(rep.AuditOnly) > 0 {
		notes = append(notes, fmt.Sprintf("%d item(s) match at audit but not at ws: deleting a space glued a control word to a letter (\\alpha b → \\alphab); listed in --json under audit_only", len(rep.AuditOnly)))
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, "note:", n)
		}
	}
	return nil
}

// nearText writes the near-label table and what its chance column means.
func nearText(w io.Writer, rep overlap.Report) error {
	n := rep.Near[0]
	fmt.Fprintf(w, "\nNear labels: a training label within %d token edits (tokens level; items of at least %d tokens)\n\n", n.K, n.MinTokens)
	t := nearTable(rep)
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\n"+nearNote(rep))
	return nil
}

// nearTable is the near-label table: each split's items within K token
// edits of a training label, beside each control's chance level
// (standardized to the split's lengths), then the control splits' own
// rows.
func nearTable(rep overlap.Report) Table {
	n := rep.Near[0]
	header := []string{"split", ">total", ">below min", ">untokenized", ">considered", ">within k", ">%", ">exact", ">with edits", ">edits %"}
	for _, c := range n.Controls {
		header = append(header, ">chance % ("+c.Control+")")
	}
	t := Table{Header: header}
	row := func(s overlap.NearSplit, name string) []string {
		return []string{name, fmt.Sprint(s.Total), fmt.Sprint(s.BelowMin), fmt.Sprint(s.TokenFailed), fmt.Sprint(s.Considered),
			fmt.Sprint(s.Within), s.Rate.String(), fmt.Sprint(s.Exact), fmt.Sprint(s.WithEdits), s.EditsRate.String()}
	}
	for _, s := range rep.Near {
		r := row(s, s.Name)
		for _, c := range s.Controls {
			r = append(r, fmt.Sprintf("%s / %s", c.Rate, c.EditsRate))
		}
		t.Add(r...)
	}
	for _, s := range rep.NearControls {
		r := row(s, s.Name+" (control)")
		for range n.Controls {
			r = append(r, "")
		}
		t.Add(r...)
	}
	return t
}

// nearNote says what the near table's chance column is, or that there is
// none.
func nearNote(rep overlap.Report) string {
	if len(rep.NearControls) > 0 {
		return "chance %: the control's within-k / with-edits rates, weighted to the split's lengths (a control cannot be in the training corpora)"
	}
	return "no control split (--near-control): the chance level of these rates is not measured"
}

// inputNote describes what was skipped of one input.
func inputNote(what string, st dataset.Stats, fatal string) string {
	var parts []string
	if fatal != "" {
		parts = append(parts, "could not be read: "+fatal)
	}
	if st.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d record(s) skipped (%s)", st.Skipped, st.ReasonSummary()))
	}
	if st.FileError != "" {
		parts = append(parts, "reading stopped early: "+st.FileError)
	}
	return what + ": " + strings.Join(parts, "; ")
}

// NearDupText writes the near-duplicate summary and the first pairs.
func NearDupText(w io.Writer, rep neardup.Report) error {
	fmt.Fprintf(w, "Near-duplicates (%s, distance ≤ %d)\n\n", rep.Hash, rep.MaxDistance)
	t := Table{Header: []string{"test split", ">items", ">with near-dup", ">verified copy", ">identical", ">different formulas", ">other notation", ">blank", ">skipped"}}
	for _, s := range rep.Summary {
		t.Add(s.TestSplit, fmt.Sprint(s.Items), fmt.Sprint(s.WithNearDuplicate), fmt.Sprint(s.Verified), fmt.Sprint(s.Identical), fmt.Sprint(s.LabelMismatch), fmt.Sprint(s.LabelNotation), fmt.Sprint(s.Blank), fmt.Sprint(s.Skipped))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	for _, n := range inkNotes(rep.Summary) {
		fmt.Fprintln(w, n)
	}
	if len(rep.Pairs) == 0 {
		fmt.Fprintln(w, "\nno pairs")
		return nil
	}
	fmt.Fprintf(w, "\n%d pair(s)", len(rep.Pairs))
	if len(rep.Pairs) > 20 {
		fmt.Fprint(w, "; the first 20 (all in --json)")
	}
	fmt.Fprintln(w, ":")
	p := Table{Header: []string{"test", "train", ">dist", ">fine", "verified", "identical", "labels"}}
	for i, x := range rep.Pairs {
		if i == 20 {
			break
		}
		labels := "same"
		switch c := x.LabelCheck; {
		case x.LabelMismatch:
			labels = "DIFFER"
		case c == nil:
			labels = "–"
		case c.Level != labelcheck.LevelWS:
			labels = "same (" + c.Level + ")"
		}
		p.Add(x.TestSplit+"/"+x.TestID, x.TrainSplit+"/"+x.TrainID, fmt.Sprint(x.Distance), fmt.Sprint(x.FineDistance), fmt.Sprint(x.Verified), fmt.Sprint(x.Identical), labels)
	}
	return p.Write(w)
}

// AuditText writes the audit's splits and findings for a person, and
// where the report was written.
func AuditText(w io.Writer, f *audit.Findings, dir string) error {
	t := Table{Header: []string{"split", "role", ">n", ">ExpRate L1 %", ">ExpRate@CDM %", ">reported %", "flags"}}
	for _, s := range f.Splits {
		rep := "–"
		if s.Reported != nil {
			rep = fmt.Sprintf("%.2f", *s.Reported)
		}
		fl := ""
		for _, x := range s.Flags {
			fl += x + " "
		}
		t.Add(s.Name, s.Role, fmt.Sprint(s.N), fmt.Sprintf("%.2f", s.ExpRate), fmt.Sprintf("%.2f", s.ExpRateCDM), rep, fl)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d finding(s):\n", len(f.Anomalies))
	for _, a := range f.Anomalies {
		fmt.Fprintf(w, "  %-25s %-18s %s\n", a.Kind, a.Split, a.Summary)
	}
	fmt.Fprintf(w, "\nreport: %s/report.html (also report.md, findings.json, items.parquet)\n", dir)
	return nil
}

// ScoreText writes a score run for a person: the text metrics, the CDM
// summary, failures by reason, and what was missing or skipped.
func ScoreText(w io.Writer, res *metrics.ScoreResult) error {
	if len(res.Text) > 0 {
		t := Table{Header: []string{"metric", ">value", ">items", ">missing"}}
		for _, v := range res.Text {
			t.Add(v.Name, fmt.Sprintf("%.6f", v.Value), fmt.Sprint(v.N), fmt.Sprint(v.Missing))
		}
		if err := t.Write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if res.CDM != nil {
		s := *res.CDM
		fmt.Fprintf(w, "CDM (%s profile) on %s\n\n", s.Profile, res.Input)
		t := Table{Header: []string{"pairs", ">counted", ">mean F1", ">ExpRate@CDM", ">exact", ">pred failed", ">GT failed (left out)", ">unsupported (left out)"}}
		rate := 0.0
		if s.Counted > 0 {
			rate = 100 * float64(s.Exact) / float64(s.Counted) // unrounded, unlike metrics_res.json's exp_rate
		}
		t.Add(fmt.Sprint(s.Pairs), fmt.Sprint(s.Counted), fmt.Sprintf("%.3f", s.MeanScore), fmt.Sprintf("%.2f%%", rate),
			fmt.Sprint(s.Exact), fmt.Sprint(s.PredFailed), fmt.Sprint(s.GTFailed), fmt.Sprint(s.Unsupported))
		if err := t.Write(w); err != nil {
			return err
		}
		if s.Approximate > 0 {
			fmt.Fprintf(w, "\n%d pair(s) scored on an approximate layout (CJK glyph metrics).\n", s.Approximate)
		}
		if r := s.ReasonList(); len(r) > 0 {
			fmt.Fprintln(w, "\nfailures and unsupported constructs:")
			for i, x := range r {
				if i == 15 {
					fmt.Fprintf(w, "  … %d more (see --json)\n", len(r)-15)
					break
				}
				fmt.Fprintln(w, "  "+x)
			}
		}
	}
	if res.MissingPredictions > 0 {
		fmt.Fprintf(w, "\n%d item(s) have no prediction: scored as wrong\n", res.MissingPredictions)
	}
	for _, st := range []*dataset.Stats{&res.Read, res.GTRead} {
		if st != nil && st.Skipped > 0 {
			fmt.Fprintf(w, "\nskipped while reading: %d (%s)\n", st.Skipped, st.ReasonSummary())
		}
	}
	return nil
}
