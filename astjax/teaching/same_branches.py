"""An `if` whose branches do the same thing is that thing, its comments kept.

    if a > b:                                   # from line 126: o = _inner_fn(a, b)
        # from line 126: o = _inner_fn(a, b)    # from line 128: o = _inner_fn(b, a)
        ba = b                          ->      ba = b
    else:
        # from line 128: o = _inner_fn(b, a)
        ba = b

The derivative of `a * b` is `b` whichever way the branch went; a teacher writes it once. Only for a
test without effects, and branches equal statement for statement (comments aside).
"""
import gast

from ..optimize.effects import has_effects
from ..codegen.node_walk import walk

__all__ = ["merge_same_branches"]


def merge_same_branches(function_node):
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(owner, field, _block(block))
    return function_node


def _block(block):
    out = []
    for stmt in block:
        if isinstance(stmt, gast.If) and stmt.orelse and not _effects(stmt.test):
            body, orelse = _code(stmt.body), _code(stmt.orelse)
            if [gast.dump(s) for s in body] == [gast.dump(s) for s in orelse]:
                out.extend(_comments(stmt.body) + _comments(stmt.orelse) + body)
                continue
        out.append(stmt)
    return out


def _effects(expr):
    return any(isinstance(n, gast.Call) and has_effects(n) for n in walk(expr))


def _code(block):
    return [s for s in block if not _is_comment(s)]


def _comments(block):
    return [s for s in block if _is_comment(s)]


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
