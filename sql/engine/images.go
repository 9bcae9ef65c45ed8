//go:build duckdb

package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/checksum"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/fingerprint"
	"github.com/leakaudit/leakaudit/imagehash"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/neardup"
)

// The image splits checked: CROHME train (the training side, and as a
// test split compared with itself) and the 2014, 2016 and 2019 tests.
var (
	imageTrain = "crohme_train"
	imageTests = []string{"crohme_train", "crohme_2014", "crohme_2016", "crohme_2019"}
)

func imageDir(name string) string {
	return filepath.Join(*data, "crohme", strings.TrimPrefix(name, "crohme_"))
}

// checkImages fingerprints the CROHME images (the training side as 8
// partitions), runs image_neardup.sql at each radius, and checks its pairs
// against leakaudit's own neardup on the images themselves: the same
// pairs, with the same distances and checks.
func checkImages(db *sql.DB, dir string) {
	levels, err := canon.ParseLevels("ws")
	if err != nil {
		log.Fatal(err)
	}
	in := func(name string) fingerprint.Input {
		fp, err := checksum.Of(imageDir(name))
		if err != nil {
			log.Fatal(err)
		}
		return fingerprint.Input{Name: name, Source: dataset.Source{Path: imageDir(name)}, SHA256: fp.SHA256}
	}
	trainFP, testFP := filepath.Join(dir, "train-images"), filepath.Join(dir, "test-images.parquet")
	start := time.Now()
	if _, err := fingerprint.Write(trainFP, []fingerprint.Input{in(imageTrain)}, fingerprint.Options{Levels: levels, Images: true, Partitions: 8, Tool: "engine"}); err != nil {
		log.Fatal(err)
	}
	var tests []fingerprint.Input
	for _, t := range imageTests {
		tests = append(tests, in(t))
	}
	if _, err := fingerprint.Write(testFP, tests, fingerprint.Options{Levels: levels, Images: true, Tool: "engine"}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("image fingerprints of CROHME train and %s written in %.1f s\n", strings.Join(imageTests, ", "), time.Since(start).Seconds())
	for _, f := range []string{filepath.Join(*sqlDir, "duckdb", "views.sql"), filepath.Join(*sqlDir, "duckdb", "neardup_params.sql")} {
		b, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		setup := fmt.Sprintf("SET VARIABLE train = '%s'; SET VARIABLE test = '%s';\n%s", filepath.Join(trainFP, "**", "*.parquet"), testFP, b)
		if _, err := db.Exec(setup); err != nil {
			log.Fatalf("%s: %v", f, err)
		}
	}
	query, err := os.ReadFile(filepath.Join(*sqlDir, "image_neardup.sql"))
	if err != nil {
		log.Fatal(err)
	}
	var bad []string
	for _, rs := range strings.Split(*radii, ",") {
		radius, err := strconv.Atoi(strings.TrimSpace(rs))
		if err != nil {
			log.Fatalf("-radius: %v", err)
		}
		// leakaudit's own pairs, from the images.
		// The SQL has no probes and lists every candidate: so does this run.
		job := neardup.Job{MaxDistance: radius, DB: filepath.Join(dir, "images-db"), Tool: "engine", NoProbes: true, Unverified: true,
			Train: []index.ImageCorpusInput{{Name: imageTrain, Source: dataset.ImageSource{Path: imageDir(imageTrain)}}}}
		for _, t := range imageTests {
			job.Tests = append(job.Tests, neardup.ImageSplit{Name: t, Source: dataset.ImageSource{Path: imageDir(t)}})
		}
		rep, err := neardup.Run(context.Background(), job)
		if err != nil {
			log.Fatal(err)
		}
		want := map[string]string{}
		cross := 0
		for _, p := range rep.Pairs {
			// The SQL verifies by the fine hash (identical, or within
			// imagehash.VerifyDistance); neardup verifies by the chamfer
			// distance of the normalized ink, which the fingerprints hold
			// but SQL does not compute: the fine-hash verdict is compared.
			fineVerified := p.Identical || p.FineDistance <= imagehash.VerifyDistance
			want[p.TestSplit+"/"+p.TestID+" "+p.TrainSplit+"/"+p.TrainID] = fmt.Sprintf("distance %d fine %d identical %v verified %v label_mismatch %v",
				p.Distance, p.FineDistance, p.Identical, fineVerified, p.LabelMismatch)
			if p.TestSplit != p.TrainSplit {
				cross++
			}
		}
		// The engine's, from the fingerprints.
		if _, err := db.Exec(fmt.Sprintf("SET VARIABLE radius = %d", radius)); err != nil {
			log.Fatal(err)
		}
		start := time.Now()
		rows, err := db.Query(string(query))
		if err != nil {
			log.Fatalf("image_neardup.sql: %v", err)
		}
		n, verified, identical, mismatch := 0, 0, 0, 0
		for rows.Next() {
			var testSplit, testID, trainSplit, trainID string
			var testSeq, trainSeq, dist, fine int64
			var ident, ver, mis bool
			if err := rows.Scan(&testSplit, &testID, &testSeq, &trainSplit, &trainID, &trainSeq, &dist, &fine, &ident, &ver, &mis); err != nil {
				log.Fatal(err)
			}
			k := testSplit + "/" + testID + " " + trainSplit + "/" + trainID
			g := fmt.Sprintf("distance %d fine %d identical %v verified %v label_mismatch %v", dist, fine, ident, ver, mis)
			if w, ok := want[k]; !ok {
				bad = append(bad, fmt.Sprintf("radius %d: %s: engine %s, not a leakaudit pair", radius, k, g))
			} else if w != g {
				bad = append(bad, fmt.Sprintf("radius %d: %s: leakaudit %s, engine %s", radius, k, w, g))
			}
			delete(want, k)
			n++
			verified += btoi(ver)
			identical += btoi(ident)
			mismatch += btoi(mis)
		}
		if err := rows.Err(); err != nil {
			log.Fatal(err)
		}
		rows.Close()
		elapsed := time.Since(start)
		for k, w := range want {
			bad = append(bad, fmt.Sprintf("radius %d: %s (%s): a leakaudit pair the engine missed", radius, k, w))
		}
		cand, all := bandCandidates(trainFP, testFP, radius)
		fmt.Printf("radius %2d  leakaudit %4d pairs (%d test×train)  engine %4d pairs in %4.0f ms  (%d verified, %d identical, %d with other labels); band join: %d candidate pairs of %d (%.2f%%)\n",
			radius, len(rep.Pairs), cross, n, float64(elapsed.Microseconds())/1000, verified, identical, mismatch, cand, all, 100*float64(cand)/float64(all))
	}
	if len(bad) > 0 {
		fmt.Println(strings.Join(bad[:min(len(bad), 20)], "\n"))
		log.Fatalf("the engine and leakaudit's neardup differ in %d place(s)", len(bad))
	}
	fmt.Printf("\nDuckDB over image fingerprints (banded equi-join, radius+1 bands) gives exactly leakaudit's neardup candidate pairs at radius %s: every pair, distance, fine distance, identical, label flag and the fine-hash verdict identical (neardup's own verdict, by the chamfer distance of the normalized ink, is not computed in SQL).\n", *radii)
}

// bandCandidates counts, independently of the SQL, the (test, train) pairs
// that agree on at least one of the radius+1 bands (what the banded
// equi-join hands to the popcount filter), against all pairs.
func bandCandidates(trainFP, testFP string, radius int) (cand, all int64) {
	hashes := func(path string) []uint64 {
		var out []uint64
		if _, err := fingerprint.Scan(path, func(r fingerprint.Row) error {
			if fp, ok := r.Image(); ok && !fp.Blank {
				out = append(out, fp.Hash)
			}
			return nil
		}); err != nil {
			log.Fatal(err)
		}
		return out
	}
	train, test := hashes(trainFP), hashes(testFP)
	nb := radius + 1
	masks := make([]uint64, nb)
	for b := range masks {
		lo, hi := 64*b/nb, 64*(b+1)/nb
		for i := lo; i < hi; i++ {
			masks[b] |= 1 << i
		}
	}
	buckets := make([]map[uint64][]int32, nb)
	for b, m := range masks {
		buckets[b] = map[uint64][]int32{}
		for i, h := range train {
			buckets[b][h&m] = append(buckets[b][h&m], int32(i))
		}
	}
	seen := make([]int, len(train))
	for q, h := range test {
		for b, m := range masks {
			for _, i := range buckets[b][h&m] {
				if seen[i] != q+1 {
					seen[i] = q + 1
					cand++
				}
			}
		}
	}
	return cand, int64(len(train)) * int64(len(test))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
