"""A temporary read once, in a later `for` header, is written in the header.

    n_plus_1 = n + 1                        ->      for i in reversed(range(n + 1)):
    for i in reversed(range(n_plus_1)):

    len_x = len(x)                          ->      for i in reversed(range(len(x))):
    for i in reversed(range(len_x)):

A loop's header is evaluated once, so this is cleanup's forward substitution (which writes a branch
flag into its `if` test) for `for` headers: only for a temporary the derivation named (never a user's
name), assigned and read once, in the same block, with nothing between writing what it reads and no
effects in its expression.
"""
import gast

from ..optimize.effects import has_effects
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["substitute_header_temporaries"]


def substitute_header_temporaries(function_node, temporaries):
    loads, stores = {}, {}
    for n in walk(function_node):
        if isinstance(n, gast.Name):
            table = loads if isinstance(n.ctx, gast.Load) else stores
            table.setdefault(n.id, []).append(n)
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _block(block, temporaries, loads, stores)
    return function_node


def _block(block, temporaries, loads, stores):
    i = 0
    while i < len(block):
        stmt = block[i]
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id in temporaries and len(stores.get(stmt.targets[0].id, ())) == 1
                and len(loads.get(stmt.targets[0].id, ())) == 1 and not _effects(stmt.value)):
            if _substitute(block, i, stmt.targets[0].id, stmt.value, loads[stmt.targets[0].id][0]):
                del block[i]
                continue
        i += 1


def _substitute(block, i, name, value, use):
    needs = {n.id for n in walk(value) if isinstance(n, gast.Name)}
    for later in block[i + 1:]:
        if isinstance(later, gast.For) and any(n is use for n in walk(later.iter)):
            later.iter = _Replace(use, value).visit(later.iter)
            return True
        if _writes(later) & needs:
            return False
    return False


def _writes(stmt):
    out = set()
    for n in walk(stmt):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            out.add(n.id)
        elif isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load):
            base = n
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                out.add(base.id)
        elif isinstance(n, gast.Call) and has_effects(n) and isinstance(n.func, gast.Attribute):
            base = n.func.value
            if isinstance(base, gast.Name):
                out.add(base.id)
    return out


def _effects(expr):
    return any(isinstance(n, gast.Call) and has_effects(n) for n in walk(expr))


class _Replace(NodeTransformer):
    def __init__(self, use, value):
        self.use, self.value = use, value

    def visit_Name(self, node):
        return self.value if node is self.use else node
