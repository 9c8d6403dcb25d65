"""Rules of the last jax.numpy functions (astjax/numpy/_more.py): products, tuple-valued math, updates, fitting.

Tuple-valued primitives (`modf`, `frexp`, `divmod`) read their adjoint `by`
item by item (`item_adjoint(by, k)`) and build tangents with `with_fields`. The
immutable updates (`fill_diagonal`, `place`, `put`) send the adjoint of the
entries they overwrite to the value written there (repeated values add up; a
position written twice takes the last write, as its value does). `polyfit` is
differentiable in y only (a derivative reaching x is an error). The helpers
below are written with primitives, so their rules can be differentiated again.
"""
import numpy as np

from .. import numpy as jnp
from ..numpy import _more
from ..numpy import _shape as jnp_shape
from ..scipy import special as jsp_special
from ..errors import AstjaxError
from .helpers import take_adjoint, unbroadcast_to
from .linalg import COMPOSITES
from .nondifferentiable import INTEGER, SHAPES, nondifferentiable
from .registry import defjvp, defvjp, parse_expression, primitive


# ------------------------------------------------------------------ helpers rule templates call
def cyclic_fold(values, like):
    """The transpose of repeating `like`'s flat entries cyclically into len(values) slots: values summed back
    onto like's shape (a scalar `like` gets their sum)."""
    k = int(np.size(like))
    n = int(np.size(values))
    if k == 1:
        return jnp.reshape(jnp.sum(values), np.shape(like))
    if n == 0:
        return jnp.zeros(np.shape(like), dtype=values.dtype)
    rows = -(-n // k)
    padded = jnp.concatenate([values, jnp.zeros(rows * k - n, dtype=values.dtype)])
    return jnp.reshape(jnp.sum(jnp.reshape(padded, (rows, k)), axis=0), np.shape(like))


def fill_diagonal_positions(shape, wrap):
    """The flat indices np.fill_diagonal writes (int64): every (ndim)-tuple of equal indices."""
    marker = np.zeros(shape, dtype=np.int64).reshape(shape)
    np.fill_diagonal(marker, 1, wrap=wrap)
    return np.flatnonzero(marker)


def fill_diagonal_val_adjoint(g, val, wrap):
    """val's adjoint: the adjoint of the diagonal entries, folded onto val's shape."""
    positions = fill_diagonal_positions(np.shape(g), wrap)
    return cyclic_fold(jnp.take(jnp.ravel(g), positions), val)


def place_vals_adjoint(g, mask, vals):
    """vals' adjoint: the adjoint of the entries where mask holds, in order, folded onto vals' shape."""
    positions = np.flatnonzero(np.asarray(mask))
    return cyclic_fold(jnp.take(jnp.ravel(g), positions), vals)


def put_winners(size, ind, mode):
    """put's flat positions, and 1.0 for each write that is the last to its position (else 0.0)."""
    positions = _more.put_indices(size, ind, mode)
    return positions, last_writes(positions)


def put_v_adjoint(g, a, ind, v, mode):
    """v's adjoint: the adjoint of each position put wrote last, folded onto v's shape."""
    positions, winners = put_winners(int(np.size(a)), ind, mode)
    return cyclic_fold(jnp.take(jnp.ravel(g), positions) * winners, v)


def last_writes(positions):
    """1.0 where a write (in C order over `positions`) is the last one to its position, else 0.0; same shape."""
    positions = np.asarray(positions)
    last = {}
    for i, p in enumerate(np.ravel(positions).tolist()):
        last[p] = i
    winners = np.zeros(positions.size)
    winners[list(last.values())] = 1.0
    return winners.reshape(positions.shape)


def along_axis_positions(shape, indices, axis):
    """The flat positions put_along_axis writes in an array of `shape` (int64, indices' broadcast shape)."""
    flat_index = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if axis is None:
        flat_index = np.ravel(flat_index)
    return np.take_along_axis(flat_index, np.asarray(indices), axis)


def put_along_axis_values_adjoint(g, arr, indices, values, axis):
    """values' adjoint: the adjoint of each position written last, summed back onto values' shape."""
    winners = last_writes(along_axis_positions(np.shape(arr), indices, axis))
    read = jnp.take_along_axis(jnp.ravel(g) if axis is None else g, indices, axis)
    return unbroadcast_to(read * winners, np.shape(values))


def kaiser_slope(M, beta, y):
    """d kaiser(M, beta) / d beta = (s i1(beta s) - y i1(beta)) / i0(beta), s = sqrt(1 - (2n/(M-1) - 1)^2)."""
    M = int(M)
    if M < 2:
        return jnp.zeros(max(M, 0), dtype=y.dtype)
    ratio = 2.0 * jnp.arange(M, dtype=y.dtype) / (M - 1) - 1.0
    s = jnp.sqrt(jnp.maximum(1.0 - ratio * ratio, 0.0))
    return (s * jsp_special.i1(beta * s) - y * jsp_special.i1(beta)) / jsp_special.i0(beta)


def polyfit_pseudo_inverse(x, deg, rcond, w):
    """The matrix P with polyfit(x, y, deg) = P @ y: NumPy's scaled least squares, as its truncated pseudo-
    inverse (the same SVD cutoff, so rank-deficient fits differentiate as they compute)."""
    x = np.asarray(x, dtype=np.float64)
    lhs = np.vander(x, deg + 1)
    if w is not None:
        lhs = lhs * np.asarray(w, dtype=np.float64)[:, None]
    rcond = len(x) * np.finfo(x.dtype).eps if rcond is None else rcond
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    scale = np.where(scale == 0, 1.0, scale)
    pinv = np.linalg.pinv(lhs / scale, rcond=rcond) / scale[:, None]
    if w is not None:
        pinv = pinv * np.asarray(w, dtype=np.float64)[None, :]
    return jnp.asarray(pinv)


def polyfit_y_adjoint(g, x, y, deg, rcond, w):
    p = polyfit_pseudo_inverse(x, deg, rcond, w)
    return jnp.astype(jnp.matmul(jnp.transpose(p), g), jnp.result_type(y, g))      # y's adjoint in y's precision


def polyfit_y_tangent(t, x, y, deg, rcond, w):
    p = polyfit_pseudo_inverse(x, deg, rcond, w)
    return jnp.astype(jnp.matmul(p, t), jnp.result_type(x, y, t))


COMPOSITES.update({f.__name__: f for f in (
    cyclic_fold, fill_diagonal_val_adjoint, place_vals_adjoint, put_v_adjoint, kaiser_slope,
    put_along_axis_values_adjoint,
    polyfit_y_adjoint, polyfit_y_tangent)})


# ------------------------------------------------------------------ products
def _rules(name, operands, vjp, jvp, aliases=(), unbroadcast=False, signature=None):
    prim = primitive(name, getattr(_more, name), operands=operands, aliases=tuple(a for a in aliases if a),
                     unbroadcast=unbroadcast, signature=signature)
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
    return prim


_rules("vecdot", ("x1", "x2"),
       ["bx1 += real_input_adjoint(jnp.expand_dims(by, axis) * x2, x1)",
        "bx2 += real_input_adjoint(jnp.expand_dims(by, axis) * x1, x2)"],
       ["dy = jnp.vecdot(dx1, x2, axis=axis) + jnp.vecdot(x1, dx2, axis=axis)"],
       aliases=(getattr(np, "vecdot", None),), unbroadcast=True)
_rules("matvec", ("x1", "x2"),
       ["bx1 += real_input_adjoint(jnp.expand_dims(by, -1) * jnp.expand_dims(x2, -2), x1)",
        "bx2 += real_input_adjoint(jnp.vecmat(by, x1), x2)"],
       ["dy = jnp.matvec(dx1, x2) + jnp.matvec(x1, dx2)"],
       aliases=(getattr(np, "matvec", None),), unbroadcast=True)
_rules("vecmat", ("x1", "x2"),
       ["bx1 += real_input_adjoint(jnp.matvec(x2, by), x1)",
        "bx2 += real_input_adjoint(jnp.expand_dims(x1, -1) * jnp.expand_dims(by, -2), x2)"],
       ["dy = jnp.vecmat(dx1, x2) + jnp.vecmat(x1, dx2)"],
       aliases=(getattr(np, "vecmat", None),), unbroadcast=True)

# ------------------------------------------------------------------ tuple-valued math
# modf: the fractional part moves with x (slope 1), the integral part is piecewise constant.
_rules("modf", ("x",), ["bx += item_adjoint(by, 0)"],
       ["dy = with_fields(y, [dx, jnp.zeros_like(y[1])])"], aliases=(np.modf,))
# frexp: mantissa = x * 2**-exponent with the exponent piecewise constant (an integer).
_FREXP_SLOPE = "jnp.exp2(jnp.negative(y[1]) * jnp.ones_like(y[0]))"      # 2**-exponent in the mantissa's dtype
_rules("frexp", ("x",), [f"bx += item_adjoint(by, 0) * {_FREXP_SLOPE}"],
       [f"dy = with_fields(y, [dx * {_FREXP_SLOPE}, jnp.zeros_like(y[1])])"],
       aliases=(np.frexp,))
# divmod: the quotient floor(x1 / x2) is piecewise constant; the remainder is x1 - quotient * x2.
_rules("divmod", ("x1", "x2"),
       ["bx1 += item_adjoint(by, 1) * jnp.ones_like(y[1])", "bx2 += -item_adjoint(by, 1) * y[0]"],
       ["dx1 -> with_fields(y, [jnp.zeros_like(y[0]), jnp.broadcast_to(dx1, jnp.shape(y[1]))])",
        "dx2 -> with_fields(y, [jnp.zeros_like(y[0]), -dx2 * y[0]])"],
       aliases=(np.divmod,), unbroadcast=True)

# ------------------------------------------------------------------ elementwise with a derivative
# unwrap adds a piecewise constant multiple of period: its derivative is the identity.
_rules("unwrap", ("p",), ["bp += by"], ["dy = dp"], aliases=(np.unwrap,))
# angle of a real number is 0 or pi (piecewise constant); of a complex one astjax refuses to differentiate.
_rules("angle", ("z",), ["bz += real_input_adjoint(by * 0.0, z)"], ["dy = real_input_adjoint(dz * 0.0, z)"],
       aliases=(np.angle,))
_rules("partition", ("a",), ["ba += take_along_axis_adjoint(by, a, jnp.argpartition(a, kth, axis), axis)"],
       ["dy = jnp.take_along_axis(da, jnp.argpartition(a, kth, axis), axis)"], aliases=(np.partition,))
_rules("kaiser", ("beta",), ["bbeta += jnp.sum(by * kaiser_slope(M, beta, y))"],
       ["dy = dbeta * kaiser_slope(M, beta, y)"], aliases=(np.kaiser,))

# ------------------------------------------------------------------ immutable updates
_rules("fill_diagonal", ("a", "val"),
       ["ba += jnp.fill_diagonal(by, 0.0, wrap, inplace=False)", "bval += fill_diagonal_val_adjoint(by, val, wrap)"],
       ["da -> jnp.fill_diagonal(da, 0.0, wrap, inplace=False)",
        "dval -> jnp.fill_diagonal(jnp.zeros_like(a, dtype=jnp.result_type(dval)), dval, wrap, inplace=False)"])
_rules("place", ("arr", "vals"),
       ["barr += jnp.where(mask, 0.0, by)", "bvals += place_vals_adjoint(by, mask, vals)"],
       ["darr -> jnp.where(mask, 0.0, darr)",
        "dvals -> jnp.place(jnp.zeros_like(arr, dtype=jnp.result_type(dvals)), mask, dvals, inplace=False)"])
_rules("put", ("a", "v"),
       ["ba += jnp.put(by, ind, 0.0, mode, inplace=False)", "bv += put_v_adjoint(by, a, ind, v, mode)"],
       ["da -> jnp.put(da, ind, 0.0, mode, inplace=False)",
        "dv -> jnp.put(jnp.zeros_like(a, dtype=jnp.result_type(dv)), ind, dv, mode, inplace=False)"])
_rules("put_along_axis", ("arr", "values"),
       ["barr += jnp.put_along_axis(by, indices, 0.0, axis, inplace=False)",
        "bvalues += put_along_axis_values_adjoint(by, arr, indices, values, axis)"],
       ["darr -> jnp.put_along_axis(darr, indices, 0.0, axis, inplace=False)",
        "dvalues -> jnp.put_along_axis(jnp.zeros_like(arr, dtype=jnp.result_type(dvalues)), indices, dvalues, axis,"
        " inplace=False)"])


# ------------------------------------------------------------------ fitting
def _polyfit_check(bound):
    for flag in ("full", "cov"):
        node = bound.get(flag)
        if node is not None and not (getattr(node, "value", None) is False):
            return (f"astjax differentiates polyfit's coefficients only; `{flag}` must be the literal False",
                    f"leave {flag}=False and compute residuals or covariances from the coefficients.")
    return None


def _polyfit_signature(x, ys, deg, rcond=None, full=False, w=None, cov=False):
    """polyfit's parameters, y renamed ys (in rule templates `y` and `by` are the result and its adjoint)."""


_polyfit = primitive("polyfit", _more.polyfit, operands=("x", "ys"), aliases=(np.polyfit,),
                     signature=_polyfit_signature)
# x's derivative (through the design matrix) is not written: a derivative reaching x is an error.
_NO_X = "'jnp.polyfit is differentiated with respect to y only; astjax has no derivative in x'"
defvjp(_polyfit, f"bx += refuse_derivative(by, {_NO_X})", "bys += polyfit_y_adjoint(by, x, ys, deg, rcond, w)")
defjvp(_polyfit, f"dx -> refuse_derivative(dx, {_NO_X})", "dys -> polyfit_y_tangent(dys, x, ys, deg, rcond, w)")
_polyfit.static_check = _polyfit_check

# ------------------------------------------------------------------ no derivative
nondifferentiable("einsum_path", _more.einsum_path, SHAPES, aliases=(np.einsum_path,))
nondifferentiable("isdtype", _more.isdtype, SHAPES, aliases=(getattr(np, "isdtype", None),))
nondifferentiable("mask_indices", _more.mask_indices, INTEGER, aliases=(np.mask_indices,))

# ------------------------------------------------------------------ conversions and dtype queries
# ascontiguousarray, asanyarray, asarray_chkfinite and require return their input's values as an Array (the
# last two may raise), cast to `dtype`: `array`'s rules, each under its own signature.
for _name in ("ascontiguousarray", "asanyarray", "asarray_chkfinite", "require"):
    _prim = primitive(_name, getattr(jnp, _name), operands=("a",), aliases=(getattr(np, _name, None),))
    defvjp(_prim, "ba += array_adjoint(cast_adjoint(by, y), a)")
    defjvp(_prim, "dy = cast_adjoint(jnp.array(da), y)")
for _name in ("result_type", "promote_types", "issubdtype", "can_cast", "common_type"):
    nondifferentiable(_name, getattr(jnp, _name), SHAPES, aliases=(getattr(np, _name, None),))

# ------------------------------------------------------------------ insert, choose, trim_zeros
def insert_sources(arr, obj, values, axis):
    """Where each entry of insert(arr, obj, values, axis) comes from, flat in C order: k >= 0 is arr's flat
    entry k, -1 - k is values' flat entry k (values broadcast as np.insert broadcasts them: repeats)."""
    arr_shape, values_shape = np.shape(arr), np.shape(values)
    own = np.arange(int(np.prod(arr_shape)), dtype=np.int64).reshape(arr_shape)
    written = (-1 - np.arange(int(np.prod(values_shape)), dtype=np.int64)).reshape(values_shape)
    return np.ravel(np.insert(own, obj, written, axis))


def insert_arr_positions(arr, obj, values, axis):
    """The flat positions in insert's result of arr's entries, in arr's flat order (int64)."""
    sources = insert_sources(arr, obj, values, axis)
    kept = np.flatnonzero(sources >= 0)
    return kept[np.argsort(sources[kept], kind="stable")]


def insert_values_positions(arr, obj, values, axis):
    """The flat positions in insert's result written from values (int64)."""
    return np.flatnonzero(insert_sources(arr, obj, values, axis) < 0)


def insert_values_sources(arr, obj, values, axis):
    """values' flat entry written at each of insert_values_positions (int64; repeats where broadcast)."""
    sources = insert_sources(arr, obj, values, axis)
    return -1 - sources[sources < 0]


def insert_values_adjoint(g, arr, obj, values, axis):
    """values' adjoint: the adjoint of each position values wrote, summed back onto values' shape."""
    read = jnp.take(jnp.ravel(g), insert_values_positions(arr, obj, values, axis))
    flat = take_adjoint(read, jnp.ravel(jnp.asarray(values)), insert_values_sources(arr, obj, values, axis), 0)
    return jnp.reshape(flat, np.shape(values))


def choose_index(a, choices, mode):
    """The choice each entry of choose(a, choices, mode) reads (int64): a wrapped or clipped into range."""
    a = np.asarray(a, dtype=np.int64)
    n = len(choices)
    if mode == "wrap":
        return np.mod(a, n)
    if mode == "clip":
        return np.clip(a, 0, n - 1)
    return a


def choose_adjoint(g, a, choices, mode):
    """The adjoint of choices given as one array (n, ...): g where choice k was read, summed onto its shape."""
    index = choose_index(a, choices, mode)
    n = int(np.shape(choices)[0])
    mask = np.expand_dims(index, 0) == np.reshape(np.arange(n), (n,) + (1,) * np.ndim(index))
    parts = jnp.where(mask, jnp.expand_dims(g, 0), 0.0)                  # (n, *result shape)
    extra = jnp.ndim(parts) - jnp.ndim(choices)                          # result axes a choice broadcast over
    if extra > 0:
        parts = jnp.sum(parts, axis=tuple(range(1, 1 + extra)))
    return unbroadcast_to(parts, np.shape(choices))


def trim_zeros_padding(filt, trim):
    """(zeros trimmed at the front, zeros trimmed at the back) of trim_zeros(filt, trim) of a 1-d filt."""
    values = np.asarray(filt)
    if values.ndim != 1:
        raise AstjaxError("astjax differentiates jnp.trim_zeros of 1-d arrays only (as JAX's trim_zeros)")
    nonzero = np.flatnonzero(values)
    if nonzero.size == 0:
        return (values.size, 0) if "f" in trim.lower() else (0, values.size)
    front = int(nonzero[0]) if "f" in trim.lower() else 0
    back = values.size - 1 - int(nonzero[-1]) if "b" in trim.lower() else 0
    return front, back


def trim_zeros_kept(filt, trim):
    """The positions trim_zeros(filt, trim) keeps (int64)."""
    front, back = trim_zeros_padding(filt, trim)
    return np.arange(front, max(np.size(filt) - back, front), dtype=np.int64)


COMPOSITES.update({f.__name__: f for f in (insert_values_adjoint, choose_adjoint, insert_sources, insert_arr_positions,
                                           insert_values_positions, insert_values_sources, choose_index,
                                           trim_zeros_padding, trim_zeros_kept)})
for _helper in (insert_sources, insert_arr_positions, insert_values_positions, insert_values_sources,
                choose_index, trim_zeros_padding, trim_zeros_kept):
    nondifferentiable(_helper.__name__, _helper, INTEGER)

_insert = primitive("insert", jnp.insert, operands=("arr", "values"), aliases=(np.insert,))
defvjp(_insert, "barr += jnp.reshape(jnp.take(jnp.ravel(by), insert_arr_positions(arr, obj, values, axis)), "
       "jnp.shape(arr))", "bvalues += insert_values_adjoint(by, arr, obj, values, axis)")
defjvp(_insert, "darr -> jnp.insert(darr, obj, jnp.zeros_like(values, dtype=jnp.result_type(darr)), axis)",
       "dvalues -> jnp.insert(jnp.zeros_like(arr, dtype=jnp.result_type(dvalues)), obj, dvalues, axis)")
_insert.identity = "insert places arr's and values' entries: each adjoint reads by where its entries went"

# choose(a, choices): entry i is choices[a[i]][i]; a is an integer array (no derivative through it).
_choose = primitive("choose", jnp.choose, operands=("choices",), sequence_operand="choices", aliases=(np.choose,))
defvjp(_choose, "bchoices += choose_adjoint(by, a, choices, mode)")
_choose.sequence_vjp = parse_expression(
    "unbroadcast_to(jnp.where(choose_index(a, choices, mode) == k, by, 0.0), jnp.shape(item))")
defjvp(_choose, "dy = jnp.choose(a, dchoices, mode)")

_trim = primitive("trim_zeros", jnp.trim_zeros, operands=("filt",), aliases=(np.trim_zeros,))
defvjp(_trim, "bfilt += jnp.pad(by, trim_zeros_padding(filt, trim))")
defjvp(_trim, "dy = jnp.take(dfilt, trim_zeros_kept(filt, trim))")
_trim.identity = "trim_zeros keeps a slice of filt: the trimmed zeros get no adjoint (as a slice's)"

# ------------------------------------------------------------------ block and broadcast_arrays
def block_positions(arrays, layout, k):
    """The flat positions in block_flat(arrays, layout) that leaf k fills, in its C order (int64)."""
    labels = [np.full(np.shape(a), j, dtype=np.int64) for j, a in enumerate(arrays)]
    return np.flatnonzero(np.ravel(np.block(_more_nested(labels, layout))) == k)


def _more_nested(leaves, layout):
    return [_more_nested(leaves, item) for item in layout] if isinstance(layout, (tuple, list)) else leaves[layout]


def broadcast_list(xs):
    """jnp.broadcast_arrays(*xs): the inputs of a list broadcast to their common shape (broadcast_arrays'
    tangent rule)."""
    return jnp.broadcast_arrays(*xs)


COMPOSITES.update(block_positions=block_positions, block_flat=jnp_shape.block_flat)
nondifferentiable("block_positions", block_positions, INTEGER)

# normalize/array_assembly.py writes a literal `jnp.block([[a, b], [c, d]])` as block_flat([a, b, c, d], layout):
# leaf k's adjoint is the part of by it fills.
_block = primitive("block_flat", jnp_shape.block_flat, operands=("arrays",), sequence_operand="arrays")
_block.sequence_vjp = parse_expression(
    "jnp.reshape(jnp.take(jnp.ravel(by), block_positions(arrays, layout, k)), jnp.shape(item))")
_block.vjp["arrays"] = _block.sequence_vjp       # read element by element (the operand is always a literal list)
defjvp(_block, "dy = block_flat(darrays, layout)")

# broadcast_arrays(*args): result k is args[k] broadcast, so its adjoint is item k of by summed back to its shape.
for _prim, _operand in ((primitive("broadcast_arrays", jnp.broadcast_arrays, operands=("args",), sequence_operand="args",
                                   aliases=(np.broadcast_arrays,)), "args"),
                        (primitive("broadcast_list", broadcast_list, operands=("xs",), sequence_operand="xs"), "xs")):
    defjvp(_prim, f"dy = broadcast_list(d{_operand})")
    _prim.sequence_vjp = parse_expression("unbroadcast_to(item_adjoint(by, k), jnp.shape(item))")
    _prim.vjp[_operand] = _prim.sequence_vjp
COMPOSITES.update(broadcast_list=broadcast_list)
