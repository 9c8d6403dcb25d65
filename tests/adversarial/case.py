"""The adversarial corpus's case record and the helpers that build inputs.

A category module defines its functions at module level (astjax reads their
source from the file) and registers each with `case(...)` after the
definition -- never as a decorator, so the function astjax reads is exactly
the one Python runs::

    def triangular(x):
        ...
    case(triangular, lambda r: (vec(r, 4),), "works")

outcome:
    "works"  -- ordinary code: the value must equal running the original
                function, the gradient must match central finite differences
                and (unless jvp=False) astjax.jvp must match them too.
    "either" -- correct numbers or a clear refusal are both acceptable.
    "refuse" -- must raise a clear error (see harness.assert_clear_refusal).

mode (what is checked):
    "grad"   -- scalar function: value_and_grad and jvp against the original
                function and finite differences (the default).
    "jac"    -- array (or tuple of arrays) output: jacrev and jacfwd against
                finite-difference Jacobians.
    "custom" -- `check(fn, args)` returns a list of (actual, expected, label)
                triples; expected values are computed without astjax (by
                running the function, finite differences, closed forms).

Inputs are float64 and drawn from a generator seeded by the case name.
"""
import zlib
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Case", "CASES", "case", "vec", "mat", "spd", "scalar", "pos", "OUTCOMES", "MODES", "long_only"]

OUTCOMES = ("works", "either", "refuse")
MODES = ("grad", "jac", "custom")

CASES = []


@dataclass
class Case:
    name: str
    fn: object
    make_args: object
    outcome: str
    category: str
    argnums: object = 0
    mode: str = "grad"
    jvp: bool = True
    check: object = None
    errors: tuple = ()          # extra exception types accepted as a clear refusal (as JAX raises them)
    error_match: str = None     # regex the message of such an exception must match
    fd_step: float = 1e-6
    rtol: float = 1e-5
    note: str = ""
    reference: object = None    # a plain-Python twin used as the oracle where fn's own run is not (JAX semantics)
    file: str = None            # the corpus file that registered the case (refusals must name it)

    @property
    def argnums_tuple(self):
        return (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)

    def args(self):
        """Fresh inputs (mutation cases write into them): same numbers on every call."""
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return tuple(self.make_args(rng))


_NAMES = set()      # the names in CASES (a linear scan per case was 2 s of every worker's collection)


def case(fn, make_args, outcome, *, name=None, argnums=0, mode="grad", jvp=True, check=None,
         errors=(), error_match=None, fd_step=1e-6, rtol=1e-5, note="", category=None,
         reference=None):
    """Register `fn` as an adversarial case; returns fn unchanged."""
    import sys
    caller = sys._getframe(1).f_globals
    assert outcome in OUTCOMES, outcome
    assert mode in MODES, mode
    assert mode != "custom" or check is not None
    category = category or caller["__name__"].rsplit(".", 1)[-1]
    name = f"{category}.{name or fn.__name__}"
    assert name not in _NAMES, f"duplicate case name {name}"
    _NAMES.add(name)
    CASES.append(Case(name=name, fn=fn, make_args=make_args, outcome=outcome, category=category,
                      argnums=argnums, mode=mode, jvp=jvp, check=check, errors=tuple(errors),
                      error_match=error_match, fd_step=fd_step, rtol=rtol, note=note, reference=reference,
                      file=caller["__file__"]))
    return fn


# ----------------------------------------------------------------- inputs (float64)
def vec(r, n, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, size=n).astype(np.float64)


def pos(r, n, lo=0.5, hi=1.5):
    return r.uniform(lo, hi, size=n).astype(np.float64)


def mat(r, n, m=None, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, size=(n, n if m is None else m)).astype(np.float64)


def spd(r, n):
    a = r.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(np.float64)


def scalar(r, lo=0.3, hi=1.2):
    return np.float64(r.uniform(lo, hi)) * np.ones((), dtype=np.float64)


def long_only(category, fixed_here, batteries=()):
    """The names of `category`'s cases that only the long profile runs (ASTJAX_LONG_PROPERTIES=1): the default
    profile (the suite's time budget) keeps the cases of the mechanisms fixed with the module (`fixed_here`,
    names without the category), the first case of each kind of check (a mode, and for a battery of
    compositions the battery, named by the suffix in `batteries`; never a "_jit" battery, whose Numba
    compiles take seconds) and every third other case."""
    mine = [c for c in CASES if c.category == category]
    assert set(fixed_here) <= {c.name.split(".", 1)[1] for c in mine}, "fixed_here names cases that do not exist"

    def kind(c):
        return c.mode, next((b for b in batteries if c.mode == "custom" and c.name.endswith(b)), "")
    first_of_each_kind = {next(c.name for c in mine if kind(c) == k) for k in {kind(c) for c in mine}
                          if k[1] != "_jit"}
    others = (c for c in mine if c.name.split(".", 1)[1] not in fixed_here)
    return {c.name for k, c in enumerate(others)
            if (k % 3 or kind(c)[1] == "_jit") and c.name not in first_of_each_kind}
