"""A local name given to a module is that module.

    def f(x):                       def f(x):
        np = jnp              ->        return jnp.sum(jnp.sin(x))
        return np.sum(np.sin(x))

Later passes read `np.sum(...)` on a local as a method call on a value; a
local that holds a module would be taken for an array. A local assigned a
module once, at the top level of the function and never rebound, is replaced
by the module's expression; any other local that holds a module is refused.
"""
import copy
import types

import gast

from .base import Pass
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["ModuleAliases"]


class ModuleAliases(Pass):
    """Replace local names of modules by the module expression."""

    def run(self, node):
        resolver = self.context.resolver
        stores = {}
        for n in walk(node):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        aliases, body = {}, []
        for stmt in node.body:
            if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(resolver.static_value(stmt.value), types.ModuleType)):
                name = stmt.targets[0].id
                if stores.get(name) == 1:
                    aliases[name] = stmt.value
                    continue
            body.append(stmt)
        for stmt in walk(node):
            if (isinstance(stmt, gast.Assign) and any(isinstance(t, gast.Name) and t.id not in aliases
                                                      for t in stmt.targets)
                    and isinstance(resolver.static_value(stmt.value), types.ModuleType)):
                raise self.error("a local name for a module is understood only when it is assigned once, at the "
                                 "top of the function", stmt, "use the module's own name (`jnp.sum`), or assign "
                                                              "the alias once before anything else")
        if not aliases:
            return node
        node.body = body
        return _Substitute(aliases).visit(node)


class _Substitute(NodeTransformer):
    def __init__(self, aliases):
        self.aliases = aliases

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.aliases:
            return gast.copy_location(copy.deepcopy(self.aliases[node.id]), node)
        return node
