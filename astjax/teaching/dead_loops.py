"""A loop nothing after it reads from is not printed.

    while jnp.abs(a) > 0.1:          ->      return 0.0
        a = a * 0.5
    return 0.0

The second derivative of `a * 0.5 ** k` is zero: the derivative no longer reads what the loop
computes, yet the forward sweep still runs it. A teacher writes the zero. A `for` or `while` loop goes
when every name it assigns is read nowhere outside it, and nothing in it has an effect (a call with
one, a tape, an item or attribute store, a `return`, `raise`, `global` or nested function); the
`# from line N` comments right above it go with it. The
printed view describes the run on the example arguments, on which the loop ended.
"""
import gast

from ..optimize.effects import has_effects
from ..codegen.node_walk import walk

__all__ = ["drop_dead_loops"]


def drop_dead_loops(function_node):
    """Remove such loops from `function_node` (in place), innermost blocks first; return it."""
    changed = True
    while changed:
        changed = False
        for owner in list(walk(function_node)):
            for field in ("body", "orelse"):
                block = getattr(owner, field, None)
                if not (isinstance(block, list) and block and isinstance(block[0], gast.stmt)):
                    continue
                for i, stmt in enumerate(block):
                    if isinstance(stmt, (gast.For, gast.While)) and _dead(stmt, function_node):
                        start = i
                        while start > 0 and _is_comment(block[start - 1]):
                            start -= 1         # the `# from line N` comments above it label the loop
                        del block[start:i + 1]
                        if not block and field == "body":
                            block.append(gast.Pass())
                        changed = True
                        break
    return function_node


def _dead(loop, function_node):
    stored = set()
    for node in walk(loop):
        if isinstance(node, (gast.Return, gast.Raise, gast.Global, gast.Nonlocal, gast.FunctionDef, gast.Lambda,
                             gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr)):
            return False
        if isinstance(node, (gast.Subscript, gast.Attribute)) and not isinstance(node.ctx, gast.Load):
            return False
        if isinstance(node, gast.Call) and not _comment(node) and (_tape_call(node) or _effect(node)):
            return False
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stored.add(node.id)
    inside = {id(n) for n in walk(loop)}
    return not any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in stored
                   and id(n) not in inside for n in walk(function_node))


def _tape_call(call):
    return isinstance(call.func, gast.Name) and call.func.id in ("push", "pop", "Tape")


def _comment(call):
    return isinstance(call.func, gast.Name) and call.func.id == "__comment__"


def _effect(call):
    """An effect of the call itself (its arguments are walked on their own)."""
    return has_effects(gast.Call(func=call.func, args=[], keywords=[]))


def _is_comment(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and _comment(stmt.value)
