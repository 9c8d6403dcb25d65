"""Rules that are right in their common use and wrong in some other: spectral norms,
ord through a global, scatter with repeated indices, lax.scan with tuples, prod
with a zero, powers of negative bases, determinants at singular matrices,
complex inputs, index adjoints with repeats and masks."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from .case import case, vec, mat, pos, spd, scalar
from .harness import fd_grad, fd_jacobian, fd_directional


def spectral_norm(A):
    return jnp.linalg.norm(A, 2)


case(spectral_norm, lambda r: (mat(r, 3),), "either")


def nuclear_norm(A):
    return jnp.linalg.norm(A, "nuc")


case(nuclear_norm, lambda r: (mat(r, 3),), "either")


def frobenius_norm(A):
    return jnp.linalg.norm(A, "fro") + jnp.linalg.norm(A)


case(frobenius_norm, lambda r: (mat(r, 3),), "works")


_ORD = 2


def norm_ord_from_global(A):
    return jnp.linalg.norm(A, _ORD)


case(norm_ord_from_global, lambda r: (mat(r, 3),), "either")


def norm_ord_from_argument(A, order):
    return jnp.linalg.norm(A, order)


case(norm_ord_from_argument, lambda r: (mat(r, 3), 2), "either")


def norm_inf_vector(x):
    return jnp.linalg.norm(x, np.inf)


case(norm_inf_vector, lambda r: (np.array([0.3, -0.9, 0.5]),), "either")


def norm_axis(A):
    return jnp.sum(jnp.linalg.norm(A, axis=1))


case(norm_axis, lambda r: (mat(r, 3),), "works")


def at_multiply_repeated(x, v):
    y = jnp.asarray(x).at[np.array([0, 0])].multiply(v)
    return jnp.sum(y * y)


case(at_multiply_repeated, lambda r: (vec(r, 3), vec(r, 2)), "either", argnums=(0, 1))


def at_add_repeated(x, v):
    y = jnp.asarray(x).at[np.array([0, 0, 2])].add(v)
    return jnp.sum(y ** 2)


case(at_add_repeated, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def at_max(x, v):
    y = jnp.asarray(x).at[0].max(v[0])
    return jnp.sum(y ** 2)


case(at_max, lambda r: (np.array([0.2, 0.5, -0.3]), np.array([0.7])), "works", argnums=(0, 1))


def at_min_slice(x, v):
    y = jnp.asarray(x).at[1:].min(v)
    return jnp.sum(y ** 2)


case(at_min_slice, lambda r: (np.array([0.2, 0.5, -0.3]), np.array([0.1, 0.4])), "works", argnums=(0, 1))


def at_set_out_of_bounds_dropped(x):
    y = jnp.asarray(x).at[5].set(x[0] * 10.0)
    return jnp.sum(y ** 2)


def _dropped_update_reference(x):
    return np.sum(x ** 2)


case(at_set_out_of_bounds_dropped, lambda r: (vec(r, 3),), "either", reference=_dropped_update_reference,
     note="JAX drops out-of-bounds updates; NumPy would raise")


def at_get(x):
    return jnp.sum(jnp.asarray(x).at[np.array([2, 0, 2])].get() ** 2)


case(at_get, lambda r: (vec(r, 3),), "works")


def at_set_then_read_old(x):
    y = jnp.asarray(x).at[1].set(x[0] * 3.0)
    return y[1] * x[1] + jnp.sum(y)


case(at_set_then_read_old, lambda r: (vec(r, 3),), "works")


def _scan_body_tuple(carry, xs):
    a, b = xs
    c = carry * a + b
    return c, (c, c * c)


def scan_tuple_xs_ys(x, y):
    final, (cs, sq) = lax.scan(_scan_body_tuple, 0.5, (x, y))
    return final + jnp.sum(cs) + jnp.sum(sq)


def _scan_tuple_reference(x, y):
    carry, cs, sq = 0.5, [], []
    for a, b in zip(x, y):
        carry, (c, c2) = _scan_body_tuple(carry, (a, b))
        cs.append(c)
        sq.append(c2)
    return carry + np.sum(cs) + np.sum(sq)


case(scan_tuple_xs_ys, lambda r: (vec(r, 4), vec(r, 4)), "works", argnums=(0, 1), reference=_scan_tuple_reference)


def _scan_body_cumsum(carry, x):
    carry = carry + x
    return carry, carry * carry


def scan_simple(x):
    final, ys = lax.scan(_scan_body_cumsum, 0.0, x)
    return final * jnp.sum(ys)


case(scan_simple, lambda r: (vec(r, 4),), "works")


def _scan_body_tuple_carry(carry, x):
    h, c = carry
    h = jnp.tanh(h * 0.5 + x * c)
    return (h, c * 1.1), h


def scan_tuple_carry(x):
    (h, c), hs = lax.scan(_scan_body_tuple_carry, (0.1, 0.9), x)
    return h * c + jnp.sum(hs)


case(scan_tuple_carry, lambda r: (vec(r, 4),), "works")


def _fori_body(i, carry):
    a, b = carry
    return (a * 0.9 + b, b * a)


def fori_loop_tuple_carry(x):
    a, b = lax.fori_loop(0, 3, _fori_body, (x[0], x[1]))
    return a + b


case(fori_loop_tuple_carry, lambda r: (vec(r, 2),), "works")


def _fori_body_index(i, acc):
    return acc + jnp.sin(acc) * i


def fori_loop_uses_index(x):
    return jnp.sum(lax.fori_loop(1, 4, _fori_body_index, x))


case(fori_loop_uses_index, lambda r: (vec(r, 3),), "works")


def _true_branch(v):
    return v * v


def _false_branch(v):
    return jnp.sin(v)


def lax_cond(x):
    return jnp.sum(lax.cond(x[0] > 0, _true_branch, _false_branch, x))


case(lax_cond, lambda r: (np.array([0.4, 0.2, -0.7]),), "works")


def _while_cond(c):
    return c[0] < 5


def _while_body(c):
    return (c[0] + 1, c[1] * 1.2 + 0.1)


def lax_while_loop(x):
    n, y = lax.while_loop(_while_cond, _while_body, (0, x))
    return jnp.sum(y ** 2)


case(lax_while_loop, lambda r: (vec(r, 3),), "either", note="JAX refuses reverse mode of while_loop")


def prod_with_zero(x):
    return jnp.prod(x)


case(prod_with_zero, lambda r: (np.array([0.0, 2.0, 3.0]),), "works")


def prod_with_two_zeros(x):
    return jnp.prod(x) + jnp.sum(x)


case(prod_with_two_zeros, lambda r: (np.array([0.0, 0.0, 3.0]),), "works")


def cumprod_with_zero(x):
    return jnp.sum(jnp.cumprod(x))


case(cumprod_with_zero, lambda r: (np.array([1.5, 0.0, 2.0, 3.0]),), "works")


def power_negative_base_float_exponent(x):
    return jnp.sum(x ** 2.0)


case(power_negative_base_float_exponent, lambda r: (np.array([-0.5, -1.5, 0.7]),), "works")


def power_negative_base_int_exponent(x):
    return jnp.sum(jnp.power(x, 3))


case(power_negative_base_int_exponent, lambda r: (np.array([-0.5, -1.5, 0.7]),), "works")


def power_traced_exponent(x, p):
    return jnp.sum(x ** p[0])


case(power_traced_exponent, lambda r: (pos(r, 3), np.array([1.7])), "works", argnums=(0, 1))


def power_zero_base(x):
    return jnp.sum(x ** 3.0) + jnp.sum(x ** 2)


case(power_zero_base, lambda r: (np.array([0.0, 1.0, -2.0]),), "works")


def sqrt_where_trap(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(jnp.abs(x)), 0.0))


case(sqrt_where_trap, lambda r: (np.array([0.5, -0.7, 1.3]),), "works")


def det_singular(A):
    return jnp.linalg.det(A)


case(det_singular, lambda r: (np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]]),), "works")


def det_regular(A):
    return jnp.linalg.det(A) * jnp.sum(A)


case(det_regular, lambda r: (mat(r, 3),), "works")


def slogdet_spd(A):
    sign, logdet = jnp.linalg.slogdet(A)
    return sign * logdet


case(slogdet_spd, lambda r: (spd(r, 3),), "works")


def inv_and_solve(A, b):
    return jnp.sum(jnp.linalg.inv(A) @ b) + jnp.sum(jnp.linalg.solve(A, b) ** 2)


case(inv_and_solve, lambda r: (spd(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def eigh_largest(A):
    w, v = jnp.linalg.eigh(A + A.T)
    return w[-1] + jnp.sum(v[:, -1] ** 2)


case(eigh_largest, lambda r: (np.diag([1.0, 2.0, 4.0]) + 0.1 * mat(r, 3),), "either")


def cholesky_logdet(A):
    L = jnp.linalg.cholesky(A)
    return 2.0 * jnp.sum(jnp.log(jnp.diag(L)))


case(cholesky_logdet, lambda r: (spd(r, 3),), "either",
     note="the input perturbation of FD is not symmetric; JAX symmetrizes")


def svd_singular_values(A):
    s = jnp.linalg.svd(A, compute_uv=False)
    return jnp.sum(s)


case(svd_singular_values, lambda r: (mat(r, 3),), "either")


def qr_r_diag(A):
    q, rr = jnp.linalg.qr(A)
    return jnp.sum(jnp.abs(jnp.diag(rr)))


case(qr_r_diag, lambda r: (mat(r, 3) + 2.0 * np.eye(3),), "either")


def pinv_sum(A):
    return jnp.sum(jnp.linalg.pinv(A))


case(pinv_sum, lambda r: (spd(r, 3),), "either")


def getitem_repeated_indices(x):
    return jnp.sum(x[np.array([0, 2, 2, 0])] * np.arange(1.0, 5.0))


case(getitem_repeated_indices, lambda r: (vec(r, 3),), "works")


def getitem_boolean_mask(x):
    return jnp.sum(x[x > 0] ** 2)


case(getitem_boolean_mask, lambda r: (np.array([0.5, -0.7, 1.3]),), "works")


def getitem_negative_and_reverse(x):
    return x[-1] * x[::-1][0] + jnp.sum(x[::-2] ** 2)


case(getitem_negative_and_reverse, lambda r: (vec(r, 5),), "works")


def getitem_newaxis_broadcast(x, y):
    return jnp.sum(jnp.sin(x[:, None] * y[None, :]))


case(getitem_newaxis_broadcast, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def unbroadcast_column_and_row(c, rrow):
    return jnp.sum((c + rrow) ** 2)


case(unbroadcast_column_and_row, lambda r: (vec(r, 3).reshape(3, 1), vec(r, 4).reshape(1, 4)), "works",
     argnums=(0, 1))


def unbroadcast_scalar_array(s, x):
    return jnp.sum(jnp.exp(s * x))


case(unbroadcast_scalar_array, lambda r: (scalar(r), vec(r, 3)), "works", argnums=(0, 1))


def matmul_1d_2d(x, A):
    return jnp.sum((x @ A) ** 2) + x @ x


case(matmul_1d_2d, lambda r: (vec(r, 3), mat(r, 3, 2)), "works", argnums=(0, 1))


def einsum_trace(A):
    return jnp.einsum("ii->", A @ A)


case(einsum_trace, lambda r: (mat(r, 3),), "works")


def einsum_rowwise_dot(A, B):
    return jnp.sum(jnp.einsum("ij,ij->i", A, B) ** 2)


case(einsum_rowwise_dot, lambda r: (mat(r, 3), mat(r, 3)), "works", argnums=(0, 1))


def tensordot_axes(A, B):
    return jnp.sum(jnp.tensordot(A, B, axes=([1], [0])) ** 2)


case(tensordot_axes, lambda r: (mat(r, 2, 3), mat(r, 3, 2)), "works", argnums=(0, 1))


def max_with_axis(A):
    return jnp.sum(jnp.max(A, axis=0) ** 2)


case(max_with_axis, lambda r: (np.array([[0.1, 0.9], [0.5, -0.3], [0.2, 0.4]]),), "works")


def sort_gradient(x):
    return jnp.sum(jnp.sort(x) * np.arange(1.0, 5.0))


case(sort_gradient, lambda r: (np.array([0.3, -0.5, 0.9, 0.1]),), "works")


def var_ddof(x):
    return jnp.var(x, ddof=1) + jnp.std(x)


case(var_ddof, lambda r: (vec(r, 5),), "works")


def mean_over_tuple_axes(A):
    return jnp.sum(jnp.mean(A[None] * A[:, :, None], axis=(0, 2)) ** 2)


case(mean_over_tuple_axes, lambda r: (mat(r, 3),), "works")


def logaddexp_arctan2(x, y):
    return jnp.sum(jnp.logaddexp(x, y) + jnp.arctan2(x, y + 2.0))


case(logaddexp_arctan2, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def clip_interior(x):
    return jnp.sum(jnp.clip(x, -0.5, 0.5) ** 2)


case(clip_interior, lambda r: (np.array([0.3, -0.9, 0.7, -0.2]),), "works")


def round_and_floor_are_flat(x):
    return jnp.sum(jnp.round(x * 3.0) * x + jnp.floor(x) * x ** 2)


case(round_and_floor_are_flat, lambda r: (np.array([0.3, -0.8, 0.7, 1.4]),), "works")


def where_scalar_branch(x):
    return jnp.sum(jnp.where(x > 0.0, x ** 3, 2.0))


case(where_scalar_branch, lambda r: (np.array([0.3, -0.8, 0.7]),), "works")


def softmax_cross_entropy(logits, labels):
    m = jnp.max(logits, axis=1, keepdims=True)
    logp = logits - m - jnp.log(jnp.sum(jnp.exp(logits - m), axis=1, keepdims=True))
    return -jnp.mean(jnp.sum(labels * logp, axis=1))


case(softmax_cross_entropy, lambda r: (mat(r, 3, 4), np.eye(4)[[0, 2, 3]]), "works")


def dynamic_slice_update(x):
    s = lax.dynamic_slice(x, (1,), (2,))
    y = lax.dynamic_update_slice(x, s * 3.0, (0,))
    return jnp.sum(y ** 2)


case(dynamic_slice_update, lambda r: (vec(r, 4),), "works")


def _check_complex_abs2(fn, args):
    z = args[0] + 1j * args[1]
    g = astjax.grad(fn)(z)
    gx = fd_grad(lambda a, b: fn(a + 1j * b), args, 0)[0]
    gy = fd_grad(lambda a, b: fn(a + 1j * b), args, 1)[0]
    return [(np.real(g), gx, "real part (JAX: df/dx)"), (np.imag(g), -gy, "imaginary part (JAX: -df/dy)")]


def complex_abs_squared(z):
    return jnp.sum(jnp.abs(z) ** 2 + jnp.real(z * z))


case(complex_abs_squared, lambda r: (vec(r, 3), vec(r, 3)), "either", mode="custom", check=_check_complex_abs2,
     errors=(TypeError,), error_match="complex value")      # a complex input to grad is refused


def _check_jacfwd_has_aux(fn, args):
    jac, aux = astjax.jacfwd(fn, has_aux=True)(*args)
    jac_r, aux_r = astjax.jacrev(fn, has_aux=True)(*args)
    expected = fd_jacobian(lambda x: fn(x)[0], args, 0)[0]
    return [(jac, expected, "jacfwd has_aux Jacobian"), (aux, fn(*args)[1], "jacfwd has_aux aux"),
            (jac_r, expected, "jacrev has_aux Jacobian"), (aux_r, fn(*args)[1], "jacrev has_aux aux")]


def with_aux(x):
    y = jnp.sin(x) * x[0]
    return y, jnp.sum(x)


case(with_aux, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_jacfwd_has_aux,
     name="jacfwd_jacrev_has_aux")


def pairwise_distance_matrix(X):
    D = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    return jnp.sum(jnp.exp(-D))


case(pairwise_distance_matrix, lambda r: (mat(r, 4, 2),), "works")


def negative_axis_keepdims(A):
    return jnp.sum(A / jnp.sum(A, axis=-1, keepdims=True) * A[:, -1:])


case(negative_axis_keepdims, lambda r: (mat(r, 3, lo=0.5, hi=1.5),), "works")


def relu_by_mask_multiply(x):
    return jnp.sum(x * (x > 0) + 0.1 * x * (x <= 0))


case(relu_by_mask_multiply, lambda r: (np.array([0.3, -0.6, 0.8, -0.2]),), "works")


def branch_on_data_in_triangular_loop(x):
    s = 0.0
    for i in range(4):
        for j in range(i + 1, 4):
            if x[i] > x[j]:
                s = s + (x[i] - x[j]) ** 2
            else:
                s = s + jnp.sin(x[j] - x[i])
    return s


case(branch_on_data_in_triangular_loop, lambda r: (np.array([0.1, 0.7, -0.4, 0.35]),), "works")


def scalar_times_one_element_vector(x, c):
    return jnp.sum((x * c) ** 2) + jnp.sum(c * c)


case(scalar_times_one_element_vector, lambda r: (vec(r, 3), vec(r, 1)), "works", argnums=(0, 1))


def outer_product_then_trace_like_sum(x, y):
    M = jnp.outer(x, y)
    return jnp.sum(jnp.diag(M)) + jnp.sum(M.T @ x)


case(outer_product_then_trace_like_sum, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def integer_power_loop_negative(x):
    s = 0.0
    for p in range(-2, 3):
        s = s + jnp.sum(x ** p)
    return s


case(integer_power_loop_negative, lambda r: (np.array([0.6, -0.8, 1.3]),), "works")


def expand_dims_squeeze_roundtrip(x):
    y = jnp.expand_dims(x, 0)
    z = jnp.squeeze(y * jnp.ones((2, 1)), axis=None) if False else jnp.squeeze(y, axis=0)
    return jnp.sum(jnp.sin(z) * z)


case(expand_dims_squeeze_roundtrip, lambda r: (vec(r, 3),), "works")


def reshape_with_minus_one(x):
    A = jnp.reshape(x, (-1, 2))
    return jnp.sum(A[:, 0] * A[:, 1])


case(reshape_with_minus_one, lambda r: (vec(r, 6),), "works")


def where_one_argument_nonzero(x):
    idx = jnp.where(x > 0)[0]
    return jnp.sum(x[idx] ** 2)


case(where_one_argument_nonzero, lambda r: (np.array([0.3, -0.6, 0.8, -0.2]),), "works")
