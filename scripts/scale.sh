#!/usr/bin/env bash
# scale.sh: leakaudit on one machine at corpus scale, end to end with the
# commands users run.
#
# Generates, from the shared label lists, a training corpus of N labels
# (default 80M: the real training labels, then copies of them with one
# random token edit, fixed seed: gen-labels.py), then times, with wall
# time and peak RSS:
#   fingerprint  leakaudit fingerprint at the audit and ws levels
#   index-fp     an index built from that fingerprint (overlap --db)
#   index        an index built from the labels themselves (overlap --db)
#   query        the HME100K test list (24,607 labels) against the index
#                built from the labels, warm (the index reused)
# and checks that every run finds the same items. Needs ../shared/data (or
# $LEAKAUDIT_DATA), bin/leakaudit, python3 and about 20 GB of disk under
# $WORK_DIR (default: the system's temporary folder). TRAIN=FILE uses a
# corpus generated before (the same N labels) instead of generating it.
set -euo pipefail
N=${N:-80000000}
DATA=${LEAKAUDIT_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
BIN=${BIN:-bin/leakaudit}
WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/leakaudit-scale.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TEST=$DATA/labels/hme100k_test_captions.json
[ -f "$TEST" ] || { echo "scale.sh: $TEST not found: set LEAKAUDIT_DATA to the shared data folder" >&2; exit 2; }
if [ -n "${TRAIN:-}" ]; then
  ln -s "$(realpath "$TRAIN")" "$WORK/train.json"
else
  gen_start=$(date +%s)
  python3 "$(dirname "$0")/gen-labels.py" "$DATA/labels" "$N" "$WORK/train.json"
  echo "generated $N labels ($(du -h "$WORK/train.json" | cut -f1)) in $(( $(date +%s) - gen_start )) s"
fi
run() { # label, command...: prints "label seconds rss_kb"; the output is kept in $WORK/<label>.out
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/$label.out" 2> "$WORK/$label.err" ||
    { echo "$label failed:" >&2; cat "$WORK/$label.err" >&2; exit 1; }
  read -r secs rss < "$WORK/time"
  echo "$label $secs $rss"
}
found() { python3 -c 'import json,sys; print(" ".join(str(s["found"]) for s in json.load(open(sys.argv[1]))["splits"]))' "$1"; }
export LEAKAUDIT_NO_HASH_CACHE=1 # every checksum computed
fp=$(run fingerprint "$BIN" fingerprint --input "train=$WORK/train.json" --out "$WORK/fp.parquet" --level audit,ws --json)
ixfp=$(run index-fp "$BIN" overlap --train "train=$WORK/fp.parquet" --test "$TEST" --level audit,ws --json --db "$WORK/db-fp")
rm -rf "$WORK/db-fp"
ix=$(run index "$BIN" overlap --train "train=$WORK/train.json" --test "$TEST" --level audit,ws --json --db "$WORK/db")
unset LEAKAUDIT_NO_HASH_CACHE
run warmup "$BIN" overlap --train "train=$WORK/train.json" --test "$TEST" --level audit,ws --json --db "$WORK/db" > /dev/null
q=$(run query "$BIN" overlap --train "train=$WORK/train.json" --test "$TEST" --level audit,ws --json --db "$WORK/db")
echo "$N training labels; HME100K test (24,607 labels) found at audit, ws: index-fp $(found "$WORK/index-fp.out"), index $(found "$WORK/index.out"), query $(found "$WORK/query.out")"
printf '%-12s %8s %10s\n' run seconds peakRSS_MB
for r in "$fp" "$ixfp" "$ix" "$q"; do
  set -- $r
  printf '%-12s %8s %10d\n' "$1" "$2" $(( $3 / 1024 ))
done
fps=$(echo "$fp" | cut -d' ' -f2); ixfps=$(echo "$ixfp" | cut -d' ' -f2)
echo "fingerprint + index from it: $(echo "$fps + $ixfps" | bc -l) s"
[ "$(found "$WORK/index-fp.out")" = "$(found "$WORK/index.out")" ] && [ "$(found "$WORK/index.out")" = "$(found "$WORK/query.out")" ] ||
  { echo "the runs disagree" >&2; exit 1; }
