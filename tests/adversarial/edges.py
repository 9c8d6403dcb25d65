"""NumPy and Python at their edges (issue 6, the attacker's corpus III): keyword arguments that
change meaning (ufunc `out=`/`where=`/`dtype=`, reductions with `initial=`/`where=`/`keepdims`,
axis tuples and negative axes, arguments given by position instead of keyword), views and
mutation (writes through reshape/ravel/T/slices/flip/atleast_1d, copyto/fill/put/putmask/place/
fill_diagonal, swaps of views, in-place updates broadcast into row and column views), numerics at
edges (ties, kinks, powers with special bases and exponents, floor division and remainders with
negative floats, float32 mixed with Python and NumPy scalars, integer and boolean arrays in the
path) and Python at its edges (late-binding closures, mutable defaults, generators, try/finally,
`with`, assert, `__call__` objects, operator/functools/itertools/math, builtins over traced values,
truthiness of 0-d arrays, functions returning functions, data-dependent recursion).

Each program is checked under grad (value, gradient against finite differences, jvp); many also
under compositions (jit, hessian, vmap batteries of compositions.py)."""
import functools
import itertools
import math
import operator

import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec, mat, pos
from .compositions import _BATTERIES, _checked_as
from .harness import fd_grad
from astjax.backends.numba_cpu import JitError
from .semantics import _grad_at

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def compose(fn, make_args, batteries=("hess",), outcome="works", rtol=1e-4, **kw):
    """Register one case per battery of compositions for fn (refusals must name a line of this file)."""
    for b in batteries:
        case(fn, make_args, outcome, mode="custom", check=_checked_as(_BATTERIES[b], outcome, __file__),
             rtol=rtol, name=f"{fn.__name__}_{b}", **kw)
    return fn


def both(fn, make_args, batteries=("hess",), outcome="works", **kw):
    """grad (value, gradient, jvp) and the composition batteries."""
    case(fn, make_args, outcome, **kw)
    compose(fn, make_args, batteries, outcome)
    return fn


def v4(r):
    return (vec(r, 4),)


def v3(r):
    return (vec(r, 3),)


def m23(r):
    return (mat(r, 2, 3),)


def p4(r):
    return (pos(r, 4),)


# ================================================================ reductions: initial=, where=, dtype=, keepdims, axes
def sum_where_keyword(x):
    return np.sum(x * x, where=x > 0) + np.sum(x, where=[True, False, True, False])


both(sum_where_keyword, v4)


def sum_initial_with_where(x):
    return np.sum(x, initial=1.5, where=x > 0) * x[0]


both(sum_initial_with_where, v4)


def prod_initial_axis(x):
    return np.prod(x, initial=2.0) + np.sum(np.prod(x, axis=0, initial=0.5))


both(prod_initial_axis, m23, outcome="either")


def max_initial_dominates(x):
    return np.max(x, initial=5.0) + np.min(x, initial=-5.0) + np.max(x, initial=-5.0) * 2.0


both(max_initial_dominates, v4)


def max_where_needs_initial(x):
    return np.max(x, where=x < 0.5, initial=-1.0) + np.min(x * 3.0, where=x > -0.5, initial=2.0)


both(max_where_needs_initial, v4, outcome="either")


_MASK23 = np.array([[True, False, True], [False, True, True]])


def mean_where_axis(x):
    return np.sum(np.mean(x, axis=1, where=_MASK23) ** 2) + np.sum(np.var(x, axis=0, where=_MASK23 | True))


both(mean_where_axis, m23)


def std_where_mask(x):
    return np.std(x, where=np.array([True, True, False, True])) * x[2]


both(std_where_mask, v4)


def mean_dtype_float64(x):
    return np.mean(x * x, dtype=np.float64) * np.sum(x, dtype=np.float64) + x.mean(dtype=float)


both(mean_dtype_float64, v4)


def sum_dtype_int_truncates(x):
    return np.sum(x * 3.0, dtype=np.int64) * x[0] + np.sum(x)


case(sum_dtype_int_truncates, v4, "works")


def cumsum_dtype_int(x):
    return np.sum(np.cumsum(x * 4.0, dtype=np.int64) * x)


case(cumsum_dtype_int, v4, "works")


def sum_axis_tuple_negative(x):
    return np.sum(np.sum(x, axis=(0, -1)) ** 2) + np.sum(x.max(axis=(-2, -1)) * np.array([1.0, 2.0]))


both(sum_axis_tuple_negative, lambda r: (vec(r, 8).reshape(2, 2, 2),))


def mean_axis_tuple_keepdims(x):
    c = x - np.mean(x, axis=(0, 2), keepdims=True)
    return np.sum(c * c * x)


both(mean_axis_tuple_keepdims, lambda r: (vec(r, 8).reshape(2, 2, 2),))


def keepdims_standardize(x):
    return np.sum((x - x.mean(axis=1, keepdims=True)) ** 2 / x.std(axis=-1, keepdims=True))


both(keepdims_standardize, lambda r: (mat(r, 2, 3),))


def sum_keepdims_positional(x):
    return np.sum(x / np.sum(x, 1, None, None, True) * x)


both(sum_keepdims_positional, lambda r: (pos(r, 6).reshape(2, 3),))


def methods_positional_axis(x):
    return (np.sum(x.sum(1) ** 2) + np.sum(x.mean(0) * np.array([1.0, 2.0, 3.0])) + np.sum(x.max(1) * 3.0)
            + np.sum(x.cumsum(0) ** 2) + np.sum(x.prod(0)))


both(methods_positional_axis, m23)


def std_var_ddof_positional(x):
    return x.std(None, None, None, 1) + np.var(x, 0, None, None, 1).sum() + x.var(1, ddof=1).sum()


both(std_var_ddof_positional, m23)


def max_method_keepdims_positional(x):
    return np.sum(x / x.max(1, None, True)) + np.sum(x.min(0, keepdims=True) * x)


both(max_method_keepdims_positional, lambda r: (pos(r, 6).reshape(2, 3),))


def count_positive_times(x):
    return np.sum(x > 0) * np.sum(x) + np.count_nonzero(x > 0.2) * x[0]


both(count_positive_times, v4)


def mean_of_bool_mask(x):
    return np.mean(x > 0) * np.sum(x ** 2) + (x > 0).sum() * x[1]


both(mean_of_bool_mask, v4)


def round_decimals(x):
    return np.sum(np.round(x, 2) * x) + np.sum(np.around(x * 10, -1) * x) + np.sum(x.round(1) * x * x)


both(round_decimals, v4)


def round_decimals_keyword(x):
    return np.sum(np.round(x, decimals=1) + x * np.round(x)) + round(float(x[0]), 1)


case(round_decimals_keyword, v4, "either")


def ufunc_reduce_methods(x):
    return (np.sum(np.add.reduce(x, axis=1, keepdims=True) * x) + np.sum(np.multiply.reduce(x, axis=0))
            + np.sum(np.maximum.reduce(x, axis=-1)) + np.sum(np.add.accumulate(x, axis=1) ** 2))


both(ufunc_reduce_methods, m23, outcome="either")


def ufunc_outer_methods(x):
    return np.sum(np.multiply.outer(x, x) * np.subtract.outer(x, x[::-1])) + np.sum(np.minimum.accumulate(x))


both(ufunc_outer_methods, v4, outcome="either")


def ufunc_reduce_where_initial(x):
    return np.add.reduce(x * x, where=np.array([True, False, True, True]), initial=0.5) * x[1]


both(ufunc_reduce_where_initial, v4, outcome="either")


def nan_reductions_masked(x):
    y = np.where(x > 0, x, np.nan)
    return np.nansum(y * y) + np.nanmax(y) + np.nanmin(np.where(x < 0, x, np.nan)) + np.nanprod(y)


case(nan_reductions_masked, lambda r: (np.array([0.4, -0.3, 0.9, -0.7]) + vec(r, 4) * 0.1,), "works")


def einsum_optimize_keyword(x):
    return np.einsum("ij,jk->", x, x.T, optimize=True) + np.einsum("ij->j", x, optimize="greedy") @ x[0]


both(einsum_optimize_keyword, m23, outcome="either")


def average_returned_weights(x):
    avg, wsum = np.average(x, weights=np.array([1.0, 2.0, 3.0, 4.0]), returned=True)
    return avg * wsum + np.sum(np.average(x.reshape(2, 2), axis=1, weights=[1.0, 3.0]))


both(average_returned_weights, v4, outcome="either")


def average_weights_traced(x):
    return np.average(x[:2], weights=x[2:] ** 2)


both(average_weights_traced, p4)


def percentile_methods(x):
    return (np.percentile(x, 30, method="nearest") + np.percentile(x, 30, method="lower") * 2.0
            + np.percentile(x, 30, method="higher") * 3.0 + np.percentile(x, 30, method="midpoint") * 4.0
            + np.percentile(x, 30) * 5.0)


case(percentile_methods, lambda r: (vec(r, 5),), "works")


def quantile_array_q_axis(x):
    return np.sum(np.quantile(x, [0.25, 0.75], axis=1) * np.array([[1.0], [2.0]])) + np.median(x, axis=0).sum()


both(quantile_array_q_axis, lambda r: (vec(r, 8).reshape(2, 4),))


def percentile_keepdims(x):
    return np.sum(x - np.percentile(x, 50, axis=1, keepdims=True) * x)


both(percentile_keepdims, m23)


def diff_keywords(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x, prepend=0.5, append=x[0]) ** 2)


both(diff_keywords, v4, outcome="either")


def sort_axis_none_and_negative(x):
    return (np.sum(np.sort(x, axis=None) * np.arange(6.0)) + np.sum(np.sort(x, axis=0) * np.arange(6.0).reshape(2, 3))
            + np.sum(-np.sort(-x, axis=-1)[:, 0]))


both(sort_axis_none_and_negative, m23)


def argmax_keepdims_take_along(x):
    idx = np.argmax(x, axis=1, keepdims=True)
    return np.sum(np.take_along_axis(x, idx, axis=1) ** 2) + x[np.unravel_index(np.argmin(x), x.shape)]


both(argmax_keepdims_take_along, m23)


# ================================================================ ufunc out= / where= / dtype=, positional out
def safe_divide_idiom(x):
    b = np.where(np.abs(x) > 0.3, x, 0.0)
    q = np.divide(1.0, b, out=np.zeros_like(x), where=b != 0)
    return np.sum(q * x)


both(safe_divide_idiom, v4, outcome="either")


def safe_log_idiom(x):
    return np.sum(np.log(x, out=np.zeros_like(x), where=x > 0) * x)


both(safe_log_idiom, v4, outcome="either")


def sqrt_where_prefilled(x):
    return np.sum(np.sqrt(x, out=np.full_like(x, -1.0), where=x >= 0))


both(sqrt_where_prefilled, v4, outcome="either")


def ufunc_where_into_copy(x):
    y = x.copy()
    np.exp(x, out=y, where=x < 0)
    return np.sum(y * y)


both(ufunc_where_into_copy, v4, outcome="either")


def ufunc_where_out_zeros(x):
    y = np.zeros_like(x)
    np.multiply(x, x, out=y, where=x > 0)
    return np.sum(y * 3.0 + x)


both(ufunc_where_out_zeros, v4, outcome="either")


def ufunc_out_tuple(x):
    y = np.empty(4)
    np.add(x, 1.0, out=(y,))
    return np.sum(y * y)


both(ufunc_out_tuple, v4, outcome="either")


def ufunc_positional_out_unary(x):
    y = np.empty_like(x)
    np.sin(x, y)
    return np.sum(y * x)


both(ufunc_positional_out_unary, v4, outcome="either")


def ufunc_positional_out_binary(x):
    y = np.zeros_like(x)
    np.multiply(x, 2.0, y)
    return np.sum(y ** 2) + np.sum(x)


both(ufunc_positional_out_binary, v4, outcome="either")


def ufunc_out_result_is_out(x):
    y = np.zeros(4)
    z = np.add(x, 1.0, out=y)
    z *= 2.0
    return np.sum(y * x)


both(ufunc_out_result_is_out, v4, outcome="either")


def ufunc_out_into_row_view(x):
    B = np.ones((2, 4))
    np.multiply(x, x, out=B[1])
    return np.sum(B * np.arange(8.0).reshape(2, 4) * x)


both(ufunc_out_into_row_view, v4, outcome="either")


def maximum_out_in_place(x):
    y = x.copy()
    np.maximum(y, 0.1, out=y)
    return np.sum(y * y)


both(maximum_out_in_place, v4)


def clip_out_other(x):
    y = np.empty_like(x)
    np.clip(x, -0.3, 0.3, out=y)
    return np.sum(y * x)


both(clip_out_other, v4)


def clip_min_max_keywords(x):
    return np.sum(np.clip(x, min=-0.2, max=0.4) * x) + np.sum(np.clip(x, None, 0.3)) + np.sum(x.clip(max=0.1))


both(clip_min_max_keywords, v4)


def ufunc_dtype_keyword(x):
    return np.sum(np.add(x, x, dtype=np.float64) * np.multiply(x, 3, dtype=float))


both(ufunc_dtype_keyword, v4, outcome="either")


def matmul_out(x):
    C = np.empty((2, 2))
    np.matmul(x, x, out=C)
    return np.sum(C * x)


both(matmul_out, lambda r: (mat(r, 2),))


def dot_out(x):
    C = np.empty((2, 2))
    np.dot(x, x.T, out=C)
    return np.sum(C * C)


both(dot_out, lambda r: (mat(r, 2),))


def cumsum_out(x):
    y = np.zeros(4)
    np.cumsum(x, out=y)
    return np.sum(y * y)


both(cumsum_out, v4)


def sum_out_into_row(x):
    B = np.zeros((2, 3))
    np.sum(x, axis=0, out=B[1])
    return np.sum(B * np.arange(6.0).reshape(2, 3)) + np.sum(B ** 2)


both(sum_out_into_row, m23, outcome="either")


def add_out_self_at_offset(x):
    y = x.copy()
    np.add(y[:-1], y[1:], out=y[1:])
    return np.sum(y * y)


both(add_out_self_at_offset, v4, outcome="either")


def power_dtype_and_where(x):
    return np.sum(np.power(x, 2, dtype=np.float64)) + np.sum(np.power(x, 3, out=np.ones(4), where=x > 0))


both(power_dtype_and_where, v4, outcome="either")


# ================================================================ arguments by position vs by keyword
def concatenate_stack_positional_axis(x):
    a = np.concatenate([x, x * 2.0], 1)
    b = np.stack([x, x ** 2], 1)
    return np.sum(a * np.arange(12.0).reshape(2, 6)) + np.sum(b[:, 1] * x)


both(concatenate_stack_positional_axis, m23)


def reshape_order_positional(x):
    return np.sum(np.reshape(x, (2, 3), "F") * np.arange(6.0).reshape(2, 3)) + np.sum(x.reshape(3, -1, order="F")[0])


both(reshape_order_positional, lambda r: (vec(r, 6),))


def transpose_axes_positional(x):
    return np.sum(np.transpose(x, (2, 0, 1)) * np.arange(8.0).reshape(2, 2, 2)) + np.sum(x.transpose(1, 2, 0)[0] * 2.0)


both(transpose_axes_positional, lambda r: (vec(r, 8).reshape(2, 2, 2),))


def roll_repeat_take_positional(x):
    return (np.sum(np.roll(x, 1, 0) * np.arange(6.0).reshape(2, 3)) + np.sum(np.repeat(x, 2, 1) ** 2)
            + np.sum(np.take(x, [0, 2], 1) * 3.0) + np.sum(x.repeat(2, 0)[1]) + np.sum(x.take([1, 2], 1) * x[:, :2]))


both(roll_repeat_take_positional, m23)


def moveaxis_swapaxes_positional(x):
    return np.sum(np.moveaxis(x, 0, -1) * np.arange(6.0).reshape(3, 2)) + np.sum(np.swapaxes(x, 1, 0)[0] * 5.0)


both(moveaxis_swapaxes_positional, m23)


def trace_diagonal_offsets_positional(x):
    return np.trace(x, 1) * 2.0 + np.sum(np.diagonal(x, -1)) * 3.0 + x.trace(-1) + np.sum(x.diagonal(1) ** 2)


both(trace_diagonal_offsets_positional, lambda r: (mat(r, 3),))


def tril_triu_positional(x):
    return np.sum(np.tril(x, -1) * 2.0 + np.triu(x, 1) ** 2) + np.sum(np.tril(x) * x)


both(tril_triu_positional, lambda r: (mat(r, 3),))


def cumsum_diff_positional_axis(x):
    return np.sum(np.cumsum(x, 1) ** 2) + np.sum(np.diff(x, 1, 0) ** 2) + np.sum(np.cumprod(x, -1)[:, -1])


both(cumsum_diff_positional_axis, m23)


def percentile_axis_positional(x):
    return np.sum(np.percentile(x, 50, 0) * np.array([1.0, 2.0, 3.0])) + np.sum(np.median(x, 1) * 2.0)


both(percentile_axis_positional, lambda r: (vec(r, 9).reshape(3, 3),))


def linspace_endpoint_positional(x):
    return np.sum(np.linspace(0.0, 1.0, 4, False) * x) + np.sum(np.linspace(x[0], x[1], 3, True) ** 2)


both(linspace_endpoint_positional, v4)


def pad_mode_positional(x):
    return np.sum(np.pad(x, 1, "edge") * np.arange(6.0)) + np.sum(np.pad(x, (2, 0), "constant", constant_values=0.5) ** 2)


both(pad_mode_positional, v4)


def full_dtype_positional(x):
    return np.sum(np.full((2,), x[0], float) * x[1:3]) + np.sum(np.full_like(x, x[2]) * x)


both(full_dtype_positional, v4)


def squeeze_expand_positional(x):
    return np.sum(np.squeeze(x[None], 0) * np.expand_dims(x, 1)) + np.sum(x.squeeze() ** 2)


both(squeeze_expand_positional, v4)


def flatten_ravel_order_positional(x):
    w = np.arange(6.0)
    return np.sum(x.flatten("F") * w) + np.sum(x.ravel("F") * w * w) + np.sum(np.ravel(x, "F") * x.ravel())


both(flatten_ravel_order_positional, m23)


def norm_ord_positional(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) * 2.0 + np.linalg.norm(x, 2) * 3.0 + np.linalg.norm(x, 3)


both(norm_ord_positional, v4)


def norm_axis_positional(x):
    return np.sum(np.linalg.norm(x, None, 1) * np.array([1.0, 2.0])) + np.sum(np.linalg.norm(x, 1, 0))


both(norm_axis_positional, m23)


# ================================================================ views and mutation
def reshape_view_strided_write(x):
    z = x.copy()
    z.reshape(-1)[::2] += x[1::2]
    return np.sum(z * z * np.arange(1.0, 7.0))


both(reshape_view_strided_write, lambda r: (vec(r, 6),), outcome="either")


def reshape_fortran_of_vector_is_view(x):
    z = x.copy()
    v = z.reshape(2, 3, order="F")
    v[0, :] *= 3.0
    return np.sum(z * np.arange(1.0, 7.0)) + np.sum(z * z)


both(reshape_fortran_of_vector_is_view, lambda r: (vec(r, 6),), outcome="either")


def reshape_of_transpose_is_copy(x):
    z = x.copy()
    w = z.T.reshape(6)
    w[0] = 10.0 * x[1, 2]
    return np.sum(z * z) + np.sum(w * np.arange(6.0))


both(reshape_of_transpose_is_copy, m23, outcome="either")


def transpose_view_row_write(x):
    z = x.copy()
    z.T[0] = z.T[2] * 2.0
    return np.sum(z * z * np.arange(6.0).reshape(2, 3))


both(transpose_view_row_write, m23, outcome="either")


def ravel_function_view_write(x):
    z = x.copy()
    np.ravel(z)[1:4] = x[0, 0] ** 2
    return np.sum(z * np.arange(6.0).reshape(2, 3))


both(ravel_function_view_write, m23, outcome="either")


def step_slice_assign_from_other_step(x):
    z = x.copy()
    z[::2] = z[1::2] * 3.0
    return np.sum(z * z * np.arange(1.0, 5.0))


both(step_slice_assign_from_other_step, v4, batteries=("hess", "vmap", "jit"))


def overlapping_iadd_backward(x):
    z = x.copy()
    z[:-1] += z[1:]
    return np.sum(z * z * np.arange(1.0, 5.0))


both(overlapping_iadd_backward, v4, batteries=("hess", "vmap", "jit"))


def overlapping_imul_forward(x):
    z = x.copy()
    z[1:] *= z[:-1]
    return np.sum(z * np.arange(1.0, 5.0))


both(overlapping_imul_forward, v4, batteries=("hess", "vmap", "jit"))


def ellipsis_last_axis_write(x):
    z = x.copy()
    z[..., 0] = z[..., 1] * 2.0 + z[..., 2]
    return np.sum(z * z * np.arange(6.0).reshape(2, 3))


both(ellipsis_last_axis_write, m23, batteries=("hess", "vmap", "jit"))


def copyto_into_slice(x):
    z = np.zeros(5)
    np.copyto(z[1:], x * 2.0)
    return np.sum(z * np.arange(5.0)) + np.sum(z ** 2)


both(copyto_into_slice, v4, outcome="either")


def copyto_broadcast_row(x):
    Z = np.zeros((2, 4))
    np.copyto(Z, x)
    Z[1] *= x
    return np.sum(Z * np.arange(8.0).reshape(2, 4))


both(copyto_broadcast_row, v4, outcome="either")


def fill_with_traced_scalar(x):
    z = np.empty(3)
    z.fill(x[0] * 2.0)
    return np.sum(z * x[1:])


both(fill_with_traced_scalar, v4, batteries=("hess", "vmap", "jit"))


def fill_view_of_copy(x):
    z = x.copy()
    z[1:3].fill(0.5)
    return np.sum(z * z * x)


both(fill_view_of_copy, v4, outcome="either")


def put_with_mode_clip(x):
    z = x.copy()
    np.put(z, [0, 7], x[1:3] * 3.0, mode="clip")
    return np.sum(z * z * np.arange(1.0, 5.0))


both(put_with_mode_clip, v4, outcome="either")


def put_values_cycle(x):
    z = np.zeros(4)
    np.put(z, [0, 1, 2, 3], x[:2])
    return np.sum(z * np.arange(1.0, 5.0) * x)


both(put_values_cycle, v4, outcome="either")


def putmask_cycles_by_position(x):
    z = x.copy()
    np.putmask(z, np.array([False, True, False, True]), x[:2] * 10.0)
    return np.sum(z * np.arange(1.0, 5.0) * x)


both(putmask_cycles_by_position, v4, outcome="either")


def place_uses_values_in_order(x):
    z = x.copy()
    np.place(z, np.array([False, True, False, True]), x[:2] * 10.0)
    return np.sum(z * np.arange(1.0, 5.0) * x)


both(place_uses_values_in_order, v4, outcome="either")


def fill_diagonal_traced(x):
    M = np.outer(x, x)
    np.fill_diagonal(M, x[0] * 2.0)
    return np.sum(M * np.arange(16.0).reshape(4, 4))


both(fill_diagonal_traced, v4, outcome="either")


def slice_assign_then_write_source(x):
    a = np.zeros(4)
    b = x * 2.0
    a[:] = b
    b[0] = 7.0
    return np.sum(a * x) + np.sum(b)


both(slice_assign_then_write_source, v4, batteries=("hess", "vmap", "jit"))


def slice_swap_of_views(x):
    a = x.copy()
    a[:2], a[2:] = a[2:], a[:2]
    return np.sum(a * np.arange(1.0, 5.0) * x)


both(slice_swap_of_views, v4, outcome="either")


def column_swap_of_views(x):
    a = x.copy()
    a[:, 0], a[:, 1] = a[:, 1], a[:, 0]
    return np.sum(a * np.arange(6.0).reshape(2, 3) * x)


both(column_swap_of_views, m23, outcome="either")


def column_swap_with_copy(x):
    a = x.copy()
    a[:, 0], a[:, 1] = a[:, 1], a[:, 0].copy()
    return np.sum(a * np.arange(6.0).reshape(2, 3) * x)


both(column_swap_with_copy, m23)


def element_swap_is_right(x):
    a = x.copy()
    a[0], a[3] = a[3], a[0]
    return np.sum(a * np.arange(1.0, 5.0) * x)


both(element_swap_is_right, v4, batteries=("hess", "vmap", "jit"))


def fancy_swap_is_right(x):
    a = x.copy()
    a[[0, 1]] = a[[1, 0]]
    return np.sum(a * np.arange(6.0).reshape(2, 3) * x)


both(fancy_swap_is_right, m23, batteries=("hess", "vmap", "jit"))


def iadd_broadcast_into_row_view(x):
    M = np.zeros((2, 3))
    r = M[0]
    r += x[0]
    M[1] += x[1] * x[0]
    return np.sum(M * np.arange(6.0).reshape(2, 3))


both(iadd_broadcast_into_row_view, m23, outcome="either")


def imul_column_view(x):
    M = np.ones((3, 2)) + x.T
    c = M[:, 0]
    c *= x[0]
    return np.sum(M * M)


both(imul_column_view, m23, outcome="either")


def iadd_column_broadcast_slice(x):
    M = np.ones((2, 3))
    M[:, 1:] += x[:, None]
    return np.sum(M * M * np.arange(6.0).reshape(2, 3))


both(iadd_column_broadcast_slice, lambda r: (vec(r, 2),), batteries=("hess", "vmap", "jit"))


def chained_assignment_rows(x):
    M = np.zeros((3, 4))
    M[0] = M[2] = x
    M[2] *= 2.0
    return np.sum(M * np.arange(12.0).reshape(3, 4))


both(chained_assignment_rows, v4)


def flip_is_a_view(x):
    z = x.copy()
    np.flip(z)[0] = x[0] * 5.0
    return np.sum(z * np.arange(1.0, 5.0))


both(flip_is_a_view, v4, outcome="either")


def reversed_slice_view_iadd(x):
    z = x.copy()
    r = z[::-1]
    r[0] += 3.0 * x[1]
    return np.sum(z * z)


both(reversed_slice_view_iadd, v4, outcome="either")


def atleast_1d_is_same_array(x):
    z = x.copy()
    y = np.atleast_1d(z)
    y[0] = x[1] * 4.0
    return np.sum(z * z)


both(atleast_1d_is_same_array, v4, outcome="either")


def atleast_2d_is_view(x):
    z = x.copy()
    np.atleast_2d(z)[0, 1] = x[2] ** 2
    return np.sum(z * np.arange(1.0, 5.0))


both(atleast_2d_is_view, v4, outcome="either")


def squeeze_is_view(x):
    Z = x.reshape(1, 4).copy()
    np.squeeze(Z)[2] = 3.0 * x[0]
    return np.sum(Z * Z)


both(squeeze_is_view, v4, outcome="either")


def split_parts_are_views(x):
    z = x.copy()
    a, b = np.split(z, 2)
    a += b * 2.0
    return np.sum(z * z * np.arange(1.0, 5.0))


both(split_parts_are_views, v4, outcome="either")


def newaxis_view_write(x):
    z = x.copy()
    y = z[np.newaxis]
    y[0, 1] = x[3] * 2.0
    return np.sum(z * np.arange(1.0, 5.0) * x)


both(newaxis_view_write, v4, outcome="either")


def view_method_write(x):
    z = x.copy()
    z.view()[1] = x[0] * x[0]
    return np.sum(z * x)


both(view_method_write, v4, outcome="either")


def swapaxes_view_write(x):
    Z = x.copy()
    np.swapaxes(Z, 0, 1)[0] = 1.0 + x[1, 1]
    return np.sum(Z * Z * np.arange(6.0).reshape(2, 3))


both(swapaxes_view_write, m23, outcome="either")


def asarray_float64_is_same(x):
    z = x.copy()
    y = np.asarray(z, dtype=float)
    y *= 2.0
    return np.sum(z * x)


both(asarray_float64_is_same, v4, outcome="either")


def array_copy_none_is_same(x):
    z = x.copy()
    y = np.array(z, copy=None)
    y[0] = 0.0
    return np.sum(z * x) + np.sum(y)


both(array_copy_none_is_same, v4, outcome="either")


def shape_attribute_assignment(x):
    z = x.copy()
    z.shape = (2, 3)
    return np.sum(z[0] * z[1]) + np.sum(z * z)


both(shape_attribute_assignment, lambda r: (vec(r, 6),), outcome="either")


def for_rows_iadd_mutates(x):
    M = np.outer(x[:2], x)
    for row in M:
        row += x
    return np.sum(M * M)


both(for_rows_iadd_mutates, v4, outcome="either")


def for_rows_rebind_does_not_mutate(x):
    M = np.outer(x[:2], x)
    for row in M:
        row = row + x
    return np.sum(M * M) + np.sum(row)


both(for_rows_rebind_does_not_mutate, v4, batteries=("hess", "vmap", "jit"))


def enumerate_rows_slice_assign(x):
    M = np.outer(x[:3], x)
    for i, row in enumerate(M):
        row[:] = row * (i + 1.0)
    return np.sum(M * np.arange(12.0).reshape(3, 4))


both(enumerate_rows_slice_assign, v4, outcome="either")


def ellipsis_assign_broadcast(x):
    M = np.zeros((2, 4))
    M[...] = x
    M[1] *= 3.0
    return np.sum(M * M * np.arange(8.0).reshape(2, 4))


both(ellipsis_assign_broadcast, v4, batteries=("hess", "vmap", "jit"))


def write_at_argmax(x):
    z = x.copy()
    z[z.argmax()] = 0.0
    return np.sum(z * z * np.arange(1.0, 5.0))


both(write_at_argmax, v4, batteries=("hess", "vmap", "jit"))


def param_mutated_in_helper_then_read(x):
    _double_first_half(x)
    return np.sum(x * x * np.arange(1.0, 5.0))


def _double_first_half(v):
    v[:2] *= 2.0


both(param_mutated_in_helper_then_read, v4, outcome="either")


def param_slice_iadd_then_read(x):
    y = x[1:]
    y += 1.0
    return np.sum(x * x * np.arange(1.0, 5.0))


both(param_slice_iadd_then_read, v4, outcome="either")


def mutation_in_loop_through_view(x):
    z = x.copy()
    head = z[:2]
    for k in range(3):
        head *= 1.5
        z[3] = z[3] + head[0]
    return np.sum(z * z)


both(mutation_in_loop_through_view, v4, outcome="either")


def diag_einsum_view_write(x):
    M = np.outer(x, x)
    d = np.einsum("ii->i", M)
    return np.sum(d * x) + np.sum(M)


both(diag_einsum_view_write, v4, batteries=("hess", "vmap", "jit"))


def read_only_diagonal_copy_write(x):
    M = np.outer(x, x)
    d = np.diagonal(M).copy()
    d[0] = 5.0
    return np.sum(d * x) + np.sum(M * M)


both(read_only_diagonal_copy_write, v4, batteries=("hess", "vmap", "jit"))


# ================================================================ numerics at edges: ties, kinks, special powers
def _ties_split(point, direction, expected_dir, label):
    """At a tie any subgradient may be chosen; the directional derivative along `direction` (where the
    function is smooth along it) is fixed: grad . d and jvp along d must both equal `expected_dir`."""
    def check(fn, args):
        x = np.array(point, dtype=np.float64)
        d = np.array(direction, dtype=np.float64)
        g = astjax.grad(fn)(x)
        _, t = astjax.jvp(fn, (x,), (d,))
        return [(np.sum(g * d), expected_dir, label + " (grad . d)"), (t, expected_dir, label + " (jvp)")]
    return check


def median_with_ties(x):
    return np.median(x) * 2.0 + np.median(x[:4])


case(median_with_ties, lambda r: (vec(r, 5),), "works", mode="custom",
     check=_ties_split([0.3, 0.3, 0.3, -0.2, 0.9], [1.0, 1.0, 1.0, 1.0, 1.0], 3.0, "median of ties moves with them"))


def percentile_interp_ties(x):
    return np.percentile(x, 40.0) + np.quantile(x, 0.9)


case(percentile_interp_ties, lambda r: (vec(r, 4),), "works", mode="custom",
     check=_ties_split([0.5, 0.5, -0.1, 0.2], [1.0, 1.0, 1.0, 1.0], 2.0, "percentile at ties along ones"))


def argmax_tie_first_index(x):
    return x[np.argmax(x)] * 3.0 + x[np.argmin(x)]


case(argmax_tie_first_index, lambda r: (vec(r, 4),), "works", mode="custom",
     check=_grad_at([0.7, 0.7, -0.2, -0.2], [3.0, 0.0, 1.0, 0.0], "argmax/argmin ties: first index (NumPy, JAX)"))


def builtin_max_tie_first(x):
    return max(x[0], x[1]) * 2.0 + min(x[2], x[3])


case(builtin_max_tie_first, lambda r: (vec(r, 4),), "works", mode="custom",
     check=_ties_split([0.4, 0.4, 0.1, 0.1], [1.0, 1.0, 1.0, 1.0], 3.0, "builtin max/min at a tie"))


def max_axis_ties_rows(x):
    return np.sum(np.max(x, axis=1) * np.array([1.0, 2.0])) + np.sum(np.amin(x, axis=0))


case(max_axis_ties_rows, lambda r: (mat(r, 2, 3),), "works", mode="custom",
     check=_ties_split([[0.5, 0.5, 0.1], [0.2, 0.9, 0.9]], np.ones((2, 3)), 6.0, "row max ties along ones"))


def sort_ties_then_weights(x):
    return np.sum(np.sort(x) * np.array([1.0, 2.0, 3.0, 4.0])) + np.sum(x[np.argsort(x)][:2])


case(sort_ties_then_weights, lambda r: (vec(r, 4),), "works", mode="custom",
     check=_ties_split([0.2, 0.2, 0.2, -1.0], [1.0, 1.0, 1.0, 1.0], 12.0, "sort of ties along ones"))


def relu_by_mask_product(x):
    return np.sum(x * (x > 0)) + np.sum(np.where(x > 0, x, 0.0) * 2.0)


case(relu_by_mask_product, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 0.5, -0.5], [0.0, 3.0, 0.0], "x * (x > 0) and where(x > 0, x, 0) at 0: 0 (JAX)"))


def maximum_zero_at_kink(x):
    return np.sum(np.maximum(x, 0.0) * np.array([1.0, 2.0, 3.0]))


case(maximum_zero_at_kink, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 0.5, -0.5], [0.5, 2.0, 0.0], "maximum(x, 0) at 0: half (JAX)"))


def abs_builtin_and_np_at_zero(x):
    return np.sum(np.abs(x) * np.array([1.0, 2.0])) + abs(x[1]) + np.absolute(x[0])


case(abs_builtin_and_np_at_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 0.0], [2.0, 3.0], "abs'(0) = 1 (JAX)"))


def clip_at_both_bounds(x):
    return np.sum(np.clip(x, -0.5, 0.5) * np.array([1.0, 2.0, 3.0]))


case(clip_at_both_bounds, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([-0.5, 0.5, 0.0], [0.5, 1.0, 3.0], "clip at its bounds: half (JAX, as the corpus's convention)"))


def power_zero_exponent(x):
    return np.sum(x ** 0) * x[1] + np.sum(np.power(x, 0.0)) + np.sum(x ** 0.0 * x)


case(power_zero_exponent, v3, "works")
case(power_zero_exponent, v3, "works", mode="custom", name="power_zero_exponent_at_zero",
     check=_grad_at([0.0, 0.5, -0.5], [1.0, 4.0, 1.0], "x ** 0 is 1 (slope 0) even at x = 0"))


def zero_base_power(x):
    return np.sum(0.0 ** x) + np.sum(np.power(0.0, x * x + 1.0))


case(zero_base_power, lambda r: (pos(r, 3),), "works")


def one_base_power(x):
    return np.sum(1.0 ** x) + np.sum(2.0 ** x) + np.sum(np.exp2(x))


both(one_base_power, v3, batteries=("hess", "jit", "vmap"))


def square_float_exponent_negative_base(x):
    return np.sum(x ** 2.0) + np.sum(x ** 3.0) + np.sum(np.power(x, 2.0) * x)


both(square_float_exponent_negative_base, lambda r: (vec(r, 3, -1.5, -0.2),), batteries=("hess", "jit", "vmap"))


def negative_integer_powers(x):
    return np.sum(x ** -1) + np.sum(x ** -2) + np.sum(np.power(x, -3)) + np.sum(x ** np.int64(-2))


both(negative_integer_powers, lambda r: (np.array([-1.3, 0.7, 1.6]) + vec(r, 3) * 0.1,), batteries=("hess", "jit", "vmap"))


def builtin_pow_and_math_pow(x):
    return np.sum(pow(x, 2)) + pow(x[0], 3) + np.sum(pow(x, -1.0))


both(builtin_pow_and_math_pow, lambda r: (pos(r, 3),), batteries=("hess", "jit", "vmap"))


def integer_power_of_integer_array(x):
    k = np.arange(3) ** 2
    return np.sum(x ** k) + np.sum(x * (k // 2))


both(integer_power_of_integer_array, lambda r: (pos(r, 3),), batteries=("hess", "jit", "vmap"))


def floor_divide_negative_floats(x):
    return np.sum((x // 0.3) * x) + np.sum(x // -0.7) + np.sum(np.floor_divide(x, 0.25) * x * x)


both(floor_divide_negative_floats, lambda r: (vec(r, 4, -2.0, 2.0),), batteries=("hess", "jit", "vmap"))


def remainder_negative_floats(x):
    return np.sum((x % 1.0) * x) + np.sum(x % -0.7) + np.sum(np.mod(x, 0.3) ** 2)


both(remainder_negative_floats, lambda r: (vec(r, 4, -2.0, 2.0),), batteries=("hess", "jit", "vmap"))


def fmod_versus_mod(x):
    return np.sum(np.fmod(x, 0.7) * x) + np.sum(np.remainder(x, 0.7)) + np.sum(np.fmod(x, -0.3))


both(fmod_versus_mod, lambda r: (vec(r, 4, -2.0, 2.0),), batteries=("hess", "jit", "vmap"))


def remainder_wrt_traced_divisor(x):
    return np.sum(np.remainder(x[:2], x[2:]) * 2.0) + np.sum(np.fmod(x[:2], x[2:]))


both(remainder_wrt_traced_divisor, lambda r: (np.array([1.7, -2.3, 0.6, -0.9]) + vec(r, 4) * 0.05,), batteries=("hess", "jit", "vmap"))


def divmod_builtin_on_array(x):
    q, m = divmod(x, 0.4)
    return np.sum(q * x) + np.sum(m * m)


both(divmod_builtin_on_array, lambda r: (vec(r, 4, -2.0, 2.0),), batteries=("hess", "jit", "vmap"))


def python_floor_mod_scalars(x):
    a = x[0] * 3.0
    return (a // 1.0) * x[1] + (a % 1.0) * x[2] + (-a) % 0.5


both(python_floor_mod_scalars, v3, batteries=("hess", "jit", "vmap"))


def _check_f32(point):
    """float32 inputs: the value and the gradient (its dtype float32) against float64 finite differences."""
    def check(fn, args):
        x32 = np.asarray(point, dtype=np.float32)
        value, g = astjax.value_and_grad(fn)(x32)
        want_value = fn(x32.copy())
        return [(np.result_type(g), F32, "gradient dtype follows the float32 input"),
                (value, np.float64(want_value), "value as NumPy computes it"),
                (g, fd_grad(fn, (x32.astype(np.float64),), 0)[0], "gradient")]
    return check


def f32_with_numpy_float64_scalar(x):
    return np.sum(x * np.float64(0.1)) + np.sum(x / np.float64(3.0)) + np.sum(x ** 2 * 0.5)


case(f32_with_numpy_float64_scalar, v3, "works", mode="custom", rtol=1e-3,
     check=_check_f32([0.3, -0.7, 1.1]))


def f32_with_zero_d_float64_array(x):
    c = np.array(0.25)
    return np.sum(x * c) + np.sum(x * np.ones(3)) + np.mean(x) * np.float32(2.0)


case(f32_with_zero_d_float64_array, v3, "works", mode="custom", rtol=1e-3,
     check=_check_f32([0.3, -0.7, 1.1]))


def f32_sum_dtype_float64(x):
    return x.sum(dtype=np.float64) + np.mean(x, dtype=np.float64) * 2.0 + np.sum(x.astype(np.float64) ** 2)


case(f32_sum_dtype_float64, v3, "works", mode="custom", rtol=1e-3, check=_check_f32([0.3, -0.7, 1.1]))


def f32_int_array_mixed(x):
    n = np.arange(3)
    return np.sum(x * n) + np.sum(x / (n + 1)) + np.sum(x ** n)


case(f32_int_array_mixed, v3, "works", mode="custom", rtol=1e-3, check=_check_f32([0.3, -0.7, 1.1]))


def int_array_where_float_expected(x, n):
    return np.sum(x * n) + np.sum(n / 2 * x * x) + np.mean(n) * x[0] + np.sum(n // 2 * x)


case(int_array_where_float_expected, lambda r: (vec(r, 3), np.array([1, 2, 5])), "works")


def bool_mask_multiplied_in(x):
    m = x > 0.1
    return np.sum(x * m) + np.sum(m * 2.0 * x * x) + np.sum((1 - m) * x) + np.sum(~m * x * 3.0)


both(bool_mask_multiplied_in, v4, batteries=("hess", "jit", "vmap"))


def bool_sum_then_divide(x):
    m = x > 0
    return np.sum(x * m) / max(np.sum(m), 1) + np.sum(m) / 4 * x[0]


both(bool_sum_then_divide, v4, batteries=("hess", "jit", "vmap"))


def where_vs_mask_product_same(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 2) - np.sum((x * (x > 0)) ** 2) + np.sum(x)


both(where_vs_mask_product_same, v4, batteries=("hess", "jit", "vmap"))


def sqrt_of_square_and_hypot(x):
    return np.sum(np.sqrt(x * x + 1e-3)) + np.hypot(x[0], x[1]) + np.sum(np.cbrt(x) ** 3)


both(sqrt_of_square_and_hypot, lambda r: (np.array([0.5, -0.8, 1.2]) + vec(r, 3) * 0.1,), batteries=("hess", "jit", "vmap"))


def sign_times_abs(x):
    return np.sum(np.sign(x) * np.abs(x) * x) + np.sum(np.copysign(x, -1.0)) + np.sum(np.heaviside(x, 0.5) * x)


both(sign_times_abs, v4, batteries=("hess", "jit", "vmap"))


def float_comparisons_select(x):
    y = np.select([x < -0.3, x > 0.3], [x * x, np.sin(x)], default=x * 2.0)
    return np.sum(y * np.arange(1.0, 5.0))


both(float_comparisons_select, v4, batteries=("hess", "jit", "vmap"))


def piecewise_function(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: v * v, lambda v: np.sin(v)]))


both(piecewise_function, v4, outcome="either")


def log_sum_exp_stable_by_hand(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


both(log_sum_exp_stable_by_hand, v4, batteries=("hess", "vmap"))


def log_sum_exp_with_tied_max(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


case(log_sum_exp_with_tied_max, v4, "works", mode="custom",
     check=lambda fn, args: [(astjax.grad(fn)(np.array([0.5, 0.5, 0.1, -0.3])),
                              np.exp([0.5, 0.5, 0.1, -0.3]) / np.sum(np.exp([0.5, 0.5, 0.1, -0.3])),
                              "logsumexp with a tied max: softmax exactly (the max's share cancels)")])


def integer_exponent_overflow_guard(x):
    k = np.int64(3)
    return np.sum(x ** k) + np.sum(x ** (k - 1)) + np.sum(x ** float(k))


both(integer_exponent_overflow_guard, v3, batteries=("hess", "jit", "vmap"))


def nan_to_num_and_isfinite(x):
    y = np.log(x)
    return np.sum(np.nan_to_num(y, nan=0.0, neginf=-1.0) * x) + np.sum(np.where(np.isfinite(y), y, 0.0))


case(nan_to_num_and_isfinite, lambda r: (np.array([0.5, 1.5, 2.0]) + vec(r, 3) * 0.1,), "works")


def expm1_log1p_tiny(x):
    return np.sum(np.expm1(x * 1e-6)) * 1e6 + np.sum(np.log1p(x * 1e-8)) * 1e8


both(expm1_log1p_tiny, v3, batteries=("hess", "jit", "vmap"))


def arctan2_quadrants(x):
    return np.arctan2(x[0], x[1]) + np.arctan2(-x[2], -x[3]) + np.arctan2(x[1], -0.5)


both(arctan2_quadrants, v4, batteries=("hess", "jit", "vmap"))


# ================================================================ Python at its edges
def late_binding_closures_in_loop(x):
    fs = []
    for i in range(3):
        def g(v):
            return v * i
        fs.append(g)
    return sum(f(x[0]) for f in fs) + x[1]


both(late_binding_closures_in_loop, v3)


def late_binding_lambdas_comprehension(x):
    fs = [lambda v: v ** k for k in range(1, 4)]
    return sum(f(x[0]) for f in fs) + sum(f(x[1]) for f in fs[:1])


both(late_binding_lambdas_comprehension, v3)


def early_binding_default_in_comprehension(x):
    fs = [lambda v, k=k: v ** k for k in range(1, 4)]
    return sum(f(x[0]) for f in fs)


both(early_binding_default_in_comprehension, v3)


def _scaled_sum(v, weights=np.array([1.0, 2.0, 3.0])):
    return np.sum(v * weights)


def default_array_argument(x):
    return _scaled_sum(x) + _scaled_sum(x, x)


both(default_array_argument, v3)


def _memo_square(v, cache={}):
    cache["last"] = v * v
    return cache["last"]


def mutable_default_dict_cache(x):
    return np.sum(_memo_square(x)) + np.sum(_memo_square(x[:2]) * 2.0)


both(mutable_default_dict_cache, v3, outcome="either")


def _collect(v, acc=None):
    acc = [] if acc is None else acc
    acc.append(v)
    return acc


def none_default_list_idiom(x):
    a = _collect(x[0])
    a = _collect(x[1] * 2.0, a)
    return sum(a) * x[2]


both(none_default_list_idiom, v3)


def _pairs(v):
    for i in range(len(v) - 1):
        yield v[i], v[i + 1]


def generator_of_pairs(x):
    return sum(a * b for a, b in _pairs(x))


both(generator_of_pairs, v4)


def _running(v):
    total = 0.0
    for e in v:
        total = total + e
        yield total


def generator_with_state(x):
    return sum(t * t for t in _running(x))


both(generator_with_state, v4)


def _chain(v):
    yield from _running(v)
    yield v[0] * 10.0


def yield_from_generator(x):
    return sum(_chain(x))


both(yield_from_generator, v3)


def generator_expression_consumed_twice(x):
    g = (v * v for v in x)
    first = sum(g)
    second = sum(g)
    return first + second * 100.0


both(generator_expression_consumed_twice, v3, outcome="either")


def generator_bound_then_read_once(x):
    g = (v * v for v in x)
    return sum(g) * x[0]


both(generator_bound_then_read_once, v3)


def generator_zipped_with_itself(x):
    g = (v * 2.0 for v in x)
    return sum(a * b for a, b in zip(g, g))


both(generator_zipped_with_itself, v4, outcome="either")


def generator_read_in_loop(x):
    g = (v for v in x)
    s = 0.0
    for k in range(2):
        s = s + sum(g) * (k + 1.0)
    return s


both(generator_read_in_loop, v3, outcome="either")


def _scaled_by(obj, v):
    return obj.apply(v) * 2.0


def global_instance_method_twice(x):
    return np.sum(_SCALER.apply(x) ** 2) + _SCALER.apply(x[0]) * x[1]


both(global_instance_method_twice, v3, batteries=("hess", "jit"))


def instance_passed_to_helper_calls_method(x):
    return np.sum(_scaled_by(_SCALER, x) * x)


both(instance_passed_to_helper_calls_method, v3, outcome="either")


def try_finally_rebinding_after_return(x):
    s = np.sum(x * x)
    try:
        return s
    finally:
        s = s * 3.0


both(try_finally_rebinding_after_return, v3)


def try_except_index_error(x):
    try:
        v = x[5]
    except IndexError:
        v = x[0] * 2.0
    return v * x[1]


both(try_except_index_error, v3)


def try_else_runs_without_error(x):
    s = x[0]
    try:
        s = s * 2.0
    except ValueError:
        s = s * 10.0
    else:
        s = s + x[1]
    finally:
        s = s * x[2]
    return s


both(try_else_runs_without_error, v3)


def with_errstate_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
    return np.sum(y * x)


both(with_errstate_log, lambda r: (pos(r, 3),))


def assert_on_traced_condition(x):
    assert x.shape == (3,), "shape"
    assert np.all(np.abs(x) < 10.0)
    return np.sum(x * x)


both(assert_on_traced_condition, v3)


_GAIN = [2.0]


def _jit_or_none(fn, *args):
    """jit(fn)(*args), or None where jit refuses by design what it cannot compile (a JitError)."""
    try:
        return astjax.jit(fn)(*args)
    except JitError:
        return None


def global_gain_list(x):
    return np.sum(x * _GAIN[0])


def _check_global_changes(fn, args):
    x = np.array([0.3, -0.2, 0.5])
    g1 = astjax.grad(fn)(x)
    _GAIN[0] = 5.0
    try:
        g2 = astjax.grad(fn)(x)
        g3 = _jit_or_none(astjax.grad(fn), x)
    finally:
        _GAIN[0] = 2.0
    return [(g1, np.full(3, 2.0), "first call"), (g2, np.full(3, 5.0), "after the global list changed")] + \
        ([(g3, np.full(3, 5.0), "jit(grad) after the change")] if g3 is not None else [])


case(global_gain_list, v3, "works", mode="custom", check=_check_global_changes)


class _Scaler:
    factor = 2.0

    def apply(self, v):
        return v * self.factor


_SCALER = _Scaler()


def class_attribute_changed_later(x):
    return np.sum(_SCALER.apply(x) * x)


def _check_class_attribute(fn, args):
    x = np.array([0.3, -0.2, 0.5])
    g1 = astjax.grad(fn)(x)
    _Scaler.factor = 3.0
    try:
        g2 = astjax.grad(fn)(x)
        g3 = _jit_or_none(astjax.grad(fn), x)
    finally:
        _Scaler.factor = 2.0
    return [(g1, 4.0 * x, "first"), (g2, 6.0 * x, "after the class attribute changed")] + \
        ([(g3, 6.0 * x, "jit")] if g3 is not None else [])


case(class_attribute_changed_later, v3, "works", mode="custom", check=_check_class_attribute)


class _Poly:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, v):
        out = 0.0
        for c in reversed(self.coeffs):
            out = out * v + c
        return out


_POLY = _Poly([1.0, -2.0, 0.5])


def call_object(x):
    return np.sum(_POLY(x))


both(call_object, v3)


def operator_module_functions(x):
    return (functools.reduce(operator.mul, x) + functools.reduce(operator.add, x * x, 1.0)
            + operator.truediv(x[0], 2.0) + operator.neg(x[1]) + operator.pow(x[2], 2))


both(operator_module_functions, v3)


def itertools_accumulate_product(x):
    return sum(itertools.accumulate(x, operator.mul)) + sum(itertools.accumulate(x))


both(itertools_accumulate_product, v3)


def itertools_pairwise_and_starmap(x):
    return sum(a * b for a, b in itertools.pairwise(x)) + sum(itertools.starmap(operator.mul, zip(x, x[::-1])))


both(itertools_pairwise_and_starmap, v4)


def math_on_traced_scalars(x):
    return math.sin(x[0]) + math.exp(x[1]) * math.sqrt(x[2] ** 2 + 1.0)


both(math_on_traced_scalars, v3, outcome="either")


def math_on_constants(x):
    return np.sum(x * math.pi) + math.sqrt(2.0) * x[0] + math.log(3.0) * np.sum(x ** 2)


both(math_on_constants, v3)


def builtins_over_array(x):
    return (max(x) * 2.0 + min(x) + sum(sorted(x)[:2]) + sum(v * i for i, v in enumerate(x, start=1))
            + sum(reversed(x * x)) + sum(a * b for a, b in zip(x, x[1:])))


both(builtins_over_array, v4)


def sorted_with_key_and_reverse(x):
    s = sorted(x, key=lambda v: -v)
    t = sorted(x, reverse=True)
    return s[0] * 3.0 + t[1] + sorted(x, key=abs)[0] * 2.0


both(sorted_with_key_and_reverse, v4)


def min_max_with_key_builtin(x):
    return min(x, key=abs) * 2.0 + max(x, key=lambda v: v * v)


both(min_max_with_key_builtin, v4)


def round_int_float_builtins(x):
    k = int(x[0] * 3.0)
    return float(k) * x[1] + round(x[2] * 10.0) * x[0] + float(np.sum(x)) * 0.0 + x[3]


both(round_int_float_builtins, v4, outcome="either")


def abs_builtin_on_array(x):
    return np.sum(abs(x) * x) + abs(x[0] - x[1])


both(abs_builtin_on_array, v4)


def map_zip_star(x):
    M = x.reshape(2, 3)
    cols = list(zip(*M))
    return sum(a * b for a, b in cols) + sum(map(operator.mul, x, x[::-1]))


both(map_zip_star, lambda r: (vec(r, 6),))


def any_all_on_arrays(x):
    s = np.sum(x * x)
    if any(x > 0.9) or all(x < 0.95):
        s = s + x[0]
    return s


both(any_all_on_arrays, v3)


def truthiness_of_zero_d(x):
    s = np.sum(x)
    if s:
        s = s * 2.0
    if np.array(s > 0.0):
        s = s + x[0]
    if (x > 0).any():
        s = s * x[1]
    return s


both(truthiness_of_zero_d, v3)


def chained_comparison_piecewise(x):
    s = 0.0
    for v in x:
        if -0.3 < v <= 0.4:
            s = s + v * v
        elif 0.4 < v < 10.0:
            s = s + 3.0 * v
        else:
            s = s - v
    return s


both(chained_comparison_piecewise, v4)


def ternaries_in_comprehension(x):
    return sum([v * v if v > 0 else -v for v in x]) + sum(v * 2.0 for v in x if v < 0.2)


both(ternaries_in_comprehension, v4)


def nested_comprehension_products(x):
    M = x.reshape(2, 2)
    return sum(M[i, j] * M[j, i] for i in range(2) for j in range(2) if i <= j)


both(nested_comprehension_products, v4)


def _power_of(k):
    def g(v):
        return v ** k
    return g


def function_factory_composed(x):
    sq, cube = _power_of(2), _power_of(3)
    return np.sum(sq(cube(x))) + np.sum(_power_of(1)(x))


both(function_factory_composed, v3)


def _adder(a):
    return lambda b: lambda c: a * b + c


def curried_lambdas(x):
    return _adder(x[0])(x[1])(x[2]) * x[0]


both(curried_lambdas, v3)


def closure_over_traced_factory(x):
    def make(scale):
        def h(v):
            return v * scale
        return h
    h1 = make(x[0])
    h2 = make(x[1] * 2.0)
    return np.sum(h1(x) + h2(x * x))


both(closure_over_traced_factory, v3)


def _halve_until_small(v, depth):
    if np.sum(v * v) < 0.05 or depth >= 8:
        return v * depth
    return _halve_until_small(v * 0.5, depth + 1)


def recursion_data_dependent_depth(x):
    return np.sum(_halve_until_small(x * 3.0, 0))


both(recursion_data_dependent_depth, v3)


def _tree_sum(v):
    if v.shape[0] == 1:
        return v[0] * v[0]
    mid = v.shape[0] // 2
    return _tree_sum(v[:mid]) * _tree_sum(v[mid:]) + v[0]


def recursion_on_shape(x):
    return _tree_sum(x)


both(recursion_on_shape, lambda r: (vec(r, 5),))


def while_with_data_dependent_exit(x):
    v = x.copy()
    n = 0
    while np.max(np.abs(v)) > 0.1 and n < 20:
        v = v * 0.7 + 0.01 * x
        n += 1
    return np.sum(v) * n


both(while_with_data_dependent_exit, v3)


def star_args_helper(x):
    return _weighted(*x[:3]) + _weighted(x[0], *x[1:3])


def _weighted(a, b, c):
    return a + 2.0 * b + 3.0 * c * a


both(star_args_helper, v4)


def kwargs_helper(x):
    return _kw_helper(x, scale=x[0], **{"shift": x[1]})


def _kw_helper(v, scale=1.0, shift=0.0):
    return np.sum((v - shift) * scale)


both(kwargs_helper, v3)


def dict_comprehension_and_items(x):
    d = {f"k{i}": x[i] * (i + 1) for i in range(3)}
    return sum(v * v for _, v in sorted(d.items())) + d["k0"] * d["k2"]


both(dict_comprehension_and_items, v3)


def walrus_in_while(x):
    s = 0.0
    i = 0
    while (v := x[i]) < 10.0 and i < 2:
        s = s + v * v
        i += 1
    return s


both(walrus_in_while, v3)


def global_counter_between_calls(x):
    return np.sum(x * _COUNTER[0])


_COUNTER = [1.0]
both(global_counter_between_calls, v3)


def nonlocal_accumulation(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    for v in x:
        add(v * v)
    return total


both(nonlocal_accumulation, v3)


def lambda_default_late_argument(x):
    k = 2.0
    f = lambda v, k=k: v * k  # noqa: E731
    k = 5.0
    return np.sum(f(x)) + k * x[0]


both(lambda_default_late_argument, v3)


def string_formatting_of_traced(x):
    label = f"{np.sum(x):.3f}"
    return np.sum(x * x) + len(label) * 0.0


both(string_formatting_of_traced, v3, outcome="either")


def tuple_of_arrays_in_list_sorted_by_key(x):
    items = [(x[0] * 2.0, 0), (x[1], 1), (x[2] - 1.0, 2)]
    items.sort(key=lambda t: t[0])
    return items[0][0] * 3.0 + items[-1][0]


both(tuple_of_arrays_in_list_sorted_by_key, v3)


# ================================================================ NumPy defaults that flatten, advanced indexing, bool arithmetic
def bool_plus_bool_is_or(x):
    a, b = x > 0.0, x > 0.5
    return np.sum((a + b) * x) + np.sum(np.add(a, b) * x * x) + np.sum((a * b) * 3.0 * x)


both(bool_plus_bool_is_or, v4)


def bool_sum_of_list_counts(x):
    a, b = x > 0.0, x > 0.5
    return np.sum(sum([a, b]) * x) + np.sum((a.astype(int) + b) * x * x)


both(bool_sum_of_list_counts, v4)


def bool_inplace_or(x):
    a = x > 0.5
    a += x < -0.5
    return np.sum(a * x)


both(bool_inplace_or, v4)


def bitwise_not_on_ints(x):
    n = (x > 0).astype(np.int64)
    return np.sum(~n * x) + np.sum(~(x > 0) * x * 2.0)


both(bitwise_not_on_ints, v4)


def negative_power_of_int_array(x):
    n = np.array([1, 2, 3])
    return np.sum(x * n ** -1)


case(negative_power_of_int_array, v3, "refuse", errors=(ValueError,), error_match="negative integer powers")


def sum_over_empty_axis_tuple(x):
    return np.sum(np.sum(x, axis=()) * x) + np.sum(np.mean(x, axis=()) ** 2) + np.sum(np.max(x, axis=()) * 3.0)


both(sum_over_empty_axis_tuple, m23)


def clip_crossed_bounds(x):
    return np.sum(np.clip(x, 0.5, -0.5) * x) + np.sum(np.clip(x, np.array([0.2, 0.9, -0.3, 0.0]), -0.1) * 2.0)


both(clip_crossed_bounds, v4)


def roll_without_axis_flattens(x):
    return np.sum(np.roll(x, 1) * np.arange(6.0).reshape(2, 3)) + np.sum(np.roll(x, -2) * x)


both(roll_without_axis_flattens, m23)


def repeat_take_without_axis_flatten(x):
    return np.sum(np.repeat(x, 2) * np.arange(12.0)) + np.sum(np.take(x, [0, 4]) * 3.0) + np.sum(np.take(x, -1) * x)


both(repeat_take_without_axis_flatten, m23)


def delete_insert_append_flatten(x):
    return (np.sum(np.delete(x, 1) * np.arange(5.0)) + np.sum(np.insert(x, 2, x[0, 0]) * np.arange(7.0))
            + np.sum(np.append(x, x[1]) * np.arange(9.0)))


both(delete_insert_append_flatten, m23, outcome="either")


def insert_negative_index(x):
    return np.sum(np.insert(x, -1, 5.0 * x[0]) * np.arange(5.0)) + np.sum(np.delete(x, -1) * x[1:])


both(insert_negative_index, v4, outcome="either")


def flip_rot90_all_axes(x):
    w = np.arange(6.0).reshape(2, 3)
    return np.sum(np.flip(x) * w) + np.sum(np.rot90(x) * w.T) + np.sum(np.fliplr(x) * w * w)


both(flip_rot90_all_axes, m23)


def resize_repeats_data(x):
    return np.sum(np.resize(x, (3, 3)) * np.arange(9.0).reshape(3, 3))


both(resize_repeats_data, v4, outcome="either")


def flattened_defaults_2d(x):
    return (np.sum(np.cumsum(x) * np.arange(6.0)) + np.sum(np.sort(x) * np.arange(6.0).reshape(2, 3))
            + np.median(x) + np.percentile(x, 30) * 2.0 + x.ravel()[np.argmax(x)] * 3.0 + np.sum(np.diff(x) ** 2))


both(flattened_defaults_2d, m23)


def outer_flattens_matrices(x):
    return np.sum(np.outer(x, x[0]) * np.arange(18.0).reshape(6, 3))


both(outer_flattens_matrices, m23)


def vdot_and_inner_of_matrices(x):
    return np.vdot(x, x * 2.0) + np.sum(np.inner(x, x) * np.array([[1.0, 2.0], [3.0, 4.0]]))


both(vdot_and_inner_of_matrices, m23)


def dot_of_3d_arrays(x):
    A = x.reshape(2, 2, 3)
    B = x.reshape(2, 3, 2)
    return np.sum(np.dot(A, B) * np.arange(16.0).reshape(2, 2, 2, 2))


both(dot_of_3d_arrays, lambda r: (vec(r, 12),), batteries=())


def tensordot_zero_axes_is_outer(x):
    return np.sum(np.tensordot(x, x[:2], 0) * np.arange(8.0).reshape(4, 2)) + np.tensordot(x, x, 1)


both(tensordot_zero_axes_is_outer, v4)


def convolve_same_longer_kernel(x):
    return np.sum(np.convolve(x[:2], x, "same") * np.arange(4.0)) + np.sum(np.convolve(x, x[:3], "same") ** 2)


both(convolve_same_longer_kernel, v4)


def correlate_argument_order(x):
    return np.sum(np.correlate(x, x[:2]) * np.arange(3.0)) + np.sum(np.correlate(x[:2], x, "full") * np.arange(5.0))


both(correlate_argument_order, v4)


def advanced_index_dims_first(x):
    A = x.reshape(2, 3, 4)
    B = A[0, :, [0, 1]]
    return np.sum(B * np.arange(6.0).reshape(2, 3)) + np.sum(A[[0, 1], :, [1, 2]] * np.arange(6.0).reshape(2, 3))


both(advanced_index_dims_first, lambda r: (vec(r, 24),), batteries=())


def int01_array_is_fancy_not_mask(x):
    idx = np.array([1, 0, 1, 1])
    return np.sum(x[idx] * np.arange(1.0, 5.0)) + np.sum(x[[True, False, True, False]] * 2.0)


both(int01_array_is_fancy_not_mask, v4)


def fancy_pairs_versus_ix(x):
    M = x.reshape(3, 3)
    return np.sum(M[[0, 2], [1, 2]] * 2.0) + np.sum(M[np.ix_([0, 2], [1, 2])] * np.arange(4.0).reshape(2, 2))


both(fancy_pairs_versus_ix, lambda r: (vec(r, 9),))


def broadcast_fancy_index(x):
    M = x.reshape(3, 3)
    return np.sum(M[[[0], [2]], [0, 1]] * np.arange(4.0).reshape(2, 2)) + np.sum(M[:, [1]] * M[:, 1:2])


both(broadcast_fancy_index, lambda r: (vec(r, 9),))


def boolean_mask_rows_and_columns(x):
    M = x.reshape(3, 3)
    rows = np.array([True, False, True])
    return np.sum(M[rows] * 2.0) + np.sum(M[:, rows] ** 2) + np.sum(M[M > 0.2] * 3.0)


both(boolean_mask_rows_and_columns, lambda r: (vec(r, 9),))


def zero_d_bool_index_adds_axis(x):
    y = x[True]
    return np.sum(y * np.arange(4.0)) + y.shape[0] * x[0]


both(zero_d_bool_index_adds_axis, v4, outcome="either")


def ranges_with_negative_steps(x):
    s = 0.0
    for i in range(len(x) - 1, -1, -2):
        s = s + x[i] * (i + 1.0)
    for i in range(-3, 0):
        s = s + x[i] * x[i + 1]
    return s


both(ranges_with_negative_steps, v4)


def zip_shortest_and_enumerate_reversed(x):
    s = sum(a * b for a, b in zip(x, x[:2]))
    for i, v in enumerate(x[::-1]):
        s = s + v * i
    return s


both(zip_shortest_and_enumerate_reversed, v4)


def linspace_retstep_tuple(x):
    pts, step = np.linspace(0.0, x[0], 4, retstep=True)
    return np.sum(pts * x) + step * x[1]


both(linspace_retstep_tuple, v4, outcome="either")


def linspace_single_point(x):
    return np.sum(np.linspace(x[0], x[1], 1) * 2.0) + np.sum(np.linspace(x[0], x[1], 1, endpoint=False))


both(linspace_single_point, v4)


def index_tricks_r_and_c(x):
    return np.sum(np.r_[x, 0.5, x[:2]] * np.arange(7.0)) + np.sum(np.c_[x, x * 2.0] * np.arange(8.0).reshape(4, 2))


both(index_tricks_r_and_c, v4, outcome="either")


def index_tricks_of_constants(x):
    return np.sum(np.r_[0.0, 0.5, 1.0, 2.0] * x) + np.sum(x[np.s_[1:3]] ** 2) + np.sum(np.c_[np.ones(4), np.arange(4.0)] @ x[:2])


both(index_tricks_of_constants, v4)


class _Lookup:
    def __getitem__(self, v):
        return v * 2.0


_LOOKUP = _Lookup()


def user_getitem_with_traced_index(x):
    return np.sum(_LOOKUP[x] * x) + _LOOKUP[x[0]]


both(user_getitem_with_traced_index, v3, outcome="either")


def mgrid_with_traced_bound(x):
    g = np.mgrid[0:3] * x[0]
    return np.sum(g * x[:3]) + np.sum(np.ogrid[0:2] * x[1])


both(mgrid_with_traced_bound, v4)


def block_matrix(x):
    a = x.reshape(2, 2)
    return np.sum(np.block([[a, np.eye(2)], [a.T, a * a]]) * np.arange(16.0).reshape(4, 4))


both(block_matrix, v4)


def norm_unusual_orders(x):
    return (np.linalg.norm(x, 0) * x[0] + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, -1) * 2.0
            + np.linalg.norm(x, 0.5))


both(norm_unusual_orders, lambda r: (np.array([0.5, -0.8, 1.2, -0.3]) + vec(r, 4) * 0.05,))


def interp_left_right_and_outside(x):
    xp = np.array([0.0, 0.5, 1.0])
    fp = x[:3] * 2.0
    return np.sum(np.interp(np.array([-0.5, 0.25, 0.75, 1.5]), xp, fp, left=x[3], right=-1.0) * np.arange(1.0, 5.0))


both(interp_left_right_and_outside, v4, outcome="either")


def astype_int_truncates_toward_zero(x):
    return np.sum(x.astype(np.int64) * x) + np.sum(np.trunc(x * 2.0) * x) + np.sum(np.fix(x * 3.0) + np.rint(x * 2.0) * x)


both(astype_int_truncates_toward_zero, lambda r: (vec(r, 4, -2.0, 2.0),), batteries=("hess", "jit"))


def round_half_to_even(x):
    return np.sum(np.round(x * 2.0) * np.arange(1.0, 5.0)) + np.sum(np.round(x, 1) * x) + round(x[0] * 2.0) * x[1]


def _check_values_at_ties(fn, args):
    x = np.array([1.25, 0.75, -0.25, -1.25])
    triples = [(astjax.value_and_grad(fn)(x)[0], fn(x.copy()), "value at exact .5 ties (half to even)")]
    value_jit = _jit_or_none(fn, x)
    if value_jit is not None:
        triples.append((value_jit, fn(x.copy()), "jit value at exact .5 ties"))
    return triples


case(round_half_to_even, v4, "works", mode="custom", check=_check_values_at_ties)


def int_floor_divide_negative(x):
    n = np.arange(-3, 3)
    return np.sum((n // 2) * x) + np.sum((n % 4) * x * x) + np.sum(np.floor_divide(n, -4) * x)


both(int_floor_divide_negative, lambda r: (vec(r, 6),), batteries=("hess", "jit"))


def uint8_wraparound_weights(x):
    w = np.array([250, 3, 128], dtype=np.uint8) + np.uint8(10)
    return np.sum(w * x)


both(uint8_wraparound_weights, v3, batteries=("jit",))


# ================================================================ writes into integer arrays truncate; dtypes inherited
def write_float_into_zeros_like_int(x):
    n = np.array([1, 2, 3])
    y = np.zeros_like(n)
    y[0] = x[0] * 5.0
    y[1:] = x[1:] * 7.0
    return np.sum(y * x) + np.sum(x * x)


both(write_float_into_zeros_like_int, v3, outcome="either")


def write_float_into_arange(x):
    y = np.arange(3)
    y[1] = x[1] * 10.0
    return np.sum(y * x)


both(write_float_into_arange, v3, outcome="either")


def full_with_int_fill_then_write(x):
    acc = np.full(3, 0)
    for i in range(3):
        acc[i] = x[i] ** 2 * 10.0
    return np.sum(acc * x) + np.sum(x)


both(full_with_int_fill_then_write, v3, outcome="either")


def int_list_array_iadd_float(x):
    a = np.array([1, 2, 3])
    a[0] += 0.7
    return np.sum(a * x)


both(int_list_array_iadd_float, v3)


def write_bool_into_float(x):
    y = np.zeros(3)
    y[0] = x[0] > 0
    y[1] = x[1]
    return np.sum(y * x)


both(write_bool_into_float, v3)


def empty_like_int_dtype_keyword(x):
    y = np.empty_like(x, dtype=int)
    y[:] = x * 4.0
    return np.sum(y * x)


both(empty_like_int_dtype_keyword, v3, outcome="either")


def ones_bool_dtype_positional(x):
    m = np.ones(3, bool)
    m[1] = x[1] > 5.0
    return np.sum(x * m)


both(ones_bool_dtype_positional, v3)


def inplace_power_floor_mod(x):
    y = x.copy()
    y **= 2
    z = x * 3.0
    z //= 1.0
    w = x * 2.0
    w %= 0.7
    return np.sum(y * x) + np.sum(z * x) + np.sum(w * w)


both(inplace_power_floor_mod, v3)


def negative_abs_out_self(x):
    y = x.copy()
    np.negative(y, out=y)
    np.abs(y, out=y)
    return np.sum(y * x)


both(negative_abs_out_self, v3, outcome="either")


def einsum_ellipsis_and_diag(x):
    A = x.reshape(2, 2)
    return (np.einsum("ii", A) + np.sum(np.einsum("ii->i", A) * 2.0) + np.sum(np.einsum("...i,...i->...", A, A))
            + np.sum(np.einsum("i,j->ij", x[:2], x[2:]) * np.arange(4.0).reshape(2, 2)))


both(einsum_ellipsis_and_diag, v4)


def unique_then_weighted(x):
    u = np.unique(np.round(x, 1))
    return np.sum(u) * x[0] + np.sum(x * x)


both(unique_then_weighted, v4)


def nonzero_argwhere_flatnonzero(x):
    i = np.nonzero(x > 0)[0]
    j = np.flatnonzero(x < 0)
    k = np.argwhere(x > 0.5)[:, 0]
    return np.sum(x[i] ** 2) + np.sum(x[j] * 3.0) + np.sum(x[k])


both(nonzero_argwhere_flatnonzero, v4)


def astype_float32_roundtrip(x):
    return np.sum(x.astype(np.float32).astype(np.float64) * x) + np.sum(np.float32(2.0) * x)


case(astype_float32_roundtrip, v3, "works", mode="custom", rtol=1e-6,
     check=lambda fn, args: [(astjax.grad(fn)(args[0]), args[0] + args[0].astype(np.float32) + 2.0,
                              "a cast to float32 and back has slope 1")])


def helper_keyword_only_and_defaults(x):
    return _kw_only(x, 2.0, power=3) + _kw_only(x, scale=x[0])


def _kw_only(v, scale=1.0, *, power=2):
    return np.sum(v ** power) * scale


both(helper_keyword_only_and_defaults, v3)


def helper_arguments_by_keyword_out_of_order(x):
    return _three(c=x[0], a=x[1], b=x[2]) + _three(x[0], c=2.0, b=x[1])


def _three(a, b, c):
    return a * 3.0 + b * b + c * a


both(helper_arguments_by_keyword_out_of_order, v3)


def sum_of_2d_builtin(x):
    M = x.reshape(2, 3)
    return np.sum(sum(M) * np.array([1.0, 2.0, 3.0])) + np.sum(sum(M.T) ** 2)


both(sum_of_2d_builtin, lambda r: (vec(r, 6),))


def len_and_shape_of_views(x):
    M = x.reshape(2, 3)
    return len(M) * x[0] + len(M.T) * x[1] + M.shape[-1] * x[2] + M.size * x[3] + M.ndim * x[4]


both(len_and_shape_of_views, lambda r: (vec(r, 6),))


# ================================================================ array outputs: jacrev and jacfwd against finite differences
def jac_flattening_defaults(x):
    M = x.reshape(2, 3)
    return np.concatenate([np.cumsum(M), np.roll(M, 1).ravel() * 2.0, np.sort(M, axis=None) ** 2])


case(jac_flattening_defaults, lambda r: (vec(r, 6),), "works", mode="jac")


def jac_advanced_index_order(x):
    A = x.reshape(2, 3, 2)
    return A[1, :, [0, 1]] * np.arange(6.0).reshape(2, 3)


case(jac_advanced_index_order, lambda r: (vec(r, 12),), "works", mode="jac")


def jac_bool_or_weights(x):
    return ((x > 0.0) + (x > 0.5)) * x + (x > 0.0) * 1.0 * x * x


case(jac_bool_or_weights, v4, "works", mode="jac")


def jac_keepdims_normalize(x):
    M = x.reshape(2, 3)
    return M / np.linalg.norm(M, axis=1, keepdims=True) - M.mean(axis=-1, keepdims=True)


case(jac_keepdims_normalize, lambda r: (vec(r, 6),), "works", mode="jac")


def jac_clip_crossed_and_where(x):
    return np.concatenate([np.clip(x, 0.5, -0.5), np.where(x > 0, x, 0.1 * x), np.maximum(x, x[::-1])])


case(jac_clip_crossed_and_where, v4, "works", mode="jac")


def jac_copy_then_view_writes(x):
    z = x.copy()
    z[::2] = z[1::2] * 3.0
    z[-1] *= z[0]
    return z


case(jac_copy_then_view_writes, v4, "works", mode="jac")


def jac_quantiles_and_median(x):
    return np.concatenate([np.quantile(x, [0.1, 0.5, 0.9]), np.atleast_1d(np.median(x)), np.percentile(x, [25, 75])])


case(jac_quantiles_and_median, lambda r: (vec(r, 5),), "works", mode="jac")


def jac_sum_axis_tuple_keepdims(x):
    A = x.reshape(2, 2, 2)
    return (A - A.sum(axis=(0, 2), keepdims=True)).ravel() * A.max(axis=-1).sum()


case(jac_sum_axis_tuple_keepdims, lambda r: (vec(r, 8),), "works", mode="jac")


def jac_floor_mod_negative(x):
    return np.concatenate([x % 0.7, x // -0.3 * x, np.fmod(x, -0.4)])


case(jac_floor_mod_negative, lambda r: (vec(r, 4, -2.0, 2.0),), "works", mode="jac")


def jac_triangular_loops(x):
    out = np.zeros(4)
    for i in range(4):
        for j in range(i, 4):
            out[j] += x[i] * x[j - i]
    return out


case(jac_triangular_loops, v4, "works", mode="jac")


# ================================================================ state changed between calls: every transformation sees the new state
_W = np.array([1.0, 2.0, 3.0])
_DEFAULT_W = np.array([0.5, 0.5, 0.5])


def global_array_mutated_in_place(x):
    return np.sum(_W * x * x)


def _with_default(v, w=_DEFAULT_W):
    return np.sum(w * v ** 3)


def default_array_mutated_in_place(x):
    return _with_default(x) + np.sum(x)


def _transformations(fn, x, jit=False):
    """(label, value) of the derivatives of fn at x under each transformation (and jit where it compiles)."""
    out = [("grad", astjax.grad(fn)(x)), ("value_and_grad", astjax.value_and_grad(fn)(x)[1]),
           ("jvp", astjax.jvp(fn, (x,), (np.ones(3),))[1]), ("hessian", astjax.hessian(fn)(x))]
    jitted = _jit_or_none(astjax.grad(fn), x) if jit else None
    if jitted is not None:
        out.append(("jit(grad)", jitted))
    return out


def _check_after_mutation(array, index, new, expected_grad, expected_hess, jit=False):
    def check(fn, args):
        x = np.array([0.3, -0.2, 0.5])
        triples = []
        for when in ("before", "after"):
            if when == "after":
                old = array[index]
                array[index] = new
            try:
                g, H = expected_grad(x), expected_hess(x)
                for label, got in _transformations(fn, x, jit):
                    want = {"jvp": np.sum(g), "hessian": H}.get(label, g)
                    triples.append((got, want, f"{label} {when} the array changed in place"))
            finally:
                if when == "after":
                    array[index] = old
        return triples
    return check


case(global_array_mutated_in_place, v3, "works", mode="custom",
     check=_check_after_mutation(_W, 0, 7.0, lambda x: 2.0 * _W * x, lambda x: np.diag(2.0 * _W)))
case(default_array_mutated_in_place, v3, "works", mode="custom",
     check=_check_after_mutation(_DEFAULT_W, 1, 4.0, lambda x: 3.0 * _DEFAULT_W * x * x + 1.0,
                                 lambda x: np.diag(6.0 * _DEFAULT_W * x)))
# with jit: was a silent wrong number (the disk cache's key left out the callee's default values, so the
# signature compiled again after the write loaded machine code with the old array in it)
case(default_array_mutated_in_place, v3, "works", mode="custom", name="default_array_mutated_in_place_jit",
     check=_check_after_mutation(_DEFAULT_W, 1, 4.0, lambda x: 3.0 * _DEFAULT_W * x * x + 1.0,
                                 lambda x: np.diag(6.0 * _DEFAULT_W * x), jit=True))
case(global_array_mutated_in_place, v3, "works", mode="custom", name="global_array_mutated_in_place_jit",
     check=_check_after_mutation(_W, 0, 7.0, lambda x: 2.0 * _W * x, lambda x: np.diag(2.0 * _W), jit=True))


class _Config:
    scale = 2.0


_CFG = _Config()


def instance_attribute_rebound(x):
    return np.sum(x * x) * _CFG.scale


def _check_instance_attribute(fn, args, jit=False):
    x = np.array([0.3, -0.2, 0.5])
    triples = [(got, (2.0 * x if label != "jvp" else np.sum(2.0 * x)) * 2.0 if label != "hessian" else 4.0 * np.eye(3),
                f"{label} before") for label, got in _transformations(fn, x, jit)]
    _CFG.scale = 5.0
    try:
        triples += [(got, (2.0 * x if label != "jvp" else np.sum(2.0 * x)) * 5.0 if label != "hessian"
                     else 10.0 * np.eye(3), f"{label} after the instance attribute changed")
                    for label, got in _transformations(fn, x, jit)]
    finally:
        _CFG.scale = 2.0
    return triples


case(instance_attribute_rebound, v3, "works", mode="custom", check=_check_instance_attribute)
case(instance_attribute_rebound, v3, "works", mode="custom", name="instance_attribute_rebound_jit",
     check=functools.partial(_check_instance_attribute, jit=True))


def _make_closure_loss():
    k = [1.5]

    def loss(x):
        return np.sum(x ** 2) * k[0]
    return loss, k


_CLOSURE_LOSS, _CLOSURE_K = _make_closure_loss()


def _check_closure_list_changed(fn, args, jit=False):
    x = np.array([0.3, -0.2, 0.5])
    triples = [(got, 3.0 * x if label not in ("jvp", "hessian") else (np.sum(3.0 * x) if label == "jvp" else 3.0 * np.eye(3)),
                f"{label} before") for label, got in _transformations(fn, x, jit)]
    _CLOSURE_K[0] = 4.0
    try:
        triples += [(got, 8.0 * x if label not in ("jvp", "hessian") else (np.sum(8.0 * x) if label == "jvp" else 8.0 * np.eye(3)),
                     f"{label} after the closure's list changed") for label, got in _transformations(fn, x, jit)]
    finally:
        _CLOSURE_K[0] = 1.5
    return triples


case(_CLOSURE_LOSS, v3, "works", mode="custom", check=_check_closure_list_changed, name="closure_list_item_changed")
case(_CLOSURE_LOSS, v3, "works", mode="custom", check=functools.partial(_check_closure_list_changed, jit=True),
     name="closure_list_item_changed_jit")


_SHIFT = 0.5


def global_float_rebound(x):
    return np.sum((x - _SHIFT) ** 2)


def _check_global_float_rebound(fn, args):
    global _SHIFT
    x = np.array([0.3, -0.2, 0.5])
    jg = astjax.jit(astjax.grad(fn))
    triples = []
    for shift in (0.5, -1.5):
        _SHIFT = shift
        try:
            got = jg(x)
        except JitError:
            return [(0.0, 0.0, "jit refused")]
        finally:
            _SHIFT = 0.5
        triples.append((got, 2.0 * (x - shift), f"jit(grad) with the global at {shift}"))
    return triples


case(global_float_rebound, v3, "works", mode="custom", check=_check_global_float_rebound, name="global_float_rebound_jit")
