"""The builtin `divmod(a, b)` becomes the pair Python defines it as.

    q, r = divmod(x[0], 0.3)     ->     q, r = (x[0] // 0.3, x[0] % 0.3)

`//` has a zero derivative and `%` the derivative of a - b * floor(a / b), each a primitive
with rules. Only operands that read values (names, constants, items, attributes, arithmetic
on them; no calls) are rewritten, so evaluating them twice changes nothing; any other
`divmod` stays as written (refused where a derivative reaches it).
"""
import builtins
import copy

import gast

from .base import Pass, copy_location
from ...codegen.node_walk import walk

__all__ = ["BuiltinDivmod"]

_EFFECTS = (gast.Call, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda, gast.ListComp,
            gast.GeneratorExp, gast.DictComp, gast.SetComp, gast.Starred)


class BuiltinDivmod(Pass):
    """Rewrite `divmod(a, b)` of call-free operands into `(a // b, a % b)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if (self.context.resolver.static_value(node.func) is not builtins.divmod or node.keywords
                or len(node.args) != 2
                or any(isinstance(n, _EFFECTS) for a in node.args for n in walk(a))):
            return node
        a, b = node.args
        pair = gast.Tuple(elts=[gast.BinOp(left=a, op=gast.FloorDiv(), right=b),
                                gast.BinOp(left=copy.deepcopy(a), op=gast.Mod(), right=copy.deepcopy(b))],
                          ctx=gast.Load())
        return copy_location(pair, node)
