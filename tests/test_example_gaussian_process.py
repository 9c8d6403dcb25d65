"""examples/gaussian_process.py at a small size: the likelihood improves and its gradient is right."""
import os
import sys

import numpy as np

import astjax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import gaussian_process as gp  # noqa: E402


def _central_differences(fn, params, x, y, eps=1e-6):
    grad = np.zeros_like(params)
    for i in range(params.size):
        step = np.zeros_like(params)
        step[i] = eps
        grad[i] = (float(fn(params + step, x, y)) - float(fn(params - step, x, y))) / (2 * eps)
    return grad


def test_gradient_at_the_start_matches_finite_differences():
    x, y = gp.synthetic_data(n=12)
    start = np.array([0.5, 0.0, -1.0])
    for fn in (gp.negative_log_likelihood, gp.cholesky_negative_log_likelihood):
        got = np.asarray(astjax.grad(fn)(start, x, y))
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, _central_differences(fn, start, x, y), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(float(gp.cholesky_negative_log_likelihood(start, x, y)),
                               float(gp.negative_log_likelihood(start, x, y)), rtol=1e-12)


def test_forward_mode_agrees_with_reverse_mode():
    x, y = gp.synthetic_data(n=8)
    start = np.array([0.2, 0.1, -0.5])
    tangent = np.array([0.3, -0.7, 0.5])
    _, forward = astjax.jvp(lambda p: gp.negative_log_likelihood(p, x, y), (start,), (tangent,))
    reverse = np.asarray(astjax.grad(gp.negative_log_likelihood)(start, x, y))
    np.testing.assert_allclose(float(forward), float(reverse @ tangent), rtol=1e-10)


def test_gradient_descent_improves_the_likelihood():
    x, y = gp.synthetic_data(n=15)
    params, losses = gp.fit(x, y, np.array([0.5, 0.0, -1.0]), steps=40)
    assert losses[-1] < losses[0] - 1.0
    assert all(np.isfinite(losses))
