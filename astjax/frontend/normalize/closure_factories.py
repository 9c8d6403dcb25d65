"""Functions made by a user function (a closure factory) become local functions of the caller.

    def _make_scaler(c):                        f = _make_scaler(3.0)
        def scale(v):                  ->   becomes
            return v * c                        _make_scaler_c = 3.0
        return scale                            def f(v):
                                                    return v * _make_scaler_c

The factory's body runs where it is called, its own variables renamed for this
call (so they hold what they held when it returned, as the closure's cells
do), and the function it returns becomes a local function `f` reading them
(normalize/local_functions.py and local_function_values.py then inline each
call of `f`). A function passed to the factory (`_compose(jnp.sin, g)`) is
bound by name, so calls of it resolve to what it is. A name the factory reads
from its own module resolves there: it keeps its name where the caller's
resolves to the same object, else gets a new name bound to the factory's.

Only `f = factory(...)` with `f` a plain name, and a factory of plain
parameters whose body ends in `return inner` (a function defined in it) or
`return lambda ...`, with no other return, no `global`/`nonlocal`, and a
returned function with plain parameters that does not call itself, is
rewritten (one that changes an object of its closure in place, `calls[0] += 1`,
is refused: each call reads the state the last one left); other calls are left to the later passes.
"""
import copy
import inspect

import gast

from ..parse import function_source
from ..resolve import NOT_STATIC, Resolver
from ..specialize import is_known_function
from .base import BlockPass, Renamer, copy_location, name, store
from ...codegen.node_walk import walk
from ...optimize.effects import MUTATING_METHODS

__all__ = ["ClosureFactories"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp, gast.SetComp,
           gast.DictComp, gast.GeneratorExp)


class ClosureFactories(BlockPass):
    """Rewrite `f = factory(args)` into the factory's body and a local definition of `f`."""

    def rewrite(self, stmt):
        made = self._factory_call(stmt)
        return made if made is not None else [stmt]

    def _factory_call(self, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Call)):
            return None
        call = stmt.value
        if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        factory = self.context.resolver.static_value(call.func)
        if not _plain_user_function(factory):
            return None
        source = function_source(factory)
        shape = _factory_shape(source.node)
        if shape is None:
            return None
        body, inner = shape
        changed = _closure_change(inner, _local_names(source.node) - {inner.name} - _local_names(inner))
        if changed is not None:
            changed, state = changed
            raise self.context.error(
                f"`{stmt.targets[0].id}` is a function made by `{factory.__name__}` that changes `{state}` of its "
                f"closure in place (`{factory.__name__}`'s line {changed.lineno}): each call reads the state the last "
                "one left, which astjax's inlined copies of the function would not share", stmt,
                hint=f"keep the state in this function and pass it in and out explicitly "
                     f"(`y, {state} = f(x, {state})`).")
        try:
            bound = inspect.signature(factory, follow_wrapped=False).bind(*call.args, **{
                k.arg: k.value for k in call.keywords})
        except TypeError:
            return None
        return self._inline(stmt, factory, source, bound, body, inner)

    def _inline(self, stmt, factory, source, bound, body, inner):
        resolver, namer = self.context.resolver, self.context.namer
        target = stmt.targets[0].id
        own = _local_names(source.node)
        renames, out = {}, []
        base = "_" + factory.__name__.lstrip("_")
        for param in inspect.signature(factory, follow_wrapped=False).parameters.values():
            given = bound.arguments.get(param.name, param.empty)
            if given is param.empty:         # its default: the value bound when the factory was defined
                given = name(resolver.introduce(f"{base}_{param.name}_default", param.default, namer))
            value = resolver.static_value(given)
            stored = any(isinstance(n, gast.Name) and n.id == param.name and not isinstance(n.ctx, gast.Load)
                         for s in body + [inner] for n in walk(s))
            if value is not NOT_STATIC and not stored and is_known_function(value):
                renames[param.name] = resolver.introduce(f"{base}_{param.name}", value, namer)
                continue
            label = namer.fresh(f"{base}_{param.name}")
            renames[param.name] = label
            out.append(copy_location(gast.Assign(targets=[store(label)], value=given, type_comment=None), stmt))
        for local in own - set(renames):
            renames[local] = namer.fresh(f"{base}_{local}")
        factory_resolver = Resolver(factory, source.node)
        for n in factory_resolver.free_name_nodes(source.node):
            if n.id in renames or n.id in own:
                continue
            value = factory_resolver.lookup(n.id)
            if value is NOT_STATIC:
                return None
            if not resolver.is_local(n.id) and resolver.lookup(n.id) is value:
                resolver.introduce_as(n.id, value)     # the caller's name: generated code must bind it too
                continue
            renames[n.id] = resolver.introduce(f"_{n.id}", value, namer)
        self.context.inlined_functions = getattr(self.context, "inlined_functions", []) + [factory]
        for s in body:
            out.append(copy_location(Renamer(renames).visit(copy.deepcopy(s)), stmt))
        fdef = copy.deepcopy(inner)
        fdef.name = target
        fdef.body = [Renamer(renames, keep=_local_names(inner)).visit(s) for s in fdef.body]
        out.append(copy_location(fdef, stmt))
        return out


def _plain_user_function(fn):
    from .call_signatures import _user_function
    if not _user_function(fn):
        return False
    code = fn.__code__
    return not (code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount
                or code.co_posonlyargcount)


def _factory_shape(node):
    """(the statements before the return, the returned function as a FunctionDef) of a factory, else None."""
    if not node.body or not isinstance(node.body[-1], gast.Return) or node.body[-1].value is None:
        return None
    returned = node.body[-1].value
    body = [s for s in node.body[:-1] if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
    for s in body:
        if isinstance(s, gast.FunctionDef):
            continue            # the returned function: checked below
        for n in walk(s):
            if isinstance(n, (gast.Return, gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom, gast.Lambda,
                              gast.ClassDef, gast.AsyncFunctionDef)):
                return None
    defs = [s for s in body if isinstance(s, gast.FunctionDef)]
    if any(isinstance(n, gast.FunctionDef) for s in body if not isinstance(s, gast.FunctionDef) for n in walk(s)):
        return None
    if isinstance(returned, gast.Lambda):
        if defs:
            return None
        inner = gast.FunctionDef(name="_lambda", args=returned.args, body=[
            copy_location(gast.Return(value=returned.body), returned)], decorator_list=[], returns=None,
            type_comment=None, type_params=[])
        inner = copy_location(inner, returned)
    elif isinstance(returned, gast.Name) and len(defs) == 1 and defs[0].name == returned.id:
        inner = defs[0]
        body = [s for s in body if s is not inner]
        uses = [n for s in body for n in walk(s) if isinstance(n, gast.Name) and n.id == inner.name]
        if uses or inner.decorator_list:
            return None
    else:
        return None
    args = inner.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        return None
    for n in walk(inner):
        if isinstance(n, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom)) or (
                n is not inner and isinstance(n, _SCOPES)):
            return None
        if isinstance(n, gast.Name) and n.id == inner.name and n.id != "_lambda":
            return None          # calls itself: a recursion astjax inlines no further
    return body, inner


def _closure_change(inner, cells):
    """(the node, the factory's variable) where `inner` changes one of the factory's variables `cells` in
    place, directly (`st[0] = v`, `st.append(v)`, `np.add(st, v, out=st)`) or through a name it bound to
    it or to a view of it (`v = st[1:]; v += t`), else None."""
    aliases = {}                      # a name of inner -> the factory variable it may share memory with
    for _ in range(2):                # `u = v` after `v = st`: one more round reaches it
        for n in walk(inner):
            if isinstance(n, gast.Assign) and (source := _base_name(n.value)) is not None:
                cell = source if source in cells else aliases.get(source)
                for t in n.targets:
                    if cell is not None and isinstance(t, gast.Name):
                        aliases[t.id] = cell
    for n in walk(inner):
        for name_ in _mutated_names(n):
            if name_ in cells:
                return n, name_
            if name_ in aliases:
                return n, aliases[name_]
    return None


# methods whose result may share memory with the array they are called on
_VIEW_METHODS = {"reshape", "view", "ravel", "transpose", "squeeze", "swapaxes", "diagonal", "__getitem__"}


def _base_name(node):
    """The name an expression may be a view of (`st`, `st[1:]`, `st.T`, `st.reshape(2, 2)`), else None
    (`st.copy()`, `st * 2` are new arrays)."""
    while True:
        if isinstance(node, (gast.Subscript, gast.Attribute)):
            node = node.value
        elif (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
              and node.func.attr in _VIEW_METHODS):
            node = node.func.value
        else:
            return node.id if isinstance(node, gast.Name) else None


def _mutated_names(node):
    """The names whose objects `node` changes in place (`st[0] = v`, `v += t`, `st.append(v)`, `out=st`)."""
    if isinstance(node, gast.AugAssign):
        return [_base_name(node.target)]
    if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
        return [_base_name(node.value)]
    if isinstance(node, gast.Call):
        names = [_base_name(k.value) for k in node.keywords if k.arg == "out"]
        if isinstance(node.func, gast.Attribute) and node.func.attr in MUTATING_METHODS:
            names.append(_base_name(node.func.value))
        return names
    return []


def _local_names(fdef):
    """The names a function binds itself: its parameters and what it assigns (not inside nested functions)."""
    names = {a.id for a in fdef.args.args + fdef.args.posonlyargs + fdef.args.kwonlyargs}
    names |= {a.id for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    todo = list(fdef.body)
    while todo:
        n = todo.pop()
        if isinstance(n, gast.FunctionDef):
            names.add(n.name)
            continue
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            names.add(n.id)
        if not isinstance(n, _SCOPES):
            todo.extend(gast.iter_child_nodes(n))
    return names

