"""Numba lowerings of the running products and extrema, and of what their derivatives call.

`cumprod_adjoint(g, a, axis)` and `cumprod_tangent(t, a, axis)` (rules/creation.py): for each row along the
axis, the sums over j >= i (adjoint) or i <= j (tangent) of g[j] (t[i]) times the product of a[k] for k <= j,
k != i, multiplied in the reference's order (a[0] to a[j], skipping a[i]), so exact at zeros as it is. One
row costs n * n / 2 products, as the reference's spread does.

`maximum_accumulate` / `minimum_accumulate` (`np.maximum.accumulate(x, axis)`): a running np.maximum along
a literal axis (NaN propagates, as NumPy's). Their derivative and that of `lax.cummax` / `lax.cummin`:
`cumulative_argext` (the position each running extremum holds; a tie raises the reference's
RuntimeRefusal, compiled code hands the call to the reference backend, which names the user's line),
`scatter_along` and `gather_along` along a literal axis.

A non-literal axis, or any other type, declines: jit then refuses the line.
"""
import numba
import numpy as np

from .. import lax
from ..lax import internal
from ..rules.creation import cumprod_adjoint, cumprod_tangent
from .numba_build import L, build, lowers
from .numba_linalg import COMPOSITES
from .numba_typing import dtype_of, is_array, literal_value, result_shape_dtype

kernel = numba.njit(error_model="numpy")
_NOT_STATIC = object()


@kernel
def _cumprod_adjoint_rows(a, g, out, zero):
    """out[o, i] = sum over j >= i of g[o, j] * prod(a[o, k] for k <= j, k != i)."""
    n = a.shape[1]
    for o in range(a.shape[0]):
        before = zero + 1
        for i in range(n):
            product = before
            total = zero + g[o, i] * product
            for j in range(i + 1, n):
                product = product * a[o, j]
                total += g[o, j] * product
            out[o, i] = total
            before = before * a[o, i]


@kernel
def _cumprod_tangent_rows(a, t, out, zero):
    """out[o, j] = sum over i <= j of t[o, i] * prod(a[o, k] for k <= j, k != i)."""
    n = a.shape[1]
    for o in range(a.shape[0]):
        for j in range(n):
            out[o, j] = zero
        before = zero + 1
        for i in range(n):
            product = before
            out[o, i] += t[o, i] * product
            for j in range(i + 1, n):
                product = product * a[o, j]
                out[o, j] += t[o, i] * product
            before = before * a[o, i]


def _axis_value(axis, ndim):
    """A literal axis of an array of rank ndim (None: the flattened array), or _NOT_STATIC."""
    value = literal_value(axis, _NOT_STATIC)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and -ndim <= value < ndim:
        return value % ndim
    return _NOT_STATIC


def _rows_impl(params, operand, rows_fn, axis_value, ndim, out_dtype, adjoint):
    """`impl(params)`: `rows_fn(a_rows, operand_rows, out, zero)` with `axis` moved last (or both flattened
    to one row), the operand broadcast to the running result's shape first (a placeholder's zeros of shape
    (1, ..., 1) may stand for a zero adjoint); the result shaped as the reference's: a's shape for the adjoint,
    the flattened running product's for the tangent of axis None."""
    env = {"np": np, "rows_fn": rows_fn, "zero": out_dtype(0), "out_dtype": out_dtype}
    if axis_value is None:
        lines = ["flat = np.ascontiguousarray(a).reshape(1, a.size)",
                 f"other = np.ascontiguousarray(np.broadcast_to({operand}, {'(a.size,)' if adjoint else 'a.shape'}))"
                 ".reshape(1, a.size)",
                 "out = np.empty(flat.shape, out_dtype)",
                 "rows_fn(flat, other, out, zero)",
                 "return out.reshape(a.shape)" if adjoint else "return out.reshape(a.size)"]
    else:
        perm = tuple(d for d in range(ndim) if d != axis_value) + (axis_value,)
        inverse = tuple(int(i) for i in np.argsort(perm))
        lines = [f"moved = np.ascontiguousarray(np.transpose(a, {perm!r}))",
                 "rows = moved.reshape((-1, moved.shape[-1]))",
                 f"other = np.ascontiguousarray(np.transpose(np.broadcast_to({operand}, a.shape), {perm!r}))",
                 "out = np.empty(rows.shape, out_dtype)",
                 "rows_fn(rows, other.reshape(rows.shape), out, zero)",
                 f"return np.transpose(out.reshape(moved.shape), {inverse!r})"]
    return build(f"def impl({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines), env)


def _cumprod_derivative(name, reference, rows_fn):
    def typer(g, a, axis):
        if not (is_array(a) and a.ndim >= 1 and dtype_of(a) is not None and dtype_of(a).kind == "f"):
            return None
        if dtype_of(g) is None or dtype_of(g).kind != "f" or (is_array(g) and g.ndim > a.ndim):
            return None
        axis_value = _axis_value(axis, a.ndim)
        if axis_value is _NOT_STATIC:
            return None
        shape_dtype = result_shape_dtype(reference, g, a, axis)
        if shape_dtype is None:
            return None
        return _rows_impl(("g", "a", "axis"), "g", rows_fn, axis_value, a.ndim, shape_dtype[1].type,
                          name == "cumprod_adjoint")
    lowers(name, ("g", "a", "axis"), reference=reference, prefer_literal=True)(typer)
    COMPOSITES[name] = getattr(L, name)


_cumprod_derivative("cumprod_adjoint", cumprod_adjoint, _cumprod_adjoint_rows)
_cumprod_derivative("cumprod_tangent", cumprod_tangent, _cumprod_tangent_rows)
