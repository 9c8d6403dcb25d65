"""Array methods and properties become calls of astjax.numpy functions.

    y = x.sum(axis=0) + x.T        ->   y = jnp.sum(x, axis=0) + jnp.transpose(x)
    z = x.reshape(2, 3)            ->   z = jnp.reshape(x, (2, 3))

Only methods called on values (not on modules such as `np`) are rewritten.
"""
import gast

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

# method -> astjax.numpy function (same arguments, the array first)
METHODS = {m: m for m in ("sum", "mean", "prod", "max", "min", "var", "std", "argmax", "argmin",
                          "ravel", "squeeze", "clip", "cumsum", "swapaxes", "dot", "round",
                          "any", "all", "copy", "transpose", "reshape", "astype")}
METHODS["flatten"] = "ravel"
VARARG_METHODS = {"reshape", "transpose"}   # x.reshape(2, 3) means x.reshape((2, 3))


class MethodCalls(Pass):
    """Rewrite `x.method(...)` and `x.T` into `jnp.<function>(x, ...)`."""

    def _is_value(self, node):
        return self.context.resolver.static_value(node) is NOT_STATIC

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, gast.Attribute) and self._is_value(func.value)):
            return node
        if func.attr not in METHODS:
            return node
        args = node.args
        if func.attr in VARARG_METHODS and len(args) > 1:
            args = [gast.Tuple(elts=args, ctx=gast.Load())]
        call = gast.Call(func=gast.Attribute(value=name("jnp"), attr=METHODS[func.attr], ctx=gast.Load()),
                         args=[func.value] + args, keywords=node.keywords)
        return copy_location(call, node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "T" and isinstance(node.ctx, gast.Load) and self._is_value(node.value):
            call = gast.Call(func=gast.Attribute(value=name("jnp"), attr="transpose", ctx=gast.Load()),
                             args=[node.value], keywords=[])
            return copy_location(call, node)
        return node
