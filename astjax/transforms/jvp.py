"""Forward mode: each statement is followed by its tangent, `dy = dx * jnp.cos(x)`.

Tangents ride along with the values through the same control flow, so
branches, loops and recursion need nothing special: the tangent of a loop is
the loop with tangent statements inside. A statement that overwrites one of
its own operands (`y = y * x`) gets its tangent just before it, while the old
value is still there. Calls to the user's functions call their own generated
`jvp_<name>`, which returns the value and its tangent together.
"""
import copy

import gast

from ..analyses.activity import Activity
from ..analyses.classify import check_refusals, classify
from ..analyses.shapes import ShapeClasses
from ..codegen.templates import LineComments, assign, call, expand, index_expression, name
from ..frontend.normalize.base import copy_location
from ..frontend.parse import defaults_after
from .dtype_guard import dtype_guarded
from .primal_calls import redirect_user_calls
from ..codegen.node_walk import walk

__all__ = ["ForwardMode"]


class ForwardMode:
    """Differentiate one normalized function in forward mode with respect to the parameters `wrt`.

    The generated function takes the original parameters, then one tangent per
    parameter in `wrt`, and returns `(output, output_tangent)`.
    callee_jvp(fn, mask, node) -> name of the generated jvp of a called user function.
    callee_primal(fn, mask, node) -> name of its normalized version, called where no tangent goes in
    (primal_calls.py).
    """

    def __init__(self, context, function_node, wrt, callee_jvp=None, name=None, bind_name=None, callee_primal=None):
        self.context = context
        self.namer = context.namer
        self.function = function_node
        self.params = [a.id for a in function_node.args.args]
        self.wrt = list(wrt)
        self.callee_jvp = callee_jvp
        self.callee_primal = callee_primal
        self.bind_name = bind_name
        self.name = name or f"jvp_{function_node.name.strip('_') or 'f'}"
        self._comment = LineComments(context.source)

    def tangent(self, variable):
        return self.namer.tangent(variable)

    def transform(self):
        body = self.function.body
        ret = body[-1]
        # Forward activity only: everything that depends on the inputs gets a tangent.
        everything = {n.id for n in walk(self.function) if isinstance(n, gast.Name)}
        self.activity = Activity(self.function, self.context.resolver, self.wrt, everything)
        self.varied = self.activity.varied
        # names bound to a dict or tuple display or a namedtuple: their zero tangent is built leaf by leaf
        self.containers = {t.id for n in walk(self.function) if isinstance(n, gast.Assign) and (
            isinstance(n.value, (gast.Dict, gast.Tuple)) or _call_name(n.value) in _RECORDS)
            for t in n.targets if isinstance(t, gast.Name)}
        check_refusals(self.function, self.context.resolver, self.activity, self.context, forward=True)
        self.shapes = ShapeClasses(self.function, self.context.resolver)
        new_body = self._zero_tangents_of_parameters_varied_later() + self.block(body[:-1])
        new_body.append(self._return(ret))
        if self.callee_primal is not None:
            redirect_user_calls(new_body, self.context, self.callee_primal)    # helpers no tangent goes into
        args = copy.deepcopy(self.function.args)
        args.defaults = []      # tangents follow the primals: callers pass every primal (defaults_after)
        args.args += [gast.Name(id=self.tangent(p), ctx=gast.Param(), annotation=None, type_comment=None)
                      for p in self.wrt]
        fn = gast.FunctionDef(name=self.name, args=args, body=new_body, decorator_list=[], returns=None,
                              type_comment=None, type_params=[])
        return copy_location(fn, self.function)

    def _zero_tangents_of_parameters_varied_later(self):
        """`dg = zero_tangent(g)` for a parameter that comes in without a tangent but is assigned a varied
        value somewhere (`g = A @ g` in one branch): a statement reading it before that finds zeros."""
        late = [p for p in self.params if p not in self.wrt and p in self.varied]
        return [copy_location(assign(self.tangent(p), call("zero_tangent", name(p))), self.function) for p in late]

    def _return(self, ret):
        value = ret.value
        outputs = value.elts if isinstance(value, gast.Tuple) else [value]
        tangents = [self._tangent_of(o) for o in outputs]
        tangent = tangents[0] if not isinstance(value, gast.Tuple) else gast.Tuple(elts=tangents, ctx=gast.Load())
        return copy_location(gast.Return(value=gast.Tuple(elts=[copy.deepcopy(value), tangent], ctx=gast.Load())), ret)

    def _tangent_of(self, node):
        if isinstance(node, (gast.Tuple, gast.List)):     # `return ((y, z), (dy, dz))`: item by item
            return type(node)(elts=[self._tangent_of(e) for e in node.elts], ctx=gast.Load())
        if isinstance(node, gast.Name) and node.id in self.varied:
            return name(self.tangent(node.id))
        if not self.wrt or (isinstance(node, gast.Name) and node.id in self.containers):
            # Nothing differentiated (the primal output alone, forward.primal_output), or an output the input does
            # not reach held by a name bound to a dict, tuple or record: zero_tangent follows its structure
            # (zeros_like reads it as one array).
            return call("zero_tangent", copy.deepcopy(node))
        return call("jnp.zeros_like", copy.deepcopy(node))

    # ------------------------------------------------------------ statements
    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        if isinstance(stmt, gast.Assign):
            return self.assignment(stmt)
        if isinstance(stmt, gast.Expr) and _call_name(stmt.value) == "push":
            # A tape with a tangent tape beside it gets one tangent per push, so that every pop
            # takes back the tangent of the value it takes back (zero for a constant or a shape).
            tape, value = stmt.value.args
            if self._is_varied(tape):
                return [stmt, copy_location(gast.Expr(value=call("push", name(self.tangent(tape.id)),
                                                                  self._pushed_tangent(value))), stmt)]
            return [stmt]
        if isinstance(stmt, gast.If):
            stmt.body = self.block(stmt.body) or [gast.Pass()]
            stmt.orelse = self.block(stmt.orelse)
            return [stmt]
        if isinstance(stmt, (gast.For, gast.While)):
            stmt.body = self.block(stmt.body) or [gast.Pass()]
            return [stmt]
        if isinstance(stmt, gast.Expr) and _call_name(stmt.value) == "pop" and isinstance(stmt.value.func,
                                                                                       gast.Attribute):
            items = stmt.value.func.value      # `xs.pop()`: the tangent list beside xs loses its item too
            if isinstance(items, gast.Name) and items.id in self.varied:
                pop = gast.Call(func=gast.Attribute(value=name(self.tangent(items.id)), attr="pop", ctx=gast.Load()),
                                args=copy.deepcopy(stmt.value.args), keywords=[])
                return [stmt, copy_location(gast.Expr(value=pop), stmt)]
        if isinstance(stmt, gast.Expr) and _call_name(stmt.value) == "append":
            items = stmt.value.func.value
            if isinstance(items, gast.Name) and items.id in self.varied:   # the tangents go on a list beside it
                tangent = self._tangent_expression(stmt.value.args[0])
                append = gast.Call(func=gast.Attribute(value=name(self.tangent(items.id)), attr="append",
                                                       ctx=gast.Load()), args=[tangent], keywords=[])
                return [stmt, copy_location(gast.Expr(value=append), stmt)]
        return [stmt]


    def _pushed_tangent(self, value):
        if self._is_varied(value):
            return name(self.tangent(value.id))
        # A name that is never varied: the tangent its pop takes back is never read (a value restored
        # from the tape, an index tuple holding slices, counts as varied only through its own assignments).
        return gast.Constant(value=0.0, kind=None)

    def assignment(self, stmt):
        target = stmt.targets[0].id
        if _call_name(stmt.value) == "pop" and self._is_varied(stmt.value.args[0]):
            tape = stmt.value.args[0]       # the tangent pushed with the value comes back with it
            return [stmt, copy_location(assign(self.tangent(target), call("pop", name(self.tangent(tape.id)))), stmt)]
        if target not in self.varied:
            return [stmt]
        app = classify(stmt.value, self.context.resolver)
        dtarget = self.tangent(target)
        if app.kind == "function" and any(self._is_varied(a) for a in app.args):
            return self._callee(stmt, target, app)
        if app.kind == "custom_jvp" and any(self._is_varied(a) for a in app.args):
            return self._custom_jvp(stmt, target, app)
        if app.kind == "custom_vjp" and any(self._is_varied(a) for a in app.args):
            raise self.context.error(
                f"`{app.callee.__name__}` has a custom_vjp rule, which astjax uses in reverse mode only", stmt,
                hint="use grad/vjp/jacrev for it, or give it a forward rule with @astjax.custom_jvp.")
        if _call_name(stmt.value) == "Tape":
            return [stmt, copy_location(assign(dtarget, call("Tape")), stmt)]
        terms, output_used = self.terms(stmt, target, app)
        if not terms:
            if isinstance(stmt.value, gast.List) and not stmt.value.elts:
                zero = gast.List(elts=[], ctx=gast.Load())
            elif isinstance(stmt.value, gast.Constant):
                zero = gast.Constant(value=0.0, kind=None)
            elif _call_name(stmt.value) == "zero_like":    # an adjoint not reached yet: a tape's is a tape
                zero = call("zero_like", name(target))
            elif isinstance(stmt.value, gast.Subscript):     # an item may be a record or a list: zeros leaf by leaf
                zero = call("zero_tangent", name(target))
            elif (isinstance(stmt.value, (gast.Dict, gast.Tuple)) or _call_name(stmt.value) in _RECORDS
                  or isinstance(stmt.value, gast.Name) and stmt.value.id in self.containers):
                # a namedtuple, dict or tuple of constants (a loop's initial carry, or a name bound to one, as
                # lax.scan's `c = init`): zeros field by field, since zeros_like would read it as one array and
                # the loop's `.a` (`c["m"]`) of that tangent would fail
                zero = call("zero_tangent", name(target))
            else:
                zero = call("jnp.zeros_like", name(target))
            return [stmt, copy_location(assign(dtarget, zero), stmt)]
        tangent_stmt = assign(dtarget, _sum(terms))
        out = self._comment(stmt)
        if target in app.operand_names():
            if output_used:   # y = exp(y): the rule needs the new value and the old one
                old = self.namer.fresh("_old")
                terms, _ = self.terms(stmt, target, app, old_value=old)
                out += [assign(old, name(target)), stmt, assign(dtarget, _sum(terms))]
                return [copy_location(s, stmt) for s in out]
            out += [tangent_stmt, stmt]
        else:
            out += [stmt, tangent_stmt]
        return [copy_location(s, stmt) for s in out]

    def _is_varied(self, node):
        return isinstance(node, gast.Name) and node.id in self.varied

    def terms(self, stmt, target, app, old_value=None):
        """The tangent terms of one statement (one per varied operand), and whether a rule reads the output."""
        if app.kind == "copy":
            return ([name(self.tangent(app.node.id))] if self._is_varied(app.node) else []), False
        if app.kind == "tuple" and isinstance(stmt.value, gast.List) and not stmt.value.elts:
            return [], False      # `xs = []`: its tangent list starts empty too (see assignment)
        if app.kind == "tuple":       # t = (a, b): its tangent is the tuple of theirs
            kind = type(stmt.value)
            return [kind(elts=[self._tangent_expression(e) for e in stmt.value.elts], ctx=gast.Load())], False
        if app.kind == "dict":        # d = {"k": a}: its tangent is the dict of theirs, same keys
            return [gast.Dict(keys=[copy.deepcopy(k) for k in stmt.value.keys],
                              values=[self._tangent_expression(v) for v in stmt.value.values])], False
        if app.kind != "primitive":
            if not any(self._is_varied(a) for a in app.args):
                return [], False
            what = getattr(app.callee, "__qualname__", None) or getattr(app.callee, "__name__", None)
            raise self.context.error(f"astjax has no derivative rule for `{what or 'this expression'}`", stmt,
                                     hint="use an astjax.numpy function, or give it a rule with @astjax.custom_jvp.")
        prim = app.primitive
        problem = prim.static_check(app.bound) if prim.static_check else None
        if problem:
            message, hint = problem
            raise self.context.error(message, stmt, hint=hint)
        if not prim.differentiable:
            return [], False
        bindings = dict(app.bound)
        if old_value is not None:     # the operand's value before this statement overwrote it
            bindings = {k: name(old_value) if isinstance(v, gast.Name) and v.id == target else v
                        for k, v in bindings.items()}
        bindings["y"] = name(target)
        for operand in prim.operands:
            node = app.bound.get(operand)
            if node is not None:
                bindings["d" + operand] = self._tangent_expression(node)
        joint = getattr(prim, "joint_jvp", None)
        if joint is not None:    # one term in all the tangents: `dy = at_set(dx, idx, dv)`
            if not any(self._has_tangent(app.bound[o]) for o in prim.operands if o in app.bound):
                return [], False
            for operand in prim.operands:
                node = app.bound.get(operand)
                if node is not None and not self._has_tangent(node):
                    bindings["d" + operand] = call("zero_tangent", copy.deepcopy(node))
            for param in prim.index_params:
                if param in bindings:
                    bindings[param] = index_expression(bindings[param])
            return [expand(joint, bindings)], False
        terms, output_used = [], False
        if getattr(prim, "sequence_rule_builders", None):
            from .sequence_rules import sequence_rule
            elements = app.bound[prim.sequence_operand].elts
            names = {f"o{i}": e for i, e in enumerate(elements)}
            names.update({f"d{i}": self._tangent_expression(e) for i, e in enumerate(elements)})
            for k, element in enumerate(elements):
                if self._is_varied(element):
                    terms.append(dtype_guarded(expand(sequence_rule(prim, "jvp", app, k, self.context, stmt), names),
                                               app))
            return terms, False
        for operand in prim.operands:
            node = app.bound.get(operand)
            if node is None or not self._has_tangent(node):
                continue
            if operand not in prim.jvp:
                raise self.context.error(f"`{prim.name}` has no forward-mode rule for its argument `{operand}`", stmt)
            term = expand(prim.jvp[operand], bindings)
            output_used = output_used or any(isinstance(n, gast.Name) and n.id == "y" for n in walk(prim.jvp[operand]))
            if (prim.unbroadcast and not self.shapes.same_shape(node, stmt)
                    and (_bare(term) or prim.broadcasts_with)):
                others = [copy.deepcopy(app.bound[k]) for k in prim.operands + prim.broadcasts_with if k in app.bound]
                term = call("broadcast_like", term, *others)
            terms.append(dtype_guarded(term, app))
        return terms, output_used

    def _has_tangent(self, node):
        if isinstance(node, (gast.List, gast.Tuple)):
            return any(self._has_tangent(e) for e in node.elts)
        return self._is_varied(node)

    def _tangent_expression(self, node):
        """The tangent of an operand: its `d` name, zeros for a constant, element-wise for a list."""
        if isinstance(node, (gast.List, gast.Tuple)):
            kind = type(node)
            return kind(elts=[self._tangent_expression(e) for e in node.elts], ctx=gast.Load())
        if self._is_varied(node):
            return name(self.tangent(node.id))
        return call("jnp.zeros_like", copy.deepcopy(node))

    def _custom_jvp(self, stmt, target, app):
        """`y = f(x)` for a custom_jvp f: `y, dy = f_jvp((x,), (dx,))`."""
        custom = app.callee
        if custom.jvp is None:
            raise self.context.error(f"custom_jvp function `{custom.__name__}` has no rule yet", stmt,
                                     hint=f"define it with @{custom.__name__}.defjvp before differentiating.")
        for i in custom.nondiff_argnums:
            if i < len(app.args) and any(self._is_varied(n) for n in walk(app.args[i])):
                raise self.context.error(
                    f"argument {i} of `{custom.__name__}` is in its nondiff_argnums but depends on the "
                    "differentiated input, so its tangent would be dropped", stmt,
                    hint="pass a value that does not depend on the input there")
        rule = self.bind_name(custom.jvp, f"{custom.__name__}_jvp")
        primals = gast.Tuple(elts=[copy.deepcopy(a) for a in app.args], ctx=gast.Load())
        tangents = gast.Tuple(elts=[self._tangent_expression(a) for a in app.args], ctx=gast.Load())
        both = gast.Tuple(elts=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None),
                                gast.Name(id=self.tangent(target), ctx=gast.Store(), annotation=None,
                                          type_comment=None)], ctx=gast.Store())
        new = gast.Assign(targets=[both], value=call(rule, primals, tangents), type_comment=None)
        return [copy_location(s, stmt) for s in self._comment(stmt) + [new]]

    def _callee(self, stmt, target, app):
        mask = tuple(self._is_varied(a) for a in app.args)
        defaults = [] if app.node.keywords else defaults_after(app.callee, len(app.args))
        jvp_name = self.callee_jvp(app.callee, mask + (False,) * len(defaults), stmt)
        args = ([copy.deepcopy(a) for a in app.args] + [name(self.bind_name(v, "_default")) for v in defaults]
                + [name(self.tangent(a.id)) for a, m in zip(app.args, mask) if m])
        both = gast.Tuple(elts=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None),
                                gast.Name(id=self.tangent(target), ctx=gast.Store(), annotation=None,
                                          type_comment=None)], ctx=gast.Store())
        new = gast.Assign(targets=[both], value=gast.Call(func=name(jvp_name), args=args,
                                                          keywords=copy.deepcopy(app.node.keywords)),
                          type_comment=None)
        return [copy_location(s, stmt) for s in self._comment(stmt) + [new] + self._shaped_gradient(target, app)]

    def _shaped_gradient(self, target, app):
        """`g = grad(loss)(params, x)`: the generated gradient gives a dict's gradient as the items it reached
        (an adjoint tree); g and its tangent are shaped as grad returns them (zeros where nothing reached),
        as the untransformed program sees them (`tree_map(..., params, g)` reads every leaf)."""
        from .derivation import _gradient_transform
        if _gradient_transform(app.callee) is None or app.node.keywords:
            return []
        gradient = name(self.bind_name(app.callee, "gradient_function"))
        args = gast.Tuple(elts=[copy.deepcopy(a) for a in app.args], ctx=gast.Load())
        return [assign(v, call("shaped_gradient", name(v), copy.deepcopy(gradient), copy.deepcopy(args)))
                for v in (target, self.tangent(target))]


_RECORDS = ("namedtuple_of", "namedtuple_of1")


def _sum(terms):
    total = terms[0]
    for term in terms[1:]:
        total = gast.BinOp(left=total, op=gast.Add(), right=term)
    return total


def _bare(term):
    """A term that is just a tangent (`dx`, `-dx`) keeps the operand's shape, which may be smaller."""
    if isinstance(term, gast.UnaryOp):
        term = term.operand
    return isinstance(term, gast.Name)


def _call_name(value):
    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Name):
            return func.id
        if isinstance(func, gast.Attribute):
            return func.attr
    return None


