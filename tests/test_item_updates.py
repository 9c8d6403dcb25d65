"""Item updates (`x.at[idx].set/add/multiply(v)`, `y[i] = v`): the right derivative or a clear refusal.

* An update whose index is out of bounds is dropped, as in JAX: the dropped value gets no
  adjoint and x keeps its own at every position (checked against central differences of
  the function itself, which runs with astjax's arrays, and forward against reverse).
* An item update of a Python list has no rules that keep the list a list: it is refused
  at the user's line, before running when the name is known to be a list, else when the
  function runs; a tuple raises Python's own TypeError.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


# ---------------------------------------------------------------- out of bounds: dropped, as in JAX
def set_out_of_bounds(x):
    y = jnp.asarray(x).at[5].set(x[0] * 10.0)
    return jnp.sum(y ** 2)


def add_partly_out_of_bounds(x):
    y = jnp.asarray(x).at[jnp.array([0, 7, -1, -9])].add(x * x)
    return jnp.sum(jnp.sin(y) * x)


def multiply_partly_out_of_bounds(x):
    v = jnp.stack([x[1], x[2], x[0]]) * 3.0
    y = jnp.asarray(x).at[jnp.array([2, 9, -4])].multiply(v)
    return jnp.sum(y * y)


def set_negative_out_of_bounds(x):
    y = jnp.zeros_like(x[1:]).at[jnp.array([-1, -4])].set(x[:2] ** 2)
    return jnp.sum(y * x[1:])


def item_update_then_out_of_bounds(x):
    y = x * 1.0
    y[0] = x[1] * x[2]
    z = jnp.asarray(y).at[3].add(x[0] * 100.0)
    return jnp.sum(z * z)


OUT_OF_BOUNDS = [set_out_of_bounds, add_partly_out_of_bounds, multiply_partly_out_of_bounds,
                 set_negative_out_of_bounds, item_update_then_out_of_bounds]


def _central_differences(fn, x, h=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (float(fn(up)) - float(fn(down))) / (2 * h)
    return grad


@pytest.mark.parametrize("fn", OUT_OF_BOUNDS, ids=lambda f: f.__name__)
def test_an_out_of_bounds_update_is_dropped_and_gets_no_derivative(fn):
    x = np.array([0.7, -1.3, 2.1, 0.4])
    value, grad = astjax.value_and_grad(fn)(x.copy())
    assert np.allclose(float(value), float(fn(x.copy())), rtol=1e-12)
    assert np.allclose(np.asarray(grad), _central_differences(fn, x), rtol=1e-6, atol=1e-6)
    direction = np.array([0.3, -1.1, 0.8, 1.7])
    _, tangent = astjax.jvp(fn, (x.copy(),), (direction,))
    assert np.allclose(float(tangent), float(np.dot(np.asarray(grad), direction)), rtol=1e-9, atol=1e-9)


def test_second_derivatives_through_an_out_of_bounds_update():
    x = np.array([0.7, -1.3, 2.1, 0.4])
    hessian = np.asarray(astjax.hessian(add_partly_out_of_bounds)(x))
    grad = astjax.grad(add_partly_out_of_bounds)
    h = 1e-5
    expected = np.array([(np.asarray(grad(x + h * e)) - np.asarray(grad(x - h * e))) / (2 * h) for e in np.eye(4)])
    assert np.allclose(hessian, expected, rtol=1e-6, atol=1e-6)


def set_at_a_repeated_position(x):
    y = jnp.zeros_like(x).at[jnp.array([0, 0])].set(x[1:] * 2.0)
    return jnp.sum(y * jnp.array([1.0, 0.0, 0.0]))


def test_the_derivative_of_a_set_at_a_repeated_position_is_refused():
    """Only one of the two values is kept at position 0: v's adjoint must not reach both."""
    x = np.array([1.0, 2.0, 3.5])
    with pytest.raises(AstjaxError) as info:
        astjax.grad(set_at_a_repeated_position)(x)
    message = str(info.value)
    assert "repeats a position" in message and "test_item_updates.py" in message, message
    _, tangent = astjax.jvp(set_at_a_repeated_position, (x,), (np.array([0.0, 1.0, 1.0]),))
    h = 1e-6
    expected = (set_at_a_repeated_position(x + h * np.array([0.0, 1.0, 1.0]))
                - set_at_a_repeated_position(x - h * np.array([0.0, 1.0, 1.0]))) / (2 * h)
    assert np.allclose(float(tangent), float(expected), rtol=1e-6)


# ---------------------------------------------------------------- item updates of lists: refused
def list_item_set(x):
    xs = [x[0], x[1], x[2]]
    xs[-1] = xs[-1] * xs[0]
    return xs[2] + xs[-2]


def _as_list(v):
    return [v[0], v[1], v[2]]


def list_from_a_helper_item_set(x):
    vals = _as_list(x)
    vals[0] = vals[0] * vals[1]
    vals.append(vals[2] ** 2)
    return vals[0] + vals[3]


def list_item_add(x):
    vals = _as_list(x)
    vals[1] += x[0]
    return vals[1] * vals[2]


def _as_tuple(v):
    return v[0], v[1], v[2]


def tuple_item_set(x):
    t = _as_tuple(x)
    t[0] = x[1]
    return t[0]


def test_an_item_update_of_a_known_list_is_refused_at_its_line():
    with pytest.raises(AstjaxError) as info:
        astjax.grad(list_item_set)(np.array([1.0, 2.0, 3.0]))
    message = str(info.value)
    for word in ["test_item_updates.py", "xs[-1] = xs[-1] * xs[0]", "Python list `xs`", "Instead:", "enumerate(xs)",
                 "jnp.stack(xs)"]:
        assert word in message, (word, message)


@pytest.mark.parametrize("fn, line", [(list_from_a_helper_item_set, "vals[0] = vals[0] * vals[1]"),
                                      (list_item_add, "vals[1] += x[0]")], ids=["set", "add"])
def test_an_item_update_of_a_list_from_a_helper_is_refused_when_it_runs(fn, line):
    x = np.array([1.0, 2.0, 3.0])
    for transform in (lambda: astjax.grad(fn)(x), lambda: astjax.jvp(fn, (x,), (np.ones(3),))):
        with pytest.raises(AstjaxError) as info:
            transform()
        message = str(info.value)
        for word in ["test_item_updates.py", line, "Python list", "Instead:"]:
            assert word in message, (word, message)


def test_an_item_update_of_a_tuple_raises_pythons_type_error():
    with pytest.raises(TypeError, match="does not support item assignment"):
        tuple_item_set(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="does not support item assignment"):
        astjax.grad(tuple_item_set)(np.array([1.0, 2.0, 3.0]))


def rebuilt_list(x):
    xs = [x[0], x[1], x[2]]
    v = xs[-1] * xs[0]
    xs = [v if k == 2 else e for k, e in enumerate(xs)]
    return xs[2] + xs[-2]


def stacked_then_updated(x):
    xs = jnp.stack([x[0], x[1], x[2]])
    xs = xs.at[-1].set(xs[-1] * xs[0])
    return xs[2] + xs[-2]


@pytest.mark.parametrize("fn", [rebuilt_list, stacked_then_updated], ids=lambda f: f.__name__)
def test_what_the_refusal_suggests_instead_works(fn):
    x = np.array([1.0, 2.0, 3.0])
    assert np.allclose(np.asarray(astjax.grad(fn)(x)), _central_differences(fn, x), rtol=1e-6)
    assert np.allclose(float(astjax.grad(fn)(x) @ np.ones(3)), float(astjax.jvp(fn, (x,), (np.ones(3),))[1]))
