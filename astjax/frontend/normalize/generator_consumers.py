"""A user generator consumed whole, where it is made, becomes the list of what it yields.

    def _pairs(v):                              _pairs_v1 = x
        for i in range(len(v) - 1):             _yielded1 = []
            yield v[i], v[i + 1]        ->      for _pairs_i1 in range(len(_pairs_v1) - 1):
                                                    _yielded1.append((_pairs_v1[_pairs_i1], _pairs_v1[_pairs_i1 + 1]))
    s = sum(a * b for a, b in _pairs(x))        s = sum(a * b for a, b in _yielded1)

The generator's body runs where it is consumed, its own variables renamed
for this call, each `yield e` appending `e` to a list and each `yield from g`
appending what `g` yields (a user generator's body inlined the same way).
Computing every item first gives the consumer the same items as the lazy
generator where nothing runs between the items that could change what the
generator reads, and the generator is run to its end: so only where it is
consumed whole at once -- the argument of `sum`, `list`, `tuple`, `sorted`,
`min`, `max`, the first iterable of a comprehension, or the iterable of a `for`
loop without `break`, `return` or mutation in its body. `any`/`all`/`zip`/`next`
may stop early (an endless generator would never end) and a generator object
kept in a name may be consumed twice (the second time empty): both are left
alone, as are generators that `return`, receive values (`x = yield`), take
`*args`/`**kwargs`, or define functions, and the later passes refuse them.
"""
import copy
import inspect

import gast

from ..parse import function_source
from ..resolve import NOT_STATIC, Resolver
from .base import Renamer, copy_location, name, store
from .eager_calls import EagerCalls
from .iteration_builtins import _mutates
from ...codegen.node_walk import walk

__all__ = ["GeneratorConsumers"]

_WHOLE = (sum, list, tuple, sorted, min, max)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


class GeneratorConsumers(EagerCalls):
    """Run a user generator consumed whole into a list before the statement consuming it."""

    def run(self, node):
        if not any(self.generator(n) is not None for n in walk(node) if isinstance(n, gast.Call)):
            return node
        return super().run(node)

    def statement(self, stmt):
        if isinstance(stmt, gast.For) and self.generator(stmt.iter) is not None \
                and not _mutates(stmt.body + stmt.orelse, stmt.iter) and not _leaves(stmt.body):
            items = self.items_of(stmt.iter)
            if items is not None:
                stmt.iter = items
                return self.emitted + [stmt]
        return None

    def expression(self, node, eager):
        if eager and isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
            first = node.generators[0]
            if self.generator(first.iter) is not None and not _mutates([node], first.iter):
                items = self.items_of(first.iter)
                if items is not None:
                    first.iter = items
        return super().expression(node, eager)

    def call(self, node):
        if any(self.is_builtin(node.func, b) for b in _WHOLE):
            args = []
            for a in node.args:
                items = self.items_of(a) if self.generator(a) is not None else None
                args.append(items if items is not None else a)
            node.args = args
        return node

    def generator(self, node):
        """The user generator function `node` calls, else None."""
        if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            return None
        fn = self.context.resolver.static_value(node.func)
        from .call_signatures import _user_function
        if fn is NOT_STATIC or not inspect.isgeneratorfunction(fn) or not _user_function(fn):
            return None
        code = fn.__code__
        if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount:
            return None
        return fn

    def items_of(self, call):
        """Emit the generator's body appending to a new list; the list's name, or None (nothing emitted)."""
        saved = list(self.emitted)
        result = self.context.namer.fresh("_yielded")
        self.emit(gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None))
        if not self.inline(call, result, depth=0):
            self.emitted = saved
            return None
        return name(result)

    def inline(self, call, result, depth):
        fn = self.generator(call)
        if fn is None or depth > 8:
            return False
        source = function_source(fn)
        fdef = source.node
        if not _plain_generator(fdef):
            return False
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*call.args, **{
                k.arg: k.value for k in call.keywords})
        except TypeError:
            return False
        resolver, namer = self.context.resolver, self.context.namer
        base = "_" + fn.__name__.lstrip("_")
        renames, out = {}, []
        for param in inspect.signature(fn, follow_wrapped=False).parameters.values():
            given = bound.arguments.get(param.name, param.empty)
            if given is param.empty:
                given = name(resolver.introduce(f"{base}_{param.name}_default", param.default, namer))
            label = namer.fresh(f"{base}_{param.name}")
            renames[param.name] = label
            out.append(gast.Assign(targets=[store(label)], value=copy.deepcopy(given), type_comment=None))
        from .closure_factories import _local_names
        own = _local_names(fdef)
        for local in own - set(renames):
            renames[local] = namer.fresh(f"{base}_{local}")
        own_resolver = Resolver(fn, fdef)
        for n in own_resolver.free_name_nodes(fdef):
            if n.id in renames or n.id in own:
                continue
            value = own_resolver.lookup(n.id)
            if value is NOT_STATIC:
                return False
            if not resolver.is_local(n.id) and resolver.lookup(n.id) is value:
                resolver.introduce_as(n.id, value)
                continue
            renames[n.id] = resolver.introduce(f"_{n.id}", value, namer)
        body = [Renamer(renames).visit(copy.deepcopy(s)) for s in fdef.body
                if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
        body = self.yields_appended(body, result, depth)
        if body is None:
            return False
        self.context.inlined_functions = getattr(self.context, "inlined_functions", []) + [fn]
        for s in out + body:
            self.emit(copy_location(s, call))
        return True

    def yields_appended(self, block, result, depth):
        """`block` with `yield e` -> `result.append(e)`, `yield from g` -> its items appended; None if a
        yield is anything but a statement of its own."""
        out = []
        for stmt in block:
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Yield):
                value = stmt.value.value if stmt.value.value is not None else gast.Constant(value=None, kind=None)
                out.append(_append(result, value))
                continue
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.YieldFrom):
                inner = stmt.value.value
                pre = self.emitted
                self.emitted = []
                if self.generator(inner) is not None and self.inline(inner, result, depth + 1):
                    out.extend(self.emitted)
                    self.emitted = pre
                    continue
                self.emitted = pre
                item = self.context.namer.fresh("_yielded_item")
                out.append(gast.For(target=store(item), iter=inner, body=[_append(result, name(item))], orelse=[],
                                    type_comment=None))
                continue
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    replaced = self.yields_appended(inner, result, depth)
                    if replaced is None:
                        return None
                    setattr(stmt, field, replaced)
            if any(isinstance(n, (gast.Yield, gast.YieldFrom)) for f in ("test", "iter", "value", "target")
                   for n in walk(getattr(stmt, f, None) or gast.Pass())):
                return None
            out.append(stmt)
        return out


def _append(result, value):
    return gast.Expr(value=gast.Call(func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()),
                                     args=[value], keywords=[]))


def _plain_generator(fdef):
    """No `return`, `global`/`nonlocal`, nested scopes, `try`/`with`, and yields only as statements."""
    for n in walk(gast.Module(body=fdef.body, type_ignores=[])):
        if isinstance(n, (gast.Return, gast.Global, gast.Nonlocal, gast.Try, gast.With, gast.AsyncWith,
                          gast.Await) + _SCOPES):
            return False
    statements = {id(s.value) for s in walk(gast.Module(body=fdef.body, type_ignores=[]))
                  if isinstance(s, gast.Expr)}
    return all(id(n) in statements for n in walk(gast.Module(body=fdef.body, type_ignores=[]))
               if isinstance(n, (gast.Yield, gast.YieldFrom)))


def _leaves(block):
    """Whether a `for` body may stop its loop early: a `break` of its own, a `return` or a `raise`."""
    for stmt in block:
        if isinstance(stmt, (gast.Return, gast.Raise, gast.Break)):
            return True
        if isinstance(stmt, _SCOPES):
            continue
        if isinstance(stmt, (gast.For, gast.While)):
            if any(isinstance(n, (gast.Return, gast.Raise)) for s in stmt.body + stmt.orelse for n in walk(s)):
                return True
            if _leaves(stmt.orelse):
                return True
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) and _leaves(inner):
                return True
        for handler in getattr(stmt, "handlers", []) or []:
            if _leaves(handler.body):
                return True
    return False

