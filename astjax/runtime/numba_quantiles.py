"""Numba lowerings of median, quantile and percentile (method='linear', one q) and their adjoint.

Each row of the reduced axis (a literal int, or the flattened array for None) is ordered by a
stable merge-sort argsort (NaN last, as the reference's `np.argsort(kind="stable")`); the result
interpolates between the order statistics at floor(q (n - 1)) and the next one with NumPy's lerp,
and is NaN where the row holds a NaN. The adjoint puts g (1 - frac) and g frac back on those two
elements, the ones the reference's QuantilePlan picks (same stable order, so ties match). Other
methods, q arrays, the nan-variants and axis tuples are declined.
"""
import math

import numpy as np
from numba import njit, types

from .. import numpy as jnp
from ..rules import statistics
from .numba_build import build, lowers
from .numba_typing import dtype_of, is_array, is_none, literal_value, result_shape_dtype


@njit(error_model="numpy")
def _plan(row, q):
    """(lower index, upper index, fraction, has nan) of a row's linear quantile q in [0, 1]."""
    order = np.argsort(row, kind="mergesort")
    n = row.size
    if n == 0:
        raise ValueError("quantile of an empty slice")
    if not (0.0 <= q <= 1.0):
        raise ValueError("quantiles must be in the range [0, 1]")
    virtual = q * (n - 1)
    below = math.floor(virtual)
    lo = int(below)
    hi = min(lo + 1, n - 1)
    nan = False
    for v in row:
        if v != v:
            nan = True
    return order[lo], order[hi], virtual - below, nan


@njit(error_model="numpy")
def _row_quantile(row, q):
    i, j, t, nan = _plan(row, q)
    if nan:
        return np.nan
    a, b = np.float64(row[i]), np.float64(row[j])
    diff = b - a
    return b - diff * (1.0 - t) if t >= 0.5 else a + diff * t


@njit(error_model="numpy")
def _row_adjoint(row, q, g, out):
    i, j, t, nan = _plan(row, q)
    if not nan:
        out[i] += g * (1.0 - t)
        out[j] += g * t


def _axis(a, axis):
    if is_none(axis):
        return None, True
    value = literal_value(axis, "not static")
    if isinstance(value, bool) or not isinstance(value, int) or not -a.ndim <= value < a.ndim:
        return None, False
    return value % a.ndim, True


def _moved(a_name, ndim, axis):
    if axis is None:
        return f"np.ascontiguousarray({a_name}).reshape((1, {a_name}.size))", None
    perm = tuple(d for d in range(ndim) if d != axis) + (axis,)
    moved = f"np.ascontiguousarray(np.transpose({a_name}, {perm!r}))"
    return f"{moved}.reshape(({a_name}.size // {a_name}.shape[{axis}], {a_name}.shape[{axis}]))", perm


def _quantile_lowering(name, params, q_expr, q_param, method_param):
    def typer(*args):
        bound = dict(zip(params, args))
        a = bound["a"]
        if not is_array(a) or a.ndim == 0 or dtype_of(a) is None or dtype_of(a).kind != "f":
            return None
        if method_param and literal_value(bound[method_param], None) not in ("linear", None):     # None: the default
            return None
        if q_param and not isinstance(types.unliteral(bound[q_param]), (types.Float, types.Integer)):
            return None
        for other in ("out", "interpolation"):
            if other in bound and not is_none(bound[other]):
                return None
        keep = literal_value(bound["keepdims"], None)
        keep = False if keep is None else keep          # an argument left out arrives as None
        axis, ok = _axis(a, bound["axis"])
        if not ok or not isinstance(keep, bool):
            return None
        reference = getattr(jnp, name)
        if "interpolation" in params:       # keyword-only in the reference (and None here): leave it out
            shape_dtype = result_shape_dtype(lambda *values: reference(*values[:-1]), *args)
        else:
            shape_dtype = result_shape_dtype(reference, *args)
        if shape_dtype is None:
            return None
        rows, _ = _moved("a", a.ndim, axis)
        if axis is None:
            shape = ", ".join("1" for _ in range(a.ndim)) if keep else ""
        else:
            shape = ", ".join(("1" if d == axis else f"a.shape[{d}]") for d in range(a.ndim)
                              if keep or d != axis)
        lines = [f"rows = {rows}", "values = np.empty(rows.shape[0], _dtype)",        # not `out`: a parameter
                 "for r in range(rows.shape[0]):", f"    values[r] = _dtype(_row_quantile(rows[r], {q_expr}))"]
        lines.append(f"return values.reshape(({shape},))" if shape else "return values[0]")
        source = f"def impl({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)
        return build(source, {"np": np, "_dtype": shape_dtype[1].type, "_row_quantile": _row_quantile})
    typer.__doc__ = f"{name} (method='linear', one q) over a literal axis or all of a."
    return lowers(name, params, reference=getattr(jnp, name), prefer_literal=True)(typer)


_Q = ("a", "q", "axis", "out", "overwrite_input", "method", "keepdims", "interpolation")
_quantile_lowering("quantile", _Q, "np.float64(q)", "q", "method")
_quantile_lowering("percentile", _Q, "np.float64(q) / 100.0", "q", "method")
_quantile_lowering("median", ("a", "axis", "out", "overwrite_input", "keepdims"), "0.5", None, None)


@lowers("quantile_adjoint", ("g", "a", "q", "axis", "method", "keepdims", "kind", "slope"),
        reference=statistics.quantile_adjoint, prefer_literal=True)
def _quantile_adjoint(g, a, q, axis, method, keepdims, kind, slope):
    """g put back on the two order statistics each row's linear quantile read."""
    if not is_array(a) or a.ndim == 0 or dtype_of(a) is None or dtype_of(a).kind != "f":
        return None
    kind_value = literal_value(kind, None)
    if literal_value(method, None) not in ("linear", None) or kind_value not in ("quantile", "percentile") \
            or literal_value(slope, False) is not False:
        return None
    if not isinstance(types.unliteral(q), (types.Float, types.Integer)):
        return None
    keep = literal_value(keepdims, None)
    keep = False if keep is None else keep
    ax, ok = _axis(a, axis)
    if not ok or not isinstance(keep, bool):
        return None
    rows, perm = _moved("a", a.ndim, ax)
    q_expr = "np.float64(q) / 100.0" if kind_value == "percentile" else "np.float64(q)"
    g_rows = "np.full(rows.shape[0], np.float64(g))" if not is_array(g) or g.ndim == 0 else \
        "np.ascontiguousarray(g).reshape(rows.shape[0]).astype(np.float64)"
    if is_array(g) and g.ndim == 0:
        g_rows = "np.full(rows.shape[0], np.float64(g[()]))"
    lines = [f"rows = {rows}", f"gs = {g_rows}", "grad = np.zeros(rows.shape)",
             "for r in range(rows.shape[0]):", f"    _row_adjoint(rows[r], {q_expr}, gs[r], grad[r])",
             "res = grad.astype(a.dtype)"]
    if perm is None:
        lines.append("return res.reshape(a.shape)")
    else:
        inverse = tuple(perm.index(d) for d in range(a.ndim))
        moved_shape = ", ".join(f"a.shape[{d}]" for d in perm)
        lines.append(f"return np.transpose(res.reshape(({moved_shape},)), {inverse!r})")
    source = "def impl(g, a, q, axis, method, keepdims, kind, slope):\n" + "".join(f"    {line}\n" for line in lines)
    return build(source, {"np": np, "_row_adjoint": _row_adjoint})
