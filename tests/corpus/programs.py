"""Straight-line programs: arithmetic, overwrites, reductions, broadcasting, linear algebra,
indexing, jnp.where / maximum, and functions written against plain NumPy.

Control flow lives in `control.py`, array updates in loops in `updates.py`,
calls / recursion / closures in `calls.py`.
"""
import numpy as np

import astjax.numpy as jnp

from .registry import entry, mat, scalar, spd, vec


# ----------------------------------------------------------------- arithmetic
@entry(args=lambda r: (scalar(r, 0.2, 1.5),), tags={"arithmetic", "power"})
def cubic_polynomial(x):
    return x ** 3 - 2.0 * x ** 2 + 3.0 * x - 1.0


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "division"})
def rational_function(x):
    return (x + 1.0) / (x * x + 2.0)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "trig"})
def trig_mix(x):
    return jnp.sin(x) * jnp.cos(x) + jnp.tan(x / 4.0)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "exp_log"})
def exp_times_log(x):
    return jnp.exp(x) * jnp.log(1.0 + x * x)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "sqrt"})
def sqrt_of_chain(x):
    return jnp.sqrt(1.0 + jnp.sin(x) ** 2)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "hyperbolic"})
def hyperbolic_functions(x):
    return jnp.sinh(x) * jnp.cosh(x) + jnp.tanh(2.0 * x)


@entry(args=lambda r: (scalar(r, -0.8, 0.8), scalar(r, 0.5, 1.5)), argnums=(0, 1),
       tags={"arithmetic", "inverse_trig", "two_args"})
def inverse_trig(x, y):
    return jnp.arcsin(x / 2.0) + jnp.arctan(x * y) + jnp.arctan2(x, y) + jnp.arccos(x / 3.0)


@entry(args=lambda r: (scalar(r, 0.3, 2.0),), tags={"arithmetic", "exp_log"})
def log_variants(x):
    return jnp.log1p(x) + jnp.expm1(x) + jnp.log2(x) + jnp.log10(x)


@entry(args=lambda r: (scalar(r, 0.5, 2.0),), tags={"arithmetic", "division", "unary_minus"})
def negation_and_reciprocal(x):
    return -x + 1.0 / x - jnp.reciprocal(x * x)


@entry(args=lambda r: (scalar(r, 0.5, 2.0), scalar(r, 0.5, 2.0)), argnums=(0, 1),
       tags={"arithmetic", "power", "two_args"})
def power_of_two_args(x, y):
    return x ** y + jnp.power(y, 3.0)


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"overwrite"})
def overwrite_chain(x):
    y = x
    y = y * y
    y = jnp.sin(y)
    y = y + x
    y = y * x
    return y


@entry(args=lambda r: (scalar(r, 0.5, 1.5),), tags={"overwrite", "augassign"})
def augmented_assignments(x):
    y = 1.0 * x      # `y = x` would share x's memory: NumPy's `y += ...` would change x (refused)
    y += 2.0 * x
    y *= x
    y -= 1.0
    y /= 2.0 + x
    y **= 2
    return y


@entry(args=lambda r: (scalar(r, -1.0, 1.0), scalar(r, -1.0, 1.0)), argnums=(0, 1),
       tags={"tuple_assign", "overwrite", "two_args"})
def tuple_swap(x, y):
    a, b = x, 2.0 * y
    a, b = b, a * b
    a, b = jnp.sin(a) + b, a
    return a * b + a


@entry(args=lambda r: (scalar(r, -1.0, 1.0), scalar(r, -1.0, 1.0)), argnums=(0, 1),
       tags={"arithmetic", "unused_argument", "two_args"})
def unused_second_argument(x, y):
    z = jnp.sin(x) * 3.0
    return z * z


@entry(args=lambda r: (scalar(r, -1.0, 1.0),), tags={"arithmetic", "reuse"})
def input_used_many_times(x):
    return x * x * x + x * jnp.sin(x) + jnp.exp(x) * x


# ------------------------------------------------------------ reductions
@entry(args=lambda r: (vec(r, 5),), tags={"reduction"})
def sum_of_squares(x):
    return jnp.sum(x ** 2)


@entry(args=lambda r: (vec(r, 6),), tags={"reduction", "statistics"})
def mean_var_std(x):
    return jnp.mean(x) + jnp.var(x) + jnp.std(x)


@entry(args=lambda r: (vec(r, 4, 0.5, 1.5),), tags={"reduction"})
def product_reduction(x):
    return jnp.prod(x)


@entry(args=lambda r: (vec(r, 5),), tags={"reduction", "max"})
def max_element(x):
    return jnp.max(x) + jnp.min(x)


@entry(args=lambda r: (mat(r, 3, 4),), tags={"reduction", "axis", "max"})
def row_maxima(a):
    return jnp.sum(jnp.max(a, axis=1) * jnp.arange(1.0, 4.0))


@entry(args=lambda r: (mat(r, 3, 4),), tags={"reduction", "axis", "broadcasting", "keepdims"})
def standardize_rows(a):
    centered = a - jnp.mean(a, axis=1, keepdims=True)
    return jnp.sum(centered ** 2 * a)


@entry(args=lambda r: (vec(r, 5, -2.0, 2.0),), tags={"reduction", "exp_log", "max"})
def stable_logsumexp(x):
    m = jnp.max(x)
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))


@entry(args=lambda r: (vec(r, 5, -2.0, 2.0), 2), argnums=0,
       tags={"reduction", "exp_log", "indexing", "int_arg"})
def softmax_cross_entropy(logits, label):
    shifted = logits - jnp.max(logits)
    log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted)))
    return -log_probs[label]


@entry(args=lambda r: (mat(r, 3, 4),), tags={"reduction", "axis"})
def column_sums_squared(a):
    return jnp.sum(jnp.sum(a, axis=0) ** 2)


# ------------------------------------------------------------ broadcasting
@entry(args=lambda r: (vec(r, 3), vec(r, 4)), argnums=(0, 1), tags={"broadcasting", "newaxis"})
def outer_by_broadcasting(x, y):
    table = x[:, None] * jnp.sin(y[None, :])
    return jnp.sum(table * table)


@entry(args=lambda r: (scalar(r, 0.5, 1.5), vec(r, 4)), argnums=(0, 1), tags={"broadcasting", "scalar_vector"})
def scalar_times_vector(s, x):
    return jnp.sum(s * x + s * s)


@entry(args=lambda r: (mat(r, 3, 4), vec(r, 4)), argnums=(0, 1), tags={"broadcasting", "row_bias"})
def add_row_bias(a, b):
    return jnp.sum(jnp.tanh(a + b))


# ------------------------------------------------------------ linear algebra
@entry(args=lambda r: (vec(r, 3), spd(r, 3)), argnums=(0, 1), tags={"matmul", "quadratic_form"})
def quadratic_form(x, a):
    return x @ a @ x


@entry(args=lambda r: (vec(r, 4), vec(r, 4)), argnums=(0, 1), tags={"dot"})
def dot_product(x, y):
    return jnp.dot(x, y) * jnp.dot(x, x)


@entry(args=lambda r: (mat(r, 3, 4), vec(r, 3), vec(r, 4)), argnums=(0, 1, 2),
       tags={"matmul", "activation", "layer"})
def dense_tanh_layer(w, b, x):
    return jnp.sum(jnp.tanh(w @ x + b))


@entry(args=lambda r: (mat(r, 4, 3), mat(r, 2, 4), vec(r, 3)), argnums=(0, 1, 2),
       tags={"matmul", "activation", "layer", "maximum"})
def two_layer_mlp(w1, w2, x):
    h = jnp.maximum(w1 @ x, 0.0)
    out = w2 @ h
    return jnp.sum(out * out)


@entry(args=lambda r: (vec(r, 3), vec(r, 2)), argnums=(0, 1), tags={"outer"})
def outer_product(x, y):
    return jnp.sum(jnp.outer(x, y) ** 2)


@entry(args=lambda r: (mat(r, 2, 3), mat(r, 3, 2)), argnums=(0, 1), tags={"matmul", "transpose", "trace"})
def matmul_transpose_trace(a, b):
    c = a @ b
    d = c.T @ a
    return jnp.sum(d * d) + jnp.sum(a.T * b)


@entry(args=lambda r: (vec(r, 6),), tags={"reshape", "transpose"})
def reshape_and_transpose(x):
    m = jnp.reshape(x, (2, 3))
    return jnp.sum((m.T @ m) * (jnp.transpose(m) @ m)) + jnp.sum(jnp.ravel(m) * x)


@entry(args=lambda r: (vec(r, 3), vec(r, 2)), argnums=(0, 1), tags={"concatenate", "stack"})
def concatenate_and_stack(x, y):
    z = jnp.concatenate([x, y * 2.0])
    s = jnp.stack([x, jnp.sin(x)])
    return jnp.sum(z ** 3) + jnp.sum(s[1] * s[0])


# ------------------------------------------------------------ where / maximum / kinks
@entry(args=lambda r: (vec(r, 6, -2.0, 2.0),), tags={"where"})
def leaky_relu_where(x):
    return jnp.sum(jnp.where(x > 0, x, 0.1 * x) ** 2)


@entry(args=lambda r: (vec(r, 5), vec(r, 5)), argnums=(0, 1), tags={"maximum", "minimum"})
def elementwise_max_min(x, y):
    return jnp.sum(jnp.maximum(x, y) * jnp.minimum(x, 2.0 * y))


@entry(args=lambda r: (vec(r, 6, -2.0, 2.0),), tags={"clip"})
def clipped_square(x):
    return jnp.sum(jnp.clip(x, -1.0, 1.0) ** 2 + x)


@entry(args=lambda r: (vec(r, 5),), tags={"abs"})
def absolute_values(x):
    return jnp.sum(jnp.abs(x) * x)


@entry(args=lambda r: (vec(r, 4),), tags={"where", "sqrt", "reduction"})
def safe_norm(x):
    n2 = jnp.sum(x * x)
    return jnp.where(n2 > 1e-12, jnp.sqrt(n2), 0.0)


# ------------------------------------------------------------ indexing and slicing
@entry(args=lambda r: (vec(r, 4),), tags={"indexing"})
def element_indexing(x):
    return x[0] * x[1] + x[-1] * jnp.sin(x[2])


@entry(args=lambda r: (vec(r, 6),), tags={"slicing"})
def finite_difference_penalty(x):
    return jnp.sum((x[1:] - x[:-1]) ** 2)


@entry(args=lambda r: (vec(r, 6),), tags={"slicing", "strided"})
def strided_slices(x):
    return jnp.sum(x[::2] * x[1::2])


@entry(args=lambda r: (mat(r, 3, 3),), tags={"indexing", "2d"})
def matrix_row_column(a):
    return a[1, :] @ a[:, 0] + a[2, 2] * a[0, 1]


@entry(args=lambda r: (vec(r, 5),), tags={"indexing", "integer_array_index"})
def gather_with_index_array(x):
    idx = jnp.array([0, 2, 2, 4])
    return jnp.sum(x[idx] ** 2)


# ------------------------------------------------------------ plain NumPy, unchanged
@entry(args=lambda r: (vec(r, 5),), tags={"numpy", "reduction", "trig"})
def numpy_sum_of_sines(x):
    return np.sum(np.sin(x) * np.exp(x))


@entry(args=lambda r: (vec(r, 5),), tags={"numpy", "exp_log"})
def numpy_softplus(x):
    return np.sum(np.log(1.0 + np.exp(x)))


@entry(args=lambda r: (mat(r, 3, 3), vec(r, 3)), argnums=(0, 1), tags={"numpy", "dot"})
def numpy_dot_tanh(a, x):
    return np.sum(np.tanh(np.dot(a, x)) ** 2)


@entry(args=lambda r: (vec(r, 6, -2.0, 2.0),), tags={"numpy", "where", "maximum"})
def numpy_where_maximum(x):
    return np.sum(np.where(x > 0, np.sqrt(1.0 + x * x), np.maximum(x, -0.5 * x)))


@entry(args=lambda r: (vec(r, 6),), tags={"numpy", "statistics"})
def numpy_mean_std(x):
    return np.mean(x * x) + np.std(x) * np.cos(np.mean(x))


@entry(args=lambda r: (vec(r, 5), 4), argnums=0, tags={"numpy", "for_range", "runtime_bound", "int_arg"})
def numpy_loop_accumulate(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + np.sin(x[i]) * np.cos(x[i + 1])
    return acc


@entry(case="low", args=lambda r: (scalar(r, 0.2, 0.4),), tags={"numpy", "if_scalar", "exp_log"})
@entry(case="high", args=lambda r: (scalar(r, 0.6, 1.0),), tags={"numpy", "if_scalar", "exp_log"})
def numpy_branch(x):
    if x > 0.5:
        y = np.exp(x) * np.log(x)
    else:
        y = np.sqrt(x) + np.square(x)
    return y
