"""The corpus registry: each entry is a function plus how to call and check it.

A corpus module registers functions with the `entry` decorator (stackable:
one function may be registered with several input cases, e.g. one per
branch)::

    @entry(args=lambda r: (vec(r, 4), 3), argnums=0, tags={"for_range"})
    def sum_of_sines(x, n):
        ...

`entry` returns the function unchanged, so astjax reads its source from the
corpus file like any user function. Closures (functions returned by a
factory) are registered with `register(fn, ...)`.

Inputs are float64 (astjax keeps the dtype of float64 arrays; Python floats
would become float32), built from a generator seeded by the entry's name so
every run sees the same numbers. Inputs are chosen away from branch
boundaries and kinks so that central finite differences are valid.
"""
import zlib
from dataclasses import dataclass, field

import numpy as np

import astjax.numpy as jnp

__all__ = ["Entry", "ENTRIES", "entry", "register", "scalar", "vec", "mat", "spd", "MODES"]

MODES = ("grad", "value_and_grad", "jvp", "hessian", "source")

ENTRIES = []


@dataclass(frozen=True)
class Entry:
    """One corpus case.

    fn: the function (defined in a corpus module, so astjax can read its source).
    make_args: rng -> tuple of positional arguments (float64 arrays, ints, ...).
    argnums: int or tuple of ints: the differentiable arguments. Every other
        argument (integer counts, fixed thresholds) stays fixed.
    tags: the constructs the function exercises.
    xfail: mode -> reason, for modes known to fail because of astjax itself
        ("grad", "value_and_grad", "jvp", "hessian", "source"). Reasons listed in
        `known_failures.XFAIL` are merged in when the entry is registered.
    fd_step: central finite-difference step.
    """

    name: str
    fn: object
    make_args: object
    argnums: object
    tags: frozenset
    xfail: dict = field(default_factory=dict, hash=False, compare=False)
    fd_step: float = 1e-6

    @property
    def argnums_tuple(self):
        return (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)

    def args(self):
        """A fresh tuple of inputs (same numbers on every call)."""
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return tuple(self.make_args(rng))

    @property
    def scalar_input(self):
        """Whether every differentiable argument is a 0-d float array."""
        args = self.args()
        return all(np.ndim(args[i]) == 0 for i in self.argnums_tuple)

    def __repr__(self):
        return f"<corpus entry {self.name}>"


def _add(name, fn, args, argnums, tags, xfail, fd_step):
    if any(e.name == name for e in ENTRIES):
        raise ValueError(f"duplicate corpus entry name {name!r}")
    from .known_failures import XFAIL
    xfail = dict(xfail or {}, **XFAIL.get(name, {}))
    unknown = set(xfail) - set(MODES)
    if unknown:
        raise ValueError(f"{name}: unknown xfail modes {unknown}")
    ENTRIES.append(Entry(name=name, fn=fn, make_args=args, argnums=argnums, tags=frozenset(tags),
                         xfail=xfail, fd_step=fd_step))


def entry(args, argnums=0, tags=(), xfail=None, case=None, fd_step=1e-6):
    """Register the decorated function (returned unchanged); `case` names a variant's inputs."""
    def decorate(fn):
        name = fn.__name__ if case is None else f"{fn.__name__}-{case}"
        _add(name, fn, args, argnums, tags, xfail, fd_step)
        return fn
    return decorate


def register(fn, name, args, argnums=0, tags=(), xfail=None, fd_step=1e-6):
    """Register a function object that cannot be decorated (a closure built by a factory)."""
    _add(name, fn, args, argnums, tags, xfail, fd_step)
    return fn


# ------------------------------------------------------------------ inputs
def _as_array(a):
    return jnp.asarray(np.asarray(a, dtype=np.float64))


def scalar(rng, lo=-1.0, hi=1.0):
    """A 0-d float64 array uniform in [lo, hi]."""
    return _as_array(rng.uniform(lo, hi))


def vec(rng, n, lo=-1.0, hi=1.0):
    """A float64 vector of length n, uniform in [lo, hi]."""
    return _as_array(rng.uniform(lo, hi, size=n))


def mat(rng, m, n, lo=-1.0, hi=1.0):
    """A float64 m x n matrix, uniform in [lo, hi]."""
    return _as_array(rng.uniform(lo, hi, size=(m, n)))


def spd(rng, n):
    """A well-conditioned symmetric positive definite float64 matrix."""
    a = rng.uniform(-1, 1, size=(n, n))
    return _as_array(a @ a.T / n + np.eye(n))
