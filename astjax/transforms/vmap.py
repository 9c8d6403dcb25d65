"""vmap by source transformation: the normalized function rewritten to compute a whole batch.

Each statement whose operands carry the batch axis (analyses/batching.py) is
replaced by its primitive's batching rule (rules/batching.py); statements on
unbatched values stay as they are, and so does control flow on unbatched
values. Where no rule applies, the statement loops over the batch:

    _results1 = []
    for _b1 in range(_B):
        _results1.append(opaque(x[_b1], w))
    y = jnp.stack(_results1)

and where the control flow itself depends on a batched value (an `if` on a
batched predicate, a batched trip count) the whole function loops over the
batch, calling the function once per example. Never a wrong number: a value
vmap cannot place is computed example by example.

Conventions of the generated function: every batched parameter and result
carries the batch on axis 0 (the API moves `in_axes` / `out_axes`), `_B` is the
batch size, and an unbatched value assigned to a batched name is repeated along
the batch (`batch_broadcast`, which keeps a Python float weakly typed).
"""
import copy

import gast

from ..analyses.batching import ARRAY, Batching
from ..analyses.classify import classify
from ..codegen.templates import LineComments, comment, is_marker, rename_loads
from ..rules.batching import HELPERS, generic_rule
from ..rules.collectives import COLLECTIVES, axis_names_of, batched_result, collective_rule
from ..errors import AstjaxError
from ..rules.registry import PRIMITIVES
from ..codegen.node_walk import walk, NodeTransformer

# Helpers whose result is always an adjoint tree (index_adjoint, tree_leaves_adjoint and sum_adjoint of a
# container only).
_TREE_MAKERS = frozenset({"stack_adjoint", "concatenate_adjoint", "index_adjoint", "tree_leaves_adjoint",
                          "sum_adjoint", "tree_item_adjoint"})

# NumPy's reductions whose result is an integer, a NumPy scalar (not a 0-d array) when they reduce to rank 0.
NUMPY_INTEGER_REDUCTIONS = frozenset({"argmax", "argmin", "nanargmax", "nanargmin", "count_nonzero"})

__all__ = ["BatchMode", "ParamSpec"]


class ParamSpec(tuple):
    """(batched, kind, rank) of one parameter: kind is "array", a tuple of kinds, or None (unknown)."""

    def __new__(cls, batched, kind=None, rank=None):
        return super().__new__(cls, (bool(batched), kind, rank))

    batched = property(lambda self: self[0])
    kind = property(lambda self: self[1])
    rank = property(lambda self: self[2])


class BatchMode:
    """The batched version of one normalized function.

    spec: one ParamSpec per parameter (missing ones are unbatched).
    out_none: for the main function, the outputs that out_axes leaves unbatched: True (all), or a
        tuple of booleans (one per item of a returned tuple), else False.
    callee_vmap(callee, spec, stmt) -> (generated name, kind of its result)
    example_function(stmt) -> the generated name of the function's normalized (primal) version, which the
        whole-batch loop calls once per example (None: call the user's function itself)
    """

    def __init__(self, context, function_node, spec, name, callee_vmap, bind_name, out_none=False,
                 result_of=lambda label: (None, None), as_callee=False, example_function=None, axis_name=None):
        self.context = context
        self.axis_name = axis_name      # the name collectives (`lax.psum(x, 'i')`) give this batch axis
        self.function = function_node
        self.spec = list(spec)
        self.name = name
        self.callee_vmap = callee_vmap
        self.bind_name = bind_name
        self.out_none = out_none
        self.namer = context.namer
        self._comment = LineComments(context.source)
        self.result_kind = self.result_rank = None
        self.as_callee = as_callee      # a callee takes the batch size from its caller (batch_size_parameter)
        self.result_of = result_of
        self.example_function = example_function
        self.fell_back = None        # why the whole function loops over the batch, if it does
        self._helpers = {}
        self._rank_override = {}

    # ------------------------------------------------------------ the interface rules use
    def is_batched(self, node):
        return node is not None and self.batching.is_batched(node)

    def rank(self, node):
        if isinstance(node, gast.Name) and node.id in self._rank_override:
            return self._rank_override[node.id]
        return self.batching.rank(node)

    def kind(self, node):
        return self.batching.kind(node)

    def fresh(self, base):
        return self.namer.fresh(base)

    @property
    def B(self):
        return _name(self.batch_size)

    def helper(self, fn):
        """A name for a helper of rules/batching.py in the generated namespace."""
        if fn not in self._helpers:
            self._helpers[fn] = self.bind_name(fn, fn.__name__)
        return _name(self._helpers[fn])

    def static(self, node):
        from ..frontend.resolve import NOT_STATIC
        value = self.context.resolver.static_value(node)
        return None if value is NOT_STATIC else value

    def assign(self, target, value):
        return gast.Assign(targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None)],
                           value=value, type_comment=None)

    def batched(self, node, out):
        """`node` with the batch axis: itself if batched, else broadcast (the statement appended to `out`)."""
        if isinstance(node, gast.Name) and self.is_batched(node):
            return _name(node.id)
        fresh = self.fresh(f"{node.id}_" if isinstance(node, gast.Name) else "_c")
        float_literal = isinstance(node, gast.Constant) and type(node.value) is float
        out.append(self.assign(fresh, self._broadcast(node, self.kind(node), float_literal)))
        return _name(fresh)

    def _broadcast(self, node, kind, float_literal=False):
        """`node` repeated along the batch: an array (or a number) by batch_broadcast, which keeps a Python
        float weakly typed (rules/helpers.py); a container, or a value of unknown kind, leaf by leaf."""
        if kind == ARRAY or float_literal:
            likes = gast.Tuple(elts=[_name(p) for p in self._array_params], ctx=gast.Load())
            return _call("batch_broadcast", copy.deepcopy(node), self.B, likes)
        return _call(self.helper(HELPERS["broadcast_batch"]), copy.deepcopy(node), self.B)

    # ------------------------------------------------------------ the function
    def transform(self):
        params = [a.id for a in self.function.args.args]
        spec = {p: (self.spec[i] if i < len(self.spec) else ParamSpec(False)) for i, p in enumerate(params)}
        self._array_params = [p for p in params if spec[p].kind == ARRAY]      # their dtypes: batch_broadcast
        batched = [p for p in params if spec[p].batched]
        kinds = {p: s.kind for p, s in spec.items() if s.kind is not None}
        ranks = {p: s.rank for p, s in spec.items() if s.rank is not None}
        if batched and self._collectives():
            self._split_tree_collectives(Batching(self.function, self.context.resolver, batched, dict(kinds),
                                                  dict(ranks)))
        seeds = self._collective_results() if batched else []      # `i = lax.axis_index('i')`
        kinds.update({name: ARRAY for name in seeds})
        self.batching = Batching(self.function, self.context.resolver, batched + seeds, kinds, ranks,
                                 callee_kind=self._callee_result)
        self.batch_size = self.namer.fresh("_B")
        body = self.function.body
        ret = body[-1]
        first = sorted(batched, key=lambda p: spec[p].kind != ARRAY)[0] if batched else None     # an array first
        prologue = [self.assign(self.batch_size, self._size_of(first, spec[first]))] if batched else []
        extra = None
        if self.as_callee and batched:
            extra = batch_size_parameter(self.context.source.node)
            self.namer.reserve(extra)
            prologue = [self.assign(self.batch_size, _name(extra))]
        reason = self._needs_whole_loop()
        if reason is not None:
            self.fell_back = reason
            self._refuse_collective_in_loop()
            new_body = prologue + self._whole_loop(params, spec, ret)
        else:
            for p in params:    # an unbatched array parameter assigned a batched value later: batched from the start
                if batched and not spec[p].batched and p in self.batching.batched and ARRAY in (
                        spec[p].kind, self.batching.kinds.get(p)):
                    prologue.append(self.assign(p, self._broadcast(_name(p), ARRAY)))
            new_body = prologue + self.block(body[:-1]) + self._return(ret)
        args = copy.deepcopy(self.function.args)
        if extra is not None:       # `def vmap_g(x, w, _batch_size=None)`: its callers pass their `_B`
            args.args.append(gast.Name(id=extra, ctx=gast.Param(), annotation=None, type_comment=None))
            args.defaults.append(_const(None))
        fn = gast.FunctionDef(name=self.name, args=args, body=new_body, decorator_list=[], returns=None,
                              type_comment=None, type_params=[])
        return gast.copy_location(fn, self.function)

    def _collectives(self):
        """(statement, Application) of each collective (`y = lax.psum(x, 'i')`) in the function."""
        found = []
        for stmt in _walk_statements(self.function.body):
            if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call):
                app = classify(stmt.value, self.context.resolver)
                if app.kind == "primitive" and app.primitive is not None and app.primitive.name in COLLECTIVES:
                    found.append((stmt, app))
            elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
                app = classify(stmt.value, self.context.resolver)
                if app.kind == "primitive" and app.primitive is not None and app.primitive.name in COLLECTIVES:
                    found.append((stmt, app))
        return found

    def _split_tree_collectives(self, analysis):
        """`y = lax.psum(t, 'i')` of a tuple `t` (a pytree of arrays): one collective per item,
        `y_0 = lax.psum(t[0], 'i')`, ..., `y = (y_0, y_1)`, as JAX maps a collective over the leaves."""
        collectives = {id(stmt): app for stmt, app in self._collectives() if isinstance(stmt, gast.Assign)}

        def rewrite(stmts):
            out = []
            for stmt in stmts:
                for field in ("body", "orelse"):
                    if getattr(stmt, field, None):
                        setattr(stmt, field, rewrite(getattr(stmt, field)))
                app = collectives.get(id(stmt))
                x = app.bound.get("x") if app is not None and app.bound else None
                kind = analysis.kind(x) if isinstance(x, gast.Name) else None
                if not isinstance(kind, tuple) or not isinstance(stmt.targets[0], gast.Name):
                    out.append(stmt)
                    continue
                items = []
                for i in range(len(kind)):
                    item, result = self.fresh(f"{x.id}_{i}"), self.fresh(f"{stmt.targets[0].id}_{i}")
                    out.append(gast.copy_location(self.assign(item, gast.Subscript(
                        value=_name(x.id), slice=_const(i), ctx=gast.Load())), stmt))
                    call = copy.deepcopy(app.node)
                    params = list(app.primitive.signature.parameters)
                    if call.args and params[0] == "x":
                        call.args[0] = _name(item)
                    else:
                        call.keywords = [k for k in call.keywords if k.arg != "x"] + [gast.keyword(
                            arg="x", value=_name(item))]
                    out.append(gast.copy_location(self.assign(result, call), stmt))
                    items.append(_name(result))
                out.append(gast.copy_location(self.assign(stmt.targets[0].id, gast.Tuple(
                    elts=items, ctx=gast.Load())), stmt))
            return out
        self.function.body = rewrite(self.function.body)

    def _collective_results(self):
        """Names assigned a collective over this axis whose value differs between examples whatever its
        operand (`lax.axis_index('i')`, `lax.psum_scatter`): batched from the start of the analysis."""
        return [stmt.targets[0].id for stmt, app in self._collectives() if isinstance(stmt, gast.Assign)
                and isinstance(stmt.targets[0], gast.Name) and batched_result(app, self.axis_name, self.static)]

    def _refuse_collective_in_loop(self):
        """A whole function that loops over the batch runs one example at a time: a collective over this
        axis (which reads every example) cannot run there. Refused at its line."""
        for stmt, app in self._collectives():
            node = app.bound.get("axis_name") if app.bound else None
            names = axis_names_of(node, self.static) if node is not None else None
            if names is None or self.axis_name in names:
                raise self.context.error(
                    f"vmap cannot compute `lax.{app.primitive.name}` over axis {self.axis_name!r} here: it loops "
                    f"over the batch one example at a time because {self.fell_back}, and a collective reads "
                    "every example", stmt,
                    hint="make the control flow independent of batched values (jnp.where), or compute the "
                         "collective outside the batched control flow.")

    def _size_of(self, param, spec):
        if spec.kind == ARRAY:
            return gast.Subscript(value=_call("jnp.shape", _name(param)), slice=_const(0), ctx=gast.Load())
        return _call(self.helper(HELPERS["batch_size_of"]), _name(param))

    def _needs_whole_loop(self):
        self.selects = set()     # ids of the function's own If/While, consulted only for its own nodes
        control = None
        for node in self.batching.compound:
            if self.batching._batched_control(node):
                if isinstance(node, gast.If) and self._selectable(node):
                    self.selects.add(id(node))
                    continue
                if isinstance(node, gast.While) and self._maskable(node):
                    self.selects.add(id(node))
                    continue
                control = node
                break
        if control is not None:
            kind = {gast.If: "an `if`", gast.While: "a `while` loop", gast.For: "a `for` loop",
                    gast.Assert: "an `assert`"}[type(control)]
            return f"{kind} depends on a batched value (line {getattr(control, 'lineno', '?')})"
        containers = sorted(n for n in self.batching.containers & self.batching.batched
                            if not self._plain_tuple(n) and not self.is_adjoint_tree(_name(n)))
        if containers:
            shown = [c for c in containers if not c.startswith("_")]
            held = f"`{shown[0]}` is a tuple, list or dict that holds" if shown else "a tuple, list or dict holds"
            return f"{held} batched values (containers are batched example by example)"
        from ..optimize.effects import MUTATING_METHODS
        for _, value, _ in self.batching.assignments:     # `y = xs.pop()`: one example at a time would
            if (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)   # change copies
                    and value.func.attr in MUTATING_METHODS and isinstance(value.func.value, gast.Name)
                    and self.is_batched(value.func.value)):
                return f"`.{value.func.attr}()` changes a batched value in place"
        for stmt in self.batching.effects:
            call = stmt.value
            if is_marker(stmt) or _func_name(call) in ("push", "append") or self._guard(call):
                continue
            if any(self.is_batched(a) for a in list(call.args) + [k.value for k in call.keywords]) or (
                    isinstance(call.func, gast.Attribute) and self.is_batched(call.func.value)):
                return "a call whose result is not used reads a batched value"
        return None

    def is_adjoint_tree(self, node):
        """Whether the name `node` holds an adjoint tree (a TreeAdjoint) whenever it runs: every assignment to it
        is a helper that makes one (stack_adjoint, concatenate_adjoint, index_adjoint or tree_leaves_adjoint of
        a container) or `+` of two such values. Its items carry the batch, the rules of batching_trees.py read
        them, and any other statement reads it example by example, so it needs no loop over the whole
        function. (The analysis's kind "tree" is not enough: a tree plus an array, a list read as an array,
        is an array.)"""
        return isinstance(node, gast.Name) and self._adjoint_tree(node.id, frozenset())

    def _adjoint_tree(self, name, seen):
        if name in seen:
            return True             # `t = t + u`: the other assignments decide
        seen = seen | {name}
        found = False
        for target, value, _ in self.batching.assignments:
            if target != name:
                continue
            found = True
            if not self._makes_adjoint_tree(value, seen):
                return False
        return found

    def _makes_adjoint_tree(self, value, seen):
        if isinstance(value, gast.Name):
            return self._adjoint_tree(value.id, seen)
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
            return self._makes_adjoint_tree(value.left, seen) and self._makes_adjoint_tree(value.right, seen)
        if not isinstance(value, gast.Call):
            return False
        app = classify(value, self.context.resolver)
        prim = app.primitive if app.kind == "primitive" else None
        if prim is None or prim.name not in _TREE_MAKERS:
            return False
        holder = {"index_adjoint": "x", "tree_leaves_adjoint": "tree", "sum_adjoint": "iterable"}.get(
            prim.name)
        if holder is not None:
            kind = self.kind((app.bound or {}).get(holder))
            return kind is not None and kind != ARRAY and not isinstance(kind, int)
        return True

    def _plain_tuple(self, name, seen=frozenset()):
        """Whether `name` is a tuple or dict every statement can batch: each assignment gives it a tuple of
        known items (a literal, a callee's tuple result), or each a dict literal of constant keys, and it is
        only read item by item (`t[0]`), measured (`len(t)`), passed to a callee (built for the tuple's kind:
        `lstsq_b_adjoint(g, a, b, y)`), returned, or held as an item of a tuple or dict literal that is itself
        plain (`return {"a": x * 2, "b": (s, 3.0)}`): assignment() batches a literal item by item."""
        values = [value for target, value, _ in self.batching.assignments if target == name]
        if values and all(isinstance(v, gast.Dict) for v in values):
            if any(not isinstance(k, gast.Constant) or k.value is None for v in values for k in v.keys):
                return False
        else:
            if any(isinstance(v, gast.Dict) or not isinstance(self.kind(v), tuple) and not isinstance(v, gast.Call)
                   for v in values):
                return False
            if not isinstance(self.batching.kinds.get(name), tuple):
                return False
        seen = seen | {name}
        allowed = set()
        for target, value, _ in self.batching.assignments:     # an item of a plain tuple or dict literal
            items = value.values if isinstance(value, gast.Dict) else getattr(value, "elts", None) \
                if isinstance(value, (gast.Tuple, gast.List)) else None
            if items and any(isinstance(i, gast.Name) and i.id == name for i in items) and (
                    target not in seen and target in self.batching.containers
                    and self._plain_tuple(target, seen)):
                allowed.update(id(i) for i in items)
        for node in walk(self.function):
            if (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                    and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int):
                allowed.add(id(node.value))
            elif isinstance(node, gast.Call) and _func_name(node) == "len" and len(node.args) == 1:
                allowed.add(id(node.args[0]))          # the length check of `a, b = t`
            elif isinstance(node, gast.Return) and node.value is not None:
                allowed.update(id(e) for e in ([node.value] + list(getattr(node.value, "elts", []))))
        for _, _, app in self.batching.assignments:      # `lu_solve(lu_and_piv, b)`: a rule that reads the pair
            if app is not None and app.kind == "function":   # a callee: built for the tuple's kind, items batched
                allowed.update(id(a) for a in app.args if isinstance(a, gast.Name))
            prim = app.primitive if app is not None and app.kind == "primitive" else None
            for param in getattr(getattr(prim, "batch", None), "reads_tuples", ()):
                if isinstance((app.bound or {}).get(param), gast.Name):
                    allowed.add(id(app.bound[param]))
        return all(id(n) in allowed for n in walk(self.function)
                   if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load))

    def _whole_loop(self, params, spec, ret):
        """The function called once per example; the results stacked on axis 0."""
        b = self.fresh("_b")
        fn = self._example_function(ret)
        args = []
        for p in params:
            if not spec[p].batched:
                args.append(_name(p))
            elif spec[p].kind == ARRAY:
                args.append(gast.Subscript(value=_name(p), slice=_name(b), ctx=gast.Load()))
            else:
                args.append(_call(self.helper(HELPERS["example_of"]), _name(p), _name(b)))
        if self.out_none:
            raise self.context.error("vmap with out_axes=None needs an output that does not depend on the batch, "
                                     f"and astjax loops over the batch here because {self.fell_back}", ret,
                                     hint="give the output a mapped axis (out_axes=0), or move the batched "
                                          "control flow out of the function.")
        value = ret.value
        items = value.elts if isinstance(value, gast.Tuple) else None
        arrays = (self.kind(value) == ARRAY) if items is None else all(
            isinstance(e, gast.Constant) or self.kind(e) == ARRAY for e in items)
        example = self.fresh("_example")
        body = [self.assign(example, _call(_name(fn), *args))]
        stmts = [comment(f"vmap runs the function once per example: {self.fell_back}")]
        derivative = bool(getattr(self.context.source.fn, "__astjax_derivative_names__", ()))
        if arrays and derivative:     # a gradient's examples: a zero may be a bare 0.0 (see stack_adjoint_examples)
            results = self.fresh("_results")
            body.append(gast.Expr(value=_call(gast.Attribute(value=_name(results), attr="append", ctx=gast.Load()),
                                              _name(example))))
            stmts.append(self.assign(results, gast.List(elts=[], ctx=gast.Load())))
            result = _call(self.helper(HELPERS["stack_adjoint_examples"]), _name(results))
        elif arrays:         # stacked with jnp.stack, which every transformation has rules for
            lists = [self.fresh("_results") for _ in (items if items is not None else [value])]
            for i, results in enumerate(lists):
                item = _name(example) if items is None else gast.Subscript(value=_name(example), slice=_const(i),
                                                                           ctx=gast.Load())
                body.append(gast.Expr(value=_call(gast.Attribute(value=_name(results), attr="append",
                                                                 ctx=gast.Load()), item)))
                stmts.append(self.assign(results, gast.List(elts=[], ctx=gast.Load())))
            outs = [_call("jnp.stack", _name(r)) for r in lists]
            result = outs[0] if items is None else gast.Tuple(elts=outs, ctx=gast.Load())
        else:
            results = self.fresh("_results")
            body.append(gast.Expr(value=_call(gast.Attribute(value=_name(results), attr="append", ctx=gast.Load()),
                                              _name(example))))
            stmts.append(self.assign(results, gast.List(elts=[], ctx=gast.Load())))
            result = _call(self.helper(HELPERS["stack_examples"]), _name(results))
        stmts.append(gast.For(target=gast.Name(id=b, ctx=gast.Store(), annotation=None, type_comment=None),
                              iter=_call("range", self.B), body=body, orelse=[], type_comment=None))
        out = self.fresh("_out")
        stmts.append(self.assign(out, result))
        stmts.append(gast.copy_location(gast.Return(value=_name(out)), ret))
        return stmts

    def _example_function(self, ret):
        """The name of the function the whole-batch loop calls once per example: the function's normalized
        version (its `y[i] += v` written as functional updates, its guards kept), as jit runs it. The user's
        own function would receive astjax Arrays, which refuse item assignment, and its NumPy calls would
        write into them (np.gradient fills an `empty_like` of its input)."""
        if self.example_function is not None:
            return self.example_function(ret)
        return self.bind_name(self.context.source.fn, f"{self.context.source.name.strip('_') or 'f'}_example")

    # ------------------------------------------------------------ statements
    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            new = self.assignment(stmt, stmt.targets[0].id, stmt.value)
            return [gast.copy_location(s, stmt) for s in self._comment(stmt) + new] if new != [stmt] else new
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            return self.effect(stmt)
        if isinstance(stmt, gast.If) and id(stmt) in self.selects:
            return self._select(stmt)
        if isinstance(stmt, gast.While) and id(stmt) in self.selects:
            return self._masked_while(stmt)
        if isinstance(stmt, gast.If):
            stmt.body = self.block(stmt.body) or [gast.Pass()]
            stmt.orelse = self.block(stmt.orelse)
            return [stmt]
        if isinstance(stmt, (gast.For, gast.While)):
            stmt.body = self.block(stmt.body) or [gast.Pass()]
            stmt.orelse = self.block(stmt.orelse)
            return [stmt]
        if isinstance(stmt, gast.Assert) and self.is_batched(stmt.test):
            # `assert x.shape == (3,)`: a shape query (the same for every example; an assert on values loops
            # over the whole batch) asked of example 0
            return [gast.copy_location(gast.Assert(test=self._per_example(stmt.test, _const(0)),
                                                   msg=copy.deepcopy(stmt.msg)), stmt)]
        if isinstance(stmt, gast.Assign):
            raise self.context.error("vmap cannot batch an assignment to this target", stmt,
                                     hint="assign to a plain name.")
        return [stmt]

    # ------------------------------------------------------------ `if` on a batched test as a select
    def _selectable(self, node):
        """An `if` on a per-example scalar whose branches only assign elementwise results that cannot raise:
        both branches may run for every example and `jnp.where` picks. Anything else loops over the batch."""
        if not isinstance(node.test, gast.Name) or self.rank(node.test) != 0:
            return False
        assigned, ranks = {}, {}
        for branch in (node.body, node.orelse):
            for stmt in branch:
                if is_marker(stmt) or isinstance(stmt, gast.Pass):
                    continue
                if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
                    return False
                value = stmt.value
                if isinstance(value, (gast.Name, gast.Constant)):
                    pass
                else:
                    app = classify(value, self.context.resolver)
                    if isinstance(value, gast.Compare) and len(value.ops) == 1 and app.primitive is not None:
                        app.bound = {"x1": value.left, "x2": value.comparators[0]}
                    if app.kind != "primitive" or app.primitive is None or app.primitive.name not in _SELECT_SAFE:
                        return False
                    if any(not isinstance(n, (gast.Name, gast.Constant)) for n in (app.bound or {}).values()):
                        return False
                assigned.setdefault(stmt.targets[0].id, set()).add(id(branch))
                from ..analyses.batching import classify_with_operands
                _, rank = self.batching._kind_rank(value, classify_with_operands(value, self.context.resolver))
                ranks.setdefault(stmt.targets[0].id, set()).add(rank)
        before = self._defined_before(node)
        for name, branches in assigned.items():
            if len(branches) == 1:
                ranks[name].add(self.rank(_name(name)))
            if None in ranks[name] or len(ranks[name]) > 1:
                return False     # a per-example shape that depends on the branch: jnp.where would hide it
        return all(len(branches) == 2 or name in before for name, branches in assigned.items())

    # ------------------------------------------------------------ `while` on a batched test, masked
    def _maskable(self, node):
        """A `while` on a per-example scalar whose body only assigns elementwise results that cannot raise:
        it runs while any example is still looping, and `jnp.where` keeps the values of those that are done.
        A name first bound inside the loop must be written before it is read and not read after the loop."""
        if not isinstance(node.test, gast.Name) or self.rank(node.test) != 0 or node.orelse:
            return False
        before = self._defined_before(node)
        written = set()
        for stmt in node.body:
            if is_marker(stmt) or isinstance(stmt, gast.Pass):
                continue
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
                return False
            if not self._safe_value(stmt.value):
                return False
            reads = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
            if any(r not in before and r not in written and r in self.batching.batched for r in reads):
                return False
            written.add(stmt.targets[0].id)
        local = written - before
        inside = {id(n) for stmt in node.body for n in walk(stmt)}
        outside_reads = {n.id for n in walk(self.function) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, gast.Load) and id(n) not in inside}
        return not (local & outside_reads) and node.test.id in written

    def _safe_value(self, value):
        if isinstance(value, (gast.Name, gast.Constant)):
            return True
        app = classify(value, self.context.resolver)
        if isinstance(value, gast.Compare) and len(value.ops) == 1 and app.primitive is not None:
            app.bound = {"x1": value.left, "x2": value.comparators[0]}
        if app.kind != "primitive" or app.primitive is None or app.primitive.name not in _SELECT_SAFE:
            return False
        return all(isinstance(n, (gast.Name, gast.Constant)) for n in (app.bound or {}).values())

    def _masked_while(self, node):
        """`while jnp.any(c)`: each step computes every example and keeps the new values where c held."""
        before = self._defined_before(node)
        active = self.fresh("_active")
        self.batching.batched.add(active)
        self.batching.ranks[active], self.batching.kinds[active] = 0, ARRAY
        body = [self.assign(active, _name(node.test.id))]
        from ..analyses.batching import classify_with_operands
        from ..analyses.classify import Application
        from ..rules.batching import elementwise_rule
        for stmt in node.body:
            if not isinstance(stmt, gast.Assign):
                continue
            target = stmt.targets[0].id
            if target not in before:          # a temporary of this step: no example reads it later
                body.extend(gast.copy_location(s, stmt) for s in self.statement(stmt))
                continue
            fresh = self.fresh(f"{target}_step")
            value = stmt.value
            if self.is_batched(value):
                self.batching.batched.add(fresh)
            kind, rank = self.batching._kind_rank(value, classify_with_operands(value, self.context.resolver))
            self.batching.ranks[fresh], self.batching.kinds[fresh] = rank, ARRAY
            new = self.assignment(gast.Assign(targets=[gast.Name(id=fresh, ctx=gast.Store(), annotation=None,
                                                                 type_comment=None)], value=value, type_comment=None),
                                  fresh, value)
            call = _call("jnp.where", _name(active), _name(fresh), _name(target))
            app = Application("primitive", call, primitive=PRIMITIVES["where"],
                              bound={"condition": call.args[0], "x1": call.args[1], "x2": call.args[2]})
            body.extend(gast.copy_location(s, stmt) for s in self._comment(stmt) + new + elementwise_rule(
                self, target, app))
        loop = gast.While(test=_call("jnp.any", _name(node.test.id)), body=body, orelse=[])
        return [gast.copy_location(loop, node)]

    def _defined_before(self, node):
        names = {a.id for a in self.function.args.args}
        for stmt in _walk_statements(self.function.body):
            if stmt is node:
                return names
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                names.add(stmt.targets[0].id)
        return names

    def _select(self, node):
        """Both branches, their results renamed, then `v = jnp.where(test, v_then, v_else)` per variable."""
        out = self._comment(node)
        versions = []
        order = []
        for branch, suffix in ((node.body, "then"), (node.orelse, "else")):
            renamed = {}
            for stmt in branch:
                if not isinstance(stmt, gast.Assign):
                    continue
                target = stmt.targets[0].id
                fresh = self.fresh(f"{target}_{suffix}")
                value = rename_loads(copy.deepcopy(stmt.value), renamed)
                if self.is_batched(value):
                    self.batching.batched.add(fresh)
                from ..analyses.batching import classify_with_operands
                kind, rank = self.batching._kind_rank(value, classify_with_operands(value, self.context.resolver))
                self.batching.ranks[fresh], self.batching.kinds[fresh] = rank, ARRAY
                out.extend(self.assignment(gast.Assign(targets=[gast.Name(id=fresh, ctx=gast.Store(), annotation=None,
                                                                          type_comment=None)],
                                                       value=value, type_comment=None), fresh, value))
                renamed[target] = fresh
                if target not in order:
                    order.append(target)
            versions.append(renamed)
        from ..analyses.classify import Application
        from ..rules.batching import elementwise_rule
        for target in order:
            chosen = [_name(v.get(target, target)) for v in versions]
            if not any(self.is_batched(c) for c in chosen):
                # `y = 0.1` or `y = 0.3`: per example a weak Python float, which jnp.where of two would make
                # float32; repeated first (batch_broadcast types it like the arguments), where keeps its dtype
                rank = self.rank(chosen[0])
                chosen[0] = self.batched(chosen[0], out)
                self.batching.batched.add(chosen[0].id)
                self.batching.ranks[chosen[0].id], self.batching.kinds[chosen[0].id] = rank, ARRAY
            call = _call("jnp.where", _name(node.test.id), *chosen)
            app = Application("primitive", call, primitive=PRIMITIVES["where"],
                              bound={"condition": call.args[0], "x1": call.args[1], "x2": call.args[2]})
            out.extend(elementwise_rule(self, target, app))
        return [gast.copy_location(s, node) for s in out]

    def _guard(self, call):
        """Whether `call` is a guard primitive (rules/registry.py: it only checks its arguments)."""
        app = classify(call, self.context.resolver)
        return app.kind == "primitive" and app.primitive is not None and app.primitive.guard

    def effect(self, stmt):
        call = stmt.value
        if self._guard(call) and self.batching.expression_batched(call):
            return self._guard_per_example(stmt)
        name = _func_name(call)
        receiver = None
        if name == "push" and len(call.args) == 2 and isinstance(call.args[0], gast.Name):
            receiver, value_at = call.args[0], 1
        elif name == "append" and isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name):
            receiver, value_at = call.func.value, 0
        if receiver is None or not self.is_batched(receiver):
            return [stmt]
        value = call.args[value_at]
        if self.batching.expression_batched(value):      # `push(_tape, jnp.shape(x))` pushes no batch
            return [stmt]
        out = []
        call.args[value_at] = self.batched(value, out)
        return out + [stmt]

    def _guard_per_example(self, stmt):
        """`array_holder(x)` on a batched x: checked once per example (`for _b in range(_B): array_holder(x[_b])`),
        as running the function on each example would check it."""
        if _func_name(stmt.value) == "basic_index" and len(stmt.value.args) == 1 and isinstance(
                stmt.value.args[0], gast.Name) and stmt.value.args[0].id in self._numpy_integer_names():
            return []       # each example's index is a NumPy integer, which basic_index passes
        b = self.fresh("_b")
        check = gast.copy_location(gast.Expr(value=self._per_example(stmt.value, _name(b))), stmt)
        return [gast.copy_location(gast.For(target=gast.Name(id=b, ctx=gast.Store(), annotation=None,
                                                              type_comment=None),
                                            iter=_call("range", self.B), body=[check], orelse=[],
                                            type_comment=None), stmt)]

    def _numpy_integer_names(self):
        """Batched names every assignment gives a NumPy integer reduction of a whole array (`k = np.argmax(x)`):
        each example held a NumPy integer (np.int64, an index `m[k][1] = v` writes through), which the batched
        array's element `k[_b]` (a 0-d array) no longer shows to basic_index."""
        names, other = set(), set()
        for target, value, app in self.batching.assignments:
            func = self.static(value.func) if isinstance(value, gast.Call) else None
            keywords = {k.arg: k.value for k in value.keywords} if isinstance(value, gast.Call) else {}
            integer = (app is not None and app.kind == "primitive" and app.primitive is not None
                       and app.primitive.name in NUMPY_INTEGER_REDUCTIONS and func is not None
                       and (getattr(func, "__module__", None) or "").startswith("numpy")
                       and getattr(func, "__name__", None) == app.primitive.name and len(value.args) <= 2
                       and "out" not in keywords
                       and (isinstance(keywords.get("keepdims"), gast.Constant) and keywords["keepdims"].value is False
                            or "keepdims" not in keywords))
            (names if integer else other).add(target)
        return {n for n in names - other if n in self.batching.batched and self.batching.ranks.get(n) == 0}

    def assignment(self, stmt, target, value):
        target_batched = target in self.batching.batched
        self._refuse_unbatched_collective_call(value)
        if isinstance(value, gast.Call):        # a collective: rewritten even where its operand is unbatched
            app = classify(value, self.context.resolver)
            if app.kind == "primitive" and app.primitive is not None and app.primitive.name in COLLECTIVES:
                new = collective_rule(self, target, app)
                if target_batched and not self._collective_batched(app):
                    new.append(self.assign(target, self._broadcast(_name(target), ARRAY)))
                return new
        if not self.is_batched(value):
            if not target_batched:
                return [stmt]
            return self._broadcast_assignment(stmt, target, value)
        if isinstance(value, gast.Name):
            return [stmt]
        if isinstance(value, (gast.Tuple, gast.List)):
            out = []
            elts = [self.batched(e, out) if isinstance(e, (gast.Name, gast.Constant)) else None for e in value.elts]
            if None in elts:
                return self.loop_statement(stmt, target, value)
            out.append(self.assign(target, type(value)(elts=elts, ctx=gast.Load())))
            return out
        if isinstance(value, gast.Dict):
            out = []
            values = [self.batched(v, out) if isinstance(v, (gast.Name, gast.Constant)) else None for v in value.values]
            if None in values or any(k is None or self.is_batched(k) for k in value.keys):
                return self.loop_statement(stmt, target, value)
            out.append(self.assign(target, gast.Dict(keys=copy.deepcopy(value.keys), values=values)))
            return out
        app = classify(value, self.context.resolver)
        if isinstance(value, gast.Compare) and len(value.ops) == 1 and app.primitive is not None:
            app.bound = {"x1": value.left, "x2": value.comparators[0]}
        if app.kind == "function":
            return self._callee(stmt, target, app)
        if app.kind == "custom_jvp":
            new = self._custom_jvp_call(target, app)
            if new is not None:
                return new
        declared = getattr(self.static(value.func), "__astjax_vmap_call__", None) if app.kind == "opaque" else None
        if declared is not None:        # a library call that says how it batches (astjax.pure_callback)
            new = declared(self, target, value)
            if new is not None:
                return new
        if app.kind == "primitive" and app.primitive is not None:
            if app.primitive.name == "pop":
                return [stmt]
            if self._batched_list_operand(app):
                return self.loop_statement(stmt, target, value)
            rule = generic_rule(app.primitive)
            new = rule(self, target, app) if rule is not None else None
            if new is not None:
                if target_batched and not self.batching._result_batched(value, app):
                    # a shape query (the same for every example) assigned to a name batched elsewhere
                    new.append(self.assign(target, self._broadcast(_name(target), None)))
                return new
            if rule is not None and app.primitive.name in _RANK_DISPATCH:
                return self._rank_dispatch(stmt, target, value, app, rule)
        return self.loop_statement(stmt, target, value)

    def _refuse_unbatched_collective_call(self, value):
        """A function called with no batched argument runs as it is, once for the whole batch: a collective
        over this axis inside it would find no vmap binding the name. Refused here, naming the call."""
        if self.axis_name is None or not isinstance(value, gast.Call) or self.is_batched(value):
            return
        app = classify(value, self.context.resolver)
        if app.kind != "function":
            return
        try:
            from ..frontend.parse import function_source
            from .derivation import _callable_with_source
            node = function_source(_callable_with_source(app.callee)).node
        except Exception:
            return
        for call in walk(node):
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr in COLLECTIVES:
                raise self.context.error(
                    f"vmap: `{call.func.attr}` inside this call needs the batch of axis {self.axis_name!r}, but "
                    "the call has no batched argument, so it runs once for the whole batch", value,
                    hint="compute the collective in the vmapped function itself, or pass the function a batched "
                         "argument.")

    def _collective_batched(self, app):
        """Whether collective_rule's result for `app` carries the batch axis."""
        x = app.bound.get("x")
        if batched_result(app, self.axis_name, self.static):
            return True
        if app.primitive.name == "axis_index":
            return False
        return x is not None and self.is_batched(x)

    def _batched_list_operand(self, app):
        """Whether an operand other than a stack/concatenate sequence is a list or tuple whose items carry the
        batch: as an array it has the batch on axis 1, not 0 where the rules expect it (`np.sum(ys)` of a list
        built in a loop), so the statement runs example by example."""
        prim = app.primitive
        if prim.name == "getitem":      # `t[0]` of a batched tuple is its batched item: the rule says so
            return False
        pairs = getattr(prim.batch, "reads_tuples", ())     # lu_solve's (lu, piv): its rule reads the items
        for param, node in app.bound.items():
            if param == prim.sequence_operand or param not in prim.operands or not isinstance(node, gast.Name) or (
                    param in pairs):
                continue
            kind = self.kind(node)
            if kind is not None and kind != ARRAY and self.is_batched(node):
                return True
        return False

    def _rank_dispatch(self, stmt, target, value, app, rule):
        """Operands of unknown rank (the source is batched before any argument is seen): one branch per
        rank the rule handles, chosen at run time on unbatched facts (`jnp.ndim`), else the loop."""
        operands = [app.bound[k] for k in app.primitive.operands if isinstance(app.bound.get(k), gast.Name)]
        unknown = [o for o in operands if self.rank(o) is None]
        if not unknown or len(unknown) > 2:
            return self.loop_statement(stmt, target, value)
        branches = []
        for ranks in _combinations(len(unknown), (1, 2)):
            self._rank_override = {o.id: r for o, r in zip(unknown, ranks)}
            try:
                new = rule(self, target, app)
            finally:
                self._rank_override = {}
            if new is None:
                continue
            tests = [gast.Compare(left=_call("jnp.ndim", _name(o.id)), ops=[gast.Eq()],
                                  comparators=[_const(r + (1 if self.is_batched(o) else 0))])
                     for o, r in zip(unknown, ranks)]
            test = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
            branches.append((test, new))
        merged = []           # branches that write the same code share one test: `a or b`
        for test, body in branches:
            text = [gast.dump(s) for s in body]
            if merged and merged[-1][2] == text:
                previous = merged[-1][0]
                values = previous.values if isinstance(previous, gast.BoolOp) and isinstance(
                    previous.op, gast.Or) else [previous]
                merged[-1] = (gast.BoolOp(op=gast.Or(), values=values + [test]), merged[-1][1], text)
            else:
                merged.append((test, body, text))
        orelse = self.loop_statement(stmt, target, value)
        for test, body, _ in reversed(merged):
            orelse = [gast.If(test=test, body=body, orelse=orelse)]
        return orelse

    def _broadcast_assignment(self, stmt, target, value):
        """An unbatched value assigned to a name that is batched elsewhere: broadcast it."""
        if isinstance(value, gast.List) and not value.elts:
            return [stmt]
        if isinstance(value, gast.Call) and _func_name(value) in ("Tape",):
            return [stmt]
        if isinstance(value, gast.Constant) and value.value is None:
            return [stmt]
        if isinstance(value, (gast.Tuple, gast.List)):
            out = []
            elts = [self.batched(e, out) if isinstance(e, (gast.Name, gast.Constant)) else None for e in value.elts]
            if None not in elts:
                return out + [self.assign(target, type(value)(elts=elts, ctx=gast.Load()))]
        kind = self.batching.kinds.get(target)
        float_literal = isinstance(value, gast.Constant) and type(value.value) is float
        # the unbatched value gets a name of its own: `target` then holds one rank (jit gives a name one type)
        unbatched = self.fresh(f"{target}_")
        return [gast.copy_location(self.assign(unbatched, value), stmt),
                self.assign(target, self._broadcast(_name(unbatched), kind if kind == ARRAY else None,
                                                    float_literal=float_literal))]

    def loop_statement(self, stmt, target, value):
        """`target = value` computed example by example: the fallback that is never wrong."""
        value = self._astjax_callee(value)
        if target not in self.batching.batched:      # a shape query: every example gives the same answer
            return [self.assign(target, self._per_example(value, _const(0)))]
        results, b = self.fresh("_results"), self.fresh("_b")
        loop = gast.For(target=gast.Name(id=b, ctx=gast.Store(), annotation=None, type_comment=None),
                        iter=_call("range", self.B), body=[gast.Expr(value=_call(
                            gast.Attribute(value=_name(results), attr="append", ctx=gast.Load()),
                            self._per_example(value, _name(b))))], orelse=[], type_comment=None)
        app = classify(value, self.context.resolver)
        array_result = app.kind == "primitive" and app.primitive is not None and self.batching.kinds.get(
            target) == ARRAY
        stack = _call("jnp.stack", _name(results)) if array_result else _call(
            self.helper(HELPERS["stack_examples"]), _name(results))
        return [self.assign(results, gast.List(elts=[], ctx=gast.Load())), loop, self.assign(target, stack)]

    def _astjax_callee(self, value):
        """`np.roll(...)` as `jnp.roll(...)`: NumPy's own function may write into its result, which it makes
        like its operand, and an example of a batched array is an (immutable) astjax array."""
        if not isinstance(value, gast.Call):
            return value
        app = classify(value, self.context.resolver)
        prim = app.primitive if app.kind == "primitive" else None
        func = self.static(value.func)
        if prim is None or func is None or func is prim.impl or getattr(func, "__module__", None) is None:
            return value
        from .. import numpy as astjax_numpy
        if not func.__module__.startswith("numpy") or getattr(astjax_numpy, prim.name, None) is not prim.impl \
                or getattr(func, "__name__", None) != prim.name:
            return value
        value = copy.deepcopy(value)
        value.func = _call(f"jnp.{prim.name}").func
        return value

    def _per_example(self, value, b):
        mode = self

        class Pick(NodeTransformer):
            def visit_Name(self, node):
                if isinstance(node.ctx, gast.Load) and node.id in mode.batching.batched:
                    if mode.batching.kinds.get(node.id) == ARRAY:
                        return gast.Subscript(value=_name(node.id), slice=copy.deepcopy(b), ctx=gast.Load())
                    return _call(mode.helper(HELPERS["example_of"]), _name(node.id), copy.deepcopy(b))
                return node
        return Pick().visit(copy.deepcopy(value))

    def _callee_result(self, app, analysis):
        """(kind, rank) of what a batched call of a user function returns (its callee is built now); of a
        custom_jvp function, its function's."""
        if app.kind == "custom_jvp":
            from ..custom_jvp_batching import batchable
            if not batchable(app.callee, app.node):
                return None, None
            app = copy.copy(app)
            app.kind, app.callee = "function", app.callee.fun
            try:
                return self._callee_result(app, analysis)
            except AstjaxError:     # a function vmap cannot transform: its calls loop (`_custom_jvp_call`)
                return None, None
        if not any(analysis.is_batched(a) for a in app.args) or any(
                analysis.is_batched(k.value) for k in app.node.keywords) or any(
                not isinstance(a, (gast.Name, gast.Constant)) and analysis.is_batched(a) for a in app.args):
            return None, None
        spec = tuple(ParamSpec(analysis.is_batched(a), _argument_kind(analysis, a), analysis.rank(a)) for a in app.args)
        return self.result_of(self.callee_vmap(app.callee, spec, app.node))

    def _custom_jvp_call(self, target, app):
        """`y = f(x, w)` for a custom_jvp f with a rule, its arguments positional names or constants: the call of
        the custom_jvp built for the batch (custom_jvp_batching.py: f's function and rule vmapped), so later
        derivatives use f's rule. Anything else (nondiff_argnums, keywords, a batched expression, a function
        vmap cannot transform or whose result's kind the analysis does not know) loops."""
        from ..custom_jvp_batching import batchable, batched_custom_jvp
        custom, call = app.callee, app.node
        if not batchable(custom, call) or self.batching.kinds.get(target) is None or any(
                not isinstance(a, (gast.Name, gast.Constant)) for a in call.args) or any(
                self.is_batched(a) and self.kind(a) != ARRAY for a in call.args):
            return None
        axes = tuple(0 if self.is_batched(a) else None for a in call.args)
        label = self.bind_name(batched_custom_jvp(custom, axes), f"{custom.__name__}_batched")
        return [self.assign(target, gast.Call(func=_name(label), args=copy.deepcopy(call.args), keywords=[]))]

    def _callee(self, stmt, target, app):
        call = app.node
        if any(self.is_batched(k.value) for k in call.keywords) or any(
                not isinstance(a, (gast.Name, gast.Constant)) and self.is_batched(a) for a in app.args):
            return self.loop_statement(stmt, target, call)
        spec = tuple(ParamSpec(self.is_batched(a), _argument_kind(self, a), self.rank(a)) for a in app.args)
        label = self.callee_vmap(app.callee, spec, stmt)
        keywords = copy.deepcopy(call.keywords)
        if any(s.batched for s in spec):
            from ..frontend.parse import function_source
            from .derivation import _callable_with_source
            extra = batch_size_parameter(function_source(_callable_with_source(app.callee)).node)
            keywords.append(gast.keyword(arg=extra, value=self.B))
        new = gast.Call(func=_name(label), args=copy.deepcopy(app.args), keywords=keywords)
        return [self.assign(target, new)]

    # ------------------------------------------------------------ the result
    def _return(self, ret):
        value = ret.value
        out = []
        if isinstance(value, gast.Tuple) and isinstance(self.out_none, tuple):
            if len(self.out_none) != len(value.elts):
                raise self.context.error(f"vmap out_axes has {len(self.out_none)} entries but the function returns "
                                         f"{len(value.elts)} values", ret)
            elts = [self._output(e, none, out, ret) for e, none in zip(value.elts, self.out_none)]
            new = gast.Tuple(elts=elts, ctx=gast.Load())
        elif isinstance(self.out_none, tuple):
            raise self.context.error("vmap out_axes is a tuple, but the function does not return a tuple literal",
                                     ret, hint="return a tuple (return a, b) or pass one out_axes for all outputs.")
        elif isinstance(value, (gast.Tuple, gast.List)) and not self.out_none:
            new = type(value)(elts=[self._output(e, False, out, ret) for e in value.elts], ctx=gast.Load())
        else:
            new = self._output(value, bool(self.out_none), out, ret)
        if isinstance(value, gast.Name):
            self.result_kind, self.result_rank = self.kind(value), self.rank(value)
        elif isinstance(value, (gast.Tuple, gast.List)):
            self.result_kind = self.kind(value)
        return out + [gast.copy_location(gast.Return(value=new), ret)]

    def _output(self, node, none, out, ret):
        if none:
            if self.is_batched(node):
                raise self.context.error(
                    "vmap has mapped output but out_axes is None: this output depends on the batched inputs",
                    ret, hint="use out_axes=0 for it, or return a value that does not depend on the batch.")
            return copy.deepcopy(node)
        if isinstance(node, (gast.Tuple, gast.List)):
            return type(node)(elts=[self._output(e, False, out, ret) for e in node.elts], ctx=gast.Load())
        if isinstance(node, gast.Dict):
            return gast.Dict(keys=copy.deepcopy(node.keys), values=[self._output(v, False, out, ret)
                                                                     for v in node.values])
        if isinstance(node, gast.Constant) and node.value is None:
            return copy.deepcopy(node)
        if isinstance(node, gast.Name) and self.is_batched(node):
            return _name(node.id)
        if isinstance(node, (gast.Name, gast.Constant)):
            kind = self.kind(node)
            fresh = self.fresh("_out")
            out.append(self.assign(fresh, self._broadcast(node, kind if kind == ARRAY else None)))
            return _name(fresh)
        return copy.deepcopy(node)


def _argument_kind(analysis, node):
    """The kind of a callee's argument: a name's, or ARRAY for a number written in the call (so that a callee
    which assigns that parameter a batched value repeats the number along the batch on entry)."""
    if isinstance(node, gast.Name):
        return analysis.kind(node)
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, complex)):
        return ARRAY
    return None


def batch_size_parameter(function_node):
    """The name of the parameter through which a batched callee receives the batch size: `_batch_size`,
    or `_batch_size2`, ... when the function already uses that name (vmap of vmap). Caller and callee
    both compute it from the callee's source."""
    from ..codegen.naming import names_in
    taken = names_in(function_node)
    name, n = "_batch_size", 1
    while name in taken:
        n += 1
        name = f"_batch_size{n}"
    return name


_RANK_DISPATCH = frozenset({"matmul", "dot", "inner", "solve", "solve_triangular", "scipy_solve", "lstsq"})
# Elementwise primitives that never raise (NumPy gives nan or inf instead): safe to run for every example.
_SELECT_SAFE = frozenset({
    "add", "subtract", "multiply", "divide", "negative", "positive", "square", "sqrt", "abs", "exp", "expm1", "log",
    "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arctan", "arcsin", "arccos", "maximum", "minimum",
    "where", "clip", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "sign", "floor",
    "ceil", "logical_and", "logical_or", "logical_not", "isnan", "isfinite"})



def _walk_statements(stmts):
    for stmt in stmts:
        yield stmt
        for field in ("body", "orelse"):
            yield from _walk_statements(getattr(stmt, field, None) or [])


def _combinations(count, values):
    if count == 0:
        return [()]
    return [(v,) + rest for v in values for rest in _combinations(count - 1, values)]


def _name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _const(value):
    return gast.Constant(value=value, kind=None)


def _call(func, *args):
    if isinstance(func, str):
        parts = func.split(".")
        node = _name(parts[0])
        for attr in parts[1:]:
            node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
        func = node
    return gast.Call(func=func, args=list(args), keywords=[])


def _func_name(call):
    func = call.func
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        return func.attr
    return None
