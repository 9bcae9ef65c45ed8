package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
)

// writeJSONFile writes v to path as indented JSON, without escaping HTML
// characters.
func writeJSONFile(path string, v any) error {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, js.Bytes(), 0o644)
}

// writeFigures writes each figure's PNG into dir under its file name.
func writeFigures(dir string, figs []figure) error {
	for _, fg := range figs {
		if err := os.WriteFile(filepath.Join(dir, fg.File), fg.PNG, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdownHTML writes a report's report.md (md) and report.html
// (drawn by html) into dir.
func writeMarkdownHTML(dir, md string, html func(b *bytes.Buffer) error) error {
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md), 0o644); err != nil {
		return err
	}
	var h bytes.Buffer
	if err := html(&h); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.html"), h.Bytes(), 0o644)
}
