"""Regressions for what attacks10 found (tests/adversarial/attacks10.py has the corpus): the reverse sweep
handed a bare 0.0 adjoint to the rule of a variable defined only in a branch or a loop when nothing on the
path taken reached it (a floor, a sign, a branch that ignores it), and the rule crashed moving, reshaping or
passing it on (AxisError, ValueError); jacrev(grad) of a matrix norm of ord 1, inf or 2 was one such."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

_W = np.array([[1.0, 2.0], [3.0, 4.0]])


def moved_then_sign(x, k):
    if k == 0:
        return jnp.sum(x ** 2)
    xm = jnp.moveaxis(x, (0, 1), (-2, -1))
    if k == 1:
        gm = jnp.sign(xm) * 2.0
    else:
        gm = jnp.sin(xm)
    return jnp.sum(gm * _W)


def swapped_in_loop(x, k):
    s = 0.0
    for i in range(2):
        xm = jnp.swapaxes(x, 0, 1)
        if i < k:
            s = s + jnp.sum(jnp.sin(xm) * i)
    return s


def reshaped_then_floored(x, k):
    if k > 0:
        y = jnp.reshape(x, (4,))
        z = y * 2.0
        if k > 1:
            return jnp.sum(z)
        return jnp.sum(jnp.floor(z))
    return jnp.sum(x)


def _first_row_energy(v):
    return jnp.sum(v[0] ** 2)


def helper_result_unused(x, k):
    if k > 0:
        e = _first_row_energy(x.T)
        if k > 1:
            return e
        return jnp.round(e)
    return jnp.sum(x)


_X = np.array([[0.3, -0.8], [1.1, 0.5]])


@pytest.mark.parametrize("fn, k, expected", [
    (moved_then_sign, 1, np.zeros((2, 2))),
    (moved_then_sign, 2, np.cos(_X) * _W),
    (swapped_in_loop, 0, np.zeros((2, 2))),
    (swapped_in_loop, 1, np.zeros((2, 2))),           # the pass that reads xm multiplies by i = 0
    (swapped_in_loop, 2, np.cos(_X)),
    (reshaped_then_floored, 1, np.zeros((2, 2))),
    (reshaped_then_floored, 2, np.full((2, 2), 2.0)),
    (helper_result_unused, 1, np.zeros((2, 2))),
    (helper_result_unused, 2, np.array([[0.6, 0.0], [2.2, 0.0]])),
])
def test_an_adjoint_nothing_reached_is_zeros_of_its_shape(fn, k, expected):
    g = astjax.grad(fn)(_X.copy(), k)
    np.testing.assert_allclose(g, expected, atol=1e-12)
    _, t = astjax.jvp(lambda x: fn(x, k), (_X.copy(),), (np.ones_like(_X),))
    np.testing.assert_allclose(t, np.sum(expected), atol=1e-12)


def matrix_norms(x):
    a = x.reshape(2, 2)
    return jnp.linalg.norm(a, 1) + jnp.linalg.norm(a, jnp.inf) + jnp.linalg.norm(a, 2) ** 2


def test_reverse_over_reverse_of_matrix_norms_matches_differences_of_the_gradient():
    x = np.array([0.3, -0.8, 1.1, 0.5])
    # the 1- and inf-norms are piecewise linear (zero second derivative); the squared 2-norm's is not
    h = 1e-5
    grad = astjax.grad(matrix_norms)
    fd = np.stack([(grad(x + h * e) - grad(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(astjax.jacrev(grad)(x), fd, atol=1e-6)


def test_the_shaping_line_is_written_only_where_nothing_surely_reached_the_adjoint():
    text = astjax.source(astjax.grad(moved_then_sign), _X, 1)
    assert text.count("unbroadcast(bxm, xm)") == 1, text
    # a variable an unconditional later statement reaches (the branch's own return) needs none
    assert "unbroadcast(bgm" not in text, text


def scan_with_a_dict_carry(x):
    def step(c, xi):
        return {"m": c["m"] * 0.5 + xi, "v": c["v"] * xi}, c["m"] * xi
    c, ys = astjax.lax.scan(step, {"m": 0.0, "v": 1.0}, x)
    return jnp.sum(ys) + c["m"] * c["v"]


def test_forward_over_reverse_of_a_scan_with_a_dict_carry_of_constants():
    # the tangent of `c = init` (a dict of constants) was jnp.zeros_like(init): one array, and `dc["m"]` failed
    x = np.array([0.1, 0.5, -0.3])
    expected = astjax.jacrev(astjax.grad(scan_with_a_dict_carry))(x)
    np.testing.assert_allclose(astjax.jacfwd(astjax.grad(scan_with_a_dict_carry))(x), expected, atol=1e-12)
    h = 1e-5
    grad = astjax.grad(scan_with_a_dict_carry)
    fd = np.stack([(grad(x + h * e) - grad(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(expected, fd, atol=1e-6)
