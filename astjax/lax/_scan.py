"""lax.associative_scan: the running combination of elements along an axis with an associative `fn`.

It runs as a sequential scan: element i of the result is fn(result[i-1], elems[i]), each taken with its
axis kept at size 1 (so `fn` sees arrays shaped as in JAX's batched calls). For an associative `fn` this
equals JAX's parallel scan. Inside a transformed function normalization writes it as that Python loop
(frontend/normalize/lax_control_flow.py), so it differentiates like any loop.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd

__all__ = ["associative_scan"]


def associative_scan(fn, elems, reverse=False, axis=0):
    """The prefix combinations of `elems` (one array) along `axis` under the associative `fn`."""
    if isinstance(elems, (tuple, list, dict)):
        raise NotImplementedError("astjax's lax.associative_scan scans one array; scan each, or use lax.scan")
    x = nd(elems)
    n = x.shape[axis]
    order = range(n - 1, -1, -1) if reverse else range(n)
    parts = []
    acc = None
    for i in order:
        item = np.take(x, [i], axis=axis)
        acc = item if acc is None else (fn(item, acc) if reverse else fn(acc, item))
        parts.append(nd(acc))
    if reverse:
        parts.reverse()
    return wrap(np.concatenate(parts, axis=axis)) if parts else wrap(x.copy())
