"""Item updates (`x.at[idx].set/add/multiply(v)`, `y[i] = v`): the right derivative or a clear refusal.

* An update whose index is out of bounds is dropped, as in JAX: the dropped value gets no
  adjoint and x keeps its own at every position (checked against central differences of
  the function itself, which runs with astjax's arrays, and forward against reverse).
* `xs[i] = v` and `xs[i] += v` on a Python list give a new list with that item replaced
  (the aliasing pass checked that no other name sees the list): value, reverse, forward
  and second derivatives are checked; the result stays a list. `xs[i] *= v`, a slice or a
  dict's item are refused at the user's line when the function runs; a tuple raises
  Python's TypeError and an index out of range Python's IndexError.
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


# ---------------------------------------------------------------- item updates of lists: followed
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


def list_item_add_of_an_item_seen_elsewhere(x):
    xs = [x[0], x[1], x[2]]
    xs[1] += xs[0]                   # xs[1] may be a view of a row of x (NumPy adds into x), and x is read
    return xs[1] * x[2]


def list_items_updated_in_a_loop(x):
    xs = [x[0], x[1], x[2]]
    for i in range(3):
        xs[i] = xs[i] * x[i]
        xs[i - 1] = xs[i - 1] + xs[i] * 0.5
    return xs[0] + xs[1] * xs[2]


def constant_list_gets_a_value_then_grows(x):
    xs = [1.0, 2.0]
    xs[1] = x[0] * x[1]
    xs.append(xs[1] * x[2])
    return xs[0] + xs[1] + jnp.sin(xs[2])


def list_of_arrays_row_replaced(x):
    rows = [x * 1.0, x * 2.0]
    rows[0] = rows[1] * x
    return jnp.sum(jnp.stack(rows) ** 2)


def list_returned_after_an_update(x):
    xs = [x[0], x[1]]
    xs[0] = xs[0] * xs[1]
    return xs


LISTS = [list_item_set, list_from_a_helper_item_set, list_item_add, list_items_updated_in_a_loop,
         constant_list_gets_a_value_then_grows, list_of_arrays_row_replaced]


@pytest.mark.parametrize("fn", LISTS, ids=lambda f: f.__name__)
def test_an_item_update_of_a_list_gets_the_derivative(fn):
    x = np.array([0.7, -1.3, 2.1])
    value, grad = astjax.value_and_grad(fn)(x.copy())
    assert np.allclose(float(value), float(fn(x.copy())), rtol=1e-12)
    assert np.allclose(np.asarray(grad), _central_differences(fn, x), rtol=1e-6, atol=1e-6)
    direction = np.array([0.3, -1.1, 0.8])
    _, tangent = astjax.jvp(fn, (x.copy(),), (direction,))
    assert np.allclose(float(tangent), float(np.dot(np.asarray(grad), direction)), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("fn", [list_item_set, list_items_updated_in_a_loop], ids=lambda f: f.__name__)
def test_second_derivatives_through_an_item_update_of_a_list(fn):
    x = np.array([0.7, -1.3, 2.1])
    hessian = np.asarray(astjax.hessian(fn)(x))
    grad = astjax.grad(fn)
    h = 1e-5
    expected = np.array([(np.asarray(grad(x + h * e)) - np.asarray(grad(x - h * e))) / (2 * h) for e in np.eye(3)])
    assert np.allclose(hessian, expected, rtol=1e-6, atol=1e-6)


def test_a_list_updated_in_place_is_still_a_list():
    x = np.array([0.7, -1.3])
    value, tangent = astjax.jvp(list_returned_after_an_update, (x,), (np.array([1.0, 0.0]),))
    assert isinstance(value, list) and isinstance(tangent, list)
    assert np.allclose([float(v) for v in value], list_returned_after_an_update(x))
    assert np.allclose([float(t) for t in tangent], [x[1], 0.0])
    jacobian = astjax.jacrev(list_returned_after_an_update)(x)
    assert isinstance(jacobian, list)
    assert np.allclose(np.asarray(jacobian[0]), [x[1], x[0]]) and np.allclose(np.asarray(jacobian[1]), [0.0, 1.0])


def list_holding_one_array_twice(x):
    y = x * 1.0
    xs = [y, y]
    xs[0] += 1.0                     # NumPy adds into y in place: xs[1] changes too
    return np.sum(xs[1] * x)


def list_holding_overlapping_views(x):
    y = x * 1.0
    xs = [y[0:2], y[1:3]]
    xs[0] += 1.0                     # xs[1] shares y[1] with xs[0]
    return np.sum(xs[1] * x[1:])


@pytest.mark.parametrize("fn", [list_holding_one_array_twice, list_holding_overlapping_views],
                         ids=lambda f: f.__name__)
def test_adding_into_an_item_another_item_shares_is_refused(fn):
    x = np.array([0.7, -1.3, 2.1])
    for transform in (lambda: astjax.grad(fn)(x), lambda: astjax.jvp(fn, (x,), (np.ones(3),))):
        with pytest.raises(AstjaxError) as info:
            transform()
        message = str(info.value)
        assert "test_item_updates.py" in message and "xs[0] += 1.0" in message and "position 1" in message, message


# ---------------------------------------------------------------- what a list, tuple or dict cannot do
def list_item_multiplied(x):
    vals = _as_list(x)
    vals[1] *= x[0]
    return vals[1]


def list_slice_assigned(x):
    vals = _as_list(x)
    vals[0:2] = [x[2], x[2]]
    return vals[0] * vals[1]


def list_index_out_of_range(x):
    vals = _as_list(x)
    vals[5] = x[0]
    return vals[0]


def _as_tuple(v):
    return v[0], v[1], v[2]


def tuple_item_set(x):
    t = _as_tuple(x)
    t[0] = x[1]
    return t[0]


def _as_dict(v):
    return {"a": v[0], "b": v[1]}


def dict_item_set(x):
    d = _as_dict(x)
    d["a"] = d["b"] * 2.0
    return d["a"]


@pytest.mark.parametrize("fn, words", [(list_item_multiplied, ["vals[1] *= x[0]", "xs[i] = xs[i] * v"]),
                                       (list_slice_assigned, ["vals[0:2]", "integer index"])],
                         ids=["multiply", "slice"])
def test_what_astjax_does_not_follow_is_refused_at_its_line(fn, words):
    x = np.array([1.0, 2.0, 3.0])
    for transform in (lambda: astjax.grad(fn)(x), lambda: astjax.jvp(fn, (x,), (np.ones(3),))):
        with pytest.raises(AstjaxError) as info:
            transform()
        message = str(info.value)
        for word in ["test_item_updates.py", "Instead:"] + words:
            assert word in message, (word, message)


def test_a_dict_item_update_is_differentiated():
    """`d[k] = v` on a local dict is a functional update by key (issue 6's containers work)."""
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(astjax.grad(dict_item_set)(x), [0.0, 2.0, 0.0])


def test_an_augmented_update_of_an_item_that_may_be_a_view_is_refused():
    with pytest.raises(AstjaxError) as info:
        astjax.grad(list_item_add_of_an_item_seen_elsewhere)(np.array([1.0, 2.0, 3.0]))
    message = str(info.value)
    assert "xs[1] += xs[0]" in message and "`x`" in message and "Instead:" in message, message
    assert "xs[1] = xs[1] + e" in message, message


@pytest.mark.parametrize("fn, error, match", [(tuple_item_set, TypeError, "does not support item assignment"),
                                              (list_index_out_of_range, IndexError, "out of range")],
                         ids=["tuple", "out_of_range"])
def test_an_update_python_refuses_raises_pythons_error(fn, error, match):
    with pytest.raises(error, match=match):
        fn(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(error, match=match):
        astjax.grad(fn)(np.array([1.0, 2.0, 3.0]))
