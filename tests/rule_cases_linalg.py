"""Rule cases for the linear algebra primitives (decompositions, norms, scipy.linalg): see tests/rule_cases.py.

Inputs are well conditioned with distinct eigenvalues/singular values, so the
decompositions are smooth there; eigenvector and singular-vector cases read
sign-invariant products (v * v, u[:, i] * vt[i]) since LAPACK's signs are a choice.
"""
from collections import namedtuple

import numpy as np

import scipy.linalg

import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax.rules.decompositions import with_fields

Case = namedtuple("Case", "primitive label fn args argnums")     # tests/rule_cases.py's format
_rng = np.random.default_rng(7)
CASES = []


def case(primitive, label, fn, *args, argnums=None):
    if argnums is None:
        argnums = tuple(range(len(args)))
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(argnums)))


def _array(values):
    return jnp.asarray(np.asarray(values, dtype=np.float64))


def normal(*shape):
    return _array(_rng.standard_normal(shape))


def spd(n, *batch):
    """Symmetric positive definite matrices with well separated eigenvalues."""
    q = np.linalg.qr(_rng.standard_normal(batch + (n, n)))[0]
    w = np.linspace(1.0, 2.0 + n, n)
    return _array(q @ (w[:, None] * np.swapaxes(q, -1, -2)))


def general(m, n, *batch):
    """A matrix with separated singular values (1 .. 1 + min(m, n))."""
    u = np.linalg.qr(_rng.standard_normal(batch + (m, m)))[0][..., :min(m, n)]
    v = np.linalg.qr(_rng.standard_normal(batch + (n, n)))[0][..., :min(m, n)]
    s = np.linspace(1.0, 1.0 + min(m, n), min(m, n))[::-1]
    return _array((u * s) @ np.swapaxes(v, -1, -2))


def square(n, *batch):
    return general(n, n, *batch) + _array(0.1 * _rng.standard_normal(batch + (n, n)))


# ---------------------------------------------------------------------- eigh
def eigh_both(a, w):
    vals, vecs = jnp.linalg.eigh(a)
    return jnp.sum(w * (jnp.concatenate([vals, jnp.ravel(vecs * vecs)])))


def eigh_values(a, w):
    return jnp.sum(w * jnp.linalg.eigh(a).eigenvalues)


def eigh_vectors(a, w):
    vecs = jnp.linalg.eigh(a)[1]
    return jnp.sum(w * (vecs * vecs[0]))


def eigh_batch(a, w):
    vals, vecs = jnp.linalg.eigh(a)
    return jnp.sum(w * (vecs * vecs * jnp.expand_dims(vals, -2)))


def eigvalsh_fn(a, w):
    return jnp.sum(w * jnp.linalg.eigvalsh(a))


case("eigh", "values_and_vectors", eigh_both, spd(2) + normal(2, 2) * 0.1)
case("eigh", "values_only", eigh_values, spd(4) + normal(4, 4) * 0.1)
case("eigh", "vectors_only", eigh_vectors, spd(3))
case("eigh", "batch", eigh_batch, spd(3, 2))
case("eigvalsh", "matrix", eigvalsh_fn, spd(3) + normal(3, 3) * 0.1)
case("eigvalsh", "batch", eigvalsh_fn, spd(3, 2))


# ----------------------------------------------------------------------- svd
def svd_all(a, w):
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(w * (jnp.matmul(u * s, vt) + jnp.matmul(u * u[0], vt * vt[:, :1])))


def svd_values(a, w):
    return jnp.sum(w * jnp.linalg.svd(a, compute_uv=False))


def svd_u(a, w):
    u = jnp.linalg.svd(a, full_matrices=False)[0]
    return jnp.sum(w * (u * u[:1]))


def svd_vt(a, w):
    vt = jnp.linalg.svd(a, full_matrices=False).Vh
    return jnp.sum(w * (vt * vt[:, :1]))


def svdvals_fn(x, w):
    return jnp.sum(w * jnp.linalg.svdvals(x))


case("svd", "tall", svd_all, general(3, 2))
case("svd", "wide", svd_all, general(2, 3))
case("svd", "square", svd_all, general(2, 2))
case("svd", "values", svd_values, general(3, 4))
case("svd", "u_tall", svd_u, general(4, 2))
case("svd", "vt_wide", svd_vt, general(2, 4))
case("svd", "batch_values", svd_values, general(3, 2, 2))
case("svdvals", "matrix", svdvals_fn, general(3, 4))


# ------------------------------------------------------------------------ qr
def qr_both(a, w):
    q, r = jnp.linalg.qr(a)
    return jnp.sum(w * (jnp.matmul(q * q[:, :1], r * r[:1]) + q[:, :1] * r[:1, :]))


def qr_r(a, w):
    r = jnp.linalg.qr(a, mode="r")
    return jnp.sum(w * (r * r[:1]))


def qr_q(a, w):
    q = jnp.linalg.qr(a)[0]
    return jnp.sum(w * (q * q[:1]))


case("qr", "tall", qr_both, general(3, 2))
case("qr", "square", qr_both, general(3, 3))
case("qr", "r_only", qr_r, general(4, 3))
case("qr", "q_only", qr_q, general(3, 3))


# ------------------------------------------------------------------ cholesky
def cholesky_fn(a, w):
    return jnp.sum(w * jnp.linalg.cholesky(a))


def cholesky_upper(a, w):
    return jnp.sum(w * jnp.linalg.cholesky(a, upper=True))


def cholesky_lower_triangle(a, w):
    return jnp.sum(w * jnp.linalg.cholesky(a, symmetrize_input=False))


def cholesky_upper_triangle(a, w):
    return jnp.sum(w * jnp.linalg.cholesky(a, upper=True, symmetrize_input=False))


case("cholesky", "lower", cholesky_fn, spd(3) + normal(3, 3) * 0.1)
case("cholesky", "upper", cholesky_upper, spd(3) + normal(3, 3) * 0.1)
case("cholesky", "batch", cholesky_fn, spd(3, 2))
case("cholesky", "lower_triangle_read", cholesky_lower_triangle, spd(3) + normal(3, 3) * 0.1)
case("cholesky", "upper_triangle_read", cholesky_upper_triangle, spd(3) + normal(3, 3) * 0.1)


# ------------------------------------------------------------------- slogdet
def slogdet_fn(a, w):
    sign, logdet = jnp.linalg.slogdet(a)
    return jnp.sum(w * (sign * logdet))


def slogdet_field(a, w):
    return jnp.sum(w * jnp.linalg.slogdet(a).logabsdet)


case("slogdet", "matrix", slogdet_fn, square(3))
case("slogdet", "batch_field", slogdet_field, square(3, 2))


# --------------------------------------------------------------- pinv & co.
def pinv_fn(a, w):
    return jnp.sum(w * jnp.linalg.pinv(a))


def matrix_power_fn(a, w):
    return jnp.sum(w * jnp.linalg.matrix_power(a, 3))


def matrix_power_negative(a, w):
    return jnp.sum(w * jnp.linalg.matrix_power(a, -2))


def matrix_power_zero(a, w):
    return jnp.sum(w * jnp.linalg.matrix_power(a, 0))


def cond_fn(x, w):
    return jnp.sum(w * jnp.linalg.cond(x))


def cond_minus2(x, w):
    return jnp.sum(w * jnp.linalg.cond(x, -2))


def cond_fro(x, w):
    return jnp.sum(w * jnp.linalg.cond(x, "fro"))


def cond_one(x, w):
    return jnp.sum(w * jnp.linalg.cond(x, 1))


case("pinv", "wide", pinv_fn, general(2, 3))
case("pinv", "tall", pinv_fn, general(4, 3))
case("matrix_power", "cube", matrix_power_fn, square(3) * 0.5)
case("matrix_power", "negative", matrix_power_negative, square(3))
case("matrix_power", "zero", matrix_power_zero, square(2))
case("cond", "two", cond_fn, general(2, 2))
case("cond", "minus_two", cond_minus2, general(3, 3))
case("cond", "fro", cond_fro, square(3))
case("cond", "one", cond_one, square(3))


# ---------------------------------------------------------------------- norm
def norm_ord(x, ord, w):
    return jnp.sum(w * jnp.linalg.norm(x, ord))


def norm_ord_axis(x, ord, axis, w):
    return jnp.sum(w * jnp.linalg.norm(x, ord, axis))


def norm_ord_axis_keepdims(x, ord, axis, w):
    return jnp.sum(w * jnp.linalg.norm(x, ord, axis, True))


# Float orders are written in the case functions (a float argument would get a tangent in the JVP test).
def norm_inf(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, np.inf))


def norm_minus_inf(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, -np.inf))


def norm_half(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, 0.5))


def norm_minus_2_5(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, ord=-2.5))


def norm_fro(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, "fro"))


def norm_nuc(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, "nuc"))


def norm_nuc_axes(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, "nuc", (2, 0)))


def norm_inf_axis_keepdims(x, w):
    return jnp.sum(w * jnp.linalg.norm(x, np.inf, -1, keepdims=True))


_vector = normal(5)
for _ord, _label in ((None, "none"), (2, "two"), (1, "one"), (-1, "minus_one"), (0, "zero"), (3, "three")):
    case("norm", f"vector_{_label}", norm_ord, _vector, _ord, argnums=(0,))
for _fn in (norm_inf, norm_minus_inf, norm_half, norm_minus_2_5):
    case("norm", "vector_" + _fn.__name__[5:], _fn, _vector)
_matrix = general(3, 4) + normal(3, 4) * 0.1
case("norm", "matrix_fro", norm_fro, _matrix)
case("norm", "matrix_nuc", norm_nuc, _matrix)
for _ord, _label in ((None, "none"), (2, "two"), (-2, "minus_two"),
                     (1, "one"), (-1, "minus_one")):
    case("norm", f"matrix_{_label}", norm_ord, _matrix, _ord, argnums=(0,))
case("norm", "matrix_inf", norm_inf, _matrix)
case("norm", "matrix_minus_inf", norm_minus_inf, _matrix)
_batch = normal(2, 3, 4)
case("norm", "vector_axis_p", norm_ord_axis, _batch, 3, 1, argnums=(0,))
case("norm", "vector_axis_inf_keepdims", norm_inf_axis_keepdims, _batch)
case("norm", "matrix_axes_nuc", norm_nuc_axes, _batch)
case("norm", "matrix_axes_two_keepdims", norm_ord_axis_keepdims, _batch, 2, (1, 2), argnums=(0,))
case("norm", "matrix_axes_one", norm_ord_axis, _batch, 1, (0, 1), argnums=(0,))
case("norm", "matrix_axes_minus_one_keepdims", norm_ord_axis_keepdims, _batch, -1, (-1, -2), argnums=(0,))


# --------------------------------------------------------------- solve batch
def solve_fn(a, b, w):
    return jnp.sum(w * jnp.linalg.solve(a, b))


def inv_fn(a, w):
    return jnp.sum(w * jnp.linalg.inv(a))


def det_fn(a, w):
    return jnp.sum(w * jnp.linalg.det(a))


case("solve", "batch_vector_b", solve_fn, square(3, 2), normal(3))
case("solve", "batch_matrix_b", solve_fn, square(3, 2), normal(2, 3, 4))
case("solve", "broadcast_matrix_b", solve_fn, square(3, 2), normal(3, 2))
case("inv", "batch", inv_fn, square(3, 2))
case("det", "batch", det_fn, square(3, 2))


# ---------------------------------------------------------- lstsq & friends
def lstsq_all(a, b, w):
    x, residuals, rank, s = jnp.linalg.lstsq(a, b)
    return jnp.sum(w * jnp.concatenate([jnp.ravel(x), residuals, s]))


def lstsq_x(a, b, w):
    return jnp.sum(w * jnp.linalg.lstsq(a, b)[0])


def multi_dot_fn(a, b, c, w):
    return jnp.sum(w * jnp.linalg.multi_dot([a, b, c]))


def multi_dot_four(a, b, c, d, w):
    return jnp.sum(w * jnp.linalg.multi_dot([a, b, c, d]))


def tensorinv_fn(a, w):
    return jnp.sum(w * jnp.linalg.tensorinv(a, ind=2))


def tensorsolve_fn(a, b, w):
    return jnp.sum(w * jnp.linalg.tensorsolve(a, b))


case("lstsq", "tall_vector", lstsq_all, general(3, 2), normal(3))
case("lstsq", "tall_matrix", lstsq_all, general(4, 2), normal(4, 3))
case("lstsq", "wide", lstsq_x, general(2, 3), normal(2))
case("multi_dot", "matrices", multi_dot_fn, normal(2, 3), normal(3, 2), normal(2, 2))
case("multi_dot", "vector_ends", multi_dot_four, normal(3), normal(3, 4), normal(4, 2), normal(2))
case("multi_dot", "some_constant", multi_dot_fn, normal(2, 3), normal(3, 4), normal(4), argnums=(0, 2))
case("tensorinv", "ind2", tensorinv_fn, _array(np.reshape(np.asarray(square(6)), (2, 3, 6))))
case("tensorsolve", "rank3", tensorsolve_fn, _array(np.reshape(np.asarray(square(6)), (2, 3, 6))), normal(2, 3))


# -------------------------------------------------------------- scipy.linalg
def cho_factor_fn(a, w):
    c, lower = jsl.cho_factor(a, lower=True)
    return jnp.sum(w * c)


def cho_factor_upper(a, w):
    return jnp.sum(w * jsl.cho_factor(a)[0])


def scipy_cho_factor_fn(a, w):
    return jnp.sum(w * scipy.linalg.cho_factor(a)[0])


def scipy_cho_factor_lower(a, w):
    return jnp.sum(w * scipy.linalg.cho_factor(a, lower=True)[0])


def cho_solve_fn(a, b, w):
    return jnp.sum(w * jsl.cho_solve(jsl.cho_factor(a), b))


def cho_solve_lower_vector(a, b, w):
    factor = jsl.cho_factor(a, lower=True)
    return jnp.sum(w * jsl.cho_solve(factor, b))


def cho_solve_scipy_pair(a, b, w):
    c, lower = scipy.linalg.cho_factor(a)
    return jnp.sum(w * scipy.linalg.cho_solve((c, lower), b))


def cho_solve_of_cholesky(a, b, w):
    return jnp.sum(w * jsl.cho_solve((jnp.linalg.cholesky(a), True), b))


def solve_triangular_fn(a, b, w):
    return jnp.sum(w * jsl.solve_triangular(a, b, lower=True))


def solve_triangular_upper_trans(a, b, w):
    return jnp.sum(w * jsl.solve_triangular(a, b, trans=1))


def solve_triangular_unit(a, b, w):
    return jnp.sum(w * scipy.linalg.solve_triangular(a, b, trans="T", lower=True, unit_diagonal=True))


def expm_fn(A, w):
    return jnp.sum(w * jsl.expm(A))


def block_diag_fn(a, b, c, w):
    return jnp.sum(w * jsl.block_diag(a, b, c))


def lu_fn(a, w):
    p, l, u = jsl.lu(a)
    return jnp.sum(w * (jnp.matmul(p, l) + u * u))


def lu_permute(a, w):
    pl, u = jsl.lu(a, permute_l=True)
    return jnp.sum(w * (pl * pl + u))


def lu_factor_fn(a, w):
    return jnp.sum(w * jsl.lu_factor(a)[0])


def lu_solve_fn(a, b, w):
    return jnp.sum(w * jsl.lu_solve(jsl.lu_factor(a), b))


def lu_solve_trans(a, b, w):
    return jnp.sum(w * scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=1))


def scipy_solve_fn(a, b, w):
    return jnp.sum(w * scipy.linalg.solve(a, b))


def scipy_eigh_fn(a, w):
    vals, vecs = scipy.linalg.eigh(a)
    return jnp.sum(w * (vals + vecs[0] * vecs[0]))


def scipy_eigh_upper_values(a, w):
    return jnp.sum(w * jsl.eigh(a, lower=False, eigvals_only=True))


_near_spd = spd(3) + normal(3, 3) * 0.1
case("cho_factor", "lower", cho_factor_fn, _near_spd)
case("cho_factor", "upper", cho_factor_upper, _near_spd)
case("scipy_cho_factor", "upper", scipy_cho_factor_fn, _near_spd)
case("scipy_cho_factor", "lower", scipy_cho_factor_lower, _near_spd)
case("cho_solve", "matrix_b", cho_solve_fn, spd(2) + normal(2, 2) * 0.1, normal(2, 2))
case("cho_solve", "lower_vector_b", cho_solve_lower_vector, _near_spd, normal(3))
case("cho_solve", "scipy_pair", cho_solve_scipy_pair, _near_spd, normal(3))
case("cho_solve", "of_cholesky", cho_solve_of_cholesky, spd(3), normal(3, 2))
_tri = _array(np.tril(np.asarray(normal(3, 3))) * 0.3 + 2.0 * np.eye(3) + np.triu(np.asarray(normal(3, 3)), 1))
case("solve_triangular", "lower", solve_triangular_fn, _tri, normal(3))
case("solve_triangular", "upper_trans", solve_triangular_upper_trans, _array(np.asarray(_tri).T), normal(3, 2))
case("solve_triangular", "unit_trans", solve_triangular_unit, _tri, normal(3))
case("expm", "matrix", expm_fn, normal(3, 3) * 0.5)
case("block_diag", "mixed", block_diag_fn, normal(2, 3), normal(2), normal(1, 2))
case("lu", "plu", lu_fn, square(2))
case("lu", "permute_l", lu_permute, square(3))
case("lu_factor", "matrix", lu_factor_fn, square(2))
case("lu_solve", "vector", lu_solve_fn, square(2), normal(2))
case("lu_solve", "trans_matrix", lu_solve_trans, square(3), normal(3, 2))
case("scipy_solve", "vector", scipy_solve_fn, square(2), normal(2))
case("scipy_eigh", "pair", scipy_eigh_fn, spd(2) + normal(2, 2) * 0.1)
case("scipy_eigh", "upper_values", scipy_eigh_upper_values, _near_spd)


# --------------------------------------------------------------- with_fields
def with_fields_fn(x1, x2, w):
    pair = with_fields((x1, x2), [x1 * x2, x2])
    return jnp.sum(w * (pair[0] + 2.0 * pair[1]))


case("with_fields", "pair", with_fields_fn, normal(3), normal(3))


# ----------------------------------------------------------------------- fft
def fftshift_fn(x, w):
    return jnp.sum(w * jnp.fft.fftshift(x))


def ifftshift_axes(x, w):
    return jnp.sum(w * np.fft.ifftshift(x, axes=1))


def fftfreq_fn(d, w):
    return jnp.sum(w * jnp.fft.fftfreq(5, d))


def rfftfreq_fn(d, w):
    return jnp.sum(w * np.fft.rfftfreq(6, d=d))


case("fftshift", "all_axes", fftshift_fn, normal(3, 4))
case("ifftshift", "axis_1", ifftshift_axes, normal(3, 5))
case("fftfreq", "spacing", fftfreq_fn, _array(0.3))
case("rfftfreq", "spacing", rfftfreq_fn, _array(0.7))


# ------------------------------------------- NumPy's one-triangle cholesky, eigh, eigvalsh
def np_cholesky_fn(a, w):
    return jnp.sum(w * np.linalg.cholesky(a))


def np_cholesky_upper(a, w):
    return jnp.sum(w * np.linalg.cholesky(a, upper=True))


def np_eigh_fn(a, w):
    vals, vecs = np.linalg.eigh(a)
    return jnp.sum(w * (vals + vecs[0] * vecs[0]))


def np_eigh_upper(a, w):
    return jnp.sum(w * np.linalg.eigh(a, UPLO="U")[0])


def np_eigvalsh_fn(a, w):
    return jnp.sum(w * np.linalg.eigvalsh(a))


def np_eigvalsh_upper(a, w):
    return jnp.sum(w * np.linalg.eigvalsh(a, "U"))


_skew = spd(3) + normal(3, 3) * 0.2
case("numpy_cholesky", "lower", np_cholesky_fn, _skew)
case("numpy_cholesky", "upper", np_cholesky_upper, _skew)
case("numpy_eigh", "lower", np_eigh_fn, spd(2) + normal(2, 2) * 0.2)
case("numpy_eigh", "upper", np_eigh_upper, _skew)
case("numpy_eigvalsh", "lower", np_eigvalsh_fn, _skew)
case("numpy_eigvalsh", "upper", np_eigvalsh_upper, _skew)
