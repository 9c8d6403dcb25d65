"""Indexing an object (not an array or a container) with values the function computes is refused.

    y = np.r_[x, 0.5, x[:2]]        # NumPy's index tricks build an array from the index itself
    z = np.c_[x, 2.0 * x]
    w = TABLE[x[0]]                 # a user class's __getitem__

`obj[index]` of an array, list, tuple or dict reads an item: the index only says where, and the
derivative flows from `obj`. An object with its own `__getitem__` (np.r_, np.c_, np.mgrid, a user
class) may compute its result from the index, which astjax cannot see into: it would take the result
for a constant and drop the derivative (a gradient of zero, silently). Refused where the index reads
any name the function computes; an index of constants and globals is evaluated as written.
"""
import numbers

import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass
from ...codegen.node_walk import walk

__all__ = ["ObjectSubscripts"]

_CONTAINERS = (np.ndarray, np.generic, list, tuple, dict, str, bytes, range, numbers.Number)
_INSTEAD = {"r_": "np.concatenate([...]) (with np.atleast_1d for scalars)",
            "c_": "np.stack([...], axis=1) or np.column_stack([...])"}


class ObjectSubscripts(Pass):
    """Refuse `obj[...]` of an object known now with a computed `__getitem__` and a computed index."""

    def visit_Subscript(self, node):
        self.generic_visit(node)
        resolver = self.context.resolver
        base = resolver.static_value(node.value)
        if base is NOT_STATIC or isinstance(base, _CONTAINERS) or isinstance(base, type):
            return node
        if not hasattr(type(base), "__getitem__"):
            return node
        computed = [n.id for n in walk(node.slice) if isinstance(n, gast.Name)
                    and resolver.static_value(n) is NOT_STATIC]
        if not computed:
            return node
        label = getattr(node.value, "attr", getattr(node.value, "id", type(base).__name__))
        raise self.error(f"`{label}[...]` indexes an object of type `{type(base).__name__}` with `{computed[0]}`, "
                         f"a value computed in the function: its `__getitem__` builds the result from the "
                         f"index, which astjax cannot differentiate", node,
                         hint="build the array with " + _INSTEAD.get(label, "astjax.numpy functions on the values "
                                                                             "(np.concatenate, np.stack)"))
