"""Fuse an elementwise expression over arrays into one loop (and a sum of one into one pass).

A statement whose right-hand side is a tree of elementwise operations on
arrays of one float dtype becomes a call of a generated kernel that reads each
input once and writes the output once, instead of one temporary array per
operation:

    _t5 = jnp.where(x > np.float32(0), x, np.float32(alpha) * jnp.exp(x) - np.float32(alpha))
->
    _t5 = _fused_1(x.shape, x, np.float32(0), np.float32(alpha))

    def _fused_1(shape, x0, c0, c1):
        out = astjax_empty(shape, np.float32)
        for i0 in range(shape[0]):
            out[i0] = x0[i0] if x0[i0] > c0 else c1 * fast_exp(x0[i0]) - c1
        return out

An element of an array (`kernel[i, j]`) is read once before the loop, and a
`lax.dynamic_slice` window is read in place at its clamped offset (the blur's
`output + kernel[i, j] * window` reads no copy of the window).

`jnp.sum(<elementwise tree>)` becomes one pass that accumulates in float64.
Arrays of different shapes would broadcast: then the statement keeps its
unfused form (`_fused_1(x, y) if x.shape == y.shape else <original>`), so the
meaning never changes. The one broadcast a loop does itself is the static one of
`jnp.expand_dims(a, axes)`: its inserted axes have length 1, so the loop reads `a`
without them (the outer product of a per-example gradient, `expand_dims(x, -1) *
expand_dims(g, -2)`, is `out[i0, i1, i2] = x0[i0, i1] * x1[i0, i2]`, written once,
row by row), and the other axes must equal the loop's at run time or the
statement runs unfused. `unbroadcast_to(E, shape)` reads through to E when
`shape` is the loop's shape (checked at run time the same way). Scalar forms follow NumPy on scalars (np.exp, np.log:
nan and inf rather than exceptions); `exp` is jit/fast_math.py's vectorizable one
unless ASTJAX_FAST_MATH=0.
"""
import copy

import gast

from ...codegen.unparse import unparse
from ...rules import lookup_callable
from .merge_sibling_loops import FusedLoop, merge_sibling_loops
from .observed_shapes import checked_shape_call, holds_as_observed
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["fuse_elementwise"]

_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)
_COMPARISONS = (gast.Gt, gast.GtE, gast.Lt, gast.LtE, gast.Eq, gast.NotEq)
# primitive -> the scalar expression of one element, written with the operand names a, b, c.
SCALAR_FORMS = {
    "exp": "np.exp(a)", "log": "np.log(a)", "tanh": "np.tanh(a)", "sin": "np.sin(a)", "cos": "np.cos(a)",
    "sqrt": "np.sqrt(a)", "abs": "np.abs(a)", "negative": "-a", "log1p": "np.log1p(a)", "expm1": "np.expm1(a)",
    "square": "a * a", "where": "(b if a else c)",
    "maximum": "(a if (a > b or a != a) else b)", "minimum": "(a if (a < b or a != a) else b)",   # ties: b, as NumPy
}
# primitives whose vectorizable form (jit/fast_math.py) replaces Numba's scalar libm call
FAST_FORMS = {"exp": "fast_exp(a)", "tanh": "fast_tanh(a)"}
_FLOATS = ("float32", "float64")
MINIMUM_OPERATIONS = 2


def fuse_elementwise(node, context):
    """Rewrite the fusible statements of `node`; the kernels go to `context.kernels`."""
    inline_single_use(node, context.namespace)
    hoist_opaque_operands(node, context)
    hoist_product_operands(node, context)
    hoist_whole_sums(node, context)
    definitions = _single_definitions(node)
    for name in _product_operands(node, context):    # stored for the product anyway: a loop reads it,
        definitions.pop(name, None)                  # never recomputes it (`h = tanh(p)`: no tanh again)
    in_place = _updatable_in_place(node)
    counter = [0]
    # Consumers first: once the statements reading a temporary recompute it, it needs no loop of its own.
    for stmt in reversed([s for s in walk(node) if isinstance(s, gast.Assign)]):
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name):
            continue
        if counter[0] and stmt.targets[0].id in definitions and not _is_read(node, stmt.targets[0].id):
            if stmt in node.body and _pure(stmt.value, context):
                node.body.remove(stmt)          # its readers recompute it: its operands' reads go too
            continue
        target_type = context.lowered_type(stmt.targets[0].id)
        if target_type is None or target_type[0] not in ("array", "scalar") or target_type[1] not in _FLOATS:
            continue
        fusion = _Fusion(context, target_type[1], definitions)
        if stmt.targets[0].id in in_place:
            fusion.update_in_place = stmt.targets[0].id
        call = fusion.fuse(stmt.value, target_type, counter)
        if call is not None:
            stmt.value = call
    if counter[0]:
        remove_unread(node, context)
        merge_sibling_loops(node, context)
        for n in walk(node):
            if isinstance(n, gast.Call) and hasattr(n, "_astjax_fused"):
                del n._astjax_fused


_FRESH_CALLS = {"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full", "full_like"}


def _updatable_in_place(node):
    """Names a fused loop may overwrite instead of allocating a new array: locals that only ever hold
    arrays made fresh in this function (np.zeros_like, arithmetic) and that nothing reads except their
    own updates and the return, so no other name, tape or callee can still see the old values.

        output = np.zeros_like(image)
        for ...:
            output = output + kernel[i, j] * window      # written in place, one buffer for the loop
        return output
    """
    params = {a.id for a in node.args.args}
    assigned, fresh = set(), set()
    for stmt in walk(node):
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            for target in targets:
                for n in walk(target):
                    if isinstance(n, gast.Name):
                        assigned.add(n.id)
                        if isinstance(stmt, gast.Assign) and target is n and _makes_fresh(stmt.value):
                            fresh.add(n.id)
                        else:
                            fresh.discard(n.id)
                            params.add(n.id)           # assigned something that may share memory
        elif isinstance(stmt, (gast.For, gast.comprehension)):
            for n in walk(stmt.target):
                if isinstance(n, gast.Name):
                    params.add(n.id)
    allowed = set()
    for stmt in walk(node):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
            allowed.update(id(n) for n in walk(stmt.value)
                           if isinstance(n, gast.Name) and n.id == stmt.targets[0].id)
        elif isinstance(stmt, gast.Return) and stmt.value is not None:
            values = stmt.value.elts if isinstance(stmt.value, gast.Tuple) else [stmt.value]
            allowed.update(id(v) for v in values if isinstance(v, gast.Name))
    loads = [n for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    stray = {n.id for n in loads if id(n) not in allowed}
    return {name for name in fresh if name not in params and name not in stray}


def _makes_fresh(value):
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in ("np", "jnp"):
            return func.attr in _FRESH_CALLS or func.attr in SCALAR_FORMS
        return isinstance(func, gast.Name) and func.id == "pad_edge_or_zeros"
    return False


def _single_definitions(node):
    """{name: value} for names assigned once, at the function's top level, from names that are never
    rebound: reading such a name anywhere means its one value, so a fused loop may recompute it
    from its operands instead of reading a stored array (`_t4 = 1.0 / _t3` inside the adjoint's loop)."""
    stores = _store_counts(node)
    out = {}
    for stmt in node.body:
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and stores.get(stmt.targets[0].id) == 1 and _elementwise_value(stmt.value)
                and all(stores.get(n.id, 0) <= 1 for n in walk(stmt.value) if isinstance(n, gast.Name))):
            out[stmt.targets[0].id] = stmt.value
    return out


def remove_unread(node, context=None):
    """Drop top-level assignments of elementwise values that nothing reads any more (fused loops
    recompute them)."""
    while True:
        loads = {}
        for n in walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
        keep = [s for s in node.body if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                                             and isinstance(s.targets[0], gast.Name)
                                             and not loads.get(s.targets[0].id) and _pure(s.value, context))]
        if len(keep) == len(node.body):
            return
        node.body = keep


def _pure(value, context=None):
    """Arithmetic, comparisons, calls of astjax.numpy functions and fused loops: nothing else happens.
    With the `context`, also the adjoint's spreading helpers (`unreduce`, `unbroadcast`): they only
    make a new array (a fused loop that reads their value checks the shapes they would check)."""
    for n in walk(value):
        if isinstance(n, gast.Call):
            func = n.func
            fused = isinstance(func, gast.Name) and func.id.startswith("_fused_")
            if not fused and not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                                  and func.value.id in ("jnp", "np")) and not _spreading(func, context):
                return False
    return True


def _spreading(func, context):
    if context is None or not isinstance(func, gast.Name):
        return False
    prim = lookup_callable(context.namespace.get(func.id))
    return prim is not None and prim.name in ("unreduce", "unbroadcast")


def _is_read(node, name):
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) for n in walk(node))


def _store_counts(node):
    stores = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    return stores


def inline_single_use(node, namespace=None):
    """`t = E; u = f(t)` -> `u = f(E)` where t is read nowhere else: a longer elementwise tree to fuse.

    Only consecutive statements of one block, so nothing runs between E's old and new place.
    """
    loads = {}
    stores = {}
    for n in walk(node):
        if isinstance(n, gast.Name):
            table = loads if isinstance(n.ctx, gast.Load) else stores
            table[n.id] = table.get(n.id, 0) + 1
    params = {a.id for a in node.args.args}
    for block in _blocks(node):
        i = 0
        while i + 1 < len(block):
            first, second = block[i], block[i + 1]
            name = first.targets[0].id if (isinstance(first, gast.Assign) and len(first.targets) == 1
                                           and isinstance(first.targets[0], gast.Name)) else None
            if (name and name not in params and loads.get(name) == 1 and stores.get(name) == 1
                    and isinstance(second, gast.Assign) and _elementwise_value(first.value)
                    and not _opaque_call(first.value, namespace)):
                uses = [n for n in walk(second.value) if isinstance(n, gast.Name) and n.id == name]
                if len(uses) == 1:
                    second.value = _replace(second.value, uses[0], first.value)
                    del block[i]
                    continue
            i += 1


def hoist_opaque_operands(node, context):
    """`h = jnp.tanh(jnp.dot(x, w))` -> `_product_1 = jnp.dot(x, w); h = jnp.tanh(_product_1)`: the
    matrix product stays on BLAS and the function with a fast form runs as a fused loop over its
    result. The new name holds what `h` holds (a float function keeps its operand's shape and dtype)."""
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    for block in list(_blocks(node)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Call) and len(stmt.value.args) == 1 and not stmt.value.keywords
                    and _opaque_call(stmt.value.args[0], context.namespace)):
                continue
            prim = _primitive_of(stmt.value.func, context.namespace)
            kind = context.lowered_type(stmt.targets[0].id)
            if prim is None or prim.name not in FAST_FORMS or kind is None or kind[0] != "array" \
                    or kind[1] not in _FLOATS:
                continue
            label = _fresh_label("_product", taken)
            context.types[label] = set(context.types_of(stmt.targets[0].id))
            context.same_shape[label] = stmt.targets[0].id    # its shape tests can be guards (observed_shapes)
            block.insert(i - 1, _hoisted(label, stmt.value.args[0], stmt))
            stmt.value.args[0] = _name(label)
            i += 1


_PRODUCT_ADJOINTS = ("dot_lhs_adjoint", "dot_rhs_adjoint", "matmul_lhs_adjoint", "matmul_rhs_adjoint")


def hoist_product_operands(node, context):
    """`bw = dot_rhs_adjoint(bh * (1.0 - h * h), x, w)` -> `_operand_1 = bh * (1.0 - h * h); bw =
    dot_rhs_adjoint(_operand_1, x, w)`: an elementwise expression as the first operand of a matrix
    product (or of its adjoints) becomes a statement of its own, which fuses into one loop, instead of
    a chain of temporaries Numba compiles as array expressions inside the caller. Only the first
    operand moves, so nothing is evaluated in another order; only where every name the expression
    reads holds arrays of one float dtype and rank (or scalars of that dtype), so the new name's type
    is that array's."""
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    for block in list(_blocks(node)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and stmt.value.args
                    and not stmt.value.keywords and isinstance(stmt.value.args[0], (gast.BinOp, gast.UnaryOp))):
                continue
            if not _is_product(stmt.value.func, context.namespace):
                continue
            operand = stmt.value.args[0]
            kind = _elementwise_array_kind(operand, context)
            if kind is None:
                continue
            label = _fresh_label("_operand", taken)
            context.types[label] = {kind}
            stmt.value.args[0] = _name(label)
            block.insert(i - 1, _hoisted(label, operand, stmt))
            i += 1


def _product_operands(node, context):
    """Names passed to a matrix product or its adjoints: their arrays exist whatever fusion does."""
    return {a.id for n in walk(node) if isinstance(n, gast.Call) and _is_product(n.func, context.namespace)
            for a in n.args if isinstance(a, gast.Name)}


def _is_product(func, namespace):
    """Whether `func` names jnp.dot or jnp.matmul, or one of their adjoints (astjax/rules/linalg.py)."""
    prim = _primitive_of(func, namespace)
    if prim is not None:
        return prim.name in ("dot", "matmul")
    from ...rules.linalg import COMPOSITES
    target = namespace.get(func.id) if isinstance(func, gast.Name) else None
    name = getattr(target, "__name__", None)
    return name in _PRODUCT_ADJOINTS and COMPOSITES.get(name) is target


def _elementwise_array_kind(expr, context):
    """("array", dtype, rank) of an expression of operators on names that hold arrays of that one
    float dtype and rank (and scalars or constants of the dtype), else None."""
    arrays, scalars = set(), set()
    casts = [n for n in walk(expr) if isinstance(n, gast.Call)]
    if not all(_is_cast(c) and isinstance(c.args[0], gast.Constant) for c in casts):
        return None                              # np.float32(1.0), which weak_scalars wrote, and no other call
    cast_parts = {id(p) for c in casts for p in walk(c)}
    for n in walk(expr):
        if id(n) in cast_parts:
            continue
        if isinstance(n, gast.Name):
            kind = context.lowered_type(n.id)
            if kind is None:
                return None
            (arrays if kind[0] == "array" else scalars).add(kind)
        elif not isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Constant, gast.operator, gast.unaryop,
                                gast.expr_context)):
            return None
    if len(arrays) != 1:
        return None
    kind = next(iter(arrays))
    if kind[1] not in _FLOATS or any(s != ("scalar", kind[1]) for s in scalars):
        return None
    return kind


def hoist_whole_sums(node, context):
    """`b = b + index_adjoint(k, (i, j), unbroadcast_to(g * w, s))` where `s` is always the empty shape ->
    `_total_1 = unbroadcast_to(g * w, s); b = b + index_adjoint(k, (i, j), _total_1)`: unbroadcasting to a
    scalar sums every element, and as a statement of its own that sum is one fused pass (the blur's
    kernel gradient: one pass per tap, no product array). Only out of a plain assignment whose other
    calls are primitives (nothing else runs between the sum's old place and its new one, and nothing
    lazy: no `if`-expression, `and`/`or` or lambda around it)."""
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    for block in list(_blocks(node)):
        i = 0
        while i < len(block):
            stmt = block[i]
            i += 1
            if not ((isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name))
                    or (isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name))):
                continue
            if any(isinstance(n, (gast.IfExp, gast.BoolOp, gast.Lambda, gast.comprehension, gast.NamedExpr))
                   for n in walk(stmt.value)):
                continue
            if not all(_primitive_of(n.func, context.namespace) is not None
                       or (isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                           and n.func.value.id in ("np", "jnp"))
                       for n in walk(stmt.value) if isinstance(n, gast.Call)):
                continue
            sums = [n for n in walk(stmt.value) if n is not stmt.value
                    and _whole_sum_operand(n, context) is not None]
            for total in sums:
                dtype = _whole_sum_operand(total, context)
                label = _fresh_label("_total", taken)
                context.types[label] = {("scalar", dtype)}
                stmt.value = _replace_node(stmt.value, total, _name(label))
                block.insert(i - 1, _hoisted(label, total, stmt))
                i += 1


def _fresh_label(prefix, taken):
    """`prefix_1`, `prefix_2`, ...: the first not in `taken` (which gets it)."""
    label = next(f"{prefix}_{n}" for n in range(1, len(taken) + 2) if f"{prefix}_{n}" not in taken)
    taken.add(label)
    return label


def _hoisted(label, value, at):
    """`label = value` at the position of statement `at`: a part of `at` moved in front of it."""
    return gast.copy_location(gast.Assign(targets=[gast.Name(id=label, ctx=gast.Store(), annotation=None,
                                                            type_comment=None)], value=value, type_comment=None), at)


def _whole_sum_operand(value, context):
    """The float dtype of `unbroadcast_to(E, s)` where `s` always holds the empty shape and E is an
    expression over arrays of that one dtype (so the sum is a scalar of it), else None."""
    if not (isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords
            and isinstance(value.args[1], gast.Name) and not isinstance(value.args[0], gast.Name)):
        return None
    prim = _primitive_of(value.func, context.namespace)
    if prim is None or prim.name != "unbroadcast_to" or context.types_of(value.args[1].id) != {("tuple", ())}:
        return None
    kinds = [context.lowered_type(n.id) for n in walk(value.args[0])
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    dtypes = {k[1] for k in kinds if k is not None and k[0] == "array"}
    return dtypes.pop() if len(dtypes) == 1 and next(iter(dtypes)) in _FLOATS else None


def _primitive_of(func, namespace):
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        base = namespace.get(func.value.id)
        target = getattr(base, func.attr, None) if base is not None else None
    elif isinstance(func, gast.Name):
        target = namespace.get(func.id)
    else:
        return None
    return lookup_callable(target) if target is not None else None


def _opaque_call(value, namespace):
    """A call of a primitive that no fused loop reads through (`jnp.dot`): inlining it into its reader
    would only make the reader unfusible (`h = jnp.tanh(jnp.dot(x, w))` stays two statements)."""
    if not isinstance(value, gast.Call) or namespace is None:
        return False
    prim = _primitive_of(value.func, namespace)
    return prim is not None and prim.name in ("dot", "matmul")


def _elementwise_value(value):
    return isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Call))


def _replace(tree, old, new):
    class Replace(NodeTransformer):
        def visit_Name(self, n):
            return new if n is old else n
    return Replace().visit(tree)


def _replace_node(tree, old, new):
    """`tree` with the node `old` (by identity, any kind) replaced by `new`."""
    class Replace(NodeTransformer):
        def visit(self, n):
            return new if n is old else super().visit(n)
    return Replace().visit(tree)


def _blocks(node):
    for n in walk(node):
        for field in ("body", "orelse"):
            block = getattr(n, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                yield block


class _Fusion:
    def __init__(self, context, dtype, definitions=None):
        self.context, self.dtype = context, dtype
        self.definitions = definitions or {}   # names a loop may recompute (see _single_definitions)
        self.arrays, self.scalars = [], []      # leaf expressions passed to the kernel
        self.keys = []                          # the source text each array leaf stands for
        self.windows = {}                       # array leaf index -> (starts, sizes) of a dynamic_slice of it
        self.expanded = {}                      # array leaf index -> the loop axes expand_dims inserted into it
        self.shapes = []                        # shape expressions (unbroadcast_to's) that must be the loop's
        self.operations = 0
        self.ndim = None
        self.depth = 0
        self.update_in_place = None             # a name whose array the loop may overwrite
        self.recomputed = set()                 # temporaries the loop recomputes from their definitions

    def fuse(self, value, target_type, counter):
        reduce, original = False, value
        if target_type[0] == "scalar":
            inner = self._sum_operand(value)
            if inner is None:
                return None
            value, reduce = inner, True
        elif target_type[0] != "array":
            return None
        scalar = self.element(value)
        # one operation is worth a loop when it is a fast form (Numba's own tanh is a libm call per element)
        # or broadcasts (Numba's broadcasting multiply of an outer product ran 3x slower than the loop)
        # a sum counts as an operation: `sum(g * w)` as one pass reads no product array
        if scalar is None or not self.arrays or not (self.operations + reduce >= MINIMUM_OPERATIONS or "fast_" in scalar
                                                     or self.expanded):
            return None
        if not reduce and len(target_type) > 2 and target_type[2] != self.ndim:
            return None
        counter[0] += 1
        label = self.context.bind(f"_fused_{counter[0]}", None, ())
        element_label = None
        if reduce:
            element_label = self.context.bind(f"{label}_element", None, ())
            self.context.kernels.append((element_label, self._element_function(element_label, scalar), {}))
            kernel = self._sum_kernel(label, element_label)
            # reassociating the partial sums lets LLVM vectorize them; the element function is compiled
            # apart, without the flag, so the user's arithmetic is never reassociated
            self.context.kernels.append((label, kernel, {"fastmath": {"reassoc"}}))
        else:
            self.context.kernels.append((label, self._kernel(label, scalar, self._overwritten()), {}))
        shape, conditions = self._loop_shape()
        args = [shape] + [copy.deepcopy(a) for a in self.arrays + self.scalars] + self._offsets()
        call = gast.Call(func=_name(label), args=args, keywords=[])
        if not conditions:
            call._astjax_fused = FusedLoop(self, label, element_label, scalar, reduce)    # see merge_sibling_loops
            return call
        test = conditions[0] if len(conditions) == 1 else gast.BoolOp(op=gast.And(), values=conditions)
        if holds_as_observed(test, self.context):       # the unfused branch only if a call needs it
            call.args[0] = checked_shape_call(call.args[0], test, self.context, ())
            return call
        # The unfused form recomputes what the loop recomputes, so those temporaries need not be stored.
        return gast.IfExp(test=test, body=call, orelse=self._inlined(original))

    def _inlined(self, expr):
        definitions, names = self.definitions, self.recomputed

        class Inline(NodeTransformer):
            def visit_Name(self, node):
                if isinstance(node.ctx, gast.Load) and node.id in names:
                    return self.visit(copy.deepcopy(definitions[node.id]))
                return node
        return Inline().visit(copy.deepcopy(expr))

    def _loop_shape(self):
        """(the loop nest's extents, the run-time conditions for the fused path: every plain array of that
        shape, every expanded array of that shape outside its inserted axes, every window of that shape
        and inside its array, every unbroadcast_to target that shape)."""
        plain = [i for i in range(len(self.arrays)) if i not in self.windows and i not in self.expanded]
        dims = None
        if plain:
            shape_text = f"{unparse(self.arrays[plain[0]]).strip()}.shape"
            dims = [f"{shape_text}[{d}]" for d in range(self.ndim)]
        elif self.expanded:
            dims = [next((self._expanded_dim(k, d) for k in sorted(self.expanded) if d not in self.expanded[k]), "1")
                    for d in range(self.ndim)]
            shape_text = "(" + "".join(f"{t}, " for t in dims) + ")"
        else:
            sizes = self.windows[0][1]
            shape_text = "(" + "".join(f"{unparse(v).strip()}, " for v in sizes) + ")"
        conditions = []
        for i in plain[1:]:
            conditions.append(f"{unparse(self.arrays[i]).strip()}.shape == {shape_text}")
        for k in sorted(self.expanded):
            conditions += [f"{self._expanded_dim(k, d)} == {dims[d]}" for d in range(self.ndim)
                           if d not in self.expanded[k] and self._expanded_dim(k, d) != dims[d]]
        for i, (_, sizes) in self.windows.items():
            operand = unparse(self.arrays[i]).strip()
            size_texts = [unparse(v).strip() for v in sizes]
            conditions.append("(" + "".join(f"{t}, " for t in size_texts) + f") == {shape_text}")
            conditions += [f"{operand}.shape[{d}] >= {t}" for d, t in enumerate(size_texts)]
        conditions += [f"{unparse(shape).strip()} == {shape_text}" for shape in self.shapes]
        return (gast.parse(shape_text).body[0].value,
                [gast.parse(c).body[0].value for c in conditions])

    def _expanded_dim(self, k, d):
        """The source text of loop axis d's length read from expanded leaf k (d not an inserted axis)."""
        position = d - sum(1 for e in self.expanded[k] if e < d)
        return f"{unparse(self.arrays[k]).strip()}.shape[{position}]"

    def _offsets(self):
        """The clamped start of each window, as lax.dynamic_slice clamps it (the slice stays inside)."""
        out = []
        for i, (starts, sizes) in sorted(self.windows.items()):
            operand = unparse(self.arrays[i]).strip()
            for d, (start, size) in enumerate(zip(starts, sizes)):
                start_text = unparse(start).strip()
                high = f"({operand}.shape[{d}] - {unparse(size).strip()})"
                if isinstance(start, gast.Name) or (isinstance(start, gast.Constant) and type(start.value) is int):
                    # as two selects: Numba compiles a helper per call of min and max on ints (0.1 s each)
                    low = f"({start_text} if {start_text} > 0 else 0)"
                    text = f"({low} if {low} < {high} else {high})"
                else:
                    text = f"min(max({start_text}, 0), {high})"
                out.append(gast.parse(text).body[0].value)
        return out

    def _sum_operand(self, value):
        """E of `jnp.sum(E)`, or of `unbroadcast_to(E, s)` where `s` is the empty shape (a sum of every element)."""
        if _whole_sum_operand(value, self.context) is not None:
            return value.args[0]
        if not (isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords):
            return None
        prim = lookup_callable(self.context.static_object(value.func))
        return value.args[0] if prim is not None and prim.name == "sum" else None

    # ------------------------------------------------------------ one element's expression
    def element(self, expr):
        """The scalar expression (text) computing one element of `expr`, or None when not fusible."""
        if isinstance(expr, gast.Name):
            kind = self.context.lowered_type(expr.id)
            if kind is None:
                return None
            if kind[0] == "array":
                if kind[1] != self.dtype or (self.ndim is not None and kind[2] != self.ndim):
                    return None
                recomputed = self._recompute(expr.id)
                if recomputed is not None:
                    return recomputed
                self.ndim = kind[2]
                return self._leaf(self.arrays, expr, "flat")
            if kind[0] == "scalar" or kind[0] == "weak":
                return self._leaf(self.scalars, expr, "c")
            return None
        if isinstance(expr, gast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
            return repr(expr.value)
        if isinstance(expr, gast.Call) and _is_cast(expr):
            return self._leaf(self.scalars, expr, "c")
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, _OPERATORS):
            if isinstance(expr.op, gast.Pow) and _constant_two(expr.right):
                return self._combine("{0} * {0}", [expr.left])     # x ** 2 as NumPy squares: no pow call
            return self._combine(_OPERATOR_TEXT[type(expr.op)], [expr.left, expr.right])
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
            operand = self.element(expr.operand)
            if operand is None:
                return None
            self.operations += 1
            return f"(-{operand})"
        if isinstance(expr, gast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], _COMPARISONS):
            return self._combine(_COMPARISON_TEXT[type(expr.ops[0])], [expr.left, expr.comparators[0]])
        if isinstance(expr, gast.Subscript):
            return self._scalar_item(expr)
        if isinstance(expr, gast.Call) and not expr.keywords:
            prim = lookup_callable(self.context.static_object(expr.func))
            if prim is not None and prim.name in ("unreduce", "unbroadcast"):
                return self._broadcast_only(prim, expr.args)
            if prim is not None and prim.name == "unbroadcast_to":
                return self._unbroadcast_to(expr.args)
            if prim is not None and prim.name == "dynamic_slice":
                return self._window(expr)
            if prim is not None and prim.name == "expand_dims":
                return self._expand_dims(expr)
            form = SCALAR_FORMS.get(prim.name) if prim is not None else None
            if form is not None and prim.name in FAST_FORMS and _fast_math():
                form = FAST_FORMS[prim.name]
            if form is None or len(expr.args) != _arity(form):
                return None
            operands = [self.element(a) for a in expr.args]
            if any(o is None for o in operands):
                return None
            self.operations += 1
            return _substitute(form, operands)
        return None

    def _scalar_item(self, expr):
        """`kernel[i, j]`: one element of an array, read once before the loop."""
        base = expr.value
        kind = self.context.lowered_type(base.id) if isinstance(base, gast.Name) else None
        index = expr.slice.elts if isinstance(expr.slice, gast.Tuple) else [expr.slice]
        if not (kind and kind[0] == "array" and kind[1] == self.dtype and kind[2] == len(index)
                and all(self._integer(i) for i in index)):
            return None
        return self._leaf(self.scalars, expr, "c")

    def _integer(self, expr):
        if isinstance(expr, gast.Constant):
            return isinstance(expr.value, int) and not isinstance(expr.value, bool)
        if isinstance(expr, gast.Name):
            kinds = self.context.types_of(expr.id)
            return bool(kinds) and all(k == ("weak", "int") or (k[0] == "scalar" and k[1].startswith("int"))
                                       for k in kinds)
        return False

    def _window(self, call):
        """`lax.dynamic_slice(a, starts, sizes)` of an array of the loop's rank: read in place, offset."""
        if len(call.args) != 3 or not all(isinstance(a, gast.Tuple) for a in call.args[1:]):
            return None
        operand, starts, sizes = call.args[0], call.args[1].elts, call.args[2].elts
        kind = self.context.lowered_type(operand.id) if isinstance(operand, gast.Name) else None
        if not (kind and kind[0] == "array" and kind[1] == self.dtype and kind[2] == len(starts) == len(sizes)
                and (self.ndim is None or self.ndim == kind[2]) and not self.expanded
                and all(self._integer(v) for v in starts + sizes)):
            return None
        self.ndim = kind[2]
        key = unparse(call).strip()
        if key not in self.keys:
            self.arrays.append(operand)
            self.keys.append(key)
            self.windows[len(self.arrays) - 1] = (starts, sizes)
        k = self.keys.index(key)
        return f"flat{k}[i]"

    def _expand_dims(self, call):
        """`jnp.expand_dims(a, axes)` of an array at literal axes: a read of a's element at the loop's
        indices without the inserted axes (they have length 1: a broadcasts along them)."""
        if len(call.args) != 2 or self.windows or not isinstance(call.args[0], gast.Name):
            return None
        operand = call.args[0]
        kind = self.context.lowered_type(operand.id)
        axes = _literal_ints(call.args[1])
        if not (kind and kind[0] == "array" and kind[1] == self.dtype and kind[2] >= 1 and axes):
            return None
        ndim = kind[2] + len(axes)
        inserted = frozenset(a % ndim for a in axes if -ndim <= a < ndim)
        if len(inserted) != len(axes) or (self.ndim is not None and self.ndim != ndim):
            return None
        self.ndim = ndim
        key = f"expand_dims({operand.id}, {sorted(inserted)})"
        if key not in self.keys:
            self.arrays.append(operand)
            self.keys.append(key)
            self.expanded[len(self.arrays) - 1] = inserted
        return f"flat{self.keys.index(key)}[i]"

    def _unbroadcast_to(self, args):
        """`unbroadcast_to(g, shape)` where `shape` is the loop's shape (checked at run time): g's element."""
        if len(args) != 2 or not _shape_expression(args[1]):
            return None
        text = self.element(args[0])
        if text is None:
            return None
        self.shapes.append(args[1])
        return text

    def _recompute(self, name):
        """The element of a single-definition temporary recomputed from its operands, or None."""
        if name not in self.definitions or self.depth >= 6:
            return None
        saved = (len(self.arrays), len(self.scalars), self.operations, self.ndim, len(self.shapes))
        self.depth += 1
        text = self.element(self.definitions[name])
        self.depth -= 1
        if text is not None:
            self.recomputed.add(name)
        if text is None:
            del self.arrays[saved[0]:], self.keys[saved[0]:], self.scalars[saved[1]:]
            for table in (self.windows, self.expanded):
                for index in [i for i in table if i >= saved[0]]:
                    del table[index]
            self.operations, self.ndim = saved[2], saved[3]
            del self.shapes[saved[4]:]
        return text

    def _broadcast_only(self, prim, args):
        """`unreduce(g, x)` of a scalar g and `unbroadcast(g, x)` where g has x's shape: the element of g,
        with x's leaves registered so that the runtime shape check covers them."""
        if prim.name == "unreduce" and 2 < len(args) <= 5 and all(
                isinstance(a, gast.Constant) and a.value is default
                for a, default in zip(args[2:], (None, False, None))):
            args = args[:2]                    # unreduce(g, x, None, False, None): axis, keepdims, where unset
        if prim.name not in ("unreduce", "unbroadcast") or len(args) != 2:
            return None
        g, like = args
        if prim.name == "unreduce" and not self._scalar_valued(g):
            return None
        text = self.element(g)
        if text is None or self.element(like) is None:
            return None
        return text

    def _scalar_valued(self, g):
        """A scalar name, a cast (`np.float32(...)`), or `unbroadcast(s, t)` of two such: one value for
        every element (mean's seed `unbroadcast(np.float32(1 / n), total)` before its unreduce)."""
        if isinstance(g, gast.Name):
            kind = self.context.lowered_type(g.id)
            return bool(kind) and kind[0] in ("scalar", "weak")
        if isinstance(g, gast.Call) and _is_cast(g):
            return True
        if isinstance(g, gast.Call) and not g.keywords and len(g.args) == 2:
            prim = lookup_callable(self.context.static_object(g.func))
            return prim is not None and prim.name == "unbroadcast" and all(self._scalar_valued(a) for a in g.args)
        return False

    def _combine(self, template, operands):
        texts = [self.element(o) for o in operands]
        if any(t is None for t in texts):
            return None
        self.operations += 1
        return "(" + template.format(*texts) + ")"

    def _leaf(self, table, expr, prefix):
        """The kernel's name for a leaf (`flat0[i]` for an array's element, `c0` for a scalar)."""
        text = unparse(expr).strip()
        if prefix == "flat":
            if text not in self.keys:
                table.append(expr)
                self.keys.append(text)
            return f"flat{self.keys.index(text)}[i]"
        index = next((i for i, seen in enumerate(table) if unparse(seen).strip() == text), None)
        if index is None:
            table.append(expr)
            index = len(table) - 1
        return f"c{index}"

    # ------------------------------------------------------------ the kernel
    def _overwritten(self):
        """The array leaf the loop writes into, when the statement's target may be updated in place."""
        if self.update_in_place is None:
            return None
        for k, key in enumerate(self.keys):
            if key == self.update_in_place and k not in self.windows:
                return k
        return None

    def _kernel(self, label, scalar, overwritten=None):
        """The loop nest: one loop per dimension, the last innermost (contiguous for C-ordered arrays,
        and no copy of a strided view such as a window of a padded image). With `overwritten`, the loop
        writes into that array leaf (each element is read before it is written, at the same place)."""
        arrays, scalars, indices = self._names()
        shared, element = hoist_repeated_calls(self._indexed(scalar, indices))
        start = f"    out = x{overwritten}" if overwritten is not None else f"    out = astjax_empty(shape, np.{self.dtype})"
        lines = [f"def {label}({', '.join(['shape'] + arrays + scalars)}):", start]
        indent = "    "
        for d, index in enumerate(indices):
            lines.append(f"{indent}for {index} in range(shape[{d}]):")
            indent += "    "
        lines += [f"{indent}{line}" for line in shared]
        lines += [f"{indent}out[{', '.join(indices)}] = {element}", "    return out"]
        return gast.parse("\n".join(lines) + "\n").body[0]

    def _element_function(self, label, scalar):
        """One element of a summed tree, as a function of the elements of its arrays."""
        arrays = [f"x{i}" for i in range(len(self.arrays))]
        scalars = [f"c{i}" for i in range(len(self.scalars))]
        element = scalar
        for k in range(len(arrays)):
            element = element.replace(f"flat{k}[i]", f"e{k}")
        parameters = [f"e{k}" for k in range(len(arrays))] + scalars
        shared, element = hoist_repeated_calls(element)
        body = "".join(f"    {line}\n" for line in shared)
        return gast.parse(f"def {label}({', '.join(parameters)}):\n{body}    return {element}\n").body[0]

    def _sum_kernel(self, label, element_label):
        """The sum of a tree in one pass: float64 partial sums of SUM_CHUNK elements (which LLVM
        vectorizes), added into a float64 total."""
        arrays, scalars, indices = self._names()
        reads = [f"x{k}[{self._element_index(k, indices)}]" for k in range(len(arrays))]
        element = f"{element_label}({', '.join(reads + scalars[:len(self.scalars)])})"
        lines = [f"def {label}({', '.join(['shape'] + arrays + scalars)}):", "    total = 0.0"]
        indent = "    "
        for d, index in enumerate(indices[:-1]):
            lines.append(f"{indent}for {index} in range(shape[{d}]):")
            indent += "    "
        last = len(indices) - 1
        lines += chunked_sum_lines(indent, last, indices[last], self.dtype, [f"part += {element}"])
        lines.append(f"    return np.{self.dtype}(total)")
        return gast.parse("\n".join(lines) + "\n").body[0]

    def _names(self):
        arrays = [f"x{i}" for i in range(len(self.arrays))]
        scalars = [f"c{i}" for i in range(len(self.scalars))]
        offsets = [f"o{i}_{d}" for i in sorted(self.windows) for d in range(self.ndim)]
        return arrays, scalars + offsets, [f"i{d}" for d in range(self.ndim)]

    def _element_index(self, k, indices):
        if k in self.expanded:
            return ", ".join(index for d, index in enumerate(indices) if d not in self.expanded[k])
        if k in self.windows:     # unsigned: no negative-index wraparound branch, so LLVM vectorizes the loop
            return ", ".join(f"np.uint64({index} + o{k}_{d})" for d, index in enumerate(indices))
        return ", ".join(indices)

    def _indexed(self, scalar, indices):
        element = scalar
        for k in range(len(self.arrays)):
            element = element.replace(f"flat{k}[i]", f"x{k}[{self._element_index(k, indices)}]")
        return element


SUM_CHUNK = 256
"""Elements a fused sum adds into one float64 partial sum before the float64 total takes it. The partial
sums are float64 whatever the array's dtype: in float32 their rounding depended on how LLVM vectorized the
loop, and on one machine `sum(tanh(x) * x + 1)` of 5000 values of 0.1 came out 1.7e-6 off (NumPy's pairwise
sum: 1e-7), where float64 partials are exact to the last float32 bit (tests/test_jit_sum_accuracy.py) on
every machine. They cost about a third more time than float32 partials on the fused sum of sigmoid over 1e6
float32 (0.83 ms against 0.61 ms for its gradient, here), and the constant trip count keeps the loop
vectorized (a chunk loop `range(start, min(start + 4096, n))` vectorized at half the speed)."""


def chunked_sum_lines(indent, axis, index, dtype, body):
    """The innermost loop of a sum over `shape[axis]`: `body` (lines adding into `part`, reading element
    `index`) runs in chunks of SUM_CHUNK whose float64 partial sums go into the float64 `total` (`dtype`,
    the array's, is what the caller rounds the total to)."""
    inner = indent + "        "
    return ([f"{indent}n = shape[{axis}]",
             f"{indent}full = n - n % {SUM_CHUNK}",
             f"{indent}for start in range(0, full, {SUM_CHUNK}):",
             f"{indent}    part = 0.0",
             f"{indent}    for k in range({SUM_CHUNK}):",
             f"{inner}{index} = start + k"]
            + [inner + line for line in body]
            + [f"{indent}    total += part",
               f"{indent}part = 0.0",
               f"{indent}for {index} in range(full, n):"]
            + [f"{indent}    {line}" for line in body]
            + [f"{indent}total += part"])


_OPERATOR_TEXT = {gast.Add: "{} + {}", gast.Sub: "{} - {}", gast.Mult: "{} * {}", gast.Div: "{} / {}",
                  gast.Pow: "{} ** {}"}
_COMPARISON_TEXT = {gast.Gt: "{} > {}", gast.GtE: "{} >= {}", gast.Lt: "{} < {}", gast.LtE: "{} <= {}",
                    gast.Eq: "{} == {}", gast.NotEq: "{} != {}"}


_PURE_CALLS = {"fast_exp", "fast_tanh", "np.exp", "np.log", "np.tanh", "np.sin", "np.cos", "np.sqrt", "np.log1p", "np.expm1"}


def hoist_repeated_calls(element):
    """(assignments, element): each math call that `element` makes twice or more with the same operand
    computed once beforehand (`v0 = fast_exp(-x1[i0])`), innermost first. An adjoint recomputes its
    primal's terms (sigmoid's vjp reads exp(-x) three times); LLVM does not merge the calls itself.
    Only calls without side effects or exceptions are shared, so evaluating one that a branch-free
    select then discards changes nothing."""
    tree = gast.parse(element, mode="eval")
    shared = []
    while True:
        counts = {}
        for n in walk(tree):
            if isinstance(n, gast.Call) and unparse(n.func).strip() in _PURE_CALLS:
                text = unparse(n).strip()
                counts[text] = counts.get(text, 0) + 1
        repeated = [text for text, count in counts.items() if count > 1]
        if not repeated:
            return shared, unparse(tree.body).strip()
        text = min(repeated, key=len)
        name = f"v{len(shared)}"
        shared.append(f"{name} = {text}")

        class Share(NodeTransformer):
            def visit_Call(self, n):
                if unparse(n).strip() == text:
                    return _name(name)
                self.generic_visit(n)
                return n
        tree = Share().visit(tree)


def _fast_math():
    from ..fast_math import enabled
    return enabled()


def _arity(form):
    return len({letter for letter in "abc" if _has_operand(form, letter)})


def _has_operand(form, letter):
    import re
    return re.search(rf"(?<![A-Za-z_.]){letter}(?![A-Za-z_(])", form) is not None


def _substitute(form, operands):
    import re
    return "(" + re.sub(r"(?<![A-Za-z_.])([abc])(?![A-Za-z_(])", lambda m: f"({operands['abc'.index(m.group(1))]})",
                        form) + ")"


def _literal_ints(expr):
    """The ints of a literal int or tuple of ints (`-1`, `(0, 2)`), or None."""
    elts = expr.elts if isinstance(expr, gast.Tuple) else [expr]
    out = []
    for e in elts:
        sign = 1
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            sign, e = -1, e.operand
        if not (isinstance(e, gast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool)):
            return None
        out.append(sign * e.value)
    return out or None


def _shape_expression(expr):
    """Whether `expr` only reads names, shapes and int constants, so evaluating it once more changes nothing:
    `(_B1,) + jnp.shape(x2)`, `x.shape[1:]`."""
    shape_calls = [n for n in walk(expr) if isinstance(n, gast.Call)]
    for call in shape_calls:
        if not (isinstance(call.func, gast.Attribute) and call.func.attr == "shape"
                and isinstance(call.func.value, gast.Name) and call.func.value.id in ("jnp", "np")
                and len(call.args) == 1 and isinstance(call.args[0], gast.Name) and not call.keywords):
            return False
    skipped = {id(c.func.value) for c in shape_calls} | {id(c) for c in shape_calls}
    for n in walk(expr):
        if id(n) in skipped:
            continue
        if isinstance(n, gast.Attribute):
            if n.attr != "shape":
                return False
        elif isinstance(n, gast.Constant):
            if not (n.value is None or isinstance(n.value, int)):
                return False
        elif isinstance(n, gast.BinOp):
            if not isinstance(n.op, gast.Add):
                return False
        elif not isinstance(n, (gast.Name, gast.Tuple, gast.Subscript, gast.Slice, gast.Load, gast.Add,
                                gast.UnaryOp, gast.USub)):
            return False
    return True


def _constant_two(expr):
    """`2`, `2.0` or `np.float32(2)`: an exponent whose power is the operand times itself."""
    if isinstance(expr, gast.Call) and _is_cast(expr) and len(expr.args) == 1 and not expr.keywords:
        expr = expr.args[0]
    return isinstance(expr, gast.Constant) and not isinstance(expr.value, bool) and expr.value == 2


def _is_cast(call):
    func = call.func
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "np"
            and func.attr in ("float32", "float64", "int32", "int64"))


def _name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _attribute(value, attr):
    return gast.Attribute(value=value, attr=attr, ctx=gast.Load())
