package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"

	"github.com/leakaudit/leakaudit/dataset"
)

// The child half of TestKillAndRestart: build the index named by the
// environment, then exit.
func init() {
	dir, corpus := os.Getenv("LEAKAUDIT_CRASH_DB"), os.Getenv("LEAKAUDIT_CRASH_CORPUS")
	if dir == "" || corpus == "" {
		return
	}
	if err := buildFor(dir, corpus); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func crashInputs(corpus string) ([]CorpusInput, []checksum.Input, error) {
	var ins []CorpusInput
	var fps []checksum.Input
	for _, name := range []string{"a", "b", "c"} {
		path := filepath.Join(corpus, name+".txt")
		fp, err := checksum.Of(path)
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, CorpusInput{Name: name, Source: dataset.Source{Path: path, Format: dataset.Caption}})
		fps = append(fps, checksum.Input{Name: name, File: fp})
	}
	return ins, fps, nil
}

func buildFor(dir, corpus string) error {
	ins, fps, err := crashInputs(corpus)
	if err != nil {
		return err
	}
	ls, _ := canon.ParseLevels("audit,ws")
	db, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Build(context.Background(), ins, fps, ls, "test", nil)
	return err
}

// snapshot counts every test key's matches, to compare two indexes.
func snapshot(t *testing.T, dir string, keys []string) string {
	t.Helper()
	db, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	ls, _ := canon.ParseLevels("audit,ws")
	var b strings.Builder
	for _, l := range ls {
		for _, k := range keys {
			key, _ := l.Canon(k)
			m, err := db.Lookup(l, key, 3)
			if err != nil {
				t.Fatalf("lookup: %v", err)
			}
			fmt.Fprintf(&b, "%s %s %d %v\n", l.Name, key, m.Count, m.Refs)
		}
	}
	return b.String()
}

// TestKillAndRestart kills index builds with SIGKILL at random moments and
// checks that every interrupted index either opens complete and identical
// to an uninterrupted build, or opens incomplete (lookups refuse it) and a
// restarted build makes it identical. Never a silently partial count.
func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns builds")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	corpus := t.TempDir()
	r := rand.New(rand.NewPCG(5, 5))
	var keys []string
	for ci, name := range []string{"a", "b", "c"} {
		var b strings.Builder
		for i := 0; i < 150000; i++ {
			label := fmt.Sprintf("x _ { %d } + y ^ { %d }", r.IntN(40000), ci)
			fmt.Fprintf(&b, "%s_%d\t%s\n", name, i, label)
			if i%20000 == 0 {
				keys = append(keys, label)
			}
		}
		os.WriteFile(filepath.Join(corpus, name+".txt"), []byte(b.String()), 0o644)
	}
	keys = append(keys, "absent")
	ref := filepath.Join(t.TempDir(), "ref")
	start := time.Now()
	if err := buildFor(ref, corpus); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	want := snapshot(t, ref, keys)

	var complete, resumed int
	const rounds = 8
	for round := 0; round < rounds; round++ {
		dir := filepath.Join(t.TempDir(), "db")
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LEAKAUDIT_CRASH_DB="+dir, "LEAKAUDIT_CRASH_CORPUS="+corpus)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill somewhere inside the build (the child also needs a moment
		// to start).
		time.Sleep(50*time.Millisecond + time.Duration(r.Float64()*float64(took)))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		db, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("round %d: reopening a killed build: %v", round, err)
		}
		m := db.Manifest()
		ls, _ := canon.ParseLevels("audit,ws")
		if !m.Complete {
			if _, err := db.Lookup(ls[0], "x", 1); err != ErrIncomplete {
				t.Errorf("round %d: lookup on an incomplete index: %v", round, err)
			}
			ins, fps, _ := crashInputs(corpus)
			if _, err := db.Build(context.Background(), ins, fps, ls, "test", nil); err != nil {
				t.Fatalf("round %d: resume: %v", round, err)
			}
			resumed++
		} else {
			complete++
		}
		db.Close()
		if got := snapshot(t, dir, keys); got != want {
			t.Errorf("round %d: index differs from an uninterrupted build:\n%s\nwant\n%s", round, got, want)
		}
	}
	t.Logf("%d builds killed within %v: %d had completed, %d resumed", rounds, took, complete, resumed)
	if resumed == 0 {
		t.Error("no kill landed inside a build; the test checked nothing")
	}
}
