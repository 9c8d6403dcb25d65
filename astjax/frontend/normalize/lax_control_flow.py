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
    """Rewrite `lax.fori_loop`, `while_loop`, `cond` and `scan` at statement level."""

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
        if which is not lax.scan and not isinstance(target, gast.Name):
            return [stmt]
        call = stmt.value
        if call.keywords:
            raise self.error(f"pass the arguments of lax.{which.__name__} by position", stmt)
        args = [self._function_argument(a) for a in call.args]
        build = {lax.fori_loop: self.fori_loop, lax.while_loop: self.while_loop,
                 lax.cond: self.cond, lax.scan: self.scan}[which]
        return [copy_location(s, stmt) for s in build(target, args, stmt)]

    def _combinator(self, value):
        if not isinstance(value, gast.Call):
            return None
        func = self.context.resolver.static_value(value.func)
        return func if func in (lax.fori_loop, lax.while_loop, lax.cond, lax.scan) else None

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
        if not isinstance(xs, gast.Name):
            sequence = self.context.namer.fresh("_xs")
            prelude = [gast.Assign(targets=[store(sequence)], value=xs, type_comment=None)]
            xs = name(sequence)
        else:
            prelude = []
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
