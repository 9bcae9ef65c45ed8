package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/leakaudit/leakaudit/internal/shareddata"
)

// cliResult is what one in-process run of the command line gave.
type cliResult struct {
	code           int
	stdout, stderr string
}

// cliRun runs the command line in process, as main does.
func cliRun(t *testing.T, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runCLI(args, &out, &errOut)
	return cliResult{code, out.String(), errOut.String()}
}

// cliErrorObject is the JSON error object every command prints on stdout
// under --json when it fails.
type cliErrorObject struct {
	Error    *string `json:"error"`
	Complete *bool   `json:"complete"`
	ExitCode *int    `json:"exit_code"`
	Kind     string  `json:"kind"`
	Command  string  `json:"command"`
}

// checkFailure asserts the run exited with code, printed one line
// "leakaudit: …" on stderr containing want, and, under --json, one error
// object on stdout with the same message and code.
func checkFailure(t *testing.T, r cliResult, code int, want string, asJSON bool) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	last := lastLine(r.stderr)
	if !strings.HasPrefix(last, "leakaudit: ") || !strings.Contains(last, want) {
		t.Errorf("stderr's last line %q, want \"leakaudit: …%s…\"", last, want)
	}
	if !asJSON {
		return
	}
	var e cliErrorObject
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("stdout is not the JSON error object (%v): %q", err, r.stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than the error object: %q", r.stdout)
	}
	if e.Error == nil || e.Complete == nil || e.ExitCode == nil {
		t.Fatalf("error object lacks error, complete or exit_code: %s", r.stdout)
	}
	if *e.ExitCode != code || *e.Complete || !strings.Contains(*e.Error, want) || "leakaudit: "+*e.Error != last {
		t.Errorf("error object %s, want exit_code %d, complete false and the stderr line's error %q", r.stdout, code, last)
	}
	if wantKind := errorKind(code); e.Kind != wantKind {
		t.Errorf("kind %q, want %q", e.Kind, wantKind)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// hostileFiles writes a folder of small inputs the tests share.
func hostileFiles(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	for name, body := range map[string]string{
		"train.json":  `["x ^ { 2 }", "y"]`,
		"test.json":   `["x ^ { 2 }", "z"]`,
		"empty.json":  "",
		"labels.json": `[{"img_id": "a", "gt": "x ^ { 2 }"}, {"img_id": "b", "gt": "y"}, {"img_id": "c", "gt": "z"}]`,
		// Three of four items without a prediction (the first has one,
		// so that the reader finds the field).
		"mostly_missing.json": `[{"img_id": "a", "gt": "x", "pred": "x"}, {"img_id": "b", "gt": "y"}, {"img_id": "c", "gt": "z"}, {"img_id": "d", "gt": "w"}]`,
		"nolabel.jsonl":       "{\"a\": \"x\"}\n{\"a\": \"y\"}\n",
		"preds.json":          `[{"img_id": "a", "gt": "x ^ { 2 }", "pred": "x^{2}"}, {"img_id": "b", "gt": "z", "pred": "z"}]`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeAuditConfig writes an audit configuration whose split "s" reads
// predictions from preds, with extra top-level lines.
func writeAuditConfig(t *testing.T, dir, preds, extra string) string {
	t.Helper()
	p := filepath.Join(dir, "audit.yaml")
	body := fmt.Sprintf("name: t\ndb: %s\ntrain:\n  - {name: t, path: train.json}\nsplits:\n  - {name: s, role: test, predictions: %s}\n%s",
		filepath.Join(dir, "db"), preds, extra)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileExitCodes: every kind of failure exits with its documented
// status, one line on stderr and, under --json, the error object on
// stdout.
func TestHostileExitCodes(t *testing.T) {
	dir := hostileFiles(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"overlp"}, exitUsage, `unknown command "overlp" for "leakaudit"; Did you mean this? overlap`},
		{"unknown flag", []string{"overlap", "--tset", p("test.json")}, exitUsage, "unknown flag: --tset"},
		{"not a number", []string{"overlap", "--workers", "many"}, exitUsage, `invalid argument "many" for "--workers"`},
		{"missing flags", []string{"overlap", "--train", p("train.json")}, exitUsage, "give at least one --train and one --test"},
		{"required flag", []string{"dedup", "--release", p("train.json")}, exitUsage, `required flag(s) "out" not set`},
		{"extra argument", []string{"score", "stray"}, exitUsage, `unknown command "stray"`},
		{"no argument", []string{"imege"}, exitUsage, "accepts 2 arg(s), received 0"},
		{"unknown level", []string{"overlap", "--train", p("train.json"), "--test", p("test.json"), "--level", "wss"}, exitUsage, `--level: unknown level "wss"`},
		{"unknown format", []string{"overlap", "--train", p("train.json"), "--test", p("test.json"), "--format", "jsn"}, exitUsage, `--format: unknown format "jsn"`},
		{"unknown profile", []string{"score", "--input", p("preds.json"), "--profile", "nope"}, exitUsage, `unknown --profile "nope"`},
		{"unknown hash", []string{"neardup", "--train", dir, "--test", dir, "--hash", "md5"}, exitUsage, "--hash"},
		{"unknown canvas", []string{"fingerprint", "--images", "--input", dir, "--out", out, "--canvas", "round"}, exitUsage, "--canvas must be stretch or aspect"},
		{"missing input", []string{"score", "--input", p("nothing.json")}, exitError, "nothing.json"},
		{"missing config", []string{"audit", "--config", p("nothing.yaml"), "--out", out}, exitError, "nothing.yaml"},
		{"missing training corpus", []string{"overlap", "--train", p("nothing.json"), "--test", p("test.json"), "--db", p("db")}, exitError, "nothing.json"},
		{"missing images", []string{"neardup", "--train", p("nothing"), "--test", p("nothing"), "--db", p("db2")}, exitError, "nothing"},
		{"missing fingerprint input", []string{"fingerprint", "--input", p("nothing.json"), "--out", p("fp.parquet")}, exitError, "nothing.json"},
		{"missing release", []string{"dedup", "--release", p("nothing.json"), "--against", p("test.json"), "--out", out}, exitError, "nothing.json"},
		{"missing image", []string{"imege", p("nothing.png"), p("nothing.png")}, exitError, "nothing.png"},
		{"unknown metric", []string{"score", "--input", p("preds.json"), "--metrics", "cdm,bleu"}, exitUsage, `--metrics: unknown metric "bleu"`},
		{"texbleu without embeddings", []string{"score", "--input", p("preds.json"), "--metrics", "texbleu"}, exitUsage, "--metrics texbleu needs --texbleu-embeddings"},
		{"no label field", []string{"score", "--input", p("nolabel.jsonl")}, exitError, "no items to score: all 2 record(s) (read as jsonl) were skipped (no label field: 2); the label field was looked for as"},
		{"label list as predictions", []string{"score", "--input", p("labels.json")}, exitError, "none of its 3 items has a prediction field"},
		{"predictions mostly missing", []string{"score", "--input", p("mostly_missing.json")}, exitError, "3 of its 4 items have no prediction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFailure(t, cliRun(t, tc.args...), tc.code, tc.want, false)
			args := append(append([]string{}, tc.args...), "--json")
			checkFailure(t, cliRun(t, args...), tc.code, tc.want, true)
		})
	}
	// A command without --json still answers a --json with the object.
	checkFailure(t, cliRun(t, "render", "x", "-o", p("x.png"), "--json"), exitUsage, "unknown flag: --json", true)
	// Nothing on stdout without --json.
	if r := cliRun(t, "score", "--input", p("nothing.json")); r.stdout != "" {
		t.Errorf("stdout without --json: %q", r.stdout)
	}
}

// TestHostileOverlapUnreadableSplit: a test split that cannot be read is
// an error whose message gives the reason (it used to say "see
// test_inputs"); under --json the document keeps the other results and
// carries the error object's fields.
func TestHostileOverlapUnreadableSplit(t *testing.T) {
	dir := hostileFiles(t)
	// An empty file is read (as an empty input, exit 3); a binary file
	// is not a label file at all.
	if err := os.WriteFile(filepath.Join(dir, "binary.bin"), []byte("\x00\x01\x02garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"overlap", "--train", filepath.Join(dir, "train.json"), "--test", filepath.Join(dir, "test.json"),
		"--test", filepath.Join(dir, "binary.bin"), "--db", filepath.Join(dir, "db")}
	r := cliRun(t, args...)
	if r.code != exitError || !strings.Contains(r.stderr, "1 test split(s) could not be read: binary (") || strings.Contains(r.stderr, "see test_inputs") {
		t.Errorf("exit %d, stderr %q: want exit 1 and the reason", r.code, r.stderr)
	}
	r = cliRun(t, append(args, "--json")...)
	var doc struct {
		cliErrorObject
		Splits []struct {
			Name  string `json:"name"`
			Found int    `json:"found"`
		} `json:"splits"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if r.code != exitError || doc.Error == nil || !strings.Contains(*doc.Error, "binary.bin") || doc.Complete == nil || *doc.Complete ||
		doc.ExitCode == nil || *doc.ExitCode != exitError || doc.Kind != "error" || "leakaudit: "+*doc.Error != lastLine(r.stderr) {
		t.Errorf("exit %d, document %s", r.code, r.stdout)
	}
	if len(doc.Splits) == 0 || doc.Splits[0].Name != "test" || doc.Splits[0].Found != 1 {
		t.Errorf("the readable split's results are gone: %+v", doc.Splits)
	}
}

// TestHostileAuditPredictions: an audit split given a label list, or a
// file in which most items have no prediction, as predictions: is an
// error naming the split and the key (it used to be scored 0% with a
// false cdm_reversal, exit 0), as score refuses the same files.
func TestHostileAuditPredictions(t *testing.T) {
	dir := hostileFiles(t)
	out := filepath.Join(dir, "report")
	for _, tc := range []struct{ preds, want string }{
		{"labels.json", "split s: predictions: " + filepath.Join(dir, "labels.json") + ": none of its 3 items has a prediction field"},
		{"mostly_missing.json", "split s: predictions: " + filepath.Join(dir, "mostly_missing.json") + ": 3 of its 4 items have no prediction"},
	} {
		cfg := writeAuditConfig(t, dir, tc.preds, "")
		checkFailure(t, cliRun(t, "audit", "--config", cfg, "--out", out, "--json"), exitError, tc.want, true)
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a report was written", tc.preds)
		}
	}
	cfg := writeAuditConfig(t, dir, "preds.json", "")
	if r := cliRun(t, "audit", "--config", cfg, "--out", out, "--json"); r.code != exitOK {
		t.Errorf("predictions refused: exit %d, %s", r.code, r.stderr)
	}
}

// TestHostileAuditConfigValues: a configuration value out of its range is
// a usage error naming the file, the line and the key.
func TestHostileAuditConfigValues(t *testing.T) {
	dir := hostileFiles(t)
	for _, tc := range []struct{ extra, want string }{
		{"alpha: -1\n", "line 7: alpha: -1 is out of range"},
		{"alpha: 7\n", "line 7: alpha: 7 is out of range"},
		{"alpha: 0\n", "line 7: alpha: 0 is out of range"},
		{"no_gap_delta: -5\n", "line 7: no_gap_delta: -5 is out of range"},
		{"max_label_bytes: -1\n", "line 7: max_label_bytes: -1 is out of range"},
		{"levels: []\n", "line 7: levels: an empty list"},
	} {
		cfg := writeAuditConfig(t, dir, "preds.json", tc.extra)
		checkFailure(t, cliRun(t, "audit", "--config", cfg, "--out", filepath.Join(dir, "r"), "--json"), exitUsage, cfg+": "+tc.want, true)
	}
}

// TestHostileDuplicateNames: two inputs of one flag with one name are a
// usage error naming the flag.
func TestHostileDuplicateNames(t *testing.T) {
	dir := hostileFiles(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "test.json"), []byte(`["a"]`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"overlap", "--train", p("train.json"), "--test", "a=" + p("test.json"), "--test", "a=" + p("preds.json")}, `--test: two inputs are named "a"`},
		{[]string{"overlap", "--train", p("train.json"), "--test", p("test.json"), "--test", filepath.Join(sub, "test.json")}, `--test: two inputs are named "test"`},
		{[]string{"overlap", "--train", "t=" + p("train.json"), "--train", "t=" + p("test.json"), "--test", p("test.json")}, `--train: two inputs are named "t"`},
		{[]string{"neardup", "--train", dir, "--test", "x=" + dir, "--test", "x=" + sub}, `--test: two inputs are named "x"`},
		{[]string{"fingerprint", "--input", "x=" + p("train.json"), "--input", "x=" + p("test.json"), "--out", p("fp.parquet")}, `--input: two inputs are named "x"`},
		{[]string{"dedup", "--release", p("train.json"), "--against", "x=" + p("test.json"), "--against", "x=" + p("preds.json"), "--out", p("clean")}, `--against: two inputs are named "x"`},
	} {
		checkFailure(t, cliRun(t, append(tc.args, "--json")...), exitUsage, tc.want, true)
	}
	if _, err := os.Stat(p("fp.parquet")); err == nil {
		t.Error("fingerprint wrote its output")
	}
}

// TestHostileNumericFlags: every numeric flag of every command is
// registered with its range, and a value outside it (the issue's
// --workers -5, --max-ids -1, --max-distance -1, --partitions -1,
// --dpi 0, and every other) is a usage error naming the flag and the
// range, before anything is read.
func TestHostileNumericFlags(t *testing.T) {
	hostileFiles(t) // the cache folder
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Name == "version" || f.Value.Type() == "bool" {
				return
			}
			var bad []string
			switch v := f.Value.(type) {
			case *intRange[int]:
				bad = intOutside(int64(v.lo), int64(v.hi), math.MaxInt, v.odd)
				if err := v.Set(fmt.Sprint(v.lo)); err != nil { // the bound itself is accepted
					t.Errorf("%s --%s %d: %v", c.CommandPath(), f.Name, v.lo, err)
				}
			case *intRange[int64]:
				bad = intOutside(int64(v.lo), int64(v.hi), math.MaxInt64, v.odd)
				if err := v.Set(fmt.Sprint(v.hi)); err != nil {
					t.Errorf("%s --%s %d: %v", c.CommandPath(), f.Name, v.hi, err)
				}
			case *floatRange:
				bad = []string{fmt.Sprint(v.lo - 1), fmt.Sprint(v.hi * 2), "NaN", "+Inf", "0x"}
			default:
				switch f.Value.Type() {
				case "string", "stringArray", "stringSlice":
					return
				}
				t.Errorf("%s --%s (%s) is registered without a range", c.CommandPath(), f.Name, f.Value.Type())
				return
			}
			n++
			path := strings.Fields(c.CommandPath())[1:]
			for _, v := range bad {
				r := cliRun(t, append(path, "--"+f.Name+"="+v, "--json")...)
				checkFailure(t, r, exitUsage, fmt.Sprintf("invalid argument %q for \"--%s\" flag", v, f.Name), true)
				if !strings.Contains(r.stderr, "want ") {
					t.Errorf("%v: the error does not say what is allowed: %s", path, r.stderr)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if n < 30 {
		t.Errorf("only %d numeric flags found", n)
	}
	// The cases, by name.
	for _, args := range [][]string{
		{"overlap", "--workers", "-5"}, {"overlap", "--max-ids", "-1"}, {"neardup", "--max-distance", "-1"},
		{"fingerprint", "--partitions", "-1"}, {"render", "x", "-o", "x.png", "--dpi", "0"}, {"dedup", "--near-min", "0"},
		{"imege", "--context", "30", "a", "b"},
	} {
		r := cliRun(t, append(args, "--json")...)
		checkFailure(t, r, exitUsage, "out of range; want", true)
	}
}

// intOutside returns values just outside [lo, hi] (hi == top: no upper
// bound), and an even one inside when only odd values are allowed.
func intOutside(lo, hi, top int64, odd bool) []string {
	bad := []string{fmt.Sprint(lo - 1), "x"}
	if hi != top {
		bad = append(bad, fmt.Sprint(hi+1))
	}
	if odd {
		bad = append(bad, fmt.Sprint(lo+1))
	}
	return bad
}

// TestHostileInternalError: a panic in a command is recovered: exit 4, one
// line on stderr (the stack only with LEAKAUDIT_TRACEBACK), and the error
// object under --json.
func TestHostileInternalError(t *testing.T) {
	root := func() *cobra.Command {
		r := newRoot()
		boom := &cobra.Command{Use: "boom", RunE: func(_ *cobra.Command, args []string) error {
			var s []int
			s[len(args)]++ // out of range: a runtime panic
			return nil
		}}
		boom.Flags().Bool("json", false, "")
		r.AddCommand(boom)
		return r
	}
	run := func(args ...string) cliResult {
		var out, errOut bytes.Buffer
		code := runRoot(root(), args, &out, &errOut)
		return cliResult{code, out.String(), errOut.String()}
	}
	t.Setenv(tracebackEnv, "")
	r := run("boom")
	checkFailure(t, r, exitInternal, "internal error: runtime error: index out of range [0] with length 0 (please report)", false)
	if strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr is not one line: %q", r.stderr)
	}
	checkFailure(t, run("boom", "--json"), exitInternal, "internal error: runtime error: index out of range [0] with length 0", true)
	t.Setenv(tracebackEnv, "1")
	if r := run("boom"); r.code != exitInternal || !strings.Contains(r.stderr, "goroutine ") || !strings.Contains(r.stderr, "hostile_cli_test.go") {
		t.Errorf("%s=1: exit %d, no stack trace: %q", tracebackEnv, r.code, r.stderr)
	}
}

// TestHostileVersionFlag: --version prints what the version command does.
func TestHostileVersionFlag(t *testing.T) {
	want := cliRun(t, "version")
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		if r := cliRun(t, args...); r.code != exitOK || r.stdout != want.stdout || r.stdout != versionLine()+"\n" {
			t.Errorf("%v: exit %d, %q; want %q", args, r.code, r.stdout, want.stdout)
		}
	}
}

// TestHostileHelpListsExitCodes: the root help lists every exit status.
func TestHostileHelpListsExitCodes(t *testing.T) {
	r := cliRun(t, "--help")
	for _, want := range []string{"  0  every input", "  1  an error", "  2  a usage error", "  3  the command ran", "  4  an internal error", `"exit_code": N`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestHostileRealAudit: the cases on the real TexTeller data, the
// README's audit with crohme2023 splits: the test split's label list
// given as predictions (it used to report ExpRate@CDM 0.00% and a false
// cdm_reversal, exit 0), the same predictions with 60% of them removed,
// and alpha: -1 (which used to remove both split_inversion findings).
// Each is refused before anything is scored.
func TestHostileRealAudit(t *testing.T) {
	data := shareddata.Dir(t)
	labels := shareddata.Path(t, "labels/crohme2023_test_captions.json")
	preds := shareddata.Path(t, "predictions/texteller/crohme2023_test.json")
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	// The predictions with the last 60% of them removed.
	var items []map[string]any
	if err := json.Unmarshal(must(os.ReadFile(preds)), &items); err != nil {
		t.Fatal(err)
	}
	cut := len(items) - len(items)*6/10
	for _, it := range items[cut:] {
		delete(it, "pred")
	}
	partial := filepath.Join(dir, "partial.json")
	os.WriteFile(partial, must(json.Marshal(items)), 0o644)
	config := func(name, test, extra string) string {
		p := filepath.Join(dir, name)
		body := fmt.Sprintf(`name: TexTeller_en audit
train:
  - {name: crohme2023_train, path: %[1]s/labels/crohme2023_train_captions.json}
splits:
  - {name: crohme2023_train, benchmark: crohme2023, role: train, predictions: %[1]s/predictions/texteller/crohme2023_train.json}
  - {name: crohme2023_val, benchmark: crohme2023, role: val, predictions: %[1]s/predictions/texteller/crohme2023_val.json}
  - {name: crohme2023_test, benchmark: crohme2023, role: test, predictions: %[2]s, reported_exprate: 61.8}
%[3]s`, data, test, extra)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	out := filepath.Join(dir, "report")
	for _, tc := range []struct {
		config string
		code   int
		want   string
	}{
		{config("labels.yaml", labels, ""), exitError, "split crohme2023_test: predictions: " + labels + ": none of its 2300 items has a prediction field"},
		{config("partial.yaml", partial, ""), exitError, "split crohme2023_test: predictions: " + partial + ": 1380 of its 2300 items have no prediction"},
		{config("alpha.yaml", preds, "alpha: -1\n"), exitUsage, "alpha.yaml: line 8: alpha: -1 is out of range"},
	} {
		checkFailure(t, cliRun(t, "audit", "--config", tc.config, "--out", out, "--json"), tc.code, tc.want, true)
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a report was written", tc.want)
		}
	}
}
