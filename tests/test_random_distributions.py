"""astjax.random's further samplers: JAX's numbers for the same key (JAX as oracle when installed),
their moments on large samples, argument errors, and use inside a differentiated function."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.random as ar

KEY = ar.PRNGKey(3)
LOGITS = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32))
P = np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)

SAME_AS_JAX = [
    ("gumbel", ((4, 3),), {}), ("gumbel", ((4,),), {"mode": "high"}), ("exponential", ((5,),), {}),
    ("laplace", ((5,),), {}), ("logistic", ((5,),), {}), ("cauchy", ((5,),), {}),
    ("truncated_normal", (-0.5, np.array([1.0, 2.0], np.float32), (3, 2)), {}), ("rademacher", ((6,),), {}),
    ("maxwell", ((4,),), {}), ("lognormal", (0.5, (4,)), {}), ("rayleigh", (2.0, (4,)), {}),
    ("categorical", (LOGITS, -1, (4, 2)), {}), ("categorical", (LOGITS, 0), {}),
    ("categorical", (LOGITS, -1, (1, 2)), {"replace": False}),
    ("choice", (np.arange(10), (3,)), {"replace": False}), ("choice", (5, (4,)), {"p": P}),
    ("choice", (5, (3,)), {"replace": False, "p": P}),
    ("choice", (np.arange(12.0, dtype=np.float32).reshape(3, 4), (2,)), {"replace": False, "axis": 1}),
]


@pytest.mark.parametrize("name, args, kwargs", SAME_AS_JAX, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SAME_AS_JAX)])
def test_the_same_numbers_as_jax(name, args, kwargs):
    jax = pytest.importorskip("jax")
    got = np.asarray(getattr(ar, name)(KEY, *args, **kwargs))
    want = np.asarray(getattr(jax.random, name)(jax.random.PRNGKey(3), *args, **kwargs))
    assert got.shape == want.shape and got.dtype.kind == want.dtype.kind   # a NumPy int64 input stays int64
    np.testing.assert_allclose(got, want, rtol=2e-6)


@pytest.mark.parametrize("name, mean, var", [("exponential", 1.0, 1.0), ("laplace", 0.0, 2.0),
                                             ("logistic", 0.0, np.pi ** 2 / 3), ("gumbel", 0.5772156649, np.pi ** 2 / 6),
                                             ("maxwell", 2 * np.sqrt(2 / np.pi), 3 - 8 / np.pi)])
def test_moments_of_large_samples(name, mean, var):
    x = np.asarray(getattr(ar, name)(KEY, (200_000,), dtype=np.float64))
    assert abs(x.mean() - mean) < 0.02 and abs(x.var() - var) < 0.05 * var


def test_categorical_and_choice_follow_their_probabilities():
    draws = np.asarray(ar.categorical(KEY, np.log(np.array([0.2, 0.3, 0.5])), shape=(100_000,)))
    np.testing.assert_allclose(np.bincount(draws) / draws.size, [0.2, 0.3, 0.5], atol=0.01)
    picks = np.asarray(ar.choice(KEY, 5, (100_000,), p=P))
    np.testing.assert_allclose(np.bincount(picks) / picks.size, P, atol=0.01)
    assert sorted(np.asarray(ar.choice(KEY, 6, (6,), replace=False)).tolist()) == list(range(6))


def test_truncated_normal_stays_inside_its_bounds():
    x = np.asarray(ar.truncated_normal(KEY, -0.3, 0.2, (10_000,)))
    assert x.min() > -0.3 and x.max() < 0.2


def test_bad_arguments_are_errors():
    with pytest.raises(ValueError, match="larger sample"):
        ar.choice(KEY, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="p must be"):
        ar.choice(KEY, 3, (2,), p=np.ones(4) / 4)
    with pytest.raises(ValueError, match="mode"):
        ar.gumbel(KEY, (2,), mode="highest?")
    with pytest.raises(ValueError, match="cannot exceed"):
        ar.categorical(KEY, LOGITS, shape=(4, 2), replace=False)


def _gumbel_softmax_loss(logits, key):
    noise = ar.gumbel(key, (3,))
    y = jnp.exp((logits + noise) / 0.5)
    return jnp.sum(y / jnp.sum(y) * jnp.array([1.0, 2.0, 3.0]))


def test_a_sampler_on_the_key_inside_a_differentiated_function():
    logits = np.array([0.1, -0.4, 0.7])
    g = astjax.grad(_gumbel_softmax_loss)(logits, KEY)
    eps = 1e-6
    fd = [(_gumbel_softmax_loss(logits + eps * e, KEY) - _gumbel_softmax_loss(logits - eps * e, KEY)) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-5)
