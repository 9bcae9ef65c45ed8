// Package demo runs leakaudit end to end on a synthetic benchmark that it
// generates itself, so that the first command on a fresh machine does real
// work and checks its own answer: the benchmark has planted copies of
// training labels, and the demo fails unless the audit finds exactly them.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/dedup"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/internal/synth"
	"github.com/leakaudit/leakaudit/overlap"
	"github.com/leakaudit/leakaudit/report"
)

// Seed is the fixed seed of the demo benchmark.
const Seed = 20250812

// Result is what the demo produced.
type Result struct {
	Report overlap.Report
	Bench  synth.Benchmark
}

// Run generates the benchmark under dir/data, audits it with the index in
// dir/index, writes dir/overlap.json and dir/overlap-items.jsonl, and prints
// a summary to w. It returns an error when a planted count is not found
// exactly.
func Run(ctx context.Context, dir, tool string, w io.Writer) (Result, error) {
	var res Result
	bm, err := synth.GenerateDemo(filepath.Join(dir, "data"), Seed)
	if err != nil {
		return res, fmt.Errorf("generate demo benchmark: %w", err)
	}
	res.Bench = bm
	levels, _ := canon.ParseLevels("raw,audit,ws")
	job := overlap.Job{Levels: levels, DB: filepath.Join(dir, "index"), Rebuild: true, MaxRefs: 5, Tool: tool}
	for _, c := range bm.Train {
		job.Train = append(job.Train, index.CorpusInput{Name: c.Name, Source: dataset.Source{Path: c.Path}})
	}
	for _, t := range bm.Tests {
		job.Tests = append(job.Tests, overlap.Split{Name: t.Name, Source: dataset.Source{Path: t.Path}})
	}
	iw, err := report.CreateItems[overlap.ItemMatch](filepath.Join(dir, "overlap-items.jsonl"))
	if err != nil {
		return res, err
	}
	job.Item = iw.Write
	rep, err := overlap.Run(ctx, job)
	if cerr := iw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, err
	}
	res.Report = rep
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "overlap.json"), append(data, '\n'), 0o644); err != nil {
		return res, err
	}

	fmt.Fprintf(w, "leakaudit demo: a synthetic benchmark with planted copies of training labels\n\n")
	t := report.Table{Header: []string{"split", "level", ">total", ">found", ">overlap %", ">planted", ""}}
	var bad []string
	for _, s := range rep.Splits {
		want := -1
		for _, ts := range bm.Tests {
			if ts.Name != s.Name {
				continue
			}
			switch s.Level {
			case "raw":
				want = ts.Planted.Exact + ts.Planted.Dups
			case "audit":
				want = ts.Planted.FoundAudit()
			case "ws":
				want = ts.Planted.FoundWS()
			}
		}
		mark := "ok"
		if int64(want) != s.Found {
			mark = "MISMATCH"
			bad = append(bad, fmt.Sprintf("%s@%s found %d, planted %d", s.Name, s.Level, s.Found, want))
		}
		t.Add(s.Name, s.Level, fmt.Sprint(s.Total), fmt.Sprint(s.Found), s.Rate.String(), fmt.Sprint(want), mark)
	}
	if err := t.Write(w); err != nil {
		return res, err
	}
	for _, in := range rep.TestInputs {
		if in.Stats.Skipped > 0 {
			fmt.Fprintf(w, "\n%s: %d entry skipped and reported (%s)", in.Name, in.Stats.Skipped, in.Stats.ReasonSummary())
		}
	}
	fmt.Fprintf(w, "\n%d audit-only match(es): a space deleted by the protocol glued a control word to a letter\n", len(rep.AuditOnly))
	fmt.Fprintf(w, "\nwrote %s and %s\n", filepath.Join(dir, "overlap.json"), filepath.Join(dir, "overlap-items.jsonl"))
	if len(bad) > 0 {
		return res, fmt.Errorf("planted copies not found exactly: %v", bad)
	}
	fmt.Fprintln(w, "all planted copies found, and nothing else")
	return res, nil
}

// RunModelAudit generates the model demo under dir/data/model, runs the
// full audit on it, writes the report into dir/audit and prints a summary.
// It returns an error unless the audit finds every planted contamination
// and label error, and nothing else.
func RunModelAudit(ctx context.Context, dir, tool string, w io.Writer) (*audit.Findings, error) {
	md, err := synth.GenerateModelDemo(filepath.Join(dir, "data", "model"), Seed)
	if err != nil {
		return nil, fmt.Errorf("generate the model demo: %w", err)
	}
	cfg, err := audit.LoadConfig(md.Config)
	if err != nil {
		return nil, err
	}
	cfg.DB = filepath.Join(dir, "index-model")
	f, err := audit.Run(ctx, audit.Job{Config: cfg, Tool: tool})
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "audit")
	if err := report.WriteAudit(out, f); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nleakaudit demo: a synthetic model's audit (planted contamination and label errors)\n\n")
	for _, a := range f.Anomalies {
		fmt.Fprintf(w, "  %-25s %-10s %s\n", a.Kind, a.Split, a.Summary)
	}
	var bad []string
	// Contamination: found at the audit level exactly as planted.
	for _, s := range f.Overlap {
		if s.Level != "audit" {
			continue
		}
		if want := md.Contaminated[s.Name]; int(s.Found) != want {
			bad = append(bad, fmt.Sprintf("%s: %d labels found in the training corpus, %d planted", s.Name, s.Found, want))
		}
	}
	// Findings: a contamination gap on every contaminated split, the
	// memorized label errors, and nothing else.
	gaps := map[string]bool{}
	for _, a := range f.Anomalies {
		switch {
		case a.Kind == audit.ContaminationGap && md.Contaminated[a.Split] > 0:
			gaps[a.Split] = true
		case a.Kind == audit.ErrorLabelMemorization && a.Split == md.Split:
			ev := a.Evidence.(*audit.MemorizationEvidence)
			var ids []string
			for _, m := range ev.Memorized {
				ids = append(ids, m.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(md.Memorized) {
				bad = append(bad, fmt.Sprintf("memorized label errors %v, planted %v", ids, md.Memorized))
			}
			if n := ev.ErroneousItems; n != len(md.Erroneous) {
				bad = append(bad, fmt.Sprintf("%d label errors known, %d planted", n, len(md.Erroneous)))
			}
			gaps["memorization"] = true
		default:
			bad = append(bad, "unexpected finding: "+string(a.Kind)+" "+a.Split+": "+a.Summary)
		}
	}
	for s := range md.Contaminated {
		if !gaps[s] {
			bad = append(bad, "no contamination gap found on "+s)
		}
	}
	if !gaps["memorization"] {
		bad = append(bad, "the memorized label errors were not found")
	}
	fmt.Fprintf(w, "\nwrote %s (report.html, report.md, findings.json, items.parquet)\n", out)
	if len(bad) > 0 {
		return f, fmt.Errorf("the audit of the model demo is wrong: %v", bad)
	}
	fmt.Fprintln(w, "every planted contamination and label error found, and nothing else")
	return f, nil
}

// RunDedup cleans the demo's training corpora (the Parquet file and the
// caption folder) against its two test splits at the ws level into
// dir/clean, and prints what was removed. It returns an error unless the
// removed items are exactly the training items whose labels were planted
// in a test split (and any training item equal to one of them at ws), each
// corpus is rewritten with the rest, and a second clean removes nothing.
func RunDedup(ctx context.Context, dir, tool string, bm synth.Benchmark, w io.Writer) (*dedup.Result, error) {
	levels, _ := canon.ParseLevels("ws")
	out := filepath.Join(dir, "clean")
	job := dedup.Job{Out: out, Force: true, Levels: levels, Tool: tool}
	for _, c := range bm.Train {
		job.Releases = append(job.Releases, dedup.Input{Name: c.Name, Source: dataset.Source{Path: c.Path}})
	}
	for _, t := range bm.Tests {
		job.Against = append(job.Against, dedup.Input{Name: t.Name, Source: dataset.Source{Path: t.Path}})
	}
	res, err := dedup.Run(ctx, job)
	if err != nil {
		return nil, err
	}
	// What must go: the planted sources, and their equals at ws.
	labels := map[string][]dataset.Item{}
	for _, c := range bm.Train {
		if _, err := dataset.Scan(dataset.Source{Path: c.Path}, func(it dataset.Item) error {
			labels[c.Name] = append(labels[c.Name], it)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	planted := map[string]bool{}
	for _, p := range bm.Copied {
		planted[canon.WSKey(labels[p.Corpus][p.Index].Label)] = true
	}
	want := map[string]bool{}
	for name, items := range labels {
		for _, it := range items {
			if planted[canon.WSKey(it.Label)] {
				want[name+":"+it.ID] = true
			}
		}
	}
	got := map[string]bool{}
	for _, r := range res.Removed {
		got[r.Release+":"+r.ID] = true
	}
	fmt.Fprintf(w, "\nleakaudit demo: the training corpora cleaned against the test splits (dedup, ws level)\n\n")
	t := report.Table{Header: []string{"corpus", ">items", ">kept", ">removed", ">planted sources"}}
	for _, s := range res.Releases {
		n := 0
		for k := range want {
			if len(k) > len(s.Name) && k[:len(s.Name)+1] == s.Name+":" {
				n++
			}
		}
		t.Add(s.Name, fmt.Sprint(s.Items), fmt.Sprint(s.Kept), fmt.Sprint(s.Removed), fmt.Sprint(n))
	}
	if err := t.Write(w); err != nil {
		return res, err
	}
	var bad []string
	for k := range want {
		if !got[k] {
			bad = append(bad, "kept "+k)
		}
	}
	for k := range got {
		if !want[k] {
			bad = append(bad, "removed "+k)
		}
	}
	// The rewritten corpora hold the rest, and clean again to nothing.
	again := job
	again.Out = filepath.Join(dir, "clean-again")
	again.Releases = nil
	for _, s := range res.Releases {
		p := filepath.Join(out, s.Name)
		if s.Format == string(dataset.Parquet) {
			p = filepath.Join(p, filepath.Base(s.Path))
		}
		again.Releases = append(again.Releases, dedup.Input{Name: s.Name, Source: dataset.Source{Path: p}})
	}
	res2, err := dedup.Run(ctx, again)
	if err != nil {
		return res, err
	}
	for i, s := range res2.Releases {
		if s.Items != res.Releases[i].Kept || s.Removed != 0 {
			bad = append(bad, fmt.Sprintf("%s: the clean corpus has %d items (want %d) and a second clean removed %d", s.Name, s.Items, res.Releases[i].Kept, s.Removed))
		}
	}
	fmt.Fprintf(w, "\nwrote %s (each corpus in its own format, removed.jsonl, removed.parquet, summary.json, summary.md)\n", out)
	if len(bad) > 0 {
		sort.Strings(bad)
		return res, fmt.Errorf("the clean release is wrong: %v", bad)
	}
	fmt.Fprintln(w, "exactly the planted sources removed; a second clean removes nothing")
	return res, nil
}
