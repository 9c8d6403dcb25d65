"""Batching rules (vmap) for the adjoint helpers that per-example gradients (`vmap(grad(f))`) reach most:
cumsum_adjoint, trace_adjoint, diagonal_adjoint, repeat_adjoint, take_adjoint, take_along_axis_adjoint,
dynamic_slice_adjoint, pad_adjoint, stack_part(_adjoint), concatenate_part(_adjoint), unbroadcast_to, lax's
reshape/broadcast_in_dim adjoints, index_adjoint_part, cleared_at, sort_order and extremum_mask.

One mechanism, AdjointShift: such a helper takes the adjoint `g` (the operand, carrying the batch), values
that only lend it a shape (`a` of cumsum_adjoint(g, a, axis): zeros shaped like it are filled), and axis
parameters. The same helper computes the whole batch when g and the shape-lenders carry the batch on axis 0
(an unbatched shape-lender is repeated along the batch as a broadcast view) and each literal axis is shifted
past the batch axis. `axis=None` (the flattened array) reads each example flattened, `a` as (B, -1) and axis 1,
and the result is reshaped like the batched `a`. Anything else (a batched axis, repeats or index, an axis
computed when it runs) keeps the loop over the batch, which is always right.
tests/test_vmap_rules_batch3.py checks each against a Python loop over the batch.
"""
import copy

import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _static_int, _tuple
from .batching_axes import _every_axis, _rank_of, _rebuilt, _shifted, batch_pad_width
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["ADJOINT_SHIFTS", "AdjointShift"]


def batch_single_axis(axis):
    """A per-example axis computed when the function runs, as the batched array's: an int shifted past the
    batch axis. The rule that calls this has seen no literal None; a None here (which would mean the flattened
    array, another computation) is refused rather than misread."""
    if axis is None or isinstance(axis, (tuple, list)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"vmap: an axis computed when the function runs was {axis!r} where one axis was "
                             "expected; write the axis as a literal in the call")
    axis = int(axis)
    return axis + 1 if axis >= 0 else axis


primitive("batch_single_axis", batch_single_axis, operands=(), differentiable=False, reason=SHAPES)


class AdjointShift:
    """Declares how an adjoint helper batches: `operand` (the adjoint, batched), `likes` (parameters read for
    their shape only, repeated along the batch when unbatched; the first one is the result's shape for
    axis=None), `axes` (axis parameters: literal ones shifted, computed ones shifted when they run), `none`
    (what axis=None means: "flatten", the flattened array; "all", every axis; None: the loop),
    `result_like` (the parameter whose per-example rank the result has), `minus` (ranks the result has fewer
    than it)."""

    def __init__(self, operand="g", likes=("a",), axes=("axis",), none=None, result_like="a", minus=0):
        self.operand, self.likes, self.axes, self.none = operand, likes, axes, none
        self.result_like, self.minus = result_like, minus

    def rule(self, bt, target, app):
        b = app.bound
        g = b.get(self.operand)
        if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY:
            return None
        for k, node in b.items():
            if k in (self.operand,) + self.likes:
                if k != self.operand and not (isinstance(node, gast.Name) and bt.kind(node) == ARRAY):
                    return None
            elif bt.is_batched(node):
                return None
        out, replace = [], {}
        for k in self.likes:
            replace[k] = bt.batched(b[k], out)
        flattened, shaped = False, None
        for name in self.axes:
            node = b.get(name, _const(None))
            if _is_const(node, None):
                if self.none == "all":
                    replace[name] = _every_axis(bt, b[self.operand])
                    continue
                if self.none != "flatten":
                    return None
                like = self.likes[0]
                shaped = replace[like]          # the batched `a`, whose shape the result takes
                flat = bt.fresh(f"{b[like].id}_flat")
                out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(replace[like]),
                                                 _tuple(bt.B, _const(-1)))))
                replace[like], replace[name], flattened = _name(flat), _const(1), True
                continue
            shifted = _shifted(node)
            if shifted is None:         # an axis computed when it runs (sorted_adjoint's `axis`)
                shifted = _call(bt.helper(batch_single_axis), copy.deepcopy(node))
            replace[name] = shifted
        call = _rebuilt(bt, app, replace)
        if not flattened:
            out.append(bt.assign(target, call))
            return out
        part = bt.fresh(f"{target}_flat")
        out.append(bt.assign(part, call))
        out.append(bt.assign(target, _call("jnp.reshape", _name(part), _call("jnp.shape", copy.deepcopy(shaped)))))
        return out

    def result(self, batching, bound):
        rank = _rank_of(batching, bound, self.result_like)
        return ARRAY, (None if rank is None else rank - self.minus)


def _pad_adjoint_rule(bt, target, app):
    """pad_adjoint(g, pad_width, mode): the batch axis gets the width (0, 0)."""
    b = app.bound
    g = b["g"]
    if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY or any(
            bt.is_batched(n) for k, n in b.items() if k != "g") or not isinstance(b.get("mode", _const("constant")),
                                                                                 gast.Constant):
        return None
    rank = _const(bt.rank(g)) if bt.rank(g) is not None else gast.BinOp(
        left=_call("jnp.ndim", copy.deepcopy(g)), op=gast.Sub(), right=_const(1))
    width = _call(bt.helper(batch_pad_width), copy.deepcopy(b["pad_width"]), rank)
    return [bt.assign(target, _rebuilt(bt, app, {"pad_width": width}))]


def axis_from_the_end(bt, batched, axis):
    """A literal per-example `axis` of the batched array `batched`, written from the end (the same axis of a
    batched and an unbatched array): from its per-example rank where that is known, else computed from
    `jnp.ndim` when it runs."""
    if axis < 0:
        return _const(axis)
    if bt.rank(batched) is not None:
        return _const(axis - bt.rank(batched))
    return gast.BinOp(left=_const(axis + 1), op=gast.Sub(), right=_call("jnp.ndim", copy.deepcopy(batched)))


def batch_axis_from_the_end(axis, ndim):
    """A per-example axis computed when it runs (hstack's joined_axis), written from the end of a batched
    array of `ndim` axes."""
    axis = int(axis)
    return axis if axis < 0 else axis - (int(ndim) - 1)


primitive("batch_axis_from_the_end", batch_axis_from_the_end, operands=(), differentiable=False, reason=SHAPES)


def _concatenate_part_rule(bt, target, app):
    """concatenate_part(g, arrays, k, axis): the items' sizes along `axis` are read from `arrays` as they are,
    so the axis is written from the end (the same axis of a batched and an unbatched item); an unbatched
    axis computed when it runs (hstack's adjoint) is written from the end then."""
    b = app.bound
    g, node = b["g"], b.get("axis", _const(0))
    axis = _static_int(node)
    if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY or (
            axis is None and not isinstance(node, gast.Name)) or any(
            bt.is_batched(n) for k, n in b.items() if k not in ("g", "arrays")):
        return None
    written = axis_from_the_end(bt, g, axis) if axis is not None else _call(
        bt.helper(batch_axis_from_the_end), copy.deepcopy(node), _call("jnp.ndim", copy.deepcopy(g)))
    return [bt.assign(target, _rebuilt(bt, app, {"axis": written}))]


def _dynamic_slice_adjoint_rule(bt, target, app):
    """dynamic_slice_adjoint(g, operand, start_indices): the batch axis starts at 0."""
    from .batching import batch_prepend
    b = app.bound
    g, operand = b["g"], b["operand"]
    if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY or bt.is_batched(
            b["start_indices"]) or not isinstance(operand, gast.Name) or bt.kind(operand) != ARRAY:
        return None
    out = []
    operand = bt.batched(operand, out)
    starts = _call(bt.helper(batch_prepend), _const(0), copy.deepcopy(b["start_indices"]))
    out.append(bt.assign(target, _rebuilt(bt, app, {"operand": operand, "start_indices": starts})))
    return out


def _concatenate_part_adjoint_rule(bt, target, app):
    """concatenate_part_adjoint(p, g, arrays, k, axis): as concatenate_part, the axis written from the end; g
    (zeros are shaped like it) repeated along the batch when unbatched."""
    b = app.bound
    p, g, axis = b["p"], b["g"], _static_int(b.get("axis", _const(0)))
    if not isinstance(p, gast.Name) or not bt.is_batched(p) or bt.kind(p) != ARRAY or axis is None or not isinstance(
            g, gast.Name) or bt.kind(g) != ARRAY or any(bt.is_batched(n) for k, n in b.items()
                                                       if k not in ("p", "g", "arrays")):
        return None
    out = []
    g = bt.batched(g, out)
    out.append(bt.assign(target, _rebuilt(bt, app, {"g": g, "axis": axis_from_the_end(bt, p, axis)})))
    return out


def batch_extra_axes(ndim, shape):
    """The axes of a batched array of `ndim` axes that its per-example value has beyond `len(shape)` (the
    leading ones unbroadcast_to sums first), after the batch axis."""
    return tuple(range(1, 1 + max(int(ndim) - 1 - len(tuple(shape)), 0)))


def batch_lifted_shape(g_shape, shape):
    """The shape of a batched array whose per-example value has fewer axes than `shape` (a zero adjoint,
    a scalar standing for an array of any shape) with unit axes inserted after the batch axis, so each
    example broadcasts against `shape` as it does unbatched."""
    g_shape = tuple(int(n) for n in g_shape)
    missing = max(len(tuple(shape)) - (len(g_shape) - 1), 0)
    return g_shape[:1] + (1,) * missing + g_shape[1:]


primitive("batch_extra_axes", batch_extra_axes, operands=(), differentiable=False, reason=SHAPES)
primitive("batch_lifted_shape", batch_lifted_shape, operands=(), differentiable=False, reason=SHAPES)


def _unbroadcast_to_rule(bt, target, app):
    """unbroadcast_to(g, shape): a per-example value of fewer axes than `shape` lifted with unit axes after
    the batch axis, the per-example leading axes summed first, then down to (B, *shape)."""
    from .batching import batch_prepend
    b = app.bound
    g, shape = b["g"], b["shape"]
    if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY or bt.is_batched(shape):
        return None
    out = []
    lifted = bt.fresh(f"{g.id}_lifted")         # a per-example scalar zero: unit axes up to len(shape)
    out.append(bt.assign(lifted, _call("jnp.reshape", copy.deepcopy(g), _call(
        bt.helper(batch_lifted_shape), _call("jnp.shape", copy.deepcopy(g)), copy.deepcopy(shape)))))
    summed = bt.fresh(f"{g.id}_summed")
    out.append(bt.assign(summed, _call("jnp.sum", _name(lifted), axis=_call(
        bt.helper(batch_extra_axes), _call("jnp.ndim", _name(lifted)), copy.deepcopy(shape)))))
    out.append(bt.assign(target, _rebuilt(bt, app, {"g": _name(summed), "shape": _call(
        bt.helper(batch_prepend), bt.B, copy.deepcopy(shape))})))
    return out


def _lax_shape_adjoint_rule(bt, target, app):
    """lax's reshape/broadcast_in_dim adjoints: the operand's shape gains the batch size in front (and
    broadcast_in_dim's dimensions map the batch axis to axis 0); reshape's `dimensions` must be None."""
    from .batching import batch_prepend
    from .batching_axes import batch_dimensions
    b = app.bound
    g = b["g"]
    if not isinstance(g, gast.Name) or not bt.is_batched(g) or bt.kind(g) != ARRAY or any(
            bt.is_batched(n) for k, n in b.items() if k != "g"):
        return None
    replace = {"operand_shape": _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["operand_shape"]))}
    if "broadcast_dimensions" in b:
        replace["broadcast_dimensions"] = _call(bt.helper(batch_dimensions), copy.deepcopy(b["broadcast_dimensions"]))
    elif not _is_const(b.get("dimensions", _const(None)), None):
        return None
    return [bt.assign(target, _rebuilt(bt, app, replace))]


def _indexed_adjoint_rule(bt, target, app):
    """index_adjoint_part(g, x, idx) (g[idx]) and cleared_at(g, x, idx) (g with x[idx] zeroed) of an array x
    and an unbatched index: the batched index (`batch_index`), x repeated along the batch when unbatched; g
    batched, or a bare zero (which stays one, or is spread over x's batched shape)."""
    from .batching import _batch_index_call
    b = app.bound
    g, x, idx = b["g"], b["x"], b["idx"]
    if bt.is_batched(idx) or not isinstance(x, gast.Name) or bt.kind(x) != ARRAY:
        return None
    if not (isinstance(g, gast.Constant) or (isinstance(g, gast.Name) and bt.is_batched(g) and bt.kind(g) == ARRAY)):
        return None
    out = []
    x = bt.batched(x, out)
    index = bt.fresh("_index")
    out.append(bt.assign(index, _batch_index_call(bt, idx)))
    out.append(bt.assign(target, _call(app.primitive.name, copy.deepcopy(g), x, _name(index))))
    return out


ADJOINT_SHIFTS = {
    "cumsum_adjoint": AdjointShift(none="flatten"),
    "trace_adjoint": AdjointShift(axes=("axis1", "axis2")),
    "repeat_adjoint": AdjointShift(none="flatten"),
    "take_adjoint": AdjointShift(none="flatten"),
    "take_along_axis_adjoint": AdjointShift(likes=("arr", "indices"), none="flatten", result_like="arr"),
    "stack_part": AdjointShift(likes=(), result_like="g", minus=1),
    "sort_order": AdjointShift(operand="a", likes=(), result_like="a"),
    "extremum_mask": AdjointShift(operand="a", likes=("y",), none="all", result_like="a"),
    "diagonal_adjoint": AdjointShift(axes=("axis1", "axis2")),
    "stack_part_adjoint": AdjointShift(operand="p", likes=("g",), result_like="g"),
}
OTHERS = {
    "pad_adjoint": (_pad_adjoint_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "g"))),
    "concatenate_part": (_concatenate_part_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "g"))),
    "dynamic_slice_adjoint": (_dynamic_slice_adjoint_rule,
                              lambda batching, bound: (ARRAY, _rank_of(batching, bound, "operand"))),
    "concatenate_part_adjoint": (_concatenate_part_adjoint_rule,
                                 lambda batching, bound: (ARRAY, _rank_of(batching, bound, "p"))),
    "unbroadcast_to": (_unbroadcast_to_rule, lambda batching, bound: (ARRAY, None)),
    "index_adjoint_part": (_indexed_adjoint_rule, lambda batching, bound: (ARRAY, None)),
    "cleared_at": (_indexed_adjoint_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "x"))),
    "lax_reshape_adjoint": (_lax_shape_adjoint_rule, lambda batching, bound: (ARRAY, None)),
    "lax_broadcast_in_dim_adjoint": (_lax_shape_adjoint_rule, lambda batching, bound: (ARRAY, None)),
}


def _register():
    from .batching_axes import _declared
    table = {name: (shift.rule, shift.result) for name, shift in ADJOINT_SHIFTS.items()}
    table.update(OTHERS)
    for name, (rule, result) in table.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, result))


_register()
