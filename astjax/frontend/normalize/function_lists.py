"""A list of closures of one definition, only ever called, becomes a list of their defaults.

    fs = [lambda v, k=k: v ** k for k in range(1, 4)]      def _fs_function(v, k):
    s = sum(f(x[0]) for f in fs)                               return v ** k
                                                    ->     fs = []
                                                           for _k1 in range(1, 4):
                                                               fs.append((_k1,))
                                                           s = sum(_fs_function(x[0], f[0]) for f in fs)

    fs = []                                                fs = []
    for i in range(3):                                     for i in range(3):
        def g(v):                                  ->          fs.append(())
            return v * i                                   s = sum(_fs_function(x[0]) for f in fs)
        fs.append(g)
    s = sum(f(x[0]) for f in fs)

Closures made by one definition differ only in their default values (evaluated
where each is made); what they read of the enclosing scope they read when
called (Python's late binding): a comprehension's variable holds its last value
once the comprehension has run, a loop variable of the function what it holds
at the call. So the list holds each closure's defaults (a tuple), and a call
`f(a)` of an item is a call of the one definition with the defaults it left out
taken from the item; the definition becomes a local function, inlined at each
call (one_primitive_per_statement.py), where it reads the enclosing names.

Only made at the top of the function body, once: `fs = [lambda ... for t in xs]`
(one `for`, no `if`), or `fs = []` and a top-level loop whose body defines
`def g` and appends it (`g` used nowhere else). Every other read of `fs` must be
a loop or comprehension over `fs` or a slice of it whose variable is only
called, or `len(fs)`; anything else (an item called directly, the list passed
on, stored, or changed elsewhere) is left to the later passes, which refuse it.
"""
import copy

import gast

from .base import Pass, Renamer, copy_location, name, store
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["FunctionLists"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp, gast.SetComp,
           gast.DictComp, gast.GeneratorExp)


class FunctionLists(Pass):
    """Rewrite lists of closures of one definition into lists of their defaults and one local function."""

    def run(self, node):
        if not any(isinstance(n, (gast.Lambda, gast.FunctionDef)) for s in node.body for n in walk(s)):
            return node
        index = 0
        while index < len(node.body):
            stmt = node.body[index]
            made = self.comprehension_list(stmt) or self.loop_list(node.body, index, stmt)
            index += 1
            if made is None:
                continue
            target, definition, allowed, rewrite_site = made
            scopes = self.only_called(node, target, definition, allowed)
            if scopes is None:
                continue
            label = self.context.namer.fresh(f"_{target}_function")
            fdef, after = rewrite_site(label)
            for scope, variable in scopes:
                _Calls(variable, label, definition).visit(scope)
            position = next(i for i, s in enumerate(node.body) if s is stmt)
            node.body[position + 1:position + 1] = [copy_location(s, stmt) for s in after]
            node.body.insert(0, copy_location(fdef, stmt))
            index = position + 2 + len(after)
        return node

    # ------------------------------------------------------------ where the list is made
    def comprehension_list(self, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.ListComp) and isinstance(stmt.value.elt, gast.Lambda)):
            return None
        comp = stmt.value
        if len(comp.generators) != 1 or comp.generators[0].ifs or comp.generators[0].is_async:
            return None
        lam, loop = comp.elt, comp.generators[0]
        if _plain_parameters(lam.args) is None or any(isinstance(n, _SCOPES) for n in walk(lam.body)):
            return None
        target = stmt.targets[0].id

        def rewrite(label):
            renames = {n.id: self.context.namer.fresh(f"_{n.id}") for n in walk(loop.target)
                       if isinstance(n, gast.Name)}
            rename = Renamer(renames)
            defaults = gast.Tuple(elts=[rename.visit(copy.deepcopy(d)) for d in lam.args.defaults], ctx=gast.Load())
            append = gast.Expr(value=gast.Call(func=gast.Attribute(value=name(target), attr="append",
                                                                   ctx=gast.Load()), args=[defaults], keywords=[]))
            new_loop = gast.For(target=rename.visit(copy.deepcopy(loop.target)), iter=loop.iter, body=[append],
                                orelse=[], type_comment=None)
            stmt.value = gast.List(elts=[], ctx=gast.Load())
            args = copy.deepcopy(lam.args)
            args.defaults = []
            returned = gast.Return(value=Renamer(renames, keep=_parameter_names(lam.args)).visit(
                copy.deepcopy(lam.body)))
            fdef = gast.FunctionDef(name=label, args=args, body=[copy_location(returned, lam)], decorator_list=[],
                                    returns=None, type_comment=None, type_params=[])
            return fdef, [new_loop]

        return target, lam, set(), rewrite

    def loop_list(self, body, index, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.List) and not stmt.value.elts and index + 1 < len(body)):
            return None
        target = stmt.targets[0].id
        loop = body[index + 1]
        if not isinstance(loop, gast.For) or loop.orelse:
            return None
        defs = [s for s in loop.body if isinstance(s, gast.FunctionDef)]
        appends = [s for s in loop.body if _appends(s, target)]
        if len(defs) != 1 or len(appends) != 1:
            return None
        fdef, append = defs[0], appends[0]
        if fdef.decorator_list or _plain_parameters(fdef.args) is None:
            return None
        if not (isinstance(append.value.args[0], gast.Name) and append.value.args[0].id == fdef.name):
            return None
        if loop.body.index(append) < loop.body.index(fdef):
            return None
        if any(isinstance(n, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom)) or (
                n is not fdef and isinstance(n, _SCOPES)) for n in walk(fdef)):
            return None
        uses = [n for n in walk(gast.Module(body=body, type_ignores=[]))
                if isinstance(n, gast.Name) and n.id == fdef.name]
        if len(uses) != 1:            # only the append (its body calling itself or other uses: left alone)
            return None

        def rewrite(label):
            held = self.context.namer.fresh(f"_{fdef.name}_defaults")
            at = loop.body.index(fdef)
            loop.body[at] = copy_location(gast.Assign(targets=[store(held)], value=gast.Tuple(
                elts=list(fdef.args.defaults), ctx=gast.Load()), type_comment=None), fdef)
            append.value.args = [name(held)]
            new = copy.deepcopy(fdef)
            new.name = label
            new.args.defaults = []
            return new, []

        return target, fdef, {id(append.value)}, rewrite

    # ------------------------------------------------------------ how the list is read
    def only_called(self, node, target, definition, allowed):
        """The (loop or comprehension, variable) pairs iterating `target` when every read of it (but the
        `allowed` appends making it) iterates it, or a slice of it, with a variable only called with
        positional arguments matching `definition`, or is `len(target)`; else None."""
        count, optional = len(definition.args.args), len(definition.args.defaults)
        parents = {}
        for n in walk(node):
            for child in gast.iter_child_nodes(n):
                parents[id(child)] = n
        stores, scopes = 0, []
        for n in walk(node):
            if isinstance(n, (gast.Global, gast.Nonlocal)) and target in n.names:
                return None
            if not (isinstance(n, gast.Name) and n.id == target):
                continue
            if not isinstance(n.ctx, gast.Load):
                stores += 1
                continue
            parent = parents.get(id(n))
            if isinstance(parent, gast.Attribute) and id(parents.get(id(parent))) in allowed:
                continue
            if isinstance(parent, gast.Call) and parent.args == [n] and isinstance(parent.func, gast.Name) \
                    and self.context.resolver.static_value(parent.func) is len:
                continue
            holder = n
            if isinstance(parent, gast.Subscript) and parent.value is n and isinstance(parent.slice, gast.Slice):
                holder, parent = parent, parents.get(id(parent))
            if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is holder \
                    and isinstance(parent.target, gast.Name):
                scope = parent if isinstance(parent, gast.For) else parents.get(id(parent))
                if isinstance(parent, gast.comprehension) and scope.generators.index(parent) != len(
                        scope.generators) - 1:
                    return None       # a later clause could rebind the name: only the last clause
                if not _variable_only_called(scope, parent.target.id, count, optional, parents):
                    return None
                scopes.append((scope, parent.target.id))
                continue
            return None
        return scopes if stores == 1 else None


def _appends(stmt, target):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name) and stmt.value.func.value.id == target
            and len(stmt.value.args) == 1 and not stmt.value.keywords)


def _variable_only_called(scope, variable, count, optional, parents):
    """In `scope` (a loop or a comprehension), `variable` is never rebound and only called as `variable(...)`
    with between count - optional and count positional arguments."""
    for n in walk(scope):
        if not (isinstance(n, gast.Name) and n.id == variable):
            continue
        parent = parents.get(id(n))
        if not isinstance(n.ctx, gast.Load):
            if isinstance(parent, (gast.For, gast.comprehension)) and parent.target is n:
                continue
            return False
        if not (isinstance(parent, gast.Call) and parent.func is n and not parent.keywords
                and not any(isinstance(a, gast.Starred) for a in parent.args)
                and count - optional <= len(parent.args) <= count):
            return False
    return True


def _plain_parameters(args):
    """The positional parameter names, or None when there are others (*args, keyword-only, ...)."""
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        return None
    return [a.id for a in args.args]


def _parameter_names(args):
    return {a.id for a in args.args}


class _Calls(NodeTransformer):
    """In one loop or comprehension over the list: `f(a)` -> `label(a, f[j], ...)`, the defaults left out
    taken from the item `f` holds."""

    def __init__(self, variable, label, definition):
        self.variable, self.label = variable, label
        self.count = len(definition.args.args)
        self.optional = len(definition.args.defaults)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == self.variable:
            first_default = self.count - self.optional
            missing = [gast.Subscript(value=name(self.variable), slice=gast.Constant(value=p - first_default,
                                                                                      kind=None), ctx=gast.Load())
                       for p in range(len(node.args), self.count)]
            return copy_location(gast.Call(func=name(self.label), args=node.args + missing, keywords=[]), node)
        return node

