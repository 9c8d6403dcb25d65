"""`isinstance(v, C)` and `type(v)` in the user's code become checked calls.

    if isinstance(s, float): ...       ->   if checked_isinstance(s, float): ...
    kind = type(x)                     ->   kind = checked_type(x)
    if np.isscalar(v): ...             ->   if checked_isscalar(v): ...
    if hasattr(v, "__len__"): ...      ->   if checked_hasattr(v, "__len__"): ...
    if v.__class__ is float: ...       ->   if checked_type(v) is float: ...
    if y.base is None: ...             ->   if checked_memory_attribute(y, "base") is None: ...
    if np.asarray(x) is x: ...         ->   if checked_identity(np.asarray(x), x): ...
    key = id(v)                        ->   key = checked_id(v)
    text = repr(v)                     ->   text = checked_repr(v)

Where the original program holds a NumPy array, a NumPy scalar (`x[0]` of a
float64 array is an `np.float64`, a subclass of `float`) or a Python float
argument, the transformed function holds an astjax Array. A test of the
value's type could then take another branch than the original program and
give a silently wrong number. The checked versions answer as Python does
wherever every object the original program may hold there gives the same
answer, and refuse (when the function runs) where they would not
(rules/helpers.py: `checked_isinstance`, `checked_type`).

An identity test between two values (`a is b`, `a is not b`) asks which object
each is, and astjax's objects are not the program's: `np.asarray(x)` of an
astjax Array is a new NumPy array (of an ndarray, the array itself), and the
generated code may share a value the program computes twice (`y = x * 1.0`).
`checked_identity` answers where one side is no array or number (`v is None`
stays as written) and refuses where both are; `checked_id` refuses `id(v)` of
an astjax Array, and `checked_repr` its `repr` ("Array(...)", not "array(...)").
"""
import builtins

import gast
import numpy as np

from ...rules.helpers import MEMORY_ATTRIBUTES
from ..resolve import NOT_STATIC
from .base import Pass, name

__all__ = ["TypeInspection"]

_CHECKED = {builtins.isinstance: ("checked_isinstance", 2), builtins.type: ("checked_type", 1),
            np.isscalar: ("checked_isscalar", 1), builtins.hasattr: ("checked_hasattr", 2),
            builtins.id: ("checked_id", 1), builtins.repr: ("checked_repr", 1)}


class TypeInspection(Pass):
    """Rewrite the builtins `isinstance(v, C)`, one-argument `type(v)`, `hasattr(v, a)`, the attributes
    `v.__class__`, `v.base`, `v.flags` (how an array is stored), NumPy's `np.isscalar(v)`, `id(v)`, `repr(v)`
    and identity tests between two values (`a is b`) into their checked versions."""

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

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            return node
        sides = (node.left, node.comparators[0])
        if any(isinstance(s, gast.Constant) or self.context.resolver.static_value(s) is not NOT_STATIC
               for s in sides):
            return node         # `v is None`, `v is _MISSING`, `checked_type(v) is float`: as written
        test = gast.copy_location(gast.Call(func=name("checked_identity"), args=list(sides), keywords=[]), node)
        if isinstance(node.ops[0], gast.IsNot):
            test = gast.copy_location(gast.UnaryOp(op=gast.Not(), operand=test), node)
        return test

    def visit_Call(self, node):
        self.generic_visit(node)
        value = self.context.resolver.static_value(node.func)
        for builtin, (checked, nargs) in _CHECKED.items():
            if value is builtin and len(node.args) == nargs and not node.keywords:
                node.func = gast.copy_location(name(checked), node.func)
        return node
