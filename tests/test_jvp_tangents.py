"""jvp's tangents for the primals it does not differentiate.

An integer or boolean primal is not differentiated, so a nonzero tangent given for it would be dropped
and the output tangent silently miss it: `jvp(square, (2,), (1.0,))` gave 0 where the user meant 4.
It is refused (JAX refuses any tangent but float0 there); a float0 or zero tangent is taken. A primal
mixing float leaves with integer ones gave its float leaves no tangent at all; it is refused too.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def square(x):
    return x ** 2


def scaled_sine(x, n):
    return jnp.sin(x) * n


def product_of_pair(p):
    return p[0] * p[1]


def test_a_nonzero_tangent_for_an_integer_primal_is_refused():
    for primal in (2, np.array([1, 2]), True):
        with pytest.raises(TypeError, match="integer or boolean .* not differentiated"):
            astjax.jvp(square, (primal,), (np.ones(np.shape(primal)),))


def test_a_float0_or_zero_tangent_for_an_integer_primal_is_taken():
    x = np.array([0.1, 0.2])
    expected = 3 * np.cos(x)
    for zero in (np.zeros((), astjax.dtypes.float0), np.zeros(()), 0.0):
        value, tangent = astjax.jvp(scaled_sine, (x, 3), (np.ones(2), zero))
        np.testing.assert_allclose(value, 3 * np.sin(x), rtol=1e-12)
        np.testing.assert_allclose(tangent, expected, rtol=1e-12)


def test_a_primal_mixing_float_and_integer_leaves_is_refused():
    with pytest.raises(TypeError, match="mixes float leaves with int"):
        astjax.jvp(product_of_pair, ((2.0, 3),), ((1.0, np.zeros((), astjax.dtypes.float0)),))
    with pytest.raises(TypeError, match="mixes float leaves"):
        astjax.jvp(product_of_pair, ((np.array(2.0), "label"),), ((np.array(1.0), "label"),))


def test_linearize_at_an_integer_primal_takes_float0_tangents():
    value, f_jvp = astjax.linearize(scaled_sine, np.array([0.1, 0.2]), 3)
    np.testing.assert_allclose(f_jvp(np.ones(2), np.zeros((), astjax.dtypes.float0)), 3 * np.cos([0.1, 0.2]),
                               rtol=1e-12)
    with pytest.raises(TypeError, match="not differentiated"):
        f_jvp(np.ones(2), 1.0)
