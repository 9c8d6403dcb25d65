"""Numba lowerings of roll (and the shift its adjoint undoes it with), sort and argsort (and the order and
scatter a sort's adjoint uses).

`roll(a, shift, axis)` with a literal axis (an int or a tuple of distinct ints) moves each axis in
turn: the array is read as (before, n, after) and the two pieces of the axis are copied to their
new places. The shift is a runtime int (or a tuple of ints, one per axis, or one int for all
axes), taken modulo the axis length as NumPy does; `axis=None` rolls the flattened array. Any
other form (a tuple shift with axis=None, a repeated axis, an axis that is not a literal)
declines, and jit refuses the line.

`sort`, `argsort` and the adjoint's `sort_order` work one row of a literal axis at a time (the
flattened array for axis=None): np.sort (NaN last, as NumPy) and a stable merge-sort argsort, the
descending order reading the reversed row as the reference does, so ties keep the reference's order.
argsort(stable=False) is declined. `take_along_axis_adjoint` adds g back where the order read it.
"""
import numpy as np
from numba import types

from .. import numpy as jnp
from ..rules import shape_helpers
from .numba_build import L, build, lowers
from .numba_linalg import COMPOSITES
from .numba_reductions import static_axes
from .numba_typing import is_array, is_none

ENV = {"np": np}


def _int(t):
    return isinstance(types.unliteral(t), types.Integer)


def _int_tuple(t):
    return isinstance(t, types.BaseTuple) and all(_int(e) for e in t.types)


def _roll_axis_lines(src, dst, axis, ndim, shift):
    """Lines rolling array `src` by `shift` along the static `axis` into a new array `dst`."""
    before = " * ".join([f"{src}.shape[{d}]" for d in range(axis)]) or "1"
    after = " * ".join([f"{src}.shape[{d}]" for d in range(axis + 1, ndim)]) or "1"
    return [f"c = np.ascontiguousarray({src})",
            f"n = c.shape[{axis}]",
            f"c3 = c.reshape(({before}, n, {after}))",
            "o3 = np.empty_like(c3)",
            "if n > 0:",
            f"    s = {shift} % n",
            "    o3[:, s:, :] = c3[:, :n - s, :]",
            "    o3[:, :s, :] = c3[:, n - s:, :]",
            f"{dst} = o3.reshape(c.shape)"]


@lowers("roll", ("a", "shift", "axis"), reference=jnp.roll, prefer_literal=True)
def _roll(a, shift, axis):
    """roll along literal axes (the flattened array for None), by a runtime int shift or a tuple of them."""
    if not is_array(a) or a.ndim == 0:
        return None
    ndim = a.ndim
    if is_none(axis):
        if not _int(shift):
            return None
        lines = ["flat = np.ascontiguousarray(a).reshape(a.size)"]
        lines += _roll_axis_lines("flat", "out", 0, 1, "shift")
        lines.append("return out.reshape(a.shape)")
    else:
        axes_value = getattr(axis, "literal_value", None) if not isinstance(axis, types.BaseTuple) else None
        axes = static_axes(axis, ndim)
        if axes is None:
            return None
        order = [axes_value] if isinstance(axes_value, int) else \
            [getattr(t, "literal_value", None) for t in getattr(axis, "types", ())]
        if any(v is None for v in order):
            return None
        order = [v % ndim for v in order]
        if _int(shift):
            shifts = ["shift"] * len(order)
        elif _int_tuple(shift) and len(shift.types) == len(order):
            shifts = [f"shift[{k}]" for k in range(len(order))]
        else:
            return None
        lines = ["out = a"]
        for d, s in zip(order, shifts):
            lines += _roll_axis_lines("out", "out", d, ndim, s)
        lines.append("return out")
    source = "def impl(a, shift, axis):\n" + "".join(f"    {line}\n" for line in lines)
    return build(source, ENV)


@lowers("negated_shift", ("shift",), reference=shape_helpers.negated_shift)
def _negated_shift(shift):
    """The shift that undoes roll(x, shift): an int's negation, or each item's."""
    if _int(shift):
        return build("def impl(shift):\n    return -np.int64(shift)\n", ENV)
    if _int_tuple(shift):
        items = "".join(f"-np.int64(shift[{k}]), " for k in range(len(shift.types)))
        return build(f"def impl(shift):\n    return ({items})\n", ENV)
    return None


# ------------------------------------------------------------------ sorting along one literal axis
def _axis_of(axis, ndim):
    """The non-negative literal axis, or None."""
    value = getattr(axis, "literal_value", None)
    if isinstance(value, bool) or not isinstance(value, int) or not -ndim <= value < ndim:
        return None
    return value % ndim


def _row_lines(params, a, axis, ndim, result_dtype, row_lines):
    """An implementation that moves `axis` last, runs `row_lines` (reading `row`, writing `res[o]`) on each
    row, and moves the axis back (a view, as NumPy's transposes are)."""
    perm = tuple(d for d in range(ndim) if d != axis) + (axis,)
    inverse = tuple(perm.index(d) for d in range(ndim))
    moved = f"np.ascontiguousarray(np.transpose({a}, {perm!r}))" if perm != tuple(range(ndim)) \
        else f"np.ascontiguousarray({a})"
    lines = [f"m = {moved}",
             "n = m.shape[-1]",
             "outer = m.size // n if n else 0",
             "rows = m.reshape((outer, n))",
             f"res = np.empty((outer, n), {result_dtype})",
             "for o in range(outer):",
             "    row = rows[o]"]
    lines += ["    " + line for line in row_lines]
    back = f"np.transpose(res.reshape(m.shape), {inverse!r})" if perm != tuple(range(ndim)) else "res.reshape(m.shape)"
    lines.append(f"return {back}")
    return f"def impl({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)


def _sorting(a, axis, descending, flatten_none=True):
    """(source of the array to sort, its rank, the axis) for sort-like arguments, or None to decline."""
    if not is_array(a) or a.ndim == 0:
        return None
    if not isinstance(getattr(descending, "literal_value", None), bool):
        return None
    if is_none(axis):
        return ("np.ascontiguousarray(a).reshape(a.size)", 1, 0) if flatten_none else None
    k = _axis_of(axis, a.ndim)
    return None if k is None else ("a", a.ndim, k)


_ASCENDING_ORDER = ["idx = np.argsort(row, kind='mergesort')"]
_DESCENDING_ORDER = ["idx = (n - 1 - np.argsort(row[::-1], kind='mergesort'))[::-1]"]


@lowers("sort", ("a", "axis", "kind", "order", "stable", "descending"), reference=jnp.sort, prefer_literal=True)
def _sort(a, axis, kind, order, stable, descending):
    """sort along a literal axis (the flattened array for None), ascending or descending (NaN last, as NumPy)."""
    form = _sorting(a, axis, descending)
    if form is None or not is_none(order):
        return None
    source, ndim, k = form
    flip = "[::-1]" if descending.literal_value else ""
    text = _row_lines(("a", "axis", "kind", "order", "stable", "descending"), "flat", k, ndim, "a.dtype",
                      [f"res[o] = np.sort(row){flip}"])
    text = text.replace("):\n", f"):\n    flat = {source}\n", 1)
    return build(text, ENV)


def _argsort_impl(params, a, axis, descending, dtype):
    form = _sorting(a, axis, descending)
    if form is None:
        return None
    source, ndim, k = form
    order = _DESCENDING_ORDER if descending.literal_value else _ASCENDING_ORDER
    text = _row_lines(params, "flat", k, ndim, dtype, order + ["res[o] = idx"])
    text = text.replace("):\n", f"):\n    flat = {source}\n", 1)
    return build(text, ENV)


@lowers("argsort", ("a", "axis", "kind", "order", "stable", "descending"), reference=jnp.argsort,
        prefer_literal=True)
def _argsort(a, axis, kind, order, stable, descending):
    """A stable argsort (int32, as JAX's) along a literal axis; stable=False is declined (ties would be
    ordered differently from the reference)."""
    if not is_none(order) or getattr(stable, "literal_value", True) is not True:
        return None
    return _argsort_impl(("a", "axis", "kind", "order", "stable", "descending"), a, axis, descending, "np.int32")


@lowers("sort_order", ("a", "axis", "descending"), reference=shape_helpers.sort_order, prefer_literal=True)
def _sort_order(a, axis, descending):
    """The stable order a sort reads its operand in (int64, as the reference's argsort)."""
    return _argsort_impl(("a", "axis", "descending"), a, axis, descending, "np.int64")


@lowers("take_along_axis_adjoint", ("g", "arr", "indices", "axis"), reference=shape_helpers.take_along_axis_adjoint,
        prefer_literal=True)
def _take_along_axis_adjoint(g, arr, indices, axis):
    """g added back into zeros shaped like arr where take_along_axis read it (a literal axis; the other
    axes of g, arr and indices equal, as they are for a sort's order)."""
    if not (is_array(g) and is_array(arr) and is_array(indices)) or not g.ndim == arr.ndim == indices.ndim:
        return None
    if not isinstance(types.unliteral(indices.dtype), types.Integer) or g.dtype not in (types.float32, types.float64):
        return None
    k = _axis_of(axis, arr.ndim)
    if k is None:
        return None
    ndim = arr.ndim
    perm = tuple(d for d in range(ndim) if d != k) + (k,)
    inverse = tuple(perm.index(d) for d in range(ndim))
    t = (lambda x: f"np.ascontiguousarray(np.transpose({x}, {perm!r}))") if perm != tuple(range(ndim)) \
        else (lambda x: f"np.ascontiguousarray({x})")
    lines = [f"gm = {t('g')}", f"im = {t('indices')}",
             "for d in range(g.ndim):",
             "    if d != axis and (g.shape[d] != arr.shape[d] or indices.shape[d] != g.shape[d]):",
             "        raise ValueError('take_along_axis_adjoint: shapes differ off the axis')",
             "if indices.shape[axis] != g.shape[axis]:",
             "    raise ValueError('take_along_axis_adjoint: indices and g differ along the axis')",
             f"n = arr.shape[{k}]",
             "m = gm.shape[-1]",
             "outer = gm.size // m if m else 0",
             "shape = gm.shape[:-1] + (n,)",
             "out = np.zeros((outer, n), g.dtype)",
             "gr = gm.reshape((outer, m))",
             "ir = im.reshape((outer, m))",
             "for o in range(outer):",
             "    for j in range(m):",
             "        i = ir[o, j]",
             "        i = i + n if i < 0 else i",
             "        if i < 0 or i >= n:",
             "            raise IndexError('index out of bounds')",
             "        out[o, i] += gr[o, j]",
             f"return np.transpose(out.reshape(shape), {inverse!r})" if perm != tuple(range(ndim))
             else "return out.reshape(shape)"]
    source = "def impl(g, arr, indices, axis):\n" + "".join(f"    {line}\n" for line in lines)
    return build(source, ENV)


@lowers("sorted_adjoint", ("g", "a", "order", "axis"), reference=shape_helpers.sorted_adjoint, prefer_literal=True)
def _sorted_adjoint(g, a, order, axis):
    """rules/shape_helpers.py's composite: g put back where each sorted element came from."""
    if not is_array(a):
        return None
    if is_none(axis):
        body = "    return L.take_along_axis_adjoint(g, np.ascontiguousarray(a).reshape(a.size), order, 0)" \
               ".reshape(a.shape)\n"
    else:
        body = "    return L.take_along_axis_adjoint(g, a, order, axis)\n"
    return build("def impl(g, a, order, axis):\n" + body, ENV | {"L": L})


COMPOSITES["sorted_adjoint"] = L.sorted_adjoint
