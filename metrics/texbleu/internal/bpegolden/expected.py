"""Independent TeXBLEU for leakaudit's tests (make goldens).

Writes metrics/texbleu/testdata/table.npy.gz, a made-up 50257x4 float32
embedding table, and expected.json, the TeXBLEU of fixed pairs computed
here with numpy from the published code's definition, with token ids from
the npm package gpt-3-encoder run under node. Nothing here comes from
leakaudit's Go code.

Usage: python3 expected.py NODE_MODULES_DIR
"""
import gzip, io, json, math, os, subprocess, sys

import numpy as np

node_modules = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "testdata")

rng = np.random.default_rng(20261124)
table = rng.standard_normal((50257, 4)).astype(np.float32)
buf = io.BytesIO()
np.save(buf, table)
with open(os.path.join(out, "table.npy.gz"), "wb") as f:
    with gzip.GzipFile(fileobj=f, mode="wb", filename="table.npy", mtime=0) as gz:
        gz.write(buf.getvalue())

pairs = [
    (r"x^{2}+y^{2}=z^{2}", r"x^{2}+y^{2}=z^{2}"),
    (r"x^{2}+y^{2}=z^{2}", r"x^{2}+y^{3}=z^{2}"),
    (r"\frac{a}{b}", r"\frac{a}{c}"),
    (r"\frac { 1 } { 2 }", r"\frac12"),
    (r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}", r"\sum_{i=1}^n i=\frac{n(n+1)}2"),
    (r"\alpha+\beta", r"\alpha + \gamma"),
    (r"a", r"b"),
    (r"x", r""),
    (r"", r""),
    (r"\int_0^1 f(x)\,dx", r"\int_{0}^{1}f(x)dx"),
]

def spacing(text):
    out = []
    for i, ch in enumerate(text):
        if ch == "\\" and (i == 0 or text[i - 1] != " "):
            out.append(" \\")
        else:
            out.append(ch)
    return "".join(out)

texts = sorted({spacing(t) for p in pairs for t in p})
proc = subprocess.run(["node", "-e", "const {encode}=require('gpt-3-encoder');"
                       "const t=JSON.parse(require('fs').readFileSync(0,'utf8'));"
                       "process.stdout.write(JSON.stringify(t.map(encode)))"],
                      input=json.dumps(texts).encode(), capture_output=True, check=True,
                      env=dict(os.environ, NODE_PATH=node_modules))
ids = dict(zip(texts, json.loads(proc.stdout)))

def token_distance(a, b):
    ea, eb = table[a].astype(np.float64), table[b].astype(np.float64)
    cos = float(ea @ eb / max(np.linalg.norm(ea) * np.linalg.norm(eb), 1e-8))
    return 0.5 * (1 - cos) ** 2 + 0.5 * math.tanh(0.1 * 0)

def ngram_similarity(r, p, n):
    rg = [r[i:i + n] for i in range(len(r) - n + 1)]
    pg = [p[i:i + n] for i in range(len(p) - n + 1)]
    L = min(len(rg), len(pg))
    if L <= 0:
        return 0
    total = sum(sum(token_distance(a, b) for a, b in zip(x, y)) for x, y in zip(rg[:L], pg[:L]))
    return 1 - total / (L * n)

expected = []
for ref, pred in pairs:
    r, p = ids[spacing(ref)][:512], ids[spacing(pred)][:512]
    sims = [ngram_similarity(r, p, n) for n in (1, 2)]
    score = math.exp(sum(0.5 * math.log(max(s, 1e-10)) for s in sims))
    expected.append({"ref": ref, "pred": pred, "ref_ids": r, "pred_ids": p, "texbleu": round(score, 4)})
with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print(len(expected), "pairs")
