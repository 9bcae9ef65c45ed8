package setting

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestRender: a setting is named by its flag in Error and by its
// configuration key (or words, for a setting no configuration has) through
// ForConfig, however the error is wrapped; errors.Is still sees what it
// wraps.
func TestRender(t *testing.T) {
	inner := Errorf("no label column; choose one with %s", Field)
	for _, tc := range []struct {
		name      string
		err       error
		cli, conf string
	}{
		{"plain", inner,
			"no label column; choose one with --field",
			"no label column; choose one with field:"},
		{"wrapped twice", fmt.Errorf("train t: %w", fmt.Errorf("read a.csv: %w", inner)),
			"train t: read a.csv: no label column; choose one with --field",
			"train t: read a.csv: no label column; choose one with field:"},
		{"wraps an error, two settings", Errorf("x: %w (give %s, or %s)", fs.ErrExist, DB, Format),
			"x: file already exists (give --db, or --format)",
			"x: file already exists (give db:, or format:)"},
		{"no configuration key", Errorf("give the salt it was made with (%s)", Salt),
			"give the salt it was made with (--salt)",
			"give the salt it was made with (the salt)"},
		{"nested settings", Errorf("%w (or %s)", fmt.Errorf("at b: %w", inner), DB),
			"at b: no label column; choose one with --field (or --db)",
			"at b: no label column; choose one with field: (or db:)"},
		{"joined", errors.Join(inner, Errorf("use another %s", DB)),
			"no label column; choose one with --field\nuse another --db",
			"no label column; choose one with field:\nuse another db:"},
	} {
		if got := tc.err.Error(); got != tc.cli {
			t.Errorf("%s: command line %q, want %q", tc.name, got, tc.cli)
		}
		conf := ForConfig(tc.err)
		if got := conf.Error(); got != tc.conf {
			t.Errorf("%s: configuration %q, want %q", tc.name, got, tc.conf)
		}
		if !errors.Is(conf, tc.err) {
			t.Errorf("%s: errors.Is lost the error", tc.name)
		}
	}
	if !errors.Is(ForConfig(Errorf("x: %w", fs.ErrExist)), fs.ErrExist) {
		t.Error("errors.Is does not see through Errorf's %w")
	}
}

// TestForConfigWithoutSetting: an error that names no setting, and nil,
// pass through unchanged.
func TestForConfigWithoutSetting(t *testing.T) {
	plain := fmt.Errorf("read: %w", fs.ErrNotExist)
	if ForConfig(plain) != plain || ForConfig(nil) != nil {
		t.Error("ForConfig changed an error that names no setting")
	}
}

// TestConfigArgs: a log line's Key and error arguments are worded as the
// configuration names them; other arguments are left as they are.
func TestConfigArgs(t *testing.T) {
	for _, tc := range []struct {
		format    string
		args      []any
		cli, conf string
	}{
		{"no index kept; %s DIR builds one", []any{DB}, "no index kept; --db DIR builds one", "no index kept; db: DIR builds one"},
		{"going on without it (%s)", []any{AllowMissing}, "going on without it (--allow-missing)", "going on without it (a training list that leaves it out)"},
		{"%v; building it again", []any{fmt.Errorf("x: %w", Errorf("give %s", Rebuild))}, "x: give --rebuild; building it again", "x: give an empty index folder; building it again"},
		{"%s: %d items", []any{"s", 3}, "s: 3 items", "s: 3 items"},
	} {
		if got := fmt.Sprintf(tc.format, tc.args...); got != tc.cli {
			t.Errorf("command line %q, want %q", got, tc.cli)
		}
		if got := fmt.Sprintf(tc.format, ConfigArgs(tc.args)...); got != tc.conf {
			t.Errorf("configuration %q, want %q", got, tc.conf)
		}
	}
}
