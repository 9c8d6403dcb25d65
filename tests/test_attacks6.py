"""Regression tests for what redteam6 (issue 6, round VI) fixed: three misleading errors and the
mechanisms behind the corpus's findings (tests/adversarial/attacks6.py)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


# ------------------------------------------------------------ (a) vmap: in_axes dicts and None leaves
def _affine(p, x):
    return jnp.sum(p["w"] * x) + (0.0 if p["b"] is None else p["b"])


def test_vmap_in_axes_dict_over_an_argument_with_a_none_leaf():
    """A None in the argument is an empty subtree (JAX): whatever in_axes says for it gives no leaf."""
    p = {"w": np.arange(6.0).reshape(3, 2), "b": None}
    x = np.array([1.0, 2.0])
    want = [np.sum(p["w"][i] * x) for i in range(3)]
    for axes in ({"w": 0, "b": None}, {"w": 0, "b": 0}):
        got = astjax.vmap(_affine, in_axes=(axes, None))(p, x)
        np.testing.assert_allclose(got, want)


def test_vmap_top_level_dict_in_axes_is_a_type_error_as_in_jax():
    p = {"w": np.ones((3, 2)), "b": 1.0}
    with pytest.raises(TypeError, match=r"in_axes=\(\{"):
        astjax.vmap(_affine, in_axes={"w": 0, "b": None})(p, np.ones(2))


# ------------------------------------------------------------ (b) `d[k] += v` does not put v into d
def _count_up(x):
    d = {"n": 0.0}
    while True:
        d["n"] += x
        if d["n"] > 3:
            break
    return d["n"]


def _count_steps(x):
    d = {"n": 0}
    while True:
        d["n"] += 1
        if d["n"] > 3:
            break
    return x * d["n"]


def test_augmented_dict_item_is_a_new_value_not_an_alias_of_the_right_side():
    assert float(_count_up(0.7)) == pytest.approx(3.5)
    assert float(astjax.grad(_count_up)(0.7)) == pytest.approx(5.0)
    assert float(astjax.grad(_count_steps)(1.5)) == pytest.approx(4.0)


# ------------------------------------------------------------ (c) jvp inside a transformed function
def _inner(x):
    return jnp.sin(x) * x


def _jvp_keywords(x):
    y, t = astjax.jvp(_inner, primals=(x,), tangents=(1.0,))
    return y * t


def _jvp_of_library_function(x):
    y, t = astjax.jvp(jnp.sin, (x,), (1.0,))
    return y * t


def _jvp_primals_by_name(x):
    p = (x,)
    y, t = astjax.jvp(_inner, p, (1.0,))
    return y * t


def test_jvp_inside_grad_with_keywords():
    x = 0.5
    t = np.cos(x) * x + np.sin(x)
    dt = -np.sin(x) * x + 2 * np.cos(x)
    assert float(astjax.grad(_jvp_keywords)(x)) == pytest.approx(t * t + _inner(x) * dt, rel=1e-5)


@pytest.mark.parametrize("fn, match", [(_jvp_of_library_function, "jnp.sin"),
                                       (_jvp_primals_by_name, "tuple literals")])
def test_jvp_inside_grad_refused_with_its_own_reason(fn, match):
    with pytest.raises(AstjaxError, match=match) as info:
        astjax.grad(fn)(0.5)
    message = str(info.value)
    assert "decorator" not in message and "test_attacks6.py" in message


# ------------------------------------------------------------ methods of a known object
class _Model:
    def __init__(self, w, k):
        self.w = w
        self.k = k

    def inner(self, x):
        return jnp.sum(self.w * x) * self.k

    def loss(self, x):
        return self.inner(x) ** 2


_MODEL = _Model(np.array([1.0, 2.0]), 2.0)


def _method_loss(x):
    return _MODEL.loss(x)


def _lambda_method(x):
    f = lambda z: _MODEL.inner(z)
    return f(x) * f(2 * x)


def _expected(x):
    s = np.sum(_MODEL.w * x) * _MODEL.k
    return 2 * s * _MODEL.k * _MODEL.w


def test_method_calling_another_method_of_a_global_object_reads_its_attributes_when_it_runs():
    x = np.array([0.5, 0.25])
    g = astjax.grad(_method_loss)
    np.testing.assert_allclose(g(x), _expected(x))
    old = _MODEL.w, _MODEL.k
    try:
        _MODEL.w, _MODEL.k = np.array([3.0, -1.0]), 5.0      # the cached derivative must see the new values
        np.testing.assert_allclose(g(x), _expected(x))
    finally:
        _MODEL.w, _MODEL.k = old


def test_bound_method_called_in_a_lambda_gets_its_object():
    x = np.array([0.5, 0.25])
    s = np.sum(_MODEL.w * x) * _MODEL.k
    np.testing.assert_allclose(astjax.grad(_lambda_method)(x), 4 * s * _MODEL.k * _MODEL.w)


# ------------------------------------------------------------ jacrev(grad(f)) of a function of a pytree
def _tree_loss(p):
    return jnp.sum(jnp.tanh(p[0] * 2 + p[1]) ** 2)


def test_jacrev_of_grad_of_a_list_argument_matches_hessian():
    """It crashed with a TypeError: the zero tangent of a container's gradient (a TreeAdjoint)."""
    p = [np.array([0.1, 0.2]), np.array([0.3])]
    want = astjax.hessian(_tree_loss)(p)
    got = astjax.jacrev(astjax.grad(_tree_loss))(p)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(got[i][j], want[i][j], rtol=1e-12)
    np.testing.assert_allclose(want[0][1][:, 0], [1.13041858, -0.24318455], rtol=1e-7)    # JAX 0.10


# ------------------------------------------------------------ vmap(jit(grad(f))): per-example gradients of a pytree
def _pair_loss(p, x, y):
    return jnp.sum(p[0] * x) * p[1] * y


def test_vmap_of_jit_of_grad_rebuilds_container_gradients_as_vmap_of_grad():
    """The gradient of a tuple argument came back as an adjoint tree (a ValueError about out_axes)."""
    X, Y = np.arange(12.0).reshape(4, 3), np.arange(4.0)
    p = (np.array([1.0, -0.5, 2.0]), 2.0)
    got = astjax.vmap(astjax.jit(astjax.grad(_pair_loss)), in_axes=(None, 0, 0))(p, X, Y)
    want = [astjax.grad(_pair_loss)(p, X[b], Y[b]) for b in range(4)]
    assert isinstance(got, tuple) and np.shape(got[0]) == (4, 3) and np.shape(got[1]) == (4,)
    np.testing.assert_allclose(got[0], np.stack([w[0] for w in want]))
    np.testing.assert_allclose(got[1], [w[1] for w in want])


# ------------------------------------------------------------ "..." % values is a string, not a modulo
def _formatted(x):
    loss = jnp.sum(x ** 2)
    msg = "step %d: %.4f" % (1, loss)
    return loss * (len(msg) > 0)


def test_percent_string_formatting_of_a_differentiated_value_under_jvp():
    """jvp refused it as `mod` receiving a derivative inside an expression (misleading: it is a string)."""
    x = np.array([1.0, 2.0])
    value, tangent = astjax.jvp(_formatted, (x,), (np.ones(2),))
    assert float(value) == pytest.approx(5.0) and float(tangent) == pytest.approx(6.0)
    np.testing.assert_allclose(astjax.hessian(_formatted)(x), 2 * np.eye(2))
