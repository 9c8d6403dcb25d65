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
        if self.context.resolver.static_value(node.func) is not self.jvp:
            return node
        fn, primals, tangents = _jvp_arguments(node)
        if fn is None:
            raise self._refusal(node, "write it as `astjax.jvp(f, (x, ...), (v, ...))`: the function and two "
                                      "tuples, without has_aux")
        if not (isinstance(primals, (gast.Tuple, gast.List)) and isinstance(tangents, (gast.Tuple, gast.List))
                and len(primals.elts) == len(tangents.elts) and primals.elts
                and not any(isinstance(e, gast.Starred) for e in primals.elts + tangents.elts)):
            raise self._refusal(node, "the primals and tangents must be written as tuple literals of the same "
                                      "length (`(x, w), (v, u)`), not names or starred items")
        target = self.context.resolver.static_value(fn)
        if target is NOT_STATIC:
            raise self._refusal(node, f"`{_text(fn)}` is not known when the function is transformed (a local "
                                      "function, a lambda or a parameter)", define=True)
        if not _plain_function(target, len(primals.elts)):
            raise self._refusal(node, f"`{_text(fn)}` is not a Python function of exactly "
                                      f"{len(primals.elts)} positional parameter(s) (an astjax.numpy function, a "
                                      "transform, a partial, or a function with defaults or *args)", define=True)
        from ...forward import forward_function
        generated, _ = forward_function(target, (True,) * len(primals.elts))
        generated.__astjax_jvp_of__ = target      # aliasing.py: it writes into what f writes into
        label = self.context.resolver.introduce(f"jvp_{target.__name__.strip('_') or 'f'}", generated,
                                                self.context.namer)
        return copy_location(gast.Call(func=name(label), args=list(primals.elts) + list(tangents.elts), keywords=[]),
                             node)

    def _refusal(self, node, reason, define=False):
        hint = ("define a module-level function that takes exactly the primals (`def g(x): return jnp.sin(x)`) "
                "and call astjax.jvp(g, (x,), (v,))" if define else
                "call it as astjax.jvp(f, (x, ...), (v, ...)) with f a module-level function")
        return self.error(f"astjax.jvp inside a transformed function is supported only in the form "
                          f"`jvp(f, (x, ...), (v, ...))` with f a module-level Python function: {reason}", node,
                          hint=hint)


def _jvp_arguments(call):
    """(fn, primals, tangents) of a jvp call written positionally or with the keywords `fun`, `primals`,
    `tangents`; (None, None, None) for any other form (has_aux, *args)."""
    names = ("fun", "primals", "tangents")
    if len(call.args) > 3 or any(isinstance(a, gast.Starred) for a in call.args):
        return None, None, None
    given = dict(zip(names, call.args))
    for k in call.keywords:
        if k.arg not in names or k.arg in given:
            return None, None, None
        given[k.arg] = k.value
    if len(given) != 3:
        return None, None, None
    return given["fun"], given["primals"], given["tangents"]


def _text(node):
    return gast.unparse(node) if hasattr(gast, "unparse") else __import__("ast").unparse(gast.gast_to_ast(node))


def _plain_function(fn, count):
    """A user's Python function (not a transform, custom rule, method or astjax function) of exactly `count`
    positional parameters."""
    if not inspect.isfunction(fn) or getattr(fn, "__astjax_transform__", None) is not None or (
            (getattr(fn, "__module__", None) or "").split(".")[0] == "astjax"):     # jnp.sin: astjax's own source
        return False
    code = fn.__code__
    return (code.co_argcount == count and not code.co_posonlyargcount and not code.co_kwonlyargcount
            and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))
