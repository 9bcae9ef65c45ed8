package dedup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/parquet-go/parquet-go"
)

// writeManifest writes removed.jsonl, removed.parquet, summary.json and
// summary.md into dir, repeats.jsonl when a split had the image rule
// within it, and unverified.jsonl when images were compared with against
// images.
func writeManifest(dir string, res *Result) error {
	if err := writeJSONL(filepath.Join(dir, "removed.jsonl"), res.Removed); err != nil {
		return err
	}
	if err := writeRemovedParquet(filepath.Join(dir, "removed.parquet"), res.Removed); err != nil {
		return err
	}
	if res.imageWithin() {
		if err := writeJSONL(filepath.Join(dir, "repeats.jsonl"), res.Repeats); err != nil {
			return err
		}
	}
	if res.imagesAgainst() {
		if err := writeJSONL(filepath.Join(dir, "unverified.jsonl"), res.Unverified); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.md"), []byte(Markdown(res)), 0o644)
}

// WithinNote says how the split's duplicates inside the release were
// decided (WithinRule), as summary.md and the report page say it; "" without
// Within.
func (s *ReleaseSummary) WithinNote() string {
	switch s.WithinRule {
	case withinImages:
		return fmt.Sprintf("duplicates inside the release decided by image: an item goes when its image is a verified copy of an earlier item's; %d item(s) repeat an earlier item's label with another image (other samples of the same formula), kept and listed in repeats.jsonl (--within-labels removes them)", s.LabelRepeats)
	case withinBoth:
		return "duplicates inside the release decided by image and, with --within-labels, by repeated label"
	case withinLabels:
		return "duplicates inside the release decided by repeated label: the split has no images"
	case withinImageOnly:
		return "duplicates inside the release decided by image: an item goes when its image is a verified copy of an earlier item's (the split has no labels)"
	}
	return ""
}

// LoneSymbolNote is the split's note on its removals marked
// Removed.LoneSymbol, as summary.md and the report page give it; "" when
// it has none.
func (s *ReleaseSummary) LoneSymbolNote() string {
	if s.LoneSymbol == 0 {
		return ""
	}
	return fmt.Sprintf("%d item(s) removed as image copies are lone symbols without identical pixels (lone_symbol in removed.jsonl): %s; look at their images and what they matched before publishing the release", s.LoneSymbol, imagehash.LoneSymbolNote)
}

// LoneUnverifiedNote is the split's note on its kept lone symbols with
// unverified candidates (LoneUnverified), as summary.md and the report
// page give it; "" when it has none.
func (s *ReleaseSummary) LoneUnverifiedNote() string {
	if s.LoneUnverified == 0 {
		return ""
	}
	return fmt.Sprintf("%d kept item(s) are lone symbols with against images within the radius, none verified as a copy (listed with those images in unverified.jsonl): %s", s.LoneUnverified, imagehash.LoneUnverifiedNote)
}

// imagesAgainst says whether images were compared with against images:
// some against input gave images, and Images was set.
func (res *Result) imagesAgainst() bool {
	if !res.Images {
		return false
	}
	for _, a := range res.Against {
		if a.Images > 0 {
			return true
		}
	}
	return false
}

// imageWithin says whether some split's duplicates were decided by image.
func (res *Result) imageWithin() bool {
	for _, s := range res.Releases {
		if strings.HasPrefix(s.WithinRule, "image") {
			return true
		}
	}
	return false
}

// writeJSONL writes rows to a new file at path, one JSON object a line.
func writeJSONL[T any](path string, rows []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeRemovedParquet(path string, rows []Removed) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[Removed](f, parquet.Compression(&parquet.Zstd))
	if len(rows) > 0 {
		if _, err := w.Write(rows); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Markdown renders a result as summary.md: what was cleaned against what,
// and what was removed from each split by reason.
func Markdown(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Clean release\n\n")
	var how []string
	how = append(how, "labels at "+strings.Join(res.Levels, ", "))
	if res.Images {
		how = append(how, fmt.Sprintf("images (verified copies only, found as neardup finds them: the pHash within %d bits, the edge keys, the cut variants, the small-ink keys)", res.MaxDistance))
	}
	if res.Near > 0 {
		how = append(how, fmt.Sprintf("near labels (≤ %d token edits, sequences of ≥ %d tokens)", res.Near, res.NearMin))
	}
	if res.Within {
		how = append(how, "duplicates inside the release (the first copy stays)")
	}
	if res.WithinLabels {
		how = append(how, "repeated labels inside the release (--within-labels)")
	}
	fmt.Fprintf(&b, "Compared: %s.\n\n", strings.Join(how, "; "))
	if len(res.Against) > 0 {
		fmt.Fprintf(&b, "## Against\n\n| name | path | kind | labels | images |\n|---|---|---|---:|---:|\n")
		for _, a := range res.Against {
			fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %d |\n", a.Name, a.Path, a.Kind, a.Labels, a.Images)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "## Releases\n\n| split | format | items | kept | removed |")
	for _, r := range Reasons {
		fmt.Fprintf(&b, " %s |", r)
	}
	b.WriteString("\n|---|---|---:|---:|---:|")
	for range Reasons {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, s := range res.Releases {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d |", s.Name, s.Format, s.Items, s.Kept, s.Removed)
		for _, r := range Reasons {
			fmt.Fprintf(&b, " %d |", s.ByReason[r])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, s := range res.Releases {
		var notes []string
		if s.Self != "" {
			notes = append(notes, fmt.Sprintf("same content as against input %s, not compared with it", s.Self))
		}
		if s.ImagesNote != "" {
			notes = append(notes, "images not compared: "+s.ImagesNote)
		}
		if n := s.WithinNote(); n != "" {
			notes = append(notes, n)
		}
		if n := s.LoneSymbolNote(); n != "" {
			notes = append(notes, n)
		}
		if n := s.LoneUnverifiedNote(); n != "" {
			notes = append(notes, n)
		}
		if len(s.ByLevel) > 0 {
			var parts []string
			for _, l := range res.Levels {
				if n := s.ByLevel[l]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s %d", l, n))
				}
			}
			notes = append(notes, "label removals by level: "+strings.Join(parts, ", "))
		}
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s: %s\n", s.Name, n)
		}
	}
	if res.Near > 0 {
		fmt.Fprintf(&b, "- near matches are not looked for in sequences shorter than %d tokens: short formulas collide by chance\n", res.NearMin)
		if c := res.NearSelf; c != nil {
			fmt.Fprintf(&b, "- for scale: %d of %d against items (%.2f%%) have another, different against item within %d token edits (shared templates, not a chance level: overlap --near-control measures one)\n", c.Matched, c.Items, 100*c.Rate, res.Near)
		}
	}
	if !res.Complete {
		b.WriteString("\n**Incomplete input**: ")
		var parts []string
		for _, s := range res.Incomplete {
			parts = append(parts, s.String())
		}
		b.WriteString(strings.Join(parts, "; ") + "\n")
	}
	b.WriteString("\nEvery removed item is listed in `removed.jsonl` and `removed.parquet` with its reason and the items it matched.\n")
	return b.String()
}
