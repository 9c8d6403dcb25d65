"""A user function specialized on the functions passed to it: `_apply(jnp.tanh, x)` calls `_apply[f=jnp.tanh](x)`.

A parameter that receives a function known when transforming (a global or module
attribute naming a function, an astjax.numpy/NumPy function, a ufunc, a user
function, a `functools.partial` of such) is bound to that function in a new
Python function built from the callee's own source: the parameter becomes a
closure cell holding the function, so the resolver sees `f(x)` inside the
callee as a call of `jnp.tanh` (a primitive) or of a user function, and the
transformations read it as they read any other call. The specialized function
keeps the callee's globals and closure cells (so `Bindings` notices a rebound
global) and carries its parsed source, with the user's file and lines, under
`__astjax_specialized_source__` (frontend/parse.py reads it).

Specializations are cached per (callee, its `__code__` and `__defaults__`, the
bound functions by identity), so a recursive callee that passes its function
on reuses the one being built, and a different function passed gets another.
"""
import ast
import copy
import functools
import inspect
import types

import gast
import numpy as np

from .parse import FunctionSource, function_source
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["is_known_function", "specialize", "PartialParameter", "function_from_node"]


class PartialParameter:
    """A parameter that receives `functools.partial(func, a1, ..., k1=b1, ...)` made in the caller from
    values known only when it runs: in the specialization the parameter becomes one parameter per
    bound argument (positional ones first, then the keywords in order), and each call `f(x)` of it
    calls `func(a1, ..., x, k1=b1, ...)`."""

    def __init__(self, func, positional, keywords):
        self.func, self.positional, self.keywords = func, positional, tuple(keywords)

    def key(self):
        return ("partial", id(self.func), self.positional, self.keywords)

    def same(self, other):
        return (isinstance(other, PartialParameter) and other.func is self.func
                and (other.positional, other.keywords) == (self.positional, self.keywords))

_CACHE = {}


def is_known_function(value):
    """Whether `value` may be bound into a callee as the function it is: a plain function, a builtin
    or ufunc, an astjax transformation or custom-derivative function, an instance of a user class with
    a Python `__call__`, or a partial of one of these. Anything else (a class, a bound method) is not
    specialized on."""
    from ..custom_derivatives import custom_jvp, custom_vjp
    if isinstance(value, functools.partial):
        return is_known_function(value.func)
    if (inspect.isfunction(value) or inspect.isbuiltin(value) or isinstance(value, np.ufunc)
            or isinstance(value, (custom_vjp, custom_jvp)) or hasattr(value, "__astjax_transform__")):
        return True
    # an instance of a user class with a Python __call__: its calls become calls of that method with the
    # object as an argument (normalize/function_arguments.py), which reads the object's state when it runs
    return (not isinstance(value, type) and not inspect.isroutine(value) and not inspect.ismodule(value)
            and specializable(getattr(type(value), "__call__", None)))


def specializable(fn):
    """Whether `fn` is a user function whose source astjax can specialize (plain positional parameters)."""
    from ..analyses.classify import is_library
    from ..rules import lookup_callable
    if not inspect.isfunction(fn) or hasattr(fn, "__astjax_function_source__") or is_library(fn):
        return False
    if (getattr(fn, "__module__", None) or "").startswith("astjax") or lookup_callable(fn) is not None:
        return False        # astjax's own functions (lax.scan takes a function: normalize/lax_control_flow.py)
    code = fn.__code__
    return not (code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)) and not code.co_kwonlyargcount


def specialize(fn, bound):
    """The function `fn` with the parameters in `bound` (name -> function) removed and bound to those
    functions; the remaining parameters keep their order and defaults."""
    key = (fn, fn.__code__, fn.__defaults__,
           tuple(sorted((k, v.key() if isinstance(v, PartialParameter) else id(v)) for k, v in bound.items())))
    found = _CACHE.get(key)
    if found is not None and all(found[1][k] is v or (isinstance(v, PartialParameter) and v.same(found[1][k]))
                                 for k, v in bound.items()):
        return found[0]
    source = function_source(fn)
    node = copy.deepcopy(source.node)
    params = [a.id for a in node.args.args]
    for n in walk(gast.Module(body=node.body, type_ignores=[])):
        if isinstance(n, gast.Name) and n.id in bound and not isinstance(n.ctx, gast.Load):
            return None      # a parameter the callee rebinds is a local variable there, not the function
        if isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & set(bound):
            return None
    first_default = len(params) - len(node.args.defaults)
    values = fn.__defaults__ or ()
    asked, bound = dict(bound), dict(bound)
    if any(isinstance(v, PartialParameter) for v in bound.values()):
        node = _expand_partial_parameters(node, bound, first_default)
        if node is None:
            return None
        first_default = len(node.args.args) - len(node.args.defaults)
    kept, kept_defaults, kept_values = [], [], []
    for i, arg in enumerate(node.args.args):
        if arg.id in bound:
            continue
        kept.append(arg)
        if i >= first_default and not getattr(arg, "partial_argument", False):
            kept_defaults.append(node.args.defaults[i - first_default])
            kept_values.append(values[i - first_default])
    node.args.args = kept
    node.args.defaults = kept_defaults
    node.decorator_list = []
    for arg in kept:
        arg.annotation = None
    node.returns = None
    special = function_from_node(fn, node, source, bound, kept_values)
    _CACHE[key] = (special, asked)
    return special


def function_from_node(fn, node, source, cells, defaults=()):
    """A Python function made from `node` (a rewritten copy of `fn`'s definition) with `fn`'s globals and
    closure cells, plus a closure cell for each name in `cells` (name -> value); it carries `node` as its
    source (with the user's file and lines) and remembers that it specializes `fn`."""
    outer = fn.__code__.co_freevars
    inner = gast.gast_to_ast(copy.deepcopy(node))
    inner.name = "_astjax_specialized"     # its own name inside it still means the global (recursion)
    factory = ast.FunctionDef(
        name="_astjax_specialize", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=n) for n in list(outer) + sorted(cells)], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[inner, ast.Return(value=ast.Name(id=inner.name, ctx=ast.Load()))], decorator_list=[], returns=None)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    module_code = compile(module, source.filename or "<astjax specialization>", "exec")
    factory_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == inner.name)
    code = code.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    by_name = dict(zip(outer, fn.__closure__ or ()))
    closure = tuple(by_name[n] if n in by_name else types.CellType(cells[n]) for n in code.co_freevars)
    special = types.FunctionType(code, fn.__globals__, fn.__name__, tuple(defaults) or None, closure or None)
    special.__qualname__ = fn.__qualname__
    special.__module__ = fn.__module__
    special.__astjax_specialized_source__ = FunctionSource(node, special, source.filename, source.first_line)
    for known in ("static_lengths", "static_keys"):     # normalize/call_signatures.py
        if hasattr(source, known):
            setattr(special.__astjax_specialized_source__, known, getattr(source, known))
    special.__astjax_specializes__ = getattr(fn, "__astjax_specializes__", fn)
    return special


def _expand_partial_parameters(node, bound, first_default):
    """Replace each PartialParameter-bound parameter by its bound arguments' parameters and its calls
    by calls of its function (a closure cell bound in `bound`); None when the parameter is used other
    than by calling it, or has a default."""
    used = {n.id for n in walk(node) if isinstance(n, gast.Name)} | {a.id for a in node.args.args}

    def fresh(base):
        label, n = base, 1
        while label in used:
            n += 1
            label = f"{base}{n}"
        used.add(label)
        return label

    args, calls = [], {}
    for i, arg in enumerate(node.args.args):
        marker = bound.get(arg.id)
        if not isinstance(marker, PartialParameter):
            args.append(arg)
            continue
        if i >= first_default:
            return None
        func = fresh(f"{arg.id}_func")
        positional = [fresh(f"{arg.id}_arg") for _ in range(marker.positional)]
        keywords = {k: fresh(f"{arg.id}_{k}") for k in marker.keywords}
        for label in positional + list(keywords.values()):
            new = gast.Name(id=label, ctx=gast.Param(), annotation=None, type_comment=None)
            gast.copy_location(new, arg)
            new.partial_argument = True
            args.append(new)
        del bound[arg.id]
        bound[func] = marker.func
        calls[arg.id] = (func, positional, keywords)
    body = gast.Module(body=node.body, type_ignores=[])
    callers = {id(n.func) for n in walk(body) if isinstance(n, gast.Call)}
    for n in walk(body):
        if isinstance(n, gast.Name) and n.id in calls and id(n) not in callers:
            return None              # passed on or stored: not a call astjax can rewrite
    node.args.args = args

    class Calls(NodeTransformer):
        def visit_Call(self, call):
            self.generic_visit(call)
            if isinstance(call.func, gast.Name) and call.func.id in calls:
                func, positional, keywords = calls[call.func.id]
                given = {k.arg for k in call.keywords}
                new = gast.Call(func=gast.Name(id=func, ctx=gast.Load(), annotation=None, type_comment=None),
                                args=[gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None)
                                      for p in positional] + list(call.args),
                                keywords=[gast.keyword(arg=k, value=gast.Name(id=v, ctx=gast.Load(), annotation=None,
                                                                              type_comment=None))
                                          for k, v in keywords.items() if k not in given] + list(call.keywords))
                for child in walk(new):
                    gast.copy_location(child, call)
                return new
            return call

    node.body = [Calls().visit(stmt) for stmt in node.body]
    return node
