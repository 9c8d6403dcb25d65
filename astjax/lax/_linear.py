"""lax's contractions, windows, scans and sorts: dot_general, conv_general_dilated, conv, reduce_window,
cumsum/cumprod/cummax/cummin, sort, top_k.

Each is a primitive with rules (astjax/rules/lax_rules.py), computed here with
NumPy. A convolution is a cross-correlation (no kernel flip) as in lax: its
input windows are gathered by `window_patches` and contracted with the kernel.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd, out, promote
from ._windows import window_geometry, window_patches

__all__ = ["dot_general", "conv_general_dilated", "conv", "reduce_window", "cumsum", "cumprod", "cummax",
           "cummin", "sort", "top_k"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def dot_general_subscripts(lhs_ndim, rhs_ndim, dimension_numbers):
    """The einsum subscripts of dot_general: batch dims, then lhs free dims, then rhs free dims."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_contract, rhs_contract = [int(d) for d in lhs_contract], [int(d) for d in rhs_contract]
    lhs_batch, rhs_batch = [int(d) for d in lhs_batch], [int(d) for d in rhs_batch]
    if len(lhs_contract) != len(rhs_contract) or len(lhs_batch) != len(rhs_batch):
        raise ValueError("dot_general: lhs and rhs need as many contracting (and batch) dimensions each")
    letters = iter(_LETTERS)
    lhs = [None] * int(lhs_ndim)
    rhs = [None] * int(rhs_ndim)
    batch = []
    for a, b in zip(lhs_batch, rhs_batch):
        lhs[a] = rhs[b] = next(letters)
        batch.append(lhs[a])
    for a, b in zip(lhs_contract, rhs_contract):
        lhs[a] = rhs[b] = next(letters)
    lhs_free = []
    for i in range(int(lhs_ndim)):
        if lhs[i] is None:
            lhs[i] = next(letters)
            lhs_free.append(lhs[i])
    rhs_free = []
    for i in range(int(rhs_ndim)):
        if rhs[i] is None:
            rhs[i] = next(letters)
            rhs_free.append(rhs[i])
    return "".join(lhs), "".join(rhs), "".join(batch + lhs_free + rhs_free)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """The general contraction: dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))."""
    lhs, rhs = promote(nd(lhs), nd(rhs))
    a, b, c = dot_general_subscripts(np.ndim(lhs), np.ndim(rhs), dimension_numbers)
    result = np.einsum(f"{a},{b}->{c}", lhs, rhs)
    if preferred_element_type is not None:
        result = result.astype(preferred_element_type)
    return out(result)


def conv_layout(ndim, dimension_numbers):
    """(lhs, rhs, out) permutations to and from lax's canonical layout (N, C, spatial...), (O, I, spatial...).

    dimension_numbers: None (NCHW, OIHW, NCHW), or three strings such as ("NHWC", "HWIO", "NHWC"), or
    three tuples of dimension indices (lhs_spec, rhs_spec, out_spec) as ConvDimensionNumbers holds them.
    The returned perms take an array in the user's layout to the canonical one (out's takes canonical back).
    """
    d = ndim - 2
    if dimension_numbers is None:
        ident = tuple(range(ndim))
        return ident, ident, ident
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if isinstance(lhs_spec, str):
        def perm(spec, first, second):
            if len(spec) != ndim or spec.count(first) != 1 or spec.count(second) != 1:
                raise ValueError(f"conv dimension numbers {spec!r}: need {ndim} letters with one {first} and one {second}")
            spatial = [i for i, ch in enumerate(spec) if ch not in (first, second)]
            return (spec.index(first), spec.index(second)) + tuple(spatial)
        lhs_perm = perm(lhs_spec, "N", "C")
        rhs_perm = perm(rhs_spec, "O", "I")
        out_canon = perm(out_spec, "N", "C")
        # spatial dims are matched in the order their letters appear in the lhs spec
        letters = [lhs_spec[i] for i in lhs_perm[2:]]
        if sorted(letters) != sorted(rhs_spec[i] for i in rhs_perm[2:]) or \
                sorted(letters) != sorted(out_spec[i] for i in out_canon[2:]):
            raise ValueError(f"conv dimension numbers {dimension_numbers!r}: spatial letters differ")
        rhs_perm = rhs_perm[:2] + tuple(rhs_spec.index(ch) for ch in letters)
        out_canon = out_canon[:2] + tuple(out_spec.index(ch) for ch in letters)
    else:
        lhs_perm, rhs_perm, out_canon = (tuple(int(i) for i in s) for s in (lhs_spec, rhs_spec, out_spec))
    if any(len(p) != ndim or sorted(p) != list(range(ndim)) for p in (lhs_perm, rhs_perm, out_canon)):
        raise ValueError(f"conv dimension numbers {dimension_numbers!r} do not describe {d}-d convolutions")
    return lhs_perm, rhs_perm, tuple(int(i) for i in np.argsort(out_canon))


def _check_groups(feature_group_count, batch_group_count):
    if int(feature_group_count) != 1 or int(batch_group_count) != 1:
        raise NotImplementedError("astjax's conv_general_dilated supports feature_group_count=1 and "
                                  "batch_group_count=1 only; split the channels and concatenate the results")


def conv_canonical(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None):
    """The convolution of lhs (N, C, spatial) with rhs (O, C, spatial) into (N, O, out spatial)."""
    lhs, rhs = nd(lhs), nd(rhs)
    window = rhs.shape[2:]
    if lhs.ndim != rhs.ndim or lhs.shape[1] != rhs.shape[1]:
        raise ValueError(f"conv: lhs of shape {lhs.shape} (N, C, ...) and rhs of shape {rhs.shape} (O, I, ...) "
                         "need the same rank and as many input features")
    patches = nd(window_patches(lhs, window, window_strides, padding, lhs_dilation, rhs_dilation))
    _, out_spatial, _ = window_geometry(lhs.shape[2:], window, window_strides, padding, lhs_dilation, rhs_dilation)
    kernel = rhs.reshape(rhs.shape[0], rhs.shape[1], -1)
    y = np.einsum("ncpk,ock->nop", patches, kernel)
    return y.reshape((lhs.shape[0], rhs.shape[0]) + tuple(out_spatial))


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
                         preferred_element_type=None):
    """lax's general convolution (a cross-correlation), with strides, padding and both dilations.

    padding: 'VALID', 'SAME', 'SAME_LOWER' or a (low, high) pair per spatial dimension.
    dimension_numbers: None for NCHW / OIHW / NCHW, or three layout strings.
    """
    _check_groups(feature_group_count, batch_group_count)
    lhs, rhs = promote(nd(lhs), nd(rhs))
    lhs_perm, rhs_perm, out_perm = conv_layout(lhs.ndim, dimension_numbers)
    d = lhs.ndim - 2
    strides = (1,) * d if window_strides is None else tuple(window_strides)
    y = conv_canonical(np.transpose(lhs, lhs_perm), np.transpose(rhs, rhs_perm), strides, padding,
                       lhs_dilation, rhs_dilation)
    y = np.transpose(y, out_perm)
    if preferred_element_type is not None:
        y = y.astype(preferred_element_type)
    return out(y)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated without dilations, NCHW / OIHW layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def reduction_kind(computation):
    """0 for a sum (lax.add), 1 for a maximum (lax.max), 2 for a minimum (lax.min)."""
    from .. import numpy as jnp
    kinds = {jnp.add: 0, np.add: 0, jnp.maximum: 1, np.maximum: 1, jnp.minimum: 2, np.minimum: 2}
    try:
        return kinds[computation]
    except (KeyError, TypeError):
        raise NotImplementedError(f"reduce_window computes with lax.add, lax.max or lax.min; got {computation!r}") \
            from None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
                  base_dilation=None, window_dilation=None):
    """Reduce each window of `operand` with `computation` (lax.add, lax.max or lax.min) from `init_value`.

    Padding positions hold init_value, as in lax.
    """
    kind = reduction_kind(computation)
    operand = nd(operand)
    init = np.asarray(nd(init_value), dtype=operand.dtype)
    patches = nd(window_patches(operand, tuple(window_dimensions), window_strides, padding, base_dilation,
                                window_dilation, fill=init))
    _, out_shape, _ = window_geometry(operand.shape, tuple(window_dimensions), window_strides, padding,
                                      base_dilation, window_dilation)
    if kind == 0:
        y = init + patches.sum(axis=-1)
    elif kind == 1:
        y = np.maximum(init, patches.max(axis=-1, initial=-np.inf))
    else:
        y = np.minimum(init, patches.min(axis=-1, initial=np.inf))
    return wrap(np.asarray(y, dtype=operand.dtype).reshape(out_shape))


def _accumulate(ufunc, operand, axis, reverse):
    operand = nd(operand)
    if reverse:
        return wrap(np.flip(ufunc.accumulate(np.flip(operand, axis), axis=axis), axis))
    return wrap(ufunc.accumulate(operand, axis=axis))


def cumsum(operand, axis=0, reverse=False):
    """Running sums along `axis` (from the end when reverse=True)."""
    return _accumulate(np.add, operand, axis, reverse)


def cumprod(operand, axis=0, reverse=False):
    """Running products along `axis` (from the end when reverse=True)."""
    return _accumulate(np.multiply, operand, axis, reverse)


def cummax(operand, axis=0, reverse=False):
    """Running maxima along `axis` (from the end when reverse=True)."""
    return _accumulate(np.maximum, operand, axis, reverse)


def cummin(operand, axis=0, reverse=False):
    """Running minima along `axis` (from the end when reverse=True)."""
    return _accumulate(np.minimum, operand, axis, reverse)


def cumulative_argext(operand, axis, reverse, largest):
    """Indices along `axis` of the element each running max (largest) or min holds.

    The derivative flows to that element. Where a later element equals the running extremum (a tie), the
    derivative has no one answer (JAX splits it by the shape of its parallel scan's tree): refused.
    """
    x = np.moveaxis(nd(operand), axis, -1)
    if reverse:
        x = np.flip(x, -1)
    n = x.shape[-1]
    idx = np.zeros(x.shape, dtype=np.int64)
    best = x[..., 0].copy()
    current = np.zeros(x.shape[:-1], dtype=np.int64)
    for i in range(1, n):
        if np.any(x[..., i] == best):
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal(
                f"astjax: the derivative of a running {'maximum' if largest else 'minimum'} (cummax/cummin, "
                f"np.{'maximum' if largest else 'minimum'}.accumulate) where an element equals the running "
                "extremum (a tie) is not defined and is refused; move the point off the tie, or write the "
                "recurrence as a loop of jnp.maximum / jnp.minimum (which shares a tie's derivative equally)")
        better = x[..., i] > best if largest else x[..., i] < best
        best = np.where(better, x[..., i], best)
        current = np.where(better, i, current)
        idx[..., i] = current
    if reverse:
        idx = np.flip(n - 1 - idx, -1)
    return wrap(np.moveaxis(idx, -1, axis))


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """`operand` sorted along `dimension` (stably); or, for a tuple of arrays of one shape, every array taken
    along the stable order that sorts by the first `num_keys` of them (lexicographically, NaNs last)."""
    if isinstance(operand, (tuple, list)):
        from ._reduce_sort import lexsort_order
        if not 1 <= int(num_keys) <= len(operand):
            raise ValueError(f"lax.sort: num_keys={num_keys} for {len(operand)} operands")
        order = nd(lexsort_order(operand[:int(num_keys)], dimension))
        return tuple(wrap(np.take_along_axis(nd(item), order, axis=dimension)) for item in operand)
    if int(num_keys) != 1:
        raise ValueError("lax.sort: num_keys must be 1 for one operand")
    return wrap(np.sort(nd(operand), axis=dimension, kind="stable"))


def top_k_indices(operand, k):
    """The indices of the k largest elements along the last axis, largest first (earliest among ties)."""
    x = nd(operand)
    order = np.argsort(-x, axis=-1, kind="stable") if x.dtype.kind != "u" else np.flip(
        np.argsort(x, axis=-1, kind="stable"), -1)
    return wrap(order[..., :int(k)].astype(np.int32))


def top_k(operand, k):
    """(values, indices) of the k largest elements along the last axis, largest first."""
    indices = top_k_indices(operand, k)
    return wrap(np.take_along_axis(nd(operand), nd(indices), axis=-1)), indices


def gather_along(t, indices, axis):
    """`t` taken at `indices` along `axis` (take_along_axis): linear in t."""
    return wrap(np.take_along_axis(nd(t), nd(indices).astype(np.int64), axis=axis))


def scatter_along(g, indices, axis, shape):
    """Transpose of gather_along: `g` added into zeros of `shape` at `indices` along `axis`."""
    g = nd(g)
    indices = nd(indices).astype(np.int64)
    result = np.zeros(tuple(shape), dtype=g.dtype)
    axis = int(axis) % len(shape)
    grids = list(np.indices(indices.shape, sparse=True))
    grids[axis] = indices
    np.add.at(result, tuple(grids), g)
    return wrap(result)


def _ranges_like(*lengths):
    start = 0
    for n in lengths:
        yield list(range(start, start + n))
        start += n


def dot_general_transpose(lhs_ndim, rhs_ndim, dimension_numbers, which):
    """(dimension numbers, permutation) so that operand `which`'s adjoint (0: lhs, 1: rhs) is
    `transpose(dot_general(g, other, dimension numbers), permutation)`, as JAX transposes dot_general."""
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = ([int(d) for d in v] for v in (lc, rc, lb, rb))
    x_ndim, y_ndim = int(lhs_ndim), int(rhs_ndim)
    swap = int(which) == 1
    if swap:
        lc, rc, lb, rb = rc, lc, rb, lb
        x_ndim, y_ndim = y_ndim, x_ndim
    x_kept = [i for i in range(x_ndim) if i not in lc and i not in lb]
    y_kept = [i for i in range(y_ndim) if i not in rc and i not in rb]
    if swap:
        ans_batch, ans_y, _ = _ranges_like(len(lb), len(y_kept), len(x_kept))
    else:
        ans_batch, _, ans_y = _ranges_like(len(lb), len(x_kept), len(y_kept))
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(rb)))
    x_contract_sorted_by_y = [lc[i] for i in np.argsort(rc)]
    axes = tuple(int(i) for i in np.argsort(lb + x_kept + x_contract_sorted_by_y))
    return dims, axes


def window_hits(operand, y, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
                base_dilation=None, window_dilation=None):
    """Which window elements each output of reduce_window depends on, shaped (outputs, window size), as 0/1:
    every element for a sum, those that attain it for a max or a min (padding never)."""
    kind = reduction_kind(computation)
    operand = nd(operand)
    index, _, size = window_geometry(operand.shape, tuple(window_dimensions), window_strides, padding,
                                     base_dilation, window_dilation)
    inside = index < size
    if kind == 0:
        return wrap(inside.astype(np.int32))
    fill = np.asarray(nd(init_value), dtype=operand.dtype)
    patches = nd(window_patches(operand, tuple(window_dimensions), window_strides, padding, base_dilation,
                                window_dilation, fill=fill))
    return wrap(((patches == nd(y).reshape(-1, 1)) & inside).astype(np.int32))


def window_ties(operand, y, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
                base_dilation=None, window_dilation=None):
    """How many elements share each output's derivative, shaped (outputs, 1): 1 for a sum; for a max or
    a min the number of window elements that attain it (at least 1)."""
    hits = nd(window_hits(operand, y, init_value, computation, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation))
    if reduction_kind(computation) == 0:
        return wrap(np.ones((hits.shape[0], 1), dtype=np.int32))
    return wrap(np.maximum(hits.sum(axis=-1, keepdims=True), 1).astype(np.int32))
