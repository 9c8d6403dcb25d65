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
from .. import numpy as jnp
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


# ------------------------------------------------------------------ running extrema and their derivatives
@kernel
def _running_rows(x, out, largest, reverse):
    """out[o, i] = np.maximum (largest) or np.minimum of x[o, :i + 1] (of x[o, i:] when reverse), taken as
    NumPy's ufunc takes it: a NaN on either side wins, and of two equal values the second operand."""
    n = x.shape[1]
    for o in range(x.shape[0]):
        previous = 0
        for s in range(n):
            i = n - 1 - s if reverse else s
            v = out.dtype.type(x[o, i])
            if s == 0:
                out[o, i] = v
            else:
                m = out[o, previous]
                keep = m > v if largest else m < v
                out[o, i] = m if (m != m or keep) else v
            previous = i


@kernel
def _argext_rows(x, out, largest, reverse):
    """out[o, i]: the position along the row of the element the running extremum at i holds (the reference's
    cumulative_argext); True, leaving the rest unwritten, where an element equals the running extremum."""
    n = x.shape[1]
    for o in range(x.shape[0]):
        first = n - 1 if reverse else 0
        best = x[o, first]
        current = first
        out[o, first] = first
        for s in range(1, n):
            i = n - 1 - s if reverse else s
            v = x[o, i]
            if v == best:
                return True
            if (v > best) if largest else (v < best):
                best = v
                current = i
            out[o, i] = current
    return False


def _moved(ndim, axis_value):
    perm = tuple(d for d in range(ndim) if d != axis_value) + (axis_value,)
    return perm, tuple(int(i) for i in np.argsort(perm))


def _rows_lines(name, source, perm):
    """Lines making `{name}_rows`, `source` with its axis moved last, as a C-ordered matrix of rows."""
    return [f"{name}_moved = np.ascontiguousarray(np.transpose({source}, {perm!r}))",
            f"{name}_rows = {name}_moved.reshape((-1, {name}_moved.shape[-1]))"]


def _running(name, reference, largest, params, reverse_param):
    """The lowering of a running extremum `name(operand, axis, ...)`: `reverse_param` names its reverse
    flag (lax.cummax), None where there is none (np.maximum.accumulate, whose dtype= and out= decline)."""
    def typer(*args):
        operand, axis = args[0], args[1]
        rest = dict(zip(params[2:], args[2:]))
        if any(literal_value(t, _NOT_STATIC) is not None for k, t in rest.items() if k != reverse_param):
            return None                             # dtype=, out=
        if not (is_array(operand) and operand.ndim >= 1 and dtype_of(operand) is not None):
            return None
        axis_value = _axis_value(axis, operand.ndim)
        reverse = literal_value(rest[reverse_param], _NOT_STATIC) if reverse_param else False
        if axis_value is _NOT_STATIC or axis_value is None or not isinstance(reverse, bool):
            return None
        shape_dtype = result_shape_dtype(reference, *args)
        if shape_dtype is None or shape_dtype[1] != dtype_of(operand):
            return None
        perm, inverse = _moved(operand.ndim, axis_value)
        lines = _rows_lines("x", params[0], perm) + [
            "out = np.empty(x_rows.shape, x_rows.dtype)",
            f"rows_fn(x_rows, out, {largest}, {reverse})",
            f"return np.transpose(out.reshape(x_moved.shape), {inverse!r})"]
        return build(f"def impl({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines),
                     {"np": np, "rows_fn": _running_rows})
    return lowers(name, params, reference=reference, prefer_literal=True)(typer)


_ACCUMULATE = ("array", "axis", "dtype", "out")
_LAX_RUNNING = ("operand", "axis", "reverse")
_running("maximum_accumulate", np.maximum.accumulate, True, _ACCUMULATE, None)
_running("minimum_accumulate", np.minimum.accumulate, False, _ACCUMULATE, None)
_running("lax_cummax", lax.cummax, True, _LAX_RUNNING, "reverse")
_running("lax_cummin", lax.cummin, False, _LAX_RUNNING, "reverse")


@lowers("lax_cumulative_argext", ("operand", "axis", "reverse", "largest"), reference=internal.cumulative_argext,
        prefer_literal=True)
def _cumulative_argext(operand, axis, reverse, largest):
    """cumulative_argext along a literal axis; at a tie compiled code raises the reference's RuntimeRefusal
    (the call then runs on the reference backend, which raises it naming the user's line)."""
    from ..errors import RuntimeRefusal
    if not (is_array(operand) and operand.ndim >= 1 and dtype_of(operand) is not None):
        return None
    axis_value = _axis_value(axis, operand.ndim)
    reverse_value, largest_value = literal_value(reverse, _NOT_STATIC), literal_value(largest, _NOT_STATIC)
    if axis_value is _NOT_STATIC or axis_value is None or not isinstance(reverse_value, bool) \
            or not isinstance(largest_value, bool):
        return None
    perm, inverse = _moved(operand.ndim, axis_value)
    lines = _rows_lines("x", "operand", perm) + [
        "out = np.empty(x_rows.shape, np.int64)",
        f"if rows_fn(x_rows, out, {largest_value}, {reverse_value}):",
        "    raise RuntimeRefusal('astjax: the derivative of a running extremum at a tie is refused')",
        f"return np.transpose(out.reshape(x_moved.shape), {inverse!r})"]
    return build("def impl(operand, axis, reverse, largest):\n" + "".join(f"    {line}\n" for line in lines),
                 {"np": np, "rows_fn": _argext_rows, "RuntimeRefusal": RuntimeRefusal})


checked_kernel = numba.njit(error_model="numpy", boundscheck=True)


@checked_kernel
def _scatter_rows(g, indices, out):
    for o in range(g.shape[0]):
        for k in range(g.shape[1]):
            out[o, indices[o, k]] += g[o, k]


@checked_kernel
def _gather_rows(t, indices, out):
    for o in range(indices.shape[0]):
        for k in range(indices.shape[1]):
            out[o, k] = t[o, indices[o, k]]


def _along(indices, axis, *arrays):
    """The literal axis of integer `indices` that `arrays` (of its rank) are read along, or None."""
    if not (is_array(indices) and indices.ndim >= 1 and dtype_of(indices) is not None
            and dtype_of(indices).kind in "iu"):
        return None
    if not all(is_array(a) and a.ndim == indices.ndim and dtype_of(a) is not None for a in arrays):
        return None
    axis_value = _axis_value(axis, indices.ndim)
    return None if axis_value is _NOT_STATIC or axis_value is None else axis_value


def _same_rows(a, axis_value, ndim):
    """Lines raising where `a` and `indices` differ in shape off the axis (take_along_axis would broadcast)."""
    others = [d for d in range(ndim) if d != axis_value]
    if not others:
        return []
    test = " or ".join(f"{a}.shape[{d}] != indices.shape[{d}]" for d in others)
    return [f"if {test}:", "    raise ValueError('shapes off the axis differ')"]


@lowers("lax_gather_along", ("t", "indices", "axis"), reference=internal.gather_along, prefer_literal=True)
def _gather_along(t, indices, axis):
    """gather_along (np.take_along_axis) of t and indices of one shape off a literal axis."""
    axis_value = _along(indices, axis, t)
    if axis_value is None:
        return None
    perm, inverse = _moved(indices.ndim, axis_value)
    lines = _same_rows("t", axis_value, indices.ndim) + _rows_lines("t", "t", perm) \
        + _rows_lines("i", "indices", perm) + [
            "out = np.empty(i_rows.shape, t_rows.dtype)",
            "rows_fn(t_rows, i_rows, out)",
            f"return np.transpose(out.reshape(i_moved.shape), {inverse!r})"]
    return build("def impl(t, indices, axis):\n" + "".join(f"    {line}\n" for line in lines),
                 {"np": np, "rows_fn": _gather_rows})


@lowers("lax_scatter_along", ("g", "indices", "axis", "shape"), reference=internal.scatter_along,
        prefer_literal=True)
def _scatter_along(g, indices, axis, shape):
    """scatter_along: g (broadcast to the indices' shape) added at indices along a literal axis into zeros
    of `shape` (a tuple of the indices' rank, of one shape off the axis)."""
    axis_value = _along(indices, axis)
    if axis_value is None or dtype_of(g) is None or (is_array(g) and g.ndim > indices.ndim):
        return None
    if not (hasattr(shape, "__len__") and len(shape) == indices.ndim):
        return None
    ndim = indices.ndim
    dtype = dtype_of(g)
    perm, inverse = _moved(ndim, axis_value)
    moved_shape = "(" + "".join(f"shape[{d}], " for d in perm) + ")"
    lines = [f"if {' or '.join(f'shape[{d}] != indices.shape[{d}]' for d in range(ndim) if d != axis_value)}:",
             "    raise ValueError('shapes off the axis differ')"] if ndim > 1 else []
    lines += _rows_lines("g", "np.broadcast_to(g, indices.shape)", perm) + _rows_lines("i", "indices", perm) + [
        f"out = np.zeros((g_rows.shape[0], shape[{axis_value}]), dtype)",
        "rows_fn(g_rows, i_rows, out)",
        f"return np.transpose(out.reshape({moved_shape}), {inverse!r})"]
    return build("def impl(g, indices, axis, shape):\n" + "".join(f"    {line}\n" for line in lines),
                 {"np": np, "rows_fn": _scatter_rows, "dtype": dtype.type})


# ------------------------------------------------------------------ NaN-skipping running sums and products
def _nan_running(name, reference, running, neutral, params):
    """`name(a, axis, ...)`: the running `running` (cumsum, cumprod) of a with its NaNs read as `neutral`
    (0 for a sum, 1 for a product), in the reference's dtype (a literal axis or None, as cumsum's lowering)."""
    def typer(a, axis, *rest):
        if not (is_array(a) and dtype_of(a) is not None and dtype_of(a).kind == "f"):
            return None
        if any(literal_value(t, _NOT_STATIC) is not None for t in rest):
            return None                                       # dtype=, out=
        if _axis_value(axis, a.ndim) is _NOT_STATIC:
            return None
        shape_dtype = result_shape_dtype(reference, a, axis, *rest)
        if shape_dtype is None or shape_dtype[1] != dtype_of(a):
            return None
        extra = ", None, None" if running == "cumsum" else ""
        source = (f"def impl({', '.join(params)}):\n"
                  f"    return L.{running}(np.where(np.isnan(a), a.dtype.type({neutral}), a), axis{extra})\n")
        return build(source, {"np": np, "L": L})
    lowers(name, params, reference=reference, prefer_literal=True)(typer)


_nan_running("nancumsum", jnp.nancumsum, "cumsum", 0, ("a", "axis", "dtype", "out"))
_nan_running("nancumprod", jnp.nancumprod, "cumprod", 1, ("a", "axis", "dtype", "out"))
