"""lax functions written in Python from astjax.numpy's primitives (exported by astjax.lax).

They are not in classify._LIBRARIES: the transformations differentiate and
batch them like the user's own code, so each needs no rules of its own. Their
signatures are JAX's (`reduce_sum(operand, axes)`, `iota(dtype, size)`).
"""
from . import numpy as jnp

__all__ = ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or", "argmax", "argmin",
           "dot", "batch_matmul", "full", "full_like", "iota", "broadcasted_iota", "convert_element_type",
           "broadcast", "collapse", "split", "tile", "cumlogsumexp", "sort_key_val"]


def reduce_sum(operand, axes):
    """The sum over `axes` (a sequence of dimensions)."""
    return jnp.sum(operand, axis=tuple(axes))


def reduce_max(operand, axes):
    """The maximum over `axes` (ties share the derivative, as jnp.max)."""
    return jnp.max(operand, axis=tuple(axes))


def reduce_min(operand, axes):
    """The minimum over `axes`."""
    return jnp.min(operand, axis=tuple(axes))


def reduce_prod(operand, axes):
    """The product over `axes`."""
    return jnp.prod(operand, axis=tuple(axes))


def reduce_and(operand, axes):
    """Logical and over `axes` (booleans)."""
    return jnp.all(operand, axis=tuple(axes))


def reduce_or(operand, axes):
    """Logical or over `axes` (booleans)."""
    return jnp.any(operand, axis=tuple(axes))


def argmax(operand, axis, index_dtype):
    """The index of the largest element along `axis`, as `index_dtype`."""
    return jnp.argmax(operand, axis=axis).astype(index_dtype)


def argmin(operand, axis, index_dtype):
    """The index of the smallest element along `axis`, as `index_dtype`."""
    return jnp.argmin(operand, axis=axis).astype(index_dtype)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector and matrix products (lax.dot: operands of rank 1 or 2)."""
    product = jnp.dot(lhs, rhs)
    if preferred_element_type is not None:
        return product.astype(preferred_element_type)
    return product


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products batched over the leading dimensions."""
    return jnp.matmul(lhs, rhs)


def full(shape, fill_value, dtype=None, sharding=None):
    """An array of `shape` filled with `fill_value`."""
    return jnp.full(shape, fill_value, dtype=dtype)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array shaped like `x` (or `shape`) filled with `fill_value`."""
    return jnp.full_like(x, fill_value, dtype=dtype, shape=shape)


def iota(dtype, size, sharding=None):
    """0, 1, ..., size - 1 as `dtype`."""
    return jnp.arange(size, dtype=dtype)


def broadcasted_iota(dtype, shape, dimension, sharding=None):
    """An array of `shape` whose element is its index along `dimension`."""
    ranks = [1] * len(shape)
    ranks[dimension] = shape[dimension]
    return jnp.broadcast_to(jnp.arange(shape[dimension], dtype=dtype).reshape(tuple(ranks)), tuple(shape))


def convert_element_type(operand, new_dtype):
    """`operand` as `new_dtype` (to an integer type its derivative is zero)."""
    return jnp.asarray(operand).astype(new_dtype)


def broadcast(operand, sizes, sharding=None):
    """`operand` with leading dimensions `sizes` added."""
    return jnp.broadcast_to(operand, tuple(sizes) + jnp.shape(operand))


def collapse(operand, start_dimension, stop_dimension=None):
    """Dimensions start_dimension up to stop_dimension merged into one."""
    shape = jnp.shape(operand)
    stop = len(shape) if stop_dimension is None else stop_dimension
    merged = 1
    for size in shape[start_dimension:stop]:
        merged = merged * size
    return jnp.reshape(operand, shape[:start_dimension] + (merged,) + shape[stop:])


def split(operand, sizes, axis=0):
    """Consecutive pieces of `operand` along `axis` with the given sizes."""
    ends = []
    end = 0
    for size in sizes[:-1]:
        end = end + size
        ends.append(end)
    return jnp.split(operand, ends, axis=axis)


def tile(operand, reps):
    """`operand` repeated `reps` times along each dimension."""
    return jnp.tile(operand, reps)


def cumlogsumexp(operand, axis=0, reverse=False):
    """log(cumsum(exp(operand))) along `axis`, shifted by the maximum for stability."""
    if reverse:
        return jnp.flip(cumlogsumexp(jnp.flip(operand, axis), axis), axis)
    top = jnp.max(operand, axis=axis, keepdims=True)
    return jnp.log(jnp.cumsum(jnp.exp(operand - top), axis=axis)) + top


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """`keys` sorted along `dimension`, and `values` moved with them."""
    order = jnp.argsort(keys, axis=dimension, stable=True)
    return jnp.take_along_axis(keys, order, axis=dimension), jnp.take_along_axis(values, order, axis=dimension)
