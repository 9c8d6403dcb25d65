"""lax's slicing: static and dynamic slices, their `_in_dim` forms, updates and `select`.

Each is a primitive with rules (astjax/rules/lax_rules.py). Dynamic start
indices are clamped into range as in JAX; static ones follow NumPy slicing.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd

__all__ = ["dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim", "dynamic_update_slice_in_dim",
           "dynamic_index_in_dim", "slice", "slice_in_dim", "index_in_dim", "select"]

_slice = slice      # `slice` is also the name of a lax function below


def _starts(shape, sizes, start_indices):
    if len(start_indices) != len(shape) or len(sizes) != len(shape):
        raise ValueError(
            f"dynamic_slice: operand has {len(shape)} dimensions but got {len(start_indices)} start "
            f"indices and {len(sizes)} slice sizes; pass one of each per dimension.")
    starts = []
    for s, n, k in zip(start_indices, shape, sizes):
        if k > n:
            raise ValueError(f"dynamic_slice: slice size {k} is larger than the dimension {n}.")
        starts.append(int(min(max(int(s), 0), n - k)))   # JAX clamps starts into range
    return starts


def dynamic_slice(operand, start_indices, slice_sizes):
    """`operand[s0:s0+n0, s1:s1+n1, ...]` with runtime starts, clamped into range as in JAX."""
    operand = nd(operand)
    starts = _starts(operand.shape, slice_sizes, start_indices)
    return wrap(operand[tuple(_slice(s, s + k) for s, k in zip(starts, slice_sizes))])


def dynamic_update_slice(operand, update, start_indices):
    """A copy of `operand` with `update` written at `start_indices` (clamped as in JAX)."""
    operand = np.array(nd(operand))
    update = nd(update)
    starts = _starts(operand.shape, update.shape, start_indices)
    operand[tuple(_slice(s, s + k) for s, k in zip(starts, update.shape))] = update
    return wrap(operand)


def in_dim_starts(ndim, start_index, axis):
    """Start indices that are `start_index` along `axis` and 0 elsewhere."""
    starts = [0] * int(ndim)
    starts[int(axis) % int(ndim)] = start_index
    return tuple(starts)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """`slice_size` elements from `start_index` along `axis` (start clamped as in JAX)."""
    operand = nd(operand)
    sizes = list(operand.shape)
    sizes[axis % operand.ndim] = slice_size
    return dynamic_slice(operand, in_dim_starts(operand.ndim, start_index, axis), sizes)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """`operand` with `update` written from `start_index` along `axis` (0 along the others)."""
    return dynamic_update_slice(operand, update, in_dim_starts(np.ndim(operand), start_index, axis))


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """Element `index` along `axis` (clamped), keeping that axis with size 1 unless keepdims=False."""
    y = dynamic_slice_in_dim(operand, index, 1, axis)
    return y if keepdims else wrap(np.squeeze(nd(y), axis=axis))


def static_index(ndim, start_indices, limit_indices, strides=None):
    """The tuple of Python slices `lax.slice` takes (a rule's index for `index_adjoint`)."""
    if len(start_indices) != ndim or len(limit_indices) != ndim:
        raise ValueError(f"lax.slice: operand has {ndim} dimensions but got {len(start_indices)} start and "
                         f"{len(limit_indices)} limit indices; pass one of each per dimension.")
    strides = (1,) * ndim if strides is None else tuple(strides)
    for s, k in zip(start_indices, limit_indices):
        if int(s) < 0 or int(k) < int(s):
            raise ValueError(f"lax.slice: start {s} and limit {k} must satisfy 0 <= start <= limit.")
    return tuple(_slice(int(s), int(k), int(d)) for s, k, d in zip(start_indices, limit_indices, strides))


def slice(operand, start_indices, limit_indices, strides=None):
    """`operand[s0:l0:d0, s1:l1:d1, ...]` with static starts, limits and strides."""
    operand = nd(operand)
    return wrap(operand[static_index(operand.ndim, start_indices, limit_indices, strides)])


def in_dim_index(ndim, start_index, limit_index, stride, axis, keepdims=True):
    """The index of `slice_in_dim` / `index_in_dim` along `axis` (a slice, or an int when keepdims=False)."""
    index = [_slice(None)] * int(ndim)
    if keepdims:
        index[int(axis) % int(ndim)] = _slice(start_index, limit_index, stride)
    else:
        index[int(axis) % int(ndim)] = int(start_index)
    return tuple(index)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """`operand[start_index:limit_index:stride]` along `axis` (None and negative indices as in JAX)."""
    operand = nd(operand)
    return wrap(operand[in_dim_index(operand.ndim, start_index, limit_index, stride, axis)])


def _index_in_range(index, n):
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"index_in_dim: index {index} is out of bounds for a dimension of size {n}")
    return index % n


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Element `index` along `axis` (a static index; size-1 axis kept unless keepdims=False)."""
    operand = nd(operand)
    return wrap(operand[index_in_dim_index(operand.shape, index, axis, keepdims)])


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (pred boolean, a scalar or shaped like the others)."""
    pred = nd(pred)
    if pred.dtype != np.bool_:
        raise TypeError(f"lax.select: pred must be boolean, got {pred.dtype}")
    return wrap(np.where(pred, nd(on_true), nd(on_false)))


def index_in_dim_index(shape, index, axis, keepdims):
    """The index `index_in_dim` reads: a slice of length 1 along `axis` (or the int when keepdims=False)."""
    n = len(shape)
    i = _index_in_range(index, shape[int(axis) % n])
    if keepdims:
        return in_dim_index(n, i, i + 1, 1, axis)
    return in_dim_index(n, i, None, None, axis, keepdims=False)


def kept_dim_shape(shape, axis):
    """`shape` with `axis` of size 1 (a dynamic_index_in_dim result with keepdims=True)."""
    shape = list(shape)
    shape[int(axis) % len(shape)] = 1
    return tuple(shape)


def leading_axis_array(xs):
    """`xs` itself, checked to be one array: what normalization's loops for lax.scan and lax.map index by
    position (xs[i]); a tuple, list or dict of arrays would be indexed item by item, which is not JAX's meaning."""
    if isinstance(xs, (tuple, list, dict)) or not hasattr(xs, "shape"):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            "under a transformation, lax.scan and lax.map take one array as xs; for several, scan over "
            "jnp.arange(n) and index each array inside the body (a pytree of xs is not supported yet)")
    return xs
