"""jax.scipy.stats.mode and rankdata, computed by NumPy (this module is library code: it is never transformed).

rankdata's ranks are piecewise constant in the data: a declared non-differentiable primitive
(rules/stats_functions.py). mode's result is one of the data's values, but it jumps wherever two values
tie or stop tying, so it has no derivative: a derivative that reaches it is refused at the user's line.
"""
from typing import NamedTuple

import numpy as np

from ... import numpy as jnp
from ...dtypes import default_float

__all__ = ["ModeResult", "mode", "rankdata"]


class ModeResult(NamedTuple):
    mode: np.ndarray
    count: np.ndarray


def _check_nan_policy(nan_policy, name):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"astjax's {name}, as JAX's, supports only nan_policy='propagate'")


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """(most common value, its count) along `axis` (None: of all of `a`); among equally common values the
    smallest, as JAX and SciPy. The count is int32, the mode keeps `a`'s dtype."""
    _check_nan_policy(nan_policy, "mode")
    x = np.atleast_1d(np.asarray(jnp.asarray(a)))      # JAX's dtypes: Python ints are int32
    if axis is None:
        x, axis = x.ravel(), 0
        shape = (1,) * np.ndim(a) if keepdims else ()
    else:
        axis = axis % x.ndim
        shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape)) if keepdims else \
            tuple(s for i, s in enumerate(x.shape) if i != axis)
    columns = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
    modes = np.empty(columns.shape[1], dtype=x.dtype)
    counts = np.empty(columns.shape[1], dtype=np.int32)
    for j in range(columns.shape[1]):
        values, count = np.unique(columns[:, j], return_counts=True)
        k = int(np.argmax(count))
        modes[j], counts[j] = values[k], count[k]
    return ModeResult(modes.reshape(shape), counts.reshape(shape))


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks of `a` (from 1) along `axis` (None: of all of `a`, flattened), ties resolved by `method`
    ("average", "min", "max", "dense", "ordinal"); float32 (JAX's default float); a slice holding a NaN
    ranks as all NaN."""
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    x = np.asarray(a)
    if axis is not None:
        return np.apply_along_axis(rankdata, axis, x, method)
    x = x.ravel()
    dtype = default_float
    if np.isnan(x).any() if x.dtype.kind in "fc" else False:
        return np.full(x.shape, np.nan, dtype=dtype)
    order = np.argsort(x, kind="stable")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(x.size)
    if method == "ordinal":
        return (inverse + 1).astype(dtype)
    ordered = x[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    dense = np.cumsum(first)[inverse]
    if method == "dense":
        return dense.astype(dtype)
    count = np.concatenate([np.nonzero(first)[0], [first.size]]).astype(dtype)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)
