"""Library calls: values built by calls astjax may not understand (lists into np.sum,
nested scalars into jnp.array, array methods, creation functions with traced values,
tree_util, functions without rules). A call not understood must be refused, never a constant."""
import math

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import tree_util

from .case import case, vec, mat, pos, spd, scalar


def np_sum_of_list_literal(x):
    return np.sum([x, 2 * x, x * x])


case(np_sum_of_list_literal, lambda r: (vec(r, 3),), "works")


def np_sum_of_comprehension(a):
    return np.sum([i * 3 for i in a])


case(np_sum_of_comprehension, lambda r: (vec(r, 3),), "works")


def jnp_array_nested_scalars(theta):
    c, s = jnp.cos(theta[0]), jnp.sin(theta[0])
    R = jnp.array([[c, -s], [s, c]])
    v = jnp.array([1.0, 2.0])
    return jnp.sum((R @ v) * theta[1])


case(jnp_array_nested_scalars, lambda r: (vec(r, 2),), "works")


def np_stack_of_scalars(x):
    v = np.stack([x[0] * x[1], np.sin(x[2]), x[0]])
    return np.dot(v, v)


case(np_stack_of_scalars, lambda r: (vec(r, 3),), "works")


def method_cumprod(x):
    return x.cumprod()[-1] + x.cumprod().sum()


case(method_cumprod, lambda r: (pos(r, 4),), "works")


def method_cumsum(x):
    return jnp.sum(x.cumsum() ** 2)


case(method_cumsum, lambda r: (vec(r, 4),), "works")


def method_diagonal(A):
    return jnp.sum(A.diagonal() ** 2)


case(method_diagonal, lambda r: (mat(r, 3),), "works")


def method_trace(A):
    return A.trace() * A[0, 1]


case(method_trace, lambda r: (mat(r, 3),), "works")


def method_take(x):
    return jnp.sum(x.take(np.array([0, 2, 2])) ** 2)


case(method_take, lambda r: (vec(r, 3),), "works")


def method_repeat(x):
    return jnp.sum(x.repeat(2) * np.arange(6.0))


case(method_repeat, lambda r: (vec(r, 3),), "works")


def method_sum_axis_keepdims(A):
    return jnp.sum(A / A.sum(axis=1, keepdims=True) * A)


case(method_sum_axis_keepdims, lambda r: (mat(r, 3, lo=0.5, hi=1.5),), "works")


def method_mean_std(x):
    return x.mean() * x.std()


case(method_mean_std, lambda r: (vec(r, 5),), "works")


def method_max_and_clip(x):
    return x.max() + jnp.sum(x.clip(-0.5, 0.5))


case(method_max_and_clip, lambda r: (np.array([0.1, 0.9, -0.3, 0.2]),), "works")


def method_prod(x):
    return x.prod()


case(method_prod, lambda r: (pos(r, 4),), "works")


def method_dot_T_reshape(A):
    B = A.reshape(2, 3)
    return (B.dot(B.T)).sum() + B.T.ravel()[1]


case(method_dot_T_reshape, lambda r: (vec(r, 6),), "works")


def method_flatten_squeeze(A):
    return jnp.sum(A[None, :, :].squeeze().flatten() ** 3)


case(method_flatten_squeeze, lambda r: (mat(r, 2, 3),), "works")


def method_astype_float(x):
    return jnp.sum(x.astype(np.float64) ** 2)


case(method_astype_float, lambda r: (vec(r, 3),), "works")


def method_astype_int_kills_gradient(x):
    return jnp.sum(x * x.astype(np.int64))


case(method_astype_int_kills_gradient, lambda r: (np.array([1.3, 2.6, -1.4]),), "works")


def full_with_traced_fill(x):
    return jnp.sum(jnp.full((3,), x[0]) * x)


case(full_with_traced_fill, lambda r: (vec(r, 3),), "works")


def full_like_traced(x):
    return jnp.sum(jnp.full_like(x, x[1]) ** 2)


case(full_like_traced, lambda r: (vec(r, 3),), "works")


def linspace_traced_end(x):
    return jnp.sum(jnp.linspace(0.0, x[0], 5) ** 2)


case(linspace_traced_end, lambda r: (vec(r, 2),), "works")


def meshgrid_traced(x, y):
    X, Y = jnp.meshgrid(x, y)
    return jnp.sum(jnp.sin(X) * Y)


case(meshgrid_traced, lambda r: (vec(r, 3), vec(r, 2)), "works", argnums=(0, 1))


def np_full_traced(x):
    return np.sum(np.full((2, 2), x[0]) @ np.ones(2) * x[1])


case(np_full_traced, lambda r: (vec(r, 2),), "works")


def zeros_then_fill_via_at(x):
    y = jnp.zeros(3, dtype=x.dtype)
    y = y.at[1].set(x[0] * 2.0)
    return jnp.sum(y * x)


case(zeros_then_fill_via_at, lambda r: (vec(r, 3),), "works")


def tree_leaves_l2(params):
    return sum(jnp.sum(p ** 2) for p in tree_util.tree_leaves(params))


case(tree_leaves_l2, lambda r: ({"w": vec(r, 3), "b": vec(r, 2)},), "works")


def tree_leaves_l2_loop(params, x):
    loss = jnp.sum((params["w"] * x) ** 2)
    for leaf in tree_util.tree_leaves(params):
        loss = loss + 0.01 * jnp.sum(leaf ** 2)
    return loss


case(tree_leaves_l2_loop, lambda r: ({"w": vec(r, 3), "b": vec(r, 2)}, vec(r, 3)), "works")


def tree_map_in_loss(params):
    scaled = tree_util.tree_map(lambda p: p * 2.0, params)
    return jnp.sum(scaled["w"] * params["b"])


case(tree_map_in_loss, lambda r: ({"w": vec(r, 3), "b": vec(r, 3)},), "works")


def math_functions_on_scalars(x):
    return math.sin(x[0]) * math.exp(x[1])


case(math_functions_on_scalars, lambda r: (vec(r, 2),), "either")


def np_function_without_rule_sinc(x):
    return np.sum(np.sinc(x))


case(np_function_without_rule_sinc, lambda r: (vec(r, 3),), "either")


def np_polyval(x):
    return np.polyval(np.array([1.0, -2.0, 0.5]), x[0]) * x[1]


case(np_polyval, lambda r: (vec(r, 2),), "either")


def np_interp_traced(x):
    return np.interp(0.3, np.array([0.0, 1.0]), x)


case(np_interp_traced, lambda r: (vec(r, 2),), "either")


def np_convolve(x):
    return np.sum(np.convolve(x, np.array([1.0, 0.5])) ** 2)


case(np_convolve, lambda r: (vec(r, 3),), "either")


def np_diff_and_gradient(x):
    return np.sum(np.diff(x) ** 2)


case(np_diff_and_gradient, lambda r: (vec(r, 4),), "either")


def np_cross(x):
    return np.sum(np.cross(x, np.array([0.3, 0.2, 0.1])) ** 2)


case(np_cross, lambda r: (vec(r, 3),), "either")


def np_kron(x):
    return np.sum(np.kron(x, x) * np.arange(9.0))


case(np_kron, lambda r: (vec(r, 3),), "either")


def np_linalg_inv(A):
    return np.sum(np.linalg.inv(A))


case(np_linalg_inv, lambda r: (spd(r, 3),), "either")


def np_linalg_solve(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


case(np_linalg_solve, lambda r: (spd(r, 3), vec(r, 3)), "either", argnums=(0, 1))


def np_linalg_det(A):
    return np.linalg.det(A)


case(np_linalg_det, lambda r: (spd(r, 3),), "either")


def np_linalg_slogdet(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet


case(np_linalg_slogdet, lambda r: (spd(r, 3),), "either")


def np_linalg_eigh(A):
    w, v = np.linalg.eigh(A + A.T)
    return w[-1]


case(np_linalg_eigh, lambda r: (spd(r, 3),), "either")


def np_linalg_cholesky(A):
    L = np.linalg.cholesky(A)
    return np.sum(L * L[0, 0])


case(np_linalg_cholesky, lambda r: (spd(r, 3),), "either")


def np_einsum(A, x):
    return np.einsum("ij,j,i->", A, x, x)


case(np_einsum, lambda r: (mat(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def np_where_traced(x):
    return np.sum(np.where(x > 0.0, x ** 2, -x))


case(np_where_traced, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


def np_maximum_relu(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


case(np_maximum_relu, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


def np_sort_then_take(x):
    return np.sort(x)[-1] * 2.0 + np.sort(x)[0]


case(np_sort_then_take, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


def np_argmax_index(x):
    i = np.argmax(x)
    return x[i] ** 2 + x[0]


case(np_argmax_index, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


def np_concatenate_split(x):
    y = np.concatenate([x, x ** 2])
    a, b = np.split(y, 2)
    return np.sum(a * b)


case(np_concatenate_split, lambda r: (vec(r, 3),), "works")


def np_pad_roll(x):
    y = np.roll(np.pad(x, 1), 1)
    return np.sum(y * np.arange(5.0))


case(np_pad_roll, lambda r: (vec(r, 3),), "works")


def np_tile_outer(x):
    return np.sum(np.tile(x, 2) * np.outer(x, x).ravel()[:6])


case(np_tile_outer, lambda r: (vec(r, 3),), "works")


def np_logsumexp_by_hand(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


case(np_logsumexp_by_hand, lambda r: (vec(r, 4),), "works")


def np_float_of_traced(x):
    return float(x[0]) * x[1]


case(np_float_of_traced, lambda r: (vec(r, 2),), "either")


def np_item_of_traced(x):
    return x[0].item() * x[1]


case(np_item_of_traced, lambda r: (vec(r, 2),), "either")


def np_tolist_of_traced(x):
    vals = x.tolist()
    return vals[0] * x[1]


case(np_tolist_of_traced, lambda r: (vec(r, 2),), "either")


def np_asarray_of_list_with_constants(x):
    v = np.asarray([x[0], 1.0, x[1] * 3.0])
    return np.sum(np.cumsum(v) ** 2)


case(np_asarray_of_list_with_constants, lambda r: (vec(r, 2),), "works")


def jnp_vectorize_like_apply_along_axis(A):
    return np.sum(np.apply_along_axis(np.sum, 1, A) ** 2)


case(jnp_vectorize_like_apply_along_axis, lambda r: (mat(r, 2, 3),), "either")


def np_frompyfunc_style_vectorize(x):
    f = np.vectorize(lambda v: v * v)
    return np.sum(f(x))


case(np_frompyfunc_style_vectorize, lambda r: (vec(r, 3),), "either")


def np_norm_vector(x):
    return np.linalg.norm(x) + np.linalg.norm(x, 1)


case(np_norm_vector, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


def np_trace_and_diag(A):
    return np.trace(A @ A) + np.sum(np.diag(np.diag(A)) ** 2)


case(np_trace_and_diag, lambda r: (mat(r, 3),), "works")


def np_triu_tril(A):
    return np.sum(np.triu(A, 1) * np.tril(A, -1).T)


case(np_triu_tril, lambda r: (mat(r, 3),), "works")


def np_take_along_axis(A):
    idx = np.argsort(A, axis=1)
    return np.sum(np.take_along_axis(A, idx, axis=1) * np.arange(3.0))


case(np_take_along_axis, lambda r: (mat(r, 3),), "works")


def np_abs_sign_hypot(x):
    return np.sum(np.abs(x) * np.sign(x) + np.hypot(x, 2.0))


case(np_abs_sign_hypot, lambda r: (np.array([0.3, -0.4, 0.8]),), "works")


from numpy import sin as np_sin_alias  # noqa: E402
from numpy import cos  # noqa: E402


def functions_imported_by_name(x):
    return np.sum(np_sin_alias(x) * cos(x))


case(functions_imported_by_name, lambda r: (vec(r, 3),), "works")


def numpy_scalar_constructors(x):
    return np.float64(x[0]) * x[1] + np.float32(2.0) * x[2]


case(numpy_scalar_constructors, lambda r: (vec(r, 3),), "works")


def mod_and_floordiv_of_traced(x):
    return jnp.sum((x % 1.0) ** 2 + (x // 1.0) * x)


case(mod_and_floordiv_of_traced, lambda r: (np.array([0.3, 1.6, -0.45]),), "works")


def array_copy_constructors(x):
    a = jnp.array(x)
    b = np.array(x, dtype=np.float64)
    c = jnp.asarray(x) * 1.0
    return jnp.sum(a * b * c)


case(array_copy_constructors, lambda r: (vec(r, 3),), "works")


def real_imag_conj_of_real(x):
    return jnp.sum(x.real * x.conj() + x.imag)


case(real_imag_conj_of_real, lambda r: (vec(r, 3),), "works")


def shape_attributes_in_bounds(x):
    s = 0.0
    for i in range(x.size - x.ndim):
        s = s + x[i] * x[i + 1] * len(x)
    return s + x.T[0]


case(shape_attributes_in_bounds, lambda r: (vec(r, 4),), "works")


def math_sqrt_of_traced(x):
    return math.sqrt(x[0]) * x[1]


case(math_sqrt_of_traced, lambda r: (pos(r, 2),), "either")


def np_local_rebinding(x):
    np = jnp  # noqa: F811 -- the function rebinds the module name locally
    return np.sum(np.sin(x) ** 2)


case(np_local_rebinding, lambda r: (vec(r, 3),), "works")


def reductions_with_where_argument(x):
    return jnp.sum(x ** 2, where=x > 0) + jnp.max(x, initial=-10.0)


case(reductions_with_where_argument, lambda r: (np.array([0.3, -0.6, 0.8]),), "either")


def cumsum_reverse_via_flip(x):
    return jnp.sum(jnp.flip(jnp.cumsum(jnp.flip(x))) * jnp.arange(1.0, 5.0))


case(cumsum_reverse_via_flip, lambda r: (vec(r, 4),), "works")


def np_mean_axis_tuple_and_ddof(A):
    return np.sum(np.mean(A, axis=(0,)) ** 2) + np.var(A, ddof=1)


case(np_mean_axis_tuple_and_ddof, lambda r: (mat(r, 3),), "works")
