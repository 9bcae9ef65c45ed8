#!/usr/bin/env bash
# overlap-vs-python.sh: leakaudit overlap against the published audit's own
# method (a Python set of canon_audit keys) on one machine, in one run.
#
# Generates, from the shared label lists, a training corpus of N labels
# (default 3M: real labels and copies with one random token edit, fixed
# seed), then times on the HME100K test list (24,607 labels) at the audit
# level: the Python set (Debian's python3), leakaudit cold (no index: the
# corpus streamed past the test keys), leakaudit building an index (--db),
# and leakaudit warm (the index reused). Prints wall time, peak RSS and the
# ratios to Python. Needs ../shared/data (or $LEAKAUDIT_DATA) and bin/leakaudit.
set -euo pipefail
N=${N:-3000000}
DATA=${LEAKAUDIT_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
BIN=${BIN:-bin/leakaudit}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TEST=$DATA/labels/hme100k_test_captions.json
python3 "$(dirname "$0")/gen-labels.py" "$DATA/labels" "$N" "$WORK/train.json"
cat > "$WORK/pyset.py" <<'PY'
import json, sys
def canon(s):
    if s.startswith('\\[') and s.endswith('\\]'):
        s = s[2:-2]
    return s.replace(' ', '')
train = set(canon(s) for s in json.load(open(sys.argv[1])))
test = json.load(open(sys.argv[2]))
print(sum(1 for s in test if canon(s) in train))
PY
run() { # label, command...: prints "label seconds rss_kb" and the result
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/out" 2>/dev/null
  read -r secs rss < "$WORK/time"
  echo "$label $secs $rss"
}
export LEAKAUDIT_NO_HASH_CACHE=1 # cold means cold: every checksum computed
py=$(run python python3 "$WORK/pyset.py" "$WORK/train.json" "$TEST")
pyfound=$(cat "$WORK/out")
cold=$(run cold "$BIN" overlap --train "$WORK/train.json" --test "$TEST" --level audit --json)
coldfound=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["splits"][0]["found"])' "$WORK/out")
build=$(run index "$BIN" overlap --train "$WORK/train.json" --test "$TEST" --level audit --json --db "$WORK/db")
unset LEAKAUDIT_NO_HASH_CACHE
run warmup "$BIN" overlap --train "$WORK/train.json" --test "$TEST" --level audit --json --db "$WORK/db" > /dev/null
warm=$(run warm "$BIN" overlap --train "$WORK/train.json" --test "$TEST" --level audit --json --db "$WORK/db")
pys=$(echo "$py" | cut -d' ' -f2)
echo "overlap at the audit level, $N training labels, HME100K test (24,607): found $coldfound (python $pyfound)"
printf '%-8s %8s %10s %8s\n' run seconds peakRSS_MB "×python"
for r in "$py" "$cold" "$build" "$warm"; do
  set -- $r
  printf '%-8s %8s %10d %8.1f\n' "$1" "$2" $(( $3 / 1024 )) "$(echo "$pys / $2" | bc -l)"
done
[ "$coldfound" = "$pyfound" ] || { echo "leakaudit and the Python set disagree" >&2; exit 1; }
