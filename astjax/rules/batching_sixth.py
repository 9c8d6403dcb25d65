"""Batching rules (vmap) of the sixth batch: differentiable NumPy and SciPy functions that looped over the batch
(multi_dot, einsum, hstack/vstack/dstack/column_stack, block_diag, toeplitz/hankel/circulant, leslie, companion,
fiedler, put, place, kaiser, broadcast_arrays, Python's builtin sum of a list or tuple, require, lax.scan's
array checks) and derivative helpers that per-example gradients reach (meshgrid_list, pad_constant_tangent/
adjoint, gradient_adjoint/gradient_items, sum_adjoint and item_adjoint of its tree).

Each rule writes a few primitives on the whole batch, so `grad(vmap(f))` and `vmap(vmap(f))` transform its
output again; the runtime helpers below compute shapes, dtypes or index plans only, from one example's shape
(the same for every example), and raise each example's own error. Anything a rule does not cover (a batched
index, mask, `M` or axis; a per-example rank the analysis does not know; multi_dot of four or more arrays and
einsum of three or more operands, whose contraction order NumPy searches for) keeps the loop over the batch,
which is always right. tests/test_vmap_rules_batch6.py checks each against a Python loop over the batch.
"""
import copy

import gast
import numpy as np

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _static_int, _tuple, batch_prepend
from .batching_axes import _keep, register_family, _lifted_to, _rank_of, _rebuilt, _shifted
from .batching_fourth import _batched_array, _others_unbatched
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, primitive

__all__ = ["EDITS", "batch_float_dtype", "batch_result_dtype", "batch_multi_dot_left_first", "batch_kaiser_root",
           "batch_put_plan", "batch_place_plan", "batch_leslie_size", "batch_companion_ones", "batch_block_layout",
           "batch_broadcast_shape", "batch_pad_side_plan", "batch_float_result"]


# ---------------------------------------------------------------- runtime helpers (shapes, dtypes, plans)
def batch_float_dtype(*arrays):
    """The dtype multi_dot and block_diag compute in: their operands' common type, integers and booleans
    read as float32 (numpy/linalg.py's and scipy/linalg.py's `_float`)."""
    kinds = [np.dtype(np.float32) if np.asarray(a).dtype.kind in "biu" else np.asarray(a).dtype for a in arrays]
    return np.result_type(*kinds) if kinds else np.dtype(np.float32)


def batch_result_dtype(*arrays):
    """NumPy's result_type of the arrays' dtypes (toeplitz's and hankel's vector of values)."""
    return np.result_type(*[np.asarray(a).dtype for a in arrays])


def batch_multi_dot_left_first(shape_a, shape_c):
    """NumPy's choice for multi_dot(A, B, C) (`_multi_dot_three`, on one example's 2-D shapes of A and C):
    whether (A B) C is cheaper than A (B C); a tie multiplies B C first, as NumPy does."""
    a0, a1b0 = (int(n) for n in shape_a)
    b1c0, c1 = (int(n) for n in shape_c)
    return a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0)


def batch_kaiser_root(M, beta):
    """For kaiser(M, beta): sqrt(1 - ratio**2) at the window's M points in beta's float dtype (integers read
    as float32), and whether M is 1 (NumPy's window is then [1.0] whatever beta)."""
    dtype = np.dtype(np.float32) if np.asarray(beta).dtype.kind in "biu" else np.asarray(beta).dtype
    M = int(M)
    if M < 2:
        return np.ones(max(M, 0), dtype=dtype), M == 1
    n = np.arange(M, dtype=dtype)
    ratio = 2.0 * n / (M - 1) - 1.0
    return np.sqrt(1.0 - ratio * ratio).astype(dtype, copy=False), False


def batch_put_plan(size, ind, mode, count):
    """For put(a, ind, v, mode) on an example of `size` entries and `count` values: the flat positions
    written, each once, and the index into ravel(v) of the value that lands there (NumPy's put writes in
    order, v repeated cyclically, so where an index repeats the last write wins)."""
    from ..numpy._more import put_indices
    size, count = int(size), int(count)
    positions = np.asarray(put_indices(size, ind, mode), dtype=np.int64)
    if count == 0 or positions.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if size == 0:
        raise IndexError("cannot replace elements of an empty array")
    sources = np.arange(positions.size) % count
    last = {int(p): int(s) for p, s in zip(positions, sources)}        # later writes replace earlier ones
    written = np.array(sorted(last), dtype=np.int64)
    return written, np.array([last[int(p)] for p in written], dtype=np.int64)


def batch_place_plan(size, mask, count):
    """For place(arr, mask, vals) on an example of `size` entries and `count` values: the flat positions mask
    selects and the index into ravel(vals) each takes (used in order, repeated cyclically); NumPy's error for
    values from an empty vals."""
    mask = np.asarray(mask, dtype=bool)
    if mask.size != int(size):
        raise ValueError("place: mask and data must be the same size")
    positions = np.flatnonzero(mask)
    if positions.size and int(count) == 0:
        raise ValueError("Cannot insert from an empty array!")
    return positions.astype(np.int64), np.arange(positions.size, dtype=np.int64) % max(int(count), 1)


def batch_leslie_size(f_shape, s_shape):
    """leslie's size n from one example's f and s (batched shapes), with its error where s is not one entry
    shorter than f."""
    n, m = int(f_shape[-1]), int(s_shape[-1])
    if m != n - 1:
        raise ValueError("leslie: s must have one entry fewer than f")
    return n


def batch_companion_ones(n, dtype):
    """The rows of a companion matrix of n coefficients below its first: ones just below the diagonal, in
    `dtype`; SciPy's error for fewer than two coefficients."""
    n = int(n)
    if n < 2:
        raise ValueError("companion: a needs at least two coefficients")
    return np.eye(n - 2, n - 1, dtype=dtype)


def batch_block_layout(shapes):
    """For block_diag of examples of these per-example `shapes`: per array, its 2-D shape (a scalar is
    (1, 1), a vector one row, as SciPy reads them) and its columns' padding (before, after) in the result."""
    two_d = []
    for k, shape in enumerate(shapes):
        shape = tuple(int(n) for n in shape)
        if len(shape) > 2:
            raise ValueError(f"arguments in the following positions have dimension greater than 2: [{k}]")
        two_d.append((1,) * (2 - len(shape)) + shape)
    total = sum(s[1] for s in two_d)
    out, left = [], 0
    for s in two_d:
        out.append((s, ((0, 0), (0, 0), (left, total - left - s[1]))))
        left += s[1]
    return tuple(out)


def batch_broadcast_shape(size, *shapes):
    """(size,) + the broadcast of per-example `shapes` (NumPy's error where they do not broadcast)."""
    return (int(size),) + tuple(np.broadcast_shapes(*(tuple(int(n) for n in s) for s in shapes)))


def batch_pad_side_plan(shape, pad_width, constant_shape):
    """For jnp.pad(x, pad_width, constant_values=c) of one example of `shape`: which side (2 * axis + 0
    before, + 1 after) filled each cell, as helpers._pad_sides numbers them (a cell inside reads side 0 and
    is masked out), whether each cell is padding, the (sides, cells) mask of each side's cells, the axes
    of the batched (B, ndim, 2) side values that c was broadcast along (summed back to c's shape), (ndim, 2)
    and the padded example's shape."""
    from .helpers import _pad_sides
    filled = _pad_sides(tuple(int(n) for n in shape), pad_width)
    sides = filled.reshape(-1)
    ndim = len(tuple(shape))
    padded = (1,) * max(2 - len(tuple(constant_shape)), 0) + tuple(int(n) for n in constant_shape)
    axes = tuple(1 + i for i, (c, full) in enumerate(zip(padded, (ndim, 2))) if c == 1 and full != 1)
    return (np.maximum(sides, 0), sides >= 0, sides[None, :] == np.arange(2 * ndim)[:, None], axes, (ndim, 2),
            filled.shape)


def batch_float_result(x):
    """np.result_type(x, float32): the dtype of the pad helpers' results."""
    return np.result_type(x, np.float32)


for _fn in (batch_float_dtype, batch_result_dtype, batch_multi_dot_left_first, batch_kaiser_root, batch_put_plan,
            batch_place_plan, batch_leslie_size, batch_companion_ones, batch_block_layout, batch_broadcast_shape,
            batch_pad_side_plan, batch_float_result):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


# ---------------------------------------------------------------- node helpers
def _item(node, i):
    return gast.Subscript(value=copy.deepcopy(node), slice=_const(i), ctx=gast.Load())


def _items(node):
    """The items of a list or tuple written in the call, else None."""
    return list(node.elts) if isinstance(node, (gast.Tuple, gast.List)) else None


def _arrays_of_known_rank(bt, nodes):
    return bool(nodes) and all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY and bt.rank(n) is not None
                               for n in nodes)


def _cast(bt, out, node, dtype):
    cast = bt.fresh(f"{node.id}_cast")
    out.append(bt.assign(cast, _call("jnp.astype", copy.deepcopy(node), _name(dtype))))
    return _name(cast)


# ---------------------------------------------------------------- linalg
def _multi_dot_rule(bt, target, app):
    """multi_dot of two or three arrays of known per-example ranks (a vector first or last): each cast to
    the common float dtype, the first vector a row and the last a column, multiplied as stacks in NumPy's
    order (for three: `batch_multi_dot_left_first` on one example's shapes, so a nan meets an inf as in each
    example's product), the unit axes squeezed. Four or more arrays loop (NumPy's chain-order search)."""
    items = _items(app.bound.get("arrays"))
    if items is None or len(items) not in (2, 3) or not _arrays_of_known_rank(bt, items) or not any(
            bt.is_batched(n) for n in items) or not _others_unbatched(bt, app, "arrays"):
        return None
    ranks = [bt.rank(n) for n in items]
    if any(r not in (1, 2) for r in ranks) or any(r != 2 for r in ranks[1:-1]):
        return None
    out = []
    dtype = bt.fresh("_dtype")
    out.append(bt.assign(dtype, _call(bt.helper(batch_float_dtype), *[copy.deepcopy(n) for n in items])))
    operands = [_cast(bt, out, n, dtype) for n in items]
    row, column = ranks[0] == 1, ranks[-1] == 1
    if row:
        operands[0] = _expanded(bt, out, operands[0], -2)
    if column:
        operands[-1] = _expanded(bt, out, operands[-1], -1)
    product = bt.fresh("_product")
    if len(operands) == 2:
        out.append(bt.assign(product, _matmul(operands[0], operands[1])))
    else:
        a, m, c = operands
        choice = _call(bt.helper(batch_multi_dot_left_first), _last_two(a), _last_two(c))
        out.append(gast.If(test=choice, body=[bt.assign(product, _matmul(_matmul(a, m), c))],
                           orelse=[bt.assign(product, _matmul(a, _matmul(m, c)))]))
    squeezed = tuple(k for k, flag in ((-2, row), (-1, column)) if flag)
    out.append(bt.assign(target, _call("jnp.squeeze", _name(product), axis=_tuple(*[_const(k) for k in squeezed]))
                         if squeezed else _name(product)))
    return out


def _multi_dot_result(batching, bound):
    items = _items(bound.get("arrays"))
    ranks = [batching.rank(n) for n in items] if items else [None]
    if None in ranks:
        return ARRAY, None
    return ARRAY, (2 - (ranks[0] == 1) - (ranks[-1] == 1)) if len(ranks) > 2 else max(
        ranks[0] + ranks[-1] - 2, 0)


def _expanded(bt, out, node, axis):
    fresh = bt.fresh(f"{node.id}_2d")
    out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(node), _const(axis))))
    return _name(fresh)


def _matmul(a, b):
    return gast.BinOp(left=copy.deepcopy(a), op=gast.MatMult(), right=copy.deepcopy(b))


def _last_two(node):
    """One example's 2-D shape of a (batched or not) matrix operand: its last two axes."""
    return gast.Subscript(value=_call("jnp.shape", copy.deepcopy(node)), slice=gast.Slice(
        lower=_const(-2), upper=None, step=None), ctx=gast.Load())


def _block_diag_rule(bt, target, app):
    """block_diag(*arrs) of arrays of known per-example ranks (at most 2): each cast to the common float dtype,
    reshaped to its 2-D form, padded with zero columns to the result's width (`batch_block_layout`), the
    blocks stacked along the rows; an unbatched array is repeated along the batch."""
    items = _items(app.bound.get("arrs"))
    if not _arrays_of_known_rank(bt, items) or not any(bt.is_batched(n) for n in items) or any(
            bt.rank(n) > 2 for n in items):
        return None
    out = []
    dtype = bt.fresh("_dtype")
    out.append(bt.assign(dtype, _call(bt.helper(batch_float_dtype), *[copy.deepcopy(n) for n in items])))
    layout = bt.fresh("_layout")
    out.append(bt.assign(layout, _call(bt.helper(batch_block_layout), _tuple(*[
        _example_shape(bt, n) for n in items]))))
    blocks = []
    for k, node in enumerate(items):
        value = _cast(bt, out, bt.batched(node, out), dtype)
        plan = _item(_name(layout), k)
        block = bt.fresh(f"{node.id}_block")
        out.append(bt.assign(block, _call("jnp.reshape", value, _call(
            bt.helper(batch_prepend), bt.B, _item(plan, 0)))))
        padded = bt.fresh(f"{node.id}_padded")
        out.append(bt.assign(padded, _call("jnp.pad", _name(block), _item(plan, 1))))
        blocks.append(_name(padded))
    out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=blocks, ctx=gast.Load()), axis=_const(1))))
    return out


def _example_shape(bt, node):
    """One example's shape of an operand: its shape without the batch axis when batched."""
    shape = _call("jnp.shape", copy.deepcopy(node))
    if bt.is_batched(node):
        return gast.Subscript(value=shape, slice=gast.Slice(lower=_const(1), upper=None, step=None), ctx=gast.Load())
    return shape


# ---------------------------------------------------------------- NumPy functions
def _kaiser_rule(bt, target, app):
    """kaiser(M, beta) of a batched number beta: i0(beta * root) / i0(beta) with the window's roots
    (`batch_kaiser_root`) along axis 1, as NumPy computes it; M = 1 gives ones, as NumPy's window does."""
    b = app.bound
    beta = b.get("beta")
    if not _batched_array(bt, beta) or bt.rank(beta) != 0 or not _others_unbatched(bt, app, "beta"):
        return None
    out = []
    plan = bt.fresh("_kaiser")
    out.append(bt.assign(plan, _call(bt.helper(batch_kaiser_root), copy.deepcopy(b["M"]), copy.deepcopy(beta))))
    column = bt.fresh(f"{beta.id}_column")
    out.append(bt.assign(column, _call("jnp.astype", _call("jnp.expand_dims", copy.deepcopy(beta), _const(1)),
                                       gast.Attribute(value=_item(_name(plan), 0), attr="dtype", ctx=gast.Load()))))
    scaled = bt.fresh("_scaled")
    out.append(bt.assign(scaled, gast.BinOp(left=_name(column), op=gast.Mult(), right=_item(_name(plan), 0))))
    top, bottom = bt.fresh("_i0_window"), bt.fresh("_i0_beta")
    out.append(bt.assign(top, _call("jnp.i0", _name(scaled))))
    out.append(bt.assign(bottom, _call("jnp.i0", _name(column))))
    m = _static_int(b.get("M"))
    window = target if m is not None and m != 1 else bt.fresh("_window")
    out.append(bt.assign(window, gast.BinOp(left=_name(top), op=gast.Div(), right=_name(bottom))))
    if window != target:
        out.append(bt.assign(target, _call("jnp.where", _item(_name(plan), 1), _call("jnp.ones_like", _name(window)),
                                           _name(window))))
    return out


def _planned_writes(bt, target, arr, vals, plan_name, plan_of):
    """The statements of put's and place's rules: each example of `arr` flattened, `vals` raveled (per example
    where batched), `plan_of(size, flat values' count)` (the positions written and the index of the value
    landing at each, computed from one example's size), the values taken in that order and cast to arr's
    dtype, set in one `.at[]` update, and each example reshaped back."""
    out = []
    a_b = bt.batched(arr, out)
    flat = bt.fresh(f"{arr.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(a_b), _tuple(bt.B, _const(-1)))))
    batched_vals = isinstance(vals, gast.Name) and bt.is_batched(vals)
    values = bt.fresh("_values")
    if batched_vals:
        out.append(bt.assign(values, _call("jnp.reshape", copy.deepcopy(vals), _tuple(bt.B, _const(-1)))))
        count = gast.Subscript(value=_call("jnp.shape", _name(values)), slice=_const(1), ctx=gast.Load())
    else:
        out.append(bt.assign(values, _call("jnp.ravel", copy.deepcopy(vals))))
        count = _call("jnp.size", _name(values))
    plan = bt.fresh(plan_name)
    size = gast.Subscript(value=_call("jnp.shape", _name(flat)), slice=_const(1), ctx=gast.Load())
    out.append(bt.assign(plan, plan_of(size, count)))
    landed = bt.fresh("_landed")
    out.append(bt.assign(landed, _call("jnp.astype", _call("jnp.take", _name(values), _item(_name(plan), 1),
                                                           axis=_const(1 if batched_vals else 0)),
                                       gast.Attribute(value=_name(flat), attr="dtype", ctx=gast.Load()))))
    written = bt.fresh(f"{arr.id}_written")
    out.append(bt.assign(written, _call("at_set", _name(flat), _tuple(_call("slice", _const(None)),
                                                                        _item(_name(plan), 0)), _name(landed))))
    out.append(bt.assign(target, _call("jnp.reshape", _name(written), _call("jnp.shape", copy.deepcopy(a_b)))))
    return out


def _put_rule(bt, target, app):
    """put(a, ind, v, mode, inplace=False) of a batched a or v and an unbatched ind: each example flattened,
    the positions written once each with the value that lands last (`batch_put_plan`), cast to a's dtype
    as NumPy's put casts, set in one `.at[]` update and reshaped back."""
    b = app.bound
    a, v = b.get("a"), b.get("v")
    nodes = [n for n in (a, v) if isinstance(n, gast.Name)]
    if not isinstance(a, gast.Name) or bt.kind(a) != ARRAY or not any(bt.is_batched(n) for n in nodes) or any(
            bt.kind(n) != ARRAY for n in nodes) or not _others_unbatched(bt, app, "a", "v"):
        return None
    if not _is_const(b.get("inplace", _const(True)), False) or not isinstance(b.get("mode", _const(None)),
                                                                             gast.Constant):
        return None         # inplace=True raises in each example's call: the loop raises it
    if not isinstance(b.get("ind"), (gast.Name, gast.Constant, gast.List, gast.Tuple)) or not isinstance(
            v, (gast.Name, gast.Constant)):
        return None
    return _planned_writes(bt, target, a, v, "_put", lambda size, count: _call(
        bt.helper(batch_put_plan), size, copy.deepcopy(b["ind"]), copy.deepcopy(b.get("mode", _const(None))), count))


def _place_rule(bt, target, app):
    """place(arr, mask, vals, inplace=False) of a batched arr or vals and an unbatched mask: each example
    flattened, the selected positions set to the values used in order and repeated (`batch_place_plan`),
    cast to arr's dtype, in one `.at[]` update."""
    b = app.bound
    arr, mask, vals = b.get("arr"), b.get("mask"), b.get("vals")
    if not isinstance(arr, gast.Name) or bt.kind(arr) != ARRAY or not isinstance(vals, (gast.Name, gast.Constant)) or (
            isinstance(vals, gast.Name) and bt.kind(vals) != ARRAY) or not bt.is_batched(_tuple(arr, vals)) or \
            not _others_unbatched(bt, app, "arr", "vals") or not _is_const(b.get("inplace", _const(True)), False) or \
            not isinstance(mask, (gast.Name, gast.Constant)):
        return None
    return _planned_writes(bt, target, arr, vals, "_place", lambda size, count: _call(
        bt.helper(batch_place_plan), size, copy.deepcopy(mask), count))


def _same_call_rule(operand):
    """The same call on the batched array `operand`, every other argument unbatched: the checks that pass an
    array through (lax.scan's leading_axis_array and scan_step_output, require)."""
    def rule(bt, target, app):
        if not _batched_array(bt, app.bound.get(operand)) or not _others_unbatched(bt, app, operand):
            return None
        return [bt.assign(target, _rebuilt(bt, app, {}))]
    return rule


def _broadcast_arrays_rule(bt, target, app):
    """broadcast_arrays(*args) of arrays of known per-example ranks: the batched ones get unit axes after
    the batch axis up to the highest rank, then each is broadcast to (B,) + the examples' broadcast shape."""
    items = _items(app.bound.get("args"))
    if not _arrays_of_known_rank(bt, items) or not any(bt.is_batched(n) for n in items):
        return None
    out = []
    top = max(bt.rank(n) for n in items)
    shape = bt.fresh("_broadcast_shape")
    out.append(bt.assign(shape, _call(bt.helper(batch_broadcast_shape), bt.B, *[_example_shape(bt, n)
                                                                                 for n in items])))
    results = []
    for node in items:
        lifted = _lifted_to(bt, out, node, top) if bt.is_batched(node) else node
        fresh = bt.fresh(f"{node.id}_broadcast")
        out.append(bt.assign(fresh, _call("jnp.broadcast_to", copy.deepcopy(lifted), _name(shape))))
        results.append(_name(fresh))
    out.append(bt.assign(target, gast.List(elts=results, ctx=gast.Load())))
    return out


def _broadcast_arrays_result(batching, bound):
    items = _items(bound.get("args"))
    if not items or any(batching.kind(n) != ARRAY or batching.rank(n) is None for n in items if isinstance(
            n, gast.Name)) or not all(isinstance(n, gast.Name) for n in items):
        return None, None
    top = max(batching.rank(n) for n in items)
    return tuple([top] * len(items)), None


def _summed_items(bt, iterable):
    """(node, batched, per-example rank) of each item of a list or tuple written in the call, or of a tuple
    name whose items' ranks the analysis knows (`xs[k]`; a batched tuple's items all carry the batch)."""
    items = _items(iterable)
    if items is not None:
        found = []
        for node in items:
            if isinstance(node, gast.Name) and bt.kind(node) == ARRAY and bt.rank(node) is not None:
                found.append((node, bool(bt.is_batched(node)), bt.rank(node)))
            elif isinstance(node, gast.Constant) and type(node.value) in (int, float, bool):
                found.append((node, False, 0))
            else:
                return None
        return found
    kind = bt.kind(iterable) if isinstance(iterable, gast.Name) else None
    if not isinstance(kind, tuple) or not all(isinstance(leaf, int) and not isinstance(leaf, bool) for leaf in kind):
        return None
    return [(_item(iterable, k), bool(bt.is_batched(iterable)), rank) for k, rank in enumerate(kind)]


def _builtin_sum_rule(bt, target, app):
    """Python's sum of a list or tuple (written in the call, or a tuple whose items' ranks are known):
    `start + x0 + x1 + ...` in that order (so a -0.0 or an inf meets the same values as in each example's
    sum), the batched items given unit axes after the batch axis up to the highest per-example rank.
    Summing an array's rows, or a list whose length the analysis does not know, loops."""
    b = app.bound
    items = _summed_items(bt, b.get("iterable"))
    start = _summed_items(bt, _tuple(b.get("start", _const(0))))
    if not items or start is None:
        return None
    nodes = items + start
    if not any(batched for _, batched, _ in nodes):
        return None
    top = max(rank for _, _, rank in nodes)
    out, lifted = [], []
    for node, batched, rank in nodes:
        if batched and rank < top:
            fresh = bt.fresh("_item")
            out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(node), _tuple(
                *[_const(i) for i in range(1, top - rank + 1)]))))
            node = _name(fresh)
        lifted.append(node)
    total = copy.deepcopy(lifted[-1])
    for k, node in enumerate(lifted[:-1]):
        partial = target if k == len(items) - 1 else bt.fresh("_partial")
        out.append(bt.assign(partial, gast.BinOp(left=total, op=gast.Add(), right=copy.deepcopy(node))))
        total = _name(partial)
    return out


def _builtin_sum_result(batching, bound):
    iterable = bound.get("iterable")
    items = _items(iterable)
    kind = batching.kind(iterable) if isinstance(iterable, gast.Name) else None
    ranks = [batching.rank(n) for n in items] if items is not None else list(kind) if isinstance(
        kind, tuple) and all(isinstance(leaf, int) and not isinstance(leaf, bool) for leaf in kind) else [None]
    ranks.append(batching.rank(bound.get("start", _const(0))))
    if not ranks or None in ranks:
        return None, None
    return ARRAY, max(ranks)


def _meshgrid_list_rule(bt, target, app):
    """meshgrid_list(xs) (meshgrid's tangent rule calls it with the tangents' tuple): meshgrid's layout
    (batching_grids.py's `batch_meshgrid_shapes`) on the items of a list written in the call, or of a batched
    tuple whose length the analysis knows (every item of a batched tuple carries the batch)."""
    from .batching_grids import batch_meshgrid_shapes
    b = app.bound
    xs = b.get("xs")
    items = _items(xs)
    if items is not None:
        if not items or any(not isinstance(x, gast.Name) or bt.kind(x) != ARRAY for x in items):
            return None
        flags = [bool(bt.is_batched(x)) for x in items]
    elif isinstance(xs, gast.Name) and bt.is_batched(xs) and isinstance(bt.kind(xs), tuple) and bt.kind(xs) and all(
            isinstance(leaf, int) or leaf == ARRAY for leaf in bt.kind(xs)):
        items = [_item(xs, k) for k in range(len(bt.kind(xs)))]
        flags = [True] * len(items)
    else:
        return None
    if not any(flags) or not _others_unbatched(bt, app, "xs") or not all(
            isinstance(b.get(k, _const(None)), gast.Constant) for k in ("sparse", "indexing")):
        return None
    out = []
    shapes = bt.fresh("_grid_shapes")
    out.append(bt.assign(shapes, _call(
        bt.helper(batch_meshgrid_shapes), bt.B, _tuple(*[_call("jnp.shape", copy.deepcopy(x)) for x in items]),
        _tuple(*[_const(f) for f in flags]), copy.deepcopy(b.get("sparse", _const(False))),
        copy.deepcopy(b.get("indexing", _const("xy"))))))
    grids = []
    for k, x in enumerate(items):
        grid = bt.fresh("_grid")
        out.append(bt.assign(grid, _call("jnp.broadcast_to", _call("jnp.reshape", copy.deepcopy(x), _item(_item(
            _name(shapes), k), 0)), _item(_item(_name(shapes), k), 1))))
        grids.append(_name(grid))
    out.append(bt.assign(target, gast.List(elts=grids, ctx=gast.Load())))
    return out


def _meshgrid_list_result(batching, bound):
    xs = bound.get("xs")
    count = len(xs.elts) if isinstance(xs, (gast.Tuple, gast.List)) else len(batching.kind(xs)) if isinstance(
        batching.kind(xs), tuple) else 0
    return (tuple([count] * count), None) if count else (None, None)


# ---------------------------------------------------------------- structured matrices
def _structured_rule(bt, target, app):
    """toeplitz(c, r), hankel(c, r), circulant(c) of vectors (per-example rank 1): each example's vector v
    (toeplitz: r[:0:-1] then c; hankel: c then r[1:], zeros for r=None; circulant: c) built along axis 1 in
    NumPy's result type of c and r, read at the same (m, n) positions for every example (`structured_index`,
    the helper their own call uses), as one take."""
    from ..scipy._linalg_more import structured_index
    b = app.bound
    kind = app.primitive.name
    c, r = b.get("c"), b.get("r", _const(None))
    vectors = [c] + ([] if _is_const(r, None) else [r])
    if any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY or bt.rank(n) != 1 for n in vectors) or not any(
            bt.is_batched(n) for n in vectors):
        return None
    out = []
    c_b = bt.batched(c, out)
    r_b = bt.batched(r, out) if len(vectors) == 2 else None

    def rest(node):       # node[:, 1:]
        return gast.Subscript(value=copy.deepcopy(node), slice=_tuple(gast.Slice(lower=None, upper=None, step=None),
                              gast.Slice(lower=_const(1), upper=None, step=None)), ctx=gast.Load())

    if kind == "toeplitz":
        pieces = [_call("jnp.flip", rest(r_b if r_b is not None else c_b), axis=_const(1)), c_b]
    elif kind == "hankel":
        pieces = [c_b, rest(r_b if r_b is not None else _call("jnp.zeros_like", copy.deepcopy(c_b)))]
    else:
        pieces = None
    values = c_b
    if pieces is not None:
        values = _name(bt.fresh("_values"))
        dtype = _call(bt.helper(batch_result_dtype), *[copy.deepcopy(n) for n in vectors])
        out.append(bt.assign(values.id, _call("jnp.astype", _call("jnp.concatenate", gast.List(elts=[
            copy.deepcopy(p) for p in pieces], ctx=gast.Load()), axis=_const(1)), dtype)))
    length = lambda node: gast.Subscript(value=_call("jnp.shape", copy.deepcopy(node)), slice=_const(1),   # noqa: E731
                                         ctx=gast.Load())
    index = _call(bt.helper(structured_index), _const(kind), length(c_b), length(r_b if r_b is not None else c_b))
    out.append(bt.assign(target, _call("jnp.take", copy.deepcopy(values), index, axis=_const(1))))
    return out


def _leslie_rule(bt, target, app):
    """leslie(f, s) of vectors: each example's [f, s, 0] in the float result type of f and s, read at
    `gather_index`'s positions (the helper its own call uses) in one take."""
    from ..scipy._linalg_more import gather_index
    b = app.bound
    vectors = [b.get("f"), b.get("s")]
    if any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY or bt.rank(n) != 1 for n in vectors) or not any(
            bt.is_batched(n) for n in vectors):
        return None
    out = []
    f_b, s_b = (bt.batched(n, out) for n in vectors)
    zero = gast.Subscript(value=_call("jnp.zeros_like", copy.deepcopy(f_b)), slice=_tuple(gast.Slice(
        lower=None, upper=None, step=None), gast.Slice(lower=None, upper=_const(1), step=None)), ctx=gast.Load())
    values = bt.fresh("_values")
    joined = _call("jnp.concatenate", gast.List(elts=[f_b, s_b, zero], ctx=gast.Load()), axis=_const(1))
    out.append(bt.assign(values, _call("jnp.astype", joined, _call(bt.helper(batch_float_dtype), *[
        copy.deepcopy(n) for n in vectors]))))
    check = bt.fresh("_sizes")      # leslie's own error where s is not one entry shorter than f
    out.append(bt.assign(check, _call(bt.helper(batch_leslie_size), _call("jnp.shape", copy.deepcopy(f_b)), _call(
        "jnp.shape", copy.deepcopy(s_b)))))
    out.append(bt.assign(target, _call("jnp.take", _name(values), _call(bt.helper(gather_index), _const("leslie"),
                                                                         _name(check)), axis=_const(1))))
    return out


def _companion_rule(bt, target, app):
    """companion(a) of a batched vector: the first row -a[1:] / a[0] of each example (in the float dtype),
    the ones below the diagonal (`batch_companion_ones`) repeated along the batch, joined by rows."""
    a = app.bound.get("a")
    if not _batched_array(bt, a) or bt.rank(a) != 1:
        return None
    out = []
    dtype = bt.fresh("_dtype")
    out.append(bt.assign(dtype, _call(bt.helper(batch_float_dtype), copy.deepcopy(a))))
    cast = _cast(bt, out, a, dtype)
    ones = bt.fresh("_ones")
    out.append(bt.assign(ones, _call(bt.helper(batch_companion_ones), gast.Subscript(
        value=_call("jnp.shape", copy.deepcopy(cast)), slice=_const(1), ctx=gast.Load()), _name(dtype))))

    def part(lower, upper):
        return gast.Subscript(value=copy.deepcopy(cast), slice=_tuple(gast.Slice(lower=None, upper=None, step=None),
                              gast.Slice(lower=lower, upper=upper, step=None)), ctx=gast.Load())

    row = bt.fresh("_first_row")
    out.append(bt.assign(row, gast.BinOp(left=gast.UnaryOp(op=gast.USub(), operand=part(_const(1), None)),
                                         op=gast.Div(), right=part(None, _const(1)))))
    below = bt.fresh("_below")
    out.append(bt.assign(below, _call("jnp.broadcast_to", _name(ones), _call(
        bt.helper(batch_prepend), bt.B, _call("jnp.shape", _name(ones))))))
    out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=[
        _call("jnp.expand_dims", _name(row), _const(1)), _name(below)], ctx=gast.Load()), axis=_const(1))))
    return out


def _fiedler_rule(bt, target, app):
    """fiedler(a) of a batched vector: |a_i - a_j| of each example, one broadcast subtraction."""
    a = app.bound.get("a")
    if not _batched_array(bt, a) or bt.rank(a) != 1:
        return None
    return [bt.assign(target, _call("jnp.abs", gast.BinOp(
        left=_call("jnp.expand_dims", copy.deepcopy(a), _const(2)), op=gast.Sub(),
        right=_call("jnp.expand_dims", copy.deepcopy(a), _const(1)))))]


# ---------------------------------------------------------------- einsum and the stacks
def _explicit(subscripts):
    """A literal einsum subscripts string with its output written out (NumPy's implicit output: `...` first,
    then the labels used once, in ASCII order), or None where it is not a plain string of labels."""
    spec = subscripts.replace(" ", "")
    inputs, _, output = spec.partition("->")
    labels = inputs.replace("...", "").replace(",", "")
    if not labels.isalpha() and labels:
        return None
    if "->" not in spec:
        output = ("..." if "..." in inputs else "") + "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    return inputs.split(","), output


def _einsum_rule(bt, target, app):
    """einsum of one or two operands (no contraction order to choose) and literal subscripts: each batched
    operand gets a label of its own in front, the output too, so one einsum computes every example."""
    b = app.bound
    subscripts, operands = b.get("subscripts"), _items(b.get("operands"))
    if not (isinstance(subscripts, gast.Constant) and isinstance(subscripts.value, str)) or not operands or len(
            operands) > 2 or any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY for n in operands):
        return None
    if not any(bt.is_batched(n) for n in operands) or not _others_unbatched(bt, app, "operands"):
        return None
    found = _explicit(subscripts.value)
    if found is None or len(found[0]) != len(operands):
        return None
    inputs, output = found
    label = next((c for c in "BNZbnzABCDEFGHIJKLMOPQRSTUVWXYacdefghijklmopqrstuvwxy" if c not in subscripts.value),
                 None)
    if label is None:
        return None         # every letter taken: no label is left for the batch
    written = ",".join(label + spec if bt.is_batched(n) else spec for spec, n in zip(inputs, operands))
    keywords = [gast.keyword(arg=k, value=copy.deepcopy(n)) for k, n in b.items() if k not in (
        "subscripts", "operands")]
    return [bt.assign(target, gast.Call(func=_call("jnp.einsum").func, args=[_const(f"{written}->{label}{output}")] + [
        copy.deepcopy(n) for n in operands], keywords=keywords))]


def _einsum_result(batching, bound):
    subscripts = bound.get("subscripts")
    found = _explicit(subscripts.value) if isinstance(subscripts, gast.Constant) and isinstance(
        subscripts.value, str) else None
    return (ARRAY, None) if found is None or "..." in found[1] else (ARRAY, len(found[1]))


# per stacking function: the unit axes (per-example, batch excluded) its atleast_Nd gives an item of each
# rank, and the per-example axis the items are joined along (hstack's: 0 for vectors, else 1)
_STACKS = {
    "hstack": ({0: (0,)}, None),
    "vstack": ({0: (0, 1), 1: (0,)}, 0),
    "dstack": ({0: (0, 1, 2), 1: (0, 2), 2: (2,)}, 2),
    "column_stack": ({0: (0, 1), 1: (1,)}, 1),
}


def _stack_family_rule(bt, target, app):
    """hstack, vstack, dstack, column_stack of a list or tuple written in the call, of arrays of known
    per-example ranks: each item (an unbatched one repeated along the batch) gets the unit axes its
    atleast_1d/2d/3d (column_stack: a column) gives, after the batch axis, and one concatenate joins them
    along the per-example axis + 1 (the dtype promoted as NumPy's concatenate promotes)."""
    b = app.bound
    items = _items(b.get("tup"))
    if not _arrays_of_known_rank(bt, items) or not any(bt.is_batched(n) for n in items) or not _is_const(
            b.get("dtype", _const(None)), None) or not _others_unbatched(bt, app, "tup"):
        return None
    units, axis = _STACKS[app.primitive.name]
    ranks = [bt.rank(n) for n in items]
    if axis is None:
        axis = 0 if all(r <= 1 for r in ranks) else 1
    if app.primitive.name == "column_stack" and any(r > 2 for r in ranks):
        return None
    out, joined = [], []
    for node, rank in zip(items, ranks):
        value = bt.batched(node, out)
        if units.get(rank):
            fresh = bt.fresh(f"{node.id}_atleast")
            out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(value), _tuple(
                *[_const(1 + k) for k in units[rank]]))))
            value = _name(fresh)
        joined.append(value)
    out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=joined, ctx=gast.Load()),
                                       axis=_const(axis + 1))))
    return out


def _stack_family_result(least):
    """The result's per-example rank: the items' highest, at least the atleast_Nd's N (`least`)."""
    def result(batching, bound):
        items = _items(bound.get("tup"))
        ranks = [batching.rank(n) for n in items] if items else [None]
        return ARRAY, None if None in ranks else max([least] + ranks)
    return result


def _gradient_axis(bt, axis, operand):
    """gradient's axis argument for the batched operand: a literal int or tuple shifted past the batch axis,
    None as 1 for a vector (one array) or as every per-example axis (1..rank, a list), else None."""
    if _is_const(axis, None):
        rank = bt.rank(operand)
        if rank is None or rank == 0:
            return None
        return _const(1) if rank == 1 else _tuple(*[_const(k) for k in range(1, rank + 1)])
    return _shifted(axis)


def _gradient_adjoint_rule(bt, target, app):
    """gradient_adjoint(g, f, varargs, axis, edge_order) (the adjoint of jnp.gradient) of a batched g, one
    array or an adjoint tree of one per axis (every item with the batch first): the same call on f repeated
    along the batch (it lends its shape), the axes shifted past the batch axis."""
    b = app.bound
    g, f = b.get("g"), b.get("f")
    if not isinstance(f, gast.Name) or bt.kind(f) != ARRAY or not isinstance(g, gast.Name) or not bt.is_batched(g):
        return None
    axis = _gradient_axis(bt, b.get("axis", _const(None)), f)
    if axis is None or not isinstance(b.get("edge_order", _const(1)), gast.Constant) or not _others_unbatched(
            bt, app, "g", "f"):
        return None
    is_tree = getattr(bt, "is_adjoint_tree", None)
    if not (_batched_array(bt, g) if isinstance(axis, gast.Constant) else is_tree is not None and is_tree(g)):
        return None     # one axis reads g as an array; several read a tree (an array g would be read by rows)
    out = []
    return out + [bt.assign(target, _rebuilt(bt, app, {"f": bt.batched(f, out), "axis": axis}))]


def _gradient_items_rule(bt, target, app):
    """gradient_items(t, varargs, axis, edge_order) of a batched t along one axis (one array: a literal int,
    or None for a vector): the same call with the axis shifted. Several axes give an adjoint tree: loop."""
    b = app.bound
    t = b.get("t")
    if not _batched_array(bt, t) or not _others_unbatched(bt, app, "t") or not isinstance(
            b.get("edge_order", _const(1)), gast.Constant):
        return None
    axis = _gradient_axis(bt, b.get("axis", _const(None)), t)
    if axis is None or not isinstance(axis, gast.Constant):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {"axis": axis}))]


def _gradient_items_result(batching, bound):
    axis = bound.get("axis", _const(None))
    rank = _rank_of(batching, bound, "t")
    if _static_int(axis) is not None or (_is_const(axis, None) and rank == 1):
        return ARRAY, rank
    return None, None


# ---------------------------------------------------------------- derivative helpers
def _pad_plan(bt, out, app, constant):
    b = app.bound
    plan = bt.fresh("_sides")
    out.append(bt.assign(plan, _call(bt.helper(batch_pad_side_plan), _example_shape(bt, b["array"]),
                                     copy.deepcopy(b["pad_width"]), _example_shape(bt, constant))))
    return _name(plan)


def _pad_constant_tangent_rule(bt, target, app):
    """pad_constant_tangent(t, array, pad_width) (the tangent of jnp.pad in constant_values) of a batched
    t: each example's (ndim, 2) side values, read at each cell's side and kept in the padding only."""
    b = app.bound
    t = b.get("t")
    if not _batched_array(bt, t) or not isinstance(b.get("array"), gast.Name) or not _others_unbatched(
            bt, app, "t", "array"):
        return None
    from .batching import batch_shape
    out = []
    plan = _pad_plan(bt, out, app, t)
    sides = bt.fresh(f"{t.id}_sides")
    out.append(bt.assign(sides, _call("jnp.broadcast_to", _call("jnp.reshape", copy.deepcopy(t), _call(
        bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(t)), _const(2))), _call(
        bt.helper(batch_prepend), bt.B, _item(plan, 4)))))
    cells = bt.fresh(f"{t.id}_cells")
    out.append(bt.assign(cells, _call("jnp.take", _call("jnp.reshape", _name(sides), _tuple(bt.B, _const(-1))),
                                      _item(plan, 0), axis=_const(1))))
    kept = bt.fresh(f"{t.id}_padding")
    out.append(bt.assign(kept, _call("jnp.where", _item(plan, 1), _name(cells), _const(0))))
    out.append(bt.assign(target, _call("jnp.astype", _call("jnp.reshape", _name(kept), _call(
        bt.helper(batch_prepend), bt.B, _item(plan, 5))), _call(
        bt.helper(batch_float_result), copy.deepcopy(t)))))
    return out


def _pad_constant_adjoint_rule(bt, target, app):
    """pad_constant_adjoint(g, array, pad_width, constant_values) of a batched g: each side's cells of each
    example summed (a where, not a product with a mask, so an inf inside the array stays out of the sums),
    then summed over the axes constant_values was broadcast along."""
    b = app.bound
    g, constant = b.get("g"), b.get("constant_values")
    if not _batched_array(bt, g) or not isinstance(b.get("array"), gast.Name) or not isinstance(
            constant, (gast.Name, gast.Constant)) or not _others_unbatched(bt, app, "g", "array", "constant_values"):
        return None
    out = []
    plan = _pad_plan(bt, out, app, constant)
    cells = bt.fresh(f"{g.id}_cells")
    out.append(bt.assign(cells, _call("jnp.expand_dims", _call("jnp.reshape", copy.deepcopy(g), _tuple(
        bt.B, _const(-1))), _const(1))))
    per_side = bt.fresh(f"{g.id}_per_side")
    out.append(bt.assign(per_side, _call("jnp.sum", _call("jnp.where", _item(plan, 2), _name(cells), _const(0)),
                                         axis=_const(2))))
    pairs = bt.fresh(f"{g.id}_pairs")
    out.append(bt.assign(pairs, _call("jnp.sum", _call("jnp.reshape", _name(per_side), _call(
        bt.helper(batch_prepend), bt.B, _item(plan, 4))), axis=_item(plan, 3), keepdims=_const(True))))
    out.append(bt.assign(target, _call("jnp.astype", _call("jnp.reshape", _name(pairs), _call(
        bt.helper(batch_prepend), bt.B, _example_shape(bt, constant))), _call(
        bt.helper(batch_float_result), copy.deepcopy(g)))))
    return out


def _sum_adjoint_rule(bt, target, app):
    """sum_adjoint(g, [x0, x1, ...]) (the adjoint of a list written in Python's sum) where every item has g's
    per-example rank: the same call on the batched g and items (an unbatched item repeated along the batch),
    which sums g over each item's broadcast axes, never the batch axis; an adjoint tree whose items all
    carry the batch. Items of lower rank than g, or an array summed row by row, loop."""
    b = app.bound
    g, items = b.get("g"), _items(b.get("iterable"))
    if not _batched_array(bt, g) or bt.rank(g) is None or not _arrays_of_known_rank(bt, items) or any(
            bt.rank(n) != bt.rank(g) for n in items):
        return None
    out = []
    batched = [bt.batched(n, out) for n in items]
    out.append(bt.assign(target, _rebuilt(bt, app, {"iterable": gast.List(elts=batched, ctx=gast.Load())})))
    return out


def _sum_adjoint_result(batching, bound):
    """An adjoint tree for a list (or tuple) iterable, an array shaped like an array iterable (its rows each
    get g), else unknown."""
    iterable = bound.get("iterable")
    kind = batching.kind(iterable)
    if _items(iterable) is not None or isinstance(kind, tuple):
        return "tree", None
    return (ARRAY, batching.rank(iterable)) if kind == ARRAY else (None, None)


def _item_adjoint_rule(bt, target, app):
    """item_adjoint(tree, i) of a tree every assignment makes with sum_adjoint of a list written in the
    call (so item i is there, an array with the batch first): the same call."""
    b = app.bound
    tree, i = b.get("adjoint"), b.get("i")
    if not isinstance(tree, gast.Name) or not bt.is_batched(tree) or bt.is_batched(i) or _static_int(i) is None:
        return None
    sources = [(value, found) for name, value, found in bt.batching.assignments if name == tree.id]
    if not sources or any(found is None or found.kind != "primitive" or found.primitive is None
                          or found.primitive.name != "sum_adjoint" or _items(found.bound.get("iterable")) is None
                          or _static_int(i) >= len(_items(found.bound.get("iterable"))) for _, found in sources):
        return None
    return [bt.assign(target, copy.deepcopy(app.node) if isinstance(app.node, gast.Call) else _rebuilt(bt, app, {}))]


def _item_adjoint_result(batching, bound):
    """Item i has the rank of item i of the list every sum_adjoint that made the tree summed to (unbroadcast
    to each item's shape), else unknown. Item 'w' (a string: an attribute's or a dict entry's adjoint) may be a
    list's adjoint tree (`self.weights = [w0, w1]`): of unknown kind, stacked example by example."""
    key = bound.get("i")
    if isinstance(key, gast.Constant) and isinstance(key.value, str):
        return None, None
    tree, i = bound.get("adjoint"), _static_int(key)
    ranks = set()
    for name, _, found in batching.assignments:
        if not isinstance(tree, gast.Name) or name != tree.id:
            continue
        items = _items(found.bound.get("iterable")) if found is not None and found.kind == "primitive" and (
            found.primitive is not None and found.primitive.name == "sum_adjoint") else None
        ranks.add(batching.rank(items[i]) if items is not None and i is not None and -len(items) <= i < len(items)
                  else None)
    return ARRAY, ranks.pop() if len(ranks) == 1 else None


EDITS = {
    "multi_dot": (_multi_dot_rule, _multi_dot_result),
    "block_diag": (_block_diag_rule, lambda batching, bound: (ARRAY, 2)),
    "kaiser": (_kaiser_rule, lambda batching, bound: (ARRAY, 1)),
    "put": (_put_rule, _keep("a")),
    "broadcast_arrays": (_broadcast_arrays_rule, _broadcast_arrays_result),
    "builtin_sum": (_builtin_sum_rule, _builtin_sum_result),
    "meshgrid_list": (_meshgrid_list_rule, _meshgrid_list_result),
    "pad_constant_tangent": (_pad_constant_tangent_rule, _keep("array")),
    "pad_constant_adjoint": (_pad_constant_adjoint_rule, _keep("constant_values")),
    "sum_adjoint": (_sum_adjoint_rule, _sum_adjoint_result),
    "einsum": (_einsum_rule, _einsum_result),
    "leslie": (_leslie_rule, lambda batching, bound: (ARRAY, 2)),
    "companion": (_companion_rule, lambda batching, bound: (ARRAY, 2)),
    "fiedler": (_fiedler_rule, lambda batching, bound: (ARRAY, 2)),
    "place": (_place_rule, _keep("arr")),
    "require": (_same_call_rule("a"), _keep("a")),
    "lax_leading_axis_array": (_same_call_rule("xs"), _keep("xs")),
    "lax_scan_step_output": (_same_call_rule("value"), _keep("value")),
    "gradient_adjoint": (_gradient_adjoint_rule, _keep("f")),
    "gradient_items": (_gradient_items_rule, _gradient_items_result),
    "toeplitz": (_structured_rule, lambda batching, bound: (ARRAY, 2)),
    "hankel": (_structured_rule, lambda batching, bound: (ARRAY, 2)),
    "circulant": (_structured_rule, lambda batching, bound: (ARRAY, 2)),
    "hstack": (_stack_family_rule, _stack_family_result(1)),
    "vstack": (_stack_family_rule, _stack_family_result(2)),
    "dstack": (_stack_family_rule, _stack_family_result(3)),
    "column_stack": (_stack_family_rule, _stack_family_result(2)),
    "item_adjoint": (_item_adjoint_rule, _item_adjoint_result),
}


def _register():
    register_family(EDITS)
    PRIMITIVES["item_adjoint"].batch.reads_tuples = ("adjoint",)     # the tree's item is read by the rule
    PRIMITIVES["builtin_sum"].batch.reads_tuples = ("iterable",)     # so is each item of a tuple name
    PRIMITIVES["gradient_adjoint"].batch.reads_tuples = ("g",)       # a tree of one adjoint per axis


_register()
