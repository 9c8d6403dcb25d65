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
"""
import copy

import gast

from ... import lax
from .base import Pass, copy_location, name, rewrite_inner_blocks, store

__all__ = ["LaxControlFlow"]


class LaxControlFlow(Pass):
    """Rewrite `lax.fori_loop`, `while_loop`, `cond`, `scan`, `switch`, `map`, `associative_scan` and
    `top_k` at statement level."""

    def run(self, node):
        self.function = node
        if not hasattr(node, "local_functions"):
            node.local_functions = {}
        node.body = self.block(node.body)
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            rewrite_inner_blocks(stmt, self.block)
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        if isinstance(stmt, gast.Return) and self._combinator(stmt.value):
            result = self.context.namer.fresh("_v")
            assign = copy_location(gast.Assign(targets=[store(result)], value=stmt.value, type_comment=None), stmt)
            return self.statement(assign) + [copy_location(gast.Return(value=name(result)), stmt)]
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            return [stmt]
        which = self._combinator(stmt.value)
        if which is None:
            return [stmt]
        target = stmt.targets[0]
        if which not in (lax.scan, lax.top_k) and not isinstance(target, gast.Name):
            return [stmt]
        call = stmt.value
        if which is lax.associative_scan and call.keywords:
            call = _positional(call, ("fn", "elems", "reverse", "axis"), {"reverse": False, "axis": 0})
            if call is None:
                raise self.error("pass lax.associative_scan's arguments as (fn, elems, reverse=..., axis=...)", stmt)
        if call.keywords:
            raise self.error(f"pass the arguments of lax.{which.__name__} by position", stmt)
        args = [self._function_argument(a) for a in call.args]
        if which is lax.switch and len(args) >= 2 and isinstance(args[1], (gast.List, gast.Tuple)):
            args[1].elts = [self._function_argument(b) for b in args[1].elts]
        build = {lax.fori_loop: self.fori_loop, lax.while_loop: self.while_loop,
                 lax.cond: self.cond, lax.scan: self.scan, lax.switch: self.switch, lax.map: self.map,
                 lax.associative_scan: self.associative_scan, lax.top_k: self.top_k}[which]
        return [copy_location(s, stmt) for s in build(target, args, stmt)]

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
        loop = gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[lower, upper], keywords=[]),
                        body=[gast.Assign(targets=[store(target.id)], value=self._call(body, name(index), name(target.id)),
                                          type_comment=None)], orelse=[], type_comment=None)
        return [gast.Assign(targets=[store(target.id)], value=init, type_comment=None), loop]

    def while_loop(self, target, args, stmt):
        if len(args) != 3:
            raise self.error("lax.while_loop takes (cond_fun, body_fun, init_val)", stmt)
        cond, body, init = args
        loop = gast.While(test=self._call(cond, name(target.id)),
                          body=[gast.Assign(targets=[store(target.id)], value=self._call(body, name(target.id)),
                                            type_comment=None)], orelse=[])
        return [gast.Assign(targets=[store(target.id)], value=init, type_comment=None), loop]

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
        if len(args) != 3 or not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
            raise self.error("write `carry, ys = lax.scan(f, init, xs)`", stmt)
        f, init, xs = args
        carry, ys = target.elts
        index, pair, collected = (self.context.namer.fresh(base) for base in ("_i", "_r", "_ys"))
        # xs is checked to be one array (lax.internal.leading_axis_array): the loop indexes it by position,
        # which for a tuple of arrays would pick whole arrays rather than slicing each.
        sequence = self.context.namer.fresh("_xs")
        check = gast.Call(func=gast.Attribute(value=gast.Attribute(value=name("lax"), attr="internal", ctx=gast.Load()),
                                              attr="leading_axis_array", ctx=gast.Load()), args=[xs], keywords=[])
        prelude = [gast.Assign(targets=[store(sequence)], value=check, type_comment=None)]
        xs = name(sequence)
        item = gast.Subscript(value=copy.deepcopy(xs), slice=name(index), ctx=gast.Load())
        body = [
            gast.Assign(targets=[store(pair)], value=self._call(f, name(carry.id), item), type_comment=None),
            gast.Assign(targets=[store(carry.id)], value=gast.Subscript(
                value=name(pair), slice=gast.Constant(value=0, kind=None), ctx=gast.Load()), type_comment=None),
            gast.Expr(value=gast.Call(func=gast.Attribute(value=name(collected), attr="append", ctx=gast.Load()),
                                      args=[gast.Subscript(value=name(pair), slice=gast.Constant(value=1, kind=None),
                                                           ctx=gast.Load())], keywords=[])),
        ]
        length = gast.Call(func=name("len"), args=[copy.deepcopy(xs)], keywords=[])
        loop = gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[length], keywords=[]),
                        body=body, orelse=[], type_comment=None)
        stack = gast.Call(func=gast.Attribute(value=name("jnp"), attr="stack", ctx=gast.Load()),
                          args=[name(collected)], keywords=[])
        return prelude + [gast.Assign(targets=[store(carry.id)], value=init, type_comment=None),
                          gast.Assign(targets=[store(collected)], value=gast.List(elts=[], ctx=gast.Load()),
                                      type_comment=None),
                          loop, gast.Assign(targets=[store(ys.id)], value=stack, type_comment=None)]

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
        pair = gast.Tuple(elts=[store(unused), store(target.id)], ctx=gast.Store())
        return self.scan(pair, [name(body), gast.Constant(value=0.0, kind=None), xs], stmt)

    def associative_scan(self, target, args, stmt):
        if not 2 <= len(args) <= 4 or not all(isinstance(a, gast.Constant) for a in args[2:]):
            raise self.error("lax.associative_scan takes (fn, elems, reverse, axis) with reverse and axis "
                             "written as constants", stmt)
        fn, elems = args[0], args[1]
        reverse = bool(args[2].value) if len(args) > 2 else False
        axis = int(args[3].value) if len(args) > 3 else 0
        namer = self.context.namer
        xs, acc, parts, index = namer.fresh("_xs"), namer.fresh("_acc"), namer.fresh("_parts"), namer.fresh("_i")
        const = lambda v: gast.Constant(value=v, kind=None)    # noqa: E731
        axes = gast.Tuple(elts=[const(axis)], ctx=gast.Load())

        def lax_call(attr, *call_args):
            func = gast.Attribute(value=name("lax"), attr=attr, ctx=gast.Load())
            return gast.Call(func=func, args=list(call_args), keywords=[])

        def item(i, j):
            return lax_call("slice_in_dim", name(xs), i, j, const(1), const(axis))

        def assign(var, value):
            return gast.Assign(targets=[store(var)], value=value, type_comment=None)

        source = lax_call("rev", elems, axes) if reverse else elems
        step = self._call(fn, item(name(index), gast.BinOp(left=name(index), op=gast.Add(), right=const(1))),
                          name(acc)) if reverse else \
            self._call(fn, name(acc), item(name(index), gast.BinOp(left=name(index), op=gast.Add(), right=const(1))))
        count = gast.Subscript(value=gast.Call(func=gast.Attribute(value=name("jnp"), attr="shape", ctx=gast.Load()),
                                               args=[name(xs)], keywords=[]), slice=const(axis), ctx=gast.Load())
        loop = gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[const(1), count], keywords=[]),
                        body=[assign(acc, step), gast.Expr(value=gast.Call(
                            func=gast.Attribute(value=name(parts), attr="append", ctx=gast.Load()),
                            args=[name(acc)], keywords=[]))], orelse=[], type_comment=None)
        joined = gast.Call(func=gast.Attribute(value=name("jnp"), attr="concatenate", ctx=gast.Load()),
                           args=[name(parts), const(axis)], keywords=[])
        result = lax_call("rev", joined, copy.deepcopy(axes)) if reverse else joined
        return [assign(xs, source), assign(acc, item(const(0), const(1))),
                assign(parts, gast.List(elts=[name(acc)], ctx=gast.Load())), loop, assign(target.id, result)]

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


def store_param(identifier):
    return gast.Name(id=identifier, ctx=gast.Param(), annotation=None, type_comment=None)


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
