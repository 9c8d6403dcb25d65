"""Dict and list idioms become loops and reads the later passes already differentiate.

    for k, v in d.items(): body     ->   for k in dict_keys(d):
                                             v = d[k]
                                             body
    for v in d.values(): body       ->   for _k in dict_keys(d): v = d[_k]; body
    for k in d.keys() / sorted(d)   ->   for k in dict_keys(d) / sorted_keys(d)
    sorted(d.items())               ->   [(_k, d[_k]) for _k in sorted_keys(d)]
    for k in d: ... d[k] ...        ->   for k in dict_keys(d)   (also when d is read as d["w"] or d.items())
    for v in xs: body               ->   iterated(xs)      (refuses a dict: see `iteration_checks`)
                                         for v in xs: body
    w = d.get("w", 0.5)             ->   if has_key(d, "w"): _t = d["w"]
                                         else: _t = 0.5
                                         w = _t
    p = dict(d)                     ->   _t = {}
                                         for _k in dict_keys(d): _t[_k] = d[_k]
                                         p = _t
    e = {i: f(i) for i in xs}       ->   _t = {}
                                         for _i in xs: _t[_i] = f(_i)
                                         e = _t
    ys = list(xs)                   ->   ys = [_v for _v in xs]
    m = max(xs)                     ->   _s = xs; _m = _s[0]; for _i in range(1, len(_s)): _m = max(_m, _s[_i])
    ys = xs.copy()  (xs a list)     ->   ys = [_v for _v in xs]
    q = p.copy()    (p read as p["w"]) ->   as dict(p)

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
import functools

import gast

from ..resolve import NOT_STATIC
from .base import Pass, Renamer, copy_location, name, rewrite_inner_blocks, store
from ...codegen.node_walk import walk

# Where an expression is evaluated other than once, in order, before its statement runs.
_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.IfExp)


class ContainerIdioms(Pass):
    """Rewrite dict iteration, `.get`, `.keys()`, `sorted(d)`, `dict(d)`, `list(xs)` and dict comprehensions."""

    def run(self, node):
        self.iterated = []          # names loops iterate: their body's mutations stay for ControlFlow to refuse
        self.lists = _list_names(node)
        self.dicts = dict_names(node)
        node.body = self.block(node.body)
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            looped = isinstance(stmt, gast.For) and isinstance(stmt.iter, gast.Name)
            self.iterated.append(stmt.iter.id if looped else None)
            rewrite_inner_blocks(stmt, self.block)
            self.iterated.pop()
            self.emitted = []
            self.reads_elsewhere = _read_more_than_once(_header(stmt))
            new = self.statement(stmt)
            out.extend(copy_location(s, stmt) for s in self.emitted)
            out.extend(copy_location(s, stmt) for s in new)
        return out

    # ------------------------------------------------------------------ statements
    def statement(self, stmt):
        if isinstance(stmt, gast.Expr) and self.list_method(stmt.value, "extend", 1):
            return self.extend(stmt.value)
        if isinstance(stmt, gast.Expr) and self.list_method(stmt.value, "insert", 2):
            return self.insert(stmt.value)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, (gast.Tuple, gast.List)) and any(
                    isinstance(e, (gast.Subscript, gast.Starred)) for e in target.elts):
                stmt.value = self.expression(stmt.value)
                return self.unpack_into_items(target, stmt.value, stmt)
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Subscript):
                stmt.value = self.expression(stmt.value)
                return self.nested_item_update(stmt)
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript) \
                and isinstance(stmt.target.value, gast.Subscript):
            stmt.value = self.expression(stmt.value)
            return self.nested_item_update(stmt)
        if isinstance(stmt, gast.For):
            stmt.iter = self.expression(stmt.iter)
            stmt.iter = self.keys_of_a_dict(stmt)
            return self.iteration_checks(stmt) + self.dict_loop(stmt)
        if isinstance(stmt, gast.If):
            stmt.test = self.expression(stmt.test)
        elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)) \
                and stmt.value is not None:
            if isinstance(stmt, gast.Assign):
                stmt.targets = [self.expression(t) for t in stmt.targets]     # `d[k.get(..)] = v`: indices too
            stmt.value = self.expression(stmt.value)
        return [stmt]

    # ------------------------------------------------------------ list mutations
    def list_method(self, node, method, nargs):
        """Whether `node` is `xs.method(<nargs arguments>)` on a local name `xs` no enclosing loop iterates."""
        return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == method
                and isinstance(node.func.value, gast.Name) and self.is_value(node.func.value)
                and node.func.value.id not in self.iterated and len(node.args) == nargs and not node.keywords
                and not any(isinstance(a, gast.Starred) for a in node.args))

    def extend(self, call):
        """`xs.extend(ys)` -> `for _v in ys: xs.append(_v)` (each appended item differentiates as `append`).

        Not when ys reads xs (`xs.extend(xs)`, a generator over xs): Python would see the list grow."""
        xs, items = call.func.value, call.args[0]
        if any(isinstance(n, gast.Name) and n.id == xs.id for n in walk(items)):
            return [gast.Expr(value=call)]
        if isinstance(items, gast.GeneratorExp):
            items = gast.ListComp(elt=items.elt, generators=items.generators)
        item = self.context.namer.fresh("_v")
        return [gast.For(target=store(item), iter=items, body=[self.append(xs, name(item))], orelse=[],
                         type_comment=None)]

    def insert(self, call):
        """`xs.insert(i, v)` -> `_tail = xs[i:]; xs = xs[:i]; xs.append(v); for _w in _tail: xs.append(_w)`."""
        xs = call.func.value
        position, value = self.held(call.args[0]), self.held(call.args[1])
        tail = self.context.namer.fresh("_tail")
        item = self.context.namer.fresh("_v")
        cut = gast.Slice(lower=copy.deepcopy(position), upper=None, step=None)
        head = gast.Slice(lower=None, upper=copy.deepcopy(position), step=None)
        return [gast.Assign(targets=[store(tail)], value=gast.Subscript(value=name(xs.id), slice=cut, ctx=gast.Load()),
                            type_comment=None),
                gast.Assign(targets=[store(xs.id)], value=gast.Subscript(value=name(xs.id), slice=head,
                                                                          ctx=gast.Load()), type_comment=None),
                self.append(xs, value),
                gast.For(target=store(item), iter=name(tail), body=[self.append(xs, name(item))], orelse=[],
                         type_comment=None)]

    def append(self, xs, value):
        return gast.Expr(value=gast.Call(func=gast.Attribute(value=name(xs.id), attr="append", ctx=gast.Load()),
                                         args=[value], keywords=[]))

    def pop(self, call):
        """`xs.pop()` / `xs.pop(0)` / `xs.pop(k)` (k a constant >= 0) -> the item read, then `xs` rebound to the
        rest (a new list; the aliasing pass checked no other name sees xs). None if not one of these."""
        xs = call.func.value
        if not call.args or isinstance(call.args[0], gast.Constant) and call.args[0].value == -1:
            position, rest = -1, [gast.Slice(lower=None, upper=gast.Constant(value=-1, kind=None), step=None)]
        elif isinstance(call.args[0], gast.Constant) and isinstance(call.args[0].value, int) \
                and not isinstance(call.args[0].value, bool) and call.args[0].value >= 0:
            k = call.args[0].value
            position = k
            rest = [gast.Slice(lower=None, upper=gast.Constant(value=k, kind=None), step=None),
                    gast.Slice(lower=gast.Constant(value=k + 1, kind=None), upper=None, step=None)]
        else:
            return None
        result = self.context.namer.fresh()
        self.emitted.append(gast.Assign(targets=[store(result)], value=gast.Subscript(
            value=name(xs.id), slice=gast.Constant(value=position, kind=None), ctx=gast.Load()), type_comment=None))
        if len(rest) == 1 or position == 0:
            piece = rest[-1] if position == 0 else rest[0]
            self.emitted.append(gast.Assign(targets=[store(xs.id)], value=gast.Subscript(
                value=name(xs.id), slice=piece, ctx=gast.Load()), type_comment=None))
            return name(result)
        tail = self.context.namer.fresh("_tail")
        item = self.context.namer.fresh("_v")
        self.emitted += [
            gast.Assign(targets=[store(tail)], value=gast.Subscript(value=name(xs.id), slice=rest[1], ctx=gast.Load()),
                        type_comment=None),
            gast.Assign(targets=[store(xs.id)], value=gast.Subscript(value=name(xs.id), slice=rest[0],
                                                                      ctx=gast.Load()), type_comment=None),
            gast.For(target=store(item), iter=name(tail), body=[self.append(xs, name(item))], orelse=[],
                     type_comment=None)]
        return name(result)

    def unpack_into_items(self, target, value, stmt):
        """`v[j], v[j + 1] = v[j + 1], v[j]` and `first, *rest = e`: the value first, then each target in turn.

        Python evaluates the whole right side, then assigns the targets left to right."""
        elts = target.elts
        bound = set()
        for e in elts:      # `i, xs[i] = ...`: a target's index reads a name an earlier target binds
            if bound & {n.id for n in walk(e) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}:
                return [stmt]
            bound |= {n.id for n in walk(e) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        return [s for assign in self.unpacked(target, value, stmt) for s in self.assigned(assign)]

    def assigned(self, assign):
        """One assignment `unpack_into_items` made: `grid[i][j] = v` is rewritten further."""
        if isinstance(assign, gast.Assign) and isinstance(assign.targets[0], gast.Subscript) \
                and isinstance(assign.targets[0].value, gast.Subscript):
            return self.nested_item_update(assign)
        return [assign]

    def unpacked(self, target, value, stmt):
        elts = target.elts
        starred = [k for k, e in enumerate(elts) if isinstance(e, gast.Starred)]
        if not starred and isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(elts):
            parts = [self.held_always(v) for v in value.elts]
            bases = {e.value.id for e in elts if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name)}
            checks = [gast.Expr(value=gast.Call(func=name("not_a_view"), args=[copy.deepcopy(p), name(b)],
                                                keywords=[]))
                      for p in parts if isinstance(p, gast.Name) for b in sorted(bases)]
            return checks + [gast.Assign(targets=[t], value=p, type_comment=None) for t, p in zip(elts, parts)]
        whole = self.held_always(value)
        if not starred:
            return [gast.Assign(targets=[stmt.targets[0]], value=whole, type_comment=None)] \
                if not any(isinstance(e, gast.Subscript) for e in elts) else \
                [self.length_check(whole, len(elts), exact=True)] + [
                    gast.Assign(targets=[t], value=gast.Subscript(value=copy.deepcopy(whole),
                                slice=gast.Constant(value=k, kind=None), ctx=gast.Load()), type_comment=None)
                    for k, t in enumerate(elts)]
        if len(starred) > 1:
            return [stmt]
        star = starred[0]
        after = len(elts) - star - 1
        items = self.context.namer.fresh("_items")
        out = [gast.Assign(targets=[store(items)], value=gast.Call(func=name("list_items"), args=[whole],
                                                                    keywords=[]), type_comment=None),
               self.length_check(name(items), len(elts) - 1, exact=False)]
        for k, t in enumerate(elts):
            if k == star:
                upper = gast.Constant(value=-after, kind=None) if after else None
                piece = gast.Subscript(value=name(items), slice=gast.Slice(
                    lower=gast.Constant(value=star, kind=None), upper=upper, step=None), ctx=gast.Load())
                item = self.context.namer.fresh("_v")
                value = gast.ListComp(elt=name(item), generators=[gast.comprehension(
                    target=store(item), iter=piece, ifs=[], is_async=0)])
                out.append(gast.Assign(targets=[t.value], value=value, type_comment=None))
            else:
                index = k if k < star else k - len(elts)
                out.append(gast.Assign(targets=[t], value=gast.Subscript(
                    value=name(items), slice=gast.Constant(value=index, kind=None), ctx=gast.Load()),
                    type_comment=None))
        return out

    def length_check(self, items, n, exact):
        """`if len(items) < n: raise ValueError(...)` (Python's unpacking error), a guard the sweeps keep."""
        length = gast.Call(func=name("len"), args=[copy.deepcopy(items)], keywords=[])
        op = gast.NotEq() if exact else gast.Lt()
        message = f"{'expected' if exact else 'not enough values to unpack (expected at least'} {n}" + \
            ("" if exact else ")")
        error = gast.Call(func=name("ValueError"), args=[gast.Constant(value=message, kind=None)], keywords=[])
        return gast.If(test=gast.Compare(left=length, ops=[op], comparators=[gast.Constant(value=n, kind=None)]),
                       body=[gast.Raise(exc=error, cause=None)], orelse=[])

    def nested_item_update(self, stmt):
        """`grid[i][j] = v` (or `op=`) -> `_row = grid[i]; _row[j] = v; grid[i] = _row` (deeper: recursively).

        The value is computed first, as Python does; the aliasing pass has checked the row is seen by no
        other name."""
        target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
        out = []
        value = stmt.value if isinstance(stmt, gast.AugAssign) else self.held_always(stmt.value)
        outer = target.value
        outer_index = self.held_always(outer.slice) if not isinstance(outer.slice, gast.Slice) else None
        if outer_index is None:
            return [stmt]
        row = self.context.namer.fresh("_row")
        container = copy.deepcopy(outer.value)
        container.ctx = gast.Load()
        out.append(gast.Expr(value=gast.Call(func=name("unshared_item"), args=[container, copy.deepcopy(outer_index)],
                                             keywords=[])))
        read = gast.Subscript(value=copy.deepcopy(outer.value), slice=copy.deepcopy(outer_index), ctx=gast.Load())
        read.value.ctx = gast.Load()
        out.append(gast.Assign(targets=[store(row)], value=read, type_comment=None))
        inner_target = gast.Subscript(value=name(row), slice=target.slice, ctx=gast.Store())
        if isinstance(stmt, gast.AugAssign):
            inner = gast.AugAssign(target=inner_target, op=stmt.op, value=value)
        else:
            inner = gast.Assign(targets=[inner_target], value=value, type_comment=None)
        out.append(inner)
        write_back = gast.Subscript(value=copy.deepcopy(outer.value), slice=copy.deepcopy(outer_index),
                                    ctx=gast.Store())
        write_back.value.ctx = gast.Load()
        back = gast.Assign(targets=[write_back], value=name(row), type_comment=None)
        out += self.statement(back) if isinstance(outer.value, gast.Subscript) else [back]
        return out

    def held_always(self, node):
        """`node` evaluated now into a fresh name (a constant stays as it is)."""
        if isinstance(node, gast.Constant):
            return node
        tmp = self.context.namer.fresh()
        self.emitted.append(gast.Assign(targets=[store(tmp)], value=node, type_comment=None))
        return name(tmp)

    def iteration_checks(self, loop):
        """`iterated(xs)` before `for v in xs` (and each sequence zipped or enumerated): refuses a dict,
        which the loop's rewrite into positions would read by the keys 0, 1, ... instead of iterating."""
        it = loop.iter
        sequences = [it]
        if isinstance(it, gast.Call) and (self.is_builtin(it.func, zip) or self.is_builtin(it.func, enumerate)):
            sequences = it.args
        if len(sequences) == 1 and isinstance(sequences[0], gast.Call) and self.is_builtin(sequences[0].func, zip):
            sequences = sequences[0].args                   # enumerate(zip(xs, ys))
        sequences = [s.args[0] if isinstance(s, gast.Call) and self.is_builtin(s.func, reversed) and s.args else s
                     for s in sequences]
        return [gast.Expr(value=gast.Call(func=name("iterated"), args=[copy.deepcopy(s)], keywords=[]))
                for s in sequences if isinstance(s, gast.Name)]

    def keys_of_a_dict(self, loop):
        """`for k in d` over a name read as a dict (`d["w"]`, `d.items()`), or whose body reads `d[k]`:
        `for k in dict_keys(d)` (which refuses, when the function runs, anything but a dict)."""
        it, target = loop.iter, loop.target
        if not (isinstance(it, gast.Name) and isinstance(target, gast.Name)):
            return it
        keyed = any(isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and n.value.id == it.id
                    and isinstance(n.slice, gast.Name) and n.slice.id == target.id
                    for s in loop.body for n in walk(s))
        if it.id not in self.dicts and not keyed:
            return it
        return copy_location(gast.Call(func=name("dict_keys"), args=[it], keywords=[]), it)

    def dict_loop(self, loop):
        """`for k, v in d.items()` / `for v in d.values()` -> a loop over `dict_keys(d)` reading `d[k]`;
        `for i, (k, v) in enumerate(d.items())` -> `for i, k in enumerate(dict_keys(d))` reading `d[k]`."""
        it, target, counted = loop.iter, loop.target, None
        if (isinstance(it, gast.Call) and self.is_builtin(it.func, enumerate) and len(it.args) == 1
                and not it.keywords and self._dict_view(it.args[0])):
            if not (isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 2):
                raise self.error("write `for position, (key, value) in enumerate(d.items())`", loop,
                                 hint="unpack each counted item into its position and the item.")
            counted, (position, target), it = it, target.elts, it.args[0]
        if not self._dict_view(it):
            return [loop]
        pre = []
        mapping = it.func.value
        assigned = {n.id for s in loop.body for n in walk(s) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Store)} | {n.id for n in walk(loop.target)
                                                            if isinstance(n, gast.Name)}
        if not isinstance(mapping, gast.Name) or mapping.id in assigned:
            held = self.context.namer.fresh("_d")        # Python iterates the dict it was given
            pre.append(gast.Assign(targets=[store(held)], value=mapping, type_comment=None))
            mapping = name(held)
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
        loop_target = store(key.id)
        if counted is not None:
            keys = gast.Call(func=counted.func, args=[keys], keywords=[])
            loop_target = gast.Tuple(elts=[position, loop_target], ctx=gast.Store())
        new = gast.For(target=loop_target, iter=keys, body=[read] + loop.body, orelse=loop.orelse,
                       type_comment=None)
        return pre + [copy_location(new, loop)]

    def _dict_view(self, it):
        """Whether `it` is `d.items()` or `d.values()` of a value."""
        return (isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and not it.args
                and not it.keywords and it.func.attr in ("items", "values") and self.is_value(it.func.value))

    # ----------------------------------------------------------------- expressions
    def expression(self, node, hoist=True):
        """`node` with the idioms inside it rewritten (statements they need go to self.emitted).

        With hoist=False (inside a lambda, comprehension, conditional expression, the later operands
        of `and`/`or`) only the rewrites that stay in place are made; those needing statements are not."""
        if isinstance(node, gast.DictComp) and hoist:
            return self.dict_comprehension(node)
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp)):
            node.generators[0].iter = self.dict_view_items(node.generators[0].iter)
        elif isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and any(
                self.is_builtin(node.func, b) for b in _CONSUMERS_OF_A_VIEW):
            if isinstance(node.args[0], gast.GeneratorExp):          # consumed right away: `sum(v for v in ...)`
                node.args[0].generators[0].iter = self.dict_view_items(node.args[0].generators[0].iter)
            else:
                node.args[0] = self.dict_view_items(node.args[0])
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
        if isinstance(node, gast.BinOp) and hoist and isinstance(node.op, (gast.Add, gast.Mult)):
            return self.container_arithmetic(node)
        return node

    def container_arithmetic(self, node):
        """`(a, b) + (c,)` -> `(a, b, c)`; `[v] * 3` -> `[_t, _t, _t]`; `xs[1:] + ys` on lists -> a new list
        the items are appended to, in order. Only where the operands are tuples or lists for sure."""
        left, right = node.left, node.right
        if isinstance(node.op, gast.Add):
            if type(left) is type(right) and isinstance(left, (gast.Tuple, gast.List)):
                return type(left)(elts=left.elts + right.elts, ctx=gast.Load())
            if self.is_list(left) and self.is_list(right):
                return self.appended([(left, None), (right, None)])
            return node
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (gast.Tuple, gast.List)) and isinstance(count, gast.Constant) \
                    and isinstance(count.value, int) and not isinstance(count.value, bool) and count.value <= 16:
                items = [self.held(e) for e in seq.elts]
                return type(seq)(elts=[copy.deepcopy(e) for _ in range(max(count.value, 0)) for e in items],
                                 ctx=gast.Load())
            if self.is_list(seq) and not isinstance(count, (gast.Tuple, gast.List)) and not self.is_list(count):
                return self.appended([(seq, self.held(count))])
        return node

    def is_list(self, node):
        """Whether `node` is a list for sure: a list literal or comprehension, a name only ever bound to one,
        or a slice of one."""
        if isinstance(node, (gast.List, gast.ListComp)):
            return True
        if isinstance(node, gast.Name):
            return node.id in self.lists
        return isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) and self.is_list(node.value)

    def appended(self, pieces):
        """A new list with the items of each (list, repeat count or None) appended in turn."""
        result = self.context.namer.fresh("_l")
        self.emitted.append(gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()),
                                        type_comment=None))
        held = [(self.held(seq), count) for seq, count in pieces]        # evaluated in order, once
        for seq, count in held:
            item = self.context.namer.fresh("_v")
            loop = gast.For(target=store(item), iter=copy.deepcopy(seq),
                            body=[self.append(name(result), name(item))], orelse=[], type_comment=None)
            if count is not None:
                loop = gast.For(target=store(self.context.namer.fresh("_k")),
                                iter=gast.Call(func=name("range"), args=[copy.deepcopy(count)], keywords=[]),
                                body=[loop], orelse=[], type_comment=None)
            self.emitted.append(loop)
        self.lists.add(result)
        return name(result)

    def call(self, node, hoist):
        func = node.func
        if isinstance(func, gast.Attribute) and self.is_value(func.value):
            if func.attr == "pop" and hoist and isinstance(func.value, gast.Name) and len(node.args) <= 1 \
                    and not node.keywords and func.value.id not in self.reads_elsewhere \
                    and func.value.id not in self.iterated:
                popped = self.pop(node)
                if popped is not None:
                    return popped
            if func.attr == "keys" and not node.args and not node.keywords:
                return gast.Call(func=name("dict_keys"), args=[func.value], keywords=[])
            if func.attr == "copy" and not node.args and not node.keywords and isinstance(func.value, gast.Name):
                if func.value.id in self.lists:          # a list's copy is a list (not jnp.copy's array)
                    return self.list_copy(func.value)
                if func.value.id in self.dicts and hoist:   # a dict's copy is a dict
                    return self.dict_copy(func.value)
            if func.attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords and hoist:
                return self.get(func.value, node.args)
            return node
        if (self.is_builtin(func, functools.reduce) and 2 <= len(node.args) <= 3 and not node.keywords and hoist
                and isinstance(node.args[0], (gast.Name, gast.Attribute, gast.Lambda))
                and not any(isinstance(a, gast.Starred) for a in node.args)):
            return self.reduction(*node.args)
        if node.keywords or len(node.args) > 1 or any(isinstance(a, gast.Starred) for a in node.args):
            return node
        if self.is_builtin(func, sorted) and node.args:
            arg = node.args[0]
            if (isinstance(arg, gast.Call) and isinstance(arg.func, gast.Attribute) and arg.func.attr == "items"
                    and isinstance(arg.func.value, gast.Name) and not arg.args and not arg.keywords):
                return self.sorted_items(arg.func.value)
            if (isinstance(arg, gast.Call) and isinstance(arg.func, gast.Name) and arg.func.id == "dict_keys"):
                arg = arg.args[0]                       # sorted(d.keys()) is sorted(d)
            return gast.Call(func=name("sorted_keys"), args=[arg], keywords=[])
        if self.is_builtin(func, dict) and hoist:
            return self.dict_copy(node.args[0] if node.args else None)
        if self.is_builtin(func, list) and node.args:
            return self.list_copy(node.args[0])
        if self.is_builtin(func, tuple) and node.args:         # tuple(v * 2 for v in xs): the list, as a tuple
            return gast.Call(func=name("tuple_items"), args=[self.list_copy(node.args[0])], keywords=[])
        if (self.is_builtin(func, max) or self.is_builtin(func, min)) and len(node.args) == 1 and hoist:
            return self.extremum_of_sequence(func, node.args[0])
        return node

    def dict_view_items(self, node):
        """`d.values()` / `d.items()` read whole where it is made (the argument of a builtin that consumes it at
        once, a list/set/dict comprehension's first iterable or that of a generator such a builtin consumes) -> `[d[_k] for _k in dict_keys(d)]` / `[(_k, d[_k]) for _k in dict_keys(d)]`: the items in
        the dict's order, each read with `d[k]`, whose rule sends its adjoint to its key. A view held in a
        name (which would see later changes to the dict) is left as it is, and refused later."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and not node.args
                and not node.keywords and node.func.attr in ("values", "items")
                and isinstance(node.func.value, gast.Name) and node.func.value.id in self.dicts):
            return node
        mapping, key = node.func.value, self.context.namer.fresh("_k")
        item = gast.Subscript(value=copy.deepcopy(mapping), slice=name(key), ctx=gast.Load())
        if node.func.attr == "items":
            item = gast.Tuple(elts=[name(key), item], ctx=gast.Load())
        keys = gast.Call(func=name("dict_keys"), args=[copy.deepcopy(mapping)], keywords=[])
        loop = gast.comprehension(target=store(key), iter=keys, ifs=[], is_async=0)
        return copy_location(gast.ListComp(elt=item, generators=[loop]), node)

    def sorted_items(self, mapping):
        """`sorted(d.items())` -> `[(_k, d[_k]) for _k in sorted_keys(d)]`: a dict's keys are distinct, so
        its items sort by key alone (the values are never compared)."""
        key = self.context.namer.fresh("_k")
        item = gast.Tuple(elts=[name(key), gast.Subscript(value=copy.deepcopy(mapping), slice=name(key),
                                                          ctx=gast.Load())], ctx=gast.Load())
        keys = gast.Call(func=name("sorted_keys"), args=[copy.deepcopy(mapping)], keywords=[])
        loop = gast.comprehension(target=store(key), iter=keys, ifs=[], is_async=0)
        return gast.ListComp(elt=item, generators=[loop])

    def extremum_of_sequence(self, func, sequence):
        """`max(xs)` -> a loop of two-argument `max` (whose rule astjax has), first extremum kept on ties::

            _s = xs
            iterated(_s)                       # a dict or set is refused (Python compares its keys)
            _m = _s[0]
            for _i in range(1, len(_s)):
                _m = max(_m, _s[_i])
        """
        return self.reduction(func, sequence, result="_m")

    def reduction(self, step, sequence, initial=None, result="_r"):
        """`functools.reduce(f, xs, init)` -> the loop Python runs (without `init`, xs[0] starts it)::

            _s = xs
            iterated(_s)                       # a dict or set is refused (Python reduces its keys)
            _r = init                          # or: _r = _s[0], and the loop starts at 1
            for _i in range(0, len(_s)):
                _r = _f(_r, _s[_i])

        `f` is a function's name or attribute (called by it in the loop) or a lambda (bound to a local name).
        """
        held_step = self.bound_lambda(step) if isinstance(step, gast.Lambda) else step
        if isinstance(sequence, gast.GeneratorExp):
            sequence = gast.ListComp(elt=sequence.elt, generators=sequence.generators)
        held = self.context.namer.fresh("_s")
        result = self.context.namer.fresh(result)
        position = self.context.namer.fresh("_i")
        self.emitted.append(gast.Assign(targets=[store(held)], value=sequence, type_comment=None))
        self.emitted.append(gast.Expr(value=gast.Call(func=name("iterated"), args=[name(held)], keywords=[])))
        if initial is None:
            start, first = 1, gast.Subscript(value=name(held), slice=gast.Constant(value=0, kind=None), ctx=gast.Load())
        else:
            start, first = 0, initial
        self.emitted.append(gast.Assign(targets=[store(result)], value=first, type_comment=None))
        item = gast.Subscript(value=name(held), slice=name(position), ctx=gast.Load())
        step_call = gast.Assign(targets=[store(result)], value=gast.Call(
            func=copy.deepcopy(held_step), args=[name(result), item], keywords=[]), type_comment=None)
        bounds = [gast.Constant(value=start, kind=None), gast.Call(func=name("len"), args=[name(held)], keywords=[])]
        self.emitted.append(gast.For(target=store(position), iter=gast.Call(func=name("range"), args=bounds,
                                                                           keywords=[]),
                                     body=[step_call], orelse=[], type_comment=None))
        return name(result)

    def bound_lambda(self, step):
        """A lambda given to reduce, bound to a local name (local functions are inlined where called)."""
        label = self.context.namer.fresh("_f")
        self.emitted.append(gast.Assign(targets=[store(label)], value=step, type_comment=None))
        return name(label)

    def get(self, mapping, args):
        """`d.get(k, default)` -> `if has_key(d, k): _t = d[k] else: _t = default`."""
        mapping, key = self.held(mapping), self.held(args[0])
        default = args[1] if len(args) == 2 else gast.Constant(value=None, kind=None)
        result = self.context.namer.fresh()
        found = gast.Assign(targets=[store(result)], value=gast.Subscript(value=copy.deepcopy(mapping),
                            slice=copy.deepcopy(key), ctx=gast.Load()), type_comment=None)
        missing = gast.Assign(targets=[store(result)], value=default, type_comment=None)
        test = gast.Call(func=name("has_key"), args=[copy.deepcopy(mapping), copy.deepcopy(key)], keywords=[])
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
            iterable = Renamer(renames).visit(copy.deepcopy(gen.iter))
            own = {n.id: self.context.namer.unique(n.id) for n in walk(gen.target) if isinstance(n, gast.Name)}
            renames = {**renames, **own}
            target = Renamer(renames).visit(copy.deepcopy(gen.target))
            loops.append((target, iterable, [Renamer(renames).visit(copy.deepcopy(c)) for c in gen.ifs]))
        result = self.context.namer.fresh("_d")
        write = gast.Assign(targets=[gast.Subscript(value=name(result), slice=Renamer(renames).visit(
            copy.deepcopy(node.key)), ctx=gast.Store())], value=Renamer(renames).visit(copy.deepcopy(node.value)),
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


# builtins that read a dict view whole where it is made (`sum(d.values())`); not the lazy ones (zip, map,
# enumerate, reversed, a generator held in a name), whose iterator would see later changes to the dict
_CONSUMERS_OF_A_VIEW = (sum, list, tuple, max, min, any, all, len)


def _list_names(function_node):
    """Names every binding of which is a list literal, a list comprehension or a slice of such a name."""
    bindings = {}
    for node in walk(function_node):
        targets = []
        if isinstance(node, gast.Assign):
            targets = [(t, node.value) for t in node.targets]
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign)):
            targets = [(node.target, None)]
        elif isinstance(node, (gast.For, gast.comprehension)):
            targets = [(node.target, None)]
        elif isinstance(node, gast.arguments):
            targets = [(a, None) for a in node.args + node.kwonlyargs + node.posonlyargs]
            targets += [(a, None) for a in (node.vararg, node.kwarg) if a is not None]
        for target, value in targets:
            for n in walk(target):
                if isinstance(n, gast.Name):
                    bindings.setdefault(n.id, []).append(value if n is target else None)
    names = set(bindings)
    while True:
        keep = {k for k in names if all(_is_list_value(v, names) for v in bindings[k])}
        if keep == names:
            return names
        names = keep


def dict_names(function_node):
    """Names that hold dicts wherever they are read: read with a string key (`p["w"]`), asked for their
    `.keys()`, `.items()` or `.values()`, bound to a dict display, or copied (`q = p.copy()`) into such a name. `.copy()` of one is a dict, not jnp.copy's array."""
    names = set()
    copies = []
    for node in walk(function_node):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, str):
            names.add(node.value.id)
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and not node.args \
                and node.func.attr in ("keys", "items", "values") and isinstance(node.func.value, gast.Name):
            names.add(node.func.value.id)
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            value = node.value
            if isinstance(value, (gast.Dict, gast.DictComp)):
                names.add(node.targets[0].id)
            elif (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and not value.args
                    and value.func.attr == "copy" and isinstance(value.func.value, gast.Name)):
                copies.append((node.targets[0].id, value.func.value.id))
    changed = True
    while changed:
        changed = False
        for target, source in copies:
            if target in names and source not in names:
                names.add(source)
                changed = True
    return names


def _is_list_value(value, names):
    if isinstance(value, (gast.List, gast.ListComp)):
        return True
    if isinstance(value, gast.Name):
        return value.id in names
    return (isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice)
            and _is_list_value(value.value, names))


def _header(stmt):
    """The expressions a statement evaluates itself (a compound statement's test or iterable only)."""
    if isinstance(stmt, (gast.If, gast.While)):
        return [stmt.test]
    if isinstance(stmt, gast.For):
        return [stmt.iter]
    if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
        return []
    return [stmt]


def _read_more_than_once(nodes):
    """Names read more than once in `nodes` (`xs.pop() + xs[0]`: the pop may not move before the read)."""
    counts = {}
    for node in nodes:
        for n in walk(node):
            if isinstance(n, gast.Name):
                counts[n.id] = counts.get(n.id, 0) + 1
    return {k for k, c in counts.items() if c > 1}

