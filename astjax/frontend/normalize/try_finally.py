"""`try`/`finally` without `except` becomes straight-line code: the body, then the finally block.

    try:                             s = s * 2.0
        s = s * 2.0                  _finally_result1 = s
        return s            ->       s = s * 3.0
    finally:                         return _finally_result1
        s = s * 3.0

Without an `except`, the finally block runs after the body whichever way the
body ends; an exception then goes on to the caller, an error either way (the
finally block's effects are not seen there). A `return e` ending the body has
its value computed before the finally block runs, as Python does, so a finally
block rebinding a name does not change what is returned. Only the shapes whose
order is that plain are rewritten: the body may return only in its last
statement and may not `break` or `continue` a loop around the `try`, and the
finally block may not return, break or continue. Every other `try` (with
`except` handlers, or these jumps) is left to the later passes, which refuse it.
"""
import gast

from .base import BlockPass, copy_location, name, store
from ...codegen.node_walk import walk

__all__ = ["TryFinally"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


class TryFinally(BlockPass):
    """Rewrite `try: body finally: final` (no handlers, no else) into `body; final`."""

    def rewrite(self, stmt):
        if not isinstance(stmt, gast.Try) or stmt.handlers or stmt.orelse or not stmt.finalbody:
            return [stmt]
        body, final = list(stmt.body), list(stmt.finalbody)
        if _jumps(final, in_loop=False) or any(isinstance(n, (gast.Yield, gast.YieldFrom)) for s in body + final
                                                for n in walk(s)):
            return [stmt]
        returned = body.pop() if body and isinstance(body[-1], gast.Return) else None
        if _jumps(body, in_loop=False):
            return [stmt]
        final = [s for s in (self.block(final))]
        if returned is None:
            return body + final
        held = self.context.namer.fresh("_finally_result")
        value = returned.value if returned.value is not None else gast.Constant(value=None, kind=None)
        keep = copy_location(gast.Assign(targets=[store(held)], value=value, type_comment=None), returned)
        give = copy_location(gast.Return(value=name(held)), returned)
        return body + [keep] + final + [give]


def _jumps(block, in_loop):
    """Whether `block` holds a `return`, or a `break`/`continue` of a loop around it (not of a loop inside it)."""
    for stmt in block:
        if isinstance(stmt, gast.Return):
            return True
        if isinstance(stmt, (gast.Break, gast.Continue)) and not in_loop:
            return True
        if isinstance(stmt, _SCOPES):
            continue
        inner_loop = in_loop or isinstance(stmt, (gast.For, gast.While))
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                if _jumps(inner, inner_loop if field != "orelse" or not isinstance(stmt, (gast.For, gast.While))
                          else in_loop):
                    return True
        for handler in getattr(stmt, "handlers", []) or []:
            if _jumps(handler.body, in_loop):
                return True
        for case in getattr(stmt, "cases", []) or []:
            if _jumps(case.body, in_loop):
                return True
    return False
