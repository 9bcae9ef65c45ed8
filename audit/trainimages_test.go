package audit

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/internal/synth"
)

// TestAuditTrainImagesFingerprint: the audit's train_images given as an
// image fingerprint (with labels) yields the same near-duplicate findings
// and per-item evidence as the images.
func TestAuditTrainImagesFingerprint(t *testing.T) {
	dir := t.TempDir()
	md, err := synth.GenerateModelDemo(filepath.Join(dir, "data"), 7)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, edit func(c *Config)) *Findings {
		c, err := LoadConfig(md.Config)
		if err != nil {
			t.Fatal(err)
		}
		c.DB = filepath.Join(dir, "db-"+name)
		edit(c)
		f, err := Run(context.Background(), Job{Config: c, Tool: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := run("images", func(*Config) {})
	got := run("fingerprint", func(c *Config) {
		fp := filepath.Join(dir, "train-images.fp.parquet")
		ti := &c.TrainImages[0]
		writeImageFingerprint(t, fp, ti.Name, c.Path(ti.Path), fingerprint.Options{WithLabels: true})
		ti.Path = fp
	})
	if len(want.NearDups) == 0 {
		t.Fatal("the demo plants no near-duplicates")
	}
	if !reflect.DeepEqual(got.NearDups, want.NearDups) || !reflect.DeepEqual(got.Items, want.Items) {
		t.Errorf("near-duplicates from the fingerprint %+v\nfrom the images %+v", got.NearDups, want.NearDups)
	}
}

// writeImageFingerprint fingerprints an image source as the CLI does
// (with its input's SHA-256).
func writeImageFingerprint(t *testing.T, out, name, src string, o fingerprint.Options) {
	t.Helper()
	fp, err := checksum.Of(src)
	if err != nil {
		t.Fatal(err)
	}
	o.Images, o.WithInk, o.Tool = true, true, "test" // with the ink: verified as on the images
	if o.Levels == nil {
		o.Levels, _ = canon.ParseLevels("audit,ws")
	}
	if _, err := fingerprint.Write(out, []fingerprint.Input{{Name: name, Source: dataset.Source{Path: src}, SHA256: fp.SHA256}}, o); err != nil {
		t.Fatal(err)
	}
}
