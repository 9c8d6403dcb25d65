"""Numba lowerings of Python's builtin `sum` of a list (or an array's rows) and of its adjoint.

`sum(errs)` of a list the function built (`errs = [(predict(X[i]) - y[i]) ** 2 for i in ...]`) is Python's
left fold `((start + errs[0]) + errs[1]) + ...`, start 0 unless given. Compiled code folds the same way, in
the same order, over a list (or tuple) whose items have one type, floats or float arrays: the start (an int,
or a float) takes the items' float dtype, as a Python number meeting an array does (rules/weak_scalars), and
adding a zero start keeps each value exactly (`-0.0` becomes `0.0`, as in Python). An empty list sums to the
start itself, a number where compiled code holds an array: compiled code raises a RuntimeRefusal, and the
jitted call runs the reference backend instead (jit/compiled.py), which returns it.

The adjoint `sum_adjoint(g, items)` gives every item g summed back to the item's shape. The reference holds a
list's adjoint as a TreeAdjoint of items; compiled code holds it as one array, the items stacked on a first
axis, and `item_adjoint(b, k)` reads row k (runtime/numba_list_adjoints.py), so items whose shapes differ
at run time refuse (the reference computes that call). An array's adjoint (`sum(x)` adds x's rows) is an
array of x's shape in both.
"""
import numpy as np
from numba import types

from ..errors import RuntimeRefusal
from ..rules import helpers
from .numba_build import implementation as _impl
from .numba_build import is_value as _value
from .numba_build import lowers
from .numba_typing import dtype_of, is_array, is_none

__all__ = []

_EMPTY = ("the builtin `sum` of an empty list is its start, a number, where compiled code holds the items' "
          "type: the reference backend computes this call")
_RAGGED = ("the adjoint of the builtin `sum` of arrays of different shapes is held item by item: the reference "
           "backend computes this call")


def _items(iterable):
    """The item type of a list, homogeneous tuple or array `sum` iterates (floats or float arrays), or None."""
    if isinstance(iterable, (types.List, types.ListType, types.UniTuple)):
        item = iterable.dtype
    elif is_array(iterable) and iterable.ndim > 0:
        item = iterable.dtype if iterable.ndim == 1 else types.Array(iterable.dtype, iterable.ndim - 1, "A")
    else:
        return None
    if not _value(item) or dtype_of(item) is None or dtype_of(item).kind != "f":
        return None
    return item


def _builtin_sum_reference(iterable, start=0):
    return sum(iterable, start if start is not None else 0)


@lowers("builtin_sum", ("iterable", "start"), reference=_builtin_sum_reference)
def _builtin_sum(iterable, start):
    """builtin_sum: Python's left fold over the items, the start in the items' float dtype."""
    item = _items(iterable)
    if item is None or not (is_none(start) or isinstance(types.unliteral(start), (types.Integer, types.Float))):
        return None
    dtype = dtype_of(item).type
    first = "iterable[0] + dtype(0)" if is_none(start) else "dtype(start) + iterable[0]"
    return _impl(("iterable", "start"), [
        "n = len(iterable)",
        "if n == 0:",
        "    raise RuntimeRefusal(EMPTY)",
        f"total = {first}",
        "for k in range(1, n):",
        "    total = total + iterable[k]",
        "return total"], dtype=dtype, RuntimeRefusal=RuntimeRefusal, EMPTY=_EMPTY)


@lowers("sum_adjoint", ("g", "iterable"), reference=helpers.sum_adjoint)
def _sum_adjoint(g, iterable):
    """sum_adjoint: g summed back to each item's shape, the items' adjoints stacked on a first axis (an
    array's adjoint: its shape, in g's float dtype promoted with the array's, as the reference)."""
    item = _items(iterable)
    if item is None or not _value(g) or dtype_of(g) is None:
        return None
    if is_array(iterable):
        dtype = np.result_type(np.result_type(dtype_of(g), np.float32), dtype_of(iterable)).type
    else:
        dtype = np.result_type(dtype_of(g), np.float32).type
    if not is_array(item):
        return _impl(("g", "iterable"), [
            "out = np.empty(len(iterable), dtype)",
            "for k in range(len(iterable)):",
            "    out[k] = L.unbroadcast(g, iterable[k])",
            "return out"], dtype=dtype)
    return _impl(("g", "iterable"), [
        "n = len(iterable)",
        "if n == 0:",
        f"    return np.zeros((0,) + (0,) * {item.ndim}, dtype)",
        "shape = iterable[0].shape",
        "out = np.empty((n,) + shape, dtype)",
        "for k in range(n):",
        "    if iterable[k].shape != shape:",
        "        raise RuntimeRefusal(RAGGED)",
        "    out[k] = L.unbroadcast(g, iterable[k])",
        "return out"], dtype=dtype, RuntimeRefusal=RuntimeRefusal, RAGGED=_RAGGED)
