"""An attacker's corpus, ninth round: the code merged on issue 6's day. piecewise and apply_along_axis
rewritten under derivatives (integer and boolean x, overlapping conditions, extra arguments, negative axes,
functions returning vectors, matrices and scalars), vmap rules of batching_sixth against a Python loop (odd
in_axes, repeated put indices, einsum's repeated labels and '...', jnp.gradient's list of gradients),
lax.scan's carry check on correct programs (weak Python scalars, int and bool carries), jit(grad) over a
list of layers read oddly, eval_shape on shapes that depend on values (JAX refuses them), pure_callback
under vmap, and scipy.stats' new functions against SciPy."""
import numpy as np
import scipy.stats as sst

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
import astjax.scipy.stats as jst
from astjax import lax

from .case import case, vec, mat


def _ints(r):
    return np.arange(6)


# ============================================================ piecewise under a derivative
def _half(t):
    return t * 0.5


def _square(t):
    return t ** 2


def _cube(t):
    return t ** 3


def _scaled(t, k):
    return t * k


def _shifted(t, k):
    return t + k


def _sum_of_squares(v):
    return np.sum(v ** 2)


def piecewise_int_x_truncates_each_piece(x, n):
    # NumPy writes each piece into an array of n's dtype: _half(1) = 0.5 becomes 0
    return jnp.sum(np.piecewise(n, [n < 2, n >= 2], [_half, _square]) * x)


case(piecewise_int_x_truncates_each_piece, lambda r: (vec(r, 6), _ints(r)), "works")


def jnp_piecewise_int_x_truncates_each_piece(x, n):
    return jnp.sum(jnp.piecewise(n, [n < 2, n >= 2], [_half, _square]) * x)


case(jnp_piecewise_int_x_truncates_each_piece, lambda r: (vec(r, 6), _ints(r)), "works")


def piecewise_int_x_constant_pieces(x, n):
    return jnp.sum(np.piecewise(n, [n < 2], [_half, 2.7]) * x)


case(piecewise_int_x_constant_pieces, lambda r: (vec(r, 6), _ints(r)), "works")


def piecewise_bool_x(x, n):
    b = n > 2
    return jnp.sum(np.piecewise(b, [b], [1.5]) * x)


case(piecewise_bool_x, lambda r: (vec(r, 6), _ints(r)), "works")


def piecewise_overlapping_conditions_later_wins(x):
    return jnp.sum(jnp.piecewise(x, [x < 0.5, x < 0.0], [_square, _cube]))


case(piecewise_overlapping_conditions_later_wins, lambda r: (vec(r, 6),), "works")


def piecewise_extra_argument_differentiated(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [_scaled, _shifted], x[0]))


case(piecewise_extra_argument_differentiated, lambda r: (vec(r, 6),), "works")


def piecewise_piece_returns_a_scalar(x):
    return np.sum(np.piecewise(x, [x < 0], [_sum_of_squares, _cube]) * x)


case(piecewise_piece_returns_a_scalar, lambda r: (vec(r, 6),), "works")


def piecewise_conditions_named_then_negated(x):
    c = x > 0
    return np.sum(np.piecewise(x, [c, ~c], [_square, _cube]) * x)


case(piecewise_conditions_named_then_negated, lambda r: (vec(r, 6),), "works")


def piecewise_keyword_for_the_pieces(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [_scaled, _shifted], k=2.0))


case(piecewise_keyword_for_the_pieces, lambda r: (vec(r, 6),), "refuse")


def piecewise_zero_d_x(x):
    return np.piecewise(x[0], [x[0] < 0, x[0] >= 0], [_square, _cube])


case(piecewise_zero_d_x, lambda r: (vec(r, 3),), "either")


# ============================================================ apply_along_axis under a derivative
def _times_total(v):
    return v * jnp.sum(v)


def _outer_self(v):
    return jnp.outer(v, v)


def _total_square(v):
    return jnp.sum(v ** 2)


def _times(v, w):
    return v * w


def along_negative_axis_vector_result(x):
    y = x.reshape(2, 3)
    return jnp.sum(jnp.apply_along_axis(_times_total, -1, y) * jnp.arange(6.0).reshape(2, 3))


case(along_negative_axis_vector_result, lambda r: (vec(r, 6),), "works")


def along_axis_zero_matrix_result(x):
    y = x.reshape(2, 3)
    return jnp.sum(jnp.apply_along_axis(_outer_self, 0, y) * jnp.arange(12.0).reshape(2, 2, 3))


case(along_axis_zero_matrix_result, lambda r: (vec(r, 6),), "works")


def along_negative_axis_scalar_result(x):
    y = x.reshape(2, 3)
    return jnp.sum(jnp.apply_along_axis(_total_square, -2, y) * jnp.arange(3.0))


case(along_negative_axis_scalar_result, lambda r: (vec(r, 6),), "works")


def along_axis_extra_argument_differentiated(x):
    y = x.reshape(2, 3)
    w = x[:2]
    return jnp.sum(np.apply_along_axis(_times, 0, y, w) * jnp.arange(6.0).reshape(2, 3))


case(along_axis_extra_argument_differentiated, lambda r: (vec(r, 6),), "works")


def along_axis_shorter_result(x):
    y = x.reshape(2, 3)
    return jnp.sum(np.apply_along_axis(np.diff, 1, y) ** 2)


case(along_axis_shorter_result, lambda r: (vec(r, 6),), "works")


def along_axis_of_an_expression(x):
    return jnp.sum(np.apply_along_axis(_times_total, 1, x.reshape(2, 3)))


case(along_axis_of_an_expression, lambda r: (vec(r, 6),), "refuse")


# ============================================================ vmap rules of batching_sixth against a loop
def _loop_check(in_axes=0, out_axes=0):
    """vmap(fn) against a Python loop over the batch (values, shapes and dtypes)."""
    def check(fn, args):
        axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
        n = next(np.shape(a)[k] for a, k in zip(args, axes) if k is not None)
        expected = np.stack([np.asarray(fn(*[a if k is None else np.take(a, i, axis=k) for a, k in zip(args, axes)]))
                             for i in range(n)], axis=out_axes)
        got = np.asarray(astjax.vmap(fn, in_axes=in_axes, out_axes=out_axes)(*args))
        return [(np.array(got.shape), np.array(expected.shape), "shape"), (got, expected, "values"),
                (got, expected.dtype, "dtype")]
    return check


def _fd_grad(fn, x, rest, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (fn(x + e, *rest) - fn(x - e, *rest)) / (2 * h)
    return g


def _vmap_grad_check(in_axes=0):
    """vmap(grad(fn)) against central differences of fn, example by example."""
    def check(fn, args):
        axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
        n = next(np.shape(a)[k] for a, k in zip(args, axes) if k is not None)
        expected = []
        for i in range(n):
            one = [a if k is None else np.take(a, i, axis=k) for a, k in zip(args, axes)]
            expected.append(_fd_grad(fn, np.asarray(one[0], float), one[1:]))
        got = np.asarray(astjax.vmap(astjax.grad(fn), in_axes=in_axes)(*args))
        return [(got, np.stack(expected), "vmap(grad) vs finite differences")]
    return check


def gradient_item_summed(a):
    g = jnp.gradient(a)
    return jnp.sum(g[1] ** 3)


case(gradient_item_summed, lambda r: (mat(r, 2, 12).reshape(2, 3, 4),), "works", mode="custom",
     check=_loop_check(), name="gradient_item_summed_vmap")
case(gradient_item_summed, lambda r: (mat(r, 3, 12).reshape(3, 3, 4),), "works", mode="custom",
     check=_vmap_grad_check(), name="gradient_item_summed_vmap_grad")


def gradient_unpacked_then_weighted(a):
    gy, gx = jnp.gradient(a)
    return jnp.sum(gx * gy) + jnp.sum(gy[0])


case(gradient_unpacked_then_weighted, lambda r: (mat(r, 3, 12).reshape(3, 3, 4),), "works", mode="custom",
     check=_loop_check(1), name="gradient_unpacked_then_weighted_vmap")


def einsum_diagonal(a):
    return jnp.einsum("ii->i", a)


case(einsum_diagonal, lambda r: (mat(r, 16, 3).reshape(4, 4, 3),), "works", mode="custom",
     check=_loop_check(2, -1), name="einsum_diagonal_vmap")


def einsum_ellipsis_matmul(a, b):
    return jnp.einsum("...ij,...jk->...ik", a, b)


case(einsum_ellipsis_matmul, lambda r: (mat(r, 12, 4).reshape(2, 3, 2, 4), mat(r, 4, 5)), "works", mode="custom",
     check=_loop_check((1, None)), name="einsum_ellipsis_matmul_vmap")


def einsum_trace_and_contraction(a):
    return jnp.sum(jnp.einsum("ii->i", a) * jnp.arange(4.0)) + jnp.einsum("ij,ij", a, a)


case(einsum_trace_and_contraction, lambda r: (mat(r, 16, 3).reshape(4, 4, 3),), "works", mode="custom",
     check=_vmap_grad_check(2), name="einsum_trace_and_contraction_vmap_grad")


def put_repeated_indices(a, v):
    return jnp.put(a, jnp.array([1, 1, 3]), v, inplace=False)


case(put_repeated_indices, lambda r: (mat(r, 3, 5), vec(r, 3)), "works", mode="custom",
     check=_loop_check((0, None)), name="put_repeated_indices_vmap")


def put_values_repeated_indices(v, a):
    return jnp.sum(jnp.put(a, jnp.array([1, 1, 3]), v, inplace=False) * jnp.arange(5.0))


case(put_values_repeated_indices, lambda r: (mat(r, 3, 3), vec(r, 5)), "works", mode="custom",
     check=_vmap_grad_check((0, None)), name="put_values_repeated_indices_vmap_grad")


def quantile_batched_q(a, q):
    return jnp.quantile(a, q, axis=1)


case(quantile_batched_q, lambda r: (mat(r, 9, 5).reshape(3, 3, 5), np.array([[0.1, 0.7], [0.2, 0.3], [0.5, 1.0]])),
     "works", mode="custom", check=_loop_check(), name="quantile_batched_q_vmap")


def block_diag_vector_and_scalar(a, b):
    return jsl.block_diag(a, b, a)


case(block_diag_vector_and_scalar, lambda r: (mat(r, 3, 2), vec(r, 1)[0]), "works", mode="custom",
     check=_loop_check((0, None)), name="block_diag_vector_and_scalar_vmap")


def column_stack_int_and_float32(a, b):
    return jnp.column_stack([a, b])


case(column_stack_int_and_float32, lambda r: (np.arange(6).reshape(3, 2), vec(r, 2).astype(np.float32)), "works",
     mode="custom", check=_loop_check((0, None)), name="column_stack_int_and_float32_vmap")


def builtin_sum_over_rows(a):
    return sum(a)


case(builtin_sum_over_rows, lambda r: (mat(r, 4, 6).reshape(4, 3, 2),), "works", mode="custom",
     check=_loop_check(1), name="builtin_sum_over_rows_vmap")


def pad_with_batched_constant(c, a):
    return jnp.sum(jnp.pad(a, (1, 2), constant_values=(c, c * 2)) ** 2 * jnp.arange(5.0))


case(pad_with_batched_constant, lambda r: (vec(r, 3), vec(r, 2)), "works", mode="custom",
     check=_vmap_grad_check((0, None)), name="pad_with_batched_constant_vmap_grad")


def toeplitz_columns_batched_on_axis_one(c, rr):
    return jsl.toeplitz(c, rr)


case(toeplitz_columns_batched_on_axis_one, lambda r: (mat(r, 4, 3), mat(r, 3, 2)), "works", mode="custom",
     check=_loop_check((1, 0)), name="toeplitz_columns_batched_on_axis_one_vmap")


def broadcast_arrays_weighted(a, b):
    x, y = jnp.broadcast_arrays(a, b)
    return jnp.sum(x * y ** 2 * jnp.arange(8.0).reshape(2, 4))


case(broadcast_arrays_weighted, lambda r: (mat(r, 3, 4), mat(r, 2, 1)), "works", mode="custom",
     check=_vmap_grad_check((0, None)), name="broadcast_arrays_weighted_vmap_grad")


# ============================================================ lax.scan's carry check: correct programs
def scan_python_float_initial_carry(x):
    def body(c, t):
        return c + t, c
    c, ys = lax.scan(body, 0.0, x)
    return c + jnp.sum(ys)


case(scan_python_float_initial_carry, lambda r: (vec(r, 5),), "works")


def scan_python_int_initial_carry_becomes_float(x):
    def body(c, t):
        return c + t, c
    c, ys = lax.scan(body, 0, x)
    return c + jnp.sum(ys)


case(scan_python_int_initial_carry_becomes_float, lambda r: (vec(r, 5),), "works")


def scan_int_counter_stays_int(x):
    def body(c, t):
        return (c[0] + 1, c[1] + t * c[0]), c[0]
    (k, acc), ks = lax.scan(body, (0, 0.0), x)
    return acc + k + jnp.sum(ks)


case(scan_int_counter_stays_int, lambda r: (vec(r, 5),), "works")


def scan_int_carry_halved(x):
    def body(c, t):
        return c // 2 + 3, t * c
    c, ys = lax.scan(body, 10, x)
    return jnp.sum(ys) + c


case(scan_int_carry_halved, lambda r: (vec(r, 5),), "works")


def scan_bool_flag_carry(x):
    def body(c, t):
        return (c[0] | (t > 0.5), c[1] + jnp.where(c[0], t, 0.0)), t
    (flag, acc), _ = lax.scan(body, (False, 0.0), x)
    return acc


case(scan_bool_flag_carry, lambda r: (vec(r, 5, 0.0, 1.0),), "either")


# ============================================================ jit(grad) over a list of layers, read oddly
def _layers(r, sizes):
    return [(mat(r, m, n), vec(r, n)) for m, n in zip(sizes[:-1], sizes[1:])]


def _jit_grad_check(fn, args):
    reference = astjax.grad(fn)(*args)
    compiled = astjax.jit(astjax.grad(fn))(*args)
    flat = lambda t: np.concatenate([np.ravel(np.asarray(leaf)) for leaf in astjax.tree_util.tree_leaves(t)])  # noqa
    return [(flat(compiled), flat(reference), "jit(grad) vs the reference backend")]


def layers_first_read_twice(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    w0, b0 = params[0]
    return jnp.sum(h ** 2) + jnp.sum(w0 * w0) + jnp.sum(b0)


case(layers_first_read_twice, lambda r: (_layers(r, [3, 3, 3]), mat(r, 4, 3)), "works", mode="custom",
     check=_jit_grad_check, name="layers_first_read_twice_jit")


def layers_reversed(params, x):
    h = x
    for w, b in params[::-1]:
        h = jnp.tanh(h @ w.T + b[0])
    return jnp.sum(h ** 2)


case(layers_reversed, lambda r: (_layers(r, [3, 3, 3]), mat(r, 4, 3)), "works", mode="custom",
     check=_jit_grad_check, name="layers_reversed_jit")


def layers_only_the_first_used(params, x):
    w, b = params[0]
    return jnp.sum(jnp.tanh(x @ w + b) ** 2)


case(layers_only_the_first_used, lambda r: (_layers(r, [3, 3, 3]), mat(r, 4, 3)), "works", mode="custom",
     check=_jit_grad_check, name="layers_only_the_first_used_jit")


# ============================================================ eval_shape: shapes that depend on values
def _eval_shape_check(fn, args):
    found = astjax.eval_shape(fn, *args)
    return [(np.array(found.shape), np.array(np.shape(fn(*args))), "eval_shape's shape vs the real one")]


def positive_part(x):
    return x[x > 0]


case(positive_part, lambda r: (vec(r, 5),), "refuse", mode="custom", check=_eval_shape_check,
     errors=(ValueError,), error_match="depend on the values", name="eval_shape_positive_part")


def nonzero_entries(x):
    return jnp.nonzero(x)[0]


case(nonzero_entries, lambda r: (np.array([0.0, 1.0, 0.0]),), "refuse", mode="custom", check=_eval_shape_check,
     errors=(ValueError,), error_match="depend on the values", name="eval_shape_nonzero_entries")


def range_from_first_value(x):
    return jnp.arange(int(x[0]) + 3)


case(range_from_first_value, lambda r: (np.array([-1.0, 2.0]),), "refuse", mode="custom", check=_eval_shape_check,
     errors=(ValueError,), error_match="depend on the values", name="eval_shape_range_from_first_value")


def branch_on_the_sum(x):
    if jnp.sum(x) > 0:
        return x
    return x[:1]


case(branch_on_the_sum, lambda r: (vec(r, 3, -2.0, -1.0),), "refuse", mode="custom", check=_eval_shape_check,
     errors=(ValueError,), error_match="depend on the values", name="eval_shape_branch_on_the_sum")


def distinct_values(i):
    return jnp.unique(i)


case(distinct_values, lambda r: (np.array([3, 3, 3, 3, 3, 3]),), "refuse", mode="custom", check=_eval_shape_check,
     errors=(ValueError,), error_match="depend on the values", name="eval_shape_distinct_values")


def masked_by_a_boolean_argument(x, m):
    return x[m]


case(masked_by_a_boolean_argument, lambda r: (vec(r, 2), np.array([True, False])), "refuse", mode="custom",
     check=_eval_shape_check, errors=(ValueError,), error_match="depend on the values",
     name="eval_shape_masked_by_a_boolean_argument")


def where_keeps_the_shape(x):
    return jnp.where(x > 0, jnp.log(jnp.abs(x) + 1.0), 0.0) @ jnp.ones((3, 2))


case(where_keeps_the_shape, lambda r: (mat(r, 4, 3),), "works", mode="custom", check=_eval_shape_check,
     name="eval_shape_where_keeps_the_shape")


def inverse_of_a_matrix(a):
    return jnp.linalg.inv(a)


case(inverse_of_a_matrix, lambda r: (mat(r, 3, 3),), "works", mode="custom", check=_eval_shape_check,
     name="eval_shape_inverse_of_a_matrix")


# ============================================================ pure_callback under vmap; scipy.stats' new functions
def _add_total_of_last_axis(a, b):
    return a + b.sum(axis=-1, keepdims=True)


def callback_broadcast_all(z, y):
    return astjax.pure_callback(_add_total_of_last_axis, astjax.ShapeDtypeStruct(z.shape, z.dtype), z, y,
                                vmap_method="broadcast_all")


case(callback_broadcast_all, lambda r: (vec(r, 5), mat(r, 4, 5)), "works", mode="custom",
     check=_loop_check((None, 0)), name="callback_broadcast_all_vmap")


def callback_sequential(z, y):
    return astjax.pure_callback(_add_total_of_last_axis, astjax.ShapeDtypeStruct(z.shape, z.dtype), z, y,
                                vmap_method="sequential")


case(callback_sequential, lambda r: (vec(r, 5), mat(r, 4, 5)), "works", mode="custom",
     check=_loop_check((None, 0), 1), name="callback_sequential_vmap")


def _against_scipy(fn, args):
    x, = args
    ranks = {m: (jst.rankdata(x, method=m, axis=0), sst.rankdata(x, method=m, axis=0), f"rankdata {m}")
             for m in ("average", "min", "max", "dense", "ordinal")}
    return list(ranks.values()) + [
        (jst.mode(x, axis=1).mode, sst.mode(x, axis=1).mode, "mode"),
        (jst.mode(x, axis=None).count, sst.mode(x, axis=None).count, "mode's count"),
        (jst.sem(x, axis=None, ddof=0), sst.sem(x, axis=None, ddof=0), "sem")]


def stats_of_ties(x):
    return x


case(stats_of_ties, lambda r: (r.integers(0, 3, size=(4, 5)),), "works", mode="custom", check=_against_scipy)


def kde_weighted_sum(x, d, w):
    return jnp.sum(jst.gaussian_kde(d, weights=w)(x))


def _kde_check(fn, args):
    x, d, w = args
    return [(fn(x, d, w), np.sum(sst.gaussian_kde(d, weights=w)(x)), "weighted kde vs SciPy")]


case(kde_weighted_sum, lambda r: (mat(r, 2, 4), mat(r, 2, 30), vec(r, 30, 0.1, 1.0)), "works", mode="custom",
     check=_kde_check)


# Default profile (the suite's time budget): the cases of the mechanisms fixed here, then every third other
# case and the first of each mode of check (no jit battery: Numba compiles for seconds); ASTJAX_LONG_PROPERTIES=1
# runs them all.
from .case import long_only  # noqa: E402

_FIXED_HERE = {"piecewise_int_x_truncates_each_piece", "piecewise_int_x_constant_pieces", "piecewise_bool_x",
               "gradient_item_summed_vmap", "eval_shape_positive_part", "eval_shape_distinct_values"}
LONG_ONLY = long_only("attacks9", _FIXED_HERE, batteries=("_vmap_grad", "_vmap", "_jit"))
