"""The adjoint of a list or tuple argument, returned by compiled code as one adjoint per item.

Compiled code holds the adjoint of a tuple as a tuple with an adjoint for every item, zeros where none
arrived (runtime/numba_list_adjoints.py): that is how a loop over a list of layers
(`for w, b in params: ...`) gives its adjoint one type on every iteration. The reference backend returns
a TreeAdjoint holding only the items reached. At the boundary the compiled tuple becomes a TreeAdjoint
with every item; the first call's check compares it with the reference's after checking that the items
the reference left out are zero in the compiled result.
"""
import numpy as np

from ..array import wrap

__all__ = ["dense_adjoints_out", "without_zero_items"]


def dense_adjoints_out(expected):
    """A function turning the compiled result into the reference's structure, TreeAdjoints with every item,
    for a result whose TreeAdjoints are adjoints of tuples or lists (int keys); None for any other."""
    from ..rules.helpers import TreeAdjoint
    from .compiled import _converter
    from .observe import abstract
    if isinstance(expected, TreeAdjoint):
        if not all(type(k) is int and k >= 0 for k in expected.items):
            return None                  # a dict's adjoint (string keys): not held item by item
        known = {k: dense_adjoints_out(v) for k, v in expected.items.items()}
        if any(c is None for c in known.values()):
            return None
        fields = expected.fields

        def tree_out(value):
            if type(value) is not tuple:
                raise TypeError(f"a tuple's adjoint came back as {type(value).__name__}")
            return TreeAdjoint({k: known[k](v) if k in known else _any_out(v) for k, v in enumerate(value)},
                               fields, len(value))
        return tree_out
    if type(expected) is tuple:
        items = [dense_adjoints_out(v) for v in expected]
        if any(c is None for c in items):
            return None

        def tuple_out(value):
            if type(value) is not tuple or len(value) != len(items):
                raise TypeError("the compiled result has another structure than the reference's")
            return tuple(convert(v) for convert, v in zip(items, value))
        return tuple_out
    if isinstance(expected, (list, dict)):
        return None
    return _converter(abstract(expected))


def _any_out(value):
    """An item no reference result showed: an array (or a tuple of them: a nested TreeAdjoint)."""
    from ..rules.helpers import TreeAdjoint
    if type(value) is tuple:
        return TreeAdjoint({k: _any_out(v) for k, v in enumerate(value)}, None, len(value))
    return wrap(np.asarray(value))


def without_zero_items(got, expected, disagree):
    """`got` with the TreeAdjoint items that `expected` does not hold left out, each checked to be zero
    (`disagree(text)` makes the error otherwise); `got` itself where the structures hold no such item."""
    from ..rules.helpers import TreeAdjoint
    if isinstance(got, TreeAdjoint) and isinstance(expected, TreeAdjoint):
        items = {}
        for key, value in got.items.items():
            if key in expected.items:
                items[key] = without_zero_items(value, expected.items[key], disagree)
            elif _any_nonzero(value):
                raise disagree(f"item {key!r} of a tuple's adjoint is not zero, and the reference backend's "
                               f"adjoint does not reach it")
        return TreeAdjoint(items, got.fields, got.length)
    if type(got) is tuple and type(expected) is tuple and len(got) == len(expected):
        return tuple(without_zero_items(g, e, disagree) for g, e in zip(got, expected))
    return got


def _any_nonzero(value):
    from ..rules.helpers import TreeAdjoint
    if isinstance(value, TreeAdjoint):
        return any(_any_nonzero(v) for v in value.items.values())
    return bool(np.any(np.asarray(value)))
