"""Functions as values: a known function passed to a user function, partials, map.

Each program is checked against running it (values) and central finite
differences in float64 (gradients), forward mode against reverse; function
values astjax cannot know when transforming are refused.
"""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def _fd_grad(fn, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (fn(x + e) - fn(x - e)) / (2 * h)
    return g


def _check(fn, x):
    x = np.asarray(x, dtype=np.float64)
    value, grad = astjax.value_and_grad(fn)(x)
    np.testing.assert_allclose(value, fn(x), rtol=1e-12)
    np.testing.assert_allclose(grad, _fd_grad(fn, x), rtol=1e-6, atol=1e-8)
    tangent = np.linspace(0.3, 1.1, x.size).reshape(x.shape)
    _, forward = astjax.jvp(fn, (x,), (tangent,))
    np.testing.assert_allclose(forward, np.sum(grad * tangent), rtol=1e-9, atol=1e-12)


X = np.array([0.3, -0.7, 1.2])


def _apply(f, x):
    return f(x) * 2.0


def _cube_plus(v):
    return v ** 3 + v


def _layer(x, nonlinearity=np.tanh):
    return nonlinearity(x * 1.5)


def _apply_twice(f, g, x):
    return g(f(x))


def _repeat(f, x, n):
    if n == 0:
        return x
    return _repeat(f, f(x), n - 1)


def _scaled_power(x, k, scale):
    return scale * x ** k


SQUARE_HALF = functools.partial(_scaled_power, k=2, scale=0.5)


def two_functions_one_callee(x):
    return jnp.sum(_apply(jnp.sin, x) * _apply(_cube_plus, x))


def default_and_keyword(x):
    return jnp.sum(_layer(x) + _layer(x, nonlinearity=jnp.exp) + _layer(x, np.cos))


def two_function_parameters(x):
    return jnp.sum(_apply_twice(jnp.tanh, _cube_plus, x) + _apply_twice(_cube_plus, jnp.tanh, x))


def recursive_callee_passes_its_function(x):
    return jnp.sum(_repeat(jnp.sin, x, 3))


def module_partial_called_and_passed(x):
    return jnp.sum(SQUARE_HALF(x) + _apply(SQUARE_HALF, x))


@pytest.mark.parametrize("fn", [two_functions_one_callee, default_and_keyword, two_function_parameters,
                                recursive_callee_passes_its_function, module_partial_called_and_passed],
                         ids=lambda f: f.__name__)
def test_known_functions_as_arguments(fn):
    _check(fn, X)


ACTIVATION = jnp.tanh


def uses_global_activation(x):
    return jnp.sum(_apply(ACTIVATION, x))


def test_rebound_global_function_rebuilds_the_specialization():
    global ACTIVATION
    grad = astjax.grad(uses_global_activation)
    np.testing.assert_allclose(grad(X), _fd_grad(uses_global_activation, X), rtol=1e-6)
    try:
        ACTIVATION = jnp.sin
        np.testing.assert_allclose(grad(X), 2 * np.cos(X), rtol=1e-12)
        ACTIVATION = _cube_plus
        np.testing.assert_allclose(grad(X), 2 * (3 * X ** 2 + 1), rtol=1e-12)
    finally:
        ACTIVATION = jnp.tanh


def _rebound_default(x, f=jnp.sin):
    return f(x)


def uses_rebound_default(x):
    return jnp.sum(_rebound_default(x))


def test_rebound_default_rebuilds_the_specialization():
    grad = astjax.grad(uses_rebound_default)
    np.testing.assert_allclose(grad(X), np.cos(X), rtol=1e-12)
    old = _rebound_default.__defaults__
    try:
        _rebound_default.__defaults__ = (jnp.exp,)
        np.testing.assert_allclose(grad(X), np.exp(X), rtol=1e-12)
    finally:
        _rebound_default.__defaults__ = old


FUNCTIONS = [jnp.sin, jnp.cos]


def function_chosen_from_data(x):
    f = FUNCTIONS[int(x[0] > 0)]
    return jnp.sum(_apply(f, x))


def function_in_a_list_argument(x, fs):
    return jnp.sum(_apply(fs[0], x))


def test_unknown_function_values_are_refused():
    with pytest.raises(AstjaxError, match="test_function_values.py"):
        astjax.grad(function_chosen_from_data)(X)
    with pytest.raises(AstjaxError, match="test_function_values.py"):
        astjax.grad(function_in_a_list_argument)(X, [jnp.sin])


def local_partial_over_traced_value(x):
    w = x[0] * 2.0
    g = functools.partial(_scaled_power, k=3, scale=w)
    w = 5.0                      # the partial keeps the value it was made with
    return jnp.sum(g(x) + g(x, scale=w))


def local_partial_positional(x):
    g = functools.partial(_scaled_power, x[1])
    return g(2, 0.5) + g(3, scale=x[2])


def map_two_iterables(x):
    ys = list(map(_scaled_power, [x[0], x[1]], [2, 3], [x[2], 0.5]))
    return ys[0] + ys[1]


def loop_over_map(x):
    s = 0.0
    for v in map(jnp.tanh, [x[0], x[1] * x[2]]):
        s = s + v * v
    return s


def map_lambda_reading_outer(x):
    c = x[2]
    return sum(map(lambda a, b: a * b * c, [x[0], x[1]], [x[1], x[0]]))


def map_passed_function(x):
    return sum(map(SQUARE_HALF, [x[0], x[1], x[2]]))


@pytest.mark.parametrize("fn", [local_partial_over_traced_value, local_partial_positional, map_two_iterables,
                                loop_over_map, map_lambda_reading_outer, map_passed_function],
                         ids=lambda f: f.__name__)
def test_partials_and_map(fn):
    _check(fn, X)


def _apply_then_twice(f, x):
    h = f(x)
    return f(h * 0.5, scale=0.25) + h


def traced_partial_passed(x):
    p = functools.partial(_scaled_power, k=3, scale=x[0])
    q = functools.partial(_scaled_power, x[1], 2)
    return jnp.sum(_apply(p, x) + _apply_then_twice(p, x) + _apply(jnp.sin, x)) + _apply(q, 1.5)


def partial_stored_in_a_list(x):
    p = functools.partial(_scaled_power, k=3, scale=x[0])
    fs = [p]
    return jnp.sum(x) + 0.0 * len(fs)


def test_partial_made_in_the_function_passed_as_argument():
    _check(traced_partial_passed, X)


def test_partial_used_otherwise_is_refused():
    with pytest.raises(AstjaxError, match="used other than by calling it"):
        astjax.grad(partial_stored_in_a_list)(X)


def _rebinds_its_function(f, x, flip):
    if flip:
        f = jnp.cos
    return f(x)


def callee_rebinding_its_function_parameter(x):
    return jnp.sum(_rebinds_its_function(jnp.sin, x, False))


def loop_over_map_of_a_list_the_body_extends(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in map(jnp.sin, xs):
        s = s + v
        if len(xs) < 4:
            xs.append(v * 2.0)
    return s


def test_unsound_rewrites_are_not_made():
    """A callee that rebinds its function parameter is not specialized; a map whose list the loop extends
    is not made a list first (Python's map would see the new items): both refused, never wrong."""
    for fn in (callee_rebinding_its_function_parameter, loop_over_map_of_a_list_the_body_extends):
        try:
            got = astjax.grad(fn)(X)
        except AstjaxError as exc:
            assert "test_function_values.py" in str(exc)
        else:
            np.testing.assert_allclose(got, _fd_grad(fn, X), rtol=1e-6, atol=1e-8)


class _Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, v):
        return jnp.sin(v) * self.k


SCALE = _Scale(3.0)


def global_callable_object(x):
    return jnp.sum(SCALE(x) ** 2 + _apply(SCALE, x))


def test_global_callable_object_reads_its_state_when_called():
    _check(global_callable_object, X)
    grad = astjax.grad(global_callable_object)
    SCALE.k = 5.0
    try:
        np.testing.assert_allclose(grad(X), _fd_grad(global_callable_object, X), rtol=1e-6)
    finally:
        SCALE.k = 3.0
