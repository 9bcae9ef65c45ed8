# leakaudit build, test, benchmark and demo targets.
GO      ?= go
VERSION ?= 0.1.0-dev
LDFLAGS := -X main.version=$(VERSION)
BIN     := bin/leakaudit

.PHONY: build test hostile lint engine bench demo fuzz goldens vet clean parity

build:
	$(GO) build -trimpath -buildvcs=auto -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/leakaudit

## demo: run the overlap audit on the built-in synthetic benchmark (no data needed).
demo: build
	./$(BIN) demo --dir demo-report

## test: vet, every unit and integration test (the real-data suite in
## cmd/leakaudit runs every command over every applicable shared file), then
## the race detector over the concurrent packages (-short: without the tests
## that replay real data at full size). Tests that need the real data read
## ../shared/data (or $$LEAKAUDIT_DATA) and skip with a message when it is absent.
RACE_PKGS := ./audit ./overlap ./neardup ./index ./metrics/cdm ./dataset ./dedup ./fingerprint ./canon ./compare
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -race -short -count=1 $(RACE_PKGS)

## hostile: every command against hostile files the tests make themselves
## (damaged indexes, folders that are not indexes, outputs over inputs,
## renamed caption files, JSON cut short, empty inputs, out-of-range flags
## and configuration values, panics); part of make test too.
hostile:
	$(GO) test -count=1 -run Hostile ./...

## lint: staticcheck, pinned; CI runs it before the tests.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) run $(STATICCHECK) ./...

## engine: leakaudit's SQL (sql/) in embedded DuckDB over fingerprints of the
## shared data, checked against leakaudit's own counts and per-item matches,
## and the image near-duplicate query over image fingerprints of the CROHME
## images against leakaudit's own neardup pairs at radius 6 and 10.
## DuckDB needs CGO: the runner is its own module (sql/engine, build tag
## duckdb), so leakaudit's build stays pure Go.
INKBENCH_N ?= 1000000
DATA ?= $(if $(LEAKAUDIT_DATA),$(LEAKAUDIT_DATA),$(abspath ../shared/data))
engine:
	cd sql/engine && CGO_ENABLED=1 $(GO) run -tags duckdb . -data $(DATA) -sql $(abspath sql)

## bench: label index build and query throughput at 1M, 10M and 80M synthetic
## labels (each size in its own process, so that peak memory is per size);
## fingerprinting 1M of them (labels/s, token counts included);
## image hashing throughput and Hamming radius search at 1M and 10M hashes;
## 1M synthetic handwriting images hashed, indexed and queried by other
## rasterizers (images/s, CPU µs/image, µs/query, peak heap/image;
## INKBENCH_N=… for another size);
## the canonicalizer, reader and image normalizer micro-benchmarks; TeX layout
## of CROHME labels per core and their rasterization (glyph cache warm); CDM pairs/s over MathWriting valid and over im2latex test (all cores);
## every text metric over TAMER's 24,607 HME100K pairs (s/pass); dedup of a
## Parquet release with image bytes against 25k test labels (rows/s, peak heap);
## dedup --near 2 of 1M and 10M synthetic labels against 25k (labels/s); the
## near index alone over HME100K (queries/s, one core) and at 25k test items
## against 10M training sequences on every core (goal: under 60 s on 2 cores);
## overlap --near 2 end to end (reading and tokenizing included) at 1M and 10M;
## compare: 3 models on 25k test items against 10M training labels (goal: under 30 s);
## overlap cold, with an index built and warm against a Python set on 3M
## generated labels; and scripts/scale.sh: 80M labels generated from the
## shared training labels with edits, fingerprinted, indexed (from the
## fingerprint and from the labels) and queried with HME100K test, with wall
## time and peak RSS of each command (about 20 GB of temporary disk); and
## scripts/vs-peers.sh: cold overlap (audit; audit,ws) at 3M and 10M labels
## against a Python set and DuckDB (npm @duckdb/node-api, installed by the
## script), dedup of the 3M release and of a 1M-row Parquet release with
## image bytes against DuckDB's COPY, as ratios measured in the same run.
bench:
	$(GO) test -run '^$$' -bench 'BenchmarkLabelIndex/1M$$' -benchtime 1x -timeout 30m ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkLabelIndex/10M$$' -benchtime 1x -timeout 60m ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkLabelIndex/80M$$' -benchtime 1x -timeout 120m ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkFingerprintLabels' -benchtime 1x -timeout 30m ./fingerprint/
	$(GO) test -run '^$$' -bench 'BenchmarkScanKeys' -benchtime 3x ./fingerprint/
	$(GO) test -run '^$$' -bench 'BenchmarkSortRun' -benchtime 3x ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkHashImages|BenchmarkHammingSearch' -benchtime 3x -timeout 30m ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkInkIndex' -benchtime 1x -timeout 120m ./index/ -args -inkbench.n $(INKBENCH_N)
	$(GO) test -run '^$$' -bench 'BenchmarkTokenizeCDM' -cpu 1 ./latex/
	$(GO) test -run '^$$' -bench 'BenchmarkCanonTokens|BenchmarkTokensAndRender' -cpu 1 ./canon/
	$(GO) test -run '^$$' -bench 'BenchmarkCanonAudit|BenchmarkCanonWS' -benchmem ./canon/
	$(GO) test -run '^$$' -bench . -benchmem ./dataset/ ./imagehash/
	$(GO) test -run '^$$' -bench 'BenchmarkTypeset|BenchmarkRender' -benchmem -cpu 1 ./tex/
	$(GO) test -run '^$$' -bench 'BenchmarkCDMMathWritingValid' -benchtime 3x ./metrics/cdm/
	$(GO) test -run '^$$' -bench 'BenchmarkCDMIm2latexTest' -benchtime 3x ./metrics/cdm/
	$(GO) test -run '^$$' -bench 'BenchmarkCDMSharedPredictions' -benchtime 1x ./metrics/cdm/
	$(GO) test -run '^$$' -bench 'BenchmarkScorePair' -benchmem -cpu 1 ./metrics/cdm/
	$(GO) test -run '^$$' -bench 'BenchmarkAllTextMetrics' -benchtime 3x ./metrics/
	$(GO) test -run '^$$' -bench 'BenchmarkTeXBLEU' -cpu 1 ./metrics/texbleu/
	$(GO) test -run '^$$' -bench 'BenchmarkDedupParquet' -benchtime 1x -timeout 30m ./dedup/
	$(GO) test -run '^$$' -bench 'BenchmarkDedupNear' -benchtime 1x -timeout 60m ./dedup/
	$(GO) test -run '^$$' -bench 'BenchmarkNearQuery' -cpu 1 ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkNear10M' -benchtime 1x -timeout 30m ./index/
	$(GO) test -run '^$$' -bench 'BenchmarkOverlapNear' -benchtime 1x -timeout 60m ./overlap/
	$(GO) test -run '^$$' -bench 'BenchmarkCompare3Models' -benchtime 1x -timeout 30m ./compare/
	$(MAKE) build
	bash scripts/overlap-vs-python.sh
	bash scripts/vs-peers.sh
	bash scripts/scale.sh

## fuzz: each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCanonWS -fuzztime $(FUZZTIME) ./canon/
	$(GO) test -run '^$$' -fuzz FuzzTokenLevels -fuzztime $(FUZZTIME) ./canon/
	$(GO) test -run '^$$' -fuzz FuzzTokenizeCDM -fuzztime $(FUZZTIME) ./latex/
	$(GO) test -run '^$$' -fuzz FuzzScan -fuzztime $(FUZZTIME) ./dataset/
	$(GO) test -run '^$$' -fuzz FuzzParseTFM -fuzztime $(FUZZTIME) ./tex/font/
	$(GO) test -run '^$$' -fuzz FuzzTypeset -fuzztime $(FUZZTIME) ./tex/
	$(GO) test -run '^$$' -fuzz FuzzType1Charstring -fuzztime $(FUZZTIME) ./tex/font/
	$(GO) test -run '^$$' -fuzz FuzzScorePair -fuzztime $(FUZZTIME) ./metrics/cdm/
	$(GO) test -run '^$$' -fuzz FuzzImageDecode -fuzztime $(FUZZTIME) ./dataset/
	$(GO) test -run '^$$' -fuzz FuzzScanParquet -fuzztime $(FUZZTIME) ./dataset/

## goldens: regenerate the committed TeX oracles: TFM metrics, the symbol
## table, and the layout goldens (the CDM template's display, and in-line
## math in l2p's 10 pt article for IMEGE) from real LaTeX's DVI (needs Debian's
## texlive-base, -binaries, -latex-base, -latex-recommended, -latex-extra and
## -fonts-recommended, and ../shared/data; CI only reads the committed files).
## The IMEGE golden needs BIDM=/path/to/bidm, built (make in BIDM/) from
## falvaro/imege outside this repository (GPL: never committed); without it
## only the pair images are rewritten. The TeXBLEU goldens need node, npm
## (gpt-3-encoder@1.1.4 from the npm registry) and Debian's python3-numpy.
## The rounding golden is Python's own round (/usr/bin/python3).
TMPDIR_GOLDENS ?= /tmp/leakaudit-goldens
goldens:
	$(GO) run ./tex/internal/tfmgolden
	npm install --silent --prefix $(TMPDIR_GOLDENS) gpt-3-encoder@1.1.4
	$(GO) run ./metrics/texbleu/internal/bpegolden -node-modules $(TMPDIR_GOLDENS)/node_modules
	/usr/bin/python3 metrics/texbleu/internal/bpegolden/expected.py $(TMPDIR_GOLDENS)/node_modules
	$(GO) run ./tex/internal/symgen
	$(GO) run ./tex/internal/dvigolden
	$(GO) run ./tex/internal/dvigolden -inline -n 12 -npred 30 -nprinted 4
	$(GO) run ./metrics/imege/internal/imegegolden -bidm "$(BIDM)"
	/usr/bin/python3 internal/rounding/testdata/python_round.py > internal/rounding/testdata/python_round.tsv

## parity: CDM parity on fresh pairs against the reference CDM (issue 34):
## N pairs per kind drawn with SEED (random when unset), scored by the
## reference when REFCDM names its cdm/ folder; see scripts/parity.sh.
parity:
	bash scripts/parity.sh

clean:
	rm -rf bin demo-report
