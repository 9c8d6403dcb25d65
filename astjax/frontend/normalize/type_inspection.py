"""`isinstance(v, C)` and `type(v)` in the user's code become checked calls.

    if isinstance(s, float): ...       ->   if checked_isinstance(s, float): ...
    kind = type(x)                     ->   kind = checked_type(x)
    if np.isscalar(v): ...             ->   if checked_isscalar(v): ...
    if hasattr(v, "__len__"): ...      ->   if checked_hasattr(v, "__len__"): ...
    if v.__class__ is float: ...       ->   if checked_type(v) is float: ...
    if y.base is None: ...             ->   if checked_memory_attribute(y, "base") is None: ...

Where the original program holds a NumPy array, a NumPy scalar (`x[0]` of a
float64 array is an `np.float64`, a subclass of `float`) or a Python float
argument, the transformed function holds an astjax Array. A test of the
value's type could then take another branch than the original program and
give a silently wrong number. The checked versions answer as Python does
wherever every object the original program may hold there gives the same
answer, and refuse (when the function runs) where they would not
(rules/helpers.py: `checked_isinstance`, `checked_type`).
"""
import builtins

import gast
import numpy as np

from ...rules.helpers import MEMORY_ATTRIBUTES
from ..resolve import NOT_STATIC
from .base import Pass, name

__all__ = ["TypeInspection"]

_CHECKED = {builtins.isinstance: ("checked_isinstance", 2), builtins.type: ("checked_type", 1),
            np.isscalar: ("checked_isscalar", 1), builtins.hasattr: ("checked_hasattr", 2)}


class TypeInspection(Pass):
    """Rewrite the builtins `isinstance(v, C)`, one-argument `type(v)`, `hasattr(v, a)`, the attributes
    `v.__class__`, `v.base`, `v.flags` (how an array is stored) and NumPy's `np.isscalar(v)` into their checked
    versions."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or self.context.resolver.static_value(node.value) is not NOT_STATIC:
            return node
        if node.attr == "__class__":
            return gast.copy_location(gast.Call(func=name("checked_type"), args=[node.value], keywords=[]), node)
        if node.attr in MEMORY_ATTRIBUTES:
            return gast.copy_location(gast.Call(func=name("checked_memory_attribute"), args=[
                node.value, gast.Constant(value=node.attr, kind=None)], keywords=[]), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        value = self.context.resolver.static_value(node.func)
        for builtin, (checked, nargs) in _CHECKED.items():
            if value is builtin and len(node.args) == nargs and not node.keywords:
                node.func = gast.copy_location(name(checked), node.func)
        return node
