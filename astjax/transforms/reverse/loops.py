"""Reversing loops: the adjoint sweep runs the primal's iterations backwards.

A `for` loop over a range runs the same range reversed; a `while` loop, or a
`for` loop that may break, counts its iterations in the primal sweep
(`_n = 0` before it, `_n = _n + 1` at the top of its body) and the reverse runs
that many. The counter is an ordinary primal variable, so the tape keeps it
when an enclosing loop overwrites it, and a loop header reads only values the
tape restored for it (see analyses/tape.py).

    for i in range(a, b):           ->   for i in reversed(range(a, b)):
        body                                 reversed body
    while c:                        ->   for _k in range(_n):
        body                                 reversed body
"""
import copy

import gast

from ...codegen.templates import assign, call, name
from ...frontend.normalize.base import copy_location, rewrite_inner_blocks

__all__ = ["reverse_for", "reverse_while", "count_iterations", "breaks"]


def reverse_for(sweep, stmt):
    """Run the loop's iterations backwards: the same range reversed, cut to the count if it may break."""
    body = sweep.reverse_block(stmt.body)
    if not body:
        return []
    backwards = _call_name(stmt.iter) == "reversed"
    visited = copy.deepcopy(stmt.iter.args[0] if backwards else stmt.iter)
    count = sweep.counters.get(id(stmt))
    if count is None:
        iterator = visited if backwards else call("reversed", visited)
    elif backwards:     # it visited the last `count` positions of the range: run them forwards
        start = gast.BinOp(left=call("len", copy.deepcopy(visited)), op=gast.Sub(), right=name(count))
        iterator = gast.Subscript(value=visited, slice=gast.Slice(lower=start, upper=None, step=None),
                                  ctx=gast.Load())
    else:               # it visited the first `count` positions
        iterator = call("reversed", gast.Subscript(value=visited, slice=gast.Slice(
            lower=None, upper=name(count), step=None), ctx=gast.Load()))
    loop = gast.For(target=copy.deepcopy(stmt.target), iter=iterator, body=body, orelse=[], type_comment=None)
    return [copy_location(loop, stmt)]


def reverse_while(sweep, stmt):
    """A `while` loop runs its counted iterations backwards."""
    body = sweep.reverse_block(stmt.body)
    if not body:
        return []
    count = sweep.counters[id(stmt)]
    loop = gast.For(target=gast.Name(id=sweep.namer.fresh("_k"), ctx=gast.Store(), annotation=None, type_comment=None),
                    iter=call("range", name(count)), body=body, orelse=[], type_comment=None)
    return [copy_location(loop, stmt)]


def count_iterations(stmts, namer, counters):
    """Count the iterations of every loop whose length the reverse sweep cannot recompute.

    A `while` loop, or a `for` loop that may break, gets `_n = 0` before it and
    `_n = _n + 1` at the top of its body. The counter is an ordinary variable of
    the primal sweep, so the tape keeps it when an enclosing loop overwrites it.
    """
    out = []
    for stmt in stmts:
        rewrite_inner_blocks(stmt, lambda block: count_iterations(block, namer, counters))
        if isinstance(stmt, gast.While) or (isinstance(stmt, gast.For) and breaks(stmt.body)):
            count = namer.fresh("_n")
            counters[id(stmt)] = count      # stmt stays in the primal the sweep reverses: its id stays its own
            out.append(copy_location(assign(count, gast.Constant(value=0, kind=None)), stmt))
            stmt.body.insert(0, copy_location(assign(count, gast.BinOp(
                left=name(count), op=gast.Add(), right=gast.Constant(value=1, kind=None))), stmt))
        out.append(stmt)
    return out


def breaks(block):
    """Whether `block` breaks out of its own loop (not counting nested loops)."""
    for stmt in block:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (breaks(stmt.body) or breaks(stmt.orelse)):
            return True
    return False


def _call_name(value):
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id
    return None
