#!/bin/sh
# Compare leakaudit neardup with findimagedupes (Debian package) on the same
# rasterized InkML test sets: recall of each item's own CROHME bitmap and
# pairs with any other bitmap ("wrong"; pairs between files with the same
# strokes, such as CROHME 2014's seven duplicated expressions, and pairs
# with a pixel copy of the item's own bitmap, such as CROHME train's
# near-identical formulaire035-equation008/073, count as copies, as
# neardup's TestHostileInkMatchRealData counts them).
#
#   scripts/findimagedupes-compare.sh DATA SETS OUT
#
# DATA is the shared data folder, SETS a folder made by
#   go run ./scripts/inkraster -ink DATA/crohme-inkml/2014 -out SETS/2014 -seeds …
#   go run ./scripts/inkraster -ink DATA/crohme-inkml/train-sample -out SETS/train-sample -seeds …
# and OUT a new folder for the outputs. Needs findimagedupes, python3 and a
# built bin/leakaudit. Pixel copies among the bitmaps are found by
# leakaudit itself (CROHME train searched against the bitmaps: pairs
# pixel-identical, or within pHash 4 and fine distance 12).
set -eu
[ $# -eq 3 ] || { echo "usage: $0 DATA SETS OUT" >&2; exit 2; }
DATA=$1 SETS=$2 OUT=$3
[ -e "$OUT" ] && { echo "$OUT exists" >&2; exit 2; }
command -v findimagedupes >/dev/null || { echo "findimagedupes not installed (apt-get install findimagedupes)" >&2; exit 1; }
[ -x bin/leakaudit ] || { echo "bin/leakaudit not built (go build -o bin/leakaudit ./cmd/leakaudit)" >&2; exit 1; }
for src in 2014 train-sample; do
  [ -d "$SETS/$src" ] || { echo "$SETS/$src not found (see the header)" >&2; exit 2; }
done
mkdir -p "$OUT"
# Bitmap fingerprints once.
findimagedupes -q -n -f "$OUT/bitmaps.db" -R "$DATA/crohme/2014/img" "$DATA/crohme/train/img"
tests=""
for src in 2014 train-sample; do
  for set in "$SETS/$src"/*/; do
    name=$(basename "$set")-$src
    cp "$OUT/bitmaps.db" "$OUT/$name.db"
    findimagedupes -q -f "$OUT/$name.db" -a -R "$set" > "$OUT/$name.fid.txt" || true
    rm -f "$OUT/$name.db"
    tests="$tests --test $name=$set"
  done
done
XDG_CACHE_HOME="$OUT/cache" bin/leakaudit neardup --train c14="$DATA/crohme/2014" --train tr="$DATA/crohme/train" $tests --test trself="$DATA/crohme/train" --json > "$OUT/leakaudit.json"
python3 - "$DATA" "$SETS" "$OUT" <<'PY'
import json, os, re, sys, glob
data, sets, out = sys.argv[1:4]
def sig(p):
    t = re.findall(r'<trace(?:\s[^>]*)?>(.*?)</trace>', open(p, errors='replace').read(), re.S)
    return '.'.join(str(x.count(',')) for x in t)
sigs, own = {}, {}
for src, corpus, sub in (('2014', 'c14', '2014'), ('train-sample', 'tr', 'train-sample/*')):
    for p in glob.glob(f'{data}/crohme-inkml/{sub}/*.inkml'):
        stem = os.path.basename(p)[:-6]
        sigs[stem] = sig(p)
bitmaps = {'c14': {f[:-4] for f in os.listdir(f'{data}/crohme/2014/img')}, 'tr': {f[:-4] for f in os.listdir(f'{data}/crohme/train/img')}}
def corpus_of(path):
    return 'c14' if '/crohme/2014/' in path else 'tr' if '/crohme/train/' in path else None
def stem(p): return os.path.splitext(os.path.basename(p))[0]
rep = json.load(open(f'{out}/leakaudit.json'))
# Pixel copies among CROHME train's bitmaps (identical, or all but).
pixcopy = set()
for p in rep['pairs']:
    if p['test_split'] == 'trself' and p['train_split'] == 'tr' and p['train_id'] != p['test_id'] and (
            p.get('identical') or p['distance'] <= 4 and p['fine_distance'] <= 12):
        pixcopy.add((p['test_id'], p['train_id']))
        pixcopy.add((p['train_id'], p['test_id']))
def copy(q, c, t, ownc):
    return c == ownc and (t == q or (sigs.get(q) and sigs.get(q) == sigs.get(t)) or (q, t) in pixcopy)
rows = []
for src, ownc in (('2014', 'c14'), ('train-sample', 'tr')):
    for set_ in sorted(glob.glob(f'{sets}/{src}/*/')):
        name = os.path.basename(set_.rstrip('/')) + '-' + src
        queries = {stem(f) for f in os.listdir(set_) if stem(f) in bitmaps[ownc]}
        # findimagedupes: groups of similar files, one per line
        found, wrong = set(), 0
        for line in open(f'{out}/{name}.fid.txt'):
            files = line.split()
            qs = [stem(f) for f in files if corpus_of(f) is None]
            bs = [(corpus_of(f), stem(f)) for f in files if corpus_of(f)]
            for q in qs:
                for c, t in bs:
                    if c == ownc and t == q: found.add(q)
                    elif not copy(q, c, t, ownc): wrong += 1
        lf, lw = set(), 0
        for p in rep['pairs']:
            if p['test_split'] != name: continue
            if p['train_split'] == ownc and p['train_id'] == p['test_id']: lf.add(p['test_id'])
            elif not copy(p['test_id'], p['train_split'], p['train_id'], ownc): lw += 1
        rows.append((name, len(queries), len(lf & queries), lw, len(found & queries), wrong))
print('| set | items | leakaudit found | leakaudit wrong pairs | findimagedupes found | findimagedupes wrong pairs |')
print('|---|---:|---:|---:|---:|---:|')
for r in rows:
    print(f'| {r[0]} | {r[1]} | {r[2]} ({100*r[2]/max(r[1],1):.1f}%) | {r[3]} | {r[4]} ({100*r[4]/max(r[1],1):.1f}%) | {r[5]} |')
PY
