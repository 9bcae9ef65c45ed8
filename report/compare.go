package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/leakaudit/leakaudit/compare"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// WriteCompare writes a comparison's report into dir: comparison.json,
// report.md, a self-contained report.html whose first screen is the
// leaderboard of each split, the figures as PNG files, the items behind
// each rank flip drawn as CDM sees them (evidence/), and items.parquet
// with one row per item and model. Everything is deterministic.
func WriteCompare(dir string, c *compare.Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir, "comparison.json"), c); err != nil {
		return err
	}
	if err := WriteItems(filepath.Join(dir, "items.parquet"), c.Items); err != nil {
		return err
	}
	figs, err := compareFigures(c)
	if err != nil {
		return err
	}
	if err := writeFigures(dir, figs); err != nil {
		return err
	}
	ev, err := flipEvidence(dir, c)
	if err != nil {
		return err
	}
	return writeMarkdownHTML(dir, compareMarkdown(c, figs, ev), func(h *bytes.Buffer) error { return compareHTML(h, c, figs, ev) })
}

// CompareNames are the names WriteCompare writes into its folder.
var CompareNames = []string{"comparison.json", "report.md", "report.html", "items.parquet", "fig-*.png", "evidence/"}

func compareFigures(c *compare.Comparison) ([]figure, error) {
	var figs []figure
	// Paired differences with their intervals, every pair on all and on
	// clean items, flips in red.
	if len(c.Pairwise) > 0 {
		fo := Forest{Title: "Paired differences in ExpRate@CDM (95% Newcombe)", XLabel: "A − B (pp)"}
		var vals []string
		for _, p := range c.Pairwise {
			if p.N == 0 {
				continue
			}
			fo.Labels = append(fo.Labels, fmt.Sprintf("%s %s: %s − %s", p.Split, p.Subset, p.A, p.B))
			fo.Values, fo.Lo, fo.Hi = append(fo.Values, p.Diff), append(fo.Lo, p.CI[0]), append(fo.Hi, p.CI[1])
			fo.Red = append(fo.Red, p.Subset == "clean" && isFlip(c, p))
			vals = append(vals, fmt.Sprintf("%s on %s items, %s − %s: %+.2f pp [%.2f, %.2f]", p.Split, p.Subset, p.A, p.B, p.Diff, p.CI[0], p.CI[1]))
		}
		if len(fo.Values) > 0 {
			h := vg.Length(3+0.7*float64(len(fo.Values))) * vg.Centimeter
			png, err := fo.PNG(18*vg.Centimeter, h)
			if err != nil {
				return nil, err
			}
			figs = append(figs, figure{"fig-paired.png", "Paired differences of ExpRate@CDM with 95% Newcombe intervals for paired proportions (rank flips in red): " + strings.Join(vals, "; ") + ".", png})
		}
	}
	// Accuracy by label length, seen against unseen, per model.
	bins := compare.LengthBins()
	for si, s := range c.Splits {
		for _, m := range s.Models {
			b := Bars{Title: fmt.Sprintf("%s on %s: ExpRate@CDM by label length", m.Model, s.Name), YLabel: "%", Labels: bins}
			seen, unseen := Series{Name: "seen by " + m.Model, Color: ColorContaminated}, Series{Name: "not seen", Color: ColorClean}
			var vals []string
			for bi := range bins {
				ks, ns, ku, nu := lengthCounts(c, s.Name, m.Model, bi)
				seen.Values, unseen.Values = append(seen.Values, share(ks, ns)), append(unseen.Values, share(ku, nu))
				vals = append(vals, fmt.Sprintf("%s tokens %s against %s", bins[bi], kn(ks, ns), kn(ku, nu)))
			}
			b.Series = []Series{seen, unseen}
			png, err := b.PNG(16*vg.Centimeter, 8*vg.Centimeter)
			if err != nil {
				return nil, err
			}
			figs = append(figs, figure{fmt.Sprintf("fig-length-%d-%s.png", si+1, fileSafe(m.Model)),
				fmt.Sprintf("%s on %s: ExpRate@CDM by ground-truth length in tokens, on items whose label or image is in %s's training data (red) and the others (blue): %s.", m.Model, s.Name, m.Model, strings.Join(vals, "; ")), png})
		}
	}
	return figs, nil
}

// lengthCounts counts a model's CDM-exact items in one length stratum,
// seen and not seen by it.
func lengthCounts(c *compare.Comparison, split, model string, bin int) (ks, ns, ku, nu int) {
	for _, it := range c.Items {
		if it.Split != split || it.Model != model || it.CDMStatus == cdm.GTFailed.String() || it.CDMStatus == cdm.Unsupported.String() || compare.LengthBin(it.GTTokens) != bin {
			continue
		}
		x := 0
		if it.CDMExact {
			x = 1
		}
		if it.Seen != "" {
			ks, ns = ks+x, ns+1
		} else {
			ku, nu = ku+x, nu+1
		}
	}
	return
}

func share(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}

func kn(k, n int) string {
	if n == 0 {
		return "no item"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", share(k, n), k, n)
}

func isFlip(c *compare.Comparison, p compare.PairResult) bool {
	for _, f := range c.Flips {
		if f.Split == p.Split && (f.Above == p.A && f.Below == p.B || f.Above == p.B && f.Below == p.A) {
			return true
		}
	}
	return false
}

// fileSafe makes a model name usable in a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// flipEvidence draws, for each flip, the clean items the lower model
// recognises and the upper one does not: each model's CDM view (ground
// truth above, prediction below, matched tokens green, unmatched red).
func flipEvidence(dir string, c *compare.Comparison) ([]evidenceGroup, error) {
	prof := c.Profile()
	var groups []evidenceGroup
	rows := map[string]compare.ItemRow{}
	for _, it := range c.Items {
		rows[it.Split+"\x00"+it.Model+"\x00"+it.ID] = it
	}
	for fi, f := range c.Flips {
		g := evidenceGroup{Title: fmt.Sprintf("%s: %s above %s on all items, below it on clean items", f.Split, f.Above, f.Below),
			Note: fmt.Sprintf("clean items %s recognises CDM-exactly and %s does not, the first %d; each model's prediction drawn as CDM sees it", f.Below, f.Above, len(f.Items))}
		for ii, id := range f.Items {
			for mi, model := range []string{f.Above, f.Below} {
				it := rows[f.Split+"\x00"+model+"\x00"+id]
				r := cdm.ScorePair(cdm.Pair{ID: it.ID, GT: it.GT, Pred: it.Pred, NoPred: !it.HasPred}, prof)
				img := cdm.DrawMatch(r, cdm.Picture(it.GT), cdm.Picture(it.Pred))
				var buf bytes.Buffer
				if err := png.Encode(&buf, img); err != nil {
					return nil, err
				}
				name := fmt.Sprintf("evidence/flip-%d-%d-%d.png", fi+1, ii+1, mi+1)
				if err := os.MkdirAll(filepath.Join(dir, "evidence"), 0o755); err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), buf.Bytes(), 0o644); err != nil {
					return nil, err
				}
				cap := fmt.Sprintf("%s, item %s, %s: ground truth “%s” above, prediction “%s” below; CDM F1 %.3f", f.Split, id, model, it.GT, it.Pred, it.CDMF1)
				g.Items = append(g.Items, evidenceItem{File: name, Caption: cap, Data: base64.StdEncoding.EncodeToString(buf.Bytes())})
			}
		}
		if len(g.Items) > 0 {
			groups = append(groups, g)
		}
	}
	return groups, nil
}

// leaderCells are a leaderboard row's cells, the same in report.md and
// report.html.
type leaderCells struct {
	Model, FullRank, Full, CleanRank, Clean, Reported, Flip string
	Text, Le1, Le2                                          string
}

func leaderRow(r compare.LeaderboardRow) leaderCells {
	c := leaderCells{Model: r.Model, FullRank: fmt.Sprint(r.FullRank), Full: r.Full.String(), CleanRank: fmt.Sprint(r.CleanRank), Clean: r.Clean.String(), Reported: "–",
		Text: r.Text.ExpRate.String(), Le1: r.Text.Le1.String(), Le2: r.Text.Le2.String()}
	if r.Rules {
		c.Model += " (rules)"
	}
	if r.Missing > 0 {
		c.Model += fmt.Sprintf(" (%d without prediction)", r.Missing)
	}
	if r.Reported != nil {
		c.Reported = fmt.Sprintf("%.2f", *r.Reported)
		if !r.Full.None && *r.Reported > r.Full.CI[1] {
			c.Reported += " (above the measured interval)"
		}
	}
	if r.Flip {
		c.Flip = "flip"
	}
	return c
}

func compareTitle(c *compare.Comparison) string {
	if c.Config.Name != "" {
		return c.Config.Name
	}
	return "leakaudit comparison"
}

func compareMarkdown(c *compare.Comparison, figs []figure, ev []evidenceGroup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nTool: %s. CDM profile: %s. Seen: a label at %s", compareTitle(c), c.Tool, c.Config.Profile, strings.Join(c.Config.Levels, ", "))
	if c.Config.Near > 0 {
		fmt.Fprintf(&b, ", a training label within %d token edits", c.Config.Near)
	}
	b.WriteString(", or a copied image, in the model's training data. Clean: seen by no model.\n\n## Leaderboards\n\n")
	for _, lb := range c.Leaderboards {
		fmt.Fprintf(&b, "### %s (%d items, %d clean)\n\n**%s.**\n\n", lb.Split, lb.Items, lb.Clean, lb.Text)
		t := Table{Header: []string{"model", ">rank (all)", "ExpRate@CDM, all items [95% CI]", ">rank (clean)", "ExpRate@CDM, clean items [95% CI]", ">reported", "flip", "text ExpRate", "≤1", "≤2"}}
		for _, r := range lb.Rows {
			x := leaderRow(r)
			t.Add(x.Model, x.FullRank, x.Full, x.CleanRank, x.Clean, x.Reported, x.Flip, x.Text, x.Le1, x.Le2)
		}
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	b.WriteString("## Models per split\n\n")
	for _, s := range c.Splits {
		fmt.Fprintf(&b, "### %s\n\n%d items; %d seen by some model; %d clean.\n\n", s.Name, s.Items, s.SeenAny, s.Clean)
		t := Table{Header: []string{"model", "all", "clean", "own seen", "not seen", ">seen (label/near/image)", "seen gap, length-stratified (MH) [95% CI]", ">CMH p", "text ExpRate", "≤1", "≤2", "text ExpRate (clean)", "≤1 (clean)", "≤2 (clean)", ">left out", ">CDM reused"}}
		for _, m := range s.Models {
			gap := "–"
			if m.Gap.Undefined != "" {
				gap = m.Gap.Undefined
			} else {
				gap = fmt.Sprintf("%+.2f pp [%.2f, %.2f] (raw %+.2f)", m.Gap.MHDelta, m.Gap.MHCI[0], m.Gap.MHCI[1], m.Gap.Delta)
			}
			t.Add(m.Model, m.Full.String(), m.Clean.String(), m.Seen.String(), m.Unseen.String(), fmt.Sprintf("%d/%d/%d", m.SeenLabel, m.SeenNear, m.SeenImage),
				gap, fmtPValue(m.Gap), m.Text.ExpRate.String(), m.Text.Le1.String(), m.Text.Le2.String(),
				m.TextClean.ExpRate.String(), m.TextClean.Le1.String(), m.TextClean.Le2.String(), fmt.Sprint(m.CDMLeftOut), fmt.Sprint(m.CDMReused))
		}
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	if len(c.Excess) > 0 {
		b.WriteString("## Excess gap over the rules-trained controls\n\nThe model's length-stratified gap on the items it saw, minus the control's on the same items: the part of the advantage on seen items a model trained by the benchmark's rules does not show.\n\n")
		t := excessTable(c)
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	b.WriteString("## Pairwise comparisons\n\nA − B over the items both models scored; Newcombe's interval for paired proportions; exact McNemar p, Holm-adjusted over every comparison below.\n\n")
	t := Table{Header: []string{"split", "items", "A", "B", ">n", ">both", ">only A", ">only B", ">neither", ">A %", ">B %", ">A − B pp", "95% CI", ">McNemar p", ">Holm p", "significant"}}
	for _, p := range c.Pairwise {
		t.Add(p.Split, p.Subset, p.A, p.B, fmt.Sprint(p.N), fmt.Sprint(p.Both), fmt.Sprint(p.OnlyA), fmt.Sprint(p.OnlyB), fmt.Sprint(p.Neither),
			fmt.Sprintf("%.2f", p.AccA), fmt.Sprintf("%.2f", p.AccB), fmt.Sprintf("%+.2f", p.Diff), fmt.Sprintf("[%.2f, %.2f]", p.CI[0], p.CI[1]), fmtP(p.P), fmtP(p.PHolm), yes(p.Significant))
	}
	b.WriteString(t.Markdown())
	if len(ev) > 0 {
		b.WriteString("\n## The items behind each flip\n\n")
		for _, g := range ev {
			fmt.Fprintf(&b, "### %s\n\n%s.\n\n", g.Title, g.Note)
			for _, it := range g.Items {
				fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", it.Caption, it.File, it.Caption)
			}
		}
	}
	b.WriteString("\n## Figures\n\n")
	for _, fg := range figs {
		fmt.Fprintf(&b, "![%s](%s)\n\n%s\n\n", fg.Caption, fg.File, fg.Caption)
	}
	b.WriteString("## Training data matches\n\n")
	o := Table{Header: []string{"corpus", "split", "level", ">found", ">items"}}
	for _, x := range c.Overlap {
		o.Add(x.Corpus, x.Split, x.Level, fmt.Sprint(x.Found), fmt.Sprint(x.Total))
	}
	b.WriteString(o.Markdown())
	b.WriteString("\n## Inputs\n\n")
	in := Table{Header: []string{"role", "name", "path", ">bytes", "sha256", ">items"}}
	for _, x := range c.Inputs {
		in.Add(x.Role, x.Name, x.Path, fmt.Sprint(x.Size), x.SHA256, fmt.Sprint(x.Items))
	}
	b.WriteString(in.Markdown())
	if len(c.Limitations) > 0 || len(c.Incomplete) > 0 {
		b.WriteString("\n## Limitations\n\n")
		for _, l := range c.Limitations {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		for _, s := range c.Incomplete {
			fmt.Fprintf(&b, "- read only in part: %s\n", s.String())
		}
	}
	b.WriteString("\nOne row per item and model: `items.parquet`; machine-readable: `comparison.json`. The statistics: docs/compare.md in leakaudit's repository.\n")
	return b.String()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func fmtPValue(g compare.Gap) string {
	if g.Undefined != "" {
		return "–"
	}
	return fmtP(g.CMHP)
}

// fmtP prints a p-value as the comparison's sentences do.
func fmtP(p float64) string { return compare.FormatP(p) }

var comparePage = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:14px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:13px;word-break:break-all}img{max-width:100%}
tr.flip td{color:#c0392b;font-weight:600;background:#fde8e8}.sentence{font-size:17px;margin:.3em 0}.sentence.flips{color:#c0392b}.sentence.not_significant{color:#b9770e}.sentence.holds{color:#1e8449}
.note{font-size:13px;color:#555}h3{margin-bottom:.2em}
</style></head><body>
<h1 id="title">{{.Title}}</h1>
<p class="note">Tool: {{.C.Tool}}. CDM profile: {{.C.Config.Profile}}. Seen: the label at {{.Levels}}{{if .C.Config.Near}} or a training label within {{.C.Config.Near}} token edits{{end}}, or a copied image, in the model's training data. Clean: seen by no model.</p>
<h2>Leaderboards</h2>
{{range .Boards}}<section class="leaderboard" data-split="{{.Split}}">
<h3>{{.Split}} <span class="note">({{.Items}} items, {{.Clean}} clean)</span></h3>
<p class="sentence {{.Class}}" data-k="sentence"><b>{{.Text}}</b></p>
<table class="board"><tr><th>model</th><th>rank (all)</th><th>ExpRate@CDM, all items [95% CI]</th><th>rank (clean)</th><th>ExpRate@CDM, clean items [95% CI]</th><th>reported</th><th>text ExpRate</th><th>≤1</th><th>≤2</th></tr>
{{range .Rows}}<tr{{if .Flip}} class="flip"{{end}}><td data-k="model">{{.Model}}</td><td class="n" data-k="full_rank">{{.FullRank}}</td><td class="n" data-k="full">{{.Full}}</td><td class="n" data-k="clean_rank">{{.CleanRank}}</td><td class="n" data-k="clean">{{.Clean}}</td><td class="n" data-k="reported">{{.Reported}}</td><td class="n" data-k="text">{{.Text}}</td><td class="n" data-k="le1">{{.Le1}}</td><td class="n" data-k="le2">{{.Le2}}</td></tr>
{{end}}</table></section>
{{end}}
<p class="note">Ranks by ExpRate@CDM (CDM-exact items over the items CDM counts); rows in red are in a rank flip. Text ExpRate at the audit level, ≤1 and ≤2 token edits at the tokens level, on all items. The sentence: docs/compare.md in leakaudit's repository.</p>
{{.Body}}
</body></html>
`))

// sectionsTemplate renders sections as a Page does, for a page with its
// own first screen.
var sectionsTemplate = template.Must(template.New("sections").Funcs(sectionFuncs).Parse(`{{range .}}` + sectionHTML + `{{end}}`))

// excessTable is the table of excess gaps over the rules-trained controls.
func excessTable(c *compare.Comparison) Table {
	t := Table{Header: []string{"split", "model", "control", ">n seen", ">n not seen", ">model gap pp", ">control gap pp", ">excess pp", "95% CI", "above 0"}}
	for _, e := range c.Excess {
		if e.Undefined != "" {
			t.Add(e.Split, e.Model, e.Control, fmt.Sprint(e.Seen), fmt.Sprint(e.Unseen), "–", "–", "–", e.Undefined, "")
			continue
		}
		t.Add(e.Split, e.Model, e.Control, fmt.Sprint(e.Seen), fmt.Sprint(e.Unseen), fmt.Sprintf("%+.2f", e.ModelGap), fmt.Sprintf("%+.2f", e.ControlGap),
			fmt.Sprintf("%+.2f", e.Excess), fmt.Sprintf("[%.2f, %.2f]", e.CI[0], e.CI[1]), yes(e.Positive))
	}
	return t
}

func compareHTML(w io.Writer, c *compare.Comparison, figs []figure, ev []evidenceGroup) error {
	type board struct {
		compare.Leaderboard
		Rows []leaderCells
	}
	var boards []board
	for _, lb := range c.Leaderboards {
		bd := board{Leaderboard: lb}
		for _, r := range lb.Rows {
			bd.Rows = append(bd.Rows, leaderRow(r))
		}
		boards = append(boards, bd)
	}
	// The rest of the page: the sections of report.md as a Page body.
	var secs []Section
	for _, s := range c.Splits {
		t := Table{Header: []string{"model", "all", "clean", "own seen", "not seen", ">seen label/near/image", "seen gap (MH) [95% CI]", ">CMH p", "text ExpRate", "≤1", "≤2", ">left out", ">CDM reused"}}
		for _, m := range s.Models {
			gap := m.Gap.Undefined
			if gap == "" {
				gap = fmt.Sprintf("%+.2f pp [%.2f, %.2f] (raw %+.2f)", m.Gap.MHDelta, m.Gap.MHCI[0], m.Gap.MHCI[1], m.Gap.Delta)
			}
			t.Add(m.Model, m.Full.String(), m.Clean.String(), m.Seen.String(), m.Unseen.String(), fmt.Sprintf("%d/%d/%d", m.SeenLabel, m.SeenNear, m.SeenImage),
				gap, fmtPValue(m.Gap), m.Text.ExpRate.String(), m.Text.Le1.String(), m.Text.Le2.String(), fmt.Sprint(m.CDMLeftOut), fmt.Sprint(m.CDMReused))
		}
		secs = append(secs, Section{Heading: "Models on " + s.Name, Tables: []Table{t},
			Text: []string{fmt.Sprintf("%d items; %d seen by some model; %d clean. ExpRate@CDM in percent with 95%% Wilson intervals; text metrics on all items (the audit level; ≤k token edits at the tokens level).", s.Items, s.SeenAny, s.Clean)}})
	}
	if len(c.Excess) > 0 {
		t := excessTable(c)
		secs = append(secs, Section{Heading: "Excess gap over the rules-trained controls", Tables: []Table{t},
			Text: []string{"The model's length-stratified gap on the items it saw minus the control's on the same items."}})
	}
	pt := Table{Header: []string{"split", "items", "A", "B", ">n", ">only A", ">only B", ">A − B pp", "95% CI", ">McNemar p", ">Holm p", "significant"}}
	for _, p := range c.Pairwise {
		pt.Add(p.Split, p.Subset, p.A, p.B, fmt.Sprint(p.N), fmt.Sprint(p.OnlyA), fmt.Sprint(p.OnlyB), fmt.Sprintf("%+.2f", p.Diff), fmt.Sprintf("[%.2f, %.2f]", p.CI[0], p.CI[1]), fmtP(p.P), fmtP(p.PHolm), yes(p.Significant))
	}
	secs = append(secs, Section{Heading: "Pairwise comparisons", Tables: []Table{pt},
		Text: []string{"Over the items both models scored; Newcombe's interval for paired proportions; exact McNemar p, Holm-adjusted over every comparison."}})
	for _, g := range ev {
		sec := Section{Heading: g.Title, Text: []string{g.Note + "."}}
		for _, it := range g.Items {
			data, _ := base64.StdEncoding.DecodeString(it.Data)
			sec.Images = append(sec.Images, PageImage{Caption: it.Caption, PNG: data})
		}
		secs = append(secs, sec)
	}
	fs := Section{Heading: "Figures"}
	for _, f := range figs {
		fs.Images = append(fs.Images, PageImage{Caption: f.Caption, PNG: f.PNG})
	}
	secs = append(secs, fs)
	var rows [][]string
	for _, x := range c.Inputs {
		rows = append(rows, []string{x.Role, x.Name, x.Path, fmt.Sprint(x.Size), x.SHA256})
	}
	lim := append([]string(nil), c.Limitations...)
	lim = append(lim, completeness(c.Incomplete)...)
	secs = append(secs, Section{Heading: "Inputs", Tables: []Table{inputTable(rows)}, Text: lim})
	var body bytes.Buffer
	if err := sectionsTemplate.Execute(&body, secs); err != nil {
		return err
	}
	return comparePage.Execute(w, map[string]any{"Title": compareTitle(c), "C": c, "Levels": strings.Join(c.Config.Levels, ", "),
		"Boards": boards, "Body": template.HTML(body.String())})
}

// CompareText writes the leaderboards for a person, and where the report
// was written.
func CompareText(w io.Writer, c *compare.Comparison, dir string) error {
	for _, lb := range c.Leaderboards {
		fmt.Fprintf(w, "%s (%d items, %d clean): %s\n\n", lb.Split, lb.Items, lb.Clean, lb.Text)
		t := Table{Header: []string{"model", ">rank", ">ExpRate@CDM %", ">rank clean", ">clean %", ""}}
		for _, r := range lb.Rows {
			x := leaderRow(r)
			t.Add(x.Model, x.FullRank, fmt.Sprintf("%.2f", r.Full.Pct), x.CleanRank, fmt.Sprintf("%.2f", r.Clean.Pct), strings.ToUpper(x.Flip))
		}
		if err := t.Write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, e := range c.Excess {
		if e.Undefined == "" {
			fmt.Fprintf(w, "excess gap %s over %s on %s: %+.2f pp [%.2f, %.2f]\n", e.Model, e.Control, e.Split, e.Excess, e.CI[0], e.CI[1])
		}
	}
	for _, l := range c.Limitations {
		fmt.Fprintf(w, "note: %s\n", l)
	}
	_, err := fmt.Fprintf(w, "\nreport: %s/report.html (also report.md, comparison.json, items.parquet)\n", dir)
	return err
}
