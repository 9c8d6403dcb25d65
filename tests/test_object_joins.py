"""Joining objects that are not arrays: jnp.stack of dicts or gradient trees once made an object array, and the
nested vmap of a gradient of dict parameters returned an Array of shape (4, 5) where a dict of per-example
gradients was due (no error). Both are refused now; one vmap of the same gradient still matches a loop."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def loss(p, x):
    return jnp.sum(jnp.tanh(x @ p["w"] + p["b"]) ** 2)


RNG = np.random.default_rng(0)
PARAMS = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}


@pytest.mark.parametrize("join", [jnp.stack, jnp.concatenate, jnp.vstack])
def test_joining_dicts_is_refused(join):
    with pytest.raises(TypeError, match="the items must be arrays or numbers, got a dict"):
        join([{"a": np.ones(2)}, {"a": np.ones(2)}])


def test_a_nested_vmap_of_a_gradient_of_dict_parameters_gives_no_array_in_place_of_the_dict():
    batch = RNG.standard_normal((4, 5, 3))
    nested = astjax.vmap(astjax.vmap(astjax.grad(loss), in_axes=(None, 0)), in_axes=(None, 0))
    try:
        got = nested(PARAMS, batch)
    except TypeError as refusal:
        assert "must be arrays or numbers" in str(refusal)
        return
    expected = [[astjax.grad(loss)(PARAMS, batch[i, j]) for j in range(5)] for i in range(4)]
    for key in ("w", "b"):
        np.testing.assert_allclose(got[key], np.array([[e[key] for e in row] for row in expected]), rtol=1e-12)


def test_one_vmap_of_the_gradient_of_dict_parameters_matches_a_loop():
    batch = RNG.standard_normal((5, 3))
    got = astjax.vmap(astjax.grad(loss), in_axes=(None, 0))(PARAMS, batch)
    for key in ("w", "b"):
        expected = np.array([astjax.grad(loss)(PARAMS, x)[key] for x in batch])
        np.testing.assert_allclose(got[key], expected, rtol=1e-12)


@pytest.mark.parametrize("value", [[{"a": 1.0}, {"a": 2.0}], {"a": 1.0}, [1.0, None]], ids=["dicts", "dict", "none"])
def test_an_array_of_objects_is_refused_as_jax_refuses_it(value):
    """NumPy would make an object array (and astjax once did); JAX raises TypeError."""
    for make in (jnp.array, jnp.asarray):
        with pytest.raises(TypeError, match="astjax arrays hold numbers"):
            make(value)
