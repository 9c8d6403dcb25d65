"""astjax.numpy.linalg and astjax.scipy.linalg: values and dtypes against NumPy/SciPy, JAX's conventions,
and the derivatives astjax refuses. (Each rule's VJP/JVP against finite differences, to second order for
the first case of each primitive, is in tests/rule_cases_linalg.py, run by tests/test_rules.py.)
"""
import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax.errors import AstjaxError
from astjax.rules import classification

_rng = np.random.default_rng(11)
A = _rng.standard_normal((4, 4)) + 4 * np.eye(4)
S = A @ A.T
W = _rng.standard_normal((4, 3))
B = _rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)


def _close(got, expected, **kw):
    np.testing.assert_allclose(np.asarray(got), expected, rtol=kw.get("rtol", 1e-10), atol=kw.get("atol", 1e-10))


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("name, args, kwargs", [
    ("inv", (B,), {}), ("det", (B,), {}), ("solve", (B, W[:, 0]), {}), ("solve", (B, np.ones((3, 4, 2))), {}),
    ("pinv", (W,), {}), ("matrix_power", (A, 3), {}), ("matrix_power", (A, -2), {}), ("matrix_rank", (W,), {}),
    ("cond", (A,), {}), ("cond", (A, "fro"), {}), ("cond", (A, -np.inf), {}), ("svd", (W,), {"compute_uv": False}),
    ("eigvalsh", (S,), {}), ("svdvals", (W,), {}), ("tensorinv", (np.reshape(A, (2, 2, 4)),), {"ind": 2}),
    ("tensorsolve", (np.reshape(A, (2, 2, 4)), np.ones((2, 2))), {}), ("norm", (B, "nuc", (1, 2)), {}),
    ("norm", (W, -2), {}), ("norm", (W[:, 0], 0.5), {}), ("norm", (B, np.inf, 0, True), {}),
])
def test_values_match_numpy(name, args, kwargs):
    _close(getattr(jnp.linalg, name)(*args, **kwargs), getattr(np.linalg, name)(*args, **kwargs))


def test_tuple_results_match_numpy():
    for got, expected in zip(jnp.linalg.slogdet(B), np.linalg.slogdet(B)):
        _close(got, expected)
    u, s, vt = jnp.linalg.svd(W, full_matrices=False)
    _close(jnp.matmul(u * s, vt), W)
    q, r = jnp.linalg.qr(W)
    _close(q @ r, W)
    w, v = jnp.linalg.eigh(S)
    _close(w, np.linalg.eigvalsh(S))
    assert jnp.linalg.eigh(S).eigenvalues is not None and jnp.linalg.svd(W).S is not None
    x, residuals, rank, sv = jnp.linalg.lstsq(W, A[:, 0])
    for got, expected in zip((x, residuals, rank, sv), np.linalg.lstsq(W, A[:, 0])):
        _close(got, expected)
    _close(jnp.linalg.multi_dot([A[0], A, W, W[0]]), np.linalg.multi_dot([A[0], A, W, W[0]]))
    _close(jnp.linalg.eigvals(A), np.linalg.eigvals(A))


def test_cholesky_eigh_symmetrize_their_input_as_jax_does():
    skew = S + np.triu(A, 1)
    symmetric = (skew + skew.T) / 2
    _close(jnp.linalg.cholesky(skew), np.linalg.cholesky(symmetric))
    _close(jnp.linalg.cholesky(skew, upper=True), np.linalg.cholesky(symmetric, upper=True))
    _close(jnp.linalg.eigvalsh(skew), np.linalg.eigvalsh(symmetric))
    _close(jnp.linalg.cholesky(skew, symmetrize_input=False), np.linalg.cholesky(skew))
    from astjax.numpy import linalg as impl
    _close(impl._numpy_cholesky(skew, upper=True), np.linalg.cholesky(skew, upper=True))
    _close(impl._numpy_eigvalsh(skew, "U"), np.linalg.eigvalsh(skew, "U"))
    _close(impl._numpy_eigh(skew)[0], np.linalg.eigh(skew)[0])


def test_scipy_functions_match_scipy():
    c, lower = jsl.cho_factor(S, lower=True)
    assert lower is True
    _close(c, np.linalg.cholesky(S))
    _close(jsl.cho_solve((c, lower), W), scipy.linalg.cho_solve(scipy.linalg.cho_factor(S, lower=True), W))
    _close(jsl.cho_factor(S)[0], np.linalg.cholesky(S).T)
    _close(jsl.scipy_cho_factor(S)[0], scipy.linalg.cho_factor(S)[0])
    _close(jsl.solve_triangular(A, W, trans="T", lower=True, unit_diagonal=True),
           scipy.linalg.solve_triangular(A, W, trans="T", lower=True, unit_diagonal=True))
    _close(jsl.expm(A / 4), scipy.linalg.expm(A / 4), rtol=1e-9)
    _close(jsl.block_diag(A[:2, :3], W[0], 2.0), scipy.linalg.block_diag(A[:2, :3], W[0], 2.0))
    for got, expected in zip(jsl.lu(A), scipy.linalg.lu(A)):
        _close(got, expected)
    lu, piv = jsl.lu_factor(A)
    _close(lu, scipy.linalg.lu_factor(A)[0])
    _close(jsl.lu_solve((lu, piv), W, trans=1), scipy.linalg.lu_solve(scipy.linalg.lu_factor(A), W, trans=1))
    _close(jsl.solve(A, W), scipy.linalg.solve(A, W))
    for got, expected in zip(jsl.eigh(S, lower=False), scipy.linalg.eigh(S, lower=False)):
        _close(np.abs(got), np.abs(expected))
    _close(jsl.inv(A), scipy.linalg.inv(A))
    _close(jsl.det(A), scipy.linalg.det(A))


def test_float32_stays_float32_and_ints_become_float32():
    a32 = A.astype(np.float32)
    for result in (jnp.linalg.inv(a32), jnp.linalg.cholesky(S.astype(np.float32)), jnp.linalg.pinv(a32),
                   jnp.linalg.eigh(S.astype(np.float32))[1], jnp.linalg.svd(a32)[0], jnp.linalg.qr(a32)[1],
                   jnp.linalg.slogdet(a32)[1], jnp.linalg.norm(a32, "nuc"), jnp.linalg.cond(a32),
                   jnp.linalg.matrix_power(a32, 2), jnp.linalg.lstsq(a32, a32[0])[0], jsl.expm(a32),
                   jsl.cho_solve(jsl.cho_factor(S.astype(np.float32)), a32[0]), jsl.lu(a32)[1],
                   jsl.solve_triangular(a32, a32[0]), jnp.linalg.inv(np.eye(3, dtype=np.int64))):
        assert result.dtype == np.float32, result.dtype
    assert jnp.linalg.matrix_rank(a32).dtype == np.int32
    assert jnp.linalg.inv(A).dtype == np.float64


def test_plain_numpy_and_scipy_resolve_to_the_primitives():
    for fn, name in ((np.linalg.svd, "svd"), (np.linalg.slogdet, "slogdet"), (np.linalg.pinv, "pinv"),
                     (np.linalg.lstsq, "lstsq"), (np.linalg.multi_dot, "multi_dot"), (np.linalg.norm, "norm"),
                     (scipy.linalg.cho_solve, "cho_solve"), (scipy.linalg.cho_factor, "scipy_cho_factor"),
                     (scipy.linalg.solve_triangular, "solve_triangular"), (scipy.linalg.expm, "expm"),
                     (scipy.linalg.lu_solve, "lu_solve"), (scipy.linalg.block_diag, "block_diag")):
        assert classification(fn).primitive == name, fn
    assert classification(np.linalg.matrix_rank).kind == "nondifferentiable"
    for fn, name in ((np.linalg.cholesky, "numpy_cholesky"), (np.linalg.eigh, "numpy_eigh"),
                     (np.linalg.eigvalsh, "numpy_eigvalsh")):
        assert classification(fn).primitive == name, fn       # one triangle read, not JAX's symmetrizing
    for fn in (jnp.linalg.eig, jnp.linalg.eigvals, np.linalg.eig):
        assert classification(fn).kind == "refused", fn


# ------------------------------------------------------ JAX's conventions
def eigenvalue_sum(a):
    return jnp.sum(jnp.linalg.eigh(a)[0] * jnp.array([1.0, 2.0, 3.0]))


def eigenvectors_read(a):
    return jnp.sum(jnp.linalg.eigh(a)[1][0] ** 3)


def singular_values(a):
    return jnp.sum(jnp.linalg.svd(a, compute_uv=False) * jnp.array([1.0, 2.0, 3.0]))


def test_degenerate_eigenvalues_keep_finite_eigenvalue_gradients():
    """Repeated eigenvalues: the eigenvalue gradient is V diag(g) V^T (finite), as in JAX."""
    a = np.diag([1.0, 1.0, 2.0])
    got = np.asarray(astjax.grad(eigenvalue_sum)(a))
    assert np.all(np.isfinite(got))
    _close(np.trace(got), 6.0)
    assert np.all(np.isfinite(np.asarray(astjax.grad(singular_values)(np.diag([2.0, 2.0, 1.0])))))


def test_degenerate_eigenvectors_give_non_finite_gradients_as_in_jax():
    """JAX's 1 / (w_j - w_i): eigenvectors of a repeated eigenvalue are not differentiable; no finite guess."""
    with np.errstate(all="ignore"):
        got = np.asarray(astjax.grad(eigenvectors_read)(np.diag([1.0, 1.0, 2.0])))
    assert not np.all(np.isfinite(got))


# ------------------------------------------------------------- refusals
def svd_full(a):
    return jnp.sum(jnp.linalg.svd(a)[0])


def eigh_unsymmetrized(a):
    return jnp.sum(jnp.linalg.eigh(a, symmetrize_input=False)[0])


def tensorsolve_axes(a):
    return jnp.sum(jnp.linalg.tensorsolve(a, jnp.ones((2, 2)), axes=(0,)))


def eig_values(a):
    return jnp.sum(jnp.abs(jnp.linalg.eigvals(a)))


def qr_wide(a):
    return jnp.sum(jnp.linalg.qr(a)[1])


def lu_wide(a):
    return jnp.sum(jsl.lu(a)[2])


def multi_dot_variable(a, b):
    mats = [a, b, a]
    return jnp.sum(jnp.linalg.multi_dot(mats))


@pytest.mark.parametrize("fn, line, words", [
    (eigh_unsymmetrized, "jnp.linalg.eigh(", "symmetrize_input"),
    (tensorsolve_axes, "jnp.linalg.tensorsolve(", "axes"),
    (eig_values, "jnp.linalg.eigvals(a)", "eigvals"),
])
def test_uncovered_derivatives_are_refused_at_their_line(fn, line, words):
    with pytest.raises(AstjaxError) as error:
        astjax.grad(fn)(A)
    assert "test_linalg.py" in str(error.value) and line in str(error.value) and words in str(error.value)


@pytest.mark.parametrize("fn, words", [(qr_wide, "rows >= columns"), (lu_wide, "square"),
                                       (svd_full, "full_matrices=False")])
def test_shapes_without_a_derivative_are_refused_when_run(fn, words):
    with pytest.raises(AstjaxError) as error:
        astjax.grad(fn)(W.T)
    assert words in str(error.value) and "test_linalg.py" in str(error.value)


def test_multi_dot_of_a_list_variable():
    """First order works; the second derivative through the list variable is refused, never wrong."""
    a, b = A / 4, S / 20
    got = astjax.grad(multi_dot_variable, argnums=(0, 1))(a, b)
    ones = np.ones((4, 4))
    _close(got[0], ones @ (b @ a).T + (a @ b).T @ ones)
    _close(got[1], a.T @ ones @ a.T)
    with pytest.raises(AstjaxError, match="list held in a variable"):
        astjax.hessian(multi_dot_variable)(a, b)


def _det_only(A):
    return jnp.linalg.det(A)


def test_second_derivative_of_det_at_a_singular_matrix_is_refused():
    """det's gradient (the adjugate) is exact at a singular matrix; its derivative goes through the inverse,
    which raised LinAlgError there (or would lose every digit near it): refused clearly instead."""
    from astjax.errors import AstjaxError
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])
    np.testing.assert_allclose(np.asarray(astjax.grad(_det_only)(singular)),
                               np.array([[14.0, -1.0, -4.0], [-7.0, 0.5, 2.0], [0.0, 0.0, 0.0]]), atol=1e-9)
    for transform in (astjax.hessian, lambda f: astjax.jacrev(astjax.grad(f))):
        with pytest.raises(AstjaxError, match="singular"):
            transform(_det_only)(singular)
    regular = singular + np.diag([0.0, 1.0, 0.0])
    h = np.asarray(astjax.hessian(_det_only)(regular)).reshape(9, 9)
    g = astjax.grad(_det_only)
    fd = np.stack([(np.asarray(g(regular + e)) - np.asarray(g(regular - e))).ravel() / 2e-6
                   for e in np.eye(9).reshape(9, 3, 3) * 1e-6], axis=1)
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-6)


def _svd_full_square(x):
    u, s, vt = jnp.linalg.svd(x)
    return jnp.sum(jnp.abs(u[:, 0])) + jnp.sum(s * jnp.arange(1.0, 5.0)) + jnp.sum(jnp.abs(vt[0]) * 2.0)


def _svd_full_values_only(x):
    return jnp.sum(jnp.linalg.svd(x)[1] * jnp.array([1.0, 3.0, 0.5]))


def test_svd_with_full_matrices_of_a_square_matrix_is_the_reduced_one():
    """full_matrices=True (the default) of a square matrix gives the reduced factors; of any matrix,
    the singular values alone; the extra vectors of a non-square one are refused (test above)."""
    for fn, x in ((_svd_full_square, A), (_svd_full_values_only, W)):
        eps = 1e-6
        fd = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[i] = eps
            fd[i] = (fn(x + e) - fn(x - e)) / (2 * eps)
        np.testing.assert_allclose(astjax.grad(fn)(x), fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(astjax.hessian(_svd_full_square)(A), astjax.jacrev(astjax.grad(_svd_full_square))(A),
                               rtol=1e-8, atol=1e-10)
