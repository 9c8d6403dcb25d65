"""Numba lowerings of roll (and the shift its adjoint undoes it with).

`roll(a, shift, axis)` with a literal axis (an int or a tuple of distinct ints) moves each axis in
turn: the array is read as (before, n, after) and the two pieces of the axis are copied to their
new places. The shift is a runtime int (or a tuple of ints, one per axis, or one int for all
axes), taken modulo the axis length as NumPy does; `axis=None` rolls the flattened array. Any
other form (a tuple shift with axis=None, a repeated axis, an axis that is not a literal)
declines, and jit refuses the line.
"""
import numpy as np
from numba import types

from .. import numpy as jnp
from ..rules import shape_helpers
from .numba_build import build, lowers
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
