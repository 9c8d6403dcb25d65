"""apply_along_axis and piecewise under derivatives (frontend/normalize/per_slice_calls.py): gradients
against central differences, values against NumPy, vmap against a loop, the forms still refused."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

RNG = np.random.default_rng(11)
CUBE = RNG.normal(size=(3, 4, 2))
LINE = np.array([-1.3, -0.7, -0.2, 0.3, 0.9, 1.6])


def central_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


def norm(v):
    return jnp.sqrt(jnp.sum(v * v))


def scaled_outer(v, s):
    return jnp.outer(v, v) * s


def plain_norm(v):
    return np.sqrt(np.sum(v * v))


def row_norms(x):
    return jnp.sum(jnp.apply_along_axis(norm, 1, x) ** 2)


def outer_columns(x):
    return jnp.sum(jnp.sin(jnp.apply_along_axis(scaled_outer, 0, x, 1.5)))


def numpy_last_axis(x):
    return np.sum(np.apply_along_axis(plain_norm, -1, x))


def logarithm(v):
    return jnp.log(v)


def doubled(v):
    return 2.0 * v


def log_where_positive(x):
    return jnp.sum(jnp.piecewise(x, [x > 0], [logarithm, 0.5]) ** 2)


def three_pieces(x):
    return jnp.sum(jnp.piecewise(x, [x < -0.5, x > 0.5], [doubled, jnp.sin, jnp.cos]))


def numpy_pieces(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [doubled, np.tanh]) * x)


def conditions_in_a_variable(x):
    conditions = [x < 0]
    return jnp.sum(jnp.piecewise(x, conditions, [doubled]))


def python_bool_condition(x):
    return jnp.sum(jnp.piecewise(x, [x < 0, False], [doubled, jnp.sin]))


def axis_computed_inside(x):
    axis = 1
    return jnp.sum(jnp.apply_along_axis(norm, axis, x))


@pytest.mark.parametrize("f", [row_norms, outer_columns, numpy_last_axis])
def test_apply_along_axis_gradients(f):
    np.testing.assert_allclose(astjax.grad(f)(CUBE), central_difference(f, CUBE), rtol=1e-6, atol=1e-8)


def test_apply_along_axis_values():
    np.testing.assert_allclose(jnp.apply_along_axis(scaled_outer, 0, CUBE, 1.5),
                               np.apply_along_axis(lambda v: np.outer(v, v) * 1.5, 0, CUBE), rtol=1e-12)


@pytest.mark.parametrize("f", [log_where_positive, three_pieces, numpy_pieces])
def test_piecewise_gradients(f):
    g = astjax.grad(f)(LINE)
    assert np.isfinite(g).all()         # a piece never sees the other pieces' elements (log of negatives)
    np.testing.assert_allclose(g, central_difference(f, LINE), rtol=1e-6, atol=1e-8)


def test_piecewise_values_forward_mode_and_batching():
    np.testing.assert_allclose(jnp.piecewise(LINE, [LINE < -0.5, LINE > 0.5], [doubled, jnp.sin, jnp.cos]),
                               np.piecewise(LINE, [LINE < -0.5, LINE > 0.5], [lambda v: 2 * v, np.sin, np.cos]))
    tangent = RNG.normal(size=LINE.shape)
    assert np.isclose(astjax.jvp(three_pieces, (LINE,), (tangent,))[1], astjax.grad(three_pieces)(LINE) @ tangent)
    batch = np.stack([LINE, -LINE])
    np.testing.assert_allclose(astjax.vmap(astjax.grad(log_where_positive))(batch),
                               np.stack([astjax.grad(log_where_positive)(row) for row in batch]), rtol=1e-12)


@pytest.mark.parametrize("f,words", [(conditions_in_a_variable, "literal lists of conditions"),
                                     (python_bool_condition, "not Python bools"),
                                     (axis_computed_inside, "the axis a constant")])
def test_forms_not_rewritten_are_refused(f, words):
    x = CUBE if f is axis_computed_inside else LINE
    if f is not python_bool_condition:          # NumPy raises for a Python bool condition of an array x
        assert f(x) is not None
    with pytest.raises(AstjaxError, match=f"(?s)test_api6_per_slice.py.*{words}"):
        astjax.grad(f)(x)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jjnp = jax.numpy
    expected = jax.grad(lambda x: jjnp.sum(jjnp.sin(jjnp.apply_along_axis(
        lambda v, s: jjnp.outer(v, v) * s, 0, x, 1.5))))(CUBE)
    np.testing.assert_allclose(astjax.grad(outer_columns)(CUBE), expected, rtol=1e-12)
    expected = jax.grad(lambda x: jjnp.sum(jjnp.piecewise(x, [x < -0.5, x > 0.5],
                                                          [lambda v: 2.0 * v, jjnp.sin, jjnp.cos])))(LINE)
    np.testing.assert_allclose(astjax.grad(three_pieces)(LINE), expected, rtol=1e-12)
