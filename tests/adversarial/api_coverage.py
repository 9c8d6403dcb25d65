"""The API-coverage additions attacked: block with one name in several leaves, mixed ranks and nesting;
broadcast_arrays of a starred list; choose reading one array twice; insert of an array into itself;
fromfunction lambdas whose parameters shadow the caller's names; the array-API linalg names at
their odd orders (0, -inf, -2); nextafter towards itself; attention with fully masked rows;
sparse_sigmoid at its kinks. Every expected value comes from running the function and from
central finite differences."""
import numpy as np

import astjax.nn as nn
import astjax.numpy as jnp

from .case import case, mat, pos, vec


# ------------------------------------------------------------------ block
def block_same_leaf_four_times(x):
    m = jnp.block([[x, x], [x, x * 2.0]])
    return jnp.sum(m * m * jnp.arange(16.0).reshape(4, 4))


case(block_same_leaf_four_times, lambda r: (mat(r, 2),), "works")


def block_mixed_ranks(x):
    # depth 1: a vector, a scalar and a 0-d expression side by side
    v = jnp.block([x, 1.5, x[0] * x[1], jnp.sin(x)])
    return jnp.sum(v ** 3)


case(block_mixed_ranks, lambda r: (vec(r, 3),), "works")


def block_deeper_leaves(x):
    # depth 2 with 3-d leaves: np.block promotes to 3 axes and joins the last two
    t = jnp.reshape(x, (2, 2, 3))
    m = np.block([[t, t[:, :, :1]], [t * t, t[:, :, 1:2] * 3.0]])
    return jnp.sum(jnp.cos(m) * m)


case(block_deeper_leaves, lambda r: (vec(r, 12),), "works")


def block_of_blocks(x):
    inner = jnp.block([[x, x.T]])
    return jnp.sum(jnp.block([[inner], [inner * inner]]) ** 2)


case(block_of_blocks, lambda r: (mat(r, 2),), "works")


def block_ragged_depth(x):
    # uneven nesting: np.block raises ValueError (left to run as block; refused or the error)
    return jnp.sum(jnp.block([[x], x]))


case(block_ragged_depth, lambda r: (vec(r, 2),), "refuse", errors=(ValueError,), error_match="depth")


# ------------------------------------------------------------------ broadcast_arrays, choose, insert
def broadcast_three_one_unused(x):
    a, b, c = jnp.broadcast_arrays(x[:, None], x[None, :2], 3.0)
    return jnp.sum(a * b) + jnp.sum(c * 0.0)


case(broadcast_three_one_unused, lambda r: (vec(r, 3),), "works")


def broadcast_starred_list(x):
    parts = [x[:, None], x[None, :]]
    a, b = jnp.broadcast_arrays(*parts)
    return jnp.sum(jnp.sin(a) * b)


case(broadcast_starred_list, lambda r: (vec(r, 3),), "either")


def choose_same_array_twice(x):
    picked = jnp.choose(np.array([[0, 1], [1, 1]]), [x, x])
    return jnp.sum(picked ** 3)


case(choose_same_array_twice, lambda r: (mat(r, 2),), "works")


def choose_by_argmax(x):
    index = jnp.argmax(x, axis=0)           # integer, from the differentiated input
    return jnp.sum(jnp.choose(index, [x[0] * 2.0, x[1] ** 2, x[2]]))


case(choose_by_argmax, lambda r: (mat(r, 3),), "works")


def insert_into_itself(x):
    y = jnp.insert(x, [0, 2, 2], x[1:] * 3.0)    # a repeated position: in order
    return jnp.sum(y ** 2 * jnp.arange(1.0, 8.0))


case(insert_into_itself, lambda r: (vec(r, 4),), "works")


def insert_row_broadcast(x):
    y = jnp.insert(x, 1, x[0, 0], axis=1)        # one scalar broadcast down a column
    return jnp.sum(jnp.exp(y) * y)


case(insert_row_broadcast, lambda r: (mat(r, 3),), "works")


def trim_then_use(x):
    padded = jnp.concatenate([jnp.zeros(2), x * x + 1.0, jnp.zeros(1)])
    kept = jnp.trim_zeros(padded, "f")
    return jnp.sum(kept * jnp.arange(1.0, 5.0))


case(trim_then_use, lambda r: (vec(r, 3),), "works")


# ------------------------------------------------------------------ fromfunction
def fromfunction_shadows(x):
    i = x * 2.0                                  # the lambda's own i is the row grid, not this one
    g = jnp.fromfunction(lambda i, j: i * x + j * i, (2, 3), dtype=jnp.float64)
    return jnp.sum(g ** 2) + i


case(fromfunction_shadows, lambda r: (np.float64(r.uniform(0.3, 1.2)),), "works")


def fromfunction_shape_variable(x):
    shape = (3, 2)
    return jnp.sum(np.fromfunction(lambda a, b: jnp.sin(a * x) * b, shape))


case(fromfunction_shape_variable, lambda r: (np.float64(r.uniform(0.3, 1.2)),), "works")


# ------------------------------------------------------------------ linalg's array-API names at odd orders
def vector_norm_odd_orders(x):
    return (jnp.linalg.vector_norm(x, ord=0) * 0.0 + jnp.sum(jnp.linalg.vector_norm(x, axis=-1, ord=-np.inf))
            + jnp.sum(jnp.linalg.vector_norm(x, axis=(-1, 0), ord=-1)) + jnp.linalg.vector_norm(x, ord=np.inf))


case(vector_norm_odd_orders, lambda r: (pos(r, 6).reshape(2, 3) * np.array([1.0, -1.0, 1.0]),), "works")


def matrix_norm_smallest(x):
    return jnp.linalg.matrix_norm(x, ord=-2) + jnp.linalg.matrix_norm(x, ord=1) + jnp.linalg.matrix_norm(x, ord="nuc")


case(matrix_norm_smallest, lambda r: (mat(r, 3) + np.diag([2.0, 1.0, 0.3]),), "works")


def last_axes_not_first(x):
    t = jnp.reshape(x, (3, 2, 2))                # jnp.trace would read axes 0 and 1
    return jnp.sum(jnp.linalg.trace(t) ** 2) + jnp.sum(jnp.linalg.diagonal(t, offset=-1) * 5.0)


case(last_axes_not_first, lambda r: (vec(r, 12),), "works")


def linalg_cross_axis0(x):
    return jnp.sum(jnp.linalg.cross(x, x * x + 1.0, axis=0))


case(linalg_cross_axis0, lambda r: (mat(r, 3, 2),), "either")


# ------------------------------------------------------------------ elementwise and jax.nn
def nextafter_towards_itself(x):
    return jnp.sum(jnp.nextafter(x, x) * x + jnp.nextafter(x, jnp.inf))


case(nextafter_towards_itself, lambda r: (vec(r, 4),), "works")


def sparse_sigmoid_kinks(x):
    return jnp.sum(nn.sparse_sigmoid(x) * jnp.arange(1.0, 5.0))


case(sparse_sigmoid_kinks, lambda r: (np.array([-2.0, -0.5, 0.25, 1.5]),), "works")


def attention_fully_masked_row(q):
    k = jnp.reshape(jnp.arange(12.0), (1, 3, 1, 4)) * 0.1
    mask = np.array([True, False, True, False, False, False]).reshape(1, 1, 2, 3)   # row 2 fully masked
    out = nn.dot_product_attention(q, k, k * 2.0, None, mask)
    return jnp.sum(out * out)


case(attention_fully_masked_row, lambda r: (vec(r, 8).reshape(1, 2, 1, 4),), "works")


# ------------------------------------------------------------------ dtype= an integer type: a piecewise constant result
def sum_to_int_times_x(x):
    # was a silent wrong number: sum's rule ignored dtype=int32 (gave 7.2 where the slope is 3)
    return jnp.sum(jnp.sum(x, dtype=jnp.int32) * x)


case(sum_to_int_times_x, lambda r: (pos(r, 4, 0.6, 1.4),), "works")


def trace_to_int_times_x(x):
    return jnp.sum(jnp.trace(x, dtype=jnp.int32) * x) + jnp.sum(jnp.linalg.trace(x, dtype=int) * x * x)


case(trace_to_int_times_x, lambda r: (mat(r, 2) * 0.3 + np.diag([1.6, 2.3]),), "works")


def cumsum_and_linspace_to_int(x):
    c = jnp.cumsum(x, axis=0, dtype=jnp.int32)
    grid = jnp.linspace(x[0], x[1] * 4.0, 3, dtype=int)
    return jnp.sum(c * x) + jnp.sum(grid * 1.5) + jnp.sum(jnp.mean(x, dtype=jnp.float64) * x)


case(cumsum_and_linspace_to_int, lambda r: (pos(r, 2, 1.2, 1.8),), "works")


def products_to_int(x):
    # preferred_element_type=int32: astjax casts the operands first (documented); the slope is the integer product
    return jnp.sum(jnp.dot(x, x, preferred_element_type=jnp.int32) * x) + \
        jnp.sum(jnp.vecdot(x, x, preferred_element_type=jnp.int32) * x)


case(products_to_int, lambda r: (mat(r, 2) * 0.2 + np.diag([1.6, 2.3]),), "works")
