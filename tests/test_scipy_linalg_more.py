"""The rest of jax.scipy.linalg (astjax/scipy/_linalg_more.py): values against SciPy, JAX's dtypes, the
refusals, and plain SciPy in user code. Derivatives are checked against central differences by
tests/test_rules.py (tests/rule_cases_scipy_linalg.py)."""
import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax.errors import AstjaxError

_rng = np.random.default_rng(5)
A = _rng.standard_normal((3, 3))
SPD = A @ A.T + 3.0 * np.eye(3) + 0.2 * _rng.standard_normal((3, 3))     # not symmetric: one triangle is read
V = _rng.standard_normal(4)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


def test_values_match_scipy():
    for lower in (False, True):
        _close(jsl.cholesky(SPD, lower=lower), scipy.linalg.cholesky(SPD, lower=lower))
    for mode in ("full", "economic"):
        q, r = jsl.qr(A[:, :2], mode=mode)
        want_q, want_r = scipy.linalg.qr(A[:, :2], mode=mode)
        _close(np.abs(q), np.abs(want_q))
        _close(np.abs(r), np.abs(want_r))
    assert np.shape(jsl.qr(A[:, :2], mode="r")[0]) == (3, 2)
    _close(jsl.svd(A)[1], scipy.linalg.svd(A)[1])
    for side in ("right", "left"):
        u, p = jsl.polar(A[:2], side=side)
        want_u, want_p = scipy.linalg.polar(A[:2], side=side)
        _close(u, want_u)
        _close(p, want_p)
    e, frechet = jsl.expm_frechet(0.5 * A, SPD)
    want_e, want_frechet = scipy.linalg.expm_frechet(0.5 * A, SPD)
    _close(e, want_e)
    np.testing.assert_allclose(np.asarray(frechet), want_frechet, rtol=1e-9)
    _close(jsl.toeplitz(V, V[:3]), scipy.linalg.toeplitz(V, V[:3]))
    _close(jsl.toeplitz(V), scipy.linalg.toeplitz(V))
    _close(jsl.hankel(V, V[:3]), scipy.linalg.hankel(V, V[:3]))
    _close(jsl.hankel(V), scipy.linalg.hankel(V))
    _close(jsl.circulant(V), scipy.linalg.circulant(V))
    w, v = jsl.eigh_tridiagonal(V, V[:3])
    _close(w, scipy.linalg.eigh_tridiagonal(V, V[:3])[0])
    _close(np.abs(v), np.abs(scipy.linalg.eigh_tridiagonal(V, V[:3])[1]))
    _close(jsl.sqrtm(SPD @ SPD.T), scipy.linalg.sqrtm(SPD @ SPD.T))
    _close(jsl.schur(A)[0], scipy.linalg.schur(A)[0])
    _close(jsl.hessenberg(A), scipy.linalg.hessenberg(A))
    for name in ("hilbert", "invhilbert", "helmert", "hadamard", "dft"):
        np.testing.assert_allclose(np.asarray(getattr(jsl, name)(4)), getattr(scipy.linalg, name)(4), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jsl.pascal(4, "lower")), scipy.linalg.pascal(4, "lower"))
    _close(jsl.leslie(V, V[:3]), scipy.linalg.leslie(V, V[:3]))
    for mode, n in (("full", 3), ("same", 6), ("valid", 6)):
        _close(jsl.convolution_matrix(V, n, mode), scipy.linalg.convolution_matrix(V, n, mode))
    _close(jsl.companion(V), scipy.linalg.companion(V))
    _close(jsl.fiedler(V), scipy.linalg.fiedler(V))
    _close(jsl.solve_sylvester(A, SPD, SPD.T), scipy.linalg.solve_sylvester(A, SPD, SPD.T))
    _close(jsl.funm(A, np.exp), scipy.linalg.funm(A, np.exp))
    _close(jsl.qr_multiply(A, SPD)[0], scipy.linalg.qr_multiply(A, SPD)[0])


def test_dtypes_follow_jax():
    x32 = jnp.asarray((A @ A.T + 3.0 * np.eye(3)).astype(np.float32))
    assert jsl.cholesky(x32).dtype == np.float32
    assert all(part.dtype == np.float32 for part in jsl.polar(x32) + jsl.qr(x32) + jsl.svd(x32))
    assert jsl.sqrtm(x32).dtype == np.complex64      # JAX's sqrtm is always complex
    assert jsl.hilbert(3).dtype == np.float32 and jsl.pascal(3).dtype == np.float32
    assert jsl.hadamard(4).dtype == np.int32 and jsl.dft(2).dtype == np.complex64


def test_plain_scipy_keeps_scipy_values_under_grad():
    def f(a):
        root = scipy.linalg.sqrtm(a)            # real here, as SciPy gives it (JAX's would be complex)
        return jnp.sum(root * scipy.linalg.pascal(3)) + jnp.sum(scipy.linalg.cholesky(a, lower=True))

    spd = SPD @ SPD.T
    value, grad = astjax.value_and_grad(f)(jnp.asarray(spd))
    want = np.sum(scipy.linalg.sqrtm(spd) * scipy.linalg.pascal(3)) + np.sum(scipy.linalg.cholesky(spd, lower=True))
    np.testing.assert_allclose(float(value), want, rtol=1e-10)
    assert np.all(np.isfinite(np.asarray(grad)))


def _schur_loss(a):
    t, z = jsl.schur(a)
    return jnp.sum(t)


def _jax_sqrtm_loss(a):
    return jnp.sum(jnp.real(jsl.sqrtm(a)))


def _funm_loss(a):
    return jnp.sum(jnp.real(jsl.funm(a, jnp.exp)))


def _pivoted_qr_loss(a):
    q, r, p = scipy.linalg.qr(a, pivoting=True)
    return jnp.sum(r)


def _wide_qr_loss(a):
    q, r = jsl.qr(a[:2])
    return jnp.sum(r)


def _complex_root_loss(a):
    return jnp.sum(scipy.linalg.sqrtm(a))


@pytest.mark.parametrize("fn,x,words", [
    (_schur_loss, A, "no derivative rule for `schur`"),
    (_jax_sqrtm_loss, SPD @ SPD.T, "no derivative rule for `sqrtm`"),
    (_funm_loss, A, "no derivative rule for `funm`"),
    (_pivoted_qr_loss, A, "pivoting=True"),
    (_wide_qr_loss, A, "needs a square matrix"),
    (_complex_root_loss, -np.eye(3) + 0.1 * A, "real square root"),
], ids=["schur", "jax_sqrtm", "funm", "qr_pivoting", "qr_full_wide", "sqrtm_complex_root"])
def test_refused_derivatives_name_the_line(fn, x, words):
    with pytest.raises(AstjaxError, match="test_scipy_linalg_more.py") as info:
        astjax.grad(fn)(jnp.asarray(x))
    assert words in str(info.value)


def test_vmap_of_cholesky_and_a_structured_gradient():
    stack = jnp.asarray(np.stack([SPD, SPD.T]))
    _close(astjax.vmap(jsl.cholesky)(stack), np.stack([scipy.linalg.cholesky(SPD), scipy.linalg.cholesky(SPD.T)]))

    def f(c):
        return jnp.sum(jsl.toeplitz(c) ** 2)

    rows = jnp.asarray(A)
    _close(astjax.vmap(astjax.grad(f))(rows), np.stack([np.asarray(astjax.grad(f)(rows[i])) for i in range(3)]))


def test_nd_structured_input_is_refused():
    with pytest.raises(NotImplementedError, match="1-D"):
        jsl.toeplitz(np.ones((2, 3)))


def _polar_loss(a):
    u, p = scipy.linalg.polar(a)
    return jnp.sum(u * A[:2, :2]) + jnp.sum(p * p * A[1:, 1:])


def test_hessian_through_tuple_results():
    """Forward over reverse: the tangent of a constant item of a tuple's adjoint is a bare zero (present_items)."""
    x = jnp.asarray(A[:2, :2] + 2.0 * np.eye(2))
    hess = np.asarray(astjax.hessian(_polar_loss)(x)).reshape(4, 4)
    grad = astjax.grad(_polar_loss)
    columns = []
    for i in range(4):
        step = np.zeros(4)
        step[i] = 1e-6
        step = step.reshape(2, 2)
        columns.append((np.asarray(grad(x + step)) - np.asarray(grad(x - step))).ravel() / 2e-6)
    np.testing.assert_allclose(hess, np.stack(columns, axis=1), rtol=1e-5, atol=1e-7)
