"""The adjoint sweep: each primal statement, taken in reverse order, becomes its adjoint.

For `y = f(x)` the rule of f is expanded (`bx += by * jnp.cos(x)`); a call of the
user's own function calls its generated `vjp_<name>`; a tuple's adjoint is read
back item by item. Branches are reversed inside the same branch and loops by
loops.py. Where the primal overwrote a value a later rule reads, the sweep leaves
a restore marker that tape_writer.py turns into a pop.
"""
import copy
import itertools

import gast

from ...analyses.classify import classify
from ...codegen.templates import (LineComments, assign, augassign, call, comment, expand, index_expression, is_marker,
                                  name)
from ...frontend.normalize.base import copy_location
from ..dtype_guard import dtype_guarded
from ..sequence_rules import sequence_rule
from .loops import reverse_for, reverse_while
from ...codegen.node_walk import walk

__all__ = ["AdjointSweep"]

_ZERO = 0.0
_ids = itertools.count()


class AdjointSweep:
    """Build the adjoint statements of one normalized function.

    callee_vjp(fn, mask, node) -> name of the generated vjp of a called user function.
    bind_name(obj, base) -> a name generated code can call `obj` by.
    counters: id(loop) -> the name counting its iterations (loops.count_iterations).
    """

    def __init__(self, context, activity, shapes, plan, counters, callee_vjp, bind_name):
        self.context = context
        self.namer = context.namer
        self.activity = activity
        self.shapes = shapes
        self.plan = plan
        self.counters = counters
        self.callee_vjp = callee_vjp
        self.bind_name = bind_name
        self.restores = {}      # marker id -> statement it restores
        self._shaped = {}       # variable -> whether its zero adjoint must have its shape
        self._after = []        # per block being reversed: the statements after the one being reversed
        self.outputs = set()    # the output variables: their adjoints are the seed (the driver sets them)
        self._comment = LineComments(context.source)

    def adjoint(self, variable):
        return self.namer.adjoint(variable)

    def is_active(self, node):
        return self.activity.is_active(node)

    def reverse_block(self, stmts):
        out = []
        for k in range(len(stmts) - 1, -1, -1):
            self._after.append(stmts[k + 1:])
            out.extend(self.reverse_statement(stmts[k]))
            self._after.pop()
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
        if isinstance(stmt, (gast.For, gast.While)):
            self._after.append(None)     # a loop body's values are read after the loop only on its last pass
            try:
                return reverse_for(self, stmt) if isinstance(stmt, gast.For) else reverse_while(self, stmt)
            finally:
                self._after.pop()
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

    def restored_by(self, stmt):
        """The variable a restore marker restores, else None."""
        if is_marker(stmt, "__restore__"):
            return self.restores[stmt.value.args[0].value].targets[0].id
        return None

    def reverse_assign(self, stmt):
        target = stmt.targets[0].id
        app = classify(getattr(stmt, "custom_call", stmt.value), self.context.resolver)
        if getattr(stmt, "is_custom_forward", False) or target not in self.activity.active:
            return [self._restore_marker(stmt)]
        if not app.differentiable:      # e.g. `s = 0.0` in a loop: the old s no longer matters
            return [self._restore_marker(stmt), copy_location(self._reset(target), stmt)]
        out = self._comment(stmt)
        if app.kind == "primitive" and app.primitive.identity:
            out.append(comment(app.primitive.identity))     # `# d inv(A) = -inv(A) dA inv(A)`
        if _call_name(stmt.value) == "pop":
            # v = pop(t): the adjoint of v goes back, on the adjoint tape, to the push that saved v.
            tape = stmt.value.args[0]
            out += [gast.Expr(value=call("push", name(self.adjoint(tape.id)), name(self.adjoint(target)))),
                    self._restore_marker(stmt), self._reset(target)]
            return [copy_location(s, stmt) for s in out]
        if self.starts_bare(target) and _reads_a_shaped_adjoint(app) and not self._surely_reached(target):
            # nothing may have reached target's adjoint on this path (it started as a bare 0.0): shape it
            # before a rule that indexes, reshapes or moves axes of it (`bxm = unbroadcast(bxm, xm)`)
            shaped = name(target)
            shaped.shape_only = True
            out.append(assign(self.adjoint(target), call("unbroadcast", name(self.adjoint(target)), shaped)))
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
            dropped = sorted({n.id for n in walk(node) if isinstance(n, gast.Name) and self.is_active(n)} - given)
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
        if self.needs_shaped_zero(variable):
            return call("zero_like", name(variable))
        return gast.Constant(value=_ZERO, kind=None)

    def starts_bare(self, variable):
        """Whether the sweep starts `variable`'s adjoint as a bare 0.0 though a rule needs it shaped: the
        variable is defined only inside a branch or a loop, where there may be no value to shape a zero by
        when the adjoints are initialized."""
        return (self.needs_shaped_zero(variable) and variable not in self.plan.params
                and not self.plan.defined_at_top_level(variable))

    def _surely_reached(self, variable):
        """Whether variable's adjoint is surely shaped where its definition is reversed: it is an output (its
        adjoint is the seed), or the statements after it in its block, then after the branch holding that
        block and so on out to the innermost loop, surely reach it (`_reached`)."""
        if variable in self.outputs:
            return True
        for after in reversed(self._after):
            if after is None:
                return False
            found = self._reached(variable, after)
            if found is not None:
                return found
        return False

    def _reached(self, variable, after):
        """Whether a statement of `after` (the rest of variable's block, reversed before its definition)
        surely adds a shaped adjoint to variable's: an active assignment reading it whose rule reads a shaped
        adjoint, or whose own target is an output or surely reached in turn (True); False where the variable
        is assigned again first; None where neither (branches and loops in `after` may not run)."""
        for k, stmt in enumerate(after):
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                target = stmt.targets[0].id
                app = classify(getattr(stmt, "custom_call", stmt.value), self.context.resolver)
                if (target in self.activity.active and app.differentiable and variable in app.operand_names()
                        and (_reads_a_shaped_adjoint(app) or target in self.outputs
                             or self._reached(target, after[k + 1:]))):
                    return True
                if target == variable:
                    return False
            elif any(isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Store)
                     for n in walk(stmt)):
                return False
        return None         # not decided in this block: the statements after its branch may reach it

    def needs_shaped_zero(self, variable):
        if variable not in self._shaped:
            needs = False
            for stmt in self.plan.assignments(variable):
                app = classify(getattr(stmt, "custom_call", stmt.value), self.context.resolver)
                if app.kind in ("function", "custom_vjp", "tuple", "dict"):
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
            return self._custom_jvp_contributions(stmt, app, badj, prelude), prelude
        if app.kind == "tuple" and isinstance(stmt.value, gast.List) and not stmt.value.elts:
            return [], prelude      # `xs = []`: nothing flows back through an empty list
        if app.kind == "tuple":       # t = (a, b): each item's adjoint is read back from t's
            return [(e.id, call("item_adjoint", badj, gast.Constant(value=i, kind=None)))
                    for i, e in enumerate(stmt.value.elts) if self.is_active(e)], prelude
        if app.kind == "dict":        # d = {"k": a}: each value's adjoint is read back from d's, by key
            return [(v.id, call("item_adjoint", badj, copy.deepcopy(k)))
                    for k, v in zip(stmt.value.keys, stmt.value.values) if self.is_active(v)], prelude
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
        for param in prim.index_params:
            if param in bindings:
                bindings[param] = index_expression(bindings[param])
        bindings["by"] = dtype_guarded(badj, app)
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
            joins = prim.unbroadcast and _may_join_sequences(stmt, self.shapes)
            if prim.unbroadcast and (joins or not self.shapes.same_shape(node, stmt)):
                shape_of = copy.deepcopy(node)
                # read for its shape only: the tape keeps just that; but a list's shape is an array's, and
                # unbroadcast must see the list to refuse one that `+` joined
                shape_of.shape_only = not joins
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
        self._refuse_active_nondiff(stmt, app, custom)
        residuals = stmt.residuals
        bwd = self.bind_name(custom.bwd, f"{custom.__name__}_bwd")
        parts = self.namer.fresh("_b")
        output = gast.Subscript(value=name(residuals), slice=gast.Constant(value=0, kind=None), ctx=gast.Load())
        prelude.append(assign(parts, call(bwd, gast.Subscript(value=name(residuals), slice=gast.Constant(value=1, kind=None),
                                                               ctx=gast.Load()), call("cotangent_like", badj, output))))
        # Each cotangent the user's bwd returned, shaped like its argument: None (JAX's zero) as zeros, a plain
        # dict, list or tuple with its missing items as zeros.
        return [(a.id, call("cotangent_like", gast.Subscript(value=name(parts), slice=gast.Constant(value=i, kind=None),
                                                             ctx=gast.Load()), name(a.id)))
                for i, a in enumerate(app.args) if self.is_active(a)]

    def _refuse_active_nondiff(self, stmt, app, custom):
        """A value carrying the derivative, passed at one of `custom`'s nondiff_argnums: JAX raises there
        (UnexpectedTracerError); astjax refuses rather than drop that value's derivative."""
        for i in getattr(custom, "nondiff_argnums", ()):
            if i < len(app.args) and any(self.is_active(n) for n in walk(app.args[i])):
                raise self.context.error(
                    f"argument {i} of `{custom.__name__}` is in its nondiff_argnums but depends on the "
                    "differentiated input, so its derivative would be dropped", stmt,
                    hint="pass a value that does not depend on the input there, or make that argument "
                         "differentiable (remove it from nondiff_argnums and return its cotangent)")

    def _custom_jvp_contributions(self, stmt, app, badj, prelude):
        """`y = f(x)` for a custom_jvp f: the cotangents are the transpose of its jvp rule at x
        (rules/custom_jvp_transpose.py), as in JAX."""
        custom = app.callee
        self._refuse_active_nondiff(stmt, app, custom)
        if custom.jvp is None or stmt.value.keywords or not all(
                isinstance(a, gast.Name) or not any(self.is_active(n) for n in walk(a)) for a in app.args):
            raise self.context.error(
                f"custom_jvp function `{custom.__name__}` is differentiated in reverse mode only when it has its "
                "rule (defjvp) and is called with names as positional arguments", stmt,
                hint="call defjvp before differentiating it, and pass its arguments by position.")
        from ...rules.custom_jvp_transpose import custom_jvp_transpose
        transpose = self.bind_name(custom_jvp_transpose, "custom_jvp_transpose")
        parts = self.namer.fresh("_b")
        primals = gast.Tuple(elts=[copy.deepcopy(a) for a in app.args], ctx=gast.Load())
        prelude.append(assign(parts, call(transpose, name(self.bind_name(custom, custom.__name__)), badj, primals)))
        return [(a.id, gast.Subscript(value=name(parts), slice=gast.Constant(value=i, kind=None), ctx=gast.Load()))
                for i, a in enumerate(app.args) if self.is_active(a)]

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


def _reads_a_shaped_adjoint(app):
    """Whether the rules of this statement need its result's adjoint shaped (a bare 0.0 cannot be moved,
    reshaped or handed to a generated vjp): a primitive that is not zero-safe, a user or custom_vjp function."""
    return app.kind in ("function", "custom_vjp") or app.kind == "primitive" and not app.primitive.zero_safe


def _sum(terms):
    total = terms[0]
    for term in terms[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=term)
    return total


def _uses(template, identifier):
    return any(isinstance(n, gast.Name) and n.id == identifier for n in walk(template))


def _call_name(value):
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id
    return None


def _is_append(value):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "append")


def _may_join_sequences(stmt, shapes):
    """Whether `y = a + b` may join two lists or tuples, whose types the shape classes do not see: a `+`
    neither operand of which is surely a number or an array (analyses/shapes.py: `numeric`), as in `a + a`
    or a running `total + item` of a reduce. Its adjoints keep their `unbroadcast`, with the operand itself
    (not its shape), which refuses a list's adjoint of another length when it runs; left out (operands of
    one shape class), each list got the whole joined list's adjoint (a silently wrong gradient)."""
    from ...analyses.shapes import SCALAR
    value = stmt.value
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)):
        return False
    return all(SCALAR not in shapes.of(operand) and not (isinstance(operand, gast.Name) and operand.id in shapes.numeric)
               for operand in (value.left, value.right))

