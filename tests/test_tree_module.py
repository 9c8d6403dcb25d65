"""astjax.tree: jax.tree's short names are tree_util's functions, transformed like them."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import tree, tree_util


def loss(params, x):
    l2 = sum(tree.leaves(tree.map(lambda p: jnp.sum(p ** 2), params)))
    return jnp.sum(jnp.tanh(x @ params["w"] + params["b"])) + 0.1 * l2


def loss_with_tree_util(params, x):
    l2 = sum(tree_util.tree_leaves(tree_util.tree_map(lambda p: jnp.sum(p ** 2), params)))
    return jnp.sum(jnp.tanh(x @ params["w"] + params["b"])) + 0.1 * l2


def test_the_short_names_are_tree_utils_functions():
    assert tree.map is tree_util.tree_map and tree.leaves is tree_util.tree_leaves
    assert tree.flatten is tree_util.tree_flatten and tree.unflatten is tree_util.tree_unflatten
    assert tree.structure is tree_util.tree_structure and tree.reduce is tree_util.tree_reduce
    assert tree.all is tree_util.tree_all


def test_a_gradient_through_tree_map_and_leaves():
    params = {"w": np.full((2, 2), 0.3), "b": np.arange(2.0)}
    x = np.array([[1.0, 2.0]])
    got = astjax.grad(loss)(params, x)
    want = astjax.grad(loss_with_tree_util)(params, x)
    for key in params:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12)
    # the L2 term's share: 0.2 * p, checked against central differences on one entry
    h = 1e-6
    bumped = {k: v.copy() for k, v in params.items()}
    bumped["b"][1] += h
    lower = {k: v.copy() for k, v in params.items()}
    lower["b"][1] -= h
    np.testing.assert_allclose(got["b"][1], (loss(bumped, x) - loss(lower, x)) / (2 * h), rtol=1e-6)
