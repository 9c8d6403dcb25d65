"""The builtin `max` / `min` of several values becomes nested calls of two.

    max(a, b, c)        ->   max(max(a, b), c)
    min([a, b, c])      ->   min(min(a, b), c)       (a list or tuple written in the call)

Python's `max` keeps the first of equal values and takes a later one only where it is
strictly greater; `max(max(a, b), c)` does exactly that, so values and ties are
unchanged, and each two-value call is the `builtin_max` primitive (rules/control.py),
whose derivative goes to the value Python returned. `key=` and `default=`, a starred
argument or a list held in a name are left as they are (refused where a derivative
reaches them).
"""
import builtins

import gast

from .base import Pass

__all__ = ["BuiltinExtrema"]


class BuiltinExtrema(Pass):
    """Rewrite `max(a, b, c, ...)` and `max([a, b, c])` (and `min`) into nested two-value calls."""

    def visit_Call(self, node):
        self.generic_visit(node)
        value = self.context.resolver.static_value(node.func)
        if value not in (builtins.max, builtins.min) or node.keywords:
            return node
        items = node.args
        if len(items) == 1 and isinstance(items[0], (gast.List, gast.Tuple)):
            items = items[0].elts
        if len(items) < 2 or len(items) == len(node.args) == 2 \
                or any(isinstance(a, gast.Starred) for a in items):
            return node
        nested = items[0]
        for item in items[1:]:
            nested = gast.Call(func=gast.Name(id=node.func.id, ctx=gast.Load(), annotation=None, type_comment=None)
                               if isinstance(node.func, gast.Name) else node.func, args=[nested, item], keywords=[])
            gast.copy_location(nested, node)
        return nested
