"""Fixes for silent wrong numbers found by the attacker's corpus (tests/adversarial/attacks.py):
each test pins the mechanism, not only the corpus case."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


# ------------------------------------------------------------ arange moves with a float start and step
def arange_from_traced_start(x):
    t = np.arange(x[0], 3.0, 1.0)
    return np.sum(t * t)


def arange_with_traced_step(x):
    t = jnp.arange(0.0, 2.0, x[1])
    return jnp.sum(t)


def arange_of_a_length(x):
    return jnp.sum(x * jnp.arange(len(x)) + x * np.arange(1.0, 4.0))


@pytest.mark.parametrize("fn", [arange_from_traced_start, arange_with_traced_step])
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_arange_with_a_varied_argument_is_refused_at_its_line(fn, transform):
    x = np.array([0.4, 0.7, 0.1])
    with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py.*arange"):
        if transform == "grad":
            astjax.grad(fn)(x)
        else:
            astjax.jvp(fn, (x,), (np.ones(3),))


def test_arange_of_constants_still_differentiates():
    x = np.array([0.4, 0.7, 0.1])
    np.testing.assert_allclose(astjax.grad(arange_of_a_length)(x), np.arange(3.0) + np.arange(1.0, 4.0))


# ------------------------------------------------------------ a local function read as a value
def _make_scaled_square(a):
    return lambda y: a * y * y


def local_def_passed_to_grad(x):
    def inner(y):
        return x * y

    return x * astjax.grad(inner)(1.0)


def factory_closure_passed_to_grad(x):
    f = _make_scaled_square(x)
    return x * astjax.grad(f)(1.0)


@pytest.mark.parametrize("fn", [local_def_passed_to_grad, factory_closure_passed_to_grad])
def test_local_function_as_value_is_refused_not_a_name_error(fn):
    # Was a NameError from the generated code (the definition was inlined away); the closure over x would
    # also have carried no derivative (perturbation confusion's setting).
    with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py.*used as a value"):
        astjax.grad(fn)(np.float64(0.7))
