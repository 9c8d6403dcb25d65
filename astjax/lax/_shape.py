"""lax's shape operations: broadcast_in_dim, reshape, squeeze, expand_dims, transpose, rev, pad, concatenate.

Each is a primitive with rules (astjax/rules/lax_rules.py) and lax's argument
names: `dimensions` where NumPy says `axis`, `permutation` where it says `axes`.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd, promote_all

__all__ = ["broadcast_in_dim", "reshape", "squeeze", "expand_dims", "transpose", "rev", "pad",
           "concatenate"]


def in_dim_shape(operand_shape, shape, broadcast_dimensions):
    """The operand's shape with 1s inserted at the dimensions of `shape` it is not broadcast along."""
    if len(broadcast_dimensions) != len(operand_shape):
        raise ValueError(f"broadcast_in_dim: {len(operand_shape)} operand dimensions but "
                         f"{len(broadcast_dimensions)} broadcast_dimensions")
    expanded = [1] * len(shape)
    for d, n in zip(broadcast_dimensions, operand_shape):
        if n not in (1, shape[d]):
            raise ValueError(f"broadcast_in_dim: operand dimension of size {n} cannot go to size {shape[d]}")
        expanded[d] = n
    return tuple(expanded)


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """`operand` broadcast to `shape`, its dimension i going to dimension broadcast_dimensions[i]."""
    operand = nd(operand)
    shape = tuple(int(n) for n in shape)
    expanded = operand.reshape(in_dim_shape(operand.shape, shape, tuple(broadcast_dimensions)))
    return wrap(np.array(np.broadcast_to(expanded, shape)))


def broadcast_in_dim_adjoint(g, operand_shape, broadcast_dimensions):
    """Transpose of broadcast_in_dim: `g` summed over the broadcast dimensions, shaped like the operand."""
    g = nd(g)
    expanded = in_dim_shape(tuple(operand_shape), g.shape, tuple(broadcast_dimensions))
    axes = tuple(i for i, (n, m) in enumerate(zip(expanded, g.shape)) if n == 1 and m != 1)
    return wrap(g.sum(axis=axes, keepdims=True).reshape(tuple(operand_shape)))


def reshape(operand, new_sizes, dimensions=None):
    """`operand` (transposed by `dimensions` first, if given) in row-major order with shape new_sizes."""
    operand = nd(operand)
    if dimensions is not None:
        operand = np.transpose(operand, tuple(dimensions))
    return wrap(np.reshape(operand, tuple(new_sizes)))


def reshape_adjoint(g, operand_shape, dimensions=None):
    """Transpose of lax.reshape: back to the (transposed) operand's shape, then the transposition undone."""
    g = nd(g)
    if dimensions is None:
        return wrap(g.reshape(tuple(operand_shape)))
    dims = tuple(int(d) for d in dimensions)
    transposed = tuple(operand_shape[d] for d in dims)
    return wrap(np.transpose(g.reshape(transposed), tuple(np.argsort(dims))))


def squeeze(array, dimensions):
    """`array` without the size-1 `dimensions`."""
    return wrap(np.squeeze(nd(array), axis=tuple(dimensions)))


def expand_dims(array, dimensions):
    """`array` with size-1 dimensions inserted at `dimensions` (positions in the result)."""
    return wrap(np.expand_dims(nd(array), tuple(dimensions)))


def transpose(operand, permutation):
    """`operand` with its dimensions permuted."""
    return wrap(np.transpose(nd(operand), tuple(permutation)))


def rev(operand, dimensions):
    """`operand` reversed along each of `dimensions`."""
    operand = nd(operand)
    return wrap(np.flip(operand, tuple(dimensions)) if len(dimensions) else operand.copy())


def _pad_positions(n, low, interior):
    """Where element i of a dimension of size n lands in the padded dimension (before cropping)."""
    return int(low) + np.arange(n) * (int(interior) + 1)


def _padded_size(n, low, high, interior):
    return int(low) + int(high) + n + max(n - 1, 0) * int(interior)


def pad(operand, padding_value, padding_config):
    """`operand` padded per dimension by (low, high, interior) elements of `padding_value`.

    Negative low/high crop, as in lax.pad.
    """
    operand = nd(operand)
    config = [tuple(int(v) for v in c) for c in padding_config]
    if len(config) != operand.ndim:
        raise ValueError(f"lax.pad: {operand.ndim} dimensions but {len(config)} (low, high, interior) triples")
    if any(c[2] < 0 for c in config):
        raise ValueError("lax.pad: interior padding must be nonnegative")
    shape = tuple(_padded_size(n, *c) for n, c in zip(operand.shape, config))
    if any(n < 0 for n in shape):
        raise ValueError(f"lax.pad: the padded shape {shape} has a negative dimension")
    value = np.asarray(nd(padding_value), dtype=operand.dtype)
    if value.ndim:
        raise TypeError("lax.pad: padding_value must be a scalar")
    result = np.full(shape, value, dtype=operand.dtype)
    src, dst = [], []
    for n, (low, high, interior), m in zip(operand.shape, config, shape):
        where = _pad_positions(n, low, interior)
        keep = (where >= 0) & (where < m)
        src.append(np.nonzero(keep)[0])
        dst.append(where[keep])
    result[np.ix_(*dst)] = operand[np.ix_(*src)]
    return wrap(result)


def pad_operand_adjoint(g, operand_shape, padding_config):
    """Transpose of `pad(x, 0, padding_config)` in x: the elements of `g` where x's elements landed."""
    g = nd(g)
    out = np.zeros(tuple(operand_shape), dtype=g.dtype)
    src, dst = [], []
    for n, c, m in zip(operand_shape, padding_config, g.shape):
        where = _pad_positions(n, c[0], c[2])
        keep = (where >= 0) & (where < m)
        src.append(np.nonzero(keep)[0])
        dst.append(where[keep])
    out[np.ix_(*src)] = g[np.ix_(*dst)]
    return wrap(out)


def concatenate(operands, dimension):
    """The arrays of `operands` joined along `dimension` (JAX's promotion)."""
    return wrap(np.concatenate(promote_all([nd(a) for a in operands]), axis=dimension))
