"""A closure factory defined inside the function runs where it is called, as a module-level one does.

    def make(scale):                      _make_scale1 = x[0]
        def h(v):                         def h1(v):
            return v * scale      ->          return v * _make_scale1
        return h
    h1 = make(x[0])

closure_factories.py does this for factories defined at module level (and
then the function it made is such a local factory when it returns a function
itself: `_adder(a)(b)(c)` is rewritten one call at a time). A local
factory's free names are the enclosing function's own variables, so they stay
as they are: its body, run at the call, reads them then; the function it
returns, inlined where it is called, reads them then (late binding). Its own
parameters and variables get fresh names for each call, assigned once, so the
returned function reads what they held when the factory returned, as its
closure cells would. Only a factory defined at the top of the body (the shape
closure_factories.py accepts: statements, then `return inner` or `return
lambda ...`; plain parameters; nothing changed in place, since the aliasing
checks ran before) whose every use is `f = make(...)` with positional
arguments is rewritten; other uses are left to the later passes.
"""
import copy

import gast

from .base import BlockPass, Renamer, copy_location, name, store
from .closure_factories import _factory_shape, _local_names
from .eager_calls import EagerCalls
from ...codegen.node_walk import walk

__all__ = ["LocalFactories"]


class LocalFactories(BlockPass):
    """Inline calls `f = make(...)` of local closure factories; drop their definitions."""

    def run(self, node):
        for _ in range(8):                  # `make(a)(b)(c)`: each round names one more made function
            before = self.context.namer.taken.copy() if hasattr(self.context.namer, "taken") else None
            node = self.once(node)
            if before is not None and self.context.namer.taken == before:
                break
        return node

    def once(self, node):
        factories = {}
        for stmt in node.body:
            if isinstance(stmt, gast.FunctionDef) and not stmt.decorator_list and not (
                    stmt.args.vararg or stmt.args.kwarg or stmt.args.kwonlyargs or stmt.args.posonlyargs
                    or stmt.args.defaults) and _factory_shape(copy.deepcopy(stmt)) is not None:
                factories[stmt.name] = stmt
        if not factories:
            return node
        node = _NamedResults(self.context, set(factories)).run(node)
        names = [n for n in walk(node) if isinstance(n, gast.Name) and n.id in factories]
        calls = {}
        for stmt in walk(node):
            if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name)
                    and stmt.value.func.id in factories):
                calls[id(stmt.value.func)] = stmt
        for n in names:
            if id(n) not in calls:
                factories.pop(n.id, None)           # used otherwise: left alone
        for label, fdef in list(factories.items()):
            if any(isinstance(n, gast.Name) and n.id == label for n in walk(fdef)) or any(
                    isinstance(s, gast.FunctionDef) and s.name == label and s is not fdef for s in walk(node)):
                factories.pop(label)
            elif any(not _plain_call(calls[id(n.func)].value, fdef) for n in _calls_of(node, label)):
                factories.pop(label)
            elif _in_place(fdef):
                factories.pop(label)        # the aliasing checks ran before this inlining: keep to pure code
        if not factories:
            return node
        self.factories = factories
        node.body = [s for s in node.body if not (isinstance(s, gast.FunctionDef) and s.name in factories)]
        node.body = self.block(node.body)
        return node

    def rewrite(self, stmt):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)
                and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in self.factories):
            return [stmt]
        fdef = self.factories[stmt.value.func.id]
        body, inner = _factory_shape(copy.deepcopy(fdef))
        namer = self.context.namer
        base = "_" + fdef.name.lstrip("_")
        renames, out = {}, []
        for param, arg in zip(fdef.args.args, stmt.value.args):
            renames[param.id] = namer.fresh(f"{base}_{param.id}")
            out.append(gast.Assign(targets=[store(renames[param.id])], value=arg, type_comment=None))
        for local in _local_names(fdef) - set(renames):
            renames[local] = namer.fresh(f"{base}_{local}")
        for s in body:
            out.append(Renamer(renames).visit(copy.deepcopy(s)))
        made = copy.deepcopy(inner)
        made.name = stmt.targets[0].id
        made.body = [Renamer(renames, keep=_local_names(inner)).visit(s) for s in made.body]
        out.append(made)
        return [copy_location(s, stmt) for s in out]


class _NamedResults(EagerCalls):
    """`make(a)(b)` where it is evaluated once, before its statement: `_made = make(a)` first."""

    def __init__(self, context, factories):
        super().__init__(context)
        self.factories = factories

    def call(self, node):
        inner = node.func
        if (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name) and inner.func.id in self.factories
                and not inner.keywords and not any(isinstance(a, gast.Starred) for a in inner.args)):
            made = self.context.namer.fresh("_made")
            self.emit(gast.Assign(targets=[store(made)], value=inner, type_comment=None))
            node.func = name(made)
        return node


def _in_place(fdef):
    """Whether the factory or the function it makes changes anything in place."""
    from .eager_calls import _MUTATORS
    for n in walk(fdef):
        if isinstance(n, gast.AugAssign) or (isinstance(n, (gast.Subscript, gast.Attribute))
                                              and isinstance(n.ctx, (gast.Store, gast.Del))):
            return True
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _MUTATORS:
            return True
    return False


def _calls_of(node, label):
    return [n for n in walk(node) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
            and n.func.id == label]


def _plain_call(call, fdef):
    return (not call.keywords and not any(isinstance(a, gast.Starred) for a in call.args)
            and len(call.args) == len(fdef.args.args))
