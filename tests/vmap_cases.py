"""Functions exercised by test_vmap.py: one per batching rule, composition and fallback.

Each entry of RULE_CASES is (name, function, argument shapes per example, in_axes): the test
batches the function with vmap and compares with a Python loop over the batch.
"""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

TABLE = np.arange(10.0)


# ------------------------------------------------------------------ one rule each
def unary(x):
    return jnp.tanh(jnp.sin(x) * jnp.exp(-x))


def binary_scalar_meets_vector(s, v):
    return s * v + jnp.maximum(s, v)


def compare_where(x, y):
    return jnp.where(x > y, x, y * 2.0)


def clip_and_power(x):
    return jnp.clip(x, -0.5, 0.5) ** 2


def reductions(x):
    return jnp.stack([jnp.sum(x), jnp.mean(x), jnp.max(x), jnp.min(x), jnp.prod(x), jnp.std(x), jnp.var(x)])


def reductions_axis(x):
    return jnp.sum(x, axis=0) + jnp.mean(x, axis=-1) + jnp.max(x, axis=1, keepdims=True)[:, 0]


def argmax_flat(x):
    return jnp.argmax(x) + jnp.argmin(x, axis=0)


def cumsum_flat(x):
    return jnp.cumsum(x)


def dot_matrix_vector(m, v):
    return jnp.dot(m, v)


def dot_vector_vector(a, b):
    return jnp.dot(a, b)


def matmul_matrices(a, b):
    return a @ b


def matmul_vector_matrix(v, m):
    return v @ m


def inner_product(a, b):
    return jnp.inner(a, b)


def outer_product(a, b):
    return jnp.outer(a, b)


def transpose_reshape(x):
    y = jnp.transpose(x)
    return jnp.reshape(y, (-1,)) + jnp.ravel(x.T)


def moves(x):
    return jnp.swapaxes(jnp.moveaxis(x, 0, -1), 0, 1)


def expand_squeeze(x):
    return jnp.squeeze(jnp.expand_dims(x, 0), axis=0) + jnp.expand_dims(x, -1)[..., 0]


def stack_concat(x, y):
    return jnp.concatenate([jnp.stack([x, y], axis=1), jnp.stack([y, x], axis=-1)], axis=0)


def getitem_static(x):
    return x[1:3, 0] + x[-1, ::2][:1] + x[None, 0, 1]


def getitem_unbatched_index_array(x):
    idx = jnp.array([2, 0])
    return x[idx] * 2.0


def batched_index_into_table(i):
    return TABLE[i] * 2.0


def batched_index_into_batched(x, i):
    return x[i] + 1.0


def at_updates(x, v):
    y = x.at[1].set(v)
    y = y.at[0].add(v * 2.0)
    return y.at[2].set(v * 3.0)


def at_update_unbatched_target(v):
    base = jnp.zeros(4)
    return base.at[1].set(v)


def dynamic_slice_case(x):
    return lax.dynamic_slice(x, (1,), (2,))


def shape_queries(x):
    n = x.shape[0]
    total = jnp.size(x) + jnp.ndim(x) + len(x)
    return jnp.reshape(x, (n * 1, -1)) * total


def broadcasting(x):
    return jnp.broadcast_to(x, (3, 2))


def python_loop_unbatched_bound(x, w):
    for i in range(3):
        x = jnp.tanh(x * w + i)
    return x


def while_unbatched(x):
    k = 0
    while k < 4:
        x = x * 0.5 + 1.0
        k = k + 1
    return x


def if_unbatched(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def helper(x, w):
    return jnp.sin(x) * w


def calls_helper(x, w):
    return helper(x, w) + helper(w, x)


def returns_tuple(x):
    return jnp.sin(x), jnp.cos(x)


def uses_tuple(x):
    a, b = returns_tuple(x)
    return a * b


def tuple_argument(p, x):
    w, b = p
    return jnp.sum(w * x) + b


def mean_of_squares(x):
    return jnp.mean(x ** 2)


def unbatched_output(x, w):
    return jnp.sum(x), w * 2.0


RULE_CASES = [
    ("unary", unary, [(4,)], 0),
    ("scalar_meets_vector", binary_scalar_meets_vector, [(), (3,)], (0, None)),
    ("scalar_meets_batched_vector", binary_scalar_meets_vector, [(), (3,)], (0, 0)),
    ("compare_where", compare_where, [(3,), (3,)], (0, None)),
    ("compare_where_scalar", compare_where, [(), (3,)], (0, 0)),
    ("clip_power", clip_and_power, [(5,)], 0),
    ("reductions", reductions, [(2, 3)], 0),
    ("reductions_axis", reductions_axis, [(3, 3)], 0),
    ("argmax_flat", argmax_flat, [(3, 4)], 0),
    ("cumsum_flat", cumsum_flat, [(2, 3)], 0),
    ("dot_mv_matrix_shared", dot_matrix_vector, [(5, 4), (4,)], (None, 0)),
    ("dot_mv_both", dot_matrix_vector, [(5, 4), (4,)], (0, 0)),
    ("dot_mv_matrix_batched", dot_matrix_vector, [(5, 4), (4,)], (0, None)),
    ("dot_vv", dot_vector_vector, [(4,), (4,)], (0, 0)),
    ("dot_vv_shared", dot_vector_vector, [(4,), (4,)], (None, 0)),
    ("matmul_mm_left", matmul_matrices, [(2, 3), (3, 4)], (0, None)),
    ("matmul_mm_right", matmul_matrices, [(2, 3), (3, 4)], (None, 0)),
    ("matmul_mm_both", matmul_matrices, [(2, 3), (3, 4)], (0, 0)),
    ("matmul_vm_both", matmul_vector_matrix, [(3,), (3, 4)], (0, 0)),
    ("matmul_vm_left", matmul_vector_matrix, [(3,), (3, 4)], (0, None)),
    ("matmul_vm_right", matmul_vector_matrix, [(3,), (3, 4)], (None, 0)),
    ("inner", inner_product, [(3,), (3,)], (0, 0)),
    ("inner_left", inner_product, [(2, 3), (3,)], (0, None)),
    ("outer", outer_product, [(3,), (2,)], (0, None)),
    ("outer_both", outer_product, [(3,), (2,)], (0, 0)),
    ("transpose_reshape", transpose_reshape, [(2, 3)], 0),
    ("moves", moves, [(2, 3, 4)], 0),
    ("expand_squeeze", expand_squeeze, [(3,)], 0),
    ("stack_concat", stack_concat, [(3,), (3,)], (0, None)),
    ("getitem_static", getitem_static, [(4, 3)], 0),
    ("getitem_index_array", getitem_unbatched_index_array, [(3, 2)], 0),
    ("at_updates", at_updates, [(4,), ()], (0, 0)),
    ("at_updates_shared_value", at_updates, [(4,), ()], (0, None)),
    ("at_update_unbatched_target", at_update_unbatched_target, [()], 0),
    ("dynamic_slice", dynamic_slice_case, [(5,)], 0),
    ("shape_queries", shape_queries, [(3, 2)], 0),
    ("broadcast_to", broadcasting, [(2,)], 0),
    ("loop_unbatched_bound", python_loop_unbatched_bound, [(3,), (3,)], (0, None)),
    ("while_unbatched", while_unbatched, [(2,)], 0),
    ("callee", calls_helper, [(3,), (3,)], (0, None)),
    ("callee_tuple_result", uses_tuple, [(3,)], 0),
    ("mean_of_squares", mean_of_squares, [(3,)], 0),
]


# ------------------------------------------------------------------ per-example gradients
def predict(params, x):
    l1, l2 = params
    w1, b1 = l1
    w2, b2 = l2
    h = jnp.tanh(x @ w1 + b1)
    return h @ w2 + b2


def mlp_loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


def scalar_loss(w, x):
    return jnp.sum(jnp.tanh(w * x))


def batched_model(w, xs):
    return jnp.sin(xs @ w)


# ------------------------------------------------------------------ fallbacks
def newton_sqrt(a):
    """A while loop whose trip count depends on the example."""
    x = a
    while jnp.abs(x * x - a) > 1e-10:
        x = 0.5 * (x + a / x)
    return x


def branch_may_raise(i):
    """Selecting over both branches would index out of range: vmap must loop over the batch."""
    if i < 10:
        y = TABLE[i]
    else:
        y = -1.0
    return y


def no_rule(x):
    return jnp.sum(np.convolve(x, np.array([1.0, -1.0])) * jnp.arange(4.0))


def loop_over_batched_count(n, x):
    total = x
    for i in range(n):
        total = total + 1.0
    return total


def shape_from_batched(x):
    """A reshape whose shape comes from the value's own shape: the per-example shape."""
    s = x.shape
    return jnp.reshape(x, (s[1], s[0]))


def at_batched_index(x, i):
    return x.at[i].set(0.0)


def update_unbatched_with_batched(v, i):
    base = jnp.arange(4.0)
    return base.at[i].add(v)


scale = 3.0


def closure_over_global(x):
    return x * scale


def list_accumulate(x):
    parts = []
    for k in range(3):
        parts.append(x * k)
    return jnp.stack(parts)


def select_branches(x, y):
    if x > 0.5:
        z = x * y
        w = z + 1.0
    else:
        z = y - x
        w = 2.0
    return z * w


def select_one_sided(x, y):
    z = y * 1.0
    if x < 0.0:
        z = -z
    return z + x


def relu_branch(x):
    if x > 0:
        y = x
    else:
        y = 0.0
    return y


def pop_batched(x):
    xs = [x, x * 2.0]
    y = xs.pop()
    return y + xs[0]


def float_of_batched(x):
    return float(x) * 2.0


def where_indices(x):
    return jnp.where(x > -100.0)[0] * 1.0


MAT = np.arange(12.0).reshape(4, 3) / 10.0


def apply_matrix(v):
    return jnp.dot(MAT, v)


def naively_batched_apply_matrix(v_batched):
    return jnp.stack([apply_matrix(v) for v in v_batched])


def closure_over_batched(x):
    def scale_by_x(y):
        return y * x
    shift = lambda y: y + x      # noqa: E731
    return scale_by_x(2.0) + shift(1.0)


def returns_dict(x, w):
    return {"scaled": x * w, "weights": w, "one": 1.0}


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, x):
        return jnp.tanh(x) * self.factor


def loop_loss(w, x):
    h = x
    for i in range(3):
        h = jnp.tanh(h * w + i)
    if jnp.sum(w) > 0:
        h = h * 2.0
    return jnp.sum(h ** 2)


def data_dependent_loss(w, x):
    h = x * w
    if jnp.sum(h) > 0:
        h = jnp.sin(h)
    return jnp.sum(h)


def collatz_length(n):
    """A `while` whose body branches: not maskable, so vmap loops over the batch."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return steps


def centered(x):
    return x - lax.pmean(x, "batch")


def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)
