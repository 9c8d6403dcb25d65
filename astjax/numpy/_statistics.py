"""Order statistics and moments: quantile, percentile, median (and their NaN-ignoring twins),
average, cov and corrcoef, with JAX's dtypes (float32 for integer input).

Quantiles follow NumPy's methods "linear" (the default), "lower", "higher",
"midpoint" and "nearest": each result is a weighted sum of one or two order
statistics of its slice. `quantile_plan` says which elements and with which
weights, so the value, its tangent and its adjoint all read the same plan
(astjax/rules/statistics.py): the derivative flows to the order statistics
used, as in JAX. At a tie the derivative goes to the element a stable sort
puts in that position. A slice holding a NaN (for `nanquantile`: only NaNs)
gives NaN, and no derivative, as JAX's `where(isnan, nan, ...)`.
"""
import numpy as np

from ._promote import (
    F32,
    check_no_out as _check_no_out,
    nd as _nd,
    out as _out,
)

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")
_PERCENT = {"quantile": False, "nanquantile": False, "percentile": True, "nanpercentile": True}


def _float(a):
    return a.dtype if a.dtype.kind in "fc" else F32


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(sorted(int(a) % max(ndim, 1) for a in axes))


class QuantilePlan:
    """Which elements of `a` a quantile reads, with which weights.

    rows (R,) and columns (Q, R, 2) index `a` moved to (R, n) (the reduced axes last,
    flattened); weights (Q, R, 2); nan (Q, R) where the result is NaN.
    """

    def __init__(self, a, q, axis, method, keepdims, kind, slope=False):
        if method not in _METHODS:
            raise ValueError(f"{kind}: method must be one of {_METHODS}, not {method!r}")
        a = _nd(a)
        q = np.asarray(q, dtype=np.float64)    # a Python 0.3 is read in float64, not float32
        if _PERCENT[kind]:
            q = q / 100.0
        if np.any((q < 0) | (q > 1)) or np.any(np.isnan(q)):
            raise ValueError(f"{kind}: q must lie in [0, {100 if _PERCENT[kind] else 1}]")
        self.shape = a.shape
        self.axes = _axes(axis, a.ndim)
        self.q_shape = q.shape
        rest = tuple(n for i, n in enumerate(a.shape) if i not in self.axes)
        kept = tuple(1 if i in self.axes else n for i, n in enumerate(a.shape))
        self.out_shape = q.shape + (kept if keepdims else rest)
        self.moved_shape = rest + tuple(a.shape[i] for i in self.axes)
        n = int(np.prod([a.shape[i] for i in self.axes], dtype=np.int64))
        x = self.moved(a)
        R = x.shape[0]
        order = np.argsort(x, axis=-1, kind="stable")           # NaNs last
        isnan = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
        if kind.startswith("nan"):
            count = (~isnan).sum(axis=-1)
            nan = count == 0
        else:
            count = np.full(R, n)
            nan = isnan.any(axis=-1)
        if n == 0:
            raise ValueError(f"{kind} of an empty slice")
        virtual = q.reshape(-1, 1) * (np.maximum(count, 1) - 1)      # (Q, R)
        below = np.floor(virtual)
        above = np.minimum(np.ceil(virtual), np.maximum(count, 1) - 1)
        if method == "linear":
            lo, hi, frac = below, np.minimum(below + 1, np.maximum(count, 1) - 1), virtual - below
        elif method == "lower":
            lo, hi, frac = below, below, np.zeros_like(virtual)
        elif method == "higher":
            lo, hi, frac = above, above, np.zeros_like(virtual)
        elif method == "midpoint":
            lo, hi, frac = below, above, np.where(above > below, 0.5, 0.0)
        else:
            nearest = np.around(virtual)
            lo, hi, frac = nearest, nearest, np.zeros_like(virtual)
        positions = np.stack([lo, hi], axis=-1).astype(np.intp)    # (Q, R, 2) in sorted order
        self.rows = np.arange(R)
        self.columns = order[self.rows[None, :, None], positions]
        weights = np.stack([1.0 - frac, frac], axis=-1)
        if slope:      # d result / d q: only "linear" moves with q, by (count - 1) (x[hi] - x[lo])
            step = (np.maximum(count, 1) - 1) * (hi > lo) * (1.0 if method == "linear" else 0.0)
            step = step / 100.0 if _PERCENT[kind] else step
            weights = np.stack([-step, step], axis=-1)
        self.slope = slope
        self.nan = np.broadcast_to(nan, virtual.shape)
        self.weights = np.where(self.nan[..., None], 0.0, weights)

    def moved(self, a):
        """`a` with the reduced axes last and flattened: (R, n)."""
        a = np.asarray(a)
        others = [i for i in range(len(self.shape)) if i not in self.axes]
        moved = np.transpose(np.broadcast_to(a, self.shape), others + list(self.axes))
        return moved.reshape(int(np.prod(moved.shape[:len(others)], dtype=np.int64)), -1)

    def gather(self, t):
        """The plan applied to `t` (the value, or a tangent): shaped like the result."""
        x = self.moved(t)
        picked = x[self.rows[None, :, None], self.columns]
        result = np.sum(picked * self.weights.astype(x.dtype, copy=False), axis=-1)
        if result.dtype.kind in "fc" and not self.slope:
            result = np.where(self.nan, np.nan, result)
        return result.reshape(self.out_shape)

    def scatter(self, g):
        """The transpose of `gather`: `g` (shaped like the result) spread onto `a`'s elements."""
        g = np.broadcast_to(np.asarray(g), self.out_shape).reshape(self.weights.shape[:2])
        out = np.zeros((len(self.rows), int(np.prod([self.shape[i] for i in self.axes], dtype=np.int64))),
                       dtype=np.result_type(g.dtype, np.float32))
        rows = np.broadcast_to(self.rows[None, :, None], self.columns.shape)
        np.add.at(out, (rows, self.columns), g[..., None] * self.weights)
        others = [i for i in range(len(self.shape)) if i not in self.axes]
        moved = out.reshape(self.moved_shape)
        return np.transpose(moved, np.argsort(others + list(self.axes)))


def quantile_plan(a, q, axis=None, method="linear", keepdims=False, kind="quantile", slope=False):
    """The QuantilePlan of a quantile-family call (kind: quantile, nanquantile, percentile, nanpercentile);
    slope=True: the plan of d result / d q instead (nonzero for method="linear" only)."""
    return QuantilePlan(a, q, axis, method, keepdims, kind, slope)


def _quantile(a, q, axis, out, method, keepdims, interpolation, kind):
    _check_no_out(out, kind)
    if interpolation is not None:
        method = interpolation
    a = _nd(a)
    dtype = np.result_type(_float(a), *([np.asarray(q).dtype] if isinstance(q, np.ndarray) and
                                        np.asarray(q).dtype.kind == "f" else []))
    return _out(quantile_plan(a, q, axis, method, keepdims, kind).gather(a.astype(dtype, copy=False)))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             interpolation=None):
    """The q-th quantile(s) along `axis` (q in [0, 1]); a NaN in a slice gives NaN."""
    return _quantile(a, q, axis, out, method, keepdims, interpolation, "quantile")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                interpolation=None):
    """quantile of the non-NaN elements (NaN for an all-NaN slice)."""
    return _quantile(a, q, axis, out, method, keepdims, interpolation, "nanquantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               interpolation=None):
    """The q-th percentile(s) along `axis` (q in [0, 100])."""
    return _quantile(a, q, axis, out, method, keepdims, interpolation, "percentile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  interpolation=None):
    """percentile of the non-NaN elements (NaN for an all-NaN slice)."""
    return _quantile(a, q, axis, out, method, keepdims, interpolation, "nanpercentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along `axis` (the mean of the two middle elements of an even slice)."""
    return _quantile(a, 0.5, axis, out, "linear", keepdims, None, "quantile")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median of the non-NaN elements (NaN for an all-NaN slice)."""
    return _quantile(a, 0.5, axis, out, "linear", keepdims, None, "nanquantile")


# ------------------------------------------------------------------ moments


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The (weighted) mean along `axis`; returned=True also gives the sum of the weights. float32 for ints."""
    a = _nd(a)
    if a.dtype.kind not in "fc":
        a = a.astype(F32)
    if weights is not None:
        weights = _nd(weights)
        if weights.dtype.kind not in "fc":
            weights = weights.astype(a.dtype)
    avg, total = np.average(a, axis=axis, weights=weights, returned=True, keepdims=keepdims)
    dtype = np.result_type(a.dtype, weights.dtype) if weights is not None else a.dtype
    avg = _out(np.asarray(avg, dtype=dtype))
    if returned:
        return avg, _out(np.broadcast_to(np.asarray(total, dtype=dtype), avg.shape).copy())
    return avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of m (and y); float32 for ints."""
    m = _nd(m)
    dtype = _float(m) if y is None else np.result_type(_float(m), _float(_nd(y)))
    result = np.cov(m, None if y is None else _nd(y), rowvar=rowvar, bias=bias, ddof=ddof,
                    fweights=None if fweights is None else _nd(fweights),
                    aweights=None if aweights is None else _nd(aweights))
    return _out(np.asarray(result, dtype=dtype))


def corrcoef(x, y=None, rowvar=True):
    """The correlation coefficients of the variables in the rows of x (and y); float32 for ints."""
    x = _nd(x)
    dtype = _float(x) if y is None else np.result_type(_float(x), _float(_nd(y)))
    with np.errstate(invalid="ignore", divide="ignore"):
        result = np.corrcoef(x, None if y is None else _nd(y), rowvar=rowvar)
    return _out(np.asarray(result, dtype=dtype))
