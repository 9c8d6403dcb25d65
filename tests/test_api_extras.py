"""JAX's smaller top-level API: linearize, jacobian, checkpoint/remat, block_until_ready, device_get,
default_backend, local_device_count, process_index. Each checked against its definition (jvp, jacrev,
the undecorated function) and the values JAX documents."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def f(x, y):
    return jnp.sin(x) * y + x ** 2


def test_linearize_gives_the_value_and_jvps_at_the_stored_point():
    x, y = jnp.array([0.3, 1.2]), jnp.array([2.0, -1.0])
    value, f_jvp = astjax.linearize(f, x, y)
    np.testing.assert_allclose(value, f(x, y))
    for tx, ty in [(np.array([1.0, 0.0]), np.zeros(2)), (np.array([0.5, -2.0]), np.array([1.0, 3.0]))]:
        want = astjax.jvp(f, (x, y), (jnp.array(tx), jnp.array(ty)))[1]
        np.testing.assert_allclose(f_jvp(jnp.array(tx), jnp.array(ty)), want, rtol=1e-6)
        by_hand = np.cos(x) * y * tx + 2 * x * tx + np.sin(x) * ty
        np.testing.assert_allclose(f_jvp(jnp.array(tx), jnp.array(ty)), by_hand, rtol=1e-5)
    with pytest.raises(TypeError, match="tangent"):
        f_jvp(jnp.array([1.0, 0.0]))


def test_linearize_with_aux():
    def g(x):
        return jnp.sum(x ** 3), jnp.max(x)

    value, f_jvp, aux = astjax.linearize(g, jnp.array([1.0, 2.0]), has_aux=True)
    assert float(value) == 9.0 and float(aux) == 2.0
    np.testing.assert_allclose(f_jvp(jnp.array([1.0, 1.0])), 3 * 1.0 + 3 * 4.0)


def test_jacobian_is_jacrev():
    x = jnp.array([0.3, 1.2])
    np.testing.assert_allclose(astjax.jacobian(jnp.sin)(x), np.diag(np.cos(np.asarray(x))), rtol=1e-6)
    assert astjax.jacobian is astjax.jacrev


@astjax.checkpoint
def layer(w, x):
    return jnp.tanh(w * x)


@astjax.remat
def twice(x):
    return layer(2.0, x) * x


@astjax.checkpoint(policy=None, prevent_cse=False)
def scaled(x):
    return 3.0 * x ** 2


def test_checkpoint_keeps_values_and_derivatives():
    def loss(x):
        return jnp.sum(twice(x) + scaled(x))

    x = jnp.array([0.1, -0.4, 0.7])
    by_hand = (1 - np.tanh(2 * np.asarray(x)) ** 2) * 2 * np.asarray(x) + np.tanh(2 * np.asarray(x)) + 6 * np.asarray(x)
    np.testing.assert_allclose(astjax.grad(loss)(x), by_hand, rtol=1e-5)
    np.testing.assert_allclose(astjax.grad(astjax.checkpoint(loss))(x), by_hand, rtol=1e-5)
    with pytest.raises(TypeError, match="takes a function"):
        astjax.checkpoint(3.0)


def test_devices_helpers():
    x = {"a": jnp.ones(2), "b": [np.zeros(1), 3]}
    assert astjax.block_until_ready(x) is x
    got = astjax.device_get(x)
    assert type(got["a"]) is np.ndarray and got["b"][1] == 3
    assert astjax.default_backend() == "cpu"
    assert astjax.local_device_count() == len(astjax.local_devices()) == 1
    assert astjax.process_index() == 0


def _inner(v):
    return jnp.sin(v) * v


def test_checkpoint_called_inside_a_transformed_function():
    def loss(x):
        return jnp.sum(astjax.checkpoint(_inner)(x))

    x = jnp.array([0.3, 0.5])
    np.testing.assert_allclose(astjax.grad(loss)(x), np.cos(np.asarray(x)) * np.asarray(x) + np.sin(np.asarray(x)),
                               rtol=1e-6)


def test_ravel_pytree_round_trip_with_dtypes_as_jax():
    from astjax.flatten_util import ravel_pytree
    params = {"w": jnp.arange(6.0).reshape(2, 3), "b": (jnp.ones(2, dtype=jnp.float32), np.int32(4))}
    flat, unravel = ravel_pytree(params)
    assert flat.shape == (9,) and flat.dtype == np.float32                     # JAX: float32[9]
    np.testing.assert_array_equal(flat, [1, 1, 4, 0, 1, 2, 3, 4, 5])             # sorted keys, as JAX
    back = unravel(flat * 2)
    np.testing.assert_array_equal(back["w"], 2 * np.arange(6.0).reshape(2, 3))
    assert back["b"][1].dtype == np.int32 and int(back["b"][1]) == 8
    with pytest.raises(ValueError, match="shape"):
        unravel(flat[:3])
    assert ravel_pytree({})[0].shape == (0,)


def test_config_update_accepts_what_astjax_does_and_explains_the_rest():
    """A script ported from JAX calls `config.update("jax_enable_x64", True)`: astjax has no such switch,
    and says so rather than run in float32 without a word."""
    astjax.config.update("jax_enable_x64", False)
    astjax.config.update("jax_platform_name", "cpu")
    with pytest.raises(ValueError, match="float64 NumPy array"):
        astjax.config.update("jax_enable_x64", True)
    with pytest.raises(ValueError, match="no such flag"):
        astjax.config.update("jax_made_up_flag", 1)
