"""Regressions for what attacks12 found (tests/adversarial/attacks12.py has the corpus): grad(x ** x)(0.0)
was 0.0 (the power rule took 0 ** x2's slope in the exponent as 0 everywhere; it falls at x2 == 0: -inf,
JAX says nan); grad of a function taking an unregistered object (a dataclass of arrays) crashed
with NumPy's "Cannot interpret ... as a data type" instead of naming the object and what to pass."""
import dataclasses
import math

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def self_power(x):
    return x ** x


def power_of_two(x, y):
    return jnp.sum(x ** y)


def test_self_power_at_zero_is_not_a_number():
    """x^x (log x + 1) is -inf at 0+ (JAX: nan); astjax gave 0.0."""
    with np.errstate(all="ignore"):
        assert float(astjax.grad(self_power)(0.0)) == -np.inf
        assert float(astjax.jvp(self_power, (0.0,), (1.0,))[1]) == -np.inf
        assert not np.isfinite(float(astjax.grad(astjax.grad(self_power))(0.0)))
    assert float(astjax.grad(self_power)(1.0)) == pytest.approx(1.0)
    assert float(astjax.grad(self_power)(np.float64(0.5))) == pytest.approx(0.5 ** 0.5 * (np.log(0.5) + 1.0))


def test_zero_base_slopes_elsewhere_are_unchanged():
    """A constant exponent 0 keeps slope 0 in the base; a positive exponent keeps slope 0 at a zero base;
    a zero tangent in the exponent moves nothing."""
    x, y = np.array([0.0, 0.0, 2.0]), np.array([0.0, 1.5, 0.0])
    with np.errstate(all="ignore"):
        dx, dy = astjax.grad(power_of_two, argnums=(0, 1))(x, y)
        t = astjax.jvp(power_of_two, (x, y), (np.ones(3), np.zeros(3)))[1]
    np.testing.assert_array_equal(np.asarray(dx), [0.0, 0.0, 0.0])
    assert np.asarray(dy)[0] == -np.inf and np.asarray(dy)[1] == 0.0
    assert np.asarray(dy)[2] == pytest.approx(np.log(2.0))
    assert float(t) == 0.0
    assert float(astjax.grad(lambda v: v ** 0.0)(0.0)) == 0.0


@dataclasses.dataclass
class Params:
    w: np.ndarray


def dataclass_loss(p):
    return jnp.sum(p.w ** 2)


def test_unregistered_object_argument_is_refused_clearly():
    with pytest.raises(TypeError, match="holds a Params, which is not an array, a number or a registered pytree"):
        astjax.grad(dataclass_loss)(Params(np.ones(2)))


def sum_and_mean(a):
    return jnp.sum(a ** 2, axis=1), {"mean": jnp.mean(a, axis=0), "max": jnp.max(a, axis=1)}


def reads_only_the_mean(x):
    total, parts = sum_and_mean(x.reshape(3, 4))
    return jnp.sum(parts["mean"] ** 2)


def test_unread_reduction_returned_by_a_helper():
    """A helper returning reductions over an axis, of which the caller reads one: the others' adjoints are
    bare zeros, which unreduce broadcast with expand_dims at the reduced axis (AxisError in vjp_helper)."""
    x = np.linspace(-1.0, 1.0, 12)
    expected = np.tile(2 * x.reshape(3, 4).mean(axis=0) / 3, 3)
    np.testing.assert_allclose(np.asarray(astjax.grad(reads_only_the_mean)(x)), expected, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(astjax.hessian(reads_only_the_mean)(x)),
                               np.tile(np.eye(4), (3, 3)) * 2 / 9, rtol=1e-12, atol=1e-15)


def math_module_specials(x):
    return math.erf(x) + math.erfc(x * 0.5) + math.lgamma(x + 2.0) + math.gamma(x + 1.5)


def test_math_module_special_functions_have_rules():
    """math.erf, erfc, lgamma and gamma on a scalar are the special functions' primitives (they were
    refused as calls without a rule: Black-Scholes written with math.erf)."""
    x, h = 0.4, 1e-6
    expected = (math_module_specials(x + h) - math_module_specials(x - h)) / (2 * h)
    value, slope = astjax.value_and_grad(math_module_specials)(np.float64(x))
    assert float(value) == pytest.approx(math_module_specials(x), rel=1e-12)
    assert float(slope) == pytest.approx(expected, rel=1e-7)
