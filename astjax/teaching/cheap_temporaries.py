"""A temporary as cheap as its name is written where it is read, as the user wrote it.

    t_plus_1 = t + 1                        ->      bh_item = bh[t + 1]
    bh_item = bh[t_plus_1]                          bh = bh.at[t + 1].set(0.0)
    bh = bh.at[t_plus_1].set(0.0)

The derivation names each value it computes once; a teacher writes `t + 1` again rather than name
it, as the user did in `h[t + 1] = ...`. A temporary the derivation named (never a user's name),
assigned once to an index-sized expression (a name, a number, `x.T`; or, read at most twice, `n + 1`,
`xs[i]`, or a product of two names `ba * a` or a library function of a name `jnp.exp(a)`, read in one
statement only), whose every read is in a later statement of the same block with nothing in between (nor in those statements)
writing what the expression reads, is replaced by the expression at each read.
"""
import copy

import gast

from .header_temporaries import _writes
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["substitute_cheap_temporaries"]


def substitute_cheap_temporaries(function_node, temporaries):
    changed = True
    while changed:
        changed = False
        loads, stores = {}, {}
        for n in walk(function_node):
            if isinstance(n, gast.Name):
                (loads if isinstance(n.ctx, gast.Load) else stores).setdefault(n.id, []).append(n)
        for owner in list(walk(function_node)):
            for field in ("body", "orelse"):
                block = getattr(owner, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                    changed = _block(block, temporaries, loads, stores) or changed
    return function_node


def _block(block, temporaries, loads, stores):
    for i, stmt in enumerate(block):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        name = stmt.targets[0].id
        if name not in temporaries or len(stores.get(name, ())) != 1 or not _cheap(stmt.value):
            continue
        reads = {id(n) for n in loads.get(name, ())}
        if len(reads) > 2 and not isinstance(stmt.value, (gast.Name, gast.Constant, gast.Attribute)):
            continue                  # `1.0 + _t1` read seven times is a value a teacher names
        needs = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)} | {name}
        found, last = 0, None
        for j in range(i + 1, len(block)):
            inside = sum(1 for n in walk(block[j]) if id(n) in reads)
            if inside:
                found, last = found + inside, j
            if found == len(reads):
                break
            if _writes(block[j]) & needs:
                break
        if not reads or found != len(reads) or any(_writes(block[j]) & needs for j in range(i + 1, last)):
            continue
        if _writes(block[last]) & needs and not _assigns_after_reading(block[last], reads):
            continue
        if _product(stmt.value) and any(id(n) in reads for j in range(i + 1, last) for n in walk(block[j])):
            continue                  # a product is written out in one statement only
        replace = _Replace(reads, stmt.value)
        for j in range(i + 1, last + 1):
            replace.visit(block[j])
        del block[i]
        return True
    return False


def _assigns_after_reading(stmt, reads):
    """`ba = ... t ...` with every read of `t` in the value: the names are written after it is computed."""
    return (isinstance(stmt, gast.Assign) and all(isinstance(t, gast.Name) for t in stmt.targets)
            and sum(1 for n in walk(stmt.value) if id(n) in reads) == sum(1 for n in walk(stmt) if id(n) in reads))


def _product(expr):
    """`a * a`, `ba * a`: a product of two names; `jnp.exp(a)`: a library function of one name. As short
    to write as the name given to it, and the same number each time it is computed."""
    if isinstance(expr, gast.Call):
        return (isinstance(expr.func, gast.Attribute) and isinstance(expr.func.value, gast.Name)
                and expr.func.value.id == "jnp" and len(expr.args) == 1 and not expr.keywords
                and isinstance(expr.args[0], gast.Name))
    return (isinstance(expr, gast.BinOp) and isinstance(expr.op, gast.Mult)
            and all(isinstance(e, gast.Name) for e in (expr.left, expr.right)))


def _cheap(expr):
    if _product(expr):
        return True
    if isinstance(expr, (gast.Name, gast.Constant)):
        return True
    if isinstance(expr, gast.Attribute):
        return isinstance(expr.value, gast.Name)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
        return all(isinstance(e, (gast.Name, gast.Constant)) for e in (expr.left, expr.right))
    if isinstance(expr, gast.Subscript):
        return isinstance(expr.value, gast.Name) and isinstance(expr.slice, (gast.Name, gast.Constant))
    return False


class _Replace(NodeTransformer):
    def __init__(self, reads, value):
        self.reads, self.value = reads, value

    def visit_Name(self, node):
        return copy.deepcopy(self.value) if id(node) in self.reads else node
