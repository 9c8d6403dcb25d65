"""jit's refusal of a function that returns a number on one path and an array on another names the return.

The single return the frontend writes (`_ret = 1.0 ... return _ret`) is astjax's own variable: the
message speaks of the user's `return`, never of `_ret`.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def power_of_arrays(x, n):
    if n == 0:
        return jnp.ones_like(x)
    return x * power_of_arrays(x, n - 1)


def test_a_number_returned_on_one_path_is_refused_at_that_return():
    with pytest.raises(JitError) as info:
        astjax.jit(power)(np.array([1.5, 2.0]), 3)
    message = str(info.value)
    assert "return 1.0" in message and "returns the number 1.0" in message and "`_ret`" not in message
    assert "jnp.ones_like(x)" in message


def test_returning_an_array_on_every_path_compiles():
    x = np.array([1.5, 2.0])
    np.testing.assert_allclose(astjax.jit(power_of_arrays)(x, 3), x ** 3)
