"""gen-labels.py SRC N OUT [SEED]: a training corpus of N labels for the scale
scripts, as a JSON list of strings: every label of the shared training
lists in SRC (files with "train" in their name), then copies of random
ones with one token replaced by a token of the first 20,000 labels (fixed
seed, 20261124 unless SEED is given, so the same N gives the same file)."""
import json, os, random, sys

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20261124
labels = []
for f in sorted(x for x in os.listdir(src) if "train" in x):
    labels += [s for s in json.load(open(os.path.join(src, f))) if isinstance(s, str)]
rng = random.Random(seed)
toks = [t for s in labels[:20000] for t in s.split()]
with open(out, "w", buffering=1 << 20) as w:
    w.write("[")
    for i in range(n):
        s = labels[i % len(labels)] if i < len(labels) else labels[rng.randrange(len(labels))]
        if i >= len(labels):
            t = s.split()
            if t:
                t[rng.randrange(len(t))] = rng.choice(toks)
            s = " ".join(t)
        w.write(("," if i else "") + json.dumps(s))
    w.write("]")
