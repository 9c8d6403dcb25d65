"""A corpus of small realistic functions for astjax's transformations.

`ENTRIES` lists every case (see `registry.Entry`); the modules group them by
the constructs they exercise:

    programs  arithmetic, overwrites, reductions, broadcasting, linear algebra,
              indexing, jnp.where / maximum, plain-NumPy functions
    control   if/elif/else, conditional expressions, for / while loops,
              enumerate, zip, break, continue, early and multiple returns
    updates   .at[].set / .add in loops, y[i] += ... on local arrays
    calls     calls (same and other module), recursion, closures, lambdas
    helpers   functions called from `calls` (the cross-module callees)
"""
from .registry import ENTRIES, MODES, Entry  # noqa: F401
from . import programs, control, updates, calls  # noqa: F401  (registers the entries)

__all__ = ["ENTRIES", "MODES", "Entry", "by_name", "tags"]


def by_name(name):
    for e in ENTRIES:
        if e.name == name:
            return e
    raise KeyError(name)


def tags():
    """Every tag used, with how many entries carry it."""
    counts = {}
    for e in ENTRIES:
        for t in e.tags:
            counts[t] = counts.get(t, 0) + 1
    return dict(sorted(counts.items()))
