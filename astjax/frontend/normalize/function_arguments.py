"""Functions passed as values: calls of known functions become calls of specialized callees.

    h = _apply(jnp.tanh, x)                 ->   h = _apply_1(x)       (_apply with f bound to jnp.tanh)
    y = _layer(x, w)                        ->   y = _layer_1(x, w)    (its default nonlinearity=np.tanh bound)
    y = cube(x)   (cube = partial(g, k=3))  ->   y = g(x, k=_bound1)   (_bound1 holds 3)

A user function called with an argument whose value is known when transforming
(frontend/specialize.py says which values) is replaced by a version of it with
that parameter bound to the function (frontend/specialize.py), so the callee's
`f(x)` resolves to what it calls. A parameter left to a default that is such a
function is bound the same way. A call of a `functools.partial` object known
when transforming calls its function with the bound arguments, which become
constants of the generated code.

A function value that is not known when transforming (computed from data, a
local variable) is left alone: the callee's call of it is refused as opaque.
"""
import functools

import gast

from ..resolve import NOT_STATIC
from ..specialize import is_known_function, specializable, specialize
from .base import Pass, copy_location, name

__all__ = ["FunctionArguments"]


class FunctionArguments(Pass):
    """Specialize calls of user functions on the known functions they receive; expand known partials."""

    def visit_Call(self, node):
        self.generic_visit(node)
        resolver = self.context.resolver
        target = resolver.static_value(node.func)
        if isinstance(target, functools.partial) and is_known_function(target):
            node = self._expand_partial(node, target)
            target = resolver.static_value(node.func)
        if specializable(target):
            node = self._specialize(node, target)
        return node

    def _expand_partial(self, node, partial):
        """`p(x)` for p = partial(g, a, k=b) known now: `g(_bound1, x, k=_bound2)`."""
        resolver, namer = self.context.resolver, self.context.namer
        func = name(resolver.introduce(f"_{getattr(partial.func, '__name__', 'partial')}_", partial.func, namer))
        args = [name(resolver.introduce("_bound", a, namer)) for a in partial.args] + list(node.args)
        given = {k.arg for k in node.keywords}
        keywords = [gast.keyword(arg=k, value=name(resolver.introduce("_bound", v, namer)))
                    for k, v in partial.keywords.items() if k not in given] + list(node.keywords)
        return copy_location(gast.Call(func=func, args=args, keywords=keywords), node)

    def _specialize(self, node, fn):
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return node
        resolver = self.context.resolver
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        if len(node.args) > len(params):
            return node            # Python raises the TypeError when the call runs
        given = dict(zip(params, node.args))
        given.update({k.arg: k.value for k in node.keywords})
        defaults = fn.__defaults__ or ()
        first_default = len(params) - len(defaults)
        bound = {}
        for i, param in enumerate(params):
            if param in given:
                value = resolver.static_value(given[param])
            elif i >= first_default:
                value = defaults[i - first_default]
            else:
                continue
            if value is not NOT_STATIC and is_known_function(value):
                bound[param] = value
        if not bound:
            return node
        special = specialize(fn, bound)
        label = resolver.introduce(f"_{fn.__name__}_", special, self.context.namer)
        args = [a for p, a in zip(params, node.args) if p not in bound]
        keywords = [k for k in node.keywords if k.arg not in bound]
        return copy_location(gast.Call(func=name(label), args=args, keywords=keywords), node)
