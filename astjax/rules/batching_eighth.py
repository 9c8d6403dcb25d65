"""Batching rules (vmap) of the eighth batch: primitives that still looped over the batch.

- `multi_dot` of six or more arrays: NumPy's chain order, found from one example's shapes, written as the
  sequence of adjacent products it makes (`batch_chain_merges`), each step one branch per position, so the
  generated source grows as n^3 instead of the number of parenthesizations (42 for six arrays, 132 for seven);
- `unstack` whose items are unpacked into names (`a, b = jnp.unstack(x)`): the unpacking's length check tells
  the analysis how many items there are, and the same call along the axis shifted past the batch axis gives
  each item with the batch on axis 0.

Each rule writes primitives on the whole batch (so `grad(vmap(f))` and `vmap(vmap(f))` transform its output
again); the runtime helpers compute orders from one example's shape (the same for every example). Anything
else keeps the loop over the batch, which is always right. tests/test_vmap_rules_batch8.py checks each against
a Python loop over the batch.
"""
import copy
import itertools

import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _name, _static_int, _tuple
from .batching_axes import _rebuilt, register_family
from .batching_fourth import _batched_array, _others_unbatched
from .batching_seventh import _assign, _example_shape, _matmul, chain_operands, numpy_chain_tree
from .batching_sixth import _items
from . import helpers
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defjvp, defvjp, primitive

__all__ = ["EDITS", "NAMES", "batch_chain_merges", "batch_item_adjoint"]


# ---------------------------------------------------------------- multi_dot of six or more arrays
def batch_chain_merges(*shapes):
    """NumPy's parenthesization of multi_dot of matrices of these per-example 2-D shapes (`numpy_chain_tree`)
    as the adjacent products that compute it, in order: step t multiplies items i and i + 1 of the list left
    by the earlier steps (n - t items) and puts the product at i. The tuple of those positions i."""
    merges, current = [], list(range(len(shapes)))

    def evaluate(tree):
        if isinstance(tree, int):
            return tree
        left, right = evaluate(tree[0]), evaluate(tree[1])
        i = current.index(left)
        merges.append(i)
        current[i:i + 2] = [tree]
        return tree

    evaluate(numpy_chain_tree(shapes))
    return tuple(merges)


primitive("batch_chain_merges", batch_chain_merges, operands=(), differentiable=False, reason=SHAPES)


def _merge_steps(bt, names, merges):
    """The statements that multiply `names` (fresh names, one per array) in the order `merges` (the name of
    batch_chain_merges's tuple) lists: step t is an if-chain on merges[t], each branch the product of items
    i and i + 1 put at i and the items after it moved one down. The product ends in names[0]."""
    out = []
    for t in range(len(names) - 1):
        m = len(names) - t
        branch = None
        for i in range(m - 2, -1, -1):
            body = [bt.assign(names[i], _matmul(_name(names[i]), _name(names[i + 1])))]
            body += [bt.assign(names[j], _name(names[j + 1])) for j in range(i + 1, m - 1)]
            if branch is None:
                branch = body           # the last position: no test left
                continue
            test = gast.Compare(left=gast.Subscript(value=_name(merges), slice=_const(t), ctx=gast.Load()),
                                ops=[gast.Eq()], comparators=[_const(i)])
            branch = [gast.If(test=test, body=body, orelse=branch)]
        out.extend(branch)
    return out


def _end_rank(bt, node):
    """The per-example rank of a first or last operand of multi_dot where the chain rule may read it: a batched
    array's, or an unbatched value's (a global's rank is checked when it runs), else None."""
    if not isinstance(node, gast.Name) or (bt.is_batched(node) and bt.kind(node) != ARRAY):
        return None
    return bt.rank(node)


def _multi_dot_long_chain_rule(bt, target, app):
    """multi_dot of six or more arrays (four or more where the first or last rank is unknown), the inner ones
    matrices (checked when it runs with NumPy's error): each cast to the common float dtype, the first vector
    a row and the last a column, multiplied as stacks in the order NumPy's chain-order search picks from one
    example's shapes (`batch_chain_merges`: n - 1 adjacent products, each step one branch per position), so
    every example's products are NumPy's; the unit axes squeezed. A first or last operand of unknown rank
    (a global, or the source batched before the arguments are seen, as in vmap(grad(f))) gets one branch per
    rank, vector or matrix, chosen on `jnp.ndim` when it runs, else the loop."""
    items = _items(app.bound.get("arrays"))
    if items is None or len(items) < 4 or any(not isinstance(n, gast.Name) or (
            bt.is_batched(n) and bt.kind(n) != ARRAY) for n in items) or not any(
            bt.is_batched(n) for n in items) or not _others_unbatched(bt, app, "arrays"):
        return None
    if any(bt.rank(n) not in (None, 2) for n in items[1:-1]):
        return None
    ends = list(dict.fromkeys(n.id for n in (items[0], items[-1])))
    unknown = [name for name in ends if bt.rank(_name(name)) is None]
    if not unknown:
        return _chain_code(bt, target, items) if len(items) >= 6 else None
    branches = []
    for ranks in itertools.product((1, 2), repeat=len(unknown)):
        earlier = dict(bt._rank_override)
        bt._rank_override = {**earlier, **dict(zip(unknown, ranks))}
        try:
            body = _chain_code(bt, target, items)
        finally:
            bt._rank_override = earlier
        tests = [gast.Compare(left=_call("jnp.ndim", _name(name)), ops=[gast.Eq()], comparators=[
            _const(rank + (1 if bt.is_batched(_name(name)) else 0))]) for name, rank in zip(unknown, ranks)]
        branches.append((tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests), body))
    out = bt.loop_statement(None, target, app.node)
    for test, body in reversed(branches):
        out = [gast.If(test=test, body=body, orelse=out)]
    return out


def _chain_code(bt, target, items):
    """The statements of the chain rule for operands whose first and last per-example ranks are known."""
    first, last = _end_rank(bt, items[0]), _end_rank(bt, items[-1])
    if first not in (1, 2) or last not in (1, 2):
        return None
    out = []
    operands, row, column = chain_operands(bt, out, items, first, last)
    merges = _assign(bt, out, "_merges", _call(bt.helper(batch_chain_merges), *[
        _example_shape(bt, node, item) for node, item in zip(operands, items)]))
    names = [bt.fresh("_chain") for _ in operands]
    out.extend(bt.assign(name, copy.deepcopy(node)) for name, node in zip(names, operands))
    out.extend(_merge_steps(bt, names, merges.id))
    squeezed = tuple(k for k, flag in ((-2, row), (-1, column)) if flag)
    out.append(bt.assign(target, _call("jnp.squeeze", _name(names[0]), axis=_tuple(*[_const(k) for k in squeezed]))
                         if squeezed else _name(names[0])))
    return out


# ---------------------------------------------------------------- unstack unpacked into names
def _unpacked_length(batching, bound):
    """How many items the unstack whose bound arguments are `bound` gives where its result is unpacked into
    names: the `assert len(t) == k` that normalization writes after `t = jnp.unstack(x)` for `a, b = t`,
    else None (an item count the analysis cannot know: the loop)."""
    x = bound.get("x")
    targets = [t for t, value, app in batching.assignments if app is not None and app.bound is not None and any(
        n is x for n in app.bound.values())]
    if len(targets) != 1 or sum(t == targets[0] for t, _, _ in batching.assignments) != 1:
        return None         # the name holds other values too: the length checked may be another's
    for node in batching.compound:
        test = node.test if isinstance(node, gast.Assert) else None
        if (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], gast.Eq)
                and isinstance(test.left, gast.Call) and isinstance(test.left.func, gast.Name)
                and test.left.func.id == "len" and len(test.left.args) == 1
                and isinstance(test.left.args[0], gast.Name) and test.left.args[0].id == targets[0]
                and isinstance(test.comparators[0], gast.Constant) and type(test.comparators[0].value) is int):
            return test.comparators[0].value
    return None


def _unstack_result(batching, bound):
    rank, count = batching.rank(bound.get("x")), _unpacked_length(batching, bound)
    if count is None or rank is None or rank < 1:
        return None, None
    return (rank - 1,) * count, None


def _unstack_rule(bt, target, app):
    """unstack(x, axis) of a batched x of known per-example rank whose items are unpacked into names (their
    count known, checked by the unpacking when it runs): the same call along the literal axis shifted past the
    batch axis (a negative one counts from the end and needs no shift), each item with the batch on axis 0."""
    b = app.bound
    x, axis = b.get("x"), _static_int(b.get("axis", _const(0)))
    if not _batched_array(bt, x) or axis is None or not _others_unbatched(bt, app, "x") or bt.rank(x) is None or not (
            -bt.rank(x) <= axis < bt.rank(x)) or not isinstance(bt.kind(_name(target)), tuple):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {"axis": _const(axis + 1 if axis >= 0 else axis)}))]


# ---------------------------------------------------------------- nonzero, flatnonzero, argwhere with a size
def _fill_values(node, count):
    """The fill value of each of `count` index arrays from nonzero's `fill_value` written as a literal (None:
    0; a number: that number for each; a tuple of numbers: one per array), else None (the loop, which raises
    NumPy's error for a tuple of another length)."""
    if isinstance(node, gast.Constant) and (node.value is None or type(node.value) in (int, float)):
        return [_const(0 if node.value is None else node.value) for _ in range(count)]
    if isinstance(node, (gast.Tuple, gast.List)) and len(node.elts) == count and all(
            isinstance(e, gast.Constant) and type(e.value) in (int, float) for e in node.elts):
        return [copy.deepcopy(e) for e in node.elts]
    return None


def _sized_nonzero_rule(bt, target, app):
    """flatnonzero, nonzero and argwhere with a literal `size` (JAX's static-size form: the first `size`
    indices, padded with `fill_value`) of a batched array of known per-example rank (at least 1): each example
    flattened, its nonzero positions first in order by one stable argsort of `== 0` along the example, the
    first `size` of them kept where fewer than each example's count of nonzeros, the fill value after (a zero
    column appended so that a size past the example's length reads a valid position); nonzero and argwhere
    unravel them in one example's shape. Every example's own indices, int32 as each example's."""
    b, name = app.bound, app.primitive.name
    a, size = b.get("a"), _static_int(b.get("size", _const(None)))
    if not _batched_array(bt, a) or bt.rank(a) is None or bt.rank(a) < 1 or size is None or size < 0 or \
            not _others_unbatched(bt, app, "a"):
        return None
    count = 1 if name == "flatnonzero" else bt.rank(a)
    fills = _fill_values(b.get("fill_value", _const(None)), count)
    if fills is None:
        return None
    every = gast.Slice(lower=None, upper=None, step=None)
    out = []
    flat = _assign(bt, out, f"{a.id}_flat", _call("jnp.reshape", copy.deepcopy(a), _tuple(bt.B, _const(-1))))
    found = _assign(bt, out, "_found", gast.Compare(left=flat, ops=[gast.NotEq()], comparators=[_const(0)]))
    order = _assign(bt, out, "_order", _call("jnp.argsort", _call("jnp.logical_not", found), axis=_const(1)))
    counts = _assign(bt, out, "_counts", _call("jnp.sum", found, axis=_const(1), keepdims=_const(True)))
    positions = _assign(bt, out, "_positions", _call("jnp.arange", _const(size)))
    zero = gast.Subscript(value=_call("jnp.zeros_like", order), slice=_tuple(every, gast.Slice(
        lower=None, upper=_const(1), step=None)), ctx=gast.Load())
    padded = _assign(bt, out, "_padded", _call("jnp.concatenate", gast.List(elts=[order, zero], ctx=gast.Load()),
                                                axis=_const(1)))
    length = gast.Subscript(value=_call("jnp.shape", order), slice=_const(1), ctx=gast.Load())
    taken = _assign(bt, out, "_taken", _call("jnp.take", padded, _call("jnp.minimum", positions, length),
                                             axis=_const(1)))
    kept = _assign(bt, out, "_kept", gast.Compare(left=positions, ops=[gast.Lt()], comparators=[counts]))
    int32 = _call("jnp.int32").func
    if name == "flatnonzero":
        out.append(bt.assign(target, _call("jnp.astype", _call("jnp.where", kept, taken, fills[0]), int32)))
        return out
    shape = gast.Subscript(value=_call("jnp.shape", copy.deepcopy(a)), slice=gast.Slice(
        lower=_const(1), upper=None, step=None), ctx=gast.Load())
    coordinates = _assign(bt, out, "_coordinates", _call("jnp.unravel_index", taken, shape))
    items = [_assign(bt, out, f"_axis{k}", _call("jnp.astype", _call(
        "jnp.where", kept, gast.Subscript(value=coordinates, slice=_const(k), ctx=gast.Load()), fill), int32))
        for k, fill in enumerate(fills)]
    if name == "nonzero":
        out.append(bt.assign(target, _tuple(*items)))
    else:
        out.append(bt.assign(target, _call("jnp.stack", gast.List(elts=items, ctx=gast.Load()), axis=_const(-1))))
    return out


def _sized_result(batching, bound, name):
    """flatnonzero: a vector; argwhere: a matrix; nonzero: a tuple of one vector per per-example axis."""
    rank = batching.rank(bound.get("a"))
    if _static_int(bound.get("size", _const(None))) is None or rank is None or rank < 1:
        return None, None
    if name == "nonzero":
        return (1,) * rank, None
    return ARRAY, 1 if name == "flatnonzero" else 2


# ---------------------------------------------------------------- array_equal, ravel_multi_index
def batch_same_shape(shape1, shape2):
    """Whether two examples' shapes are one shape (array_equal's first test; the same for every example)."""
    return tuple(int(n) for n in shape1) == tuple(int(n) for n in shape2)


primitive("batch_same_shape", batch_same_shape, operands=(), differentiable=False, reason=SHAPES)


def _array_equal_rule(bt, target, app):
    """array_equal(a1, a2, equal_nan) of operands of known per-example rank and a literal equal_nan: where one
    example's shapes differ every example's answer is False (the same shapes in each), else `==` on the batch
    (or both NaN, for equal_nan) and all over each example's axes: a bool per example."""
    b = app.bound
    a1, a2, equal_nan = b.get("a1"), b.get("a2"), b.get("equal_nan", _const(False))
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY and bt.rank(n) is not None for n in (a1, a2)) or \
            not isinstance(equal_nan, gast.Constant) or not _others_unbatched(bt, app, "a1", "a2"):
        return None
    if bt.rank(a1) != bt.rank(a2):
        return [bt.assign(target, _call("jnp.zeros", _tuple(bt.B), _call("jnp.bool_").func))]
    out = []
    first, second = bt.batched(a1, out), bt.batched(a2, out)
    same = _assign(bt, out, "_same_shape", _call(bt.helper(batch_same_shape), _example_shape(bt, a1, a1),
                                                 _example_shape(bt, a2, a2)))
    equal = gast.Compare(left=copy.deepcopy(first), ops=[gast.Eq()], comparators=[copy.deepcopy(second)])
    if equal_nan.value:
        equal = _call("jnp.logical_or", equal, _call("jnp.logical_and", _call("jnp.isnan", copy.deepcopy(first)),
                                                     _call("jnp.isnan", copy.deepcopy(second))))
    axes = _tuple(*[_const(k) for k in range(1, bt.rank(a1) + 1)])
    out.append(gast.If(test=same, body=[bt.assign(target, _call("jnp.all", equal, axis=axes))], orelse=[
        bt.assign(target, _call("jnp.zeros", _tuple(bt.B), _call("jnp.bool_").func))]))
    return out


def _ravel_multi_index_rule(bt, target, app):
    """ravel_multi_index(multi_index, dims, mode, order) of coordinates written in the call (arrays of one known
    per-example rank) or a batched tuple of them, against unbatched dims: the same call, each coordinate with
    the batch first (an unbatched one repeated); each element is raveled alone (mode 'raise' checks every
    example's coordinates)."""
    b = app.bound
    index = b.get("multi_index")
    written = _items(index)
    if not _others_unbatched(bt, app, "multi_index"):
        return None
    if written is not None:
        if not written or not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in written) or len(
                {bt.rank(n) for n in written}) != 1 or bt.rank(written[0]) is None:
            return None
        out = []
        items = [bt.batched(n, out) for n in written]
        out.append(bt.assign(target, _rebuilt(bt, app, {"multi_index": _tuple(*items)})))
        return out
    kind = bt.kind(index) if isinstance(index, gast.Name) else None
    if not isinstance(kind, tuple) or not kind or len(set(kind)) != 1 or not isinstance(kind[0], int):
        return None     # a batched tuple of arrays of one known rank: its items carry the batch
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _ravel_multi_index_result(batching, bound):
    index = bound.get("multi_index")
    written = _items(index)
    if written:
        ranks = {batching.rank(n) for n in written}
    else:
        kind = batching.kind(index) if isinstance(index, gast.Name) else None
        ranks = set(kind) if isinstance(kind, tuple) else {None}
    rank = ranks.pop() if len(ranks) == 1 else None
    return ARRAY, rank if isinstance(rank, int) else None


# ---------------------------------------------------------------- item_adjoint of a tree a callee receives
def batch_item_adjoint(adjoint, i, sizes, like=None):
    """Item i of a batched list adjoint whose leading axes are the batch axes of `sizes` (an int, or a tuple under
    vmap of vmap), item_adjoint's cases with those axes kept: a tree's item, or where nothing reached it each
    example's 0.0 (zeros of the batch shape, as a loop stacks them); a batched array's row i of each example; a
    batched tuple's item. A batched scalar adjoint is each example's zero (item_adjoint's error where not).
    `like` (the tangent rule's primal item): zeros shaped like it where nothing reached the item, so that
    each example's zero keeps the item's shape (zeros of the batch shape would broadcast against its axes)."""
    import numpy as np
    from .helpers import TreeAdjoint, wrap
    sizes = (int(sizes),) if np.ndim(sizes) == 0 else tuple(int(n) for n in sizes)
    zeros = np.zeros(sizes) if like is None else np.zeros(np.shape(like), np.result_type(like, float))
    if isinstance(adjoint, dict) or adjoint is None:
        adjoint = TreeAdjoint.of(adjoint)
    if isinstance(adjoint, TreeAdjoint):
        item = adjoint.items.get(i)
        return zeros if item is None else item
    if isinstance(adjoint, (tuple, list)):
        return TreeAdjoint.of(adjoint[i])
    if np.ndim(adjoint) <= len(sizes):
        if np.any(adjoint):
            raise TypeError(helpers.container_seed_message("list", adjoint))
        return zeros
    return wrap(np.asarray(adjoint)[(slice(None),) * len(sizes) + (i,)])


_BATCH_ITEM = primitive("batch_item_adjoint", batch_item_adjoint, operands=("adjoint",))
defvjp(_BATCH_ITEM, "badjoint += tree_item_adjoint(i, by)")     # as item_adjoint's: the batched tree's item i
defjvp(_BATCH_ITEM, "dy = broadcast_like(batch_item_adjoint(dadjoint, i, sizes, y), y)")


NAMES = {"batch_item_adjoint": batch_item_adjoint}     # codegen/namespace.py: its derivatives' templates call it


def _batch_item_adjoint_rule(bt, target, app):
    """batch_item_adjoint under another vmap: the same call with the new batch size in front of `sizes`."""
    b = app.bound
    if not isinstance(b.get("adjoint"), gast.Name) or not _others_unbatched(bt, app, "adjoint"):
        return None
    sizes = gast.BinOp(left=_tuple(bt.B), op=gast.Add(), right=_call("tuple", _call(
        "jnp.reshape", copy.deepcopy(b["sizes"]), _const(-1))))
    return [bt.assign(target, _rebuilt(bt, app, {"sizes": sizes}))]


def _item_adjoint_of_a_tree_rule(bt, target, app):
    """item_adjoint(tree, i) of a batched adjoint tree of unknown makers (a callee's parameter: lstsq_b_adjoint's
    g) and a literal i: `batch_item_adjoint`, the item with the batch first, zeros of the batch where nothing
    reached it (each example's 0.0)."""
    b = app.bound
    tree, i = b.get("adjoint"), b.get("i")
    if not isinstance(tree, gast.Name) or not bt.is_batched(tree) or bt.kind(tree) not in ("tree", None) or \
            _static_int(i) is None or not _others_unbatched(bt, app, "adjoint"):
        return None
    return [bt.assign(target, _call("batch_item_adjoint", copy.deepcopy(tree), copy.deepcopy(i), bt.B))]


EDITS = {
    "unstack": (_unstack_rule, _unstack_result),
    "batch_item_adjoint": (_batch_item_adjoint_rule, lambda batching, bound: (ARRAY, None)),
    "array_equal": (_array_equal_rule, lambda batching, bound: (ARRAY, 0)),
    "ravel_multi_index": (_ravel_multi_index_rule, _ravel_multi_index_result),
    "flatnonzero": (_sized_nonzero_rule, lambda batching, bound: _sized_result(batching, bound, "flatnonzero")),
    "argwhere": (_sized_nonzero_rule, lambda batching, bound: _sized_result(batching, bound, "argwhere")),
    "nonzero": (_sized_nonzero_rule, lambda batching, bound: _sized_result(batching, bound, "nonzero")),
}
# rules earlier batches gave, extended to more operands
EXTENDED = {"multi_dot": _multi_dot_long_chain_rule, "item_adjoint": _item_adjoint_of_a_tree_rule}


def _register():
    register_family(EDITS, EXTENDED)
    # index_adjoint(t, i, g) of a tuple t reads only its structure (a tree holding g at i; batching.py's rule)
    PRIMITIVES["index_adjoint"].batch.reads_tuples += ("x",)
    PRIMITIVES["ravel_multi_index"].batch.reads_tuples = ("multi_index",)    # its items are read by the rule


_register()
