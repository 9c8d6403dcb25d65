"""lax.associative_scan: the running combination of elements along an axis with an associative `fn`.

It runs as a sequential scan: element i of the result is fn(result[i-1], elems[i]), each taken with its
axis kept at size 1 (so `fn` sees arrays shaped as in JAX's batched calls). For an associative `fn` this
equals JAX's parallel scan. `elems` may be a tuple or list of arrays scanned together: `fn` then receives
and returns tuples (lists) of their slices, as JAX passes it the pytree. Inside a transformed function
normalization writes it as that Python loop (frontend/normalize/lax_control_flow.py), so it
differentiates like any loop.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd

__all__ = ["associative_scan"]


def associative_scan(fn, elems, reverse=False, axis=0):
    """The prefix combinations of `elems` (an array, or a tuple or list of arrays) along `axis` under `fn`."""
    if isinstance(elems, dict):
        raise NotImplementedError("astjax's lax.associative_scan scans an array or a tuple or list of arrays")
    together = isinstance(elems, (tuple, list))
    arrays = [nd(e) for e in elems] if together else [nd(elems)]
    pack = (lambda values: type(elems)(values)) if together else (lambda values: values[0])
    n = arrays[0].shape[axis]
    if any(a.shape[axis] != n for a in arrays):
        raise ValueError("lax.associative_scan: every array of elems needs the same length along axis "
                         f"{axis}, got {[a.shape[axis] for a in arrays]}")
    order = range(n - 1, -1, -1) if reverse else range(n)
    parts = [[] for _ in arrays]
    acc = None
    for i in order:
        item = pack([np.take(a, [i], axis=axis) for a in arrays])
        acc = item if acc is None else (fn(item, acc) if reverse else fn(acc, item))
        for p, value in zip(parts, acc if together else [acc]):
            p.append(nd(value))
    results = []
    for p, a in zip(parts, arrays):
        if reverse:
            p.reverse()
        results.append(wrap(np.concatenate(p, axis=axis)) if p else wrap(a.copy()))
    return pack(results)
