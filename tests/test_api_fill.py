"""API fill (issue 9): jax.numpy's remaining type names and frompyfunc, custom_jvp.defjvps,
and the last jax.scipy.special functions; values against NumPy/SciPy (JAX when installed)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from tests.adversarial.harness import fd_grad


# ------------------------------------------------------------------ jax.numpy type names, frompyfunc

@pytest.mark.parametrize("name, numpy_type", [
    ("double", np.float64), ("single", np.float32), ("float_", np.float64), ("cdouble", np.complex128),
    ("csingle", np.complex64), ("complex_", np.complex128), ("int_", np.int64), ("uint", np.uint64),
    ("character", np.character), ("flexible", np.flexible), ("object_", np.object_)])
def test_type_names_are_numpys_scalar_types(name, numpy_type):
    assert getattr(jnp, name) is numpy_type
    if issubclass(numpy_type, np.number):
        assert jnp.zeros(2, dtype=getattr(jnp, name)).dtype == numpy_type


def test_type_names_match_jaxs():
    jax_numpy = pytest.importorskip("jax.numpy")
    for name in ["double", "single", "float_", "cdouble", "csingle", "complex_", "int_", "uint"]:
        assert np.dtype(getattr(jnp, name)) == np.dtype(getattr(jax_numpy, name)), name
    assert issubclass(jnp.ComplexWarning, Warning)


def _scalar_hypot(a, b):
    return (a * a + b * b) ** 0.5


HYPOT = jnp.frompyfunc(_scalar_hypot, 2, 1)


def _hypot_elementwise(x):
    return jnp.sum(HYPOT(x, x))


def _hypot_made_inside(x):
    return jnp.sum(jnp.frompyfunc(_scalar_hypot, 2, 1)(x, x))


def test_frompyfunc_calls_outer_reduce_accumulate():
    add = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
    x = np.array([1.0, 2.0, 3.5])
    out = add(x, 1.0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x + 1)
    np.testing.assert_array_equal(add.outer(x, np.arange(2.0)), np.add.outer(x, np.arange(2.0)))
    assert float(add.reduce(x)) == 6.5
    np.testing.assert_array_equal(add.accumulate(x), np.cumsum(x))
    assert add.reduce(np.zeros((0,))).shape == ()
    two = jnp.frompyfunc(lambda a: (a, -a), 1, 2)
    p, n = two(np.arange(3))
    np.testing.assert_array_equal(n, -np.arange(3))
    with pytest.raises(ValueError, match="binary"):
        two.reduce(x)


def test_frompyfunc_is_refused_under_a_derivative():
    with pytest.raises(AstjaxError, match="element by element"):
        astjax.grad(_hypot_elementwise)(np.array([1.0, 2.0]))
    with pytest.raises(AstjaxError):
        astjax.grad(_hypot_made_inside)(np.array([1.0, 2.0]))
