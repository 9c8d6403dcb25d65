"""`astjax.jvp(f, (x,), (v,))` called inside a transformed function becomes a call of f's generated jvp.

    y, dy = astjax.jvp(f, (x, w), (v, u))     ->     y, dy = jvp_f(x, w, v, u)

`jvp_f` is the forward-mode function `astjax.jvp` itself runs (forward.forward_function), a generated
function with source, so the next transformation differentiates it like any callee (`grad` of a
function computing a directional derivative). Rewritten only for a plain Python function `f` known at
transform time, taking exactly the primals written as a tuple or list literal, with as many tangents;
anything else is left to the later passes, which refuse the call at its line.
"""
import inspect

import gast

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

__all__ = ["JvpCalls"]


class JvpCalls(Pass):
    """Rewrite `astjax.jvp(f, (primals...), (tangents...))` into `jvp_f(*primals, *tangents)`."""

    def run(self, node):
        from ... import forward
        self.jvp = forward.jvp
        self.visit(node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.context.resolver.static_value(node.func) is not self.jvp or node.keywords or len(node.args) != 3:
            return node
        fn, primals, tangents = node.args
        if not (isinstance(primals, (gast.Tuple, gast.List)) and isinstance(tangents, (gast.Tuple, gast.List))
                and len(primals.elts) == len(tangents.elts) and primals.elts
                and not any(isinstance(e, gast.Starred) for e in primals.elts + tangents.elts)):
            return node
        target = self.context.resolver.static_value(fn)
        if target is NOT_STATIC or not _plain_function(target, len(primals.elts)):
            return node
        from ...forward import forward_function
        generated, _ = forward_function(target, (True,) * len(primals.elts))
        generated.__astjax_jvp_of__ = target      # aliasing.py: it writes into what f writes into
        label = self.context.resolver.introduce(f"jvp_{target.__name__.strip('_') or 'f'}", generated,
                                                self.context.namer)
        return copy_location(gast.Call(func=name(label), args=list(primals.elts) + list(tangents.elts), keywords=[]),
                             node)


def _plain_function(fn, count):
    """A Python function (not a transform, custom rule or method) of exactly `count` positional parameters."""
    if not inspect.isfunction(fn) or getattr(fn, "__astjax_transform__", None) is not None:
        return False
    code = fn.__code__
    return (code.co_argcount == count and not code.co_posonlyargcount and not code.co_kwonlyargcount
            and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))
