"""Dump every generated source of the adversarial corpus and the rule table to OUT/ (one file per case).

For each case: astjax.source of grad and jacfwd (jacrev too for array outputs, hessian for each rule
primitive's first case), plus every (label, text) any Derivation built meanwhile (callees included);
refusals are recorded by type and message. A change meant to leave generated code as it is must leave
`diff -r` of two runs (before, after) empty.

    python benchmarks/dump_generated_sources.py OUT [CASE_SUBSTRING]     (WHICH=adv or WHICH=rules: one table)
"""
import os
import re
import sys

ROOT = os.environ.get("WT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
import numpy as np  # noqa: E402

import astjax  # noqa: E402
from astjax.transforms import derivation as D  # noqa: E402

assert astjax.__file__.startswith(ROOT), astjax.__file__
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
LOG = []
_orig = D.Derivation._generate_from


def _recording(self, *a, **k):
    fn = _orig(self, *a, **k)
    LOG.append(self.sources[-1])
    return fn


D.Derivation._generate_from = _recording
_ADDR = re.compile(r" at 0x[0-9a-f]+")


def attempt(lines, what, thunk):
    del LOG[:]
    try:
        text = thunk()
    except BaseException as exc:  # noqa: BLE001
        if isinstance(exc, KeyboardInterrupt):
            raise
        text = f"ERROR {type(exc).__name__}: {_ADDR.sub('', str(exc))}"
    lines.append(f"===== {what}\n{text}\n")
    for label, src in LOG:
        lines.append(f"--- built {label}\n{src}\n")


def dump(name, transforms):
    lines = []
    for what, thunk in transforms:
        attempt(lines, what, thunk)
    with open(os.path.join(OUT, re.sub(r"[^\w.-]", "_", name) + ".txt"), "w") as f:
        f.write("\n".join(lines))


def adversarial(selector):
    from adversarial import CASES
    for c in CASES:
        if selector and selector not in c.name:
            continue
        args = c.args()
        an = c.argnums
        ts = [("grad", lambda: astjax.source(astjax.grad(c.fn, argnums=an))),
              ("jacfwd", lambda: astjax.source(astjax.jacfwd(c.fn, argnums=an)))]
        if c.mode == "jac":
            ts.append(("jacrev", lambda: astjax.source(astjax.jacrev(c.fn, argnums=an))))
        dump("adv." + c.name, ts)


def rules(selector):
    import rule_cases
    seen = set()
    for c in rule_cases.CASES:
        cid = f"{c.primitive}-{c.label}"
        if selector and selector not in cid:
            continue
        ts = [("grad", lambda: astjax.source(astjax.grad(c.fn, argnums=c.argnums))),
              ("jacfwd", lambda: astjax.source(astjax.jacfwd(c.fn, argnums=c.argnums)))]
        if c.primitive not in seen:
            seen.add(c.primitive)
            ts.append(("hessian", lambda: astjax.source(astjax.hessian(c.fn, argnums=c.argnums[0]))))
        dump("rule." + cid, ts)


if __name__ == "__main__":
    sel = sys.argv[2] if len(sys.argv) > 2 else ""
    which = os.environ.get("WHICH", "adv,rules")
    if "adv" in which:
        adversarial(sel)
    if "rules" in which:
        rules(sel)
