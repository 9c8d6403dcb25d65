"""Loop `else` blocks become a flag: the else block runs when the loop ended without `break`.

    for v in x:                        _no_break = True
        if v > 0.5:                    for v in x:
            break              ->          if v > 0.5:
        acc = acc + v                          _no_break = False
    else:                                      break
        acc = acc * 2.0                    acc = acc + v
                                       if _no_break:
                                           acc = acc * 2.0

A `break` belongs to the innermost loop around it, so breaks inside nested loops
(and nested functions) are left alone. A loop without a `break` of its own always
runs its else block: it simply follows the loop.
"""
import gast

from .base import BlockPass, copy_location, name, store

__all__ = ["LoopElse"]


class LoopElse(BlockPass):
    """Rewrite `for ... else` and `while ... else` with a flag set before each of the loop's own breaks."""

    def rewrite(self, stmt):
        if not isinstance(stmt, (gast.For, gast.While)) or not stmt.orelse:
            return [stmt]
        otherwise, stmt.orelse = stmt.orelse, []
        breaks = list(_own_breaks(stmt.body))
        if not breaks:
            return [stmt] + otherwise
        flag = self.context.namer.fresh("_no_break")
        for block, index in reversed(breaks):
            block.insert(index, copy_location(_assign(flag, False), block[index]))
        start = copy_location(_assign(flag, True), stmt)
        after = copy_location(gast.If(test=name(flag), body=otherwise, orelse=[]), stmt)
        return [start, stmt, after]


def _assign(identifier, value):
    return gast.Assign(targets=[store(identifier)], value=gast.Constant(value=value, kind=None), type_comment=None)


def _own_breaks(block):
    """(block, index) of each `break` in `block` that ends the loop whose body `block` is."""
    for index, stmt in enumerate(block):
        if isinstance(stmt, gast.Break):
            yield block, index
        elif isinstance(stmt, (gast.For, gast.While)):
            yield from _own_breaks(stmt.orelse)     # a break in an inner loop's else ends the outer loop
        elif isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    yield from _own_breaks(inner)
            for handler in getattr(stmt, "handlers", []) or []:
                yield from _own_breaks(handler.body)
            for case in getattr(stmt, "cases", []) or []:
                yield from _own_breaks(case.body)
