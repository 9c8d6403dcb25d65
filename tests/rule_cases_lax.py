"""Rule cases for astjax.lax's primitives (astjax/rules/lax_rules.py), in tests/rule_cases.py's format.

Each case is `sum(w * <lax call>)` with the static arguments written in the
case, so tests/test_rules.py checks the VJP against central differences, the
JVP against the VJP, and (for the first case of each primitive) the
Hessian-vector product.
"""
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax import lax
from astjax.lax import internal

Case = namedtuple("Case", "primitive label fn args argnums")
CASES = []
_rng = np.random.default_rng(20261123)


def _array(values):
    return jnp.asarray(np.asarray(values, dtype=np.float64))


def normal(*shape):
    return _array(_rng.standard_normal(shape))


def uniform(low, high, *shape):
    return _array(_rng.uniform(low, high, shape))


def distinct(*shape):
    """Values with no ties (a random permutation of spread-out numbers): sorts and maxima are smooth there."""
    n = int(np.prod(shape))
    return _array((_rng.permutation(n) + _rng.uniform(0.1, 0.9, n)).reshape(shape) / n)


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


# ------------------------------------------------------------- elementwise
def clamp_all(lo, x, hi, w):
    return jnp.sum(w * lax.clamp(lo, x, hi))


def clamp_scalars(x, w):
    return jnp.sum(w * lax.clamp(-0.5, x, 0.5))


def rsqrt_fn(x, w):
    return jnp.sum(w * lax.rsqrt(x))


def integer_pow_cube(x, w):
    return jnp.sum(w * lax.integer_pow(x, 3))


def integer_pow_negative(x, w):
    return jnp.sum(w * lax.integer_pow(x, -2))


def integer_pow_zero(x, w):
    return jnp.sum(w * (x + lax.integer_pow(x, 0)))


def exp2_fn(x, w):
    return jnp.sum(w * lax.exp2(x))


def logistic_fn(x, w):
    return jnp.sum(w * lax.logistic(x))


def erf_fn(x, w):
    return jnp.sum(w * lax.erf(x))


def div_fn(x1, x2, w):
    return jnp.sum(w * lax.div(x1, x2))


def rem_fn(x1, x2, w):
    return jnp.sum(w * lax.rem(x1, x2))


def select_fn(on_true, on_false, pred, w):
    return jnp.sum(w * lax.select(pred, on_true, on_false))


_lo, _x, _hi = uniform(-0.6, -0.4, 2, 2), normal(2, 2), uniform(0.4, 0.6, 2, 2)


def _away_from_bounds(x):
    """x with values near the clamp bounds +-0.5 moved to 0 (central differences need no kink nearby)."""
    return _array(np.where(np.abs(np.abs(np.asarray(x)) - 0.5) < 0.15, 0.0, np.asarray(x)))


_x = _away_from_bounds(_x)
case("lax_clamp", "arrays", clamp_all, _lo, _x, _hi)
case("lax_clamp", "scalar_bounds", clamp_scalars, _away_from_bounds(normal(3, 4)))
case("lax_rsqrt", "2x3", rsqrt_fn, uniform(0.3, 2.0, 2, 3))
case("lax_integer_pow", "cube", integer_pow_cube, normal(2, 3))
case("lax_integer_pow", "negative", integer_pow_negative, uniform(0.5, 2.0, 2, 3))
case("lax_integer_pow", "zero", integer_pow_zero, _array([[0.0, 1.0], [-2.0, 0.5]]))
case("lax_exp2", "2x3", exp2_fn, normal(2, 3))
case("lax_logistic", "2x3", logistic_fn, normal(2, 3))
case("lax_erf", "2x3", erf_fn, normal(2, 3))
case("lax_div", "2x3", div_fn, normal(2, 3), uniform(0.5, 2.0, 2, 3))
case("lax_rem", "2x3", rem_fn, uniform(0.1, 3.0, 2, 3), uniform(0.7, 1.3, 2, 3))
case("lax_select", "2x3", select_fn, normal(2, 3), normal(2, 3), _rng.random((2, 3)) < 0.5, argnums=(0, 1))


# ------------------------------------------------------------------ shapes
def broadcast_in_dim_fn(x, w):
    return jnp.sum(w * lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)))


def broadcast_in_dim_ones(x, w):
    return jnp.sum(w * lax.broadcast_in_dim(x, (3, 4), (0, 1)))


def broadcast_in_dim_adjoint_fn(g, w):
    return jnp.sum(w * internal.broadcast_in_dim_adjoint(g, (2, 1), (0, 2)))


def reshape_fn(x, w):
    return jnp.sum(w * lax.reshape(x, (6, 2)))


def reshape_dimensions(x, w):
    return jnp.sum(w * lax.reshape(x, (4, 3), (1, 0)))


def reshape_adjoint_fn(g, w):
    return jnp.sum(w * internal.reshape_adjoint(g, (2, 3), (1, 0)))


def squeeze_fn(x, w):
    return jnp.sum(w * lax.squeeze(x, (0, 2)))


def expand_dims_fn(x, w):
    return jnp.sum(w * lax.expand_dims(x, (0, 2)))


def transpose_fn(x, w):
    return jnp.sum(w * lax.transpose(x, (2, 0, 1)))


def rev_fn(x, w):
    return jnp.sum(w * lax.rev(x, (0, 1)))


def pad_fn(x, v, w):
    return jnp.sum(w * lax.pad(x, v, ((1, 2, 1), (0, -1, 2))))


def pad_constant(x, w):
    return jnp.sum(w * lax.pad(x, 0.0, ((-1, 1, 0), (2, 0, 0))))


def pad_operand_adjoint_fn(g, w):
    return jnp.sum(w * internal.pad_operand_adjoint(g, (2, 3), ((1, 0, 1), (0, -1, 1))))


def concatenate_fn(a, b, w):
    return jnp.sum(w * lax.concatenate([a, b], 1))


case("lax_broadcast_in_dim", "insert_dim", broadcast_in_dim_fn, normal(2, 4))
case("lax_broadcast_in_dim", "size_one", broadcast_in_dim_ones, normal(3, 1))
case("lax_broadcast_in_dim_adjoint", "2x3x4", broadcast_in_dim_adjoint_fn, normal(2, 3, 1))
case("lax_reshape", "plain", reshape_fn, normal(3, 4))
case("lax_reshape", "dimensions", reshape_dimensions, normal(3, 4))
case("lax_reshape_adjoint", "dimensions", reshape_adjoint_fn, normal(3, 2))
case("lax_squeeze", "two", squeeze_fn, normal(1, 3, 1))
case("lax_expand_dims", "two", expand_dims_fn, normal(3, 2))
case("lax_transpose", "rank3", transpose_fn, normal(2, 1, 3))
case("lax_rev", "both", rev_fn, normal(2, 3))
case("lax_pad", "interior_negative", pad_fn, normal(2, 3), _array(0.7))
case("lax_pad", "crop", pad_constant, normal(3, 4))
case("lax_pad_operand_adjoint", "interior_negative", pad_operand_adjoint_fn, normal(4, 4))
case("lax_concatenate", "axis1", concatenate_fn, normal(2, 3), normal(2, 2))


# ----------------------------------------------------------------- slicing
def slice_fn(x, w):
    return jnp.sum(w * lax.slice(x, (1, 0), (4, 5), (2, 2)))


def slice_in_dim_fn(x, w):
    return jnp.sum(w * lax.slice_in_dim(x, 1, 4, 2, 1))


def index_in_dim_fn(x, w):
    return jnp.sum(w * lax.index_in_dim(x, -1, 1, False))


def index_in_dim_kept(x, w):
    return jnp.sum(w * lax.index_in_dim(x, 2, 0))


def dynamic_update_slice_fn(x, u, w):
    return jnp.sum(w * lax.dynamic_update_slice(x, u, (1, 2)))


def dynamic_update_slice_clamped(x, u, w):
    return jnp.sum(w * lax.dynamic_update_slice(x, u, (5, -1)))


def dynamic_slice_in_dim_fn(x, w):
    return jnp.sum(w * lax.dynamic_slice_in_dim(x, 1, 2, 1))


def dynamic_update_slice_in_dim_fn(x, u, w):
    return jnp.sum(w * lax.dynamic_update_slice_in_dim(x, u, 2, 0))


def dynamic_index_in_dim_fn(x, w):
    return jnp.sum(w * lax.dynamic_index_in_dim(x, 3, 1, False))


case("lax_slice", "strided", slice_fn, normal(4, 5))
case("lax_slice_in_dim", "strided", slice_in_dim_fn, normal(3, 5))
case("lax_index_in_dim", "negative_squeezed", index_in_dim_fn, normal(3, 4))
case("lax_index_in_dim", "kept", index_in_dim_kept, normal(3, 4))
case("lax_dynamic_update_slice", "inside", dynamic_update_slice_fn, normal(4, 5), normal(2, 2))
case("lax_dynamic_update_slice", "clamped", dynamic_update_slice_clamped, normal(4, 5), normal(2, 3))
case("lax_dynamic_slice_in_dim", "axis1", dynamic_slice_in_dim_fn, normal(3, 4))
case("lax_dynamic_update_slice_in_dim", "axis0", dynamic_update_slice_in_dim_fn, normal(5, 3), normal(2, 3))
case("lax_dynamic_index_in_dim", "squeezed", dynamic_index_in_dim_fn, normal(3, 5))


# ---------------------------------------------------------- contractions
def dot_general_batched(a, b, w):
    return jnp.sum(w * lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))))


def dot_general_mixed(a, b, w):
    return jnp.sum(w * lax.dot_general(a, b, (((0, 2), (2, 1)), ((1,), (0,)))))


def conv_nchw(lhs, rhs, w):
    return jnp.sum(w * lax.conv_general_dilated(lhs, rhs, (1, 1), "SAME"))


def conv_strided_dilated(lhs, rhs, w):
    return jnp.sum(w * lax.conv_general_dilated(lhs, rhs, (2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1)))


def conv_nhwc(lhs, rhs, w):
    return jnp.sum(w * lax.conv_general_dilated(lhs, rhs, (1, 2), "VALID", None, None, ("NHWC", "HWIO", "NHWC")))


def conv_1d(lhs, rhs, w):
    return jnp.sum(w * lax.conv_general_dilated(lhs, rhs, (2,), "SAME"))


def conv_simple(lhs, rhs, w):
    return jnp.sum(w * lax.conv(lhs, rhs, (1, 1), "VALID"))


def window_patches_fn(x, w):
    return jnp.sum(w * internal.window_patches(x, (2, 2), (1, 2), ((1, 0), (0, 1)), (2, 1), (1, 2), 0.0))


def window_patches_adjoint_fn(g, w):
    return jnp.sum(w * internal.window_patches_adjoint(g, (1, 3, 4), (2, 2), (1, 2), "SAME", None, None))


case("lax_dot_general", "batched_matmul", dot_general_batched, normal(2, 2, 3), normal(2, 3, 2))
case("lax_dot_general", "mixed_dims", dot_general_mixed, normal(3, 2, 4), normal(2, 4, 3, 5))
case("lax_conv_general_dilated", "nchw_same", conv_nchw, normal(1, 2, 3, 3), normal(2, 2, 2, 2))
case("lax_conv_general_dilated", "strided_dilated", conv_strided_dilated, normal(1, 2, 5, 4), normal(3, 2, 2, 2))
case("lax_conv_general_dilated", "nhwc", conv_nhwc, normal(1, 4, 5, 2), normal(2, 2, 2, 2))
case("lax_conv_general_dilated", "one_d", conv_1d, normal(2, 2, 7), normal(3, 2, 3))
case("lax_conv", "valid", conv_simple, normal(1, 1, 3, 3), normal(2, 1, 2, 2))
case("lax_window_patches", "dilated", window_patches_fn, normal(3, 3))
case("lax_window_patches_adjoint", "same", window_patches_adjoint_fn, normal(1, 6, 4))


# ---------------------------------------------------------- reduce_window
def reduce_window_sum(x, w):
    return jnp.sum(w * lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), "SAME"))


def reduce_window_max(x, w):
    return jnp.sum(w * lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2), (1, 2, 2), "VALID"))


def reduce_window_min(x, w):
    return jnp.sum(w * lax.reduce_window(x, jnp.inf, lax.min, (3,), (1,), ((1, 1),)))


case("lax_reduce_window", "sum_same", reduce_window_sum, normal(3, 4))
case("lax_reduce_window", "max_pool", reduce_window_max, distinct(2, 4, 4))
case("lax_reduce_window", "min_padded", reduce_window_min, distinct(6))


# ------------------------------------------------------- scans and sorts
def cumsum_fn(x, w):
    return jnp.sum(w * lax.cumsum(x, 1))


def cumsum_reverse(x, w):
    return jnp.sum(w * lax.cumsum(x, 0, True))


def cumprod_fn(x, w):
    return jnp.sum(w * lax.cumprod(x, 1))


def cumprod_reverse(x, w):
    return jnp.sum(w * lax.cumprod(x, 0, True))


def cummax_fn(x, w):
    return jnp.sum(w * lax.cummax(x, 1))


def cummax_reverse(x, w):
    return jnp.sum(w * lax.cummax(x, 0, True))


def cummin_fn(x, w):
    return jnp.sum(w * lax.cummin(x, 0))


def maximum_accumulate_fn(x, w):
    return jnp.sum(w * np.maximum.accumulate(x, axis=1))


def minimum_accumulate_fn(x, w):
    return jnp.sum(w * np.minimum.accumulate(x))


def sort_fn(x, w):
    return jnp.sum(w * lax.sort(x))


def sort_dim0(x, w):
    return jnp.sum(w * lax.sort(x, 0))


def gather_along_fn(t, w):
    return jnp.sum(w * internal.gather_along(t, np.array([[2, 0, 0], [1, 1, 2]]), 1))


def scatter_along_fn(g, w):
    return jnp.sum(w * internal.scatter_along(g, np.array([[2, 0, 0], [1, 1, 2]]), 1, (2, 4)))


case("lax_cumsum", "axis1", cumsum_fn, normal(2, 3))
case("lax_cumsum", "reverse", cumsum_reverse, normal(3, 4))
case("lax_cumprod", "axis1", cumprod_fn, uniform(0.5, 1.5, 2, 3))
case("lax_cumprod", "reverse_with_zero", cumprod_reverse, _array([[1.2, 0.0], [0.0, 0.7], [0.9, -1.1]]))
case("lax_cummax", "axis1", cummax_fn, distinct(2, 4))
case("lax_cummax", "reverse", cummax_reverse, distinct(5, 2))
case("lax_cummin", "axis0", cummin_fn, distinct(5, 2))
case("maximum_accumulate", "axis1", maximum_accumulate_fn, distinct(3, 4))
case("minimum_accumulate", "axis0", minimum_accumulate_fn, distinct(5, 2))
case("lax_sort", "last", sort_fn, distinct(2, 4))
case("lax_sort", "dim0", sort_dim0, distinct(4, 3))
case("lax_gather_along", "repeats", gather_along_fn, normal(2, 4))
case("lax_scatter_along", "repeats", scatter_along_fn, normal(2, 3))

# Operands of different shapes broadcast (their adjoints are summed back): a column against a row, a scalar.
for _label, _s1, _s2 in [("col_row", (3, 1), (1, 2)), ("scalar_array", (), (2, 2))]:
    case("lax_div", _label, div_fn, normal(*_s1), uniform(0.5, 2.0, *_s2))
    case("lax_rem", _label, rem_fn, uniform(0.1, 3.0, *_s1), uniform(0.7, 1.3, *_s2))
    case("lax_select", _label, select_fn, normal(*_s1), normal(*_s2),
         _rng.random(np.broadcast_shapes(_s1, _s2)) < 0.5, argnums=(0, 1))


def leading_axis_array_fn(xs, w):
    return jnp.sum(w * internal.leading_axis_array(xs))


case("lax_leading_axis_array", "matrix", leading_axis_array_fn, normal(3, 2))
