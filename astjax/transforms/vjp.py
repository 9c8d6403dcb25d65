"""Reverse mode: a primal sweep, then an adjoint sweep that runs the program backwards.

For each statement `y = f(x)` of the normalized function, taken in reverse
order, the adjoint sweep expands f's rule (`bx += by * jnp.cos(x)`). Branches
are reversed inside the same branch; a `for` loop runs backwards
(`for i in reversed(range(n))`); a `while` loop, or a loop that breaks, counts
its iterations and runs that many times. A value the primal sweep overwrote
but a rule still reads is pushed on a tape before it is overwritten and popped
back at the mirrored point, so the tape holds only what is overwritten. Calls
to the user's own functions differentiate the callee into its own `vjp_<name>`
function, which recomputes the callee's forward pass (recursion included).
"""
import copy
import itertools

import gast

from ..analyses.activity import Activity
from ..analyses.shapes import ShapeClasses
from ..analyses.tape import TapePlan
from ..analyses.classify import classify
from ..codegen.templates import LineComments, index_expression, assign, augassign, call, expand, is_marker, name
from ..frontend.normalize.base import copy_location

__all__ = ["ReverseMode"]

_ZERO = 0.0
_ids = itertools.count()


class ReverseMode:
    """Differentiate one normalized function in reverse mode.

    wrt: parameter names to differentiate with respect to.
    mode: "grad" (seed 1.0; return the adjoints), "value_and_grad" (also the value)
        or "vjp" (the output's adjoint is an extra parameter).
    has_aux: the function returns (output, aux); aux is returned alongside.
    callee_vjp(fn, mask, node) -> name of the generated vjp of a called user function.
    """

    def __init__(self, context, function_node, wrt, mode="grad", has_aux=False, callee_vjp=None, name=None,
                 bind_name=None):
        self.context = context
        self.namer = context.namer
        self.function = function_node
        self.params = [a.id for a in function_node.args.args]
        self.wrt = list(wrt)
        self.mode = mode
        self.has_aux = has_aux
        self.callee_vjp = callee_vjp
        self.bind_name = bind_name
        self.name = name or f"{mode}_{function_node.name.strip('_') or 'f'}"
        self.restores = {}      # marker id -> statement it restores
        self._shaped = {}       # variable -> whether its zero adjoint must have its shape
        self.counters = {}      # id(loop) -> counter name
        self._comment = LineComments(context.source)

    # ---------------------------------------------------------------- driver
    def transform(self):
        ret = self.function.body[-1]
        self.output, self.aux = self._outputs(ret)
        primal = self._count_iterations(self._split_custom_vjp_calls(self.function.body[:-1]))
        self.function.body = primal + [ret]
        outputs = [self.output.id] if isinstance(self.output, gast.Name) else []
        self.activity = Activity(self.function, self.context.resolver, self.wrt, outputs)
        self.shapes = ShapeClasses(self.function, self.context.resolver)
        self.plan = TapePlan(self.function, primal, self.params)

        self.tape = self.namer.unique("_tape")
        self.tape_variables = {n.targets[0].id for n in gast.walk(self.function)
                               if isinstance(n, gast.Assign) and _call_name(n.value) == "Tape"}
        adjoint = self.reverse_block(primal)
        self.plan.decide(adjoint, self._restored_by)
        self.shape_names = {v: self.namer.unique(f"{v}_shape") for v in sorted(self.plan.shape_saved)}
        self.pushed = set()
        forward = self.forward_block(primal)
        adjoint = self._resolve_restores(self._read_saved_shapes(adjoint))

        new_body = []
        if self.pushed:
            new_body.append(assign(self.tape, call("Tape")))
            new_body += [assign(v, gast.Constant(value=None, kind=None)) for v in self.plan.declarations()]
        new_body += forward
        if self.mode == "value_and_grad" and isinstance(self.output, gast.Name):
            # The adjoint sweep restores overwritten variables, the output's too: keep its value now.
            self.value_name = self.namer.unique("value")
            new_body.append(assign(self.value_name, name(self.output.id)))
        if self.has_aux and isinstance(self.aux, gast.Name):
            kept = self.namer.unique("aux")
            new_body.append(assign(kept, name(self.aux.id)))
            self.aux = name(kept)
        new_body += [assign(shape, call("jnp.shape", name(v))) for v, shape in self.shape_names.items()]
        new_body += self._adjoint_inits()
        new_body += adjoint
        new_body.append(self._return())
        args = copy.deepcopy(self.function.args)
        if self.mode == "vjp":
            args.args.insert(0, gast.Name(id=self.seed_name, ctx=gast.Param(), annotation=None, type_comment=None))
        fn = gast.FunctionDef(name=self.name, args=args, body=new_body, decorator_list=[], returns=None,
                              type_comment=None, type_params=[])
        return copy_location(fn, self.function)

    def _outputs(self, ret):
        value = ret.value
        if self.has_aux:
            if not (isinstance(value, gast.Tuple) and len(value.elts) == 2):
                raise self.context.error("with has_aux=True the function must return a pair (output, aux)", ret,
                                         hint="return output, aux")
            return value.elts[0], value.elts[1]
        if isinstance(value, gast.Tuple) and self.mode == "vjp":
            # A tuple output: its cotangent is a tuple too (a TreeAdjoint), read back item by item.
            packed = self.namer.unique("out")
            self.function.body.insert(len(self.function.body) - 1, copy_location(assign(packed, value), ret))
            return name(packed), None
        if isinstance(value, gast.Tuple):
            raise self.context.error(
                "the function returns a tuple; grad and vjp need a single array output here", ret,
                hint="return one array, or pass has_aux=True to return (output, aux).")
        return value, None

    # ----------------------------------------------------------- adjoint sweep
    def adjoint(self, variable):
        return self.namer.adjoint(variable)

    def is_active(self, node):
        return self.activity.is_active(node)

    def reverse_block(self, stmts):
        out = []
        for stmt in reversed(stmts):
            out.extend(self.reverse_statement(stmt))
        return out

    def reverse_statement(self, stmt):
        if isinstance(stmt, gast.Assign):
            return self.reverse_assign(stmt)
        if isinstance(stmt, gast.If):
            body, orelse = self.reverse_block(stmt.body), self.reverse_block(stmt.orelse)
            if not body and not orelse:
                return []
            return [copy_location(gast.If(test=copy.deepcopy(stmt.test), body=body or [gast.Pass()], orelse=orelse),
                                  stmt)]
        if isinstance(stmt, gast.For):
            return self.reverse_for(stmt)
        if isinstance(stmt, gast.While):
            return self.reverse_while(stmt)
        if isinstance(stmt, gast.Expr) and _is_append(stmt.value):
            return self.reverse_append(stmt)
        if isinstance(stmt, gast.Expr) and _call_name(stmt.value) == "push":
            return self.reverse_push(stmt)
        return []

    def reverse_push(self, stmt):
        """`push(t, v)` hands v to a later pop, so v's adjoint comes back from the adjoint tape."""
        tape, value = stmt.value.args
        if not (self.is_active(value) and self.is_active(tape)):
            return []
        return [copy_location(augassign(self.adjoint(value.id), call("pop", name(self.adjoint(tape.id)))), stmt)]


    def _restore_marker(self, stmt):
        key = next(_ids)
        self.restores[key] = stmt
        return gast.Expr(value=call("__restore__", gast.Constant(value=key, kind=None)))

    def reverse_assign(self, stmt):
        target = stmt.targets[0].id
        app = classify(getattr(stmt, "custom_call", stmt.value), self.context.resolver)
        if getattr(stmt, "is_custom_forward", False) or target not in self.activity.active:
            return [self._restore_marker(stmt)]
        if not app.differentiable:      # e.g. `s = 0.0` in a loop: the old s no longer matters
            return [self._restore_marker(stmt), copy_location(self._reset(target), stmt)]
        out = self._comment(stmt)
        if _call_name(stmt.value) == "pop":
            # v = pop(t): the adjoint of v goes back, on the adjoint tape, to the push that saved v.
            tape = stmt.value.args[0]
            out += [gast.Expr(value=call("push", name(self.adjoint(tape.id)), name(self.adjoint(target)))),
                    self._restore_marker(stmt), self._reset(target)]
            return [copy_location(s, stmt) for s in out]
        contributions, prelude = self.contributions(stmt, target, app)
        self._check_every_path_has_a_rule(stmt, app, contributions)
        # A call's derivative reads its arguments: when the call overwrote one of them, restore it first.
        reads_operands = app.kind in ("function", "custom_vjp")
        badj = self.adjoint(target)
        own = [e for n, e in contributions if n == target]
        others = [(n, e) for n, e in contributions if n != target]
        if target in app.operand_names():
            if not reads_operands:
                out += prelude
            out.append(self._restore_marker(stmt))
            if reads_operands:
                out += prelude
            out += [augassign(self.adjoint(n), e) for n, e in others]
            out.append(assign(badj, _sum(own)) if own else self._reset(target))
        else:
            out += prelude
            out += [augassign(self.adjoint(n), e) for n, e in others]
            out.append(self._restore_marker(stmt))
            out.append(self._reset(target))
        return [copy_location(s, stmt) for s in out]

    def _check_every_path_has_a_rule(self, stmt, app, contributions):
        """An active operand that receives no adjoint would be a silent zero: refuse instead."""
        given = {n for n, _ in contributions}
        for _, node in app.operand_nodes():
            if self.is_active(node) or node is None:
                continue
            dropped = sorted({n.id for n in gast.walk(node) if isinstance(n, gast.Name) and self.is_active(n)} - given)
            if dropped:
                raise self.context.error(
                    f"astjax cannot differentiate through this expression: `{dropped[0]}` reaches it inside "
                    f"a {type(node).__name__.lower()} that this call does not take apart", stmt,
                    hint=f"assign the {type(node).__name__.lower()} to a variable first, or pass its items as "
                         f"separate arguments.")

    def _reset(self, variable):
        """The adjoint of a variable's previous value starts again from zero."""
        return assign(self.adjoint(variable), self._zero(variable))

    def _zero(self, variable):
        """`0.0`, or `zero_like(v)` where a rule would index or reshape v's adjoint (a bare 0.0 cannot be)."""
        if self._needs_shaped_zero(variable):
            return call("zero_like", name(variable))
        return gast.Constant(value=_ZERO, kind=None)

    def _needs_shaped_zero(self, variable):
        if variable not in self._shaped:
            needs = False
            for stmt in self.plan.assignments(variable):
                app = classify(getattr(stmt, "custom_call", stmt.value), self.context.resolver)
                if app.kind in ("function", "custom_vjp", "tuple"):
                    needs = True
                elif app.kind == "primitive" and not app.primitive.zero_safe:
                    needs = True
            self._shaped[variable] = needs
        return self._shaped[variable]

    def contributions(self, stmt, target, app):
        """[(operand variable, adjoint contribution)] for one active statement, and statements to run first."""
        badj = name(self.adjoint(target))
        prelude = []
        if app.kind == "copy":
            return [(app.node.id, badj)], prelude
        if app.kind == "primitive":
            return self._primitive_contributions(stmt, target, app, badj, prelude), prelude
        if app.kind == "function":
            return self._callee_contributions(stmt, app, badj, prelude), prelude
        if app.kind == "custom_vjp":
            return self._custom_vjp_contributions(stmt, app, badj, prelude), prelude
        if app.kind == "custom_jvp":
            raise self.context.error(
                f"`{app.callee.__name__}` has a custom_jvp rule, which astjax uses in forward mode only", stmt,
                hint="give it a reverse-mode rule with @astjax.custom_vjp (defvjp(fwd, bwd)), or use jvp/jacfwd.")
        if app.kind == "tuple" and isinstance(stmt.value, gast.List) and not stmt.value.elts:
            return [], prelude      # `xs = []`: nothing flows back through an empty list
        if app.kind == "tuple":       # t = (a, b): each item's adjoint is read back from t's
            return [(e.id, call("item_adjoint", badj, gast.Constant(value=i, kind=None)))
                    for i, e in enumerate(stmt.value.elts) if self.is_active(e)], prelude
        what = getattr(app.callee, "__qualname__", None) or getattr(app.callee, "__name__", None)
        text = f"`{what}`" if what else "this expression"
        raise self.context.error(
            f"astjax has no derivative rule for {text}", stmt,
            hint="use an astjax.numpy function, write it in Python from primitives that have rules, "
                 "or give it a rule with @astjax.custom_vjp.")

    def _primitive_contributions(self, stmt, target, app, badj, prelude):
        prim = app.primitive
        problem = prim.static_check(app.bound) if prim.static_check else None
        if problem:
            message, hint = problem
            raise self.context.error(message, stmt, hint=hint)
        bindings = dict(app.bound)
        if "idx" in bindings and prim.name == "getitem":
            bindings["idx"] = index_expression(bindings["idx"])
        bindings["by"] = badj
        bindings["y"] = name(target)
        uses_output = any(_uses(rule, "y") for rule in prim.vjp.values())
        if uses_output and target in app.operand_names():
            keep = self.namer.fresh("_y")
            prelude.append(assign(keep, name(target)))
            bindings["y"] = name(keep)
        out = []
        for operand in prim.operands:
            node = app.bound.get(operand)
            if node is None:
                continue
            if operand == prim.sequence_operand and isinstance(node, (gast.List, gast.Tuple)):
                for k, element in enumerate(node.elts):
                    if self.is_active(element):
                        rule = sequence_rule(prim, "vjp", app, k, self.context, stmt)
                        elements = {f"o{i}": e for i, e in enumerate(node.elts)}
                        out.append((element.id, expand(rule, dict(bindings, k=gast.Constant(value=k, kind=None),
                                                                  item=element, **elements))))
                continue
            if not self.is_active(node):
                continue
            if operand not in prim.vjp:
                raise self.context.error(f"`{prim.name}` has no derivative with respect to its argument `{operand}`",
                                         stmt, hint="treat that argument as a constant (jax.lax.stop_gradient).")
            contribution = expand(prim.vjp[operand], bindings)
            if prim.unbroadcast and not self.shapes.same_shape(node, stmt):
                shape_of = copy.deepcopy(node)
                shape_of.shape_only = True          # read for its shape only: the tape keeps just that
                contribution = call("unbroadcast", contribution, shape_of)
            out.append((node.id, contribution))
        return out

    def _callee_contributions(self, stmt, app, badj, prelude):
        if any(self.is_active(k.value) for k in app.node.keywords):
            raise self.context.error("pass arguments that need derivatives by position to user functions", stmt)
        mask = tuple(self.is_active(a) for a in app.args)
        if not any(mask):
            return []
        vjp_name = self.callee_vjp(app.callee, mask, stmt)
        result = gast.Call(func=name(vjp_name), args=[badj] + [copy.deepcopy(a) for a in app.args],
                           keywords=copy.deepcopy(app.node.keywords))
        active = [a for a, m in zip(app.args, mask) if m]
        if len(active) == 1:
            return [(active[0].id, result)]
        parts = self.namer.fresh("_b")
        prelude.append(assign(parts, result))
        return [(a.id, gast.Subscript(value=name(parts), slice=gast.Constant(value=i, kind=None), ctx=gast.Load()))
                for i, a in enumerate(active)]

    def _custom_vjp_contributions(self, stmt, app, badj, prelude):
        """`y = f(x)` for a custom_vjp f: the primal sweep called `fwd`; here `bwd` gives the cotangents."""
        custom = app.callee
        if custom.bwd is None:
            raise self.context.error(f"custom_vjp function `{custom.__name__}` has no rules yet", stmt,
                                     hint=f"call {custom.__name__}.defvjp(fwd, bwd) before differentiating it.")
        residuals = stmt.residuals
        bwd = self.bind_name(custom.bwd, f"{custom.__name__}_bwd")
        parts = self.namer.fresh("_b")
        prelude.append(assign(parts, call(bwd, gast.Subscript(value=name(residuals), slice=gast.Constant(value=1, kind=None),
                                                               ctx=gast.Load()), badj)))
        return [(a.id, gast.Subscript(value=name(parts), slice=gast.Constant(value=i, kind=None), ctx=gast.Load()))
                for i, a in enumerate(app.args) if self.is_active(a)]

    def _split_custom_vjp_calls(self, stmts):
        """`y = f(x)` for a custom_vjp f becomes `_r1 = f_fwd(x); y = _r1[0]`: the residuals stay for bwd."""
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    setattr(stmt, field, self._split_custom_vjp_calls(inner))
            if isinstance(stmt, gast.Assign):
                app = classify(stmt.value, self.context.resolver)
                if app.kind == "custom_vjp" and app.callee.fwd is not None:
                    residuals = self.namer.fresh("_r")
                    fwd = self.bind_name(app.callee.fwd, f"{app.callee.__name__}_fwd")
                    first = copy_location(assign(residuals, gast.Call(func=name(fwd), args=copy.deepcopy(app.args),
                                                                      keywords=copy.deepcopy(stmt.value.keywords))), stmt)
                    first.is_custom_forward = True
                    output = copy_location(assign(stmt.targets[0].id, gast.Subscript(
                        value=name(residuals), slice=gast.Constant(value=0, kind=None), ctx=gast.Load())), stmt)
                    output.custom_call = stmt.value        # the adjoint sweep differentiates this call
                    output.residuals = residuals
                    out += [first, output]
                    continue
            out.append(stmt)
        return out

    def reverse_append(self, stmt):
        """`xs.append(v)`: take v back off the list and give v the adjoint of its position."""
        items = stmt.value.func.value
        if not self.is_active(items):
            return []
        out = self._comment(stmt)
        out.append(gast.Expr(value=gast.Call(func=gast.Attribute(value=name(items.id), attr="pop", ctx=gast.Load()),
                                             args=[], keywords=[])))
        value = stmt.value.args[0]
        if self.is_active(value):
            out.append(augassign(self.adjoint(value.id), call("item_adjoint", name(self.adjoint(items.id)),
                                                            call("len", name(items.id)))))
        return [copy_location(s, stmt) for s in out]

    def reverse_for(self, stmt):
        """Run the loop's iterations backwards: the same range reversed, cut to the count if it may break."""
        body = self.reverse_block(stmt.body)
        if not body:
            return []
        backwards = _call_name(stmt.iter) == "reversed"
        visited = copy.deepcopy(stmt.iter.args[0] if backwards else stmt.iter)
        count = self.counters.get(id(stmt))
        if count is None:
            iterator = visited if backwards else call("reversed", visited)
        elif backwards:     # it visited the last `count` positions of the range: run them forwards
            start = gast.BinOp(left=call("len", copy.deepcopy(visited)), op=gast.Sub(), right=name(count))
            iterator = gast.Subscript(value=visited, slice=gast.Slice(lower=start, upper=None, step=None),
                                      ctx=gast.Load())
        else:               # it visited the first `count` positions
            iterator = call("reversed", gast.Subscript(value=visited, slice=gast.Slice(
                lower=None, upper=name(count), step=None), ctx=gast.Load()))
        loop = gast.For(target=copy.deepcopy(stmt.target), iter=iterator, body=body, orelse=[], type_comment=None)
        return [copy_location(loop, stmt)]

    def reverse_while(self, stmt):
        body = self.reverse_block(stmt.body)
        if not body:
            return []
        count = self.counters[id(stmt)]
        loop = gast.For(target=gast.Name(id=self.namer.fresh("_k"), ctx=gast.Store(), annotation=None, type_comment=None),
                        iter=call("range", name(count)), body=body, orelse=[], type_comment=None)
        return [copy_location(loop, stmt)]

    def _count_iterations(self, stmts):
        """Count the iterations of every loop whose length the reverse sweep cannot recompute.

        A `while` loop, or a `for` loop that may break, gets `_n = 0` before it and
        `_n = _n + 1` at the top of its body. The counter is an ordinary variable of
        the primal sweep, so the tape keeps it when an enclosing loop overwrites it.
        """
        out = []
        for stmt in stmts:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, self._count_iterations(inner))
            if isinstance(stmt, gast.While) or (isinstance(stmt, gast.For) and _breaks(stmt.body)):
                count = self.namer.fresh("_n")
                self.counters[id(stmt)] = count
                out.append(copy_location(assign(count, gast.Constant(value=0, kind=None)), stmt))
                stmt.body.insert(0, copy_location(assign(count, gast.BinOp(
                    left=name(count), op=gast.Add(), right=gast.Constant(value=1, kind=None))), stmt))
            out.append(stmt)
        return out

    # ------------------------------------------------------------- the tape
    def forward_block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Assign):
                variable = stmt.targets[0].id
                if self.plan.pushes_before(stmt):
                    saved = name(variable)
                    if variable in self.plan.shape_saved:
                        saved = call("jnp.shape", saved)
                    out.append(copy_location(gast.Expr(value=call("push", name(self.tape), saved)), stmt))
                    self.pushed.add(id(stmt))
                out.append(stmt)
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.forward_block(stmt.body)
                out.append(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body = self.forward_block(stmt.body) or [gast.Pass()]
                stmt.orelse = self.forward_block(stmt.orelse)
                out.append(stmt)
            else:
                out.append(stmt)
        return out

    def _restored_by(self, stmt):
        """The variable a restore marker restores, else None."""
        if is_marker(stmt, "__restore__"):
            return self.restores[stmt.value.args[0].value].targets[0].id
        return None

    def _read_saved_shapes(self, stmts):
        """Read the saved shape of a variable whose shape alone is saved.

        `unbroadcast(g, x)` -> `unbroadcast_to(g, x_shape)`, and
        `bx = zero_like(x)` -> `bx = zeros_shaped(x_shape, bx)` (bx gives the dtype).
        """
        shapes = self.shape_names
        adjoint = self.adjoint

        class ReadShapes(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if not isinstance(node.func, gast.Name):
                    return node
                if (node.func.id == "unbroadcast" and len(node.args) == 2
                        and getattr(node.args[1], "shape_only", False) and node.args[1].id in shapes):
                    return call("unbroadcast_to", node.args[0], name(shapes[node.args[1].id]))
                if node.func.id == "zero_like" and isinstance(node.args[0], gast.Name) and node.args[0].id in shapes:
                    variable = node.args[0].id
                    return call("zeros_shaped", name(shapes[variable]), name(adjoint(variable)))
                return node
        return [ReadShapes().visit(s) for s in stmts]

    def _resolve_restores(self, stmts):
        out = []
        for stmt in stmts:
            if is_marker(stmt, "__restore__"):
                original = self.restores[stmt.value.args[0].value]
                if id(original) in self.pushed:
                    variable = original.targets[0].id
                    target = self.shape_names.get(variable, variable)
                    out.append(copy_location(assign(target, call("pop", name(self.tape))), original))
                continue
            for field in ("body", "orelse"):
                if hasattr(stmt, field) and isinstance(getattr(stmt, field), list):
                    setattr(stmt, field, self._resolve_restores(getattr(stmt, field)))
            if isinstance(stmt, (gast.If,)) and not stmt.body:
                stmt.body = [gast.Pass()]
            if isinstance(stmt, gast.For) and not stmt.body:
                stmt.body = [gast.Pass()]
            out.append(stmt)
        return out

    # ------------------------------------------------------- start and end
    def _adjoint_inits(self):
        out = []
        output = self.output.id if isinstance(self.output, gast.Name) else None
        for variable in sorted(self.activity.active):
            if variable == output and variable not in self.params:
                continue
            if variable in self.tape_variables:
                zero = call("Tape")
            elif self._needs_shaped_zero(variable) and (
                    variable in self.params or self.plan.defined_at_top_level(variable)):
                zero = call("zero_like", name(variable))
            else:      # defined only inside a branch or a loop: it may have no value to shape a zero
                zero = gast.Constant(value=_ZERO, kind=None)
            out.append(assign(self.adjoint(variable), zero))
        if output is not None and output in self.activity.active:
            if self.mode == "vjp":
                self.seed_name = self.adjoint(output) if output not in self.params else self.namer.fresh("ct")
                if self.seed_name != self.adjoint(output):
                    out.append(assign(self.adjoint(output), name(self.seed_name)))
            else:
                out.append(assign(self.adjoint(output), gast.Constant(value=1.0, kind=None)))
        elif self.mode == "vjp":
            self.seed_name = self.namer.fresh("ct")
        return out

    def _return(self):
        grads = [name(self.adjoint(p)) if p in self.activity.active else gast.Constant(value=_ZERO, kind=None)
                 for p in self.wrt]
        grad = grads[0] if len(grads) == 1 else gast.Tuple(elts=grads, ctx=gast.Load())
        value = name(self.value_name) if getattr(self, "value_name", None) else copy.deepcopy(self.output)
        if self.has_aux:
            aux = copy.deepcopy(self.aux)
            if self.mode == "value_and_grad":
                value = gast.Tuple(elts=[value, aux], ctx=gast.Load())
            else:
                grad = gast.Tuple(elts=[grad, aux], ctx=gast.Load())
        if self.mode == "value_and_grad":
            return gast.Return(value=gast.Tuple(elts=[value, grad], ctx=gast.Load()))
        return gast.Return(value=grad)


def sequence_rule(prim, mode, app, k, context, stmt):
    """The rule for element k of a list operand: the primitive's own, or one built from a static argument."""
    builders = getattr(prim, "sequence_rule_builders", None)
    if builders is None:
        return getattr(prim, "sequence_vjp", None)
    static = app.bound.get(builders["static"])
    count = len(app.bound[prim.sequence_operand].elts)
    text = builders[mode](static.value, k, count) if isinstance(static, gast.Constant) else None
    if text is None:
        message, hint = builders["unsupported"]
        raise context.error(message, stmt, hint=hint)
    from ..rules.registry import parse_expression
    return parse_expression(text)


def _sum(terms):
    total = terms[0]
    for term in terms[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=term)
    return total


def _uses(template, identifier):
    return any(isinstance(n, gast.Name) and n.id == identifier for n in gast.walk(template))


def _call_name(value):
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id
    return None


def _is_append(value):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "append")


def _breaks(block):
    """Whether `block` breaks out of its own loop (not counting nested loops)."""
    for stmt in block:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (_breaks(stmt.body) or _breaks(stmt.orelse)):
            return True
    return False
