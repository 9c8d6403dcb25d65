"""astjax.disable_jit: inside the block a jitted function runs as Python, as under jax.disable_jit."""
import numpy as np

import astjax
import astjax.numpy as jnp

CALLS = []


def traced(x):
    CALLS.append(float(np.asarray(x)[0]))      # a Python side effect: runs on every call without jit
    return jnp.sum(jnp.sin(x) * x)


def test_a_jitted_function_runs_its_python_inside_the_block():
    compiled = astjax.jit(traced)
    x = np.array([0.5, 1.5])
    CALLS.clear()
    with astjax.disable_jit():
        first, second = compiled(x), compiled(x + 1.0)
    assert CALLS == [0.5, 1.5]
    np.testing.assert_allclose(first, traced(x))
    np.testing.assert_allclose(second, traced(x + 1.0))
    assert compiled._primal is None                   # nothing was compiled inside the block


def test_a_jitted_gradient_runs_the_reference_backend_inside_the_block():
    x = np.array([0.5, 1.5])
    with astjax.disable_jit():
        got = astjax.jit(astjax.grad(traced))(x)
    np.testing.assert_allclose(got, np.sin(x) + x * np.cos(x))


def test_disable_false_changes_nothing():
    with astjax.disable_jit(False):
        from astjax.jit.api import _DISABLED
        assert not _DISABLED
