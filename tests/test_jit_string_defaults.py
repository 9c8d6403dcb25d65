"""A parameter with a string default (`mode="train"`) is static under jit, as under JAX's jit.

JAX never traces a default (it is a Python constant of the function), so `jax.jit(loss)(x)` runs a
`mode="train"` branch as Python. astjax passed the default into compiled code and refused it ("jit cannot
pass a str into compiled code"); now such a parameter is compiled in, one compile per value passed.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError


def loss(x, mode="train"):
    if mode == "train":
        return jnp.sum(x * x)
    return -jnp.sum(x)


def needs_a_string(x, mode):
    return x * 2.0 if mode == "a" else x


X = np.array([1.0, 2.0])


def test_the_default_and_each_passed_value_compile_their_own_branch():
    compiled = astjax.jit(loss)
    assert float(compiled(X)) == float(loss(X)) == 5.0
    assert float(compiled(X, "eval")) == float(compiled(X, mode="eval")) == float(loss(X, "eval")) == -3.0
    assert float(compiled(X)) == 5.0            # the first entry is still there, keyed on its value


def test_under_a_derivative_too():
    compiled = astjax.jit(astjax.grad(loss))
    np.testing.assert_allclose(compiled(X), astjax.grad(loss)(X))
    np.testing.assert_allclose(compiled(X, mode="eval"), [-1.0, -1.0])


def test_a_string_for_a_parameter_without_a_string_default_is_still_refused_clearly():
    with pytest.raises(JitError, match="cannot pass a str"):
        astjax.jit(needs_a_string)(X, "a")
    np.testing.assert_allclose(astjax.jit(needs_a_string, static_argnums=1)(X, "a"), [2.0, 4.0])
