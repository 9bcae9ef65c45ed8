package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/leakaudit/leakaudit/audit"
)

const validConfig = `name: t
splits:
  - {name: s1, labels: l.txt}
models:
  - name: a
    train: [{name: c, path: c.json}]
    predictions: [{split: s1, path: a.txt}]
  - name: b
    rules: true
    train: [{name: c, path: c.json}]
    predictions: [{split: s1, path: b.txt, reported_exprate: 50}]
`

// TestConfigStrict: every invalid configuration is a *audit.ConfigError
// naming the line of the value at fault.
func TestConfigStrict(t *testing.T) {
	if _, err := ParseConfig([]byte(validConfig)); err != nil {
		t.Fatalf("valid configuration refused: %v", err)
	}
	if _, err := ParseConfig([]byte(ExampleConfig)); err != nil {
		t.Fatalf("the example configuration is refused: %v", err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown key", "name: t", "name: t\ncolour: red", "line 2"},
		{"unknown model key", "rules: true", "rules: true\n    rulez: 1", "line 10"},
		{"reported out of range", "reported_exprate: 50", "reported_exprate: 150", "line 11: models.1.predictions.0.reported_exprate"},
		{"unknown split", "{split: s1, path: a.txt}", "{split: s2, path: a.txt}", "line 7: models.0.predictions.0.split"},
		{"model twice", "  - name: b", "  - name: a", "line 8: models.1.name"},
		{"rules without train", "    rules: true\n    train: [{name: c, path: c.json}]", "    rules: true", "models.1.rules"},
		{"one model", "  - name: b\n    rules: true\n    train: [{name: c, path: c.json}]\n    predictions: [{split: s1, path: b.txt, reported_exprate: 50}]\n", "", "a comparison needs at least two"},
		{"bad format", "{name: s1, labels: l.txt}", "{name: s1, labels: l.txt, format: xml}", "line 3: splits.0.format"},
		{"bad level", "name: t", "name: t\nlevels: [audit, nope]", "line 2: levels.1"},
		{"alpha", "name: t", "name: t\nalpha: 1.5", "line 2: alpha"},
		{"near_min without near", "name: t", "name: t\nnear_min: 3", "line 2: near_min"},
		{"two files one split", "predictions: [{split: s1, path: a.txt}]", "predictions: [{split: s1, path: a.txt}, {split: s1, path: a2.txt}]", "two prediction files"},
		{"format without labels", "{name: s1, labels: l.txt}", "{name: s1, format: caption}", "splits.0"},
		{"not a number", "reported_exprate: 50", "reported_exprate: high", "line 11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(validConfig, c.from) {
				t.Fatalf("test bug: %q not in the configuration", c.from)
			}
			_, err := ParseConfig([]byte(strings.Replace(validConfig, c.from, c.to, 1)))
			var ce *audit.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a configuration error with %q", err, c.want)
			}
		})
	}
}
