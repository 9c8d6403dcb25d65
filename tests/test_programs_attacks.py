"""Regressions found by running real programs through jit, vmap and their compositions
(tests/adversarial/programs.py): each is the right number or a clear refusal naming the user's line."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def quadratic_energy(x):
    K = 2.0 * jnp.eye(3)
    return 0.5 * x @ K @ x


def test_jit_refusal_inside_a_rule_helper_names_the_users_line():
    """jit(vmap(grad(f))) of `x @ K @ x` lowers matmul's VJP helper (astjax/rules/linalg.py) as
    vmap batched it; a refusal there named astjax's file. It names the user's line that called it."""
    pytest.importorskip("numba")
    xs = np.array([[0.1, 0.2, 0.3], [0.5, -0.1, 0.4]])
    try:
        got = astjax.jit(astjax.vmap(astjax.grad(quadratic_energy)))(xs)
    except AstjaxError as exc:
        assert f'File "{__file__}", line {quadratic_energy.__code__.co_firstlineno + 2}' in str(exc), str(exc)
        assert "astjax/rules" not in str(exc)
    else:
        np.testing.assert_allclose(np.asarray(got), 2.0 * xs)


def shifted_by_literals(p):
    v = jnp.array([[0.5, 0.25], [0.1, 0.3]])
    return jnp.sum(p - jnp.array([0.1, 0.2])) + jnp.sum(v * p) * 1e-12


def test_jit_rounds_the_items_of_a_jnp_array_literal_as_the_reference_does():
    """`jnp.array([0.1, 0.2])` is float32 (Python floats are weak, as in JAX); jit stacked the literals in
    float64, so `p - jnp.array([0.1, 0.2])` differed from the reference by float32 rounding: a first call
    far from cancellation passed jit's check and a later call at p = [0.1, 0.2] gave 0.0 (truth -4.47e-9).
    A matrix literal `jnp.array([[a, b], [c, d]])` was a Numba typing error (a list of lists)."""
    pytest.importorskip("numba")
    jitted = astjax.jit(shifted_by_literals)
    for p in (np.array([5.0, 7.0]), np.array([0.1, 0.2])):
        want = shifted_by_literals(p)
        assert float(jitted(p)) == float(want)
    assert abs(float(jitted(np.array([0.1, 0.2]))) - float(np.sum(np.array([0.1, 0.2]) - np.array([0.1, 0.2], np.float32)))) < 1e-12


def sin_scaled(x, a=1.0):
    return jnp.sum(jnp.sin(x) * a)


class _Scaled:
    def __init__(self, s):
        self.s = s

    def loss(self, x):
        return jnp.sum(jnp.tanh(x) * self.s)


def test_jit_of_a_partial_or_bound_method_and_compositions_over_it():
    """jit(partial(f, a=2.0)) was refused and grad(jit(model.loss)) crashed with a TypeError (self was
    dropped). jit now compiles the function with what is bound passed first, and every transformation
    over it sees the bound values (a first version let jacrev(jit(p))'s wrapper inherit the split through
    functools.wraps: hessian(jit(p)) silently returned the gradient)."""
    import functools
    x = np.array([0.3, 0.5])
    p = functools.partial(sin_scaled, a=2.0)
    m = _Scaled(3.0)
    jp, jm = astjax.jit(p), astjax.jit(m.loss)
    np.testing.assert_allclose(astjax.grad(jp)(x), 2.0 * np.cos(x))
    np.testing.assert_allclose(astjax.hessian(jp)(x), np.diag(-2.0 * np.sin(x)))
    np.testing.assert_allclose(astjax.jacfwd(astjax.grad(jp))(x), np.diag(-2.0 * np.sin(x)))
    np.testing.assert_allclose(astjax.vmap(jp)(x[None])[0], 2.0 * np.sum(np.sin(x)))
    np.testing.assert_allclose(astjax.grad(jm)(x), 3.0 / np.cosh(x) ** 2)
    np.testing.assert_allclose(astjax.hessian(jm)(x), np.diag(-6.0 * np.tanh(x) / np.cosh(x) ** 2))
    if pytest.importorskip("numba"):
        np.testing.assert_allclose(jp(x), 2.0 * np.sum(np.sin(x)))
        try:
            jm(x)
        except AstjaxError as exc:                 # an object argument: refused at the user's line
            assert __file__ in str(exc)
