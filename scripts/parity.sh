#!/usr/bin/env bash
# CDM parity on fresh pairs (issue 34): draws N (ground truth, prediction)
# pairs with a seed from the shared data (printed: im2latex-100k test and
# validation formulas; handwritten: HME100K test, CROHME 2014/2016/2019 and
# UniMER-HWE labels, and the shared prediction files' own wrong
# predictions), with a recogniser's edits (a dropped, substituted, swapped
# or inserted token, a cut tail, rewrites that render the same); runs the
# reference CDM on them when it is installed; and prints, per kind: pairs,
# left out, decisions agree, F1 identical, leakaudit-exact-but-reference-not.
#
# Environment (all optional):
#   N=600              pairs per kind
#   SEED=<random>      the seed; drawn from /dev/urandom when unset (a
#                      figure to report comes from a seed drawn after the
#                      code was written, never from committed pairs)
#   KINDS="printed handwritten"
#   REFCDM=<dir>       the reference's cdm/ folder, set up as
#                      ../shared/docs/reference-cdm-setup.md says; without
#                      it only leakaudit scores
#   P=2                the reference's worker processes
#   OUT=${TMPDIR:-/tmp}/leakaudit-parity   where pairs and outputs go
#                      (never the repository)
#   LEAKAUDIT_DATA     the shared data (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-600}
KINDS=${KINDS:-printed handwritten}
P=${P:-2}
OUT=${OUT:-${TMPDIR:-/tmp}/leakaudit-parity}
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
mkdir -p "$OUT"
go build -o "$OUT/paritypairs" ./metrics/cdm/internal/paritypairs
echo "seed $SEED, $N pairs per kind, outputs in $OUT"
for kind in $KINDS; do
	name="$kind-$SEED"
	pairs="$OUT/$name.json"
	"$OUT/paritypairs" gen -kind "$kind" -n "$N" -seed "$SEED" -o "$pairs"
	ref=()
	if [ -n "${REFCDM:-}" ] && [ -f "$REFCDM/evaluation.py" ]; then
		# the reference reuses renders it finds: start from an empty folder
		refout="$OUT/ref-$name"
		rm -rf "$refout"
		(cd "$REFCDM" && /usr/bin/python3 evaluation.py -i "$pairs" -o "$refout" -p "$P" >"$OUT/ref-$name.log" 2>&1)
		ref=(-ref "$refout/$name/metrics_res.json")
	else
		echo "REFCDM not set (or no evaluation.py there): leakaudit's scores only"
	fi
	echo "== $kind (seed $SEED)"
	"$OUT/paritypairs" compare -pairs "$pairs" "${ref[@]}"
done
