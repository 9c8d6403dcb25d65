"""Chained assignments become one assignment per target, in Python's order.

    M[0] = M[2] = x           ->   M[0] = x
                                   M[2] = x
    a = b = np.zeros(3)       ->   _chained1 = np.zeros(3)
                                   a = _chained1
                                   b = _chained1

Python evaluates the value once and then binds it to each target from left to
right, so every target holds the same object: a value that is not a name or a
constant (or is a name a target rebinds: `x, y = z = x`) goes into one temporary first, and the aliasing pass then sees that
`a` and `b` share its memory (as they do in Python).
"""
import gast

from .base import BlockPass, copy_location, name, store
from ...codegen.node_walk import walk

__all__ = ["ChainedAssignments"]


class ChainedAssignments(BlockPass):
    """Split `t1 = t2 = ... = value` into single assignments of one evaluated value."""

    def rewrite(self, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) > 1):
            return [stmt]
        out = []
        value = stmt.value
        rebound = {n.id for t in stmt.targets for n in walk(t)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        if not isinstance(value, (gast.Name, gast.Constant)) or (isinstance(value, gast.Name) and value.id in rebound):
            held = self.context.namer.fresh("_chained")
            out.append(copy_location(gast.Assign(targets=[store(held)], value=value, type_comment=None), stmt))
            value = name(held)
        for target in stmt.targets:
            loaded = gast.Name(id=value.id, ctx=gast.Load(), annotation=None, type_comment=None) \
                if isinstance(value, gast.Name) else gast.Constant(value=value.value, kind=None)
            out.append(copy_location(gast.Assign(targets=[target], value=loaded, type_comment=None), stmt))
        return out
