"""Numba lowering of vmap's `example_of(tree, b)`: example b of a batched value (the batch on axis 0).

vmap writes it where it reads one example of a batched tuple: the length check of an unpacked result
(`assert len(example_of(_t1, 0)) == 2`, jacfwd's `(value, tangent)` under vmap), and the loop over
examples that runs what no batching rule covers. A tuple gives the tuple of its items' examples, an
array of rank 1 or more its row b, None stays None (the reference backend's `example_of`); a number
holds no batch axis and is declined, as the reference cannot index it either.
"""
from numba import types

from ..rules.batching import example_of as _reference
from .numba_build import lowers
from .numba_build import implementation as _impl
from .numba_typing import is_array, is_none


@lowers("example_of", ("tree", "b"), reference=_reference)
def example_of(tree, b):
    """example_of: row b of each array of the (nested) tuple `tree`."""
    if not isinstance(types.unliteral(b), types.Integer):
        return None
    if is_none(tree):
        return _impl(("tree", "b"), ["return None"])
    if is_array(tree) and tree.ndim > 0:
        return _impl(("tree", "b"), ["return tree[b]"])
    if isinstance(tree, types.BaseTuple):
        items = "".join(f"L.example_of(tree[{k}], b), " for k in range(len(tree.types)))
        return _impl(("tree", "b"), [f"return ({items})"])
    return None
