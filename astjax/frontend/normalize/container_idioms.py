"""Dict and list idioms become loops and reads the later passes already differentiate.

    for k, v in d.items(): body     ->   for k in dict_keys(d):
                                             v = d[k]
                                             body
    for v in d.values(): body       ->   for _k in dict_keys(d): v = d[_k]; body
    for k in d.keys() / sorted(d)   ->   for k in dict_keys(d) / sorted_keys(d)
    for v in xs: body               ->   iterated(xs)      (refuses a dict: see `iteration_checks`)
                                         for v in xs: body
    w = d.get("w", 0.5)             ->   if "w" in d: _t = d["w"]
                                         else: _t = 0.5
                                         w = _t
    p = dict(d)                     ->   _t = {}
                                         for _k in dict_keys(d): _t[_k] = d[_k]
                                         p = _t
    e = {i: f(i) for i in xs}       ->   _t = {}
                                         for _i in xs: _t[_i] = f(_i)
                                         e = _t
    ys = list(xs)                   ->   ys = [_v for _v in xs]

A dict's keys are its structure (as a pytree's are): `dict_keys` and
`sorted_keys` return them with no derivative, and refuse (when the function
runs) anything that is not a dict or a list of string/integer keys. Items are
then read with `d[k]` and written with `d[k] = v` (a functional update, see
augmented_assignment.py), whose rules send each adjoint to its key. A rewrite
that would move an expression out of the place Python evaluates it (inside a
lambda, a comprehension, a conditional expression, `and`/`or`, a `while` test)
is not made: the construct is then refused by the later passes.
"""
import copy

import gast

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name, rewrite_inner_blocks, store

# Where an expression is evaluated other than once, in order, before its statement runs.
_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.IfExp)


class ContainerIdioms(Pass):
    """Rewrite dict iteration, `.get`, `.keys()`, `sorted(d)`, `dict(d)`, `list(xs)` and dict comprehensions."""

    def run(self, node):
        node.body = self.block(node.body)
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            rewrite_inner_blocks(stmt, self.block)
            self.emitted = []
            new = self.statement(stmt)
            out.extend(copy_location(s, stmt) for s in self.emitted)
            out.extend(copy_location(s, stmt) for s in new)
        return out

    # ------------------------------------------------------------------ statements
    def statement(self, stmt):
        if isinstance(stmt, gast.For):
            stmt.iter = self.expression(stmt.iter)
            return self.iteration_checks(stmt) + self.dict_loop(stmt)
        if isinstance(stmt, gast.If):
            stmt.test = self.expression(stmt.test)
        elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)) \
                and stmt.value is not None:
            if isinstance(stmt, gast.Assign):
                stmt.targets = [self.expression(t) for t in stmt.targets]     # `d[k.get(..)] = v`: indices too
            stmt.value = self.expression(stmt.value)
        return [stmt]

    def iteration_checks(self, loop):
        """`iterated(xs)` before `for v in xs` (and each sequence zipped or enumerated): refuses a dict,
        which the loop's rewrite into positions would read by the keys 0, 1, ... instead of iterating."""
        it = loop.iter
        sequences = [it]
        if isinstance(it, gast.Call) and (self.is_builtin(it.func, zip) or self.is_builtin(it.func, enumerate)):
            sequences = it.args
        return [gast.Expr(value=gast.Call(func=name("iterated"), args=[copy.deepcopy(s)], keywords=[]))
                for s in sequences if isinstance(s, gast.Name)]

    def dict_loop(self, loop):
        """`for k, v in d.items()` / `for v in d.values()` -> a loop over `dict_keys(d)` reading `d[k]`."""
        it = loop.iter
        if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and not it.args
                and not it.keywords and it.func.attr in ("items", "values") and self.is_value(it.func.value)):
            return [loop]
        pre = []
        mapping = it.func.value
        assigned = {n.id for s in loop.body for n in gast.walk(s) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Store)} | {n.id for n in gast.walk(loop.target)
                                                            if isinstance(n, gast.Name)}
        if not isinstance(mapping, gast.Name) or mapping.id in assigned:
            held = self.context.namer.fresh("_d")        # Python iterates the dict it was given
            pre.append(gast.Assign(targets=[store(held)], value=mapping, type_comment=None))
            mapping = name(held)
        target = loop.target
        if it.func.attr == "items":
            if not (isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 2
                    and isinstance(target.elts[0], gast.Name)):
                raise self.error("write `for key, value in d.items()`", loop,
                                 hint="unpack each item into a key name and a value.")
            key, value_target = target.elts
        else:
            key, value_target = store(self.context.namer.fresh("_k")), target
        item = gast.Subscript(value=copy.deepcopy(mapping), slice=name(key.id), ctx=gast.Load())
        read = copy_location(gast.Assign(targets=[value_target], value=item, type_comment=None), loop)
        keys = gast.Call(func=name("dict_keys"), args=[copy.deepcopy(mapping)], keywords=[])
        new = gast.For(target=store(key.id), iter=keys, body=[read] + loop.body, orelse=loop.orelse,
                       type_comment=None)
        return pre + [copy_location(new, loop)]

    # ----------------------------------------------------------------- expressions
    def expression(self, node, hoist=True):
        """`node` with the idioms inside it rewritten (statements they need go to self.emitted).

        With hoist=False (inside a lambda, comprehension, conditional expression, the later operands
        of `and`/`or`) only the rewrites that stay in place are made; those needing statements are not."""
        if isinstance(node, gast.DictComp) and hoist:
            return self.dict_comprehension(node)
        inner = hoist and not isinstance(node, _DEFERRED)
        for field, value in gast.iter_fields(node):
            if isinstance(node, gast.BoolOp) and field == "values":      # only the first is always evaluated
                setattr(node, field, [self.expression(v, inner and k == 0) for k, v in enumerate(value)])
            elif isinstance(value, gast.AST) and not isinstance(value, (gast.expr_context,)):
                setattr(node, field, self.expression(value, inner))
            elif isinstance(value, list):
                setattr(node, field, [self.expression(v, inner) if isinstance(v, gast.AST) else v for v in value])
        if isinstance(node, gast.Call):
            return self.call(node, hoist)
        return node

    def call(self, node, hoist):
        func = node.func
        if isinstance(func, gast.Attribute) and self.is_value(func.value):
            if func.attr == "keys" and not node.args and not node.keywords:
                return gast.Call(func=name("dict_keys"), args=[func.value], keywords=[])
            if func.attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords and hoist:
                return self.get(func.value, node.args)
            return node
        if node.keywords or len(node.args) > 1 or any(isinstance(a, gast.Starred) for a in node.args):
            return node
        if self.is_builtin(func, sorted) and node.args:
            arg = node.args[0]
            if (isinstance(arg, gast.Call) and isinstance(arg.func, gast.Name) and arg.func.id == "dict_keys"):
                arg = arg.args[0]                       # sorted(d.keys()) is sorted(d)
            return gast.Call(func=name("sorted_keys"), args=[arg], keywords=[])
        if self.is_builtin(func, dict) and hoist:
            return self.dict_copy(node.args[0] if node.args else None)
        if self.is_builtin(func, list) and node.args:
            return self.list_copy(node.args[0])
        return node

    def get(self, mapping, args):
        """`d.get(k, default)` -> `if k in d: _t = d[k] else: _t = default`."""
        mapping, key = self.held(mapping), self.held(args[0])
        default = args[1] if len(args) == 2 else gast.Constant(value=None, kind=None)
        result = self.context.namer.fresh()
        found = gast.Assign(targets=[store(result)], value=gast.Subscript(value=copy.deepcopy(mapping),
                            slice=copy.deepcopy(key), ctx=gast.Load()), type_comment=None)
        missing = gast.Assign(targets=[store(result)], value=default, type_comment=None)
        test = gast.Compare(left=copy.deepcopy(key), ops=[gast.In()], comparators=[copy.deepcopy(mapping)])
        self.emitted.append(gast.If(test=test, body=[found], orelse=[missing]))
        return name(result)

    def dict_copy(self, source):
        """`dict(d)` -> a new dict filled key by key (`dict()` -> `{}`)."""
        result = self.context.namer.fresh("_d")
        self.emitted.append(gast.Assign(targets=[store(result)], value=gast.Dict(keys=[], values=[]),
                                        type_comment=None))
        if source is None:
            return name(result)
        source = self.held(source)
        key = self.context.namer.fresh("_k")
        write = gast.Assign(targets=[gast.Subscript(value=name(result), slice=name(key), ctx=gast.Store())],
                            value=gast.Subscript(value=copy.deepcopy(source), slice=name(key), ctx=gast.Load()),
                            type_comment=None)
        keys = gast.Call(func=name("dict_keys"), args=[copy.deepcopy(source)], keywords=[])
        self.emitted.append(gast.For(target=store(key), iter=keys, body=[write], orelse=[], type_comment=None))
        return name(result)

    def list_copy(self, source):
        """`list(xs)` -> `[_v for _v in xs]` (a generator or comprehension: the list it makes)."""
        if isinstance(source, (gast.GeneratorExp, gast.ListComp)):
            return gast.ListComp(elt=source.elt, generators=source.generators)
        if isinstance(source, gast.Call) and isinstance(source.func, gast.Name) and source.func.id == "dict_keys":
            return source                                # list(d.keys()) is the list of keys already
        item = self.context.namer.fresh("_v")
        listing = gast.Call(func=name("list_items"), args=[source], keywords=[])
        return gast.ListComp(elt=name(item), generators=[gast.comprehension(
            target=store(item), iter=listing, ifs=[], is_async=0)])

    def dict_comprehension(self, node):
        """`{k: v for a in xs if c}` -> `_d = {}` and loops (and ifs) writing `_d[k] = v`.

        The comprehension's variables are its own (Python 3): each gets a fresh name. The first
        iterable is evaluated here, the later ones and the conditions see the earlier variables."""
        renames, loops = {}, []
        for gen in node.generators:
            iterable = _Rename(renames).visit(copy.deepcopy(gen.iter))
            own = {n.id: self.context.namer.unique(n.id) for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
            renames = {**renames, **own}
            target = _Rename(renames).visit(copy.deepcopy(gen.target))
            loops.append((target, iterable, [_Rename(renames).visit(copy.deepcopy(c)) for c in gen.ifs]))
        result = self.context.namer.fresh("_d")
        write = gast.Assign(targets=[gast.Subscript(value=name(result), slice=_Rename(renames).visit(
            copy.deepcopy(node.key)), ctx=gast.Store())], value=_Rename(renames).visit(copy.deepcopy(node.value)),
            type_comment=None)
        body = [write]
        for target, iterable, conditions in reversed(loops):
            for condition in reversed(conditions):
                body = [gast.If(test=condition, body=body, orelse=[])]
            body = [gast.For(target=target, iter=iterable, body=body, orelse=[], type_comment=None)]
        self.emitted.append(gast.Assign(targets=[store(result)], value=gast.Dict(keys=[], values=[]),
                                        type_comment=None))
        saved = self.emitted
        self.emitted = []
        loop = self.block(body)              # the loop's own idioms (`for k, v in d.items()` inside)
        self.emitted = saved + loop
        return name(result)

    def held(self, node):
        """`node` as a name or constant, evaluated once, here."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        tmp = self.context.namer.fresh()
        self.emitted.append(gast.Assign(targets=[store(tmp)], value=node, type_comment=None))
        return name(tmp)

    def is_value(self, node):
        return self.context.resolver.static_value(node) is NOT_STATIC

    def is_builtin(self, func, builtin):
        return self.context.resolver.static_value(func) is builtin


class _Rename(gast.NodeTransformer):
    """Give a comprehension's own variables their fresh names."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, node):
        if node.id in self.renames:
            return gast.Name(id=self.renames[node.id], ctx=node.ctx, annotation=None, type_comment=None)
        return node
