"""Rule cases (tests/test_rules.py) for the rest of jax.scipy.linalg (astjax/rules/scipy_linalg_more.py).

Same format as tests/rule_cases.py. Decomposition cases read sign-invariant products (q * q, u[:, 0] * vh[0])
since LAPACK's signs are a choice; inputs have well separated singular values / eigenvalues.
"""
import numpy as np

import scipy.linalg

import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax import lax
from rule_cases_linalg import Case, general, normal, spd, square

CASES = []


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


def cholesky_upper(a, w):
    return jnp.sum(w * jsl.cholesky(a))


def cholesky_lower_scipy(a, w):
    return jnp.sum(w * scipy.linalg.cholesky(a, lower=True))


def qr_full(a, w):
    q, r = jsl.qr(a)
    return jnp.sum(w * (q * q + r))


def qr_economic(a, w):
    q, r = scipy.linalg.qr(a, mode="economic")
    return jnp.sum(w * (r * r)) + jnp.sum(q * q)


def qr_r(a, w):
    r, = jsl.qr(a, mode="r")
    return jnp.sum(w * r * r)


def svd_pair(a, w):
    u, s, vh = scipy.linalg.svd(a, full_matrices=False)
    return jnp.sum(w * (s + u[0] * vh[:, 0]))


def polar_right(a, w):
    u, p = jsl.polar(a)
    return jnp.sum(w * (u + p * p))


def polar_left_scipy(a, w):
    u, p = scipy.linalg.polar(a, side="left")
    return jnp.sum(w * u) + jnp.sum(p * p)


def eigh_tridiagonal_values(d, e, w):
    return jnp.sum(w * scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True))


def eigh_tridiagonal_pair(d, e, w):
    vals, vecs = jsl.eigh_tridiagonal(d, e)
    return jnp.sum(w * vals) + jnp.sum(vecs * vecs * jnp.arange(9.0).reshape(3, 3))


def expm_frechet_pair(A, E, w):
    e, l = jsl.expm_frechet(A, E)
    return jnp.sum(w * (e + 2.0 * l))


def expm_frechet_alone(A, E, w):
    return jnp.sum(w * scipy.linalg.expm_frechet(A, E, compute_expm=False))


def toeplitz_cr(c, r, w):
    return jnp.sum(w * jsl.toeplitz(c, r) ** 2)


def toeplitz_c(c, w):
    return jnp.sum(w * scipy.linalg.toeplitz(c) ** 2)


def hankel_cr(c, r, w):
    return jnp.sum(w * jsl.hankel(c, r) ** 2)


def hankel_c(c, w):
    return jnp.sum(w * scipy.linalg.hankel(c) ** 2)


def circulant_fn(c, w):
    return jnp.sum(w * jsl.circulant(c) ** 2)


def scipy_sqrtm_fn(a, w):
    return jnp.sum(w * scipy.linalg.sqrtm(a))


_tri = np.random.default_rng(11).standard_normal(5)
case("scipy_cholesky", "upper", cholesky_upper, spd(2) + normal(2, 2) * 0.1)
case("scipy_cholesky", "lower_scipy", cholesky_lower_scipy, spd(3) + normal(3, 3) * 0.1)
case("scipy_qr", "full", qr_full, square(2))
case("scipy_qr", "economic_tall", qr_economic, general(4, 2))
case("scipy_qr", "r", qr_r, square(3))
case("scipy_svd", "reduced_tall", svd_pair, general(2, 1))
case("scipy_svd", "reduced_3x2", svd_pair, general(3, 2))
case("polar", "right", polar_right, square(2))
case("polar", "right_3x3", polar_right, square(3))
case("polar", "left_wide", polar_left_scipy, general(2, 3))
case("eigh_tridiagonal", "values", eigh_tridiagonal_values, jnp.asarray(_tri[:2] * 3.0), jnp.asarray(_tri[3:4]))
case("eigh_tridiagonal", "pair", eigh_tridiagonal_pair, jnp.asarray(_tri[:3] * 3.0), jnp.asarray(_tri[3:]))
case("expm_frechet_pair", "pair", expm_frechet_pair, normal(1, 1) * 0.5, normal(1, 1), argnums=(0,))
case("expm_frechet_pair", "alone", expm_frechet_alone, normal(2, 2) * 0.5, normal(2, 2))
case("toeplitz", "c_r", toeplitz_cr, normal(2), normal(2), argnums=(1,))
case("toeplitz", "c_r_both", toeplitz_cr, normal(3), normal(2))
case("toeplitz", "c", toeplitz_c, normal(3))
case("hankel", "c_r", hankel_cr, normal(2), normal(2), argnums=(1,))
case("hankel", "c_r_both", hankel_cr, normal(2), normal(3))
case("hankel", "c", hankel_c, normal(3))
case("circulant", "c", circulant_fn, normal(3))
case("scipy_sqrtm", "spd", scipy_sqrtm_fn, spd(2) + normal(2, 2) * 0.1)



def leslie_fn(f, s, w):
    return jnp.sum(w * jsl.leslie(f, s) ** 2)


def convolution_same(a, w):
    return jnp.sum(w * scipy.linalg.convolution_matrix(a, 4, "same") ** 2)


def convolution_full(a, w):
    return jnp.sum(w * jsl.convolution_matrix(a, 2) ** 2)


def companion_fn(a, w):
    return jnp.sum(w * jsl.companion(a))


def fiedler_fn(a, w):
    return jnp.sum(w * scipy.linalg.fiedler(a))


def fiedler_companion_fn(a, w):
    return jnp.sum(w * jsl.fiedler_companion(a))


def solve_sylvester_fn(A, B, C, w):
    return jnp.sum(w * jsl.solve_sylvester(A, B, C))


case("leslie", "f_s", leslie_fn, normal(2), normal(1), argnums=(0,))
case("leslie", "f_s_both", leslie_fn, normal(3), normal(2))
case("convolution_matrix", "same", convolution_same, normal(3))
case("convolution_matrix", "full", convolution_full, normal(3))
case("companion", "cubic", companion_fn, jnp.asarray(np.array([1.5, -0.3, 0.8, 2.0])))
case("fiedler", "distinct", fiedler_fn, jnp.asarray(np.array([0.3, -1.2, 2.0, 0.9])))
case("fiedler_companion", "quintic", fiedler_companion_fn, jnp.asarray(np.array([1.5, -0.3, 0.8, 2.0, -0.6, 1.1])))
case("solve_sylvester", "abc", solve_sylvester_fn, spd(1) + normal(1, 1) * 0.1, spd(1), normal(1, 1), argnums=(0,))
case("solve_sylvester", "abc_2x2", solve_sylvester_fn, spd(2) + normal(2, 2) * 0.1, spd(2), normal(2, 2))

# ------------------------------------------------ lax.sort of a tuple (astjax/rules/lax_reduce_sort.py)
def lax_sort_pair(k, v, w):
    ks, vs = lax.sort((k, v), num_keys=1)
    return jnp.sum(w * (ks * ks * vs))


def lax_sort_two_keys_rows(k, v, w):
    ks, vs = lax.sort((k, v), dimension=0, num_keys=2)
    return jnp.sum(w * (ks + vs * vs))


_keys = jnp.asarray(np.array([0.3, -1.2, 2.0, 0.9]))
case("lax_sort", "pair_num_keys_1", lax_sort_pair, _keys, normal(4))
case("lax_sort", "rows_num_keys_2", lax_sort_two_keys_rows, jnp.asarray(np.array([[0.5, 1.0], [-0.5, 2.0], [1.5, 0.0]])),
     normal(3, 2))
