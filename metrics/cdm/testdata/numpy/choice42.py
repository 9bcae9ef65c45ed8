# numpy default_rng(42).choice(n, k, replace=False), 51 draws per (n, k): what one ransac call samples
import json, sys, numpy as np
ns = list(range(3, 41)) + [64, 100, 255, 256, 257, 500, 1000, 9999, 10000, 10001, 123457]
out = {"numpy": np.__version__, "cases": []}
for k in (2, 3):
    for n in ns:
        if k >= n: continue
        rng = np.random.default_rng(42)
        out["cases"].append({"n": n, "k": k, "draws": [[int(v) for v in rng.choice(n, k, replace=False)] for _ in range(51)]})
s = json.dumps(out, separators=(",", ":"))
s = s.replace('{"n"', '\n{"n"')
open(sys.argv[1], "w").write(s + "\n")
