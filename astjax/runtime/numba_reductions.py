"""Numba lowerings of the reductions (sum, mean, prod, max, min, var, std, argmax, all, ...) and cumsum.

`axis` and `keepdims` must be literals (they fix the result's rank); the
reduced axes are moved last and each row of the rest is reduced by one loop.
Sums are pairwise as NumPy's are (blocks of 8 lanes below 128 elements,
halves above), so float32 sums keep NumPy's accuracy; results can still differ
from NumPy's in the last bits where NumPy sums along a non-contiguous axis.
"""
import numba
import numpy as np
from numba import types

from .. import numpy as jnp
from ..rules import helpers
from .numba_build import build, lowers
from .numba_elementwise import KERNELS
from .numba_typing import dtype_of, is_array, is_none, is_scalar, literal_value, result_shape_dtype

kernel = numba.njit(error_model="numpy")


@kernel
def block_sum(x, start, n, zero):
    """x[start:start + n] summed as NumPy sums a block of at most 128: 8 lanes, then the tail."""
    if n < 8:
        total = zero
        for i in range(start, start + n):
            total += x[i]
        return total
    r0, r1, r2, r3 = zero + x[start], zero + x[start + 1], zero + x[start + 2], zero + x[start + 3]
    r4, r5, r6, r7 = zero + x[start + 4], zero + x[start + 5], zero + x[start + 6], zero + x[start + 7]
    stop = start + n - n % 8
    for i in range(start + 8, stop, 8):
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(stop, start + n):
        total += x[i]
    return total


COMBINE = -1     # a pending-work entry meaning "add the two partial sums on top of the stack"


@kernel
def pairwise_sum(x, start, n, zero):
    """NumPy's pairwise summation of x[start:start + n] (x 1-d), accumulated in zero's type.

    Blocks of at most 128 are summed by `block_sum`; a longer range is split in halves (the first a
    multiple of 8) and the halves' sums are added, as NumPy does. The halving runs on an explicit
    stack rather than by recursion: Numba compiles a recursive call to a symbol that its machine-code
    cache does not resolve when a later process loads a caller, and the call then jumps to address 0.
    """
    if n <= 128:
        return block_sum(x, start, n, zero)
    pending_start = np.empty(192, np.int64)      # each halving pushes 3 entries and pops 1: depth < 64
    pending_size = np.empty(192, np.int64)
    partial = np.full(96, zero)
    top, count = 0, 0
    pending_start[0], pending_size[0] = start, n
    while top >= 0:
        s, m = pending_start[top], pending_size[top]
        top -= 1
        if m == COMBINE:
            count -= 1
            partial[count - 1] = partial[count - 1] + partial[count]
        elif m <= 128:
            partial[count] = block_sum(x, s, m, zero)
            count += 1
        else:
            half = m // 2
            half -= half % 8
            pending_start[top + 1], pending_size[top + 1] = 0, COMBINE     # after both halves:
            pending_start[top + 2], pending_size[top + 2] = s + half, m - half
            pending_start[top + 3], pending_size[top + 3] = s, half       # the first half first
            top += 3
    return partial[0]


@kernel
def row_sum(row, zero):
    return pairwise_sum(row, 0, row.size, zero)


@kernel
def row_prod(row, one):
    total = one
    for v in row:
        total *= v
    return total


def _row_extremum(pick):
    @kernel
    def extremum(row, unused):
        if row.size == 0:
            raise ValueError("zero-size array to reduction operation which has no identity")
        best = row[0]
        for i in range(1, row.size):
            best = pick(best, row[i])
        return best
    return extremum


def _row_arg(better):
    @kernel
    def arg(row, unused):
        if row.size == 0:
            raise ValueError("attempt to get argmax of an empty sequence")
        best = row[0]
        where = 0
        if best != best:
            return 0
        for i in range(1, row.size):
            v = row[i]
            if v != v:
                return i
            if better(v, best):
                best = v
                where = i
        return where
    return arg


@kernel
def row_all(row, unused):
    for v in row:
        if not v:
            return False
    return True


@kernel
def row_any(row, unused):
    for v in row:
        if v:
            return True
    return False


@kernel
def row_mean(row, zero):
    return pairwise_sum(row, 0, row.size, zero) / (zero + row.size)


@kernel
def _row_variance(row, zero, ddof):
    n = row.size
    mean = pairwise_sum(row, 0, n, zero) / (zero + n)
    squares = np.empty(n, type(zero))
    for i in range(n):
        d = (zero + row[i]) - mean
        squares[i] = d * d
    return pairwise_sum(squares, 0, n, zero) / (zero + max(n - ddof, 0))


ROW_OPS = {
    "sum": row_sum, "prod": row_prod, "mean": row_mean, "all": row_all, "any": row_any,
    "max": _row_extremum(KERNELS["maximum"]["f"]), "min": _row_extremum(KERNELS["minimum"]["f"]),
    "max_int": _row_extremum(KERNELS["maximum"]["i"]), "min_int": _row_extremum(KERNELS["minimum"]["i"]),
    "argmax": _row_arg(kernel(lambda a, b: a > b)), "argmin": _row_arg(kernel(lambda a, b: a < b)),
}


def static_axes(axis, ndim):
    """The reduced axes (sorted, non-negative) for a literal axis; None when not static or out of range."""
    value = literal_value(axis, _NOT_STATIC)
    if value is _NOT_STATIC:
        return None
    if value is None:
        return tuple(range(ndim))
    values = value if isinstance(value, tuple) else (value,)
    if not all(isinstance(v, int) and -ndim <= v < ndim for v in values):
        return None
    axes = tuple(sorted({v % ndim for v in values}))
    return axes if len(axes) == len(values) else None


_NOT_STATIC = object()


def reduce_impl(params, a_param, a_type, axes, keepdims, row_op, seed, out_dtype, scalar_axis_none, extra=""):
    """Code reducing `a_param` over `axes`: each row of the moved-last axes goes through row_op(row, seed[, extra])."""
    ndim = a_type.ndim if is_array(a_type) else 0
    env = {"np": np, "row_op": row_op, "seed": seed, "out_dtype": out_dtype}
    extra_arg = f", {extra}" if extra else ""
    a = a_param
    if ndim == 0:
        read = f"np.array({a}).reshape(1)" if not is_array(a_type) else f"{a}.reshape(1)"
        body = [f"    row = {read}", f"    return out_dtype(row_op(row, seed{extra_arg}))"]
        return build(f"def impl({', '.join(params)}):\n" + "\n".join(body) + "\n", env)
    kept = [d for d in range(ndim) if d not in axes]
    perm = tuple(kept) + tuple(axes)
    lines = []
    source = f"np.transpose({a}, {perm!r})" if perm != tuple(range(ndim)) else a
    lines.append(f"    moved = np.ascontiguousarray({source})")
    inner = " * ".join(f"{a}.shape[{d}]" for d in axes) or "1"
    outer = " * ".join(f"{a}.shape[{d}]" for d in kept) or "1"
    lines.append(f"    inner = {inner}")
    lines.append(f"    outer = {outer}")
    lines.append("    rows = moved.reshape((outer, inner))")
    if not kept and not keepdims:
        lines.append(f"    return out_dtype(row_op(rows[0], seed{extra_arg}))")
        return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)
    lines.append("    result = np.empty(outer, out_dtype)")
    lines.append("    for o in range(outer):")
    lines.append(f"        result[o] = row_op(rows[o], seed{extra_arg})")
    if keepdims:
        shape = [("1" if d in axes else f"{a}.shape[{d}]") for d in range(ndim)]
    else:
        shape = [f"{a}.shape[{d}]" for d in kept]
    lines.append(f"    return result.reshape(({', '.join(shape)},))")
    return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)


def _operand(a):
    return (is_array(a) or is_scalar(a)) and dtype_of(a) is not None


def reduction(name, reference, params, row_name=None, seed=None, nothing_else=()):
    """A reduction `name(params...)`: its first parameter reduced over the literal `axis`."""
    def typer(*args):
        bound = dict(zip(params, args))
        a = args[0]
        if not _operand(a) or any(not is_none(bound[p]) for p in nothing_else):
            return None
        keepdims = literal_value(bound.get("keepdims", types.literal(False)), _NOT_STATIC)
        if keepdims is _NOT_STATIC or not isinstance(keepdims, bool):
            return None
        ndim = a.ndim if is_array(a) else 0
        axes = static_axes(bound["axis"], ndim) if ndim else (() if is_none(bound["axis"]) else None)
        if axes is None:
            return None
        shape_dtype = result_shape_dtype(reference, *args)
        if shape_dtype is None:
            return None
        out = shape_dtype[1]
        op = row_name or name
        if op in ("max", "min") and out.kind != "f":
            op += "_int"
        accumulate = dtype_of(a) if op in ("max", "min", "max_int", "min_int", "argmax", "argmin", "all", "any") \
            else out
        start = accumulate.type(seed if seed is not None else 0)
        return reduce_impl(params, params[0], a, axes, keepdims, ROW_OPS[op], start, out.type, True)
    typer.__doc__ = f"Numba lowering of {name} over a literal axis."
    return lowers(name, params, reference=reference, prefer_literal=True)(typer)


reduction("sum", jnp.sum, ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
          nothing_else=("out", "initial", "where"))
reduction("prod", jnp.prod, ("a", "axis", "dtype", "out", "keepdims"), seed=1, nothing_else=("out",))
reduction("mean", lambda a, axis=None, dtype=None, out=None, keepdims=False, where=None:
          jnp.mean(a, axis, dtype, out, keepdims, where=where),
          ("a", "axis", "dtype", "out", "keepdims", "where"), nothing_else=("out", "where"))
reduction("max", jnp.max, ("a", "axis", "out", "keepdims", "initial"), nothing_else=("out", "initial"))
reduction("min", jnp.min, ("a", "axis", "out", "keepdims", "initial"), nothing_else=("out", "initial"))
reduction("argmax", jnp.argmax, ("a", "axis", "out", "keepdims"), nothing_else=("out",))
reduction("argmin", jnp.argmin, ("a", "axis", "out", "keepdims"), nothing_else=("out",))
reduction("all", lambda a, axis=None, out=None, keepdims=False, where=None: jnp.all(a, axis, out, keepdims, where=where),
          ("a", "axis", "out", "keepdims", "where"), nothing_else=("out", "where"))
reduction("any", lambda a, axis=None, out=None, keepdims=False, where=None: jnp.any(a, axis, out, keepdims, where=where),
          ("a", "axis", "out", "keepdims", "where"), nothing_else=("out", "where"))


def _moments(name, sqrt):
    params = ("a", "axis", "dtype", "out", "ddof", "keepdims", "where", "correction")

    def reference(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, correction=None):
        return getattr(jnp, name)(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction)

    def typer(a, axis, dtype, out, ddof, keepdims, where, correction):
        if not _operand(a) or not is_none(out) or not is_none(where):
            return None
        keep = literal_value(keepdims, _NOT_STATIC)
        if not isinstance(keep, bool):
            return None
        ndim = a.ndim if is_array(a) else 0
        axes = static_axes(axis, ndim) if ndim else (() if is_none(axis) else None)
        if axes is None or not isinstance(types.unliteral(ddof), types.Integer):
            return None
        if not (is_none(correction) or isinstance(types.unliteral(correction), types.Integer)):
            return None
        shape_dtype = result_shape_dtype(reference, a, axis, dtype, out, ddof, keepdims, where, correction)
        if shape_dtype is None:
            return None
        result = shape_dtype[1]
        row = kernel(lambda row, zero, d: np.sqrt(_row_variance(row, zero, d))) if sqrt else _row_variance
        less = "ddof" if is_none(correction) else "correction"
        return reduce_impl(params, "a", a, axes, keep, row, result.type(0), result.type, True, extra=less)
    return lowers(name, params, reference=reference, prefer_literal=True)(typer)


_moments("var", False)
_moments("std", True)


# ------------------------------------------------------------ cumulative sums
@kernel
def _cumulate_rows(rows, out, zero):
    for o in range(rows.shape[0]):
        total = zero
        for i in range(rows.shape[1]):
            total += rows[o, i]
            out[o, i] = total


@kernel
def _cumulate_rows_reversed(rows, out, zero):
    for o in range(rows.shape[0]):
        total = zero
        for i in range(rows.shape[1] - 1, -1, -1):
            total += rows[o, i]
            out[o, i] = total


def cumulate_impl(params, a_param, a_type, axis_value, out_dtype, rows_fn, result_shape=None, start=0):
    """Code applying rows_fn along one axis (moved last) of `a_param`; axis None flattens first."""
    ndim = a_type.ndim if is_array(a_type) else 0
    env = {"np": np, "rows_fn": rows_fn, "zero": out_dtype(start), "out_dtype": out_dtype}
    a = a_param if is_array(a_type) else f"np.array({a_param}).reshape(1)"
    lines = []
    if axis_value is None or ndim <= 1:
        lines += [f"    flat = np.ascontiguousarray({a}).reshape(1, -1)",
                  "    out = np.empty(flat.shape, out_dtype)",
                  "    rows_fn(flat, out, zero)"]
        final = f"out.reshape({result_shape})" if result_shape else "out.reshape(out.size)"
        lines.append(f"    return {final}")
        return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)
    axis = axis_value % ndim
    perm = tuple(d for d in range(ndim) if d != axis) + (axis,)
    inverse = tuple(int(i) for i in np.argsort(perm))
    lines += [f"    moved = np.ascontiguousarray(np.transpose({a}, {perm!r}))",
              "    rows = moved.reshape((-1, moved.shape[-1]))",
              "    out = np.empty(rows.shape, out_dtype)",
              "    rows_fn(rows, out, zero)",
              f"    return np.transpose(out.reshape(moved.shape), {inverse!r})"]
    return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)


def _cumsum(a, axis, dtype, out):
    """cumsum: a running sum (sequential, as NumPy's accumulate) along a literal axis, or over the flattened array."""
    if not _operand(a) or not is_none(out):
        return None
    axis_value = literal_value(axis, _NOT_STATIC)
    ndim = a.ndim if is_array(a) else 0
    if axis_value is _NOT_STATIC or not (axis_value is None or (isinstance(axis_value, int) and -ndim <= axis_value < max(ndim, 1))):
        return None
    shape_dtype = result_shape_dtype(jnp.cumsum, a, axis, dtype, out)
    if shape_dtype is None:
        return None
    return cumulate_impl(("a", "axis", "dtype", "out"), "a", a, axis_value, shape_dtype[1].type, _cumulate_rows)


lowers("cumsum", ("a", "axis", "dtype", "out"), reference=jnp.cumsum, prefer_literal=True)(_cumsum)


def _cumsum_adjoint(g, a, axis):
    """cumsum_adjoint: the running sum from the end, shaped like `a` (axis None) or like `g`."""
    if not (is_array(g) and dtype_of(g) is not None):
        return None
    axis_value = literal_value(axis, _NOT_STATIC)
    if axis_value is _NOT_STATIC or not (axis_value is None or isinstance(axis_value, int)):
        return None
    shape_dtype = result_shape_dtype(helpers.cumsum_adjoint, g, a, axis)
    if shape_dtype is None:
        return None
    shape = ("np.shape(a)" if (is_array(a) or is_scalar(a)) else None) if axis_value is None else None
    return cumulate_impl(("g", "a", "axis"), "g", g, axis_value, shape_dtype[1].type, _cumulate_rows_reversed,
                         result_shape=shape)


lowers("cumsum_adjoint", ("g", "a", "axis"), reference=helpers.cumsum_adjoint, prefer_literal=True)(_cumsum_adjoint)


@kernel
def _multiply_rows(rows, out, one):
    for o in range(rows.shape[0]):
        total = one
        for i in range(rows.shape[1]):
            total *= rows[o, i]
            out[o, i] = total


def _cumprod(a, axis):
    """cumprod: a running product (sequential, as NumPy's accumulate) along a literal axis, or flattened."""
    if not _operand(a):
        return None
    axis_value = literal_value(axis, _NOT_STATIC)
    ndim = a.ndim if is_array(a) else 0
    if axis_value is _NOT_STATIC or not (axis_value is None or (isinstance(axis_value, int) and -ndim <= axis_value < max(ndim, 1))):
        return None
    shape_dtype = result_shape_dtype(jnp.cumprod, a, axis)
    if shape_dtype is None:
        return None
    out = shape_dtype[1].type
    return cumulate_impl(("a", "axis"), "a", a, axis_value, out, _multiply_rows, start=1)


lowers("cumprod", ("a", "axis"), reference=jnp.cumprod, prefer_literal=True)(_cumprod)
