"""What a jitted function's first call skips (coldjit2, issue 7), and that the checks it skipped still hold.

- jit(grad(f)) runs the gradient-only function where f's value is a full sum of straight-line code
  (jit/grad_value_check.py): a non-scalar or integer output still raises grad's TypeError.
- a fused loop's shape test that held on the first call is a guard (jit/lower/observed_shapes.py):
  a later call with other shapes compiles the unfused branch and gets the right number.
- a Python-number division's zero test compiles no Numba string code (jit/python_numbers.py).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.jit import cache


def sum_of_squares_plus_tanh(x):
    return jnp.sum(jnp.tanh(x) * x + x * x)


def vector_output(x):
    return jnp.tanh(x) * 2.0


def integer_output(x):
    return jnp.sum(x > 0.0)


def branch_then_sum(x, n):
    y = x * 2.0
    if n > 1:
        y = y * x
    return jnp.sum(y)


def scaled_product(x, y):
    return jnp.tanh(x) * y + jnp.exp(y) * x


def scaled_difference(x, y):
    return jnp.tanh(x) * y - x


def reciprocal_scale(x, n):
    return x * (1.0 / n) + x * (n // 2)


X = np.linspace(-1.0, 1.0, 6).astype(np.float32)


def test_jit_grad_of_a_full_sum_compiles_the_gradient_only_and_agrees():
    jitted = astjax.jit(astjax.grad(sum_of_squares_plus_tanh))
    got = jitted(X)
    np.testing.assert_allclose(got, astjax.grad(sum_of_squares_plus_tanh)(X), rtol=1e-5, atol=1e-6)
    source = jitted.lower(X).source
    assert source.startswith("def grad_") and "value_and_grad" not in source


@pytest.mark.parametrize("fun", [vector_output, integer_output])
def test_grads_scalar_check_still_raises_the_same_error_under_jit(fun):
    with pytest.raises(TypeError) as plain:
        astjax.grad(fun)(X)
    with pytest.raises(TypeError) as jitted:
        astjax.jit(astjax.grad(fun))(X)
    assert str(jitted.value) == str(plain.value)


def test_a_value_behind_a_branch_keeps_value_and_grad_and_its_check():
    jitted = astjax.jit(astjax.grad(branch_then_sum))
    np.testing.assert_allclose(jitted(X, 2), astjax.grad(branch_then_sum)(X, 2), rtol=1e-5)
    assert "value_and_grad" in jitted.lower(X, 2).source


def test_a_shape_test_that_held_is_a_guard_and_other_shapes_recompile_unfused():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(3, 4)).astype(np.float32)
    row = rng.normal(size=(1, 4)).astype(np.float32)
    jitted = astjax.jit(scaled_product)
    np.testing.assert_allclose(jitted(x, y), scaled_product(x, y), rtol=1e-5, atol=1e-6)
    guarded = jitted.lower(x, y).source
    assert "_rank_guard_shape(" in guarded and " else " not in guarded
    np.testing.assert_allclose(jitted(x, row), scaled_product(x, row), rtol=1e-5, atol=1e-6)   # guard fires
    assert " else " in jitted.lower(x, row).source          # the unfused branch, compiled now
    np.testing.assert_allclose(jitted(x, y), scaled_product(x, y), rtol=1e-5, atol=1e-6)


def test_the_disk_record_keeps_the_observed_shapes_the_lowering_read():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(2, 5)).astype(np.float32), rng.normal(size=(2, 5)).astype(np.float32)
    jitted = astjax.jit(scaled_difference)
    jitted(x, y)
    compiled = jitted.compiled()
    key = cache.entry_key(compiled.generated, next(iter(compiled.entries)))
    record = cache.load(key)
    assert record is not None
    facts = record[2][compiled.generated.__name__]
    assert facts["x"] == {("shape", (2, 5))} and facts["y"] == {("shape", (2, 5))}


def test_python_number_division_by_zero_raises_without_compiling_string_code():
    from numba.core import dispatcher
    compiled_names = []
    original = dispatcher.Dispatcher.compile

    def recording(self, sig):
        compiled_names.append(getattr(self.py_func, "__qualname__", ""))
        return original(self, sig)
    jitted = astjax.jit(reciprocal_scale)
    dispatcher.Dispatcher.compile = recording
    try:
        np.testing.assert_allclose(jitted(X, 4), reciprocal_scale(X, 4), rtol=1e-6)
    finally:
        dispatcher.Dispatcher.compile = original
    assert not [n for n in compiled_names if "unicode" in n or "startswith" in n], compiled_names
    with pytest.raises(ZeroDivisionError):
        jitted(X, 0)


def test_a_guess_that_fails_on_the_first_call_itself_recompiles_and_agrees(monkeypatch):
    """Every shape test guarded, as if each had held (a wrong guess): the first call's own guard fires,
    jit compiles the signature again with the unfused branch, and the number is still the reference's."""
    import sys
    from astjax.jit.lower.known_ranks import pruning_disabled
    monkeypatch.setattr(sys.modules["astjax.jit.lower.fuse_elementwise"], "holds_as_observed", lambda test, context: not pruning_disabled())
    rng = np.random.default_rng(2)
    x, row = rng.normal(size=(3, 5)).astype(np.float32), rng.normal(size=(1, 5)).astype(np.float32)
    jitted = astjax.jit(scaled_difference)
    np.testing.assert_allclose(jitted(x, row), scaled_difference(x, row), rtol=1e-5, atol=1e-6)
    assert " else " in jitted.lower(x, row).source


def _square(x):
    return x * x


def sum_of_a_callee(x):
    return jnp.sum(_square(x))


def test_a_rebound_callee_is_read_again_before_the_value_is_skipped():
    global _square
    jitted = astjax.jit(astjax.grad(sum_of_a_callee))
    np.testing.assert_allclose(jitted(X), 2 * X, rtol=1e-6)
    assert "value_and_grad" not in jitted.lower(X).source
    original = _square

    def _square(x):                           # a branch: the value's dtype could depend on the data
        if x[0] > 10.0:
            return x
        return x * x
    try:
        np.testing.assert_allclose(jitted(X), 2 * X, rtol=1e-6)
        assert "value_and_grad" in jitted.lower(X).source
    finally:
        _square = original


class _RowSums:
    """A namespace whose `sum` keeps the rows: the value is a vector."""

    @staticmethod
    def sum(x):
        return x * 1.0


def locally_rebound_module(x):
    jnp = _RowSums                      # noqa: F841 -- shadows the module: `jnp.sum` below is not astjax's
    return jnp.sum(jnp.sum(x) * x)


def test_a_name_the_function_binds_itself_is_not_taken_for_the_global():
    """`jnp = ...` inside f: its `jnp.sum` is not astjax's full sum, so the value is checked as grad does
    (a vector output raises, or the call is refused), never skipped into a gradient of its sum."""
    from astjax.jit.grad_value_check import _static_scalar_value
    assert not _static_scalar_value(locally_rebound_module)
    with pytest.raises((TypeError, astjax.errors.AstjaxError)):
        astjax.jit(astjax.grad(locally_rebound_module))(X)
