package fingerprint

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTableWritesWhatWriteWrites: a fingerprint computed in memory and
// written later has the bytes Write gives for the same inputs, one file
// or partitions; a done context stops the computation.
func TestTableWritesWhatWriteWrites(t *testing.T) {
	dir := t.TempDir()
	inputs := []Input{{Name: "a", Source: corpus(t, dir)[0].Source}}
	inputs = append(inputs, Input{Name: "b", Source: corpus(t, t.TempDir())[0].Source})
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"file", Options{Levels: levels(t, "audit,ws,tokens"), Tool: "t"}},
		{"salted", Options{Levels: levels(t, "ws"), Salt: []byte("s"), WithLabels: true, Tool: "t"}},
		{"partitions", Options{Levels: levels(t, "audit"), Partitions: 3, Tool: "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := filepath.Join(dir, tc.name+"-write.parquet"), filepath.Join(dir, tc.name+"-table.parquet")
			wres, err := Write(want, inputs, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := Compute(context.Background(), inputs, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			gres, err := tab.Write(got)
			if err != nil {
				t.Fatal(err)
			}
			if !sameTree(t, want, got) {
				t.Errorf("the table's file differs from Write's")
			}
			if gres.Out != got || len(gres.Inputs) != len(wres.Inputs) || gres.Inputs[1].Rows != wres.Inputs[1].Rows || gres.Complete != wres.Complete {
				t.Errorf("result %+v, want %+v", gres, wres)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, inputs, Options{Levels: levels(t, "audit")}); !errors.Is(err, context.Canceled) {
		t.Errorf("Compute under a done context: %v, want context.Canceled", err)
	}
	if _, err := Compute(context.Background(), inputs, Options{Levels: levels(t, "audit"), Images: true}); err == nil {
		t.Error("Compute of an image fingerprint: no error")
	}
}

// sameTree says whether two files, or two folders of files, have the same
// names and bytes.
func sameTree(t *testing.T, a, b string) bool {
	t.Helper()
	files := map[string][]byte{}
	walk := func(root string, check bool) bool {
		same := true
		err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !check {
				files[rel] = data
				return nil
			}
			if w, ok := files[rel]; !ok || !bytes.Equal(w, data) {
				same = false
			}
			delete(files, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return same
	}
	walk(a, false)
	return walk(b, true) && len(files) == 0
}
