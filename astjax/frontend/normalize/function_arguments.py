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
import copy
import functools
import types

import gast

from ..resolve import NOT_STATIC
from ..specialize import PartialParameter, is_known_function, specializable, specialize
from .base import Pass, copy_location, name
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["FunctionArguments"]


class FunctionArguments(Pass):
    """Specialize calls of user functions on the known functions they receive; expand known partials."""

    def run(self, node):
        self.partials = {}
        node.body = self._local_partials(node.body)
        node = self.visit(node)
        for n in walk(node):
            if isinstance(n, gast.Name) and n.id in self.partials:
                raise self.error(f"the partial `{n.id}` made in this function is used other than by calling it or "
                                 f"passing it by position to a user function", n,
                                 hint=f"call `{n.id}(...)` directly, or make the partial at module level from "
                                      f"constants.")
        return node

    def _local_partials(self, body):
        """`g = partial(f, w, k=c)` in the function's top-level body, g assigned nowhere else and only
        called: the bound arguments are evaluated there into temporaries, and each `g(x)` calls
        `f(_w, x, k=_c)` (Python evaluates them once, when the partial is made)."""
        resolver = self.context.resolver
        stores, loads, calls = {}, {}, {}
        for n in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(n, gast.Name):
                counts = stores if not isinstance(n.ctx, gast.Load) else loads
                counts[n.id] = counts.get(n.id, 0) + 1
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
                calls[n.func.id] = calls.get(n.func.id, 0) + 1
        out, partials = [], {}
        for stmt in body:
            made = self._partial_made(stmt, resolver)
            if made is None or stores.get(made[0]) != 1:
                out.append(_CallPartials(partials).visit(stmt) if partials else stmt)
                continue
            target, call = made
            temps = []
            for value in call.args[1:]:
                label = self.context.namer.fresh(f"_{target}_arg")
                out.append(copy_location(gast.Assign(targets=[gast.Name(id=label, ctx=gast.Store(), annotation=None,
                                                                        type_comment=None)],
                                                     value=value, type_comment=None), stmt))
                temps.append(label)
            keywords = {}
            for k in call.keywords:
                label = self.context.namer.fresh(f"_{target}_{k.arg}")
                out.append(copy_location(gast.Assign(targets=[gast.Name(id=label, ctx=gast.Store(), annotation=None,
                                                                        type_comment=None)],
                                                     value=k.value, type_comment=None), stmt))
                keywords[k.arg] = label
            partials[target] = (call.args[0], temps, keywords)
            self.partials[target] = (self.context.resolver.static_value(call.args[0]), temps, keywords)
        return out

    @staticmethod
    def _partial_made(stmt, resolver):
        """(name, the partial(...) call) for `name = functools.partial(f, ...)` with f known, else None."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Call) and stmt.value.args):
            return None
        call = stmt.value
        if resolver.static_value(call.func) is not functools.partial:
            return None
        if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        func = resolver.static_value(call.args[0])
        if func is NOT_STATIC or not is_known_function(func):
            return None
        return stmt.targets[0].id, call

    def visit_Call(self, node):
        self.generic_visit(node)
        resolver = self.context.resolver
        target = resolver.static_value(node.func)
        if isinstance(target, functools.partial) and is_known_function(target):
            node = self._expand_partial(node, target)
            target = resolver.static_value(node.func)
        if _callable_object(target) and _stats_class_method(type(target).__call__):
            target = types.MethodType(type(target).__call__, target)     # `kde(x)` is `kde.__call__(x)`, below
        if _callable_object(target) and isinstance(node.func, (gast.Name, gast.Attribute)):
            method = type(target).__call__
            label = self.context.resolver.introduce(f"_{type(target).__name__}_call", method, self.context.namer)
            node = copy_location(gast.Call(func=name(label), args=[node.func] + list(node.args),
                                           keywords=node.keywords), node)
            target = method
        if _user_bound_method(target) and isinstance(node.func, (gast.Name, gast.Attribute)):
            # `obj.method(x)` with obj known now (a global instance): `Cls.method(obj, x)`, so that the callee's
            # derivative receives the object as the function's source declares it (its first parameter)
            method = target.__func__
            special = _bound_to_receiver(method, target.__self__)
            if special is not None:
                # the method with its first parameter bound to the object: `self.other(x)` and `self.w` inside
                # it are then known too (a method of a known object, an attribute read when it runs)
                label = resolver.introduce(f"_{method.__name__}", special, self.context.namer)
                node = copy_location(gast.Call(func=name(label), args=list(node.args), keywords=node.keywords),
                                     node)
                target = special
            else:
                label = resolver.introduce(f"_{method.__name__}", method, self.context.namer)
                receiver = name(resolver.introduce("_receiver", target.__self__, self.context.namer))
                node = copy_location(gast.Call(func=name(label), args=[receiver] + list(node.args),
                                               keywords=node.keywords), node)
                target = method
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
        bound, expanded = {}, {}
        for i, param in enumerate(params):
            argument = given.get(param)
            if i < len(node.args) and isinstance(argument, gast.Name) and argument.id in self.partials:
                func, temps, keywords = self.partials[argument.id]
                bound[param] = PartialParameter(func, len(temps), list(keywords))
                expanded[param] = [name(t) for t in temps + list(keywords.values())]
                continue
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
        if special is None:
            return node
        label = resolver.introduce(f"_{fn.__name__}_", special, self.context.namer)
        args = []
        for p, a in zip(params, node.args):
            if p in expanded:
                args.extend(expanded[p])
            elif p not in bound:
                args.append(a)
        keywords = [k for k in node.keywords if k.arg not in bound]
        return copy_location(gast.Call(func=name(label), args=args, keywords=keywords), node)


class _CallPartials(NodeTransformer):
    """`g(x)` for a partial g made in the function: `f(_g_arg1, x, k=_g_k1)`."""

    def __init__(self, partials):
        self.partials = partials

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id in self.partials:
            func, temps, keywords = self.partials[node.func.id]
            given = {k.arg for k in node.keywords}
            call = gast.Call(func=copy.deepcopy(func), args=[name(t) for t in temps] + list(node.args),
                             keywords=[gast.keyword(arg=k, value=name(v)) for k, v in keywords.items()
                                       if k not in given] + list(node.keywords))
            return copy_location(call, node)
        return node


def _bound_to_receiver(method, receiver):
    """`method` with its first parameter (`self`, `cls`) bound to `receiver`, or None where it cannot be (no
    positional parameter, or the method rebinds it)."""
    code = method.__code__
    if code.co_argcount == 0 or code.co_posonlyargcount:
        return None
    return specialize(method, {code.co_varnames[0]: receiver})


def _user_bound_method(value):
    """Whether `value` is a method of a user class bound to an object (or a class) known when transforming."""
    import inspect
    return inspect.ismethod(value) and not inspect.ismodule(value.__self__) and (
        specializable(value.__func__) or _stats_class_method(value.__func__))


def _stats_class_method(fn):
    """Whether `fn` is a method of astjax's classes written from primitives (`stats.gaussian_kde`): its source
    is transformed as the user's, so a call on a known object binds the object as a user method's does."""
    import inspect
    from ...analyses.classify import is_library
    return (inspect.isfunction(fn) and (fn.__module__ or "").startswith("astjax.scipy.stats.") and not is_library(fn)
            and not fn.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
            and not fn.__code__.co_kwonlyargcount)


def _callable_object(value):
    """Whether `value` is an instance (known when transforming) of a user class with a Python `__call__`:
    `obj(x)` is `type(obj).__call__(obj, x)`, a call of a user function with the object as an argument."""
    import inspect
    if value is NOT_STATIC or isinstance(value, type) or inspect.isroutine(value) or inspect.ismodule(value):
        return False
    if isinstance(value, functools.partial) or hasattr(value, "__astjax_transform__"):
        return False
    from ...custom_derivatives import custom_jvp, custom_vjp
    if isinstance(value, (custom_jvp, custom_vjp)):
        return False
    method = getattr(type(value), "__call__", None)
    return specializable(method) or _stats_class_method(method)
