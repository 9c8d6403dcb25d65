"""`f(*xs[a:b])` with constant bounds, into a user function, passes the items one by one.

    _weighted(*x[:3])            ->   _weighted(x[0], x[1], x[2])
    _weighted(x[0], *x[1:3])     ->   _weighted(x[0], x[1], x[2])

A slice with constant bounds has at most b - a items. Only a call whose callee is
a user function taking exactly that many positional arguments in all (no
`*args`, no keywords, no default values) is rewritten: then Python passes
items a .. b-1 when the sequence is long enough, and when it is shorter both
Python (a missing argument) and the rewritten call (an index out of range) raise.
The sliced value must be a plain name, so reading it once per item reads the
same object. Other starred arguments are left to the later passes, which refuse them.
"""
import inspect

import gast

from .base import Pass, copy_location
from ...codegen.node_walk import walk

__all__ = ["StaticStarArguments"]


class StaticStarArguments(Pass):
    """Spread `*name[a:b]` (constant a, b) into the positional arguments of a user function's call."""

    def run(self, node):
        if not any(isinstance(n, gast.Starred) for n in walk(node)):
            return node
        return self.visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        starred = [k for k, a in enumerate(node.args) if isinstance(a, gast.Starred)]
        if len(starred) != 1 or node.keywords:
            return node
        k = starred[0]
        bounds = _constant_slice(node.args[k].value)
        if bounds is None:
            return node
        lower, upper = bounds
        fn = self.context.resolver.static_value(node.func)
        from .call_signatures import _user_function
        if not _user_function(fn):
            return node
        code = fn.__code__
        if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount or fn.__defaults__:
            return node
        if len(node.args) - 1 + (upper - lower) != code.co_argcount:
            return node
        sequence = node.args[k].value.value
        items = [copy_location(gast.Subscript(value=gast.Name(id=sequence.id, ctx=gast.Load(), annotation=None,
                                                              type_comment=None),
                                              slice=gast.Constant(value=i, kind=None), ctx=gast.Load()), node)
                 for i in range(lower, upper)]
        node.args = node.args[:k] + items + node.args[k + 1:]
        return node


def _constant_slice(expr):
    """(a, b) of `name[a:b]` with non-negative integer constants a <= b (a missing lower bound is 0), else None."""
    if not (isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name)
            and isinstance(expr.slice, gast.Slice) and expr.slice.step is None):
        return None
    bounds = []
    for bound, missing in ((expr.slice.lower, 0), (expr.slice.upper, None)):
        if bound is None:
            bounds.append(missing)
        elif (isinstance(bound, gast.Constant) and type(bound.value) is int and bound.value >= 0):
            bounds.append(bound.value)
        else:
            return None
    lower, upper = bounds
    if upper is None or upper < lower:
        return None
    return lower, upper
