"""`d | e` and `d |= e` on dicts are refused: astjax's `|` is the bitwise or of integers and booleans, which
has no derivative, so a dict merged with `|` would silently lose the derivatives of the values it holds.

A `|` is taken to merge dicts when an operand is a dict display or comprehension, a `dict(...)` call, or a
name the function reads as a dict (`d["w"]`, `d.items()`, see container_idioms.dict_names), or when its
result is bound to such a name.
"""
import gast

from .base import Pass
from .container_idioms import dict_names
from ...codegen.node_walk import walk

__all__ = ["DictOperators"]


class DictOperators(Pass):
    """Refuse the dict union operators `|` and `|=`."""

    def run(self, function_node):
        if not any(isinstance(n, gast.BitOr) for n in walk(function_node)):
            return function_node            # a quick look: this pass runs on every function
        dicts = dict_names(function_node)
        for node in walk(function_node):
            if isinstance(node, gast.BinOp) and isinstance(node.op, gast.BitOr):
                operands, target = [node.left, node.right], None
            elif isinstance(node, gast.AugAssign) and isinstance(node.op, gast.BitOr):
                operands, target = [node.target, node.value], None
            elif isinstance(node, gast.Assign) and isinstance(node.value, gast.BinOp) \
                    and isinstance(node.value.op, gast.BitOr):
                operands, target = [], node.targets[0]
            else:
                continue
            if any(_is_dict(o, dicts) for o in operands) or (isinstance(target, gast.Name) and target.id in dicts):
                raise self.error("`|` merging dicts cannot be transformed: astjax's `|` is the bitwise or, "
                                 "which has no derivative, so the merged values would lose theirs", node,
                                 hint="build the new dict key by key (`e = dict(d); e[\"b\"] = v`, or a dict "
                                      "display with constant keys).")
        return function_node


def _is_dict(node, dicts):
    if isinstance(node, (gast.Dict, gast.DictComp)):
        return True
    if isinstance(node, gast.Name):
        return node.id in dicts
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "dict"
