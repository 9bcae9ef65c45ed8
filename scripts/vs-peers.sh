#!/usr/bin/env bash
# vs-peers.sh: leakaudit against what a data engineer would pick instead,
# measured side by side in one run (issue 37): a Python set (Debian's
# python3, the published audit's method) and DuckDB (the @duckdb/node-api
# npm package, installed here into the work folder), on training corpora
# generated from the shared label lists by gen-labels.py.
#
#   overlap  cold (no index): the HME100K test list (24,607 labels) looked
#            up in N training labels, at the audit level and at audit+ws,
#            for each N in SIZES (default 3M and 10M)
#   dedup    the N-label release (DEDUP_SIZES, default 3M) cleaned against
#            HME100K test at the audit level (DuckDB writes JSON lines)
#   parquet  a PARQUET_ROWS-row (default 1M) Hugging Face-style Parquet
#            release (latex_formula, image {bytes: 512 B, path}) cleaned
#            the same way (DuckDB: COPY … TO … (FORMAT parquet))
#
# SEED (default 20261124) is gen-labels.py's. Each job runs RUNS times
# (default 2) per tool; the table gives the best
# wall time, the CPU time (user + system) of that run, peak RSS, and the
# ratio of the peer's best wall time to leakaudit's. The tools' counts
# must agree (found items per level; kept items), else the script fails.
# The peers' ws level is written in their own terms (regular expressions
# over the same rules: escapes paired left to right, a space kept only
# between a control word and a letter, NFC); the script checks it gives
# leakaudit's counts on these inputs.
#
# Needs ../shared/data (or $LEAKAUDIT_DATA), bin/leakaudit, python3, node
# and npm (network for the one npm install), /usr/bin/time, and about
# 2 GB of disk under $WORK_DIR (default: the system's temporary folder).
set -euo pipefail
SIZES=${SIZES-"3000000 10000000"}
DEDUP_SIZES=${DEDUP_SIZES-3000000}
PARQUET_ROWS=${PARQUET_ROWS:-1000000}
RUNS=${RUNS:-2}
SEED=${SEED:-20261124} # gen-labels.py's seed
DUCKDB_VERSION=${DUCKDB_VERSION:-1.5.6-r.1}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${LEAKAUDIT_DATA:-$(cd "$HERE/../.." && pwd)/shared/data}
BIN=$(realpath "${BIN:-bin/leakaudit}")
WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/leakaudit-peers.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TEST=$DATA/labels/hme100k_test_captions.json
[ -f "$TEST" ] || { echo "vs-peers.sh: $TEST not found: set LEAKAUDIT_DATA to the shared data folder" >&2; exit 2; }
export XDG_CACHE_HOME=$WORK/cache # no index from an earlier run
export LEAKAUDIT_NO_HASH_CACHE=1  # cold means cold: every checksum computed

npm install --silent --no-audit --no-fund --prefix "$WORK/npm" "@duckdb/node-api@$DUCKDB_VERSION" > /dev/null
cat > "$WORK/npm/duck.mjs" <<'JS'
// node duck.mjs SQL: runs the statements (separated by ";\n") in an
// in-memory DuckDB and prints the last one's rows as JSON.
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
let r;
for (const q of process.argv[2].split(';\n')) if (q.trim()) r = await c.runAndReadAll(q);
console.log(JSON.stringify(r.getRows(), (k, v) => typeof v === 'bigint' ? Number(v) : v));
JS
node "$WORK/npm/duck.mjs" "SELECT version()" | tr -d '[]"' > "$WORK/duckdb-version"

cat > "$WORK/pyset.py" <<'PY'
# pyset.py LEVELS TRAIN TEST: the published audit's method, a set of
# canonical keys per level; prints the test items found, per level.
import json, re, sys, unicodedata
def audit(s):
    if s.startswith('\\[') and s.endswith('\\]'):
        s = s[2:-2]
    return s.replace(' ', '')
WS = re.compile(r'(\\[A-Za-z]+)(\s+(?=[A-Za-z]))?|\\(\s)\s*|\\.|\s+', re.S)
def ws_sub(m):
    if m.group(1):
        return m.group(1) + (' ' if m.group(2) else '')
    if m.group(3):
        return '\\ '
    return m.group(0) if m.group(0)[0] == '\\' else ''
def ws(s):
    if not s.isascii():
        s = unicodedata.normalize('NFC', s)
    s = s.strip()
    while len(s) >= 4 and s.startswith('\\[') and s.endswith('\\]'):
        s = s[2:-2].strip()
    return WS.sub(ws_sub, s)
fns = [{'audit': audit, 'ws': ws}[l] for l in sys.argv[1].split(',')]
train = json.load(open(sys.argv[2]))
sets = [set(f(s) for s in train) for f in fns]
test = json.load(open(sys.argv[3]))
print(' '.join(str(sum(1 for s in test if f(s) in k)) for f, k in zip(fns, sets)))
PY

# The keys in DuckDB's SQL: audit, and ws with placeholders (\x01 a kept
# space, \x02 a control space, \x03 an escaped backslash).
audit_sql() { echo "replace(CASE WHEN starts_with($1, '\\[') AND ends_with($1, '\\]') THEN substr($1, 3, length($1) - 4) ELSE $1 END, ' ', '')"; }
ws_sql() {
  local s="trim(nfc_normalize($1))"
  s="CASE WHEN length($s) >= 4 AND starts_with($s, '\\[') AND ends_with($s, '\\]') THEN trim(substr($s, 3, length($s) - 4)) ELSE $s END"
  s="replace($s, '\\\\', chr(3))"
  s="regexp_replace($s, '(\\\\[A-Za-z]+)\\s+([A-Za-z])', '\\1' || chr(1) || '\\2', 'g')"
  s="regexp_replace($s, '\\\\\\s+', chr(2), 'g')"
  s="regexp_replace($s, '\\s+', '', 'g')"
  echo "replace(replace(replace($s, chr(1), ' '), chr(2), '\\ '), chr(3), '\\\\')"
}
key_sql() { case $1 in audit) audit_sql "$2" ;; ws) ws_sql "$2" ;; esac; }

run() { # label, command...: records "label wall cpu rss_kb" in $WORK/runs and keeps stdout in $WORK/out
  local label=${1// /_}; shift
  sync # the previous run's output written back first, not during this one
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" ||
    { echo "$label failed:" >&2; cat "$WORK/err" >&2; exit 1; }
  read -r wall user sys rss < "$WORK/time"
  echo "$label $wall $(echo "$user + $sys" | bc -l) $rss" >> "$WORK/runs"
}
best() { # label: "wall cpu rss_kb" of its fastest run
  awk -v l="${1// /_}" '$1 == l { if (!n++ || $2 < w) { w = $2; c = $3; r = $4 } } END { print w, c, r }' "$WORK/runs"
}
report() { # job, peers...: one line per tool, leakaudit first, with the ratios
  local job=$1; shift
  read -r lw lc lr <<< "$(best "$job/leakaudit")"
  printf '%-34s %-10s %7.2f s %7.2f s %6d MB\n' "$job" leakaudit "$lw" "$lc" $((lr / 1024))
  for p in "$@"; do
    read -r pw pc pr <<< "$(best "$job/$p")"
    printf '%-34s %-10s %7.2f s %7.2f s %6d MB   leakaudit %.2fx faster (CPU %.2fx)\n' "$job" "$p" "$pw" "$pc" $((pr / 1024)) \
      "$(echo "$pw / $lw" | bc -l)" "$(echo "$pc / $lc" | bc -l)"
  done
}
agree() { # what, values...: every value equal, else fail
  local what=$1 first=$2; shift 2
  for v in "$@"; do
    [ "$v" = "$first" ] || { echo "$what: the tools disagree: $first / $*" >&2; exit 1; }
  done
}

echo "seed $SEED; DuckDB $(cat "$WORK/duckdb-version") (@duckdb/node-api@$DUCKDB_VERSION), $(python3 --version), leakaudit $("$BIN" --version 2>&1 | head -1); $(nproc) cores; $RUNS runs each, best wall time shown"
printf '%-34s %-10s %9s %9s %9s\n' job tool wall CPU peakRSS
for N in $SIZES; do
  TRAIN=$WORK/train-$N.json
  python3 "$HERE/gen-labels.py" "$DATA/labels" "$N" "$TRAIN" "$SEED"
  for levels in audit audit,ws; do
    job="overlap $N $levels"
    sql="WITH t AS (SELECT json AS s FROM read_json('$TRAIN', format='array', records=false)), q AS (SELECT json AS s FROM read_json('$TEST', format='array', records=false)) SELECT"
    sep=""
    for l in ${levels//,/ }; do
      sql="$sql$sep (SELECT count(*) FROM q WHERE $(key_sql "$l" q.s) IN (SELECT $(key_sql "$l" t.s) FROM t))"
      sep=","
    done
    for _ in $(seq "$RUNS"); do
      run "$job/python" python3 "$WORK/pyset.py" "$levels" "$TRAIN" "$TEST"; py=$(cat "$WORK/out")
      run "$job/duckdb" node "$WORK/npm/duck.mjs" "$sql"; duck=$(python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)[0])))' < "$WORK/out")
      run "$job/leakaudit" "$BIN" overlap --train "$TRAIN" --test "$TEST" --level "$levels" --json
      la=$(python3 -c 'import json,sys; print(" ".join(str(s["found"]) for s in json.load(sys.stdin)["splits"]))' < "$WORK/out")
      agree "$job: found" "$la" "$py" "$duck"
    done
    report "$job" python duckdb
    echo "$job: found $la"
  done
  if [[ " $DEDUP_SIZES " == *" $N "* ]]; then
    job="dedup $N audit (JSON)"
    a=$(audit_sql json)
    for i in $(seq "$RUNS"); do
      rm -rf "$WORK/clean" "$WORK/clean.jsonl"
      run "$job/duckdb" node "$WORK/npm/duck.mjs" "COPY (SELECT json FROM read_json('$TRAIN', format='array', records=false) WHERE $a NOT IN (SELECT $a FROM read_json('$TEST', format='array', records=false))) TO '$WORK/clean.jsonl' (FORMAT json)"
      duck=$(wc -l < "$WORK/clean.jsonl")
      rm -f "$WORK/clean.jsonl" # each tool writes right after the other's output is removed (README)
      run "$job/leakaudit" "$BIN" dedup --release "train=$TRAIN" --against "$TEST" --level audit --out "$WORK/clean" --json
      la=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["releases"][0]["kept"])' < "$WORK/out")
      agree "$job: kept" "$la" "$duck"
    done
    report "$job" duckdb
    echo "$job: kept $la of $N"
  fi
done

if [ "$PARQUET_ROWS" -gt 0 ]; then
  TRAIN=$WORK/train-pq.json
  python3 "$HERE/gen-labels.py" "$DATA/labels" "$PARQUET_ROWS" "$TRAIN" "$SEED"
  # 512 bytes of image per row (16 SHA-256 digests of its number), Snappy,
  # 10,000-row groups, as BenchmarkDedupParquet's release.
  img=""
  for k in $(seq 16); do img="$img${img:+ || }sha256(i::VARCHAR || '-$k')"; done
  node "$WORK/npm/duck.mjs" "COPY (SELECT {'bytes': unhex($img), 'path': printf('%08d.png', i)} AS image, s AS latex_formula FROM (SELECT row_number() OVER () - 1 AS i, json AS s FROM read_json('$TRAIN', format='array', records=false)) ORDER BY i) TO '$WORK/release.parquet' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 10000)" > /dev/null
  job="dedup $PARQUET_ROWS audit (Parquet)"
  a=$(audit_sql latex_formula)
  ta=$(audit_sql json)
  for i in $(seq "$RUNS"); do
    rm -rf "$WORK/clean" "$WORK/clean.parquet"
    run "$job/duckdb" node "$WORK/npm/duck.mjs" "COPY (SELECT * FROM read_parquet('$WORK/release.parquet') WHERE $a NOT IN (SELECT $ta FROM read_json('$TEST', format='array', records=false))) TO '$WORK/clean.parquet' (FORMAT parquet)"
    duck=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[0][0])' < "$WORK/out")
    rm -f "$WORK/clean.parquet" # each tool writes right after the other's output is removed (README)
    run "$job/leakaudit" "$BIN" dedup --release "train=$WORK/release.parquet" --against "$TEST" --level audit --out "$WORK/clean" --json
    la=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["releases"][0]["kept"])' < "$WORK/out")
    agree "$job: kept" "$la" "$duck"
  done
  # Read back by DuckDB, leakaudit's release is the input's rows that
  # DuckDB keeps, in input order (DuckDB's own output has them in another
  # order).
  differ=$(node "$WORK/npm/duck.mjs" "WITH want AS (SELECT row_number() OVER (ORDER BY file_row_number) - 1 AS r, image, latex_formula FROM read_parquet('$WORK/release.parquet', file_row_number=true) WHERE $a NOT IN (SELECT $ta FROM read_json('$TEST', format='array', records=false))), got AS (SELECT file_row_number AS r, image, latex_formula FROM read_parquet('$WORK/clean/train/release.parquet', file_row_number=true)) SELECT count(*) FROM got FULL JOIN want ON got.r = want.r AND got.image IS NOT DISTINCT FROM want.image AND got.latex_formula IS NOT DISTINCT FROM want.latex_formula WHERE got.r IS NULL OR want.r IS NULL")
  [ "$differ" = "[[0]]" ] || { echo "$job: leakaudit's release, read by DuckDB, is not the input's kept rows in order ($differ rows differ)" >&2; exit 1; }
  report "$job" duckdb
  echo "$job: kept $la of $PARQUET_ROWS ($(du -m "$WORK/release.parquet" | cut -f1) MB); DuckDB reads leakaudit's release back to the kept rows, in input order"
fi
