"""The builtin `sum` of lists or tuples with a literal list or tuple start is their concatenation.

    flat = sum(parts, [])          ->     flat = [item for part in parts if sequence_part(part) for item in part]
    flat = sum(parts, ())          ->     flat = tuple([item for part in parts if sequence_part(part) ...])
    flat = sum(parts, [x[0]])      ->     flat = [x[0]] + [item for part in parts if sequence_part(part) ...]

(`sequence_part` refuses a part that is not a list or tuple: Python's `[] + array` raises.)

The `builtin_sum` primitive's rules add numbers: its adjoint gives every item the result's adjoint
(`sum(parts, [])` differentiated that way gave each part the adjoint of the whole flattened list,
a silently wrong gradient). Written as a comprehension, the concatenation is indexing and list building,
whose rules are exact. A start that is not a literal list or tuple stays a `builtin_sum`; its adjoint
refuses lists of sequences when it runs (rules/helpers.py: sum_adjoint).
"""
import builtins

import gast

from .base import Pass, copy_location, name, store

__all__ = ["SequenceSums"]

_PART, _ITEM = "sum_part_", "sum_item_"


class SequenceSums(Pass):
    """Rewrite `sum(xs, [...])` and `sum(xs, (...))` into the start plus a flattening comprehension."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.context.resolver.static_value(node.func) is not builtins.sum:
            return node
        start = node.args[1] if len(node.args) == 2 and not node.keywords else None
        if start is None and len(node.args) == 1 and len(node.keywords) == 1 and node.keywords[0].arg == "start":
            start = node.keywords[0].value
        if not isinstance(start, (gast.List, gast.Tuple)):
            return node
        flat = gast.ListComp(
            elt=name(_ITEM),
            generators=[gast.comprehension(target=store(_PART), iter=node.args[0], is_async=0,
                                           ifs=[gast.Call(func=name("sequence_part"), args=[name(_PART)], keywords=[])]),
                        gast.comprehension(target=store(_ITEM), iter=name(_PART), ifs=[], is_async=0)])
        if isinstance(start, gast.Tuple):
            flat = gast.Call(func=name("tuple"), args=[flat], keywords=[])
        if start.elts:      # `[a] + [...]`: concatenation of a literal, refused by ListOperands where unsupported
            flat = gast.BinOp(left=start, op=gast.Add(), right=flat)
        return copy_location(flat, node)
