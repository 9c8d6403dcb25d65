"""Batching rules declared by what a primitive does with axes (vmap), beside the hand-written ones of
batching.py. Each family below is one mechanism, and a table says which primitives it serves:

- STACKED_TUPLES: linalg functions with tuple results (eigh, svd, qr, slogdet, lu, ...) read each leading
  index of a stack of matrices alone, so a leading batch axis is one more stack axis: the same call batches
  it, and every item of the tuple carries the batch on axis 0.
- AXIS_SHIFTS: a primitive of one array and an `axis` (roll, rot90, diff, repeat, logsumexp, norm,
  percentile, lax.cumsum, lax.rev, ...), whose per-example call equals the batched call with its axes
  shifted past the batch axis; what `axis=None` means (every axis, or the flattened array) is declared
  per primitive.
- STRUCTURAL: lax's shape primitives (slice, pad, transpose, reshape, broadcast_in_dim, dot_general, ...)
  and NumPy's diag/diagflat/atleast_*d/pad/kron/full/linspace, written out one by one below.

A rule returns the statements that compute the whole batch, calling only primitives, or None: then vmap
loops over the batch for that statement (a batched axis, shape, `num` or an argument form no rule covers),
which is always right. Each rule also declares `result(batching, bound)`, the (kind, rank) of its
per-example result, so that the statements after it know their operands' ranks (analyses/batching.py).
tests/test_vmap_rules_batch2.py checks each against a Python loop over the batch.
"""
import copy
import inspect

import gast
import numpy as np

from .. import numpy as jnp
from ..analyses.batching import ARRAY
from .batching import (_call, _const, _is_const, _name, _static_int, _tuple, batch_axis, batch_permutation,
                       batch_prepend, batch_shape, elementwise_rule)
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, deflowering, primitive

__all__ = ["STACKED_TUPLES", "AXIS_SHIFTS", "STRUCTURAL", "batch_pad_width", "batch_padding_config",
           "batch_dimensions", "batch_dot_general", "batch_kron_shapes"]


# ---------------------------------------------------------------- runtime helpers (shapes and axes only)
def batch_pad_width(pad_width, ndim):
    """NumPy's pad_width (an int, a pair, or one pair per axis) for a per-example array of `ndim` axes, as
    one pair per axis of the batched array: the batch axis is not padded."""
    width = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (int(ndim), 2))
    return ((0, 0),) + tuple((int(a), int(b)) for a, b in width)


def batch_padding_config(config):
    """lax.pad's padding_config ((low, high, interior) per axis) with an unpadded batch axis in front."""
    return ((0, 0, 0),) + tuple(tuple(int(v) for v in c) for c in config)


def batch_dimensions(dimensions):
    """lax.broadcast_in_dim's broadcast_dimensions for a batched operand: the batch axis maps to axis 0."""
    return (0,) + tuple(int(d) + 1 for d in dimensions)


def batch_dot_general(dimension_numbers, lhs_batched, rhs_batched, lhs_ndim):
    """lax.dot_general's dimension numbers for batched operands, and where the batch axis lands in the
    result (the caller moves it to axis 0). Both batched: the batch is one more batch dimension (first);
    one batched: it is a free dimension of that operand (its first), placed after the batch dimensions
    (and after lhs's free ones for rhs). lhs_ndim counts the batch axis when lhs is batched."""
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = (tuple(int(d) for d in ds) for ds in (lc, rc, lb, rb))

    def up(ds):
        return tuple(d + 1 for d in ds)
    if lhs_batched and rhs_batched:
        return ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb))), 0
    if lhs_batched:
        return ((up(lc), rc), (up(lb), rb)), len(lb)
    return ((lc, up(rc)), (lb, up(rb))), len(lb) + int(lhs_ndim) - len(lc) - len(lb)


def batch_kron_shapes(shape_a, a_batched, shape_b, b_batched):
    """The shapes that write kron(a, b) of batched operands as one product: a as (B, a1, 1, a2, 1, ...),
    b as (B, 1, b1, 1, b2, ...) (an unbatched operand has 1 for B), and the result's (B, a1*b1, a2*b2, ...).
    As NumPy's kron, the operand of lower rank gets leading unit axes first."""
    sa, sb = tuple(int(n) for n in shape_a), tuple(int(n) for n in shape_b)
    ba, pa = (sa[0], sa[1:]) if a_batched else (1, sa)
    bb, pb = (sb[0], sb[1:]) if b_batched else (1, sb)
    r = max(len(pa), len(pb))
    pa, pb = (1,) * (r - len(pa)) + pa, (1,) * (r - len(pb)) + pb
    a_shape, b_shape = (ba,), (bb,)
    for m, n in zip(pa, pb):
        a_shape += (m, 1)
        b_shape += (1, n)
    return a_shape, b_shape, (max(ba, bb),) + tuple(m * n for m, n in zip(pa, pb))


def batch_weights_shape(weights_shape, shape):
    """The shape average's unbatched weights take beside a batched array of `shape`: the batched shape when
    they are shaped like one example, else their own (1-D weights along an axis)."""
    if len(weights_shape) == len(shape) - 1:
        return tuple(shape)
    if len(weights_shape) == 1:
        return tuple(weights_shape)
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"average: weights of shape {tuple(weights_shape)} fit neither one example of shape "
                         f"{tuple(shape)[1:]} nor one axis of it")


for _fn in (batch_weights_shape, batch_pad_width, batch_padding_config, batch_dimensions, batch_dot_general, batch_kron_shapes):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)
deflowering(PRIMITIVES["batch_pad_width"], numba="astjax.runtime.numba_cpu:batch_pad_width")  # numba_batch_indices


# ---------------------------------------------------------------- shared pieces
def _callee(bt, app):
    """The expression that calls the primitive's astjax implementation: the one the user wrote when it is
    that, else `jnp.<name>`, else the implementation bound under its own name (lax.cumsum, logsumexp)."""
    prim = app.primitive
    if isinstance(app.node, gast.Call) and bt.static(app.node.func) is prim.impl:
        return copy.deepcopy(app.node.func)
    if getattr(jnp, prim.name, None) is prim.impl:
        return _call(f"jnp.{prim.name}").func
    return bt.helper(prim.impl)


def _rebuilt(bt, app, replace):
    """The primitive's call with the bound arguments (defaults included), `replace` overriding some;
    positional while the signature allows, keywords after the first one not written positionally."""
    params = inspect.signature(app.primitive.impl).parameters.values()
    args, keywords, positional = [], [], True
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            positional = False
            continue
        if p.name not in app.bound and p.name not in replace:
            positional = False
            continue
        node = copy.deepcopy(replace.get(p.name, app.bound.get(p.name)))
        if p.kind is p.POSITIONAL_ONLY or (positional and p.kind is p.POSITIONAL_OR_KEYWORD
                                           and p.default is p.empty):
            args.append(node)
        else:
            positional = False
            keywords.append(gast.keyword(arg=p.name, value=node))
    written = {k.arg for k in app.node.keywords} if isinstance(app.node, gast.Call) else set()
    extra = [k for k in app.bound if k not in {p.name for p in params} and k in written]
    for k in extra:         # **kwargs the user wrote (pad's constant_values)
        keywords.append(gast.keyword(arg=k, value=copy.deepcopy(replace.get(k, app.bound[k]))))
    return gast.Call(func=_callee(bt, app), args=args, keywords=keywords)


def _only_batched(bt, app, name):
    """Whether `name` is the only batched argument, and an array."""
    return bt.is_batched(app.bound.get(name)) and bt.kind(app.bound[name]) == ARRAY and not any(
        bt.is_batched(n) for k, n in app.bound.items() if k != name)


def _shifted(node):
    """A literal per-example axis (an int or a tuple of ints) as the batched array's, else None."""
    k = _static_int(node)
    if k is not None:
        return _const(k + 1 if k >= 0 else k)
    if isinstance(node, (gast.Tuple, gast.List)) and all(_static_int(e) is not None for e in node.elts):
        return _tuple(*[_const(_static_int(e) + 1 if _static_int(e) >= 0 else _static_int(e)) for e in node.elts])
    return None


def _every_axis(bt, array):
    """axis=None as "every per-example axis": 1..rank, or computed when it runs."""
    if bt.rank(array) is not None:
        return _tuple(*[_const(i) for i in range(1, bt.rank(array) + 1)])
    return _call(bt.helper(batch_axis), _const(None), _call("jnp.ndim", copy.deepcopy(array)))


def _flattened(bt, out, array):
    """Each example flattened: `x.reshape(B, -1)`, a fresh name appended to `out`."""
    flat = bt.fresh(f"{array.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(array), _tuple(bt.B, _const(-1)))))
    return _name(flat)


def _rank_of(batching, bound, name):
    node = bound.get(name)
    return batching.rank(node) if node is not None else None


def _keep(operand):
    return lambda batching, bound: (ARRAY, _rank_of(batching, bound, operand))


def _unknown_array(batching, bound):
    return ARRAY, None


def _leaf(rank):
    return rank if rank is not None else ARRAY


# ---------------------------------------------------------------- linalg with tuple results
def _stacked_tuple_rule(bt, target, app):
    """The same call: NumPy's and astjax's linalg functions map over leading stack axes."""
    first = app.primitive.operands[0]
    if not _only_batched(bt, app, first):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _minus(r, k):
    return None if r is None else r - k


def _eigh_result(batching, bound):
    r = _rank_of(batching, bound, "a")
    if _is_const(bound.get("eigvals_only", _const(False)), True):
        return ARRAY, _minus(r, 1)
    return (_leaf(_minus(r, 1)), _leaf(r)), None


def _svd_result(batching, bound):
    r = _rank_of(batching, bound, "a")
    if _is_const(bound.get("compute_uv", _const(True)), False):
        return ARRAY, _minus(r, 1)
    return (_leaf(r), _leaf(_minus(r, 1)), _leaf(r)), None


def _qr_result(batching, bound):
    r = _rank_of(batching, bound, "a")
    if _is_const(bound.get("mode", _const("reduced")), "r"):
        return ARRAY, r
    if _is_const(bound.get("mode", _const("reduced")), "raw"):
        return (_leaf(r), _leaf(_minus(r, 1))), None        # (h, tau)
    if not isinstance(bound.get("mode", _const("reduced")), gast.Constant):
        return None, None
    return (_leaf(r), _leaf(r)), None


def _lu_result(batching, bound):
    r = _rank_of(batching, bound, "a")
    if _is_const(bound.get("permute_l", _const(False)), True):
        return (_leaf(r), _leaf(r)), None
    p = _minus(r, 1) if _is_const(bound.get("p_indices", _const(False)), True) else r
    return (_leaf(p), _leaf(r), _leaf(r)), None


STACKED_TUPLES = {
    "eigh": _eigh_result, "numpy_eigh": _eigh_result, "scipy_eigh": _eigh_result, "svd": _svd_result,
    "qr": _qr_result, "lu": _lu_result,
    "slogdet": lambda batching, bound: ((_leaf(_minus(_rank_of(batching, bound, "a"), 2)),) * 2, None),
    "lu_factor": lambda batching, bound: ((_leaf(_rank_of(batching, bound, "a")),
                                           _leaf(_minus(_rank_of(batching, bound, "a"), 1))), None),
}


def _scipy_eigh_rule(bt, target, app):
    """scipy's eigh of one matrix: a generalized problem (b), or a subset of the spectrum, loops."""
    b = app.bound
    if not _is_const(b.get("b", _const(None)), None) or not all(
            _is_const(b.get(k, _const(None)), None) for k in ("subset_by_index", "subset_by_value")):
        return None
    return _stacked_tuple_rule(bt, target, app)


# ---------------------------------------------------------------- one array and an axis
class AxisShift:
    """Declares how a primitive of one array (`operand`) batches by shifting its axis parameters.

    axes: the parameters holding axes (each an int, a tuple of ints, or None).
    none: what `axis=None` means: "all" (every axis), "flatten" (the flattened array: each example is
        flattened and the axis is 1), "flatten_back" (as "flatten", the result reshaped back: roll),
        "vector" (only allowed for one axis: axis 1), or None (the loop).
    result: (batching, bound) -> (kind, rank) of the per-example result.
    unbatched_only: parameters that must be literal constants (not arrays of the user's): prepend, append.
    defaults_only: parameters the rule does not batch unless they keep their default (out, weights, ...).
    """

    def __init__(self, operand, axes=("axis",), none=None, result=None, constants=(), defaults_only=(),
                 after=None, prepare=None):
        self.operand, self.axes, self.none = operand, axes, none
        self.result = result or _keep(operand)
        self.constants, self.defaults_only = constants, defaults_only
        self.after, self.prepare = after, prepare

    def rule(self, bt, target, app):
        b = app.bound
        array = b.get(self.operand)
        extra = self.prepare(bt, app) if self.prepare is not None else {}
        if extra is None or not isinstance(array, gast.Name):
            return None
        out = list(extra.pop("_out", []))
        others = [k for k in b if k != self.operand and k not in extra]
        if not bt.is_batched(array) or bt.kind(array) != ARRAY or any(bt.is_batched(b[k]) for k in others):
            return None
        if any(k in b and not isinstance(b[k], gast.Constant) for k in self.constants):
            return None
        for k in self.defaults_only:
            default = inspect.signature(app.primitive.impl).parameters[k].default
            if k in b and not _is_const(b[k], default):
                return None
        replace = dict(extra)
        for name in self.axes:
            node = b.get(name, _const(None))
            if _is_const(node, None):
                if self.none == "all":
                    replace[name] = _every_axis(bt, array)
                elif self.none in ("flatten", "flatten_back"):
                    array = _flattened(bt, out, b[self.operand])
                    replace[self.operand] = array
                    replace[name] = _const(1)
                elif self.none == "vector" and bt.rank(array) == 1:
                    replace[name] = _const(1)
                else:
                    return None
                continue
            shifted = _shifted(node)
            if shifted is None:
                if self.none != "all":
                    return None         # an axis computed when it runs, which might be None: loop
                shifted = _call(bt.helper(batch_axis), copy.deepcopy(node), _call("jnp.ndim", copy.deepcopy(array)))
            replace[name] = shifted
        call = _rebuilt(bt, app, replace)
        if self.none == "flatten_back" and any(_is_const(b.get(n, _const(None)), None) for n in self.axes):
            rolled = bt.fresh(f"{target}_flat")
            out.append(bt.assign(rolled, call))
            call = _call("jnp.reshape", _name(rolled), _call("jnp.shape", copy.deepcopy(b[self.operand])))
        out.append(bt.assign(target, call))
        if self.after is not None:
            out.extend(self.after(bt, target, app))
        return out


def _reduced(operand, axis="axis", extra_rank=0):
    """The result rank of a reduction over `axis` (None: every axis), keepdims kept into account."""
    def result(batching, bound):
        r = _rank_of(batching, bound, operand)
        node = bound.get(axis, _const(None))
        if r is None:
            return ARRAY, None
        if _is_const(bound.get("keepdims", _const(False)), True):
            rank = r
        elif _is_const(node, None):
            rank = 0
        elif _static_int(node) is not None:
            rank = r - 1
        elif isinstance(node, gast.Tuple):
            rank = r - len(node.elts)
        else:
            return ARRAY, None
        return ARRAY, rank + extra_rank
    return result


def _logsumexp_result(batching, bound):
    kind, rank = _reduced("a")(batching, bound)
    b = bound.get("b", _const(None))
    if not isinstance(b, gast.Constant) and (batching.rank(b) is None or rank is None or batching.rank(b) > (
            _rank_of(batching, bound, "a") or 0)):
        rank = None         # a b of higher rank than a broadcasts a up: the result has b's axes
    if _is_const(bound.get("return_sign", _const(False)), True):
        return (_leaf(rank), _leaf(rank)), None
    return kind, rank


def _trapezoid_points(bt, app):
    """trapezoid's sample points (`points`, or NumPy's name `x`), unbatched: absent or 1-D they serve every
    example alike; n-D points are differenced along the axis of their own shape, which the shifted axis
    would misread (with shapes that happen to broadcast, a wrong integral): the loop."""
    for key in ("points", "x"):
        points = app.bound.get(key)
        if points is None or _is_const(points, None):
            continue
        if not (isinstance(points, gast.Name) and bt.rank(points) == 1):
            return None
    return {}


def _logsumexp_weights(bt, app):
    """logsumexp's `b` broadcasts against `a`: unbatched it broadcasts against the batch as it is; batched, it
    gets unit axes after the batch axis up to a's rank (known ranks only)."""
    b = app.bound.get("b", _const(None))
    ra, rb = bt.rank(app.bound["a"]), bt.rank(b)
    if not bt.is_batched(b):
        # an unbatched b of higher per-example rank than a would broadcast against the batch axis
        return {} if isinstance(b, gast.Constant) or (ra is not None and rb is not None and rb <= ra) else None
    if not isinstance(b, gast.Name) or not bt.is_batched(app.bound["a"]) or ra is None or rb is None or rb > ra:
        return None
    if rb == ra:
        return {"b": b}
    out = []
    fresh = bt.fresh(f"{b.id}_")
    out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(b), _tuple(
        *[_const(i) for i in range(1, ra - rb + 1)]))))
    return {"b": _name(fresh), "_out": out}


def _norm_rule(bt, target, app):
    """norm with an axis shifts it; axis=None is the flattened 2-norm (ord None), a vector norm of a
    vector, a matrix norm of a matrix (known ranks), else the loop."""
    b = app.bound
    x = b.get("x")
    if not _is_const(b.get("axis", _const(None)), None):
        return AxisShift("x", result=_reduced("x")).rule(bt, target, app)
    if _is_const(b.get("keepdims", _const(False)), True) and bt.rank(x) not in (1, 2):
        return None
    if _is_const(b.get("ord", _const(None)), None) and not _is_const(b.get("keepdims", _const(False)), True):
        return AxisShift("x", none="flatten").rule(bt, target, app)
    rank = bt.rank(x)
    if rank not in (1, 2) or not _only_batched(bt, app, "x"):
        return None
    axis = _const(1) if rank == 1 else _tuple(_const(1), _const(2))
    return [bt.assign(target, _rebuilt(bt, app, {"axis": axis}))]


def _quantile_prepare(bt, app):
    """q unbatched; an array q puts its axes first, ahead of the batch axis: moved back after the call."""
    b = app.bound
    if bt.is_batched(b.get("q")) or not _is_const(b.get("out", _const(None)), None):
        return None
    return {}


def _quantile_after(bt, target, app):
    q = app.bound["q"]
    if isinstance(q, gast.Constant) and isinstance(q.value, (int, float)):
        return []
    return [bt.assign(target, _call("jnp.moveaxis", _name(target), _call("jnp.ndim", copy.deepcopy(q)), _const(0)))]


def _quantile_result(batching, bound):
    q = bound.get("q")
    if isinstance(q, gast.Constant) and isinstance(q.value, (int, float)):
        return _reduced("a")(batching, bound)
    return ARRAY, None


def _average_prepare(bt, app):
    """average's weights: unbatched, shaped like one example (broadcast along the batch, told apart when it
    runs by batch_weights_shape) or 1-D along an int axis (as they are); batched, shaped like `a` (known
    ranks). Other forms loop."""
    b = app.bound
    w, a = b.get("weights", _const(None)), b["a"]
    if _is_const(w, None):
        return {}
    if not isinstance(w, gast.Name) or not bt.is_batched(a):
        return None
    if bt.is_batched(w):
        return {"weights": w} if bt.rank(w) is not None and bt.rank(w) == bt.rank(a) else None
    out = []
    fresh = bt.fresh(f"{w.id}_")
    out.append(bt.assign(fresh, _call("jnp.broadcast_to", copy.deepcopy(w), _call(
        bt.helper(batch_weights_shape), _call("jnp.shape", copy.deepcopy(w)), _call("jnp.shape", copy.deepcopy(a))))))
    return {"weights": _name(fresh), "_out": out}


def _average_result(batching, bound):
    kind, rank = _reduced("a")(batching, bound)
    if _is_const(bound.get("returned", _const(False)), True):
        return (_leaf(rank), _leaf(rank)), None
    return kind, rank


def _cross_rule(bt, target, app):
    """cross with literal int axes and known ranks: the batched operand of lower rank gets unit axes after
    the batch axis (its positive axes move with them); an unbatched one broadcasts as it is."""
    b = app.bound
    x, y = b["a"], b["b"]
    rx, ry = bt.rank(x), bt.rank(y)
    names = ("axisa", "axisb", "axisc", "axis")
    if rx is None or ry is None or any(not isinstance(n, gast.Name) for n in (x, y)):
        return None
    if any(bt.is_batched(b[k]) for k in names if k in b) or any(
            not _is_const(b.get(k, _const(None)), None) and _static_int(b[k]) is None for k in names):
        return None
    top = max(rx, ry)
    out, replace = [], {}
    for operand, rank, axis_name in ((x, rx, "axisa"), (y, ry, "axisb")):
        if bt.is_batched(operand) and rank < top:
            fresh = bt.fresh(f"{operand.id}_")
            out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(operand), _tuple(
                *[_const(i) for i in range(1, top - rank + 1)]))))
            replace["a" if axis_name == "axisa" else "b"] = _name(fresh)
            lift = 1 + top - rank
        else:
            lift = 1 if bt.is_batched(operand) else 0
        axis = _static_int(b.get("axis")) if not _is_const(b.get("axis", _const(None)), None) else None
        k = axis if axis is not None else _static_int(b.get(axis_name, _const(-1)))
        replace[axis_name] = _const(k + lift if k >= 0 else k)
    c = _static_int(b.get("axis")) if not _is_const(b.get("axis", _const(None)), None) else _static_int(
        b.get("axisc", _const(-1)))
    replace["axisc"] = _const(c + 1 if c >= 0 else c)
    replace["axis"] = _const(None)
    out.append(bt.assign(target, _rebuilt(bt, app, replace)))
    return out


def _flip_rule(axis):
    """fliplr / flipud: flip along per-example axis 1 / 0, shifted past the batch axis."""
    def rule(bt, target, app):
        m = app.bound["m"]
        if not _only_batched(bt, app, "m"):
            return None
        return [bt.assign(target, _call("jnp.flip", copy.deepcopy(m), axis=_const(axis + 1)))]
    return rule


def _lax_sort_prepare(bt, app):
    if _static_int(app.bound.get("num_keys", _const(1))) != 1:
        return None         # several keys: operand is a tuple of arrays
    return {}


def _diagonal_result(batching, bound):
    return ARRAY, _minus(_rank_of(batching, bound, "a"), 1)


def _squeeze_result(batching, bound):
    r, dims = _rank_of(batching, bound, "array"), bound.get("dimensions")
    if r is None or not isinstance(dims, (gast.Tuple, gast.List)):
        return ARRAY, None
    return ARRAY, r - len(dims.elts)


def _expand_result(batching, bound):
    r, dims = _rank_of(batching, bound, "array"), bound.get("dimensions")
    if r is None or not isinstance(dims, (gast.Tuple, gast.List)):
        return ARRAY, None
    return ARRAY, r + len(dims.elts)


def _repeat_result(batching, bound):
    if _is_const(bound.get("axis", _const(None)), None):
        return ARRAY, 1
    return ARRAY, _rank_of(batching, bound, "a")


def _flattened_or_kept(operand):
    """The result rank of sort/partition: the flattened array's for axis=None, else the operand's."""
    def result(batching, bound):
        if _is_const(bound.get("axis", _const(None)), None):
            return ARRAY, 1
        return ARRAY, _rank_of(batching, bound, operand)
    return result


def _minus_result(operand, k):
    return lambda batching, bound: (ARRAY, _minus(_rank_of(batching, bound, operand), k))


def _index_in_dim_result(batching, bound):
    r = _rank_of(batching, bound, "operand")
    return ARRAY, r if _is_const(bound.get("keepdims", _const(True)), True) else _minus(r, 1)


AXIS_SHIFTS = {
    "roll": AxisShift("a", none="flatten_back"),
    "rot90": AxisShift("m", axes=("axes",)),
    "diff": AxisShift("a", constants=("prepend", "append", "n")),
    "repeat": AxisShift("a", none="flatten", result=_repeat_result, defaults_only=("total_repeat_length",)),
    "cumulative_sum": AxisShift("x", none="vector"),
    "cumulative_prod": AxisShift("x", none="vector"),
    "logsumexp": AxisShift("a", none="all", result=_logsumexp_result, prepare=_logsumexp_weights),
    "log_softmax": AxisShift("x", none="all"),
    "softmax": AxisShift("x", none="all"),
    "percentile": AxisShift("a", none="all", result=_quantile_result, prepare=_quantile_prepare,
                            after=_quantile_after),
    "quantile": AxisShift("a", none="all", result=_quantile_result, prepare=_quantile_prepare,
                          after=_quantile_after),
    "nanpercentile": AxisShift("a", none="all", result=_quantile_result, prepare=_quantile_prepare,
                               after=_quantile_after),
    "nanquantile": AxisShift("a", none="all", result=_quantile_result, prepare=_quantile_prepare,
                             after=_quantile_after),
    "average": AxisShift("a", none="all", result=_average_result, prepare=_average_prepare),
    "lax_sort": AxisShift("operand", axes=("dimension",), prepare=_lax_sort_prepare),
    "lax_cumsum": AxisShift("operand"), "lax_cumprod": AxisShift("operand"),
    "lax_cummax": AxisShift("operand"), "lax_cummin": AxisShift("operand"),
    "lax_rev": AxisShift("operand", axes=("dimensions",)),
    "diagonal": AxisShift("a", axes=("axis1", "axis2"), result=_diagonal_result),
    "lax_squeeze": AxisShift("array", axes=("dimensions",), result=_squeeze_result),
    "lax_expand_dims": AxisShift("array", axes=("dimensions",), result=_expand_result),
    "lax_dynamic_slice_in_dim": AxisShift("operand"),
    "lax_slice_in_dim": AxisShift("operand"),
    "lax_index_in_dim": AxisShift("operand", result=_index_in_dim_result),
    "lax_dynamic_index_in_dim": AxisShift("operand", result=_index_in_dim_result),
    "sort": AxisShift("a", none="flatten", result=_flattened_or_kept("a")),
    "argsort": AxisShift("a", none="flatten", result=_flattened_or_kept("a")),
    "partition": AxisShift("a", none="flatten", result=_flattened_or_kept("a")),
    "trace": AxisShift("a", axes=("axis1", "axis2"), result=_minus_result("a", 2), defaults_only=("out",)),
    "take": AxisShift("a", none="flatten", result=_unknown_array, defaults_only=("out",)),
    "rollaxis": AxisShift("a", axes=("axis", "start")),
    "vector_norm": AxisShift("x", none="all", result=_reduced("x")),
    "fftshift": AxisShift("x", axes=("axes",), none="all"),
    "ifftshift": AxisShift("x", axes=("axes",), none="all"),
    "unwrap": AxisShift("p"),
    "trapezoid": AxisShift("samples", result=_minus_result("samples", 1), prepare=_trapezoid_points),
}


# ---------------------------------------------------------------- structural, one by one
def _lax_slice_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "operand"):
        return None
    strides = b.get("strides", _const(None))
    replace = {"start_indices": _call(bt.helper(batch_prepend), _const(0), copy.deepcopy(b["start_indices"])),
               "limit_indices": _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["limit_indices"]))}
    if not _is_const(strides, None):
        replace["strides"] = _call(bt.helper(batch_prepend), _const(1), copy.deepcopy(strides))
    return [bt.assign(target, _rebuilt(bt, app, replace))]


def _lax_transpose_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "operand"):
        return None
    perm = _call(bt.helper(batch_permutation), copy.deepcopy(b["permutation"]),
                 _call("jnp.ndim", copy.deepcopy(b["operand"])))
    return [bt.assign(target, _rebuilt(bt, app, {"permutation": perm}))]


def _lax_reshape_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "operand") or not _is_const(b.get("dimensions", _const(None)), None):
        return None
    sizes = _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["new_sizes"]))
    return [bt.assign(target, _rebuilt(bt, app, {"new_sizes": sizes}))]


def _lax_broadcast_in_dim_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "operand"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {
        "shape": _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(b["shape"])),
        "broadcast_dimensions": _call(bt.helper(batch_dimensions), copy.deepcopy(b["broadcast_dimensions"]))}))]


def _lax_concatenate_rule(bt, target, app):
    """Unbatched operands are broadcast along the batch; the dimension shifts."""
    b = app.bound
    seq, dim = b["operands"], b.get("dimension")
    shifted = _shifted(dim) if dim is not None else None
    if not isinstance(seq, (gast.List, gast.Tuple)) or shifted is None or bt.is_batched(dim):
        return None
    out, items = [], []
    for element in seq.elts:
        if not isinstance(element, (gast.Name, gast.Constant)) or (
                bt.is_batched(element) and bt.kind(element) != ARRAY):
            return None
        items.append(bt.batched(element, out))
    out.append(bt.assign(target, _rebuilt(bt, app, {"operands": gast.List(elts=items, ctx=gast.Load()),
                                                    "dimension": shifted})))
    return out


def _lax_pad_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "operand"):
        return None
    config = _call(bt.helper(batch_padding_config), copy.deepcopy(b["padding_config"]))
    return [bt.assign(target, _rebuilt(bt, app, {"padding_config": config}))]


def _pad_rule(bt, target, app):
    """jnp.pad with a mode named by a string and scalar (or absent) constant values, a literal or one unbatched
    number: the batch axis gets the pair (0, 0), the per-example pad_width is written out per axis first (an
    int or one pair would otherwise pad the batch axis too)."""
    b = app.bound
    x = b["array"]
    if not _only_batched(bt, app, "array") or not isinstance(b.get("mode", _const("constant")), gast.Constant):
        return None
    if not isinstance(b.get("mode", _const("constant")).value, str):
        return None
    for k, node in b.items():
        if k in ("array", "pad_width", "mode"):
            continue
        if k == "reflect_type" and isinstance(node, gast.Constant):
            continue
        if k == "constant_values" and isinstance(node, gast.Name) and bt.kind(node) == ARRAY and bt.rank(node) == 0:
            continue            # one unbatched number (a derivative reaching it: pad_constant_adjoint)
        if not (isinstance(node, gast.Constant) and (node.value is None or isinstance(node.value, (int, float)))):
            return None         # per-axis constant_values or stat_length: loop
    rank = _const(bt.rank(x)) if bt.rank(x) is not None else gast.BinOp(
        left=_call("jnp.ndim", copy.deepcopy(x)), op=gast.Sub(), right=_const(1))
    width = _call(bt.helper(batch_pad_width), copy.deepcopy(b["pad_width"]), rank)
    return [bt.assign(target, _rebuilt(bt, app, {"pad_width": width}))]


def _lax_dynamic_update_slice_rule(bt, target, app):
    """Both operand and update carry the batch (an unbatched one is broadcast); the start gains a 0."""
    b = app.bound
    operand, update, starts = b["operand"], b["update"], b["start_indices"]
    if bt.is_batched(starts) or any(not isinstance(n, (gast.Name, gast.Constant)) for n in (operand, update)):
        return None
    if any(isinstance(n, gast.Name) and bt.is_batched(n) and bt.kind(n) != ARRAY for n in (operand, update)):
        return None
    out = []
    operand, update = bt.batched(operand, out), bt.batched(update, out)
    new_starts = _call(bt.helper(batch_prepend), _const(0), copy.deepcopy(starts))
    out.append(bt.assign(target, _rebuilt(bt, app, {"operand": operand, "update": update,
                                                    "start_indices": new_starts})))
    return out


def _lax_dot_general_rule(bt, target, app):
    """One dot_general: both batched, the batch is one more batch dimension; one batched, a free dimension
    of that operand, moved to axis 0 afterwards."""
    b = app.bound
    lhs, rhs, dn = b["lhs"], b["rhs"], b["dimension_numbers"]
    if bt.is_batched(dn) or any(bt.is_batched(b[k]) for k in b if k not in ("lhs", "rhs")):
        return None
    if any(not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in (lhs, rhs)):
        return None
    lb, rb = bt.is_batched(lhs), bt.is_batched(rhs)
    out = []
    numbers = bt.fresh("_dimension_numbers")
    out.append(bt.assign(numbers, _call(bt.helper(batch_dot_general), copy.deepcopy(dn), _const(lb), _const(rb),
                                        _call("jnp.ndim", copy.deepcopy(lhs)))))
    first = gast.Subscript(value=_name(numbers), slice=_const(0), ctx=gast.Load())
    axis = gast.Subscript(value=_name(numbers), slice=_const(1), ctx=gast.Load())
    if lb and rb:
        out.append(bt.assign(target, _rebuilt(bt, app, {"dimension_numbers": first})))
        return out
    product = bt.fresh("_product")
    out.append(bt.assign(product, _rebuilt(bt, app, {"dimension_numbers": first})))
    out.append(bt.assign(target, _call("jnp.moveaxis", _name(product), axis, _const(0))))
    return out


def _dot_general_result(batching, bound):
    """rank(lhs) + rank(rhs) - 2 * contracted - batch dimensions, for literal dimension numbers."""
    ranks = [_rank_of(batching, bound, k) for k in ("lhs", "rhs")]
    dn = bound.get("dimension_numbers")
    try:
        (lc, _), (lb, _) = [[e.elts for e in pair.elts] for pair in dn.elts]
    except (AttributeError, ValueError, TypeError):
        return ARRAY, None
    if None in ranks:
        return ARRAY, None
    return ARRAY, ranks[0] + ranks[1] - 2 * len(lc) - len(lb)


def _kron_rule(bt, target, app):
    """kron(a, b) as one product of reshaped operands, (B, a1, 1, a2, 1) * (B, 1, b1, 1, b2), reshaped."""
    b = app.bound
    x, y = b["a"], b["b"]
    if any(not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in (x, y)):
        return None
    out = []
    shapes = bt.fresh("_kron_shapes")
    out.append(bt.assign(shapes, _call(bt.helper(batch_kron_shapes), _call("jnp.shape", copy.deepcopy(x)),
                                       _const(bt.is_batched(x)), _call("jnp.shape", copy.deepcopy(y)),
                                       _const(bt.is_batched(y)))))
    parts = []
    for i, node in enumerate((x, y)):
        fresh = bt.fresh(f"{node.id}_")
        out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(node), gast.Subscript(
            value=_name(shapes), slice=_const(i), ctx=gast.Load()))))
        parts.append(_name(fresh))
    product = bt.fresh("_product")
    out.append(bt.assign(product, gast.BinOp(left=parts[0], op=gast.Mult(), right=parts[1])))
    out.append(bt.assign(target, _call("jnp.reshape", _name(product), gast.Subscript(
        value=_name(shapes), slice=_const(2), ctx=gast.Load()))))
    return out


def _kron_result(batching, bound):
    ra, rb = _rank_of(batching, bound, "a"), _rank_of(batching, bound, "b")
    return ARRAY, (max(ra, rb) if ra is not None and rb is not None else None)


def _diag_rule(bt, target, app):
    """diag of a matrix is its diagonal; of a vector (literal k), the vector on a diagonal: `where(eye, v, 0)`
    (a product with eye would turn an inf into nan; zeros shaped like v's column keep its dtype), padded for k != 0. diagflat flattens each example first."""
    b = app.bound
    v = b["v"]
    k = _static_int(b.get("k", _const(0)))
    if not _only_batched(bt, app, "v") or k is None:
        return None
    out = []
    rank = bt.rank(v)
    if app.primitive.name == "diagflat":
        v, rank = _flattened(bt, out, v), 1
    if rank == 2:
        return [bt.assign(target, _call("jnp.diagonal", copy.deepcopy(v), _const(k), _const(1), _const(2)))]
    if rank != 1:
        return None
    column = bt.fresh(f"{v.id}_column")
    out.append(bt.assign(column, _call("jnp.expand_dims", copy.deepcopy(v), _const(-1))))
    eye = bt.fresh("_eye")
    n = gast.Subscript(value=_call("jnp.shape", copy.deepcopy(v)), slice=_const(1), ctx=gast.Load())
    out.append(bt.assign(eye, gast.Compare(left=_call("jnp.eye", n), ops=[gast.NotEq()], comparators=[_const(0.0)])))
    zeros = bt.fresh("_zeros")
    out.append(bt.assign(zeros, _call("jnp.zeros_like", _name(column))))
    if k == 0:
        out.append(bt.assign(target, _call("jnp.where", _name(eye), _name(column), _name(zeros))))
        return out
    square = bt.fresh("_square")
    out.append(bt.assign(square, _call("jnp.where", _name(eye), _name(column), _name(zeros))))
    widths = ((0, 0), (0, k), (k, 0)) if k > 0 else ((0, 0), (-k, 0), (0, -k))
    out.append(bt.assign(target, _call("jnp.pad", _name(square), _tuple(*[_tuple(_const(p), _const(q))
                                                                          for p, q in widths]))))
    return out


def _diag_result(batching, bound):
    r = _rank_of(batching, bound, "v")
    return ARRAY, (None if r is None else (1 if r == 2 else 2))


def _atleast_rule(bt, target, app):
    """atleast_nd of one array of known rank: unit axes where NumPy puts them (after the batch axis)."""
    b = app.bound
    if list(b) != ["a"] or not isinstance(b["a"], gast.Name) or not _only_batched(bt, app, "a"):
        return None
    if isinstance(app.node, gast.Call) and len(app.node.args) != 1:
        return None
    rank, n = bt.rank(b["a"]), int(app.primitive.name[-2])
    if rank is None:
        return None
    new_axes = {1: {0: (1,)}, 2: {0: (1, 2), 1: (1,)}, 3: {0: (1, 2, 3), 1: (1, 3), 2: (3,)}}[n].get(rank, ())
    if not new_axes:
        return [bt.assign(target, copy.deepcopy(b["a"]))]
    return [bt.assign(target, _call("jnp.expand_dims", copy.deepcopy(b["a"]), _tuple(*[_const(i) for i in new_axes])))]


def _atleast_result_for(n):
    def result(batching, bound):
        if list(bound) != ["a"]:
            return None, None
        r = batching.rank(bound["a"])
        return ARRAY, None if r is None else max(r, n)
    return result


def _full_rule(bt, target, app):
    """full(shape, v) with v batched: v gets unit axes after the batch axis up to the result's rank."""
    b = app.bound
    shape, fill = b["shape"], b["fill_value"]
    if bt.is_batched(shape) or bt.is_batched(b.get("dtype", _const(None))) or not isinstance(fill, gast.Name):
        return None
    if not bt.is_batched(fill) or bt.kind(fill) != ARRAY:
        return None
    out = []
    full_shape = bt.fresh("_shape")
    out.append(bt.assign(full_shape, _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(shape))))
    lifted = bt.fresh(f"{fill.id}_")
    out.append(bt.assign(lifted, _call("jnp.reshape", copy.deepcopy(fill), _call(
        bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(fill)),
        gast.BinOp(left=_call("len", _name(full_shape)), op=gast.Sub(), right=_const(1))))))
    out.append(bt.assign(target, _rebuilt(bt, app, {"shape": _name(full_shape), "fill_value": _name(lifted)})))
    return out


def _full_result(batching, bound):
    shape = bound.get("shape")
    if isinstance(shape, gast.Tuple):
        return ARRAY, len(shape.elts)
    if _static_int(shape) is not None:
        return ARRAY, 1
    return ARRAY, None


def _linspace_rule(bt, target, app):
    """linspace with batched start/stop (literal axis): a batched one gets unit axes after the batch axis up
    to the other's rank (computed when it runs where unknown); the samples' axis shifts past the batch axis."""
    b = app.bound
    start, stop = b["start"], b["stop"]
    axis = _shifted(b.get("axis", _const(0)))
    if any(bt.is_batched(b[k]) for k in b if k not in ("start", "stop")) or axis is None:
        return None
    if any(not isinstance(n, (gast.Name, gast.Constant)) or (bt.is_batched(n) and bt.kind(n) != ARRAY)
           for n in (start, stop)):
        return None
    out, replace = [], {"axis": axis}
    for key, node, other in (("start", start, stop), ("stop", stop, start)):
        if not bt.is_batched(node):
            continue
        rank, other_rank = bt.rank(node), bt.rank(other)
        if rank is not None and other_rank is not None:
            if rank >= other_rank:
                continue
            lifted = _call("jnp.expand_dims", copy.deepcopy(node), _tuple(
                *[_const(i) for i in range(1, other_rank - rank + 1)]))
        else:
            ndim = _call("jnp.ndim", copy.deepcopy(other))
            if bt.is_batched(other):
                ndim = gast.BinOp(left=ndim, op=gast.Sub(), right=_const(1))
            lifted = _call("jnp.reshape", copy.deepcopy(node), _call(
                bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(node)), ndim))
        fresh = bt.fresh(f"{node.id}_")
        out.append(bt.assign(fresh, lifted))
        replace[key] = _name(fresh)
    out.append(bt.assign(target, _rebuilt(bt, app, replace)))
    return out


def _linspace_result(batching, bound):
    if not isinstance(bound.get("base", _const(10.0)), gast.Constant):
        return ARRAY, None          # logspace's array base broadcasts against the samples
    ranks = [batching.rank(bound.get(k)) for k in ("start", "stop")]
    rank = None if None in ranks else max(ranks) + 1
    if _is_const(bound.get("retstep", _const(False)), True):
        return (_leaf(rank), _leaf(None if rank is None else rank - 1)), None
    return ARRAY, rank


def _elementwise_result(batching, bound):
    ranks = [batching.rank(n) for n in bound.values()]
    return ARRAY, (max(ranks) if ranks and None not in ranks else None)


def _lax_select_rule(bt, target, app):
    """lax.select broadcasts as jnp.where does (a scalar pred included): the elementwise rule."""
    return elementwise_rule(bt, target, app)


def _matrices_rule(bt, target, app):
    """A function of the last two axes that maps over leading ones (tril, triu, matrix_transpose, svdvals):
    the same call, for per-example matrices (known rank >= 2; a vector would read the batch as rows)."""
    first = app.primitive.operands[0]
    if not _only_batched(bt, app, first) or (bt.rank(app.bound[first]) or 0) < 2:
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _permute_dims_rule(bt, target, app):
    b = app.bound
    if not _only_batched(bt, app, "a"):
        return None
    perm = _call(bt.helper(batch_permutation), copy.deepcopy(b.get("axes", _const(None))),
                 _call("jnp.ndim", copy.deepcopy(b["a"])))
    return [bt.assign(target, _rebuilt(bt, app, {"axes": perm}))]


def _tile_rule(bt, target, app):
    """tile(A, reps): A gets unit axes after the batch axis up to len(reps) (where NumPy would put them in
    front, ahead of the batch), and reps a 1 for the batch axis."""
    b = app.bound
    if not _only_batched(bt, app, "A") or not isinstance(b["A"], gast.Name):
        return None
    out = []
    reps = bt.fresh("_reps")
    out.append(bt.assign(reps, _call(bt.helper(batch_prepend), _const(1), copy.deepcopy(b["reps"]))))
    lifted = bt.fresh(f"{b['A'].id}_")
    out.append(bt.assign(lifted, _call("jnp.reshape", copy.deepcopy(b["A"]), _call(
        bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(b["A"])),
        gast.BinOp(left=_call("len", _name(reps)), op=gast.Sub(), right=_const(1))))))
    out.append(bt.assign(target, _rebuilt(bt, app, {"A": _name(lifted), "reps": _name(reps)})))
    return out


def _tile_result(batching, bound):
    r, reps = _rank_of(batching, bound, "A"), bound.get("reps")
    n = len(reps.elts) if isinstance(reps, gast.Tuple) else (1 if _static_int(reps) is not None else None)
    return ARRAY, (max(r, n) if r is not None and n is not None else None)


def _lifted_to(bt, out, node, to_rank):
    """A batched `node` with unit axes after the batch axis up to per-example rank `to_rank` (known ranks)."""
    rank = bt.rank(node)
    if rank >= to_rank:
        return node
    fresh = bt.fresh(f"{node.id}_")
    out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(node), _tuple(
        *[_const(i) for i in range(1, to_rank - rank + 1)]))))
    return _name(fresh)


def _stacks_rule(core1, core2, axis_param=None):
    """Functions of stacks broadcast over leading axes (matvec, vecmat, vecdot, solve with a matrix b): an
    unbatched operand broadcasts against the batch as it is; of two batched ones, the one with fewer leading
    axes gets unit axes after the batch axis. core1/core2: each operand's own trailing rank (known ranks)."""
    def rule(bt, target, app):
        b = app.bound
        names = app.primitive.operands[:2]
        x1, x2 = b[names[0]], b[names[1]]
        if any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY for n in (x1, x2)):
            return None
        if any(bt.is_batched(n) for k, n in b.items() if k not in names):
            return None
        if axis_param is not None and not ((_static_int(b.get(axis_param)) or 0) < 0):
            return None             # a non-negative axis counts the batch axis differently
        r1, r2 = bt.rank(x1), bt.rank(x2)
        if r1 is None or r2 is None or r1 < core1 or r2 < core2:
            return None
        out, replace = [], {}
        if bt.is_batched(x1) and bt.is_batched(x2):
            lead = max(r1 - core1, r2 - core2)
            replace[names[0]] = _lifted_to(bt, out, x1, lead + core1)
            replace[names[1]] = _lifted_to(bt, out, x2, lead + core2)
        elif bt.is_batched(x1) and r2 - core2 > r1 - core1 or bt.is_batched(x2) and r1 - core1 > r2 - core2:
            return None             # the unbatched operand has more leading axes: they would meet the batch axis
        out.append(bt.assign(target, _rebuilt(bt, app, replace)))
        return out
    return rule


def _solve_rule(bt, target, app):
    """solve(a, b) of known ranks: b a vector per example (rank 1) is made a column and squeezed back
    (NumPy reads a 2-D b as a matrix); otherwise the stacks broadcast as matmul's do."""
    b = app.bound
    a, rhs = b["a"], b["b"]
    if any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY for n in (a, rhs)):
        return None
    ra, rb = bt.rank(a), bt.rank(rhs)
    if ra is None or rb is None or ra < 2 or rb < 1:
        return None
    if rb == 1 and ra == 2:
        out = []
        column = bt.fresh(f"{rhs.id}_column")
        out.append(bt.assign(column, _call("jnp.expand_dims", copy.deepcopy(rhs), _const(-1))))
        if not bt.is_batched(rhs):
            rhs_batched = bt.fresh(f"{rhs.id}_")
            out.append(bt.assign(rhs_batched, _call("jnp.broadcast_to", _name(column), gast.BinOp(
                left=_tuple(bt.B), op=gast.Add(), right=_call("jnp.shape", _name(column))))))
            column = rhs_batched
        solved = bt.fresh("_solved")
        out.append(bt.assign(solved, _rebuilt(bt, app, {"b": _name(column)})))
        out.append(bt.assign(target, _call("jnp.squeeze", _name(solved), _const(-1))))
        return out
    if rb == 1:
        return None
    return _stacks_rule(2, 2)(bt, target, app)


def _solve_result(batching, bound):
    ra, rb = _rank_of(batching, bound, "a"), _rank_of(batching, bound, "b")
    return ARRAY, (rb if ra == 2 and rb == 1 else None)


def _take_along_axis_rule(bt, target, app):
    """take_along_axis with a literal axis: an unbatched arr or indices gets a unit batch axis (its
    broadcasting picks the same elements for every example); the axis shifts."""
    b = app.bound
    arr, idx = b["arr"], b["indices"]
    axis = _shifted(b.get("axis", _const(None)))
    if axis is None or bt.is_batched(b.get("axis")) or any(
            not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in (arr, idx)):
        return None
    out, replace = [], {"axis": axis}
    for key, node in (("arr", arr), ("indices", idx)):
        if not bt.is_batched(node):
            fresh = bt.fresh(f"{node.id}_")
            out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(node), _const(0))))
            replace[key] = _name(fresh)
    out.append(bt.assign(target, _rebuilt(bt, app, replace)))
    return out


def _lax_dynamic_update_slice_in_dim_rule(bt, target, app):
    b = app.bound
    operand, update = b["operand"], b["update"]
    axis = _shifted(b.get("axis"))
    if axis is None or bt.is_batched(b["start_index"]) or bt.is_batched(b["axis"]) or any(
            not isinstance(n, (gast.Name, gast.Constant)) for n in (operand, update)):
        return None
    if any(isinstance(n, gast.Name) and bt.is_batched(n) and bt.kind(n) != ARRAY for n in (operand, update)):
        return None
    out = []
    operand, update = bt.batched(operand, out), bt.batched(update, out)
    out.append(bt.assign(target, _rebuilt(bt, app, {"operand": operand, "update": update, "axis": axis})))
    return out


def _array_only_rule(bt, target, app):
    """stop_gradient of an array: the same call (of a container: example by example)."""
    first = app.primitive.operands[0]
    if not _only_batched(bt, app, first):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _first_batched_rule(*unbatched_shape_free):
    """interp(x, xp, fp) and polyval(p, x) with only x batched: elementwise in x, the same call. polyval's
    unbatched p must be 1-D (a 2-D p's rows would broadcast against the batch), checked by rank."""
    def rule(bt, target, app):
        b = app.bound
        if not _only_batched(bt, app, "x"):
            return None
        for name in unbatched_shape_free:
            if name in b and not isinstance(b[name], gast.Constant) and bt.rank(b[name]) != 1:
                return None
        return [bt.assign(target, _rebuilt(bt, app, {}))]
    return rule


def _tuple_elementwise_result(batching, bound):
    ranks = [batching.rank(n) for n in bound.values() if not _is_const(n, None)]
    rank = max(ranks) if ranks and None not in ranks else None
    return (_leaf(rank), _leaf(rank)), None


def _logspace_rule(bt, target, app):
    """logspace as linspace, for a literal base (an array base would broadcast against the batch)."""
    if not isinstance(app.bound.get("base", _const(10.0)), gast.Constant):
        return None
    return _linspace_rule(bt, target, app)


def _triangle_result(batching, bound):
    """tril/triu keep a matrix's rank; a vector becomes a matrix (NumPy broadcasts it to rows)."""
    r = _rank_of(batching, bound, "m")
    return ARRAY, (None if r is None or r == 0 else max(r, 2))


def _polyval_result(batching, bound):
    """x's rank for a 1-D p (a p of more axes adds them)."""
    p = bound.get("p")
    if isinstance(p, gast.Constant) or batching.rank(p) == 1:
        return ARRAY, _rank_of(batching, bound, "x")
    return ARRAY, None


def _array_copy_rule(bt, target, app):
    """jnp.array(x) of a batched array: the same call, for ndmin 0 (ndmin would put unit axes ahead of the
    batch axis); a list of batched arrays loops."""
    if not _is_const(app.bound.get("ndmin", _const(0)), 0):
        return None
    return _array_only_rule(bt, target, app)


def _tensordot_rule(bt, target, app):
    """tensordot with one batched operand and literal axes: its batch axis is a free one. Batched `a`: the
    first free axis of the result, already axis 0; batched `b`: after a's free axes, moved to axis 0. Both
    batched loop (tensordot has no batch dimension)."""
    b = app.bound
    x, y, axes = b["a"], b["b"], b.get("axes", _const(2))
    if bt.is_batched(x) == bt.is_batched(y) or any(bt.is_batched(b[k]) for k in b if k not in ("a", "b")):
        return None
    if any(not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in (x, y)):
        return None
    n = _static_int(axes)
    if n is not None:
        pair = [list(range(-n, 0)), list(range(n))]        # a's last n with b's first n
    elif isinstance(axes, (gast.Tuple, gast.List)) and len(axes.elts) == 2:
        pair = []
        for side in axes.elts:
            if _static_int(side) is not None:
                pair.append([_static_int(side)])
            elif isinstance(side, (gast.Tuple, gast.List)) and all(_static_int(e) is not None for e in side.elts):
                pair.append([_static_int(e) for e in side.elts])
            else:
                return None
    else:
        return None
    if bt.is_batched(x):
        pair[0] = [k + 1 if k >= 0 else k for k in pair[0]]
    else:
        pair[1] = [k + 1 if k >= 0 else k for k in pair[1]]
    new_axes = _tuple(*[_tuple(*[_const(k) for k in side]) for side in pair])
    if bt.is_batched(x):
        return [bt.assign(target, _rebuilt(bt, app, {"axes": new_axes}))]
    out = []
    product = bt.fresh("_product")
    out.append(bt.assign(product, _rebuilt(bt, app, {"axes": new_axes})))
    position = gast.BinOp(left=_call("jnp.ndim", copy.deepcopy(x)), op=gast.Sub(), right=_const(len(pair[0])))
    out.append(bt.assign(target, _call("jnp.moveaxis", _name(product), position, _const(0))))
    return out


def _tensordot_result(batching, bound):
    ra, rb, axes = _rank_of(batching, bound, "a"), _rank_of(batching, bound, "b"), bound.get("axes", _const(2))
    n = _static_int(axes)
    if n is None and isinstance(axes, (gast.Tuple, gast.List)) and len(axes.elts) == 2:
        side = axes.elts[0]
        n = 1 if _static_int(side) is not None else (len(side.elts) if isinstance(side, (gast.Tuple, gast.List))
                                                    else None)
    if None in (ra, rb, n):
        return ARRAY, None
    return ARRAY, ra + rb - 2 * n


def _vdot_rule(bt, target, app):
    """vdot flattens both operands: conj(a) * b summed over each example's elements (an unbatched operand
    flattened broadcasts against the batch)."""
    b = app.bound
    x, y = b["a"], b["b"]
    if any(not _is_const(b.get(k, _const(None)), None) for k in ("precision", "preferred_element_type")):
        return None
    if any(not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in (x, y)):
        return None
    out, flat = [], []
    for node in (x, y):
        fresh = bt.fresh(f"{node.id}_flat")
        shape = _tuple(bt.B, _const(-1)) if bt.is_batched(node) else _tuple(_const(-1))
        out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(node), shape)))
        flat.append(_name(fresh))
    conj = bt.fresh(f"{x.id}_conj")
    out.append(bt.assign(conj, _call("jnp.conj", flat[0])))
    product = bt.fresh("_product")
    out.append(bt.assign(product, gast.BinOp(left=_name(conj), op=gast.Mult(), right=flat[1])))
    out.append(bt.assign(target, _call("jnp.sum", _name(product), axis=_const(-1))))
    return out


STRUCTURAL = {
    "lax_slice": (_lax_slice_rule, _keep("operand")),
    "lax_transpose": (_lax_transpose_rule, _keep("operand")),
    "lax_reshape": (_lax_reshape_rule, lambda batching, bound: (ARRAY, len(bound["new_sizes"].elts) if isinstance(
        bound.get("new_sizes"), gast.Tuple) else None)),
    "lax_broadcast_in_dim": (_lax_broadcast_in_dim_rule, lambda batching, bound: (ARRAY, len(
        bound["shape"].elts) if isinstance(bound.get("shape"), gast.Tuple) else None)),
    "lax_concatenate": (_lax_concatenate_rule, _unknown_array),
    "lax_pad": (_lax_pad_rule, _keep("operand")),
    "pad": (_pad_rule, _keep("array")),
    "lax_dynamic_update_slice": (_lax_dynamic_update_slice_rule, _keep("operand")),
    "lax_dot_general": (_lax_dot_general_rule, _dot_general_result),
    "kron": (_kron_rule, _kron_result),
    "diag": (_diag_rule, _diag_result), "diagflat": (_diag_rule, lambda batching, bound: (ARRAY, 2)),
    "atleast_1d": (_atleast_rule, _atleast_result_for(1)), "atleast_2d": (_atleast_rule, _atleast_result_for(2)),
    "atleast_3d": (_atleast_rule, _atleast_result_for(3)),
    "full": (_full_rule, _full_result), "linspace": (_linspace_rule, _linspace_result),
    "lax_select": (_lax_select_rule, _elementwise_result), "lax_clamp": (elementwise_rule, _elementwise_result),
    "lax_div": (elementwise_rule, _elementwise_result), "lax_rem": (elementwise_rule, _elementwise_result),
    "fliplr": (_flip_rule(1), _keep("m")), "flipud": (_flip_rule(0), _keep("m")),
    "tril": (_matrices_rule, _triangle_result), "triu": (_matrices_rule, _triangle_result),
    "matrix_transpose": (_matrices_rule, _keep("x")), "svdvals": (_matrices_rule, _minus_result("x", 1)),
    "permute_dims": (_permute_dims_rule, _keep("a")), "tile": (_tile_rule, _tile_result),
    "matvec": (_stacks_rule(2, 1), _unknown_array), "vecmat": (_stacks_rule(1, 2), _unknown_array),
    "vecdot": (_stacks_rule(1, 1, axis_param="axis"), _unknown_array),
    "solve": (_solve_rule, _solve_result), "take_along_axis": (_take_along_axis_rule, _keep("arr")),
    "lax_dynamic_update_slice_in_dim": (_lax_dynamic_update_slice_in_dim_rule, _keep("operand")),
    "lax_stop_gradient": (_array_only_rule, _keep("x")),
    "interp": (_first_batched_rule(), _keep("x")), "polyval": (_first_batched_rule("p"), _polyval_result),
    "modf": (elementwise_rule, _tuple_elementwise_result), "frexp": (elementwise_rule, _tuple_elementwise_result),
    "divmod": (elementwise_rule, _tuple_elementwise_result),
    "geomspace": (_linspace_rule, _linspace_result), "logspace": (_logspace_rule, _linspace_result),
    "angle": (_array_only_rule, _keep("z")), "cast_float32": (_array_only_rule, _keep("x")),
    "cast_float64": (_array_only_rule, _keep("x")), "asanyarray": (_array_only_rule, _keep("a")),
    "ascontiguousarray": (_array_only_rule, _keep("a")), "asarray_chkfinite": (_array_only_rule, _keep("a")),
    "array": (_array_copy_rule, lambda batching, bound: (ARRAY, _rank_of(batching, bound, "object") if _is_const(
        bound.get("ndmin", _const(0)), 0) else None)),
    "tensordot": (_tensordot_rule, _tensordot_result), "vdot": (_vdot_rule, lambda batching, bound: (ARRAY, 0)),
}


# ---------------------------------------------------------------- registration
def _declared(rule, result):
    """A rule of its own per primitive, carrying the (kind, rank) its result has (analyses/batching.py)."""
    def batch(bt, target, app):
        return rule(bt, target, app)
    batch.__name__ = getattr(rule, "__name__", "rule")
    batch.__doc__ = rule.__doc__
    batch.result = result
    return batch


def _first_of(*rules):
    """The first of `rules` that covers the statement (an earlier family's rule first, then a later one)."""
    def rule(bt, target, app):
        for r in rules:
            found = r(bt, target, app)
            if found is not None:
                return found
        return None
    rule.__name__ = rules[-1].__name__
    rule.__doc__ = rules[-1].__doc__
    return rule


def register_family(edits, extended=()):
    """Register a family of batching rules: `edits` ({name: (rule, result)}) for the primitives that have no
    rule yet; `extended` ({name: rule}) tried after a primitive's earlier rule, which keeps its result's kind
    and the tuple parameters it reads."""
    for name, (rule, result) in edits.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, result))
    for name, rule in dict(extended).items():
        earlier = PRIMITIVES[name].batch
        defbatch(PRIMITIVES[name], _declared(_first_of(earlier, rule), earlier.result))
        PRIMITIVES[name].batch.reads_tuples = getattr(earlier, "reads_tuples", ())


def _register():
    table = {}
    for name, result in STACKED_TUPLES.items():
        table[name] = (_scipy_eigh_rule if name == "scipy_eigh" else _stacked_tuple_rule, result)
    for name, shift in AXIS_SHIFTS.items():
        table[name] = (shift.rule, shift.result)
    table["norm"] = (_norm_rule, _reduced("x"))
    table["cross"] = (_cross_rule, _unknown_array)
    table.update(STRUCTURAL)
    for name, (rule, result) in table.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, result))


_register()
