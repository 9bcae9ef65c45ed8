package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"

	"github.com/leakaudit/leakaudit/internal/outpath"
)

// interruptContext is cancelled by SIGINT (Ctrl-C) or SIGTERM: a command
// stops, removes what it had written beside its output, and exits with an
// error. Once it is cancelled the signals are let go, so a second one
// kills the process at once, as without a handler.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// forceHelp is the --force flag's help, the same on every command.
const forceHelp = "replace an existing output that is not a previous output of this command (an input is never replaced)"

// addForce registers --force on cmd.
func addForce(cmd *cobra.Command, force *bool) {
	cmd.Flags().BoolVar(force, "force", false, forceHelp)
}

// tempBeside creates an empty file with a fresh hidden name beside path,
// ending in path's extension (which says an items file's format), for an
// output built there and renamed into place (outpath.Install).
func tempBeside(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"+filepath.Ext(path))
	if err != nil {
		return "", err
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	if err := os.Chmod(name, 0o644); err != nil { // as os.Create would make it
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// checkOutputs checks every output a command is about to write (see
// package outpath), before it reads anything.
func checkOutputs(outs ...outpath.Output) error {
	for _, o := range outs {
		if err := outpath.Check(o); err != nil {
			return err
		}
	}
	return nil
}

// What each command writes, to recognize its earlier output: a folder
// holding only these names is replaced (written into) without --force.
var (
	// pageNames: --report DIR of overlap, neardup and dedup.
	pageNames = outpath.Names("index.html")
	// galleryNames: neardup --gallery DIR.
	galleryNames = outpath.Names("index.html", "pair-*.png")
	// scoreNames: score --out DIR.
	scoreNames = outpath.Names("metrics_res.json", "items.jsonl", "items.parquet")
	// visNames: score --vis DIR.
	visNames = outpath.Names("*.png")
	// demoNames: demo --dir DIR.
	demoNames = outpath.Names("data/", "index/", "index-model/", "index-model-images/", "audit/", "clean/", "clean-again/", "compare/", "overlap.json", "overlap-items.jsonl")
)

// auditNames recognizes an audit report folder; db, the configuration's
// index folder when it lies inside the report folder, is one of its
// entries too.
func auditNames(out, db string) func(string) bool {
	return reportNames(out, db, "findings.json", "report.md", "report.html", "items.parquet", "items.jsonl",
		"test-fingerprints.parquet", "fig-*.png", "pairs/", "evidence/")
}

// itemColumns are the fields every per-item evidence file of overlap has.
var itemColumns = []string{"split", "id", "seq", "level", "found"}

// isItemsFile recognizes a per-item evidence file overlap wrote: an empty
// file, JSON lines whose first object has the item fields, or a Parquet
// file with those columns.
func isItemsFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() == 0 {
		return true
	}
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return false
		}
		for _, c := range itemColumns {
			if _, ok := pf.Schema().Lookup(c); !ok {
				return false
			}
		}
		return true
	}
	line, err := bufio.NewReaderSize(f, 1<<16).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false
	}
	var row map[string]json.RawMessage
	if json.Unmarshal(line, &row) != nil {
		return false
	}
	for _, c := range itemColumns {
		if _, ok := row[c]; !ok {
			return false
		}
	}
	return true
}

// isPNG recognizes a PNG file (render's output).
func isPNG(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [8]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == "\x89PNG\r\n\x1a\n"
}
