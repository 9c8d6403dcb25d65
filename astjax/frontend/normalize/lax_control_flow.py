"""JAX's control-flow combinators become the Python control flow they stand for.

    v = lax.fori_loop(0, n, body, v0)     ->   v = v0
                                               for _i in range(0, n):
                                                   v = body(_i, v)
    v = lax.while_loop(cond, body, v0)    ->   v = v0
                                               while cond(v):
                                                   v = body(v)
    v = lax.cond(p, f, g, a)              ->   if p: v = f(a)
                                               else: v = g(a)
    c, ys = lax.scan(f, c0, xs)           ->   c = c0; _ys = []
                                               for _i in range(len(xs)):
                                                   _r = f(c, xs[_i]); c = _r[0]; _ys.append(_r[1])
                                               ys = jnp.stack(_ys)
    v = lax.switch(k, [f, g, h], a)       ->   if k <= 0: v = f(a)
                                               elif k == 1: v = g(a)
                                               else: v = h(a)
        (a branch list bound to a name first is read from that binding: normalize/switch_branches.py)
    ys = lax.map(f, xs)                   ->   a scan whose carry is unused
    y = lax.associative_scan(fn, xs)      ->   _acc = xs[0:1]; _parts = [_acc]
                                               for _i in range(1, n):
                                                   _acc = fn(_acc, xs[_i:_i+1]); _parts.append(_acc)
                                               y = jnp.concatenate(_parts, 0)
    v, i = lax.top_k(x, k)                ->   i = lax.internal.top_k_indices(x, k)
                                               v = lax.internal.gather_along(x, i, -1)

astjax transforms loops and branches directly, so code written for JAX's
combinators differentiates like any loop. A lambda passed inline becomes a
local function, inlined at its call like the ones defined with `def`.

A combinator nested in an expression (`jnp.sum(lax.fori_loop(...))`) is first
moved to an assignment of its own before the statement, where that keeps
Python's order of evaluation; under `and`/`or`, a conditional expression, a
lambda, a comprehension or a `while` test it is refused. Carries are pytrees:
`a, b = lax.fori_loop(..., (a0, b0))` keeps the state in a and b; scan's xs may
be a tuple or list written in the call (each leaf sliced), and its ys follow
the pattern they are unpacked into (`c, (ys1, [ys2]) = lax.scan(...)`), each
leaf stacked; ys bound to one name must be one array per step (checked). A name
of ys the function never reads (`c, _ = lax.scan(...)`) is not collected, so its
steps may return None or any pytree, as in JAX.
"""
import copy

import gast

from ... import lax
from .base import BlockPass, copy_location, name, store
from .switch_branches import resolvable_branch_lists
from ...codegen.node_walk import walk

__all__ = ["LaxControlFlow"]

_READS_EVERY_NAME = frozenset({"locals", "vars", "eval", "exec", "dir"})


class LaxControlFlow(BlockPass):
    """Rewrite `lax.fori_loop`, `while_loop`, `cond`, `scan`, `switch`, `map`, `associative_scan` and
    `top_k` at statement level."""

    def run(self, node):
        self.function = node
        if not hasattr(node, "local_functions"):
            node.local_functions = {}
        if not any(self._combinator(n) is not None for n in walk(node)):
            return node             # no lax combinator call: nothing to rewrite
        # `branches = [f, g]; lax.switch(i, branches, x)`: the list read in place of the name
        self.branch_lists = resolvable_branch_lists(
            node, self.context.resolver, lambda call: self._combinator(call) is lax.switch)
        self._dropped = {id(stmt) for stmt, _ in self.branch_lists.values()}
        return super().run(node)

    def rewrite(self, stmt):
        if id(stmt) in self._dropped:
            return []         # a branch list read only by lax.switch calls, each given the list itself
        return self.statement(stmt)

    def statement(self, stmt):
        hoisted = []
        self._hoist_nested(stmt, hoisted)
        out = []
        for assign in hoisted:
            out.extend(self.statement(assign))
        return out + self._rewrite(stmt)

    def _rewrite(self, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            return [stmt]
        which = self._combinator(stmt.value)
        if which is None:
            return [stmt]
        target = stmt.targets[0]
        if not _is_pattern(target):
            raise self.error(f"the result of lax.{which.__name__} can be assigned only to names and tuples of "
                             "names", stmt, hint="assign it to a name first, then store that name.")
        call = stmt.value
        if which is lax.associative_scan and call.keywords:
            call = _positional(call, ("fn", "elems", "reverse", "axis"), {"reverse": False, "axis": 0})
            if call is None:
                raise self.error("pass lax.associative_scan's arguments as (fn, elems, reverse=..., axis=...)", stmt)
        if which is lax.scan and (call.keywords or len(call.args) > 3):
            call = _positional(call, ("f", "init", "xs", "length", "reverse", "unroll"),
                               {"xs": None, "length": None, "reverse": False, "unroll": 1})
            if call is None:
                raise self.error("pass lax.scan's arguments as (f, init, xs, length=..., reverse=..., unroll=...)",
                                 stmt)
        if call.keywords:
            raise self.error(f"pass the arguments of lax.{which.__name__} by position", stmt)
        if which is lax.switch and len(call.args) >= 2 and isinstance(call.args[1], gast.Name):
            call.args[1] = self._branch_list(call.args[1], stmt)
        args = [self._function_argument(a) for a in call.args]
        if which is lax.switch and len(args) >= 2 and isinstance(args[1], (gast.List, gast.Tuple)):
            args[1].elts = [self._function_argument(b) for b in args[1].elts]
        build = {lax.fori_loop: self.fori_loop, lax.while_loop: self.while_loop,
                 lax.cond: self.cond, lax.scan: self.scan, lax.switch: self.switch, lax.map: self.map,
                 lax.associative_scan: self.associative_scan, lax.top_k: self.top_k}[which]
        after = []
        self._reads_after = set()
        if which is lax.scan and isinstance(target, gast.Name):
            # `r = lax.scan(...)`: r is the pair (carry, ys)
            pair = [self.context.namer.fresh("_c"), self.context.namer.fresh("_ys")]
            after = [gast.Assign(targets=[target], value=gast.Tuple(elts=[name(v) for v in pair], ctx=gast.Load()),
                                 type_comment=None)]
            target = gast.Tuple(elts=[store(v) for v in pair], ctx=gast.Store())
            self._reads_after = set(pair)
        elif which in (lax.fori_loop, lax.while_loop) and _unpacked_carry(target, args):
            pass    # `a, b = lax.fori_loop(..., (a0, b0))`: the names a, b are the loop's state
        elif which not in (lax.scan, lax.top_k, lax.map) and not isinstance(target, gast.Name):
            # a tuple carry or result (`a, b = lax.fori_loop(..., (a0, b0))`): one name holds the tuple,
            # unpacked after the loop (normalize/tuple_assignment.py checks its length)
            whole = self.context.namer.fresh("_c")
            after = [gast.Assign(targets=[target], value=name(whole), type_comment=None)]
            target = store(whole)
        return [copy_location(s, stmt) for s in build(target, args, stmt) + after]

    # Nodes whose parts Python evaluates conditionally, later or repeatedly: a combinator there cannot be
    # moved to a statement before the one holding it.
    _DEFERRED = {gast.BoolOp: "`and` / `or`", gast.IfExp: "a conditional expression (`a if c else b`)",
                 gast.Lambda: "a lambda", gast.ListComp: "a comprehension", gast.SetComp: "a comprehension",
                 gast.DictComp: "a comprehension", gast.GeneratorExp: "a generator expression"}

    def _hoist_nested(self, stmt, hoisted):
        """Move each combinator call nested in `stmt`'s expressions to an assignment `_v = lax.f(...)` of
        its own (appended to `hoisted`, in evaluation order) and read `_v` in its place.

        Only where the statement evaluates the expression once, unconditionally: a combinator in a
        `while` test, under `and`/`or`, a conditional expression, a lambda or a comprehension is refused."""
        if isinstance(stmt, gast.While):
            self._refuse_nested(stmt.test, stmt, "a `while` condition (evaluated at every iteration)")
            return
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and self._combinator(stmt.value):
            self._hoist_arguments(stmt.value, hoisted, stmt)
            return
        fields = {gast.Assign: ("value",), gast.AugAssign: ("value",), gast.AnnAssign: ("value",),
                  gast.Return: ("value",), gast.Expr: ("value",), gast.If: ("test",), gast.For: ("iter",)}
        for field in fields.get(type(stmt), ()):
            value = getattr(stmt, field)
            if value is not None:
                setattr(stmt, field, self._hoist(value, hoisted, stmt))

    def _hoist(self, node, hoisted, stmt):
        if isinstance(node, gast.Call) and self._combinator(node):
            self._hoist_arguments(node, hoisted, stmt)
            result = self.context.namer.fresh("_v")
            hoisted.append(copy_location(gast.Assign(targets=[store(result)], value=node, type_comment=None), stmt))
            return name(result)
        deferred = self._DEFERRED.get(type(node))
        if deferred is not None:
            self._refuse_nested(node, stmt, deferred)
            return node
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.expr):
                setattr(node, field, self._hoist(value, hoisted, stmt))
            elif isinstance(value, gast.AST):
                self._hoist(value, hoisted, stmt)
            elif isinstance(value, list):
                setattr(node, field, [self._hoist(v, hoisted, stmt) if isinstance(v, gast.AST) else v
                                      for v in value])
        return node

    def _hoist_arguments(self, call, hoisted, stmt):
        call.args = [self._hoist(a, hoisted, stmt) for a in call.args]
        for keyword in call.keywords:
            keyword.value = self._hoist(keyword.value, hoisted, stmt)

    def _refuse_nested(self, node, stmt, where):
        for inner in walk(node):
            which = self._combinator(inner)
            if which is not None:
                raise self.error(f"lax.{which.__name__} inside {where} cannot be rewritten into a loop or branch "
                                 "there", stmt, hint=f"compute it in a statement of its own first "
                                 f"(`v = lax.{which.__name__}(...)`), then use v.")

    def _combinator(self, value):
        if not isinstance(value, gast.Call):
            return None
        func = self.context.resolver.static_value(value.func)
        combinators = (lax.fori_loop, lax.while_loop, lax.cond, lax.scan, lax.switch, lax.map, lax.associative_scan,
                       lax.top_k)
        return func if any(func is c for c in combinators) else None

    def _function_argument(self, node):
        """An inline lambda becomes a named local function (inlined at its calls later)."""
        if not isinstance(node, gast.Lambda):
            return node
        local = self.context.namer.fresh("_fn")
        ret = copy_location(gast.Return(value=node.body), node.body)
        self.function.local_functions[local] = copy_location(
            gast.FunctionDef(name=local, args=node.args, body=[ret], decorator_list=[], returns=None,
                             type_comment=None, type_params=[]), node)
        return name(local)

    @staticmethod
    def _call(func, *args):
        return gast.Call(func=copy.deepcopy(func), args=[copy.deepcopy(a) for a in args], keywords=[])

    def fori_loop(self, target, args, stmt):
        if len(args) != 4:
            raise self.error("lax.fori_loop takes (lower, upper, body_fun, init_val)", stmt)
        lower, upper, body, init = args
        index = self.context.namer.fresh("_i")
        bounds = []
        for k, bound in enumerate((lower, upper)):     # read before the state is bound, as the call does
            if not isinstance(bound, gast.Constant):
                temp = self.context.namer.fresh("_n")
                bounds.append(gast.Assign(targets=[store(temp)], value=bound, type_comment=None))
                lower, upper = (name(temp), upper) if k == 0 else (lower, name(temp))
        state = _state(target, init)
        loop = gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[lower, upper], keywords=[]),
                        body=[gast.Assign(targets=[copy.deepcopy(target)],
                                          value=self._call(body, name(index), state), type_comment=None)],
                        orelse=[], type_comment=None)
        return bounds + [gast.Assign(targets=[copy.deepcopy(target)], value=init, type_comment=None), loop]

    def while_loop(self, target, args, stmt):
        if len(args) != 3:
            raise self.error("lax.while_loop takes (cond_fun, body_fun, init_val)", stmt)
        cond, body, init = args
        state = _state(target, init)
        loop = gast.While(test=self._call(cond, state),
                          body=[gast.Assign(targets=[copy.deepcopy(target)], value=self._call(body, state),
                                            type_comment=None)], orelse=[])
        return [gast.Assign(targets=[copy.deepcopy(target)], value=init, type_comment=None), loop]

    def cond(self, target, args, stmt):
        if len(args) < 3:
            raise self.error("lax.cond takes (pred, true_fun, false_fun, *operands)", stmt)
        pred, on_true, on_false, *operands = args
        branch = gast.If(test=pred,
                         body=[gast.Assign(targets=[store(target.id)], value=self._call(on_true, *operands),
                                           type_comment=None)],
                         orelse=[gast.Assign(targets=[store(target.id)], value=self._call(on_false, *operands),
                                             type_comment=None)])
        return [branch]

    def scan(self, target, args, stmt):
        """`carry, ys = lax.scan(f, init, xs, length, reverse, unroll)` as a loop over the items of xs
        (backwards with reverse=True, ys still in the order of xs); xs=None scans `length` steps."""
        if not 2 <= len(args) <= 6 or not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
            raise self.error("write `carry, ys = lax.scan(f, init, xs)`", stmt)
        defaults = [None, None, _NONE, _NONE, gast.Constant(value=False, kind=None)]
        f, init, xs, length, reverse = (list(args) + defaults[len(args):])[:5]
        if not (isinstance(reverse, gast.Constant) and isinstance(reverse.value, bool)):
            raise self.error("lax.scan's reverse must be written as True or False", stmt)
        no_xs = isinstance(xs, gast.Constant) and xs.value is None
        no_length = isinstance(length, gast.Constant) and length.value is None
        if no_xs and no_length:
            raise self.error("lax.scan with xs=None needs length=", stmt)
        carry, ys = target.elts
        namer = self.context.namer
        index = namer.fresh("_i")
        # Each leaf of xs (xs itself, or the items of a tuple/list written in the call) is checked to be one
        # array (lax.internal.leading_axis_array) and indexed by position; a tuple held in a name is refused
        # there, since indexing it would pick whole arrays rather than slicing each.
        prelude, leaves = [], []
        position = index
        if reverse.value:            # step k reads item n - 1 - k
            position = namer.fresh("_at")
        item = copy.deepcopy(_NONE) if no_xs else self._xs_item(xs, position, prelude, leaves, stmt)
        for other in leaves[1:]:
            prelude.append(_assert_same_length(other, leaves[0]))
        if no_xs:
            steps = namer.fresh("_length")
            prelude.append(gast.Assign(targets=[store(steps)], value=length, type_comment=None))
        else:
            steps = leaves[0] if no_length else namer.fresh("_length")
            if not no_length:
                prelude.append(gast.Assign(targets=[store(steps)], value=length, type_comment=None))
                prelude.append(_assert_length(leaves[0], steps))
        state = carry.id if isinstance(carry, gast.Name) else namer.fresh("_c")
        step = namer.fresh("_y")
        # ys: one list per name of ys's pattern; each step's item is unpacked by that pattern (its
        # structure checked) and each leaf checked to be one array (lax.internal.scan_step_output)
        collected = {}
        step_pattern = self._ys_pattern(ys, collected)
        count = gast.Call(func=name("len"), args=[name(steps)], keywords=[]) if steps in leaves else name(steps)
        body = []
        if reverse.value:
            body.append(gast.Assign(targets=[store(position)], value=gast.BinOp(
                left=gast.BinOp(left=copy.deepcopy(count), op=gast.Sub(), right=gast.Constant(value=1, kind=None)),
                op=gast.Sub(), right=name(index)), type_comment=None))
        # the carry keeps the initial carry's type (lax.internal.scan_carry_check raises JAX's TypeError)
        initial = namer.fresh("_init")
        body += [gast.Assign(targets=[gast.Tuple(elts=[store(state), store(step)], ctx=gast.Store())],
                             value=self._call(f, name(state), item), type_comment=None),
                 gast.Expr(value=_internal_call("scan_carry_check", name(state), name(initial))),
                 gast.Assign(targets=[step_pattern], value=name(step), type_comment=None)]
        for leaf, (part, user) in list(collected.items()):
            if not self._is_read(user):
                # ys the function never reads (`c, _ = lax.scan(...)` over steps that return `(c, None)`) are
                # not collected: JAX's ys for them may be None or a pytree, which one stacked list cannot hold.
                del collected[leaf]
                continue
            checked = _internal_call("scan_step_output", name(leaf))
            body.append(gast.Expr(value=gast.Call(func=gast.Attribute(value=name(part), attr="append",
                                                                      ctx=gast.Load()),
                                                  args=[checked], keywords=[])))
        loop = gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[count], keywords=[]),
                        body=body, orelse=[], type_comment=None)
        out = prelude + [gast.Assign(targets=[store(initial)], value=init, type_comment=None),
                         gast.Assign(targets=[store(state)], value=name(initial), type_comment=None)]
        out += [gast.Assign(targets=[store(part)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None)
                for part, _ in collected.values()]
        out.append(loop)
        for part, result in collected.values():
            stack = gast.Call(func=gast.Attribute(value=name("jnp"), attr="stack", ctx=gast.Load()),
                              args=[name(part)], keywords=[])
            if reverse.value:        # collected last item first
                stack = gast.Subscript(value=stack, slice=gast.Slice(lower=None, upper=None, step=gast.Constant(
                    value=-1, kind=None)), ctx=gast.Load())
            out.append(gast.Assign(targets=[store(result)], value=stack, type_comment=None))
        if state != getattr(carry, "id", None):
            out.append(gast.Assign(targets=[carry], value=name(state), type_comment=None))
        return out

    def _is_read(self, user_name):
        """Whether the function (its local functions included) may read `user_name` after binding it: a load
        or `del` of it anywhere, or a call of locals/vars/eval/exec (which read names unseen)."""
        if user_name in self._reads_after:
            return True
        roots = [self.function] + list(getattr(self.function, "local_functions", {}).values())
        for root in roots:
            for node in walk(root):
                if isinstance(node, gast.Name) and (
                        (node.id == user_name and not isinstance(node.ctx, gast.Store))
                        or (node.id in _READS_EVERY_NAME and isinstance(node.ctx, gast.Load))):
                    return True
        return False

    def _xs_item(self, xs, index, prelude, leaves, stmt):
        """The expression of step `index`'s item of xs; a tuple or list written in the call gives a tuple or
        list of its leaves' items."""
        if isinstance(xs, (gast.Tuple, gast.List)):
            if not xs.elts:
                raise self.error("lax.scan needs at least one array in xs", stmt)
            elts = [self._xs_item(e, index, prelude, leaves, stmt) for e in xs.elts]
            return gast.Tuple(elts=elts, ctx=gast.Load()) if isinstance(xs, gast.Tuple) else \
                gast.List(elts=elts, ctx=gast.Load())
        sequence = self.context.namer.fresh("_xs")
        prelude.append(gast.Assign(targets=[store(sequence)], value=_internal_call("leading_axis_array", xs),
                                   type_comment=None))
        leaves.append(sequence)
        return gast.Subscript(value=name(sequence), slice=name(index), ctx=gast.Load())

    def _ys_pattern(self, ys, collected):
        """`ys`'s pattern with each name replaced by a fresh one (a step's leaf); `collected` maps that leaf
        to (its list, the user's name)."""
        if isinstance(ys, gast.Name):
            leaf = self.context.namer.fresh("_y")
            collected[leaf] = (self.context.namer.fresh("_ys"), ys.id)
            return store(leaf)
        return type(ys)(elts=[self._ys_pattern(e, collected) for e in ys.elts], ctx=gast.Store())

    def _branch_list(self, node, stmt):
        """The list literal a branch-list name was bound to (normalize/switch_branches.py), else refused."""
        if node.id in self.branch_lists:
            return copy.deepcopy(self.branch_lists[node.id][1])
        raise self.error(
            f"lax.switch's branches `{node.id}` must be a list written in the call, or a name bound once, in the "
            "function's own body before the switch, to a list of lambdas or functions and read only as "
            "lax.switch's branches", stmt,
            hint=f"write the list in the call (`lax.switch(i, [f, g, h], x)`), or bind `{node.id} = [f, g, h]` "
                 "once and do not change or pass it elsewhere.")

    def switch(self, target, args, stmt):
        if len(args) < 2 or not isinstance(args[1], (gast.List, gast.Tuple)) or not args[1].elts:
            raise self.error("lax.switch takes (index, [branch, ...], *operands) with the branches listed "
                             "in the call", stmt)
        index, branches, *operands = args[0], args[1].elts, *args[2:]
        chain = [gast.Assign(targets=[store(target.id)], value=self._call(branches[-1], *operands), type_comment=None)]
        for k in range(len(branches) - 2, -1, -1):
            test = gast.Compare(left=copy.deepcopy(index), ops=[gast.LtE() if k == 0 else gast.Eq()],
                                comparators=[gast.Constant(value=k, kind=None)])
            chain = [gast.If(test=test, body=[gast.Assign(targets=[store(target.id)],
                                                          value=self._call(branches[k], *operands),
                                                          type_comment=None)], orelse=chain)]
        return chain

    def map(self, target, args, stmt):
        if len(args) != 2:
            raise self.error("lax.map takes (f, xs)", stmt)
        f, xs = args
        carry, x = self.context.namer.fresh("_c"), self.context.namer.fresh("_x")
        body = self.context.namer.fresh("_fn")
        ret = gast.Return(value=gast.Tuple(elts=[name(carry), self._call(f, name(x))], ctx=gast.Load()))
        self.function.local_functions[body] = copy_location(
            gast.FunctionDef(name=body, args=gast.arguments(args=[store_param(carry), store_param(x)], posonlyargs=[],
                                                            vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                            defaults=[]),
                             body=[ret], decorator_list=[], returns=None, type_comment=None, type_params=[]), stmt)
        unused = self.context.namer.fresh("_carry")
        pair = gast.Tuple(elts=[store(unused), copy.deepcopy(target)], ctx=gast.Store())
        return self.scan(pair, [name(body), gast.Constant(value=0.0, kind=None), xs], stmt)

    def associative_scan(self, target, args, stmt):
        if not 2 <= len(args) <= 4 or not all(isinstance(a, gast.Constant) for a in args[2:]):
            raise self.error("lax.associative_scan takes (fn, elems, reverse, axis) with reverse and axis "
                             "written as constants", stmt)
        fn, elems = args[0], args[1]
        reverse = bool(args[2].value) if len(args) > 2 else False
        axis = int(args[3].value) if len(args) > 3 else 0
        together = isinstance(elems, (gast.Tuple, gast.List))
        if not together and not isinstance(target, gast.Name):
            raise self.error("lax.associative_scan of one array gives one array: assign it to one name (for a "
                             "tuple of arrays, write the tuple in the call: `lax.associative_scan(fn, (a, b))`)", stmt)
        items = elems.elts if together else [elems]
        container = gast.List if isinstance(elems, gast.List) else gast.Tuple
        namer = self.context.namer
        xs = [namer.fresh("_xs") for _ in items]
        acc = [namer.fresh("_acc") for _ in items]
        parts = [namer.fresh("_parts") for _ in items]
        index = namer.fresh("_i")
        const = lambda v: gast.Constant(value=v, kind=None)    # noqa: E731

        def lax_call(attr, *call_args):
            return gast.Call(func=gast.Attribute(value=name("lax"), attr=attr, ctx=gast.Load()), args=list(call_args),
                             keywords=[])

        def axes():
            return gast.Tuple(elts=[const(axis)], ctx=gast.Load())

        def sliced(var, i, j):
            return lax_call("slice_in_dim", name(var), i, j, const(1), const(axis))

        def assign(var, value):
            return gast.Assign(targets=[store(var)], value=value, type_comment=None)

        def pytree(values):
            """What fn takes and returns: the one array, or the tuple (list) of elems' items (as JAX passes it)."""
            return container(elts=values, ctx=gast.Load()) if together else values[0]

        out = [assign(x, lax_call("rev", item, axes()) if reverse else item) for x, item in zip(xs, items)]
        out += [assign(a, sliced(x, const(0), const(1))) for a, x in zip(acc, xs)]
        out += [assign(p, gast.List(elts=[name(a)], ctx=gast.Load())) for p, a in zip(parts, acc)]
        following = gast.BinOp(left=name(index), op=gast.Add(), right=const(1))
        step_items = pytree([sliced(x, name(index), copy.deepcopy(following)) for x in xs])
        carried = pytree([name(a) for a in acc])
        step = self._call(fn, step_items, carried) if reverse else self._call(fn, carried, step_items)
        count = gast.Subscript(value=gast.Call(func=gast.Attribute(value=name("jnp"), attr="shape", ctx=gast.Load()),
                                               args=[name(xs[0])], keywords=[]), slice=const(axis), ctx=gast.Load())
        stepped = gast.Tuple(elts=[store(a) for a in acc], ctx=gast.Store()) if together else store(acc[0])
        body = [gast.Assign(targets=[stepped], value=step, type_comment=None)]
        body += [gast.Expr(value=gast.Call(func=gast.Attribute(value=name(p), attr="append", ctx=gast.Load()),
                                           args=[name(a)], keywords=[])) for p, a in zip(parts, acc)]
        out.append(gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[const(1), count], keywords=[]),
                            body=body, orelse=[], type_comment=None))
        results = [namer.fresh("_scanned") for _ in items] if together else [target.id]
        for r, p in zip(results, parts):
            joined = gast.Call(func=gast.Attribute(value=name("jnp"), attr="concatenate", ctx=gast.Load()),
                               args=[name(p), const(axis)], keywords=[])
            out.append(assign(r, lax_call("rev", joined, axes()) if reverse else joined))
        if together:      # the whole result, a tuple (list) as elems (the caller unpacks it: tuple_assignment.py)
            out.append(gast.Assign(targets=[target], value=pytree([name(r) for r in results]), type_comment=None))
        return out

    def top_k(self, target, args, stmt):
        if len(args) != 2 or not (isinstance(target, gast.Tuple) and len(target.elts) == 2
                                  and all(isinstance(e, gast.Name) for e in target.elts)):
            raise self.error("write `values, indices = lax.top_k(operand, k)`", stmt)
        values, indices = target.elts
        internal = gast.Attribute(value=name("lax"), attr="internal", ctx=gast.Load())
        first = gast.Call(func=gast.Attribute(value=internal, attr="top_k_indices", ctx=gast.Load()),
                          args=list(args), keywords=[])
        second = gast.Call(func=gast.Attribute(value=copy.deepcopy(internal), attr="gather_along", ctx=gast.Load()),
                           args=[copy.deepcopy(args[0]), name(indices.id), gast.Constant(value=-1, kind=None)],
                           keywords=[])
        return [gast.Assign(targets=[store(indices.id)], value=first, type_comment=None),
                gast.Assign(targets=[store(values.id)], value=second, type_comment=None)]


def _internal_call(attr, *args):
    """`lax.internal.<attr>(*args)`."""
    internal = gast.Attribute(value=name("lax"), attr="internal", ctx=gast.Load())
    return gast.Call(func=gast.Attribute(value=internal, attr=attr, ctx=gast.Load()), args=list(args), keywords=[])


def _assert_same_length(sequence, first):
    """`assert len(sequence) == len(first)`: the arrays of a tuple of xs are scanned together."""
    test = gast.Compare(left=gast.Call(func=name("len"), args=[name(sequence)], keywords=[]), ops=[gast.Eq()],
                        comparators=[gast.Call(func=name("len"), args=[name(first)], keywords=[])])
    return gast.Assert(test=test, msg=gast.Constant(value="lax.scan: the arrays of xs differ in their leading "
                                                          "axis length", kind=None))


def store_param(identifier):
    return gast.Name(id=identifier, ctx=gast.Param(), annotation=None, type_comment=None)


_NONE = gast.Constant(value=None, kind=None)


def _assert_length(sequence, length):
    """`assert len(sequence) == length`: lax.scan's length= must match its xs."""
    test = gast.Compare(left=gast.Call(func=name("len"), args=[name(sequence)], keywords=[]), ops=[gast.Eq()],
                        comparators=[name(length)])
    return gast.Assert(test=test, msg=gast.Constant(value="lax.scan: length does not match the leading size of xs",
                                                    kind=None))


def _positional(call, names, defaults):
    """`call` with its keyword arguments moved to their positions (defaults filling gaps); None if they do not fit."""
    args = list(call.args)
    given = {k.arg: k.value for k in call.keywords}
    if any(k not in names[len(args):] for k in given):
        return None
    for param in names[len(args):]:
        if param in given:
            args.append(given.pop(param))
        elif not given:
            break
        elif param in defaults:
            args.append(gast.Constant(value=defaults[param], kind=None))
        else:
            return None
    return gast.Call(func=call.func, args=args, keywords=[])


def _is_pattern(target):
    """A name, or a tuple/list of patterns: what a combinator's result may be unpacked into."""
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, (gast.Tuple, gast.List)) and all(_is_pattern(e) for e in target.elts)


def _unpacked_carry(target, args):
    """Whether a fori_loop / while_loop result unpacked into names (`a, b = ...`) can keep its state in those
    names: its init is a tuple or list written in the call with one item per name."""
    init = args[-1] if args else None
    return (isinstance(target, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Name) for e in target.elts)
            and isinstance(init, (gast.Tuple, gast.List)) and len(init.elts) == len(target.elts))


def _state(target, init):
    """The loop state read back: the target's name, or its names rebuilt as init's tuple or list."""
    if isinstance(target, gast.Name):
        return name(target.id)
    return type(init)(elts=[name(e.id) for e in target.elts], ctx=gast.Load())
