"""Fused float32 sums under jit are exact to the last float32 bit (float64 partial sums).

A fused sum adds float64 partial sums of SUM_CHUNK elements into a float64 total
(astjax/jit/lower/fuse_elementwise.py). With float32 partial sums the rounding depended on how LLVM
vectorized the loop: on one machine `sum(tanh(x) * x + 1)` of 5000 values of 0.1 was off by 1.7e-6, and
of 3e6 ones by 1.2e-5 with chunks of 4096. Equal elements are the hard case: every addition rounds the
same way. Compiled fully optimized, as users compile: the rounding of a reassociated sum depends on it.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

pytestmark = pytest.mark.usefixtures("numba_fully_optimized")


def shifted_sum(x):
    return jnp.sum(x * 1.0 + 0.0)


def exp_sum(x):
    return jnp.sum(jnp.exp(x))


def tanh_sum(x):
    return jnp.sum(jnp.tanh(x) * x + 1.0)


EXACT = {shifted_sum: lambda x: x, exp_sum: np.exp, tanh_sum: lambda x: np.tanh(x) * x + 1.0}


@pytest.mark.parametrize("fn", list(EXACT), ids=lambda fn: fn.__name__)
def test_fused_float32_sums_of_equal_elements_stay_within_3e_7(fn):
    jitted = astjax.jit(fn)
    for value in (0.1, 0.5, 1.0, 1.7615942, 3.3):
        for n in (5000, 100_000, 3_000_000):
            x = np.full(n, value, np.float32)
            got = jitted(x)
            assert got.dtype == np.float32
            exact = float(np.sum(EXACT[fn](x.astype(np.float64))))
            assert abs(float(got) - exact) <= 3e-7 * abs(exact), (fn.__name__, value, n, float(got), exact)


def test_the_gradient_and_value_loop_sums_as_accurately():
    """value_and_grad's merged loop (the value's sum beside the gradient's elements) uses the same chunks."""
    vg = astjax.jit(astjax.value_and_grad(tanh_sum))
    x = np.ones(3_000_000, np.float32)
    value, grad = vg(x)
    exact = 3e6 * (np.tanh(1.0) + 1.0)
    assert abs(float(value) - exact) <= 3e-7 * exact
    np.testing.assert_allclose(grad[:3], 1.0 / np.cosh(1.0) ** 2 + np.tanh(1.0), rtol=1e-6)
