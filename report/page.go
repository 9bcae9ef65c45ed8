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

	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/dedup"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/neardup"
	"github.com/leakaudit/leakaudit/overlap"
)

// A Page is a self-contained HTML report of a command's results: a title,
// a one-line answer, and sections of text, tables and inlined images. It
// has no script and loads nothing from the network; the same results give
// the same bytes.
type Page struct {
	Title, Answer string
	Sections      []Section
}

// A Section is a heading with paragraphs, tables and images.
type Section struct {
	Heading string
	Text    []string
	Tables  []Table
	Images  []PageImage
}

// A PageImage is an inlined PNG with its caption (also its text
// alternative).
type PageImage struct {
	Caption string
	PNG     []byte
}

// sectionFuncs are the functions sectionHTML uses.
var sectionFuncs = template.FuncMap{
	"head":  func(h string) string { return strings.TrimPrefix(h, ">") },
	"right": func(h string) bool { return strings.HasPrefix(h, ">") },
	"cell": func(row []string, i int) string {
		if i < len(row) {
			return row[i]
		}
		return ""
	},
	"b64": func(b []byte) string { return base64.StdEncoding.EncodeToString(b) },
}

// sectionHTML draws one Section in HTML (inside a range over sections).
const sectionHTML = `<h2>{{.Heading}}</h2>
{{range .Text}}<p>{{.}}</p>{{end}}
{{range .Tables}}{{$t := .}}<table><tr>{{range .Header}}<th>{{head .}}</th>{{end}}</tr>
{{range .Rows}}{{$r := .}}<tr>{{range $i, $h := $t.Header}}<td{{if right $h}} class="n"{{end}}>{{cell $r $i}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{range .Images}}<figure><img alt="{{.Caption}}" src="data:image/png;base64,{{b64 .PNG}}"><figcaption>{{.Caption}}</figcaption></figure>{{end}}
`

var pageTemplate = template.Must(template.New("page").Funcs(sectionFuncs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.answer{font-size:18px;background:#f3f6fa;border-left:4px solid #1f77b4;padding:8px 12px}
img{max-width:100%}
</style></head><body>
<h1 id="title">{{.Title}}</h1>
<p class="answer" id="answer">{{.Answer}}</p>
{{range .Sections}}` + sectionHTML + `{{end}}</body></html>
`))

// Write writes the page as dir/index.html.
func (p Page) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644)
}

// inputTable lists inputs with their checksums.
func inputTable(rows [][]string) Table {
	t := Table{Header: []string{"role", "name", "path", ">bytes", "sha256"}}
	t.Rows = rows
	return t
}

// OverlapPage is the page of an overlap report.
func OverlapPage(rep overlap.Report) Page {
	p := Page{Title: "leakaudit overlap"}
	t := Table{Header: []string{"split", "level", ">total", ">found in train", ">overlap %", ">unique found"}}
	var worst overlap.SplitLevel
	for _, s := range rep.Splits {
		t.Add(s.Name, s.Level, fmt.Sprint(s.Total), fmt.Sprint(s.Found), s.Rate.String(), fmt.Sprintf("%d/%d", s.UniqueFound, s.Unique))
		if s.Rate > worst.Rate {
			worst = s
		}
	}
	if worst.Found > 0 {
		p.Answer = fmt.Sprintf("Up to %s%% of a test split's labels are in the training corpora (%s at %s: %d of %d).", worst.Rate, worst.Name, worst.Level, worst.Found, worst.Total)
	} else {
		p.Answer = "No test label was found in the training corpora at the levels checked."
	}
	p.Sections = append(p.Sections, Section{Heading: "Test labels found in the training corpora", Tables: []Table{t},
		Text: []string{"Counted as the published audit counts: every test entry separately, the rate rounded as Python rounds it."}})
	if len(rep.Near) > 0 {
		p.Sections = append(p.Sections, Section{Heading: fmt.Sprintf("Near labels (within %d token edits)", rep.Near[0].K), Tables: []Table{nearTable(rep)},
			Text: []string{fmt.Sprintf("Token sequences of at least %d tokens; shorter items are counted, not looked for.", rep.Near[0].MinTokens), nearNote(rep)}})
	}
	var rows [][]string
	for _, tr := range rep.Train {
		rows = append(rows, []string{"train", tr.Name, tr.Path, fmt.Sprint(tr.Size), tr.SHA256})
	}
	for _, in := range rep.TestInputs {
		rows = append(rows, []string{"test", in.Name, in.Path, "", ""})
	}
	p.Sections = append(p.Sections, Section{Heading: "Inputs", Tables: []Table{inputTable(rows)}, Text: completeness(rep.Completeness.Incomplete)})
	return p
}

// inkNotes says, for each split, how many of its items had ink too small
// to verify a copy on the image alone, how many of its verified items are
// lone symbols verified without identical pixels, and how many lone
// symbols have candidates none of which is verified.
func inkNotes(sums []neardup.Summary) []string {
	var notes []string
	for _, s := range sums {
		if s.InkTooSmall > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d item(s) with ink too small to tell one formula from another (under two pen widths high, or strokes merged by the pen): not verified on the image alone", s.TestSplit, s.InkTooSmall))
		}
		if s.LoneSymbol > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of the %d verified item(s) are lone symbols verified without identical pixels (lone_symbol): %s; look at their pairs' images", s.TestSplit, s.LoneSymbol, s.Verified, imagehash.LoneSymbolNote))
		}
		if s.LoneUnverified > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d item(s) are lone symbols with training images within the radius, none verified (lone_unverified; --unverified lists them): %s", s.TestSplit, s.LoneUnverified, imagehash.LoneUnverifiedNote))
		}
	}
	return notes
}

// NearDupPage is the page of a near-duplicate report, with its evidence
// pairs side by side.
func NearDupPage(rep neardup.Report) (Page, error) {
	p := Page{Title: "leakaudit near-duplicates"}
	t := Table{Header: []string{"test split", ">items", ">with near-dup", ">verified copy", ">identical", ">different formulas", ">same formula, other notation"}}
	var verified int64
	for _, s := range rep.Summary {
		t.Add(s.TestSplit, fmt.Sprint(s.Items), fmt.Sprint(s.WithNearDuplicate), fmt.Sprint(s.Verified), fmt.Sprint(s.Identical), fmt.Sprint(s.LabelMismatch), fmt.Sprint(s.LabelNotation))
		verified += s.Verified
	}
	p.Answer = fmt.Sprintf("%d test image(s) are verified copies of training images (%s, distance ≤ %d).", verified, rep.Hash, rep.MaxDistance)
	sec := Section{Heading: "Test images with a near-copy among the training images", Tables: []Table{t},
		Text: append(inkNotes(rep.Summary), "Labels are compared by leakaudit's label check: two labels are different formulas only when they differ in tokens, in rendering key and in the symbols the TeX engine sets; a label in another notation (spacing, $…$, \\limits, \\left, \\mathrm, braces) is the same formula.", CardLegend)}
	for _, e := range rep.Evidence {
		var buf bytes.Buffer
		if err := png.Encode(&buf, nearDupCard(e, rep.Canvas)); err != nil {
			return p, err
		}
		sec.Images = append(sec.Images, PageImage{PNG: buf.Bytes(), Caption: pairCaption(e.Pair)})
	}
	p.Sections = append(p.Sections, sec)
	var rows [][]string
	for _, in := range rep.Inputs {
		rows = append(rows, []string{in.Role, in.Name, in.Path, fmt.Sprint(in.Size), in.SHA256})
	}
	p.Sections = append(p.Sections, Section{Heading: "Inputs", Tables: []Table{inputTable(rows)}, Text: completeness(rep.Completeness.Incomplete)})
	return p, nil
}

// DedupPage is the page of a clean release.
func DedupPage(res *dedup.Result) Page {
	p := Page{Title: "leakaudit clean release"}
	t := Table{Header: []string{"split", "format", ">items", ">kept", ">removed"}}
	for _, r := range dedup.Reasons {
		t.Header = append(t.Header, ">"+string(r))
	}
	var items, removed int64
	for _, s := range res.Releases {
		row := []string{s.Name, s.Format, fmt.Sprint(s.Items), fmt.Sprint(s.Kept), fmt.Sprint(s.Removed)}
		for _, r := range dedup.Reasons {
			row = append(row, fmt.Sprint(s.ByReason[r]))
		}
		t.Rows = append(t.Rows, row)
		items += s.Items
		removed += s.Removed
	}
	p.Answer = fmt.Sprintf("%d of %d items removed; the release without them is rewritten in its own format in the output folder.", removed, items)
	text := []string{"Every removed item is listed in removed.jsonl and removed.parquet with its reason and the items it matched."}
	for _, s := range res.Releases {
		if n := s.WithinNote(); n != "" {
			text = append(text, s.Name+": "+n+".")
		}
		if n := s.LoneSymbolNote(); n != "" {
			text = append(text, s.Name+": "+n+".")
		}
		if n := s.LoneUnverifiedNote(); n != "" {
			text = append(text, s.Name+": "+n+".")
		}
	}
	p.Sections = append(p.Sections, Section{Heading: "Releases", Tables: []Table{t}, Text: text})
	at := Table{Header: []string{"name", "path", "kind", ">labels", ">images"}}
	for _, a := range res.Against {
		at.Add(a.Name, a.Path, a.Kind, fmt.Sprint(a.Labels), fmt.Sprint(a.Images))
	}
	p.Sections = append(p.Sections, Section{Heading: "Against", Tables: []Table{at}})
	ex := Table{Header: []string{"release", "id", "reason", "level or distance", "matches"}}
	for _, r := range res.Removed[:min(len(res.Removed), 50)] {
		ld := r.Level
		if r.Distance != nil {
			ld = fmt.Sprint(*r.Distance)
		}
		ex.Add(r.Release, r.ID, string(r.Reason), ld, strings.Join(r.Matches, " "))
	}
	p.Sections = append(p.Sections, Section{Heading: fmt.Sprintf("Removed items (the first %d of %d)", len(ex.Rows), len(res.Removed)), Tables: []Table{ex}})
	if len(res.Evidence) > 0 {
		sec := Section{Heading: fmt.Sprintf("Removed items beside what they matched (%d, taken in turn from each reason)", len(res.Evidence)),
			Text: []string{"Left: the removed item; right: the first item it matched. " + CardLegend}}
		for _, e := range res.Evidence {
			card := PairCard(CardSide{Image: e.Item.Image, Label: e.Item.Label, HasLabel: e.Item.HasLabel},
				CardSide{Image: e.Match.Image, Label: e.Match.Label, HasLabel: e.Match.HasLabel}, imagehash.Stretch)
			var buf bytes.Buffer
			if err := png.Encode(&buf, card); err != nil {
				continue
			}
			sec.Images = append(sec.Images, PageImage{PNG: buf.Bytes(), Caption: removedCaption(e)})
		}
		p.Sections = append(p.Sections, sec)
	}
	var rows [][]string
	for _, in := range res.Inputs {
		rows = append(rows, []string{in.Role, in.Name, in.Path, fmt.Sprint(in.Size), in.SHA256})
	}
	p.Sections = append(p.Sections, Section{Heading: "Inputs", Tables: []Table{inputTable(rows)}, Text: completeness(res.Completeness.Incomplete)})
	return p
}

// removedCaption says why an item was removed and what it matched.
func removedCaption(e dedup.Evidence) string {
	r := e.Removed
	why := string(r.Reason)
	switch {
	case r.Reason == dedup.ReasonImage && r.Distance != nil:
		why = fmt.Sprintf("its image is a verified copy (pHash distance %d)", *r.Distance)
	case r.Reason == dedup.ReasonNear && r.Distance != nil:
		why = fmt.Sprintf("its label is within %d token edits", *r.Distance)
	case r.Reason == dedup.ReasonLabel:
		why = "its label is the same at the " + r.Level + " level"
	case r.Reason == dedup.ReasonWithin && r.Level == "image":
		why = "inside the release, its image is a copy"
	case r.Reason == dedup.ReasonWithin:
		why = "inside the release, its label repeats at the " + r.Level + " level"
	}
	label := func(s dedup.EvidenceSide) string {
		if !s.HasLabel {
			return "no label"
		}
		return fmt.Sprintf("%q", s.Label)
	}
	c := fmt.Sprintf("%s (left, %s) removed as %s: %s of %s (right, %s)", e.Item.Name, label(e.Item), r.Reason, why, e.Match.Name, label(e.Match))
	if r.LoneSymbol {
		c += "; but the removed image is a lone symbol, and " + imagehash.LoneSymbolNote + ": look at both images"
	}
	if e.Check != nil {
		c += "; labels: " + e.Check.Reason()
	}
	if e.Item.Image == nil || e.Match.Image == nil {
		c += "; an image is missing: the input has none for it"
	}
	return c
}

func completeness(inc []dataset.Shortfall) []string {
	var out []string
	for _, s := range inc {
		out = append(out, "Read only in part: "+s.String())
	}
	return out
}
