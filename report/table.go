package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is a simple text table with a header row. Columns whose header
// starts with '>' are right-aligned (the '>' is not printed).
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write renders the table with two spaces between columns.
func (t *Table) Write(w io.Writer) error {
	n := len(t.Header)
	right := make([]bool, n)
	head := make([]string, n)
	width := make([]int, n)
	for i, h := range t.Header {
		if strings.HasPrefix(h, ">") {
			right[i], h = true, h[1:]
		}
		head[i] = h
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.Rows {
		for i := 0; i < n && i < len(r); i++ {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	line := func(cells []string) error {
		var b strings.Builder
		for i := 0; i < n; i++ {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if right[i] {
				b.WriteString(pad + c)
			} else if i < n-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		_, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		return err
	}
	if err := line(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if err := line(r); err != nil {
			return err
		}
	}
	return nil
}

// Markdown renders the table as a GitHub-flavoured Markdown table.
func (t *Table) Markdown() string {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + esc(strings.TrimPrefix(h, ">")) + " |")
	}
	b.WriteString("\n|")
	for _, h := range t.Header {
		if strings.HasPrefix(h, ">") {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
