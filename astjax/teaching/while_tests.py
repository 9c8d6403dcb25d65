"""A while loop's test written back into its header, as the user wrote it.

    abs_a = jnp.abs(a)                         _n1 = 0
    _t1 = abs_a > 0.1                          while jnp.abs(a) > 0.1:
    _n1 = 0                          ->            _n1 = _n1 + 1
    while _t1:                                     a = a * 0.5
        _n1 = _n1 + 1
        a = a * 0.5
        abs_a = jnp.abs(a)
        _t1 = abs_a > 0.1

Normalization computes a while loop's test in statements before the loop and again at the end of its
body. Where those statements are the same before and at the end, their names are read nowhere else
and each once, no `continue` skips the recomputation, and nothing between the first copy and the
loop assigns what they read, the test is their composition.
"""
import copy

import gast
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["fold_while_tests"]


def fold_while_tests(function_node):
    """Rewrite every such while loop of `function_node` in place; return it."""
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                for loop in [s for s in block if isinstance(s, gast.While)]:
                    _fold(function_node, block, loop)
    return function_node


def _fold(function_node, block, loop):
    if not isinstance(loop.test, gast.Name) or loop.orelse:
        return
    if any(isinstance(n, gast.Continue) for n in walk(loop)):
        return
    body = [s for s in loop.body if not _is_comment(s)]
    for k in range(len(body) - 1, 0, -1):
        chain = body[-k:]
        if not all(_plain_assign(s) for s in chain) or chain[-1].targets[0].id != loop.test.id:
            continue
        before = _matching_copy(block, block.index(loop), chain)
        if before is None:
            continue
        names = [s.targets[0].id for s in chain]
        if len(set(names)) != len(names) or not _read_only_in_chains(function_node, names, loop):
            continue
        test = _compose(chain)
        if test is None:
            continue
        for stmt in before:
            block.remove(stmt)
        for stmt in chain:
            loop.body.remove(stmt)
        loop.test = test
        return


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")


def _plain_assign(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)


def _same(a, b):
    strip = ("lineno", "col_offset", "end_lineno", "end_col_offset")
    a, b = copy.deepcopy(a), copy.deepcopy(b)
    for node in list(walk(a)) + list(walk(b)):
        for attr in strip:
            if hasattr(node, attr):
                setattr(node, attr, None)
    return gast.dump(a) == gast.dump(b)


def _matching_copy(block, loop_at, chain):
    """The statements before the loop that match `chain` in order, with only harmless ones between."""
    code = [i for i in range(loop_at) if not _is_comment(block[i])]
    read = {n.id for s in chain for n in walk(s.value) if isinstance(n, gast.Name)}
    names = {s.targets[0].id for s in chain}
    for start in range(len(code) - len(chain), -1, -1):
        candidate = [block[i] for i in code[start:start + len(chain)]]
        if all(_same(a, b) for a, b in zip(candidate, chain)):
            between = [block[i] for i in code[start + len(chain):]]
            stored = {n.id for s in between for n in walk(s) if isinstance(n, gast.Name)
                      and not isinstance(n.ctx, gast.Load)}
            if stored & (read | names):
                return None
            return candidate
        if any(isinstance(n, gast.Name) and n.id in names for n in walk(block[code[start + len(chain) - 1]])):
            return None
    return None


def _read_only_in_chains(function_node, names, loop):
    """Each chain name is read once in each copy of the chain (the last one only by the loop's test)."""
    loads = {}
    for node in walk(function_node):
        if isinstance(node, gast.Name) and node.id in names and isinstance(node.ctx, gast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    *inner, last = names
    return loads.get(last, 0) == 1 and all(loads.get(n, 0) == 2 for n in inner)


def _compose(chain):
    """The last assignment's value with each earlier name replaced by its value."""
    values = {}
    for stmt in chain:
        value = _Substitute(values).visit(copy.deepcopy(stmt.value))
        values[stmt.targets[0].id] = value
    return values[chain[-1].targets[0].id]


class _Substitute(NodeTransformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node
