"""Batching rules (vmap) of the fourth batch: helpers that per-example gradients reach (cast_adjoint,
dtype_adjoint, pad_tangent, lone_zero, cotangent_like, fft_apply/fft_adjoint) and NumPy functions that looped over the batch
(append, delete, ediff1d, maximum/minimum_accumulate, sici, fresnel, bessel_jn, polyder, vander,
put_along_axis, fill_diagonal, bincount with `length`, trim_zeros).

Three mechanisms, each a table below:

- SAME_CALL: the helper reads its array argument elementwise or as a whole for a dtype only (cast_adjoint's
  `like`, dtype_adjoint's `dtype`): the batched operand goes through the same call unchanged. Only the
  operand may carry the batch (a batched `like` with an unbatched `g` would give each example the same
  array under a batched name: that loops).
- AXIS_EDITS: the primitive edits one array along an axis (delete, lone_zero, the running maxima, the fft
  family); the batch axis is one more axis the edit leaves alone, so literal axes shift past it, and what
  `axis=None` means (the flattened array, every axis) is declared per primitive.
- the hand-written rules after them (append, ediff1d, polyder, vander's rows, put_along_axis, bessel_jn's
  leading axis, bincount's offset bins), each a few primitives on the whole batch.

Anything else (a batched axis, shape, `obj` or `length`, an argument the rule does not cover given
explicitly) keeps the loop over the batch, which is always right. trim_zeros of a batched array is refused:
its result's length depends on each example's values, as under JAX's vmap.
tests/test_vmap_rules_batch4.py checks each against a Python loop over the batch.
"""
import copy
import inspect

import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _static_int, _tuple, batch_shape, elementwise_rule
from .batching_axes import (AxisShift, _declared, _every_axis, _flattened, _keep, _rank_of, _rebuilt, _reduced,
                            _shifted, _tuple_elementwise_result, _unknown_array, batch_pad_width)
from .registry import PRIMITIVES, defbatch

__all__ = ["SAME_CALL", "AXIS_EDITS", "EDITS"]


def _batched_array(bt, node):
    return isinstance(node, gast.Name) and bt.is_batched(node) and bt.kind(node) == ARRAY


def _others_unbatched(bt, app, *batched_ok):
    return not any(bt.is_batched(n) for k, n in app.bound.items() if k not in batched_ok)


def _covers_only(app, *covered):
    """Whether every bound argument outside `covered` keeps its default (the trap of cov's y2: a stacked
    rule that ignores an argument it does not handle gives a wrong number)."""
    params = inspect.signature(app.primitive.impl).parameters
    for k, node in app.bound.items():
        if k in covered:
            continue
        p = params.get(k)
        if p is None or p.default is p.empty or not _is_const(node, p.default):
            return False
    return True


# ---------------------------------------------------------------- the same call
def _same_call(operand):
    """The batched operand through the same call; every other argument unbatched."""
    def rule(bt, target, app):
        if not _batched_array(bt, app.bound.get(operand)) or not _others_unbatched(bt, app, operand):
            return None
        return [bt.assign(target, _rebuilt(bt, app, {}))]
    rule.__name__ = f"same_call_of_{operand}"
    return rule


SAME_CALL = {
    "cast_adjoint": (_same_call("g"), _keep("g")),
    "dtype_adjoint": (_same_call("g"), _keep("g")),
}


# ---------------------------------------------------------------- axis edits
def _fft_rule(bt, target, app):
    """fft_apply(x, kind, s, axes, norm) / fft_adjoint(g, like, kind, ...) of a literal kind: literal axes
    shift past the batch axis; axes=None is each example's every axis for the n-d transforms (fftn, ...)
    without `s`. The 1-d transforms' axis and fft2's axes come written out; a None there or beside `s`
    (whose meaning NumPy 2 is changing), or axes computed when it runs, loop. fft_adjoint's
    `like` lends a shape and dtype: repeated along the batch when unbatched."""
    b = app.bound
    operand = "x" if "x" in b else "g"
    kind, axes = b.get("kind"), b.get("axes", _const(None))
    if not _batched_array(bt, b.get(operand)) or not _others_unbatched(bt, app, operand, "like"):
        return None
    if not isinstance(kind, gast.Constant) or not isinstance(kind.value, str) or bt.is_batched(axes):
        return None
    out, replace = [], {}
    if "like" in b:
        if not isinstance(b["like"], gast.Name) or bt.kind(b["like"]) != ARRAY:
            return None
        replace["like"] = bt.batched(b["like"], out)
    if not _is_const(axes, None):
        replace["axes"] = _shifted(axes)
        if replace["axes"] is None:
            return None
    elif kind.value.endswith("n") and _is_const(b.get("s", _const(None)), None):
        replace["axes"] = _every_axis(bt, b[operand])
    else:
        return None             # NumPy's meaning of axes=None beside `s` is changing: loop
    out.append(bt.assign(target, _rebuilt(bt, app, replace)))
    return out


AXIS_EDITS = {
    "lone_zero": AxisShift("a", none="all", result=_reduced("a")),
    "maximum_accumulate": AxisShift("array", defaults_only=("dtype", "out")),
    "minimum_accumulate": AxisShift("array", defaults_only=("dtype", "out")),
    "delete": AxisShift("arr", none="flatten", result=lambda batching, bound: (
        ARRAY, 1 if _is_const(bound.get("axis", _const(None)), None) else _rank_of(batching, bound, "arr"))),
}


# ---------------------------------------------------------------- hand-written
def _pad_tangent_rule(bt, target, app):
    """pad_tangent(t, pad_width, mode): the batch axis gets the width (0, 0), as pad_adjoint."""
    b = app.bound
    t = b["t"]
    if not _batched_array(bt, t) or not _others_unbatched(bt, app, "t") or not isinstance(
            b.get("mode", _const("constant")), gast.Constant):
        return None
    rank = _const(bt.rank(t)) if bt.rank(t) is not None else gast.BinOp(
        left=_call("jnp.ndim", copy.deepcopy(t)), op=gast.Sub(), right=_const(1))
    width = _call(bt.helper(batch_pad_width), copy.deepcopy(b["pad_width"]), rank)
    return [bt.assign(target, _rebuilt(bt, app, {"pad_width": width}))]


def _append_rule(bt, target, app):
    """append(arr, values, axis): axis=None flattens both, each example's values after its array (axis 1);
    a literal axis shifts, the unbatched one repeated along the batch."""
    b = app.bound
    arr, values = b.get("arr"), b.get("values")
    axis = b.get("axis", _const(None))
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in (arr, values)) or bt.is_batched(axis):
        return None
    if not _is_const(axis, None):
        shifted = _shifted(axis)
        if shifted is None or bt.rank(arr) is None or bt.rank(arr) != bt.rank(values):
            return None
        out = []
        items = [bt.batched(arr, out), bt.batched(values, out)]
        out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=items, ctx=gast.Load()), axis=shifted)))
        return out
    out = []
    items = [_flattened(bt, out, bt.batched(n, out)) for n in (arr, values)]
    out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=items, ctx=gast.Load()), axis=_const(1))))
    return out


def _flat_unless_axis(batching, bound):
    """append's and insert's result: flat (rank 1) without an axis, else the rank of `arr`."""
    if _is_const(bound.get("axis", _const(None)), None):
        return ARRAY, 1
    return ARRAY, _rank_of(batching, bound, "arr")


def _ediff1d_rule(bt, target, app):
    """ediff1d(ary, to_end, to_begin): the differences of each example flattened (axis 1), unbatched ends
    flattened and repeated along the batch in front and behind."""
    b = app.bound
    ary = b.get("ary")
    if not _batched_array(bt, ary) or not _others_unbatched(bt, app, "ary"):
        return None
    out = []
    flat = _flattened(bt, out, ary)
    diffs = bt.fresh(f"{ary.id}_diffs")
    out.append(bt.assign(diffs, _call("jnp.diff", flat, axis=_const(1))))
    parts = [_name(diffs)]
    for key, front in (("to_begin", True), ("to_end", False)):
        node = b.get(key, _const(None))
        if _is_const(node, None):
            continue
        if not isinstance(node, (gast.Name, gast.Constant)):
            return None
        end = bt.fresh(f"_{key}")       # the end in ary's dtype (as NumPy's ediff1d casts it), one row per example
        out.append(bt.assign(end, _call("jnp.ravel", _call("jnp.asarray", copy.deepcopy(node), dtype=gast.Attribute(
            value=copy.deepcopy(ary), attr="dtype", ctx=gast.Load())))))
        out.append(bt.assign(end, _call("jnp.broadcast_to", _name(end), _tuple(bt.B, _call(
            "jnp.size", _name(end))))))
        parts.insert(0, _name(end)) if front else parts.append(_name(end))
    if len(parts) == 1:
        out.append(bt.assign(target, parts[0]))
    else:
        out.append(bt.assign(target, _call("jnp.concatenate", gast.List(elts=parts, ctx=gast.Load()), axis=_const(1))))
    return out


def _polyder_rule(bt, target, app):
    """polyder(p, m): m times, the coefficients but the last times their powers; as each example's call,
    fewer than m + 1 coefficients give an empty polynomial. A literal m only."""
    b = app.bound
    p = b.get("p")
    m = _static_int(b.get("m", _const(1)))
    if not _batched_array(bt, p) or bt.rank(p) != 1 or m is None or m < 0 or m > 8 or not _others_unbatched(
            bt, app, "p"):
        return None
    out = []
    current = bt.fresh(f"{p.id}_inexact")
    out.append(bt.assign(current, gast.BinOp(left=copy.deepcopy(p), op=gast.Add(), right=_call(
        "inexact_zero", _tuple(copy.deepcopy(p))))))
    for _ in range(m):
        n = _call("jnp.shape", _name(current))
        size = gast.Subscript(value=n, slice=_const(1), ctx=gast.Load())
        powers = _call("jnp.arange", gast.BinOp(left=size, op=gast.Sub(), right=_const(1)), _const(0), _const(-1))
        head = gast.Subscript(value=_name(current), slice=_tuple(gast.Slice(lower=None, upper=None, step=None),
                                                                gast.Slice(lower=None, upper=_const(-1), step=None)),
                              ctx=gast.Load())
        nxt = bt.fresh(f"{p.id}_der")
        out.append(bt.assign(nxt, gast.BinOp(left=head, op=gast.Mult(), right=_call(
            "jnp.astype", powers, gast.Attribute(value=_name(current), attr="dtype", ctx=gast.Load())))))
        current = nxt
    out.append(bt.assign(target, _name(current)))
    return out


def _bessel_jn_rule(bt, target, app):
    """bessel_jn(z, v=v) stacks the orders on a new first axis: of a batched z that axis is axis 1, moved
    behind the batch axis."""
    z = app.bound.get("z")
    if not _batched_array(bt, z) or not _others_unbatched(bt, app, "z"):
        return None
    stacked = bt.fresh("_orders")
    return [bt.assign(stacked, _rebuilt(bt, app, {})),
            bt.assign(target, _call("jnp.moveaxis", _name(stacked), _const(1), _const(0)))]


def _bessel_jn_result(batching, bound):
    r = _rank_of(batching, bound, "z")
    return ARRAY, None if r is None else r + 1


def _bincount_rule(bt, target, app):
    """bincount(x, weights, length=n) (JAX's static length): example b's values move to the bins b*n ... b*n
    + n - 1 of one count over the flattened batch (values at or past n, which the per-example count drops,
    are dropped first), reshaped (B, n). Without `length` the count's size depends on the values: loop, as
    JAX refuses."""
    b = app.bound
    x, weights, length = b.get("x"), b.get("weights", _const(None)), b.get("length", _const(None))
    if _is_const(length, None) or bt.is_batched(length) or not isinstance(x, gast.Name) or bt.kind(x) != ARRAY:
        return None
    if not (isinstance(weights, gast.Name) or _is_const(weights, None)) or not _covers_only(
            app, "x", "weights", "length", "minlength"):
        return None
    if bt.is_batched(b.get("minlength", _const(0))) or not (bt.is_batched(x) or bt.is_batched(weights)):
        return None
    out = []
    xs = bt.batched(x, out)
    flat = bt.fresh(f"{x.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", xs, _tuple(bt.B, _const(-1)))))
    n = bt.fresh("_length")
    out.append(bt.assign(n, copy.deepcopy(length)))
    offsets = gast.BinOp(left=_call("jnp.reshape", _call("jnp.arange", _const(0), bt.B), _tuple(bt.B, _const(1))),
                         op=gast.Mult(), right=_name(n))
    kept = gast.Compare(left=_name(flat), ops=[gast.Lt()], comparators=[_name(n)])
    bins = bt.fresh("_bins")
    out.append(bt.assign(bins, _call("jnp.where", kept, gast.BinOp(left=_name(flat), op=gast.Add(), right=offsets),
                                     gast.BinOp(left=bt.B, op=gast.Mult(), right=_name(n)))))
    keywords = {"length": gast.BinOp(left=gast.BinOp(left=bt.B, op=gast.Mult(), right=_name(n)), op=gast.Add(),
                                     right=_const(1))}
    if not _is_const(weights, None):
        ws = bt.batched(weights, out)
        keywords["weights"] = _call("jnp.reshape", ws, _tuple(bt.B, _const(-1)))   # a misfit raises, as np's
    counts = bt.fresh("_counts")
    out.append(bt.assign(counts, _call("jnp.bincount", _call("jnp.ravel", _name(bins)), **keywords)))
    cut = gast.Subscript(value=_name(counts), slice=gast.Slice(lower=None, upper=gast.BinOp(
        left=bt.B, op=gast.Mult(), right=_name(n)), step=None), ctx=gast.Load())
    out.append(bt.assign(target, _call("jnp.reshape", cut, _tuple(bt.B, _name(n)))))
    return out


def _vander_rule(bt, target, app):
    """vander(x, N, increasing): each row reads one element of x, so the flattened batch's rows reshaped
    (B, n, N) are each example's (N defaults to each example's length n)."""
    b = app.bound
    x = b.get("x")
    if not _batched_array(bt, x) or bt.rank(x) != 1 or not _others_unbatched(bt, app, "x") or not isinstance(
            b.get("increasing", _const(False)), gast.Constant):
        return None
    out = []
    n = bt.fresh("_length")
    out.append(bt.assign(n, gast.Subscript(value=_call("jnp.shape", copy.deepcopy(x)), slice=_const(1),
                                           ctx=gast.Load())))
    columns = bt.fresh("_columns")
    given = b.get("N", _const(None))
    out.append(bt.assign(columns, _name(n) if _is_const(given, None) else copy.deepcopy(given)))
    flat = bt.fresh(f"{x.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(x), _tuple(_const(-1)))))
    rows = bt.fresh("_rows")
    out.append(bt.assign(rows, _rebuilt(bt, app, {"x": _name(flat), "N": _name(columns)})))
    out.append(bt.assign(target, _call("jnp.reshape", _name(rows), _tuple(bt.B, _name(n), _name(columns)))))
    return out


def _put_along_axis_rule(bt, target, app):
    """put_along_axis(arr, indices, values, axis): along axis + 1, the unbatched ones of arr and indices
    repeated along the batch (each example writes only its own slice, in its own order); batched values get
    unit axes after the batch axis up to indices' rank, so they broadcast as each example's do. A literal
    axis only (None, the flattened array, loops)."""
    b = app.bound
    arr, indices, values = b.get("arr"), b.get("indices"), b.get("values")
    axis = _shifted(b.get("axis", _const(None)))
    if axis is None or not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in (arr, indices)):
        return None
    if not (isinstance(values, gast.Constant) or (isinstance(values, gast.Name) and bt.kind(values) == ARRAY)):
        return None
    if any(bt.is_batched(b[k]) or not isinstance(b[k], gast.Constant) for k in ("inplace", "mode") if k in b):
        return None
    out = []
    arr_b, indices_b = bt.batched(arr, out), bt.batched(indices, out)
    if isinstance(values, gast.Name) and bt.is_batched(values):
        lifted = bt.fresh(f"{values.id}_")
        out.append(bt.assign(lifted, _call("jnp.reshape", copy.deepcopy(values), _call(
            bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(values)), gast.BinOp(
                left=_call("jnp.ndim", copy.deepcopy(indices_b)), op=gast.Sub(), right=_const(1))))))
        values = _name(lifted)
    out.append(bt.assign(target, _rebuilt(bt, app, {"arr": arr_b, "indices": indices_b, "values": values,
                                                   "axis": axis})))
    return out


def _cotangent_like_rule(bt, target, app):
    """cotangent_like(g, like) of arrays: g broadcast to like's shape in like's inexact dtype. A batched g of
    fewer per-example axes gets unit axes after the batch axis first (so it broadcasts as each example's
    does), like is repeated along the batch when unbatched; a number g broadcasts as it is."""
    from .batching_adjoints import batch_lifted_shape
    b = app.bound
    g, like = b.get("g"), b.get("like")
    if not isinstance(like, gast.Name) or bt.kind(like) != ARRAY:
        return None
    if not (isinstance(g, gast.Constant) and isinstance(g.value, (int, float))) and not (
            isinstance(g, gast.Name) and bt.kind(g) == ARRAY):
        return None
    out = []
    if isinstance(g, gast.Name) and bt.is_batched(g):
        example_shape = _call("jnp.shape", copy.deepcopy(like))
        if bt.is_batched(like):
            example_shape = gast.Subscript(value=example_shape, slice=gast.Slice(lower=_const(1), upper=None,
                                                                                step=None), ctx=gast.Load())
        lifted = bt.fresh(f"{g.id}_lifted")
        out.append(bt.assign(lifted, _call("jnp.reshape", copy.deepcopy(g), _call(
            bt.helper(batch_lifted_shape), _call("jnp.shape", copy.deepcopy(g)), example_shape))))
        g = _name(lifted)
    out.append(bt.assign(target, _rebuilt(bt, app, {"g": g, "like": bt.batched(like, out)})))
    return out


def _fill_diagonal_rule(bt, target, app):
    """fill_diagonal(a, val) of matrices with a scalar val and wrap=False: (b, i, i) for i below both sides
    set to each example's val, cast to a's dtype as NumPy's fill does (an array val, repeated cyclically, or
    wrap=True, which depends on the shape, loops)."""
    b = app.bound
    a, val = b.get("a"), b.get("val")
    if not isinstance(a, gast.Name) or bt.kind(a) != ARRAY or bt.rank(a) != 2 or not _is_const(
            b.get("wrap", _const(False)), False) or not isinstance(b.get("inplace", _const(True)), gast.Constant):
        return None
    if not (isinstance(val, gast.Constant) and isinstance(val.value, (int, float, bool))) and not (
            isinstance(val, gast.Name) and bt.kind(val) == ARRAY and bt.rank(val) == 0):
        return None
    out = []
    a_b = bt.batched(a, out)
    diagonal = bt.fresh("_diagonal")         # arange(m)[:n]: min(n, m) positions
    out.append(bt.assign(diagonal, gast.Subscript(
        value=_call("jnp.arange", gast.Subscript(value=_call("jnp.shape", copy.deepcopy(a_b)), slice=_const(2),
                                                 ctx=gast.Load())),
        slice=gast.Slice(lower=None, upper=gast.Subscript(value=_call("jnp.shape", copy.deepcopy(a_b)),
                                                          slice=_const(1), ctx=gast.Load()), step=None),
        ctx=gast.Load())))
    value = _call("jnp.astype", copy.deepcopy(val), gast.Attribute(value=copy.deepcopy(a_b), attr="dtype",
                                                                   ctx=gast.Load()))
    if isinstance(val, gast.Name) and bt.is_batched(val):
        value = _call("jnp.expand_dims", value, _const(1))
    index = _tuple(_call("slice", _const(None)), _name(diagonal), _name(diagonal))
    out.append(bt.assign(target, _call("at_set", a_b, index, value)))
    return out


def _trim_zeros_rule(bt, target, app):
    """trim_zeros of a batched array: each example keeps a different length, which no batched array holds."""
    if not bt.is_batched(app.bound.get("filt")):
        return None
    raise bt.context.error(
        "vmap cannot batch jnp.trim_zeros of a batched array: the length of its result depends on each "
        "example's values (JAX refuses it under vmap too)", app.node,
        hint="keep the shape fixed: jnp.where(mask, x, 0.0), or trim outside vmap.")


EDITS = {
    "pad_tangent": (_pad_tangent_rule, _keep("t")),
    "append": (_append_rule, _flat_unless_axis),
    "ediff1d": (_ediff1d_rule, lambda batching, bound: (ARRAY, 1)),
    "polyder": (_polyder_rule, lambda batching, bound: (ARRAY, 1)),
    "bessel_jn": (_bessel_jn_rule, _bessel_jn_result),
    "sici": (elementwise_rule, _tuple_elementwise_result),
    "fresnel": (elementwise_rule, _tuple_elementwise_result),
    "bincount": (_bincount_rule, lambda batching, bound: (ARRAY, 1)),
    "trim_zeros": (_trim_zeros_rule, _unknown_array),
    "vander": (_vander_rule, lambda batching, bound: (ARRAY, 2)),
    "fill_diagonal": (_fill_diagonal_rule, _keep("a")),
    "cotangent_like": (_cotangent_like_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "like")) if (
        batching.kind(bound.get("like")) == ARRAY) else (None, None)),
    "put_along_axis": (_put_along_axis_rule, _keep("arr")),
    "fft_apply": (_fft_rule, _unknown_array),
    "fft_adjoint": (_fft_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "like"))),
}


def _register():
    table = dict(SAME_CALL)
    table.update({name: (shift.rule, shift.result) for name, shift in AXIS_EDITS.items()})
    table.update(EDITS)
    for name, (rule, result) in table.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, result))


_register()
