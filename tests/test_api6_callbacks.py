"""ShapeDtypeStruct, eval_shape and pure_callback, as JAX's (pure_callback refused under a derivative, its
vmap following vmap_method)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import ShapeDtypeStruct
from astjax.errors import AstjaxError

CALLS = []


def host_sine(x):
    CALLS.append(np.shape(x))
    return np.sin(x)


def through_callback(x):
    return astjax.pure_callback(host_sine, ShapeDtypeStruct(x.shape, x.dtype), x)


def summed(x):
    return jnp.sum(through_callback(x))


def host_shift(a, b):
    CALLS.append((np.shape(a), np.shape(b)))
    return np.sin(a) + np.reshape(b, np.shape(b) + (1,) * (np.ndim(a) - np.ndim(b)))


def shifted(x, y, method):
    return astjax.pure_callback(host_shift, ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method=method)


def matmul_and_sum(x, y):
    return x @ y, jnp.sum(x)


def masked(x):
    return x[x > 2.0]


def test_shape_dtype_struct_and_eval_shape():
    s = ShapeDtypeStruct((2, 3), jnp.float32)
    assert (s.ndim, s.size, len(s)) == (2, 6, 2) and s == ShapeDtypeStruct([2, 3], np.float32)
    assert hash(s) == hash(ShapeDtypeStruct((2, 3), "float32")) and "shape=(2, 3)" in repr(s)
    found = astjax.eval_shape(matmul_and_sum, s, jnp.ones((3, 4)))
    assert found == (ShapeDtypeStruct((2, 4), np.float32), ShapeDtypeStruct((), np.float32))
    assert astjax.eval_shape(jnp.sin, 3.0) == ShapeDtypeStruct((), np.float32)
    with pytest.raises(ValueError, match="depend on the values"):
        astjax.eval_shape(masked, ShapeDtypeStruct((40,), jnp.float32))


def test_pure_callback_values_and_checks():
    x = np.linspace(0.0, 1.0, 3, dtype=np.float32)
    np.testing.assert_allclose(through_callback(x), np.sin(x))
    assert astjax.pure_callback(lambda v: np.ones(2), ShapeDtypeStruct((2,), jnp.float32), x).dtype == np.float32
    with pytest.raises(RuntimeError, match="incorrect output shape"):
        astjax.pure_callback(lambda v: np.ones(3), ShapeDtypeStruct((2,), jnp.float32), x[:2])
    with pytest.raises(ValueError, match="vmap_method"):
        astjax.pure_callback(host_sine, ShapeDtypeStruct((3,), jnp.float32), x, vmap_method="parallel")


def test_pure_callback_has_no_derivative():
    with pytest.raises(AstjaxError, match="(?s)test_api6_callbacks.py.*pure callbacks do not support JVP"):
        astjax.grad(summed)(np.ones(2, np.float32))


@pytest.mark.parametrize("method,seen", [
    ("sequential", [((2,), ())] * 3), ("expand_dims", [((3, 2), (1,))]), ("broadcast_all", [((3, 2), (3,))])])
def test_pure_callback_under_vmap(method, seen):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    CALLS.clear()
    found = astjax.vmap(shifted, in_axes=(0, None, None))(x, np.float32(2.0), method)
    assert CALLS == seen
    np.testing.assert_allclose(found, np.stack([shifted(row, np.float32(2.0), method) for row in x]), rtol=1e-6)


def test_pure_callback_under_vmap_needs_a_method():
    with pytest.raises(NotImplementedError, match="vmap_method"):
        astjax.vmap(through_callback)(np.ones((3, 2), np.float32))
