package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leakaudit/leakaudit/internal/synth"
)

// TestAuditWithoutDBStreams: an audit without db: reads the training
// corpora once past the test labels, as overlap without --db does: it
// writes no index (under the user cache directory) and finds exactly what
// an audit through an index finds.
func TestAuditWithoutDBStreams(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	md, err := synth.GenerateModelDemo(filepath.Join(dir, "data"), 11)
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, db := range []string{filepath.Join(dir, "db"), ""} {
		c, err := LoadConfig(md.Config)
		if err != nil {
			t.Fatal(err)
		}
		c.DB = db
		c.TrainImages = nil // the image hashes' index is not this test's
		for i := range c.Splits {
			c.Splits[i].Images = ""
		}
		outs = append(outs, auditJSON(t, c, 2))
	}
	if outs[0] != outs[1] {
		t.Error("findings through an index and streamed differ")
	}
	if entries, err := os.ReadDir(filepath.Join(cache, "leakaudit", "index")); err == nil && len(entries) > 0 {
		t.Errorf("an audit without db: built an index in the cache: %v", entries)
	}
}
