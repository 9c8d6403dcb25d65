"""Batching rules (vmap) of the fifth batch: lax's convolutions and windows, and NumPy functions that looped
over the batch (conv_general, polyint, polyfit, gradient, insert, resize, linalg.cond, Python's max/min of two
numbers).

Four mechanisms, each a table below:

- FOLDED: a convolution whose input carries the batch (lax.conv, lax.conv_general_dilated with a literal
  layout, or none): the batch axis is moved beside the input's N axis and folded into it, one convolution
  runs on B*N images, and the output's N axis is unfolded again. A batched kernel (rhs) loops over the batch:
  folding it would need feature_group_count, which astjax's convolution does not support.
- WINDOWED: reduce_window and the window patches read windows of the trailing axes; the batch axis is one
  more axis with a window of 1, stride 1, no padding and no dilation (runtime helper `batch_window_args`);
  window_patches reads only its trailing len(window) axes, so the same call batches it.
- SAME_CALL: functions that map over leading stack axes (linalg.cond) or over the columns of a 2-D y
  (polyfit, whose columns are one least-squares solve per column: the same SVD, so equal to the last bits
  of a float64 loop's up to rounding of the matrix product).
- the hand-written rules after them, each a few primitives on the whole batch.

Anything else (a batched kernel, layout, window, axis or shape argument, an argument the rule does not cover
given explicitly) keeps the loop over the batch, which is always right. tests/test_vmap_rules_batch5.py checks
each against a Python loop over the batch.
"""
import copy
import inspect

import gast
import numpy as np

from ..analyses.batching import ARRAY
from ..array import wrap
from .batching import _call, _const, _is_const, _name, _static_int, _tuple
from .batching_axes import _callee, _declared, _keep, _rank_of, _rebuilt, _shifted, _unknown_array
from .batching_fourth import _batched_array, _covers_only, _flat_unless_axis, _others_unbatched
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["FOLDED", "WINDOWED", "SAME_CALL", "EDITS", "batch_folded_shape", "batch_unfolded_shape",
           "batch_window_args", "batch_cyclic_index"]


# ---------------------------------------------------------------- runtime helpers (shapes only)
def batch_folded_shape(shape, axis):
    """`shape` with axes `axis` and `axis + 1` merged into one (the batch folded into the images)."""
    shape, axis = tuple(int(n) for n in shape), int(axis)
    return shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:]


def batch_unfolded_shape(shape, axis, size):
    """`shape` with axis `axis` split into (size, rest): the inverse of batch_folded_shape."""
    shape, axis, size = tuple(int(n) for n in shape), int(axis), int(size)
    return shape[:axis] + (size, shape[axis] // size if size else 0) + shape[axis + 1:]


def batch_window_args(window_dimensions, window_strides, padding, base_dilation, window_dilation):
    """reduce_window's window arguments for an operand with a batch axis in front: a window of 1, stride 1,
    no padding and no dilation along it ('VALID' and 'SAME' pad nothing there)."""
    def prefixed(values, first):
        return None if values is None else (first,) + tuple(values)
    if not isinstance(padding, str):
        padding = ((0, 0),) + tuple((int(lo), int(hi)) for lo, hi in padding)
    return ((1,) + tuple(int(k) for k in window_dimensions), prefixed(window_strides, 1), padding,
            prefixed(base_dilation, 1), prefixed(window_dilation, 1))


def batch_cyclic_index(size, new_shape):
    """The flat positions np.resize reads to fill `new_shape` from `size` elements (cyclically); an empty
    source with a non-empty result (NumPy fills zeros) is refused rather than guessed, and a negative size
    raises as NumPy's resize does (the reshape after would read -1 as "infer")."""
    shape = tuple(int(n) for n in (new_shape if np.ndim(new_shape) else (new_shape,)))
    if any(n < 0 for n in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, got {new_shape!r}")
    total = int(np.prod(shape, dtype=np.int64))
    if int(size) == 0 and total:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("vmap: jnp.resize of a batched empty array is not batched (NumPy fills zeros). "
                             "Instead: build the result with jnp.zeros outside vmap.")
    return np.arange(total) % max(int(size), 1)


for _fn in (batch_folded_shape, batch_unfolded_shape, batch_window_args, batch_cyclic_index):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


def _shape_at(node, i):
    return gast.Subscript(value=_call("jnp.shape", copy.deepcopy(node)), slice=_const(i), ctx=gast.Load())


def _item(name, i):
    return gast.Subscript(value=_name(name), slice=_const(i), ctx=gast.Load())


# ---------------------------------------------------------------- convolutions: the batch folded into N
def _n_axes(node):
    """(lhs's N axis, out's N axis) of a literal dimension_numbers: None (NCHW) or three layout strings."""
    if _is_const(node, None):
        return 0, 0
    if isinstance(node, (gast.Tuple, gast.List)) and len(node.elts) == 3 and all(
            isinstance(e, gast.Constant) and isinstance(e.value, str) for e in node.elts):
        lhs, _, out = (e.value for e in node.elts)
        if lhs.count("N") == 1 and out.count("N") == 1:
            return lhs.index("N"), out.index("N")
    return None


def _folded_conv_rule(bt, target, app):
    """conv(lhs, rhs, ...) of a batched lhs: (B, ..N.., ...) folded to (..B*N.., ...), one convolution, the
    output's N axis unfolded to (B, N) and the batch moved to axis 0."""
    b = app.bound
    lhs, rhs = b.get("lhs"), b.get("rhs")
    if not _batched_array(bt, lhs) or not _others_unbatched(bt, app, "lhs") or not isinstance(
            rhs, (gast.Name, gast.Constant)):
        return None
    if not all(_is_const(b.get(k, _const(1)), 1) for k in ("feature_group_count", "batch_group_count")):
        return None
    axes = _n_axes(b.get("dimension_numbers", _const(None)))
    if axes is None:
        return None             # a layout computed when it runs: loop
    n_in, n_out = axes
    out = []
    moved = lhs
    if n_in:
        moved = _name(bt.fresh(f"{lhs.id}_moved"))
        out.append(bt.assign(moved.id, _call("jnp.moveaxis", copy.deepcopy(lhs), _const(0), _const(n_in))))
    folded = bt.fresh(f"{lhs.id}_folded")
    out.append(bt.assign(folded, _call("jnp.reshape", copy.deepcopy(moved), _call(
        bt.helper(batch_folded_shape), _call("jnp.shape", copy.deepcopy(moved)), _const(n_in)))))
    images = bt.fresh("_images")
    out.append(bt.assign(images, _rebuilt(bt, app, {"lhs": _name(folded)})))
    unfolded = bt.fresh("_unfolded")
    out.append(bt.assign(unfolded, _call("jnp.reshape", _name(images), _call(
        bt.helper(batch_unfolded_shape), _call("jnp.shape", _name(images)), _const(n_out), bt.B))))
    out.append(bt.assign(target, _call("jnp.moveaxis", _name(unfolded), _const(n_out), _const(0))
                         if n_out else _name(unfolded)))
    return out


FOLDED = {"lax_conv": _folded_conv_rule, "lax_conv_general_dilated": _folded_conv_rule}


# ---------------------------------------------------------------- windows: the batch axis a window of 1
_WINDOW_NAMES = ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation")
_WINDOW_DEFAULTS = {"window_strides": None, "padding": "VALID", "base_dilation": None, "window_dilation": None}


def _reduce_window_rule(bt, target, app):
    b = app.bound
    if not _batched_array(bt, b.get("operand")) or not _others_unbatched(bt, app, "operand"):
        return None
    names, defaults = _WINDOW_NAMES, _WINDOW_DEFAULTS
    out = []
    window = bt.fresh("_window")
    out.append(bt.assign(window, _call(bt.helper(batch_window_args), *[
        copy.deepcopy(b[k]) if k in b else _const(defaults[k]) for k in names])))
    out.append(bt.assign(target, _rebuilt(bt, app, {k: _item(window, i) for i, k in enumerate(names)})))
    return out


def _window_rows_rule(bt, target, app):
    """window_hits / window_ties (reduce_window's derivative weights: one row per output, shaped (outputs,
    window size) or (outputs, 1)): with the batch a window of 1, the rows of example b are the b-th block of
    B, reshaped (B, outputs, columns)."""
    b = app.bound
    arrays = [b.get("operand"), b.get("y")]
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in arrays) or not any(
            bt.is_batched(n) for n in arrays) or not _others_unbatched(bt, app, "operand", "y"):
        return None
    out = []
    operand, y = (bt.batched(n, out) for n in arrays)
    window = bt.fresh("_window")
    out.append(bt.assign(window, _call(bt.helper(batch_window_args), *[
        copy.deepcopy(b[k]) if k in b else _const(_WINDOW_DEFAULTS[k]) for k in _WINDOW_NAMES])))
    rows = bt.fresh("_rows")
    replace = {k: _item(window, i) for i, k in enumerate(_WINDOW_NAMES)}
    replace.update(operand=operand, y=y)
    out.append(bt.assign(rows, _rebuilt(bt, app, replace)))
    out.append(bt.assign(target, _call("jnp.reshape", _name(rows), _tuple(bt.B, _const(-1), _shape_at(
        _name(rows), -1)))))
    return out


def _window_patches_rule(bt, target, app):
    """window_patches reads its trailing len(window) axes only: the batch is one more leading axis."""
    if not _batched_array(bt, app.bound.get("x")) or not _others_unbatched(bt, app, "x"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _window_patches_adjoint_rule(bt, target, app):
    """The transpose of window_patches: the batched g goes back into a (B,) + x_shape array."""
    b = app.bound
    if not _batched_array(bt, b.get("g")) or not _others_unbatched(bt, app, "g"):
        return None
    from .batching import batch_prepend
    shape = _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["x_shape"]))
    return [bt.assign(target, _rebuilt(bt, app, {"x_shape": shape}))]


WINDOWED = {
    "lax_reduce_window": (_reduce_window_rule, _keep("operand")),
    "lax_window_hits": (_window_rows_rule, lambda batching, bound: (ARRAY, 2)),
    "lax_window_ties": (_window_rows_rule, lambda batching, bound: (ARRAY, 2)),
    "lax_window_patches": (_window_patches_rule, lambda batching, bound: (ARRAY, None)),
    "lax_window_patches_adjoint": (_window_patches_adjoint_rule, _unknown_array),
}


# ---------------------------------------------------------------- the same call
def _cond_rule(bt, target, app):
    """linalg.cond maps over leading stack axes, for every `p` (an unbatched one: a batched p loops)."""
    if not _batched_array(bt, app.bound.get("x")) or not _others_unbatched(bt, app, "x"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _polyfit_rule(bt, target, app):
    """polyfit(x, y, deg) of a batched 1-D y and an unbatched x: the columns of a 2-D y are fitted one by one
    (one least-squares solve with the same matrix), so y's transpose gives every example's coefficients as
    columns. rcond, w, full and cov keep their defaults; a batched x loops (each example its own matrix)."""
    b = app.bound
    key = "ys" if "ys" in b else "y"        # the primitive's declared signature names it ys
    y = b.get(key)
    if not _batched_array(bt, y) or bt.rank(y) != 1 or not _others_unbatched(bt, app, key) or not _covers_only(
            app, "x", "ys", "y", "deg") or _static_int(b.get("deg")) is None:
        return None
    x = b.get("x")
    if not isinstance(x, (gast.Name, gast.Constant)):
        return None
    columns = bt.fresh("_columns")
    return [bt.assign(columns, _rebuilt(bt, app, {"y": _call("jnp.transpose", copy.deepcopy(y))})),
            bt.assign(target, _call("jnp.transpose", _name(columns)))]


def _polyfit_result(batching, bound):
    """The coefficients have y's rank ((deg + 1,) for a 1-D y, (deg + 1, K) for K columns); with full or cov
    given the result is a tuple: of a kind the analysis does not know."""
    if any(k in bound and not _is_const(bound[k], False) and not _is_const(bound[k], None) for k in ("full", "cov")):
        return None, None
    return ARRAY, _rank_of(batching, bound, "ys" if "ys" in bound else "y")


def _frequencies_rule(bt, target, app):
    """fftfreq(n, d) / rfftfreq(n, d) of a batched scalar d: NumPy's frequencies of spacing 1 divided by d,
    so d lifted to (B, 1) gives every example's row (n and dtype unbatched)."""
    b = app.bound
    d = b.get("d")
    if not _batched_array(bt, d) or bt.rank(d) != 0 or not _others_unbatched(bt, app, "d"):
        return None
    lifted = bt.fresh(f"{d.id}_column")
    return [bt.assign(lifted, _call("jnp.expand_dims", copy.deepcopy(d), _const(1))),
            bt.assign(target, _rebuilt(bt, app, {"d": _name(lifted)}))]


def _stack_rule(bt, target, app):
    """adjugate, and the checks that pass a matrix through (well_conditioned, square_unless_reduced), read
    a stack of matrices as each one: the same call, only the matrix batched (a check refuses the batch where
    it would refuse one of its examples)."""
    if not _batched_array(bt, app.bound.get("a")) or not _others_unbatched(bt, app, "a"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _last_axis_rule(bt, target, app):
    """lax's top_k_indices reads the last axis only: the same call on a batched operand (k unbatched)."""
    if not _batched_array(bt, app.bound.get("operand")) or not _others_unbatched(bt, app, "operand"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _argext_rule(bt, target, app):
    """lax's cumulative_argext(operand, axis, ...) (cummax/cummin's derivative) along the axis shifted past
    the batch axis when it runs; a tie in any example is refused, as in that example's call."""
    from .batching import batch_axis
    b = app.bound
    if not _batched_array(bt, b.get("operand")) or not _others_unbatched(bt, app, "operand"):
        return None
    axis = _call(bt.helper(batch_axis), copy.deepcopy(b["axis"]), _call("jnp.ndim", copy.deepcopy(b["operand"])))
    return [bt.assign(target, _rebuilt(bt, app, {"axis": axis}))]


SAME_CALL = {
    "lax_top_k_indices": (_last_axis_rule, _keep("operand")),
    "lax_cumulative_argext": (_argext_rule, _keep("operand")),
    "adjugate": (_stack_rule, _keep("a")),
    "well_conditioned": (_stack_rule, _keep("a")),
    "square_unless_reduced": (_stack_rule, _keep("a")),
    "fftfreq": (_frequencies_rule, lambda batching, bound: (ARRAY, 1)),
    "rfftfreq": (_frequencies_rule, lambda batching, bound: (ARRAY, 1)),
    "cond": (_cond_rule, lambda batching, bound: (ARRAY, None if _rank_of(batching, bound, "x") is None
                                                  else _rank_of(batching, bound, "x") - 2)),
    "polyfit": (_polyfit_rule, _polyfit_result),
}


# ---------------------------------------------------------------- hand-written
def _conv_general_rule(bt, target, app):
    """conv_general(a, v, mode, flipped) (convolve, or correlate without conjugation when flipped) of 1-D
    operands: the gather-and-sum of batching_signal.py, the kernel reversed first when flipped."""
    from .batching_signal import _gather_sum, _vectors
    b = app.bound
    mode, flipped = b.get("mode", _const("full")), b.get("flipped", _const(False))
    if not isinstance(flipped, gast.Constant) or not isinstance(flipped.value, bool) or not isinstance(
            mode, (gast.Constant, gast.Name)) or bt.is_batched(mode):
        return None
    nodes = _vectors(bt, app, ("a", "v"))
    if nodes is None:
        return None
    a, v = nodes
    out = []
    if flipped.value:
        kernel = bt.fresh(f"{v.id}_flipped")
        out.append(bt.assign(kernel, _call("jnp.flip", copy.deepcopy(v), _const(-1))))
        v = _name(kernel)
    return _gather_sum(bt, out, target, "correlate" if flipped.value else "convolve", a, v, mode,
                       kernel_ready=True)


def _polyint_rule(bt, target, app):
    """polyint(p, m) with k=None: m times, the coefficients divided by their powers (n, ..., 1), a zero
    appended; in p's inexact dtype, as each example's call. A literal m only."""
    b = app.bound
    p = b.get("p")
    m = _static_int(b.get("m", _const(1)))
    if not _batched_array(bt, p) or bt.rank(p) != 1 or m is None or m < 0 or m > 8 or not _others_unbatched(
            bt, app, "p") or not _is_const(b.get("k", _const(None)), None):
        return None
    out = []
    current = bt.fresh(f"{p.id}_inexact")
    out.append(bt.assign(current, gast.BinOp(left=copy.deepcopy(p), op=gast.Add(), right=_call(
        "inexact_zero", _tuple(copy.deepcopy(p))))))
    for _ in range(m):
        dtype = gast.Attribute(value=_name(current), attr="dtype", ctx=gast.Load())
        powers = _call("jnp.arange", _shape_at(_name(current), 1), _const(0), _const(-1))
        divided = bt.fresh(f"{p.id}_divided")
        out.append(bt.assign(divided, gast.BinOp(left=_name(current), op=gast.Div(), right=_call(
            "jnp.astype", powers, copy.deepcopy(dtype)))))
        zero = _call("jnp.zeros", _tuple(bt.B, _const(1)), dtype=copy.deepcopy(dtype))
        nxt = bt.fresh(f"{p.id}_int")
        out.append(bt.assign(nxt, _call("jnp.concatenate", gast.List(elts=[_name(divided), zero], ctx=gast.Load()),
                                        axis=_const(1))))
        current = nxt
    out.append(bt.assign(target, _name(current)))
    return out


def _gradient_rule(bt, target, app):
    """gradient(f, *spacing, axis) with one array result: a 1-D f (axis None or 0), or a literal int axis;
    the spacings unbatched (scalars, or coordinates along that axis), axis shifted past the batch axis."""
    b = app.bound
    f = b.get("f")
    if not _batched_array(bt, f) or not _others_unbatched(bt, app, "f") or not isinstance(
            b.get("edge_order", _const(1)), gast.Constant):
        return None
    axis = b.get("axis", _const(None))
    if _is_const(axis, None):
        if bt.rank(f) != 1:
            return None         # a list of one gradient per axis: loop
        shifted = _const(1)
    else:
        shifted = _shifted(axis)
        if _static_int(axis) is None or shifted is None:
            return None
    spacing = b.get("varargs")
    if spacing is not None and not (isinstance(spacing, gast.Tuple) and len(spacing.elts) <= 1):
        return None
    call = _call(_callee(bt, app), copy.deepcopy(f), *[copy.deepcopy(e) for e in (spacing.elts if spacing else [])],
                 axis=shifted, edge_order=copy.deepcopy(b.get("edge_order", _const(1))))
    return [bt.assign(target, call)]


def _gradient_result(batching, bound):
    """An array of f's rank where gradient returns one array (a literal int axis, or a 1-D f); otherwise a
    list of one gradient per axis (a looped statement's result of unknown kind, not an array of f's rank:
    `jnp.sum(jnp.gradient(a)[1])` of a 2-D a summed the wrong axes as that)."""
    axis = bound.get("axis", _const(None))
    rank = _rank_of(batching, bound, "f")
    if _static_int(axis) is not None or (_is_const(axis, None) and rank == 1):
        return ARRAY, rank
    return None, None


def _builtin_extreme_rule(bt, target, app):
    """Python's max(a, b) / min(a, b) of two numbers: `b if b > a else a` (`b if b < a else a`), the first
    argument kept on a tie or a NaN, as Python does; per-example scalars only (Python refuses arrays)."""
    b = app.bound
    x1, x2 = b.get("x1"), b.get("x2")
    if set(b) != {"x1", "x2"} or not isinstance(app.node, gast.Call) or app.node.keywords or len(
            app.node.args) != 2:
        return None
    for node in (x1, x2):
        if isinstance(node, gast.Name):
            if bt.kind(node) != ARRAY or bt.rank(node) != 0:
                return None
        elif not (isinstance(node, gast.Constant) and type(node.value) in (int, float)):
            return None
    op = gast.Gt() if app.primitive.name == "builtin_max" else gast.Lt()
    return [bt.assign(target, _call("jnp.where", gast.Compare(left=copy.deepcopy(x2), ops=[op], comparators=[
        copy.deepcopy(x1)]), copy.deepcopy(x2), copy.deepcopy(x1)))]


def _insert_rule(bt, target, app):
    """insert(arr, obj, values, axis) of a batched arr with an unbatched obj and one unbatched number as
    values (which broadcasts to any inserted shape): a literal axis shifts past the batch axis; axis=None
    inserts into each example flattened (axis 1)."""
    b = app.bound
    arr, values = b.get("arr"), b.get("values")
    if not _batched_array(bt, arr) or not _others_unbatched(bt, app, "arr"):
        return None
    if not (isinstance(values, gast.Constant) and type(values.value) in (int, float, bool)) and not (
            isinstance(values, gast.Name) and bt.kind(values) == ARRAY and bt.rank(values) == 0):
        return None
    obj = b.get("obj")
    if not isinstance(obj, (gast.Name, gast.Constant)):
        return None
    axis = b.get("axis", _const(None))
    out = []
    if _is_const(axis, None):
        flat = bt.fresh(f"{arr.id}_flat")
        out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(arr), _tuple(bt.B, _const(-1)))))
        out.append(bt.assign(target, _rebuilt(bt, app, {"arr": _name(flat), "axis": _const(1)})))
        return out
    shifted = _shifted(axis)
    if _static_int(axis) is None or shifted is None:
        return None
    out.append(bt.assign(target, _rebuilt(bt, app, {"axis": shifted})))
    return out


def _resize_rule(bt, target, app):
    """resize(a, new_shape): each example flattened, read cyclically at the same positions, reshaped."""
    b = app.bound
    a = b.get("a")
    if not _batched_array(bt, a) or not _others_unbatched(bt, app, "a"):
        return None
    out = []
    flat = bt.fresh(f"{a.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(a), _tuple(bt.B, _const(-1)))))
    index = bt.fresh("_cyclic")
    out.append(bt.assign(index, _call(bt.helper(batch_cyclic_index), _shape_at(_name(flat), 1),
                                      copy.deepcopy(b["new_shape"]))))
    taken = bt.fresh(f"{a.id}_taken")
    out.append(bt.assign(taken, _call("jnp.take", _name(flat), _name(index), axis=_const(1))))
    from .batching import batch_prepend
    out.append(bt.assign(target, _call("jnp.reshape", _name(taken), _call(
        bt.helper(batch_prepend), bt.B, copy.deepcopy(b["new_shape"])))))
    return out


def _resize_result(batching, bound):
    shape = bound.get("new_shape")
    if _static_int(shape) is not None:
        return ARRAY, 1
    if isinstance(shape, gast.Tuple):
        return ARRAY, len(shape.elts)
    return ARRAY, None


def _along_rule(bt, target, app):
    """lax's gather_along(t, indices, axis) (take_along_axis) and its transpose scatter_along(g, indices,
    axis, shape) (sort's and top_k's derivatives): both operands batched (an unbatched one repeated along
    the batch), the axis shifted past the batch axis when it runs, scatter's shape given the batch."""
    from .batching import batch_axis, batch_prepend
    b = app.bound
    first = "t" if "t" in b else "g"
    nodes = [b.get(first), b.get("indices")]
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in nodes) or not any(
            bt.is_batched(n) for n in nodes) or not _others_unbatched(bt, app, first, "indices"):
        return None
    out = []
    operand, indices = (bt.batched(n, out) for n in nodes)
    axis = bt.fresh("_axis")
    out.append(bt.assign(axis, _call(bt.helper(batch_axis), copy.deepcopy(b["axis"]), _call(
        "jnp.ndim", copy.deepcopy(indices)))))
    replace = {first: operand, "indices": indices, "axis": _name(axis)}
    if "shape" in b:
        replace["shape"] = _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["shape"]))
    out.append(bt.assign(target, _rebuilt(bt, app, replace)))
    return out


def _pad_operand_adjoint_rule(bt, target, app):
    """The transpose of lax.pad in its operand: the batch axis unpadded, the operand's shape given the batch."""
    from .batching import batch_prepend
    from .batching_axes import batch_padding_config
    b = app.bound
    if not _batched_array(bt, b.get("g")) or not _others_unbatched(bt, app, "g"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {
        "operand_shape": _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["operand_shape"])),
        "padding_config": _call(bt.helper(batch_padding_config), copy.deepcopy(b["padding_config"]))}))]


def _quantile_derivative_rule(bt, target, app):
    """quantile_tangent(t, a, q, axis, ...) / quantile_adjoint(g, a, q, axis, ...) (the derivatives of
    quantile, percentile, median and their nan forms) of one number q: the tangent and `a` both carry the
    batch (an unbatched one repeated), the axis shifted past the batch axis (None: each example's every
    axis, as the quantile's own rule). An unbatched array q puts its axes ahead of the batch: the adjoint's
    g has its batch axis moved behind them first, the tangent's result has it moved back to the front after
    (q's rank written when known, else `jnp.ndim(q)` when it runs; a batched q loops)."""
    from .batching_axes import _every_axis
    b = app.bound
    first = "t" if "t" in b else "g"
    nodes = [b.get(first), b.get("a")]
    q = b.get("q")
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in nodes) or not any(
            bt.is_batched(n) for n in nodes) or not _others_unbatched(bt, app, first, "a"):
        return None
    if isinstance(q, gast.Constant) and type(q.value) in (int, float):
        q_rank = None
    elif isinstance(q, gast.Name) and bt.kind(q) in (ARRAY, None):
        q_rank = None if bt.rank(q) == 0 else _const(bt.rank(q)) if bt.rank(q) is not None else _call(
            "jnp.ndim", copy.deepcopy(q))
    else:
        return None
    if any(not isinstance(b.get(k, _const(None)), gast.Constant) for k in ("method", "keepdims", "kind", "slope")):
        return None
    out = []
    derivative, a = (bt.batched(n, out) for n in nodes)
    if q_rank is not None and first == "g":
        moved = bt.fresh(f"{derivative.id}_behind_q")
        out.append(bt.assign(moved, _call("jnp.moveaxis", copy.deepcopy(derivative), _const(0), q_rank)))
        derivative = _name(moved)
    axis = b.get("axis", _const(None))
    if _is_const(axis, None):
        if bt.rank(b["a"]) is None:
            return None
        shifted = _every_axis(bt, a)
    else:
        shifted = _shifted(axis)
        if shifted is None:
            return None
    call = _rebuilt(bt, app, {first: derivative, "a": a, "axis": shifted})
    if q_rank is not None and first == "t":
        behind = bt.fresh("_behind_q")
        out.append(bt.assign(behind, call))
        call = _call("jnp.moveaxis", _name(behind), copy.deepcopy(q_rank), _const(0))
    out.append(bt.assign(target, call))
    return out


def _broadcast_like_rule(bt, target, app):
    """broadcast_like(t, *operands) (the tangent of a broadcasting primitive, which forward-over-reverse
    code such as hessian's calls for every accumulated adjoint) of arrays: each batched one gets unit axes
    after the batch axis up to the operands' per-example rank (as the elementwise rule lifts), so the batch
    axes line up; a batched t beside unbatched operands is passed as one more operand, so the result keeps
    the batch axis (it lends only its shape, and operands[0] still decides a Python-number t's dtype)."""
    from .batching import batch_shape
    b = app.bound
    t, operands = b.get("t"), b.get("operands")
    if not isinstance(operands, gast.Tuple) or not operands.elts:
        return None
    nodes = [t] + list(operands.elts)
    for node in nodes:
        if isinstance(node, gast.Name):
            if bt.kind(node) != ARRAY:
                # a container's adjoint (a composed gradient of dict parameters), or a kind unknown here:
                # decided when it runs, example by example in one call
                return _broadcast_like_when_run(bt, target, nodes)
        elif not (isinstance(node, gast.Constant) and type(node.value) in (int, float)):
            return None
    if not any(isinstance(n, gast.Name) and bt.is_batched(n) for n in nodes):
        return None
    ranks = [bt.rank(n) if isinstance(n, gast.Name) else 0 for n in nodes]
    if None not in ranks and ranks[0] > max(ranks[1:]):
        return None                 # t of more axes than the operands': each example's call raises (the loop)
    out, lifted = [], []
    for node in nodes:
        if not (isinstance(node, gast.Name) and bt.is_batched(node)):
            lifted.append(node)
            continue
        others = [o for o in nodes[1:] if o is not node and isinstance(o, gast.Name)]   # operands only: a t of
        # more axes than they broadcast to is not lifted past them, and fails as in each example's call
        ranks = [bt.rank(o) for o in others]
        fresh = bt.fresh(f"{node.id}_")
        if bt.rank(node) is not None and None not in ranks:
            missing = max(ranks + [bt.rank(node)]) - bt.rank(node)
            if missing == 0:
                lifted.append(node)
                continue
            value = _call("jnp.expand_dims", copy.deepcopy(node), _tuple(*[_const(i) for i in range(1, missing + 1)]))
        else:
            per_example = [_call("jnp.ndim", copy.deepcopy(o)) if not bt.is_batched(o) else gast.BinOp(
                left=_call("jnp.ndim", copy.deepcopy(o)), op=gast.Sub(), right=_const(1)) for o in others]
            value = _call("jnp.reshape", copy.deepcopy(node), _call(bt.helper(batch_shape), _call(
                "jnp.shape", copy.deepcopy(node)), *per_example))
        out.append(bt.assign(fresh, value))
        lifted.append(_name(fresh))
    extra = [copy.deepcopy(lifted[0])] if isinstance(t, gast.Name) and bt.is_batched(t) and not any(
        isinstance(o, gast.Name) and bt.is_batched(o) for o in operands.elts) else []
    out.append(bt.assign(target, gast.Call(func=_callee(bt, app), args=[copy.deepcopy(n) for n in lifted] + extra,
                                           keywords=[])))
    return out


def _broadcast_like_when_run(bt, target, nodes):
    if not all(isinstance(n, gast.Name) or (isinstance(n, gast.Constant) and type(n.value) in (int, float))
               for n in nodes):
        return None
    flags = _tuple(*[_const(isinstance(n, gast.Name) and bool(bt.is_batched(n))) for n in nodes])
    call = _call(bt.helper(broadcast_like_of_examples), copy.deepcopy(nodes[0]),
                 _tuple(*[copy.deepcopy(n) for n in nodes[1:]]), flags)
    return [bt.assign(target, call)]


def broadcast_like_of_examples(t, operands, batched):
    """broadcast_like(t, *operands) over a batch (`batched`: whether t and each operand carry the batch axis
    first), for values whose kinds vmap did not know when it wrote the code: a container's adjoint is t itself
    (as broadcast_like returns it); arrays are broadcast example by example, the batch axis first."""
    from .helpers import TreeAdjoint, broadcast_like, weak_array
    containers = (TreeAdjoint, tuple, list, dict)
    t_batched, operands_batched = batched[0], batched[1:]
    if isinstance(t, containers) or any(isinstance(o, containers) for o in operands):
        if t_batched or not any(operands_batched):
            return t
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("astjax: vmap of a gradient of a pytree that does not depend on the mapped "
                             "arguments is not supported; compute it outside vmap")
    if not any(batched):
        return broadcast_like(t, *operands)
    size = next(np.shape(v)[0] for v, b in zip((t,) + tuple(operands), batched) if b)
    shape = np.broadcast_shapes(*(np.shape(o)[1:] if b else np.shape(o) for o, b in zip(operands, operands_batched)))
    values = weak_array(t, operands[0])
    if t_batched:            # unit axes after the batch axis, so each example lines up with its own shape
        values = values.reshape(values.shape[:1] + (1,) * max(len(shape) - (values.ndim - 1), 0) + values.shape[1:])
    return wrap(np.broadcast_to(values, (size,) + shape))


def _broadcast_like_result(batching, bound):
    operands = bound.get("operands")
    ranks = [batching.rank(n) if isinstance(n, gast.Name) else 0 for n in (
        [bound.get("t")] + (list(operands.elts) if isinstance(operands, gast.Tuple) else [None]))]
    return ARRAY, None if None in ranks else max(ranks)


EDITS = {
    "quantile_tangent": (_quantile_derivative_rule, _unknown_array),
    "quantile_adjoint": (_quantile_derivative_rule, _keep("a")),
    "broadcast_like": (_broadcast_like_rule, _broadcast_like_result),
    "lax_gather_along": (_along_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "indices"))),
    "lax_scatter_along": (_along_rule, _unknown_array),
    "lax_pad_operand_adjoint": (_pad_operand_adjoint_rule, _unknown_array),
    "conv_general": (_conv_general_rule, lambda batching, bound: (ARRAY, 1)),
    "polyint": (_polyint_rule, lambda batching, bound: (ARRAY, 1)),
    "gradient": (_gradient_rule, _gradient_result),
    "builtin_max": (_builtin_extreme_rule, lambda batching, bound: (ARRAY, 0)),
    "builtin_min": (_builtin_extreme_rule, lambda batching, bound: (ARRAY, 0)),
    "insert": (_insert_rule, _flat_unless_axis),
    "resize": (_resize_rule, _resize_result),
}


def _register():
    table = {name: (rule, _keep("lhs")) for name, rule in FOLDED.items()}
    table.update(WINDOWED)
    table.update(SAME_CALL)
    table.update(EDITS)
    for name, (rule, result) in table.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, result))
    # broadcast_like's rule reads a container's adjoint itself (broadcast_like_of_examples): the statement is
    # not run example by example for it (transforms/vmap.py's _batched_list_operand)
    PRIMITIVES["broadcast_like"].batch.reads_tuples = ("t",)


_register()
