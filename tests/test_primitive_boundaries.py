"""grad and jvp at the kinks, ties and zeros of elementwise and reduction primitives, against JAX.

Where a derivative does not exist (|x| at 0, max with ties, clip at its bounds, hypot at the origin),
astjax follows JAX's convention (a subgradient JAX picks); where it is infinite or undefined (sqrt and
log at 0, norm and arctan2 at the origin) it gives what JAX gives (inf, nan). The one departure is at
0 ** 0: JAX's derivative with respect to x is nan (y x^(y-1) = 0 * inf) and with respect to y is 0,
while x ** 0 is 1 for every x (slope 0) and 0 ** y falls at y = 0 (inf, 1, 0): astjax gives 0 and
log 0 = -inf, so x ** x at 0 is -inf (JAX: nan), not 0 (test_zero_to_the_zero_has_slope_zero).
The cases live in tests/boundary_cases.py; the test runs each function under JAX by swapping the
`jnp` its globals read for jax.numpy.
"""
import types
import warnings

import numpy as np
import pytest

import astjax

from boundary_cases import BOUNDARY_CASES, power_exponent_fn

jax = pytest.importorskip("jax")


@pytest.fixture(autouse=True)
def _jax_in_float64():
    """JAX computes in float64 for these comparisons (tests/conftest.py restores the flag after each test)."""
    jax.config.update("jax_enable_x64", True)

# id -> (argument index, flat position) whose JAX derivative is mathematically wrong, with the reason.
JAX_WRONG = {
    "power-zero_to_the_y": (((0, 1), 0.0, "d/dx x**y at x = 0, y = 0: x**0 is 1 for all x, so 0; JAX says nan"),
                            ((1, 1), -np.inf, "d/dy x**y at x = 0, y = 0: 0**y falls at y = 0, so -inf; JAX says 0")),
}


def _under_jax(fn):
    return types.FunctionType(fn.__code__, {**fn.__globals__, "jnp": jax.numpy}, fn.__name__)


def _tangents(args):
    return tuple(np.linspace(0.5, 1.5, np.size(a)).reshape(np.shape(a)) for a in args)


@pytest.mark.parametrize("label,fn,args", BOUNDARY_CASES, ids=[c[0] for c in BOUNDARY_CASES])
def test_grad_and_jvp_agree_with_jax(label, fn, args):
    argnums = tuple(range(len(args)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = [np.asarray(g) for g in astjax.grad(fn, argnums=argnums)(*args)]
        expected = [np.array(g) for g in jax.grad(_under_jax(fn), argnums=argnums)(*args)]
        tangent = float(astjax.jvp(fn, args, _tangents(args))[1])
        jax_tangent = float(jax.jvp(_under_jax(fn), args, _tangents(args))[1])
    if label in JAX_WRONG:
        for (i, j), ours, _ in JAX_WRONG[label]:
            assert np.isnan(expected[i].flat[j]) != np.isnan(ours) or np.isinf(ours)
            expected[i].flat[j] = ours
        jax_tangent = sum(float(np.sum(e * t)) for e, t in zip(expected, _tangents(args)))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=0, equal_nan=True, err_msg=f"{label}: d/d(argument {i})")
    np.testing.assert_allclose(tangent, jax_tangent, rtol=1e-12, equal_nan=True, err_msg=f"{label}: jvp")


def test_zero_to_the_zero_has_slope_zero():
    """x ** 0 == 1 for every x: its slope at x = 0 is 0 (JAX's nan is 0 * inf in y x^(y-1)); 0 ** y falls
    at y = 0, so its slope there is -inf (JAX's 0 made grad(x ** x)(0.0) 0, where the math says -inf)."""
    x, y = np.array([0.0]), np.array([0.0])
    dx, dy = astjax.grad(power_exponent_fn, argnums=(0, 1))(x, y)
    assert float(np.asarray(dx)[0]) == 0.0
    assert (np.asarray(dy) == -np.inf).all()
    assert float(astjax.jvp(power_exponent_fn, (x, y), (np.ones(1), np.zeros(1)))[1]) == 0.0
