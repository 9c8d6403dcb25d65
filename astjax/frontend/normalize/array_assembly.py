"""A literal `block` of nested lists becomes one primitive over the flat list of its leaves.

    y = jnp.block([[a, b], [c, d]])   ->   y = block_flat([a, b, c, d], ((0, 1), (2, 3)))

The transformations read list operands one element at a time (a literal list
of names), not nested lists, so the nesting moves into a constant `layout`
(leaf j of the nested lists is arrays[j]). `block_flat` computes the same
values as `block` (astjax/numpy/_shape.py) and has rules (rules/more.py). A
`block` whose argument is not a literal list of uniform depth is left as it
is: it runs outside derivatives and is refused where a derivative reaches it.
"""
import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

__all__ = ["ArrayAssembly", "REWRITTEN"]

# The names this pass rewrites into a primitive (read by the coverage page).
REWRITTEN = {"block": "block_flat"}


class ArrayAssembly(Pass):
    """Rewrite `jnp.block(<literal nested list>)` / `np.block(...)` into `block_flat(leaves, layout)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        from ... import numpy as jnp
        target = self.context.resolver.static_value(node.func)
        if target is NOT_STATIC or not (target is jnp.block or target is np.block):
            return node
        if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], gast.List):
            return node
        leaves = []
        layout = _layout(node.args[0], leaves)
        if layout is None or not leaves:
            return node
        from ...numpy._shape import block_flat
        label = self.context.resolver.introduce("block_flat", block_flat, self.context.namer)
        call = gast.Call(func=name(label), args=[gast.List(elts=leaves, ctx=gast.Load()), _constant(layout)],
                         keywords=[])
        return copy_location(call, node)


def _layout(node, leaves):
    """The nesting of a literal list as nested tuples of leaf numbers (leaves appended to `leaves`), or None
    when its depth is not uniform or an item is starred or a tuple (np.block refuses tuples)."""
    if isinstance(node, gast.List):
        items = [_layout(e, leaves) for e in node.elts]
        if not items or any(i is None for i in items):
            return None
        depths = {_depth(i) for i in items}
        return tuple(items) if len(depths) == 1 else None
    if isinstance(node, (gast.Tuple, gast.Starred)):
        return None
    leaves.append(node)
    return len(leaves) - 1


def _depth(layout):
    return 1 + _depth(layout[0]) if isinstance(layout, tuple) else 0


def _constant(layout):
    if isinstance(layout, tuple):
        return gast.Tuple(elts=[_constant(i) for i in layout], ctx=gast.Load())
    return gast.Constant(value=layout, kind=None)
