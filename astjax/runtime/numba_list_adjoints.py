"""Numba lowerings of the adjoint of a list that a loop appended to (lax.scan's and lax.map's outputs).

Normalization writes `ys = lax.scan(...)[1]` as a loop appending to a list `_ys` and `jnp.stack(_ys)`;
the reverse sweep splits the stacked adjoint into the list's items (`b_ys = stack_adjoint(bys)`) and
reads item k as the loop pops it (`item_adjoint(b_ys, len(_ys))`). The reference backend holds that
list adjoint as a TreeAdjoint of slices; compiled code holds it as the stacked array itself, with the
list's axis first, and item k is its row k: the reference's `item_adjoint` reads an array adjoint that
way too, so both give the same numbers.
"""
import numpy as np
from numba import types

from ..rules import helpers
from .numba_build import lowers
from .numba_build import implementation as _impl
from .numba_reductions import static_axes
from .numba_build import is_value as _value
from .numba_typing import dtype_of, is_array, literal_value


@lowers("stack_adjoint", ("g", "axis"), reference=helpers.stack_adjoint, prefer_literal=True)
def _stack_adjoint(g, axis):
    """stack_adjoint: the list adjoint as the array g with the literal stacking axis moved first."""
    if not is_array(g) or g.ndim == 0:
        return None
    axes = static_axes(axis, g.ndim)
    if axes is None or len(axes) != 1:
        return None
    if axes[0] == 0:
        return _impl(("g", "axis"), ["return g"])
    order = (axes[0],) + tuple(d for d in range(g.ndim) if d != axes[0])
    return _impl(("g", "axis"), [f"return np.ascontiguousarray(g.transpose({order!r}))"])


def _float_of(dtype):
    return np.result_type(dtype, np.float32).type


@lowers("item_adjoint", ("adjoint", "i"), reference=helpers.item_adjoint, prefer_literal=True)
def _item_adjoint(adjoint, i):
    """item_adjoint of a list adjoint held as an array (row i; a negative or too large i is an
    IndexError, as in the reference) or of a tuple adjoint held item by item (item i, a literal)."""
    if not isinstance(types.unliteral(i), types.Integer):
        return None
    if isinstance(adjoint, types.BaseTuple):
        position = literal_value(i)
        if not isinstance(position, int) or not 0 <= position < len(adjoint.types):
            return None
        return _impl(("adjoint", "i"), [f"return adjoint[{position}]"])
    if is_array(adjoint) and adjoint.ndim > 0:
        return _impl(("adjoint", "i"), ["if i < 0:", "    raise IndexError('index out of range')",
                                        "return adjoint[i]"])
    return None


# ------------------------------------------------------------------ the adjoint of a tuple, item by item
# The reference backend holds the adjoint of a tuple (a loop's carry, `c, y = body(c, x)`) as a sparse
# TreeAdjoint; compiled code holds a tuple with one adjoint per item, zero (zero_like) where none arrived,
# so a loop gives that variable one type on every iteration.
def _zero_of(item_type, expr):
    """Source of the zero adjoint of the value `expr` of type item_type (a tuple: a tuple of zeros), or None
    for a value that has no adjoint here."""
    if isinstance(item_type, types.BaseTuple):
        items = [_zero_of(t, f"{expr}[{k}]") for k, t in enumerate(item_type.types)]
        return None if any(i is None for i in items) else f"({', '.join(items)},)"
    return f"L.zero_like({expr})" if _value(item_type) else None


def _item_value(item_type, g, expr):
    """Source of `g` as the adjoint of the item `expr` of type item_type, in the type that item's zero has
    (None when g does not fit the item: declined)."""
    if isinstance(item_type, types.BaseTuple):
        if isinstance(g, types.BaseTuple) and len(g.types) == len(item_type.types):
            return "g"
        return _zero_of(item_type, expr) if _value(g) and not is_array(g) else None   # a bare zero
    if not _value(item_type) or not _value(g):
        return None
    dtype = np.dtype(_float_of(dtype_of(item_type))).name
    if is_array(item_type):
        if is_array(g) and g.ndim == item_type.ndim:
            return "g" if dtype_of(g) == np.dtype(dtype) else f"g.astype(np.{dtype})"
        return f"np.full({expr}.shape, g, np.{dtype})" if not is_array(g) else None
    if is_array(g):
        return f"np.{dtype}(g[()])" if g.ndim == 0 else None
    return f"np.{dtype}(g)"


def tuple_index_adjoint(x, idx, g):
    """index_adjoint of a tuple x at a literal int: a tuple of item adjoints, g at idx, zeros elsewhere
    (at a run-time int for a tuple of items of one type: a loop over a list of layers)."""
    position = literal_value(idx)
    if isinstance(types.unliteral(idx), types.Integer) and not isinstance(position, int) \
            and isinstance(x, types.UniTuple):
        return _uniform_index_adjoint(x, g)
    if isinstance(position, slice):
        return _slice_index_adjoint(x, position, g)
    if isinstance(idx, types.SliceType) and isinstance(x, types.UniTuple) and isinstance(g, types.UniTuple):
        return _uniform_slice_adjoint(x, g)
    if not isinstance(position, int) or isinstance(position, bool):
        return None
    count = len(x.types)
    if not -count <= position < count:
        return None
    position %= count
    items = [_item_value(t, g, f"x[{k}]") if k == position else _zero_of(t, f"x[{k}]")
             for k, t in enumerate(x.types)]
    if any(item is None for item in items):
        return None
    return _impl(("x", "idx", "g"), [f"return ({', '.join(items)},)"])


def _slice_index_adjoint(x, part, g):
    """index_adjoint of a tuple at a literal slice (`params[:-1]`): g, the adjoint of that part (a tuple
    of item adjoints), put back at the items the slice took, zeros elsewhere."""
    taken = list(range(len(x.types)))[part]
    if not isinstance(g, types.BaseTuple) or len(g.types) != len(taken):
        return None
    where = {k: j for j, k in enumerate(taken)}
    items = [f"g[{where[k]}]" if k in where else _zero_of(t, f"x[{k}]") for k, t in enumerate(x.types)]
    if any(item is None for item in items):
        return None
    return _impl(("x", "idx", "g"), [f"return ({''.join(item + ', ' for item in items)})"])


def _uniform_slice_adjoint(x, g):
    """index_adjoint of a tuple of one item type at a run-time slice (`params[:-1]`): item j of g back at the
    j-th position the slice took, zeros elsewhere."""
    count = len(x.types)
    zero = _zero_of(x.dtype, "x[k]")
    if zero is None:
        return None
    lines = ["start, stop, step = idx.indices(" + str(count) + ")",
             "taken = len(range(start, stop, step))",
             f"if taken != {len(g.types)}:", "    raise ValueError('the adjoint of a slice has another length')"]
    items = []
    for k in range(count):
        lines += [f"j{k} = ({k} - start) // step",
                  f"in{k} = ({k} - start) % step == 0 and 0 <= j{k} < taken"]
        items.append(f"g[j{k}] if in{k} else {zero.replace('x[k]', f'x[{k}]')}")
    return _impl(("x", "idx", "g"), lines + [f"return ({''.join(item + ', ' for item in items)})"])


def _uniform_index_adjoint(x, g):
    """index_adjoint of a tuple of one item type at a run-time index: g where k == idx, zeros elsewhere."""
    count = len(x.types)
    value = _item_value(x.dtype, g, "x[k]")
    zero = _zero_of(x.dtype, "x[k]")
    if value is None or zero is None:
        return None
    items = ", ".join(f"{value.replace('x[k]', f'x[{k}]')} if i == {k} else {zero.replace('x[k]', f'x[{k}]')}"
                      for k in range(count))
    return _impl(("x", "idx", "g"), [f"i = idx + {count} if idx < 0 else idx",
                                     f"if not 0 <= i < {count}:", "    raise IndexError('tuple index out of range')",
                                     f"return ({items},)"])


def tuple_zero_like(x):
    """zero_like of a tuple: the tuple of its items' zero adjoints."""
    zero = _zero_of(x, "x")
    return None if zero is None else _impl(("x",), [f"return {zero}"])


@lowers("adjoint_sum", ("a", "b"), reference=lambda a, b: a + b)
def adjoint_sum(a, b):
    """`a += b` of two adjoints: item by item for tuple adjoints (Numba's `+` would join the tuples),
    `a + b` for numbers and arrays. A bare zero on one side gives the other."""
    a_tuple, b_tuple = isinstance(a, types.BaseTuple), isinstance(b, types.BaseTuple)
    if not a_tuple and not b_tuple:
        if _value(a) and _value(b):
            return _impl(("a", "b"), ["return a + b"])
        return None
    if a_tuple and b_tuple:
        if len(a.types) != len(b.types):
            return None
        items = ", ".join(f"L.adjoint_sum(a[{k}], b[{k}])" for k in range(len(a.types)))
        return _impl(("a", "b"), [f"return ({items},)"])
    return None


@lowers("array_adjoint", ("g", "object"), reference=helpers.array_adjoint)
def _array_adjoint(g, object):
    """array_adjoint (the adjoint of `jnp.array(object)`, `jnp.copy`): g itself for an array or a number; for a
    list or tuple of arrays or numbers, the list adjoint held as the array g, item k its row k (stack_adjoint
    along axis 0)."""
    if _value(object) and _value(g):
        return _impl(("g", "object"), ["return g"])
    if isinstance(object, (types.BaseTuple, types.List)) and is_array(g) and g.ndim > 0:
        return _impl(("g", "object"), ["return g"])
    return None
