"""Calls with `*seq` / `**mapping`, and callees with *args, keyword-only or **kwargs parameters.

    parts = [x, x + 1.0]
    s = _sum_all(*parts)           ->   s = _sum_all_1((parts[0], parts[1]))
    y = _kw_only(x, shift=1.0)     ->   y = _kw_only_1(x, _default1, 1.0)    (scale's default bound)
    a, b = zip(*pairs)             ->   a, b = (pairs[0][0], pairs[1][0]), (pairs[0][1], pairs[1][1])

`*seq` is expanded where the length of `seq` is known when transforming: a
tuple or list written out in the call, a local name assigned once from such a
literal (a list or dict only while every read of it is an item read, a
`for`, `len` or another `*`/`**`: nothing can change its length), or the
`*args` tuple of a copy made here. `**mapping` the same with a dict literal
of string keys. A call of a user function whose parameters are not all plain
is bound as Python binds it (inspect.Signature.bind) and calls a copy with
plain parameters (frontend/plain_signature.py): the extra positional
arguments go in a tuple literal, the extra keywords in a dict literal, and
every parameter left out is passed its default, the value bound when the
function was defined. A length or key that is not known is left alone, and
the later passes refuse the call.
"""
import copy
import inspect

import gast

from ..plain_signature import has_special_parameters, plain_signature
from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name
from ...codegen.node_walk import walk

__all__ = ["CallSignatures"]

_PURE_BUILTINS = (len, abs, min, max, float, int, bool, range, sum, tuple, list, zip, round, pow, enumerate,
                  sorted, reversed)


class CallSignatures(Pass):
    """Expand `*seq`, `**mapping` and `zip` of known lengths; call plain copies of *args/**kwargs callees."""

    def run(self, node):
        # what is known about names is read only for `*seq`, `**mapping` and `zip(...)`: a function with
        # none of them is spared the analysis
        self.stores, self.assigned, self.unsafe = _uses(node) if self._expands_anything(node) else ({}, {}, set())
        self.lengths = dict(getattr(self.context.source, "static_lengths", {}))
        self.keys = dict(getattr(self.context.source, "static_keys", {}))
        return self.visit(node)

    def _expands_anything(self, node):
        static_value = self.context.resolver.static_value
        return any(isinstance(n, gast.Starred) or (isinstance(n, gast.keyword) and n.arg is None)
                   or (isinstance(n, gast.Call) and static_value(n.func) is zip) for n in walk(node))

    # --- what is known about a name or item

    def _literal(self, expr):
        """The literal (Tuple/List/Dict node) a re-readable expression stands for, or None: a local name
        assigned once from it, or an item `name[i]` (constant i) of such a tuple or list."""
        if isinstance(expr, gast.Name):
            value = self.assigned.get(expr.id)
            if value is None or self.stores.get(expr.id) != 1:
                return None
            if not isinstance(value, gast.Tuple) and expr.id in self.unsafe:
                return None
            return value
        if (isinstance(expr, gast.Subscript) and isinstance(expr.slice, gast.Constant)
                and type(expr.slice.value) is int):
            outer = self._literal(expr.value)
            if isinstance(outer, (gast.Tuple, gast.List)) and -len(outer.elts) <= expr.slice.value < len(outer.elts):
                item = outer.elts[expr.slice.value]
                if isinstance(item, gast.Tuple) and not _starred(item.elts):
                    return item             # a tuple: its length cannot change
        return None

    def _parameter_known(self, name_, table):
        return name_ in table and not self.stores.get(name_) and name_ not in self.unsafe

    def static_length(self, expr):
        """How many items a re-readable expression has, known now; else None."""
        if isinstance(expr, gast.Name) and self._parameter_known(expr.id, self.lengths):
            return self.lengths[expr.id]
        literal = self._literal(expr)
        if isinstance(literal, (gast.Tuple, gast.List)) and not _starred(literal.elts):
            return len(literal.elts)
        return None

    def static_keys(self, expr):
        """The string keys of a re-readable expression holding a dict, known now; else None."""
        if isinstance(expr, gast.Name) and self._parameter_known(expr.id, self.keys):
            return self.keys[expr.id]
        literal = self._literal(expr)
        if isinstance(literal, gast.Dict):
            return _literal_keys(literal)
        return None

    def items(self, expr):
        """The expressions `*expr` stands for, or None."""
        if isinstance(expr, (gast.Tuple, gast.List)) and not _starred(expr.elts):
            return list(expr.elts)
        if isinstance(expr, gast.Subscript) and isinstance(expr.slice, gast.Slice):
            bounds = [_constant_int(b) for b in (expr.slice.lower, expr.slice.upper, expr.slice.step)]
            n = self.static_length(expr.value) if _rereadable(expr.value) else None
            if n is None or any(b is False for b in bounds) or bounds[2] == 0:
                return None
            return [_item(expr.value, i) for i in range(n)[slice(*bounds)]]
        n = self.static_length(expr)
        if n is None:
            return None
        return [_item(expr, i) for i in range(n)]

    def keywords(self, expr):
        """(key, expression) pairs `**expr` stands for, or None."""
        if isinstance(expr, gast.Dict):
            keys = _literal_keys(expr)
            return None if keys is None else list(zip(keys, expr.values))
        keys = self.static_keys(expr)
        if keys is None:
            return None
        return [(k, _item(expr, k)) for k in keys]

    # --- rewriting

    def visit_Call(self, node):
        self.generic_visit(node)
        expanded = False
        args, keywords = [], []
        for arg in node.args:
            items = self.items(arg.value) if isinstance(arg, gast.Starred) else None
            if items is None:
                args.append(arg)
            else:
                args.extend(items)
                expanded = True
        for keyword in node.keywords:
            pairs = self.keywords(keyword.value) if keyword.arg is None else None
            if pairs is None:
                keywords.append(keyword)
            else:
                keywords.extend(gast.keyword(arg=k, value=v) for k, v in pairs)
                expanded = True
        given = [k.arg for k in keywords if k.arg is not None]
        if len(given) != len(set(given)):
            raise self.error("this call passes the same keyword argument twice (Python raises a TypeError)", node)
        if expanded:
            node = copy_location(gast.Call(func=node.func, args=args, keywords=keywords), node)
        fn = self.context.resolver.static_value(node.func)
        if _user_function(fn) and (expanded or has_special_parameters(fn)):
            if _starred(args) or any(k.arg is None for k in keywords):
                return node                  # a length not known now: refused by the later passes
            return self._bind(node, fn)
        return node

    def _bind(self, node, fn):
        """The call with every argument by position, of `fn` or of its plain copy."""
        resolver, namer = self.context.resolver, self.context.namer
        signature = inspect.signature(fn, follow_wrapped=False)
        marks = [object() for _ in node.args]
        try:
            bound = signature.bind(*marks, **{k.arg: k for k in node.keywords})
        except TypeError as exc:
            raise self.error(f"this call does not match the parameters of `{fn.__name__}`: {exc}", node) from None
        where = {id(m): a for m, a in zip(marks, node.args)}

        def expr(value):
            return where[id(value)] if id(value) in where else value.value

        def default(param):
            return name(resolver.introduce(f"_{param.name}_default", param.default, namer))

        special = has_special_parameters(fn)
        params = list(signature.parameters.values())
        if not special:          # a plain callee: its trailing defaults stay its own
            while params and params[-1].name not in bound.arguments:
                params.pop()
        out, count, keys = [], 0, ()
        for param in params:
            value = bound.arguments.get(param.name, inspect.Parameter.empty)
            if param.kind is param.VAR_POSITIONAL:
                items = [expr(v) for v in value] if value is not param.empty else []
                count = len(items)
                out.append(gast.Tuple(elts=items, ctx=gast.Load()))
            elif param.kind is param.VAR_KEYWORD:
                pairs = dict(value) if value is not param.empty else {}
                keys = tuple(pairs)
                out.append(gast.Dict(keys=[gast.Constant(value=k, kind=None) for k in keys],
                                     values=[expr(v) for v in pairs.values()]))
            elif value is not param.empty:
                out.append(expr(value))
            elif param.default is not param.empty:
                out.append(default(param))
            else:
                raise self.error(f"this call does not pass `{param.name}` to `{fn.__name__}`", node)
        self._check_order(node, out)
        func = node.func
        if special and getattr(self.context.source.fn, "__astjax_specializes__", None) is fn and any(
                count > n for n in self.lengths.values()):
            raise self.error(f"`{fn.__name__}` calls itself with more extra positional arguments than it received: "
                             "astjax makes one version per count, and would make them without end", node,
                             hint="pass the growing arguments as one list or tuple parameter.")
        if special:
            func = name(resolver.introduce(f"_{fn.__name__}_", plain_signature(fn, count, keys), namer))
        return copy_location(gast.Call(func=func, args=out, keywords=[]), node)

    def _check_order(self, node, out):
        """Binding by name may pass the arguments in another order than the call writes them: refused
        where two of them may have effects (`f(b=xs.pop(), a=xs.pop())`), whose order Python fixes."""
        written = list(node.args) + [k.value for k in node.keywords]
        position = {id(e): i for i, e in enumerate(written)}
        passed = [e for a in out for e in (a.elts if isinstance(a, gast.Tuple) else
                                          a.values if isinstance(a, gast.Dict) else [a]) if id(e) in position]
        effects = [e for e in passed if self._may_have_effects(e)]
        if [position[id(e)] for e in effects] != sorted(position[id(e)] for e in effects) and len(effects) > 1:
            raise self.error("binding this call's keyword arguments to the parameters would evaluate two "
                             "arguments that may have effects in another order than written", node,
                             hint="compute them into names first, in the order you mean, and pass the names.")

    def _may_have_effects(self, expr):
        from ...analyses.classify import is_library
        for n in walk(expr):
            if isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)):
                return True
            if isinstance(n, gast.Call):
                fn = self.context.resolver.static_value(n.func)
                if fn is NOT_STATIC or not ((is_library(fn) and "random" not in (getattr(fn, "__module__", "") or ""))
                                            or any(fn is b for b in _PURE_BUILTINS)):
                    return True
        return False

    def visit_Assign(self, node):
        """`a, b = zip(s, t)` with s and t of known lengths: the tuple of tuples zip gives."""
        self.generic_visit(node)
        value = node.value
        if not (len(node.targets) == 1 and isinstance(node.targets[0], (gast.Tuple, gast.List))
                and isinstance(value, gast.Call) and not value.keywords and value.args
                and self.context.resolver.static_value(value.func) is zip):
            return node
        if not all(_rereadable(a) for a in value.args):
            return node
        lengths = [self.static_length(a) for a in value.args]
        if None in lengths:
            return node
        rows = [gast.Tuple(elts=[_item(a, i) for a in value.args], ctx=gast.Load()) for i in range(min(lengths))]
        node.value = copy_location(gast.Tuple(elts=rows, ctx=gast.Load()), value)
        return node


def _user_function(fn):
    """A Python function of the user's (not astjax's, a library's, or one with a rule)."""
    from ...analyses.classify import is_library
    from ...rules import lookup_callable
    if fn is NOT_STATIC or not inspect.isfunction(fn) or hasattr(fn, "__astjax_function_source__"):
        return False
    if is_library(fn) or (getattr(fn, "__module__", None) or "").startswith("astjax") or _astjax_code(fn):
        return False
    return lookup_callable(fn) is None


def _astjax_code(fn):
    """Whether `fn`'s code is astjax's own (grad(f) carries f's name and module through functools.wraps)."""
    import os
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return hasattr(fn, "__astjax_transform__") or os.path.abspath(fn.__code__.co_filename).startswith(package + os.sep)


def _starred(elts):
    return any(isinstance(e, gast.Starred) for e in elts)


def _literal_keys(node):
    if all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in node.keys):
        keys = [k.value for k in node.keys]
        return keys if len(keys) == len(set(keys)) else None
    return None


def _item(expr, key):
    return gast.Subscript(value=copy.deepcopy(expr), slice=gast.Constant(value=key, kind=None), ctx=gast.Load())


def _constant_int(node):
    """The int a slice bound is written as (None when absent), or False."""
    if node is None:
        return None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _constant_int(node.operand)
        return -inner if inner not in (None, False) else False
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else False


def _rereadable(expr):
    """Reading `expr` again gives the same value (a name, or constant items of one)."""
    while isinstance(expr, gast.Subscript) and isinstance(expr.slice, gast.Constant):
        expr = expr.value
    return isinstance(expr, gast.Name)


def _uses(function):
    """(stores per name in the body, the literal of each plain `name = [...]`/`(...)`/`{...}` in the
    function's own scope, names read other than as `name[i]`, `*name`, `**name`, `for _ in name` or
    `len(name)`) over the function's body and the functions nested in it."""
    body = gast.Module(body=function.body, type_ignores=[])
    stores, assigned, unsafe = {}, {}, set()
    parents = {}
    for n in walk(body):
        for child in gast.iter_child_nodes(n):
            parents[id(child)] = n
    for n in _own_scope(function.body):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and \
                isinstance(n.value, (gast.Tuple, gast.List, gast.Dict)):
            assigned[n.targets[0].id] = n.value
    for n in walk(body):
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            for label in n.names:
                stores[label] = stores.get(label, 0) + 2
        if not isinstance(n, gast.Name):
            continue
        if not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
            continue
        parent = parents.get(id(n))
        if isinstance(parent, gast.Subscript) and parent.value is n and isinstance(parent.ctx, gast.Load):
            continue
        if isinstance(parent, gast.Starred) or (isinstance(parent, gast.keyword) and parent.arg is None):
            continue
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is n:
            continue
        if (isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and parent.func.id == "len"
                and len(parent.args) == 1 and parent.args[0] is n):
            continue
        unsafe.add(n.id)
    return stores, assigned, unsafe


def _own_scope(body):
    """The nodes of `body` outside the functions and lambdas nested in it."""
    todo = list(body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))
