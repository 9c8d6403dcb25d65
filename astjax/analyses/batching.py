"""Batching: which variables carry the batch axis, and what is known of each per-example value.

A variable is *batched* when some assignment to it reads a batched value (a
forward fixed point from the batched parameters, by name and ignoring
statement order, like analyses/activity.py: over-approximating is safe, since
the transformation broadcasts an unbatched value assigned to a batched name).
A batched array holds the batch on axis 0; a batched tuple, list or dict holds
it on axis 0 of every leaf.

Beside that, each name gets a *kind*: "array", a tuple of kinds (a tuple or
list literal, a tuple argument), "tape", or None (unknown), and the *rank* of
its per-example value when every assignment agrees on it. Rules use ranks to
emit one matrix product instead of a loop (`vmap(jnp.dot, in_axes=(None, 0))`).

Queries of a batched value's shape (`jnp.shape`, `len`, `.ndim`, ...) give the
per-example answer, which is the same for every example: their results are
not batched.
"""
import gast

from .classify import classify
from ..codegen.node_walk import walk

__all__ = ["Batching", "SHAPE_QUERIES", "ARRAY", "is_container", "split_leaf"]

ARRAY = "array"
TAPE = "tape"

# Primitives whose result depends only on shapes: the same for every example.
SHAPE_QUERIES = frozenset({"shape", "ndim", "size", "builtin_len", "reduced_size", "builtin_isinstance"})

_TYPE_QUERIES = frozenset({"result_type", "promote_types", "dtype", "issubdtype", "type", "can_cast", "iscomplexobj",
                           "isrealobj"})
_ELEMENTWISE_EXTRA = frozenset({
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "floor_divide", "isnan", "isfinite",
    "isinf", "logical_and", "logical_or", "logical_not", "logical_xor", "floor", "ceil", "sign", "trunc",
    "round", "around", "astype", "copy", "to_float", "zero_like", "zeros_like", "ones_like", "empty_like",
    "full_like", "clip_mask"})
_KEEP_RANK = frozenset({"transpose", "moveaxis", "swapaxes", "flip", "pad", "at_set", "at_add", "at_multiply"})
# Primitives that return one array (their rank may still be unknown); any other result is of unknown kind.
_ARRAY_RESULTS = frozenset({
    "cumsum", "cumprod", "trace", "inv", "det", "solve", "norm", "einsum", "broadcast_to", "take", "diagonal", "diag",
    "repeat", "dynamic_slice", "unbroadcast_to", "array", "full", "zeros", "ones", "empty", "eye",
    "identity", "arange", "argsort", "outer", "inner", "pad_adjoint", "cumsum_adjoint", "trace_adjoint",
    "take_adjoint", "diagonal_adjoint", "repeat_adjoint", "dynamic_slice_adjoint", "stack", "concatenate",
    "matmul_lhs_adjoint", "builtin_max", "builtin_min", "cast_adjoint"})
# Primitives that may return a tuple or list of arrays (a batched one holds the batch on each item).
_CONTAINER_RESULTS = frozenset({
    "split", "array_split", "hsplit", "vsplit", "dsplit", "split_parts", "stack_adjoint", "unstack", "meshgrid",
    "meshgrid_list", "divmod", "frexp", "modf", "slogdet", "eigh", "numpy_eigh", "scipy_eigh", "qr", "svd", "lu",
    "lu_factor", "nonzero", "gradient", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays"})
_RANK_OF = {"unbroadcast": "x", "unreduce": "x", "index_adjoint": "x", "zero_like": "x", "to_float": "x",
            "astype": "x", "copy": "a"}
# Adjoint helpers that always return an adjoint tree (rules/helpers.py's TreeAdjoint), never an array.
_TREE_RESULTS = frozenset({"attribute_adjoint", "stack_adjoint", "concatenate_adjoint", "tree_item_adjoint",
                           "sum_adjoint"})
# Every reduction rules/batching.py's reduction_rule batches (its cumulative ones keep their rank: not here), so
# a statement after `m = jnp.median(x)` knows m is an array of the reduced rank instead of looping over the batch.
_REDUCTIONS = frozenset({"sum", "mean", "prod", "max", "min", "var", "std", "all", "any", "argmax", "argmin",
                         "nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanvar", "nanstd", "ptp", "median",
                         "nanmedian"})


def _of_shapes_only(prim):
    """A helper whose result depends only on its operands' shapes (reason SHAPES) and has no batching rule:
    vmap computes it once, for example 0 (transforms/vmap.py's loop_statement)."""
    from ..rules.nondifferentiable import SHAPES
    return prim.reason == SHAPES and prim.batch is None and not is_elementwise(prim) and not prim.differentiable


def reads_only_batched_shapes(app, is_batched):
    """Whether every batched argument of the call lands where the primitive reads only shapes, ndims, dtypes
    or types (its declared `reads_shapes_of`, rules/shape_only_parameters.py): each example then gets the same
    answer. An index helper (`jnp.tril_indices_from(x)`) with such a call is computed once, for example 0."""
    shapes = app.primitive.reads_shapes_of
    return bool(shapes) and not any(is_batched(node) for key, node in (app.bound or {}).items() if key not in shapes)


def reads_batched_values(app, is_batched):
    """Whether a shape helper's call passes a batched value where it reads values, not only shapes.

    Refuse by default: any parameter not declared in `reads_shapes_of` is read by value (`jnp.zeros(n)`,
    `jnp.eye(3, k=k)`, tile's reps, pivots), so a batched argument there makes the result batched, computed
    example by example (stacked when every example's shape agrees, refused at the user's line when they
    differ), never example 0's answer for all. A call the signature does not bind reads values too."""
    if app.bound is None:
        return True
    shapes = app.primitive.reads_shapes_of
    return any(is_batched(node) for key, node in app.bound.items() if key not in shapes)


def is_elementwise(prim):
    return prim.elementwise or prim.name in _ELEMENTWISE_EXTRA


class Batching:
    """The batched names of a normalized function, their kinds and per-example ranks.

    batched_params: parameter names whose argument carries the batch axis.
    kinds, ranks: name -> kind / per-example rank known for the parameters.
    control: the first compound statement whose condition or trip count is batched
        (the transformation then loops over the batch), else None.
    """

    def __init__(self, function_node, resolver, batched_params, kinds=None, ranks=None, callee_kind=None):
        self.resolver = resolver
        self.callee_kind = callee_kind or (lambda app, batching: (None, None))
        self.batched = set(batched_params)
        self.params = [a.id for a in function_node.args.args]
        self.assignments = []      # (target, value, Application)
        self.effects = []          # Expr statements: push, append, other calls
        self.compound = []
        for node in _in_order(function_node):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                self.assignments.append((node.targets[0].id, node.value, classify_with_operands(node.value, resolver)))
            elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
                self.effects.append(node)
            elif isinstance(node, (gast.If, gast.While, gast.For, gast.Assert)):
                self.compound.append(node)
        self._forward()
        self.kinds = {}
        self.ranks = {}
        self._infer(dict(kinds or {}), dict(ranks or {}))
        self.control = next((n for n in self.compound if self._batched_control(n)), None)

    # ------------------------------------------------------------ batchedness
    def is_batched(self, node):
        """Whether an operand expression reads a batched name."""
        return any(isinstance(n, gast.Name) and n.id in self.batched for n in walk(node))

    def _result_batched(self, value, app):
        if app.kind == "primitive" and app.primitive is not None and app.primitive.name in SHAPE_QUERIES:
            return False
        if isinstance(value, gast.Call) and self._container_test(value):
            return False
        if app.kind == "primitive" and app.primitive is not None and _of_shapes_only(app.primitive) and not \
                reads_batched_values(app, self.is_batched):
            return False        # `leading(g, 1)`, `polyint_factors(p)`: the same for every example
        if app.kind == "primitive" and app.primitive is not None and reads_only_batched_shapes(app, self.is_batched):
            return False        # `jnp.tril_indices_from(x)`: the same for every example
        if app.kind == "primitive" and app.primitive is not None and app.primitive.name == "unique_index":
            return self.is_batched(app.bound["idx"])     # it returns its index, checked against x's shape
        if app.kind == "opaque" and getattr(app.callee, "__name__", None) in _TYPE_QUERIES and getattr(
                app.callee, "__module__", "").split(".")[0] in ("numpy", "builtins", "astjax"):
            return False          # a dtype is the same for every example
        if isinstance(value, gast.Attribute) and value.attr in ("shape", "ndim", "size", "dtype"):
            return False
        if isinstance(value, gast.Call) and _func_name(value) in ("Tape",):
            return False
        return self.is_batched(value)

    def _forward(self):
        changed = True
        while changed:
            changed = False
            for node in self.compound:     # a branch on a batched test: what it assigns differs per example
                if isinstance(node, (gast.If, gast.While)) and self.expression_batched(node.test):
                    for target in _assigned_in(node):
                        if target not in self.batched:
                            self.batched.add(target)
                            changed = True
            for target, value, app in self.assignments:
                if target not in self.batched and self._result_batched(value, app):
                    self.batched.add(target)
                    changed = True
            for stmt in self.effects:
                call = stmt.value
                name = _func_name(call)
                if name == "push" and len(call.args) == 2 and isinstance(call.args[0], gast.Name):
                    receiver, args = call.args[0].id, call.args[1:]
                elif name == "append" and isinstance(call.func, gast.Attribute) and isinstance(
                        call.func.value, gast.Name):
                    receiver, args = call.func.value.id, call.args
                else:
                    continue
                if receiver not in self.batched and any(self.is_batched(a) for a in args):
                    self.batched.add(receiver)
                    changed = True

    def expression_batched(self, node):
        """Whether an expression's value carries the batch (a shape query of a batched value does not)."""
        if isinstance(node, gast.Name):
            return node.id in self.batched
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "ndim", "size", "dtype"):
            return False
        if isinstance(node, gast.Call):
            from ..frontend.resolve import NOT_STATIC
            from ..rules.registry import lookup_callable
            target = self.resolver.static_value(node.func)
            prim = lookup_callable(target) if target is not NOT_STATIC else None
            if prim is not None and prim.name in SHAPE_QUERIES or self._container_test(node):
                return False
        return any(self.expression_batched(child) for child in gast.iter_child_nodes(node))

    def _container_test(self, call):
        """`isinstance(v, (tuple, list))` (normalized to checked_isinstance) with only container types: the same
        answer for every example (an example of a batched array is an array, of a batched container a
        container), so not batched. Any other type (`float`) may answer differently per example."""
        from ..frontend.resolve import NOT_STATIC
        from ..rules.registry import lookup_callable
        target = self.resolver.static_value(call.func)
        prim = lookup_callable(target) if target is not NOT_STATIC else None
        if prim is None or prim.name != "checked_isinstance" or len(call.args) != 2 or call.keywords:
            return False
        types = call.args[1].elts if isinstance(call.args[1], gast.Tuple) else [call.args[1]]
        return bool(types) and all(self.resolver.static_value(t) in (tuple, list, dict) for t in types)

    def _batched_control(self, node):
        if isinstance(node, (gast.If, gast.While, gast.Assert)):
            return self.expression_batched(node.test)
        if isinstance(node, gast.For):
            return self.is_batched(node.iter) or (isinstance(node.target, gast.Name)
                                                  and node.target.id in self.batched)
        return False

    # ------------------------------------------------------------ kinds and ranks
    def _infer(self, kinds, ranks):
        """Kinds and ranks: a name keeps one only when every assignment to it agrees.

        Optimistic: an assignment that reads a name no assignment has given a value yet waits for
        the next round, so `y = f(x); y = g(y)` keeps the rank both agree on.
        """
        self.kinds, self.ranks = kinds, ranks
        self.loop_counters = set()      # `for i in range(n)` (loops are over ranges once normalized): ints
        counters = {node.target.id for node in self.compound if isinstance(node, gast.For)
                    and isinstance(node.target, gast.Name) and _is_range(node.iter)}
        for name in counters:
            if not any(t == name for t, _, _ in self.assignments):
                self.kinds.setdefault(name, ARRAY)
                self.ranks.setdefault(name, 0)
                self.loop_counters.add(name)
        assigned = {t for t, _, _ in self.assignments}
        # a parameter assigned again (`x, w = x`) has the kind and rank of every value it holds, not its own
        rebound = {n: (self.kinds.get(n), self.ranks.get(n)) for n in (set(self.kinds) | set(self.ranks)) & assigned
                   if n not in counters}
        fixed = (set(self.kinds) | set(self.ranks)) - set(rebound)
        targets = assigned - fixed - set(rebound)
        for stmt in self.effects:
            if _func_name(stmt.value) == "append" and isinstance(stmt.value.func.value, gast.Name):
                targets.discard(stmt.value.func.value.id)
        seen = set(rebound)
        self.tape_contents = None
        self.containers = set()     # names some assignment gives a tuple, list, dict or adjoint tree
        for _ in range(50):
            before = (dict(self.kinds), dict(self.ranks))
            met_kinds = {name: ARRAY for name in counters - fixed}
            met_ranks = {name: 0 for name in counters - fixed}
            met_kinds.update({name: kind for name, (kind, _) in rebound.items()})
            met_ranks.update({name: rank for name, (_, rank) in rebound.items()})
            for target, value, app in self.assignments:
                if target in fixed:
                    continue
                if any(isinstance(n, gast.Name) and n.id in targets and n.id not in seen for n in walk(value)):
                    continue
                if self.tape_contents is None and isinstance(value, gast.Call) and _func_name(value) == "pop":
                    continue        # what comes off a tape is known once the pushes have been seen
                kind, rank = self._kind_rank(value, app)
                prim = app.primitive if app.kind == "primitive" else None
                if (is_container(kind) and kind != TAPE) or isinstance(value, gast.Dict) or (prim is not None and (
                        (prim.name in _CONTAINER_RESULTS and kind != ARRAY) or (
                            prim.name == "index_adjoint" and self.kind(app.bound.get("x")) != ARRAY))):
                    self.containers.add(target)     # (the adjoint of what may be a tuple is a TreeAdjoint)
                _meet(met_kinds, target, kind)
                _meet(met_ranks, target, rank)
                self.kinds[target], self.ranks[target] = met_kinds[target], met_ranks[target]
                seen.add(target)
            tapes = {}
            for stmt in self.effects:
                name = _func_name(stmt.value)
                if name == "append" and isinstance(stmt.value.func.value, gast.Name):
                    self.kinds[stmt.value.func.value.id] = "list"
                    self.containers.add(stmt.value.func.value.id)
                if name == "push" and len(stmt.value.args) == 2 and isinstance(stmt.value.args[0], gast.Name):
                    pushed = stmt.value.args[1]
                    _meet(tapes, stmt.value.args[0].id, (self.kind(pushed), self.rank(pushed)))
            self.tape_contents = tapes      # tape -> (kind, rank) every value pushed on it has, else None parts
            if (dict(self.kinds), dict(self.ranks)) == before:
                break
        for target, _, _ in self.assignments:
            self.kinds.setdefault(target, None)
            self.ranks.setdefault(target, None)

    def rank(self, node):
        """The per-example rank of an operand, or None when unknown."""
        if isinstance(node, gast.Constant):
            return 0 if isinstance(node.value, (int, float, complex, bool)) else None
        if isinstance(node, gast.Name):
            return self.ranks.get(node.id)
        return None

    def kind(self, node):
        if isinstance(node, gast.Constant):
            return ARRAY if isinstance(node.value, (int, float, bool)) else None
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id)
        if isinstance(node, (gast.Tuple, gast.List)):
            return tuple(self.leaf(e) for e in node.elts)
        return None

    def leaf(self, node):
        """What a container records of an element: its rank for an array of known rank, else its kind."""
        kind, rank = self.kind(node), self.rank(node)
        return rank if kind == ARRAY and rank is not None else kind

    def _kind_rank(self, value, app):
        if isinstance(value, gast.Name):
            return self.kind(value), self.rank(value)
        if isinstance(value, gast.Constant):
            return self.kind(value), self.rank(value)
        if isinstance(value, (gast.Tuple, gast.List)):
            if isinstance(value, gast.List) and not value.elts:
                return "list", None
            return tuple(self.leaf(e) for e in value.elts), None
        if isinstance(value, gast.Call) and _func_name(value) == "Tape":
            return TAPE, None
        if isinstance(value, gast.Attribute) and value.attr in ("shape", "ndim", "size", "dtype"):
            return None, None
        if isinstance(value, gast.Subscript):
            base = self.kind(value.value)
            if isinstance(base, tuple):
                index = value.slice
                if isinstance(index, gast.Constant) and isinstance(index.value, int) and -len(base) <= index.value < len(base):
                    return split_leaf(base[index.value])
                return None, None
            if base == ARRAY:
                return ARRAY, _index_rank(self.rank(value.value), value.slice, self)
            return None, None
        if app.kind in ("function", "custom_jvp"):     # a custom_jvp's function (transforms/vmap.py batches its call)
            return self.callee_kind(app, self)
        if app.kind != "primitive" or app.primitive is None:
            return None, None
        prim = app.primitive
        if prim.name in ("ndim", "size", "builtin_len", "reduced_size", "axis_index"):
            return ARRAY, 0
        if prim.name in SHAPE_QUERIES:
            return None, None
        bound = app.bound or {}
        declared = getattr(prim.batch, "result", None)       # rules/batching_axes.py: the rule says
        if declared is not None:
            return declared(self, bound)
        if prim.result_shape_of and any(not (isinstance(bound.get(k), gast.Constant) and bound[k].value is None)
                                        for k in ("shape",) if k in bound):
            return ARRAY, None          # zeros_like(a, shape=...): not a's rank
        ranks = [self.rank(n) for k, n in bound.items() if k in _array_params(prim, bound)]
        if prim.name == "index_adjoint" and is_container(self.kind(bound.get("x"))):
            return "tree", None
        if prim.name == "index_adjoint" and self.kind(bound.get("x")) is None:
            return None, None         # x may be a tuple (a multi-output primitive's result): a tree, or an array
        if prim.name == "zero_like" and self.kind(bound.get("x")) != ARRAY:
            return self.kind(bound.get("x")), None    # zeros shaped like a tuple: that tuple's kind
        if prim.name in _TREE_RESULTS or (prim.name in ("placed_at", "cleared_at") and is_container(
                self.kind(bound.get("x")))):
            return "tree", None       # an adjoint tree (TreeAdjoint): never reshaped as an array
        if is_elementwise(prim) and any(is_container(self.kind(bound[k])) for k in _array_params(prim, bound)):
            return "tree", None       # adjoints of containers add item by item
        if is_elementwise(prim):
            return ARRAY, (max(ranks) if ranks and None not in ranks else None)
        r = self.rank(bound.get(prim.operands[0])) if prim.operands and prim.operands[0] in bound else None
        if prim.name in _KEEP_RANK:
            return ARRAY, r
        if prim.name in _RANK_OF:
            return ARRAY, self.rank(bound.get(_RANK_OF[prim.name]))
        if prim.name in _REDUCTIONS:
            axis, keep = bound.get("axis"), bound.get("keepdims")
            if isinstance(keep, gast.Constant) and keep.value is True:
                return ARRAY, r
            if isinstance(axis, gast.Constant) and axis.value is None:
                return ARRAY, 0
            if r is not None and isinstance(axis, gast.Constant) and isinstance(axis.value, int):
                return ARRAY, r - 1
            if r is not None and isinstance(axis, gast.Tuple):
                return ARRAY, r - len(axis.elts)
            return ARRAY, None
        if prim.name in ("matmul", "dot"):
            r1, r2 = (self.rank(bound.get(k)) for k in prim.operands)
            if r1 is None or r2 is None:
                return ARRAY, None
            if prim.name == "dot" and (r1 == 0 or r2 == 0):
                return ARRAY, max(r1, r2)
            if r1 == 1 and r2 == 1:
                return ARRAY, 0
            if r1 == 1 or r2 == 1:
                return ARRAY, max(r1, r2) - 1
            return ARRAY, (max(r1, r2) if prim.name == "matmul" else r1 + r2 - 2)
        if prim.name == "reshape":
            shape = bound.get("shape")
            if isinstance(shape, gast.Tuple):
                return ARRAY, len(shape.elts)
            if isinstance(shape, gast.Constant) and isinstance(shape.value, int):
                return ARRAY, 1
            return ARRAY, None
        if prim.name == "ravel":
            return ARRAY, 1
        if prim.name == "expand_dims" and r is not None:
            axis = bound.get("axis")
            if isinstance(axis, gast.Constant) and isinstance(axis.value, int):
                return ARRAY, r + 1
            if isinstance(axis, gast.Tuple):
                return ARRAY, r + len(axis.elts)
        if prim.name == "squeeze" and r is not None and isinstance(bound.get("axis"), gast.Constant) and isinstance(
                bound["axis"].value, int):
            return ARRAY, r - 1
        if prim.name in ("stack", "concatenate"):
            seq = bound.get(prim.sequence_operand)
            if isinstance(seq, (gast.List, gast.Tuple)) and seq.elts:
                rs = {self.rank(e) for e in seq.elts}
                if len(rs) == 1 and None not in rs:
                    return ARRAY, rs.pop() + (1 if prim.name == "stack" else 0)
            return ARRAY, None
        if prim.name == "pop":
            tape = bound.get("tape")
            contents = getattr(self, "tape_contents", {}).get(tape.id) if isinstance(tape, gast.Name) else None
            return contents if contents is not None else (None, None)
        if prim.name in ("zeros", "ones", "empty", "full"):
            shape = bound.get("shape")
            if isinstance(shape, gast.Tuple):
                return ARRAY, len(shape.elts)
        return (ARRAY if prim.name in _ARRAY_RESULTS or prim.name in _REDUCTIONS else None), None


def classify_with_operands(value, resolver):
    """classify, with a comparison's two sides bound as operands (x1 < x2) like a binary operator's."""
    app = classify(value, resolver)
    if isinstance(value, gast.Compare) and len(value.ops) == 1 and app.primitive is not None and not app.bound:
        app.bound = {"x1": value.left, "x2": value.comparators[0]}
    return app


def is_container(kind):
    """Whether a kind is a tuple, list, dict, adjoint tree or tape (not an array, not unknown)."""
    return kind is not None and kind != ARRAY and not isinstance(kind, int)


def split_leaf(leaf):
    """(kind, rank) of a container's element as `Batching.leaf` recorded it."""
    if isinstance(leaf, int) and not isinstance(leaf, bool):
        return ARRAY, leaf
    return leaf, None


def _array_params(prim, bound):
    """The parameters of an elementwise primitive that hold arrays (not dtypes, axes, decimals or axis
    names): its operands whatever their names (`comb(N, k)`'s k is an array), else every parameter whose
    name is not one of an integer parameter's."""
    from ..rules.registry import INTEGER_PARAMETERS
    return [k for k, node in bound.items() if k in prim.operands or k in prim.broadcasts_with or (
        k not in INTEGER_PARAMETERS and k not in ("decimals", "out", "like")
        and not _names_only(node))]


def _names_only(node):
    """None, a string or a tuple of strings (an axis name `'i'`, `('i', 'j')`): no array."""
    if isinstance(node, (gast.Tuple, gast.List)):
        return bool(node.elts) and all(isinstance(e, gast.Constant) and isinstance(e.value, str) for e in node.elts)
    return isinstance(node, gast.Constant) and (node.value is None or isinstance(node.value, str))


def _index_rank(rank, index, batching):
    """The rank of x[index] for an x of rank `rank`, when the index is made of ints, slices, None and `...`."""
    if rank is None:
        return None
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    out = rank
    for part in parts:
        if isinstance(part, gast.Slice):
            continue
        if isinstance(part, gast.Constant):
            if part.value is None:
                out += 1
            elif isinstance(part.value, int) and not isinstance(part.value, bool):
                out -= 1
            elif part.value is Ellipsis:
                continue
            else:
                return None
        elif isinstance(part, gast.Name) and part.id in batching.loop_counters:
            out -= 1            # `for i in range(n)`: an int (a 0-d boolean array would add an axis)
        else:
            return None
    return out


def _is_range(node):
    """`range(...)` or `reversed(range(...))`."""
    if isinstance(node, gast.Call) and _func_name(node) == "reversed" and node.args:
        node = node.args[0]
    return isinstance(node, gast.Call) and _func_name(node) == "range"


def _assigned_in(node):
    return {n.targets[0].id for stmt in node.body + node.orelse for n in walk(stmt)
            if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)}


def _in_order(node):
    """The statements of a function (and the nodes they contain) in source order."""
    for stmt in getattr(node, "body", []) + getattr(node, "orelse", []):
        yield stmt
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            yield from _in_order(stmt)


def _meet(table, name, value):
    if name not in table:
        table[name] = value
    elif table[name] != value:
        table[name] = None


def _func_name(call):
    func = call.func
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        return func.attr
    return None
