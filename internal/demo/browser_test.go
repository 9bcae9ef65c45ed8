package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// findBrowser returns a headless-capable Chromium, or "".
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runHeadless runs browser headless with args (its profile under dir,
// at most a minute) and returns its output.
func runHeadless(t *testing.T, browser, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(dir, "profile")}
	out, err := exec.CommandContext(ctx, browser, append(base, args...)...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", browser, args, err)
	}
	return out
}

// TestReportInBrowser opens the demo audit's report.html in a real
// headless browser: the page must load with its tables and inlined
// figures decoded, and render to a screenshot. It skips when no Chromium
// is installed (Debian: apt-get install chromium).
func TestReportInBrowser(t *testing.T) {
	browser := findBrowser()
	if browser == "" {
		t.Skip("no Chromium found (apt-get install chromium); the HTML report is not checked in a browser")
	}
	dir := t.TempDir()
	var w bytes.Buffer
	if _, err := RunModelAudit(context.Background(), dir, "test", &w); err != nil {
		t.Fatalf("%v\n%s", err, w.String())
	}
	page := "file://" + filepath.Join(dir, "audit", "report.html")
	run := func(args ...string) []byte { return runHeadless(t, browser, dir, args...) }
	// The DOM after load: a script counts the figures the browser decoded.
	dom := string(run("--virtual-time-budget=5000", "--dump-dom", page))
	for _, want := range []string{`id="title"`, `id="splits"`, "contamination_gap", "error_label_memorization", "demo-test"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, "<img"); n < 2 {
		t.Errorf("rendered DOM has %d images, want the inlined figures", n)
	}
	checkVerdicts(t, dom, filepath.Join(dir, "audit", "findings.json"))
	shot := filepath.Join(dir, "report.png")
	run("--window-size=1200,2400", "--screenshot="+shot, page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	// Not blank: the page draws text, tables and figures.
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if dark < 500 {
		t.Errorf("the screenshot is nearly blank (%d dark samples)", dark)
	}
	if os.Getenv("LEAKAUDIT_KEEP_SCREENSHOT") != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(os.Getenv("LEAKAUDIT_KEEP_SCREENSHOT"), data, 0o644)
	}
	t.Logf("report rendered in %s: %d images in the DOM, screenshot %dx%d with %d dark samples", filepath.Base(browser), strings.Count(dom, "<img"), b.Dx(), b.Dy(), dark)
}

// checkVerdicts compares the first screen's verdict table, as the browser
// rendered it, cell by cell with findings.json.
func checkVerdicts(t *testing.T, dom, findings string) {
	t.Helper()
	b, err := os.ReadFile(findings)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Verdicts []struct {
			Split          string
			Items          int
			Found          int64
			Share          float64
			NearDuplicates int `json:"near_duplicates"`
			Text           string
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	start := strings.Index(dom, `id="verdicts"`)
	if start < 0 || len(f.Verdicts) == 0 {
		t.Fatalf("no verdict table in the page (%d verdicts in findings.json)", len(f.Verdicts))
	}
	table := dom[start : start+strings.Index(dom[start:], "</table>")]
	cell := regexp.MustCompile(`(?s)<td[^>]*data-k="([a-z_]+)"[^>]*>(.*?)</td>`)
	tags := regexp.MustCompile(`<[^>]+>`)
	rows := strings.Split(table, "<tr")[2:] // the header row first
	if len(rows) != len(f.Verdicts) {
		t.Fatalf("%d verdict rows on the page, %d in findings.json", len(rows), len(f.Verdicts))
	}
	for i, row := range rows {
		got := map[string]string{}
		for _, m := range cell.FindAllStringSubmatch(row, -1) {
			got[m[1]] = html.UnescapeString(tags.ReplaceAllString(m[2], ""))
		}
		v := f.Verdicts[i]
		want := map[string]string{"split": v.Split, "items": fmt.Sprint(v.Items), "near_duplicates": fmt.Sprint(v.NearDuplicates), "text": v.Text}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("verdict row %d, %s: page %q, findings.json %q", i, k, got[k], w)
			}
		}
		if !strings.HasPrefix(got["found"], fmt.Sprintf("%.2f%% (%d) at ", v.Share, v.Found)) {
			t.Errorf("verdict row %d, found: page %q, findings.json %.2f%% (%d)", i, got["found"], v.Share, v.Found)
		}
		t.Logf("verdict %s: %s", v.Split, got["text"])
	}
}
