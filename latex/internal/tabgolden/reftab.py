# Driver for tabgolden: runs the reference's own tabular preprocessing
# (tokenize_latex, normalize_latex, token_add_color_RGB) as latex2bbox_color does.
import sys, os, json, tempfile
sys.path.insert(0, sys.argv[1])  # the reference's cdm/ directory
import types
for _m in ("numpy", "PIL"):
    sys.modules.setdefault(_m, types.ModuleType(_m))
sys.modules["PIL"].Image = None
from modules.tokenize_latex.tokenize_latex import tokenize_latex
from modules.latex_processor import normalize_latex, token_add_color_RGB
tmp = tempfile.mkdtemp()
for i, line in enumerate(sys.stdin):
    src = json.loads(line)
    latex = src.replace("\n", " ").replace("\\%", "<PERCENTAGETOKEN>")
    ret, new = tokenize_latex(latex, middle_file=os.path.join(tmp, "m%d.txt" % i))
    rec = {"input": src, "tokenize_ok": bool(ret and new), "tokenized": new if (ret and new) else None}
    if not (ret and new):
        new = latex
    if any('\u4e00' <= c <= '\u9fff' for c in new):
        new = new.replace("\\mathrm", "\\text")
    new = new.replace("< P E R C E N T A G E T O K E N >", "\\%")
    try:
        norm = normalize_latex(new)
        l_split = norm.strip().split(' ')
        toks = []
        idx = 0
        while idx < len(l_split):
            l_split, idx, toks = token_add_color_RGB(l_split, idx, toks)
        rec.update(normalized=norm, tokens=toks, colored=" ".join(l_split))
    except Exception as e:
        rec.update(error=repr(e))
    print(json.dumps(rec, ensure_ascii=False))
