"""A constant assigned once and read once is written where it is read.

    bout = 1.0                       ->      by = jnp.ones((3,))
    by = jnp.full((3,), bout)

The reverse sweep starts from the seed `bout = 1.0`; with the specialized helpers folded, it is read
in one place, and the number there says more than a name pointing two lines up. Only for a name
assigned a number once, at the function's top level, and read once, after it, in the same function.
"""
import copy

import gast
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["inline_seed_constants"]


def inline_seed_constants(function_node):
    stores, loads = {}, {}
    for node in walk(function_node):
        if isinstance(node, gast.Name):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table.setdefault(node.id, []).append(node)
    for stmt in list(function_node.body):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Constant) and type(stmt.value.value) in (int, float)):
            continue
        name = stmt.targets[0].id
        if len(stores.get(name, [])) != 1 or len(loads.get(name, [])) != 1:
            continue
        later = [n for s in function_node.body[function_node.body.index(stmt) + 1:] for n in walk(s)]
        use = loads[name][0]
        if not any(n is use for n in later):
            continue
        _Replace(use, stmt.value).visit(function_node)
        function_node.body.remove(stmt)
    return _Ones().visit(function_node)


class _Ones(NodeTransformer):
    """`jnp.full(shape, 1.0)` is `jnp.ones(shape)` (both float32: a Python float is weakly typed)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, gast.Attribute) and func.attr == "full" and isinstance(func.value, gast.Name)
                and func.value.id == "jnp" and len(node.args) == 2 and not node.keywords
                and isinstance(node.args[1], gast.Constant) and type(node.args[1].value) is float
                and node.args[1].value == 1.0):
            return gast.Call(func=gast.Attribute(value=func.value, attr="ones", ctx=gast.Load()),
                             args=[node.args[0]], keywords=[])
        return node


class _Replace(NodeTransformer):
    def __init__(self, target, value):
        self.target, self.value = target, value

    def visit_Name(self, node):
        return copy.deepcopy(self.value) if node is self.target else node
