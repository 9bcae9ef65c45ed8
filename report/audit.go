package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/imagehash"
)

// WriteAudit writes an audit's provenance report into dir:
// findings.json (machine-readable), report.md and a self-contained
// report.html (figures inlined), per-item evidence as Parquet and JSONL,
// and the figures as PNG files. Everything is deterministic.
func WriteAudit(dir string, f *audit.Findings) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir, "findings.json"), f); err != nil {
		return err
	}
	for _, name := range []string{"items.parquet", "items.jsonl"} {
		if err := WriteItems(filepath.Join(dir, name), f.Items); err != nil {
			return err
		}
	}
	if f.TestFingerprints != nil {
		if _, err := f.TestFingerprints.Write(filepath.Join(dir, "test-fingerprints.parquet")); err != nil {
			return fmt.Errorf("test fingerprints: %w", err)
		}
	}
	figs, err := auditFigures(f)
	if err != nil {
		return err
	}
	if err := writeFigures(dir, figs); err != nil {
		return err
	}
	var pairs []pairImage
	for i, e := range f.Evidence {
		var buf bytes.Buffer
		if err := png.Encode(&buf, nearDupCard(e, imagehash.Stretch)); err != nil {
			return err
		}
		name := fmt.Sprintf("pair-%02d.png", i+1)
		if err := os.MkdirAll(filepath.Join(dir, "pairs"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "pairs", name), buf.Bytes(), 0o644); err != nil {
			return err
		}
		p := e.Pair
		cap := pairCaption(p)
		pairs = append(pairs, pairImage{File: "pairs/" + name, Caption: cap, Data: base64.StdEncoding.EncodeToString(buf.Bytes())})
	}
	ev, err := findingEvidence(dir, f)
	if err != nil {
		return err
	}
	return writeMarkdownHTML(dir, auditMarkdown(f, figs, pairs, ev), func(h *bytes.Buffer) error { return auditHTML(h, f, figs, pairs, ev) })
}

// pairImage is a side-by-side near-duplicate pair in the report.
type pairImage struct{ File, Caption, Data string }

type figure struct {
	File, Caption string
	PNG           []byte
}

func auditFigures(f *audit.Findings) ([]figure, error) {
	var figs []figure
	ex := Bars{Title: "ExpRate@CDM by split (95% Wilson)", YLabel: "%"}
	measured := Series{Name: "measured ExpRate@CDM"}
	for _, s := range f.Splits {
		ex.Labels = append(ex.Labels, s.Name)
		measured.Values = append(measured.Values, s.ExpRateCDM)
		measured.Lo = append(measured.Lo, s.ExpRateCDMCI[0])
		measured.Hi = append(measured.Hi, s.ExpRateCDMCI[1])
	}
	ex.Series = []Series{measured}
	png, err := ex.PNG(16*vg.Centimeter, 9*vg.Centimeter)
	if err != nil {
		return nil, err
	}
	var vals []string
	for _, sp := range f.Splits {
		vals = append(vals, fmt.Sprintf("%s %.2f%% [%.2f, %.2f]", sp.Name, sp.ExpRateCDM, sp.ExpRateCDMCI[0], sp.ExpRateCDMCI[1]))
	}
	figs = append(figs, figure{"fig-exprate.png", "Measured ExpRate@CDM per split with 95% Wilson intervals: " + strings.Join(vals, "; ") + ".", png})
	if len(f.Overlap) > 0 {
		ob := Bars{Title: "Test labels found in the training corpora", YLabel: "%"}
		byLevel := map[string]*Series{}
		var order []string
		seenSplit := map[string]bool{}
		for _, s := range f.Overlap {
			if !seenSplit[s.Name] {
				seenSplit[s.Name] = true
				ob.Labels = append(ob.Labels, s.Name)
			}
			if byLevel[s.Level] == nil {
				byLevel[s.Level] = &Series{Name: s.Level}
				order = append(order, s.Level)
			}
			byLevel[s.Level].Values = append(byLevel[s.Level].Values, float64(s.Rate))
		}
		for _, l := range order {
			ob.Series = append(ob.Series, *byLevel[l])
		}
		png, err := ob.PNG(16*vg.Centimeter, 9*vg.Centimeter)
		if err != nil {
			return nil, err
		}
		var vals []string
		for _, o := range f.Overlap {
			vals = append(vals, fmt.Sprintf("%s at %s %s%%", o.Name, o.Level, o.Rate))
		}
		figs = append(figs, figure{"fig-overlap.png", "Share of each test split's labels found in the training corpora, per canonical level: " + strings.Join(vals, "; ") + ".", png})
	}
	if len(f.Gaps) > 0 {
		cb := Bars{Title: "CDM-exact accuracy: contaminated vs clean", YLabel: "%"}
		c, u := Series{Name: "label in training data", Color: ColorContaminated}, Series{Name: "clean", Color: ColorClean}
		for _, g := range f.Gaps {
			if g.Undefined != "" {
				continue
			}
			cb.Labels = append(cb.Labels, g.Split+" "+g.Level)
			c.Values = append(c.Values, g.AccC)
			u.Values = append(u.Values, g.AccU)
		}
		if len(cb.Labels) > 0 {
			cb.Series = []Series{c, u}
			png, err := cb.PNG(16*vg.Centimeter, 9*vg.Centimeter)
			if err != nil {
				return nil, err
			}
			var vals []string
			for _, g := range f.Gaps {
				if g.Undefined == "" {
					vals = append(vals, fmt.Sprintf("%s at %s %.2f%% against %.2f%%", g.Split, g.Level, g.AccC, g.AccU))
				}
			}
			figs = append(figs, figure{"fig-contamination.png", "CDM-exact accuracy of test items whose label is in a training corpus (red) and of the others (blue), per split and level: " + strings.Join(vals, "; ") + ".", png})
		}
	}
	var f1 []float64
	for _, it := range f.Items {
		if it.CDMStatus == "scored" || it.CDMStatus == "pred_failed" {
			f1 = append(f1, it.CDMF1)
		}
	}
	png, err = CDF("CDM F1 of all scored items (cumulative)", "CDM F1", f1, 16*vg.Centimeter, 7*vg.Centimeter)
	if err != nil {
		return nil, err
	}
	below := 0
	for _, x := range f1 {
		if x < 1 {
			below++
		}
	}
	figs = append(figs, figure{"fig-cdm-f1.png", fmt.Sprintf("Cumulative distribution of CDM F1 over the %d scored items: %d (%.1f%%) score below 1.", len(f1), below, 100*float64(below)/float64(max(1, len(f1)))), png})
	return figs, nil
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", *p)
}

func auditMarkdown(f *audit.Findings, figs []figure, pairs []pairImage, ev []evidenceGroup) string {
	var b strings.Builder
	title := f.Config.Name
	if title == "" {
		title = "leakaudit audit"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "Model: %s. Tool: %s. CDM profile: %s. Levels: %s.\n\n", f.Config.Model, f.Tool, f.Config.Profile, strings.Join(f.Config.Levels, ", "))
	if len(f.Verdicts) > 0 {
		b.WriteString("## Verdict\n\n")
		t := Table{Header: []string{"test split", ">items", "in training data", ">copied images", "ExpRate@CDM: reported / measured [95% CI]", "gap on contaminated items [95% CI]", "verdict"}}
		for _, v := range f.Verdicts {
			c := verdictCells(v)
			t.Add(v.Split, fmt.Sprint(v.Items), c.found, fmt.Sprint(v.NearDuplicates), c.exprate, c.gap, v.Text)
		}
		b.WriteString(t.Markdown())
		b.WriteString("\nHow the verdict is worded: docs/report-verdicts.md in leakaudit's repository.\n\n")
	}
	fmt.Fprintf(&b, "## Findings\n\n")
	if len(f.Anomalies) == 0 {
		b.WriteString("No anomaly.\n\n")
	}
	for _, a := range mergeLevels(f.Anomalies) {
		fmt.Fprintf(&b, "- **%s** (%s): %s\n", a.Kind, a.Split, a.Summary)
	}
	if len(ev) > 0 {
		b.WriteString("\n## Evidence\n\nEach picture is CDM's view of an item, typeset by leakaudit's TeX engine: the ground truth above, the prediction below, each token's box green when matched and red when not. The first few items per finding; all of them are in `items.parquet`.\n\n")
		for _, g := range ev {
			fmt.Fprintf(&b, "### %s\n\n%s.\n\n", g.Title, g.Note)
			for _, it := range g.Items {
				fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", it.Caption, it.File, it.Caption)
			}
		}
	}
	b.WriteString("\n## Splits\n\nEvery figure is **measured** by leakaudit unless marked *reported*.\n\n")
	t := Table{Header: []string{"split", "role", ">n", ">ExpRate L1 %", ">ExpRate@CDM %", "95% CI", ">reported % (reported)", ">CDM left out", "flags"}}
	for _, s := range f.Splits {
		t.Add(s.Name, s.Role, fmt.Sprint(s.N), fmt.Sprintf("%.2f", s.ExpRate), fmt.Sprintf("%.2f", s.ExpRateCDM),
			fmt.Sprintf("[%.2f, %.2f]", s.ExpRateCDMCI[0], s.ExpRateCDMCI[1]), fmtPtr(s.Reported), fmt.Sprint(s.CDMGTFailed+s.CDMUnsupported), strings.Join(s.Flags, " "))
	}
	b.WriteString(t.Markdown())
	if f.Config.ReportedSource != "" {
		fmt.Fprintf(&b, "\nReported figures: %s.\n", f.Config.ReportedSource)
	}
	if len(f.Overlap) > 0 {
		b.WriteString("\n## Overlap with the training corpora\n\n")
		o := Table{Header: []string{"split", "level", ">total", ">found", ">rate %"}}
		for _, s := range f.Overlap {
			o.Add(s.Name, s.Level, fmt.Sprint(s.Total), fmt.Sprint(s.Found), s.Rate.String())
		}
		b.WriteString(o.Markdown())
	}
	if len(f.Gaps) > 0 {
		b.WriteString("\n## Contaminated versus clean items (CDM-exact)\n\n")
		g := Table{Header: []string{"split", "level", ">n contaminated", ">n clean", ">acc contaminated %", ">acc clean %", ">Δ pp", "95% CI", ">p", ">MH Δ pp"}}
		for _, x := range f.Gaps {
			if x.Undefined != "" {
				g.Add(x.Split, x.Level, fmt.Sprint(x.Contaminated), fmt.Sprint(x.Clean), "–", "–", "–", x.Undefined, "", "")
				continue
			}
			g.Add(x.Split, x.Level, fmt.Sprint(x.Contaminated), fmt.Sprint(x.Clean), fmt.Sprintf("%.2f", x.AccC), fmt.Sprintf("%.2f", x.AccU),
				fmt.Sprintf("%+.2f", x.Delta), fmt.Sprintf("[%.2f, %.2f]", x.CI[0], x.CI[1]), fmt.Sprintf("%.2g", x.Test.P), fmt.Sprintf("%+.2f", x.MHDelta))
		}
		b.WriteString(g.Markdown())
	}
	b.WriteString("\n## Figures\n\n")
	for _, fg := range figs {
		fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", fg.Caption, fg.File, fg.Caption)
	}
	if len(f.NearDups) > 0 {
		fmt.Fprintf(&b, "## Image near-duplicates\n\n%d test image(s) have a near-copy among the training images; the first %d:\n\n", len(f.NearDups), len(pairs))
		for _, p := range pairs {
			fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", p.Caption, p.File, p.Caption)
		}
	}
	b.WriteString("## Inputs\n\n")
	in := Table{Header: []string{"role", "name", "path", ">bytes", "sha256", ">items"}}
	for _, x := range f.Inputs {
		in.Add(x.Role, x.Name, x.Path, fmt.Sprint(x.Size), x.SHA256, fmt.Sprint(x.Items))
	}
	b.WriteString(in.Markdown())
	if len(f.Limitations) > 0 {
		b.WriteString("\n## Limitations\n\n")
		for _, l := range f.Limitations {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	b.WriteString("\nPer-item evidence: `items.parquet` and `items.jsonl`; machine-readable findings: `findings.json`; the test splits' own fingerprints, for others to check against their training data without receiving the labels: `test-fingerprints.parquet`.\n")
	return b.String()
}

var auditPage = template.Must(template.New("audit").Funcs(template.FuncMap{"deref": func(p *float64) float64 { return *p }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.anomaly{background:#fff4e5;border-left:4px solid #e67e22;padding:6px 10px;margin:6px 0}
code{font-size:13px;word-break:break-all}img{max-width:100%}
tr.contaminated td{background:#fde8e8}tr.overlap td{background:#fff4e5}tr.images td{background:#fff4e5}tr.clean td{background:#eaf6ea}.note{font-size:13px;color:#555}
</style></head><body>
<h1 id="title">{{.Title}}</h1>
<p>Model: {{.F.Config.Model}}. Tool: {{.F.Tool}}. CDM profile: {{.F.Config.Profile}}.</p>
{{if .Verdicts}}<h2>Verdict</h2>
<table id="verdicts"><tr><th>test split</th><th>items</th><th>in training data</th><th>copied images</th><th>ExpRate@CDM: reported / measured [95% CI]</th><th>gap on contaminated items [95% CI]</th><th>verdict</th></tr>
{{range .Verdicts}}<tr class="{{.Class}}"><td data-k="split">{{.Split}}</td><td class="n" data-k="items">{{.Items}}</td><td data-k="found">{{.Found}}</td><td class="n" data-k="near_duplicates">{{.Near}}</td><td data-k="exprate">{{.ExpRate}}</td><td data-k="gap">{{.Gap}}</td><td data-k="text"><b>{{.Text}}</b></td></tr>
{{end}}</table>
<p class="note">Verdict wording: docs/report-verdicts.md in leakaudit's repository. Every figure is measured by leakaudit unless marked reported.</p>{{end}}
<h2>Findings</h2>
{{if not .Anomalies}}<p>No anomaly.</p>{{end}}
{{range .Anomalies}}<div class="anomaly"><b>{{.Kind}}</b> ({{.Split}}): {{.Summary}}</div>{{end}}
{{if .Evidence}}<h2>Evidence</h2><p class="note">Each picture is CDM's view of an item, typeset by leakaudit's TeX engine: the ground truth above, the prediction below, each token's box green when matched and red when not. The first few items per finding; all of them are in items.parquet.</p>
{{range .Evidence}}<h3>{{.Title}}</h3><p>{{.Note}}.</p>{{range .Items}}<figure><img alt="{{.Caption}}" src="data:image/png;base64,{{.Data}}"><figcaption>{{.Caption}}</figcaption></figure>{{end}}{{end}}{{end}}
<h2>Splits</h2>
<table id="splits"><tr><th>split</th><th>role</th><th>n</th><th>ExpRate L1 %</th><th>ExpRate@CDM %</th><th>95% CI</th><th>reported %</th><th>flags</th></tr>
{{range .F.Splits}}<tr><td>{{.Name}}</td><td>{{.Role}}</td><td class="n">{{.N}}</td><td class="n">{{printf "%.2f" .ExpRate}}</td><td class="n">{{printf "%.2f" .ExpRateCDM}}</td><td>[{{printf "%.2f" (index .ExpRateCDMCI 0)}}, {{printf "%.2f" (index .ExpRateCDMCI 1)}}]</td><td class="n">{{if .Reported}}{{printf "%.2f" (deref .Reported)}}{{else}}–{{end}}</td><td>{{range .Flags}}{{.}} {{end}}</td></tr>
{{end}}</table>
{{if .F.Gaps}}<h2>Contaminated versus clean items</h2>
<table><tr><th>split</th><th>level</th><th>n contaminated</th><th>n clean</th><th>acc contaminated %</th><th>acc clean %</th><th>Δ pp</th><th>95% CI</th></tr>
{{range .F.Gaps}}<tr><td>{{.Split}}</td><td>{{.Level}}</td><td class="n">{{.Contaminated}}</td><td class="n">{{.Clean}}</td>{{if .Undefined}}<td colspan="4">{{.Undefined}}</td>{{else}}<td class="n">{{printf "%.2f" .AccC}}</td><td class="n">{{printf "%.2f" .AccU}}</td><td class="n">{{printf "%+.2f" .Delta}}</td><td>[{{printf "%.2f" (index .CI 0)}}, {{printf "%.2f" (index .CI 1)}}]</td>{{end}}</tr>
{{end}}</table>{{end}}
<h2>Figures</h2>
{{range .Figs}}<figure><img alt="{{.Caption}}" src="data:image/png;base64,{{.Data}}"><figcaption>{{.Caption}}</figcaption></figure>{{end}}
{{if .Pairs}}<h2>Image near-duplicates</h2><p>{{len .F.NearDups}} test image(s) have a near-copy among the training images; the first {{len .Pairs}}:</p>
{{range .Pairs}}<figure><img alt="{{.Caption}}" src="data:image/png;base64,{{.Data}}"><figcaption>{{.Caption}}</figcaption></figure>{{end}}{{end}}
<h2>Inputs</h2>
<table><tr><th>role</th><th>name</th><th>bytes</th><th>sha256</th><th>items</th></tr>
{{range .F.Inputs}}<tr><td>{{.Role}}</td><td>{{.Name}}</td><td class="n">{{.Size}}</td><td><code>{{.SHA256}}</code></td><td class="n">{{.Items}}</td></tr>{{end}}</table>
{{if .F.Limitations}}<h2>Limitations</h2><ul>{{range .F.Limitations}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))

func auditHTML(w *bytes.Buffer, f *audit.Findings, figs []figure, pairs []pairImage, ev []evidenceGroup) error {
	type fig struct{ Caption, Data string }
	var fs []fig
	for _, x := range figs {
		fs = append(fs, fig{x.Caption, base64.StdEncoding.EncodeToString(x.PNG)})
	}
	title := f.Config.Name
	if title == "" {
		title = "leakaudit audit"
	}
	type vrow struct {
		audit.Verdict
		Found, ExpRate, Gap string
		Near                int
	}
	var vs []vrow
	for _, v := range f.Verdicts {
		c := verdictCells(v)
		vs = append(vs, vrow{v, c.found, c.exprate, c.gap, v.NearDuplicates})
	}
	return auditPage.Execute(w, map[string]any{"Title": title, "F": f, "Figs": fs, "Pairs": pairs, "Verdicts": vs, "Anomalies": mergeLevels(f.Anomalies), "Evidence": ev})
}

// cells are a verdict's table cells, the same in report.md and report.html.
type cells struct{ found, exprate, gap string }

func verdictCells(v audit.Verdict) cells {
	var c cells
	if v.Level == "" {
		c.found = "not checked"
	} else {
		lv := v.Level
		if len(v.Same) > 0 {
			lv = strings.Join(append([]string{v.Level}, v.Same...), " = ")
		}
		c.found = fmt.Sprintf("%s%% (%d) at %s", v.Share, v.Found, lv)
	}
	rep := "–"
	if v.Reported != nil {
		rep = fmt.Sprintf("%.2f", *v.Reported)
	}
	c.exprate = fmt.Sprintf("%s / %.2f [%.2f, %.2f]", rep, v.ExpRateCDM, v.ExpRateCDMCI[0], v.ExpRateCDMCI[1])
	if v.LabelsOnly {
		c.exprate = "no predictions"
	}
	c.gap = "–"
	if v.GapPP != nil {
		c.gap = fmt.Sprintf("%+.2f pp [%.2f, %.2f]", *v.GapPP, v.GapCI[0], v.GapCI[1])
		if v.GapSignificant {
			c.gap += " significant"
		}
	}
	return c
}

// mergeLevels shows a finding repeated at several canonical levels with
// the same figures once, naming the levels "audit = ws".
func mergeLevels(as []audit.Anomaly) []audit.Anomaly {
	var out []audit.Anomaly
	at := map[string]int{}
	for _, a := range as {
		ev, ok := a.Evidence.(*audit.GapEvidence)
		if !ok {
			out = append(out, a)
			continue
		}
		rest := strings.TrimPrefix(a.Summary, "at "+ev.Level+",")
		key := string(a.Kind) + "\x00" + a.Split + "\x00" + rest
		if i, seen := at[key]; seen {
			prev := out[i]
			lv := strings.TrimPrefix(strings.SplitN(prev.Summary, ",", 2)[0], "at ")
			prev.Summary = "at " + lv + " = " + ev.Level + "," + rest
			out[i] = prev
			continue
		}
		at[key] = len(out)
		out = append(out, a)
	}
	return out
}
