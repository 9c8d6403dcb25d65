"""Derivatives through pytree functions (tree_util.tree_leaves, ...) at first and higher orders,
each checked against central finite differences."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import tree_util

from adversarial.harness import fd_grad, replace_leaves

EPS = 1e-6


def _fd_grad(fn, tree):
    """Central differences of a scalar function of a dict of float arrays, as a dict."""
    return replace_leaves(tree, fd_grad(fn, (tree,), 0))


def _assert_trees_close(got, want):
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), want[key], rtol=1e-6, atol=1e-8, err_msg=key)


def _leaves_loss(params):
    leaves = tree_util.tree_leaves(params)
    return jnp.sum(leaves[0] ** 2) * jnp.sum(leaves[1] ** 3) + jnp.sum(leaves[2] ** 2)


def _grad_read_in_part(params):
    g = astjax.grad(_leaves_loss)(params)
    return jnp.sum(g["a"] * g["c"])       # the gradient's "b" never reached: its adjoint stays empty


def _params(b_size):
    return {"a": np.array([1.0, 2.0]), "b": np.linspace(0.5, 0.7, b_size), "c": np.array([3.0, -1.0])}


def test_second_order_through_tree_leaves_with_an_item_never_reached():
    """The adjoint of the gradient holds only "a" and "c": its leaves are filled out to the tree's
    structure, not flattened alone (which put "c"'s adjoint on "b"'s leaf)."""
    for b_size in (1, 2):          # leaves of different shapes, and of one shape (stackable)
        params = _params(b_size)
        _assert_trees_close(astjax.grad(_grad_read_in_part)(params), _fd_grad(_grad_read_in_part, params))


def test_forward_over_reverse_through_tree_leaves():
    params = _params(2)
    tangent = {"a": np.array([0.3, -0.1]), "b": np.array([0.2, 0.4]), "c": np.array([-0.5, 0.1])}
    _, dgrad = astjax.jvp(astjax.grad(_leaves_loss), (params,), (tangent,))
    grad = astjax.grad(_leaves_loss)
    shifted = lambda s: {k: params[k] + s * tangent[k] for k in params}   # noqa: E731
    want = {k: (np.asarray(grad(shifted(EPS))[k]) - np.asarray(grad(shifted(-EPS))[k])) / (2 * EPS) for k in params}
    _assert_trees_close(dgrad, want)


def _dict_loss(p):
    return jnp.sum(p["a"] ** 2 * p["b"])


def _dict_loss_with_aux(p):
    return jnp.sum(p["a"] ** 2 * p["b"]), p["a"] * 2.0


def test_hessian_vector_products_of_dict_arguments_are_dicts():
    p = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, 0.7])}
    t = {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])}
    grad, hvp = astjax.jvp(astjax.grad(_dict_loss), (p,), (t,))
    _assert_trees_close(grad, {"a": 2 * p["a"] * p["b"], "b": p["a"] ** 2})
    _assert_trees_close(hvp, {"a": 2 * t["a"] * p["b"] + 2 * p["a"] * t["b"], "b": 2 * p["a"] * t["a"]})
    (value, grad2), (dvalue, hvp2) = astjax.jvp(astjax.value_and_grad(_dict_loss), (p,), (t,))
    np.testing.assert_allclose(value, _dict_loss(p))
    np.testing.assert_allclose(dvalue, sum(np.sum(grad[k] * t[k]) for k in p))
    _assert_trees_close(grad2, grad)
    _assert_trees_close(hvp2, hvp)
    (grad3, aux), (hvp3, daux) = astjax.jvp(astjax.grad(_dict_loss_with_aux, has_aux=True), (p,), (t,))
    _assert_trees_close(grad3, grad)
    _assert_trees_close(hvp3, hvp)
    np.testing.assert_allclose(aux, 2 * p["a"])
    np.testing.assert_allclose(daux, 2 * t["a"])


def test_hessian_of_dict_arguments_is_nested_by_key_as_in_jax():
    p = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, 0.7])}
    hess = astjax.hessian(_dict_loss)(p)
    np.testing.assert_allclose(hess["a"]["a"], np.diag(2 * p["b"]))
    np.testing.assert_allclose(hess["a"]["b"], np.diag(2 * p["a"]))
    np.testing.assert_allclose(hess["b"]["a"], np.diag(2 * p["a"]))
    np.testing.assert_allclose(hess["b"]["b"], np.zeros((2, 2)))


# ------------------------------------------------------------ tree_map inside a differentiated function
def _square_sum(p):
    return jnp.sum(p ** 2)


def _weight_decay_loss(params):
    penalties = tree_util.tree_map(lambda p: jnp.sum(p ** 2), params)
    return jnp.sum(jnp.tanh(params["W"]) * params["b"]) + 0.1 * sum(tree_util.tree_leaves(penalties))


def _one_leaf_read(params):
    penalties = tree_util.tree_map(_square_sum, params)
    return penalties["W"] * 3.0                      # the "b" leaf's adjoint is never reached


def _two_trees(params, scales):
    scaled = tree_util.tree_map(lambda p, s: p * s, params, scales)
    return jnp.sum(jnp.sin(scaled["W"])) + jnp.sum(scaled["b"] ** 3)


def _step_then_loss(params):
    grads = tree_util.tree_map(lambda p: 2.0 * p, params)
    moved = tree_util.tree_map(lambda p, g: p - 0.1 * g * p, params, grads)
    return jnp.sum(jnp.cos(moved["W"])) * jnp.sum(moved["b"])


def _dict_params():
    return {"W": np.array([[0.3, -0.2], [0.5, 0.1]]), "b": np.array([0.4, -0.7])}


def test_grad_through_tree_map():
    for fn in (_weight_decay_loss, _one_leaf_read, _step_then_loss):
        params = _dict_params()
        _assert_trees_close(astjax.grad(fn)(params), _fd_grad(fn, params))


def test_grad_through_tree_map_of_two_differentiated_trees():
    params, scales = _dict_params(), {"W": np.array([[1.0, 2.0], [0.5, -1.0]]), "b": np.array([3.0, 0.2])}
    g_params, g_scales = astjax.grad(_two_trees, argnums=(0, 1))(params, scales)
    _assert_trees_close(g_params, _fd_grad(lambda p: _two_trees(p, scales), params))
    _assert_trees_close(g_scales, _fd_grad(lambda s: _two_trees(params, s), scales))


def test_second_derivative_through_tree_map():
    params = _dict_params()
    tangent = {"W": np.array([[0.1, 0.2], [-0.3, 0.4]]), "b": np.array([0.5, -0.6])}
    _, hvp = astjax.jvp(astjax.grad(_step_then_loss), (params,), (tangent,))
    grad = astjax.grad(_step_then_loss)
    shifted = lambda s: {k: params[k] + s * tangent[k] for k in params}   # noqa: E731
    want = {k: (np.asarray(grad(shifted(EPS))[k]) - np.asarray(grad(shifted(-EPS))[k])) / (2 * EPS) for k in params}
    _assert_trees_close(hvp, want)


def _mismatched(params):
    return jnp.sum(tree_util.tree_leaves(tree_util.tree_map(lambda a, b: a * b, params, [params["W"]]))[0])


def test_tree_map_of_trees_of_different_structures_raises():
    import pytest
    with pytest.raises(ValueError, match="structure"):
        astjax.grad(_mismatched)(_dict_params())
