"""Calls bound when transforming (normalize/call_signatures.py, closure_factories.py,
local_function_values.py): the derivative is rebuilt when what the binding read changes,
and what cannot be bound is refused clearly."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

OFFSET = 1.0


def _make(c):
    return lambda v: v * c * OFFSET


def _factory_loss(x):
    f = _make(x[0])
    return f(x[1])


def _sum_all(*vals, scale=1.0):
    s = 0.0
    for v in vals:
        s = s + jnp.sum(v) * scale
    return s * OFFSET


def _star_loss(x):
    return _sum_all(x, x * 2.0, scale=x[0])


def test_factory_global_rebound_rebuilds_the_derivative():
    global OFFSET
    x = np.array([2.0, 3.0])
    grad = astjax.grad(_factory_loss)
    try:
        np.testing.assert_allclose(grad(x), [3.0, 2.0])
        OFFSET = 10.0
        np.testing.assert_allclose(grad(x), [30.0, 20.0])
    finally:
        OFFSET = 1.0


def test_star_args_callee_global_rebound_rebuilds_the_derivative():
    global OFFSET
    x = np.array([2.0, 3.0])
    grad = astjax.grad(_star_loss)
    expected = np.array([3.0 * 5.0, 0.0]) + 3.0 * x[0]          # d/dx of 3 * x0 * sum(x)
    try:
        np.testing.assert_allclose(grad(x), expected)
        OFFSET = 2.0
        np.testing.assert_allclose(grad(x), 2.0 * expected)
    finally:
        OFFSET = 1.0


def _two_args(a, b):
    return a - b


def _unknown_length(x, parts):
    return _two_args(*parts) * x


def test_star_of_unknown_length_is_refused():
    with pytest.raises(AstjaxError, match="starred"):
        astjax.grad(_unknown_length)(1.0, (2.0, 3.0))


def _kw_twice(a, *, b):
    return a * 10.0 + b


def _bad_keywords(x):
    return _kw_twice(x, a=x)


def test_call_not_matching_the_parameters_is_refused():
    with pytest.raises(AstjaxError, match="does not match the parameters"):
        astjax.grad(_bad_keywords)(1.0)


def test_star_args_callee_is_generated_once_per_length():
    text = astjax.source(astjax.grad(_star_loss))
    assert text.count("def vjp__sum_all") == 1, text


class _Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, h):
        return h * self.w


def _layer_loss(x):
    layer = _Layer(x[0])
    return layer.forward(x[1])


def test_method_redefined_rebuilds_the_derivative():
    x = np.array([2.0, 3.0])
    grad = astjax.grad(_layer_loss)
    np.testing.assert_allclose(grad(x), [3.0, 2.0])
    original = _Layer.forward
    try:
        _Layer.forward = lambda self, h: h * self.w * self.w
        np.testing.assert_allclose(grad(x), [12.0, 4.0])
    finally:
        _Layer.forward = original
    np.testing.assert_allclose(grad(x), [3.0, 2.0])


def _closure_in_loop(x):
    s = 0.0
    for i in range(3):
        f = lambda v: v * x[i]       # noqa: E731
        s = s + f(x[0])
    return s


def test_lambda_in_loop_source_reads_well():
    text = astjax.source(astjax.grad(_closure_in_loop))
    assert "lambda" not in text, text
