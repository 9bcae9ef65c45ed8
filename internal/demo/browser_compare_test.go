package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/compare"
)

// TestCompareReportInBrowser renders the comparison demo's report.html in
// headless Chromium and reads the leaderboard of every split back from
// the DOM: each row's model, ranks and ExpRates, which rows are marked as
// a flip (and drawn in red), and the sentence must be those of
// comparison.json. It skips when no Chromium is installed.
func TestCompareReportInBrowser(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skip("no Chromium found (apt-get install chromium); the comparison report is not checked in a browser")
	}
	dir := t.TempDir()
	var w bytes.Buffer
	if _, err := RunCompare(context.Background(), dir, "test", &w); err != nil {
		t.Fatalf("%v\n%s", err, w.String())
	}
	page := "file://" + filepath.Join(dir, "compare", "report.html")
	dom := runHeadless(t, browser, dir, "--virtual-time-budget=5000", "--dump-dom", page)
	checkLeaderboards(t, string(dom), filepath.Join(dir, "compare", "comparison.json"))
}

// checkLeaderboards compares the leaderboards as the browser rendered
// them, cell by cell, with comparison.json.
func checkLeaderboards(t *testing.T, dom, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c compare.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`(?s)<section class="leaderboard" data-split="([^"]*)">(.*?)</section>`)
	sentence := regexp.MustCompile(`(?s)<p class="sentence ([a-z_]+)" data-k="sentence">(.*?)</p>`)
	row := regexp.MustCompile(`(?s)<tr( class="flip")?>(.*?)</tr>`)
	cell := regexp.MustCompile(`(?s)<td[^>]*data-k="([a-z0-9_]+)"[^>]*>(.*?)</td>`)
	tags := regexp.MustCompile(`<[^>]+>`)
	text := func(s string) string { return html.UnescapeString(strings.TrimSpace(tags.ReplaceAllString(s, ""))) }
	secs := section.FindAllStringSubmatch(dom, -1)
	if len(secs) != len(c.Leaderboards) || len(secs) == 0 {
		t.Fatalf("%d leaderboards on the page, %d in comparison.json", len(secs), len(c.Leaderboards))
	}
	flips := 0
	for i, sec := range secs {
		lb := c.Leaderboards[i]
		if html.UnescapeString(sec[1]) != lb.Split {
			t.Errorf("leaderboard %d: split %q on the page, %q in comparison.json", i, sec[1], lb.Split)
		}
		if m := sentence.FindStringSubmatch(sec[2]); m == nil || m[1] != lb.Class || text(m[2]) != lb.Text {
			t.Errorf("%s: sentence on the page %q, comparison.json %s %q", lb.Split, m, lb.Class, lb.Text)
		}
		var rows [][]string
		for _, r := range row.FindAllStringSubmatch(sec[2], -1) {
			if strings.Contains(r[2], "<th") {
				continue
			}
			rows = append(rows, r)
		}
		if len(rows) != len(lb.Rows) {
			t.Fatalf("%s: %d rows on the page, %d in comparison.json", lb.Split, len(rows), len(lb.Rows))
		}
		for j, r := range rows {
			got := map[string]string{}
			for _, m := range cell.FindAllStringSubmatch(r[2], -1) {
				got[m[1]] = text(m[2])
			}
			want := lb.Rows[j]
			if !strings.HasPrefix(got["model"], want.Model) {
				t.Errorf("%s row %d: model %q on the page, %q in comparison.json", lb.Split, j, got["model"], want.Model)
			}
			for k, v := range map[string]string{"full_rank": fmt.Sprint(want.FullRank), "clean_rank": fmt.Sprint(want.CleanRank),
				"full": want.Full.String(), "clean": want.Clean.String(), "text": want.Text.ExpRate.String(), "le1": want.Text.Le1.String(), "le2": want.Text.Le2.String()} {
				if got[k] != v {
					t.Errorf("%s row %d (%s): %s %q on the page, %q in comparison.json", lb.Split, j, want.Model, k, got[k], v)
				}
			}
			if (r[1] != "") != want.Flip {
				t.Errorf("%s row %d (%s): flip on the page %v, in comparison.json %v", lb.Split, j, want.Model, r[1] != "", want.Flip)
			}
			if want.Flip {
				flips++
			}
			t.Logf("%s: %s rank %s (%s), clean rank %s (%s), flip %v", lb.Split, got["model"], got["full_rank"], got["full"], got["clean_rank"], got["clean"], want.Flip)
		}
	}
	if flips == 0 {
		t.Error("no row of the demo's leaderboard is marked as a flip")
	}
	if !strings.Contains(dom, "tr.flip td{color:#c0392b") {
		t.Error("flip rows are not styled red")
	}
}
