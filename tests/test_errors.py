"""Bad input gets a clear error naming the user's file, line and expression, and what to do instead."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import SourceUnavailableError, TransformError

import error_cases as cases


def error_of(fn, *args, **kwargs):
    with pytest.raises((TransformError, TypeError, ValueError)) as info:
        fn(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("fn, words", [
    (cases.uses_try, "try/except"),
    (cases.uses_yield, "yield"),
    (cases.uses_global, "global"),
])
def test_unsupported_syntax_points_at_the_line_with_a_caret(fn, words):
    message = error_of(astjax.grad(fn), 1.0)
    assert "error_cases.py" in message and "line" in message
    assert words in message
    assert "^" in message and "Instead:" in message


def test_function_without_source():
    namespace = {}
    exec("def made_by_exec(x):\n    return x * 2.0\n", namespace)
    with pytest.raises(SourceUnavailableError, match="no source file"):
        astjax.grad(namespace["made_by_exec"])(1.0)
    with pytest.raises(SourceUnavailableError, match="no Python source"):
        astjax.grad(divmod)(1.0)          # a builtin without a rule (np.sin or abs is a primitive: it works)


def test_integer_input_to_grad():
    message = error_of(astjax.grad(cases.vector_output), 3)
    assert "float" in message and "3.0" in message
    message = error_of(astjax.grad(lambda x: jnp.sum(x)), np.arange(3))
    assert "int" in message


def test_non_scalar_output():
    message = error_of(astjax.grad(cases.vector_output), np.ones(3))
    assert "scalar" in message and "(3,)" in message and "jnp.sum" in message


def test_tuple_output_without_has_aux():
    message = error_of(astjax.grad(cases.tuple_output), 1.0)
    assert "has_aux" in message and "error_cases.py" in message


def test_missing_rule_names_the_callee():
    message = error_of(astjax.grad(cases.calls_opaque_object), 1.0)
    assert "no derivative rule" in message and "custom_vjp" in message
    assert "opaque_object(x)" in message


def test_argnums_out_of_range():
    message = error_of(astjax.grad(cases.vector_output, argnums=2), 1.0)
    assert "argnums" in message


def test_jvp_shape_mismatch():
    message = error_of(astjax.jvp, jnp.sin, (np.ones(3),), (np.ones(2),))
    assert "shape" in message


def test_vjp_cotangent_shape_mismatch():
    _, pullback = astjax.vjp(cases.vector_output, np.ones(3))
    message = error_of(pullback, np.ones(2))
    assert "(2,)" in message and "(3,)" in message


def test_grad_of_a_non_function():
    with pytest.raises(TypeError, match="expects a function"):
        astjax.grad(3.0)


def test_item_assignment_on_an_array_points_to_at():
    x = jnp.zeros(3)
    with pytest.raises(TypeError, match=r"\.at\["):
        x[0] = 1.0


def test_a_library_function_without_a_rule_is_refused_by_name():
    message = error_of(astjax.grad(cases.library_without_rule), np.eye(3))
    assert "no derivative rule for `poly`" in message and "custom_vjp" in message


def test_a_use_the_rules_do_not_cover_is_refused():
    message = error_of(astjax.grad(cases.unsupported_svd), np.ones(3))
    assert "full_matrices" in message and "full_matrices=False" in message


def _astjax_frames(exc):
    import os
    import traceback
    package = os.path.dirname(os.path.abspath(astjax.__file__)) + os.sep
    return [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename).startswith(package)]


@pytest.mark.parametrize("transformation", [astjax.grad, astjax.jacfwd, astjax.jacrev, astjax.hessian])
def test_transform_errors_hide_astjax_frames(transformation):
    with pytest.raises(TransformError) as info:
        transformation(cases.uses_try)(np.float64(1.0))
    frames = _astjax_frames(info.value)
    assert len(frames) <= 1 and all(f.filename.endswith("errors.py") for f in frames), frames
    assert "error_cases.py" in str(info.value)


def test_runtime_error_in_generated_code_names_the_generated_and_the_user_line():
    with pytest.raises(IndexError) as info:
        astjax.grad(cases.index_past_the_end)(np.ones(3))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "generated code" in notes and "y[_t" in notes
    assert "error_cases.py" in notes and "z = y[jnp.argmax(y) + 10]" in notes


def test_runtime_error_in_second_order_code_is_traced_to_the_user_line():
    with pytest.raises(IndexError) as info:
        astjax.jacfwd(astjax.grad(cases.index_past_the_end_in_the_adjoint))(np.ones(3))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "<astjax:" in notes and ("index_adjoint" in notes or "b[_t" in notes)
    assert "error_cases.py" in notes and "c = b[jnp.argmax(b) + 10]" in notes


def _batched_quadratic(A):
    return jnp.sum(jnp.einsum("...ij,...jk->...ik", A, A))


def test_a_refusal_while_transforming_generated_code_names_the_users_line_too():
    """A second derivative transforms the first derivative's generated code: an error there also names the
    user's line that code came from."""
    with pytest.raises(TransformError) as info:
        astjax.hessian(_batched_quadratic)(np.eye(3))
    message = str(info.value)
    assert "derived from your line" in message and __file__ in message
    assert 'jnp.einsum("...ij,...jk->...ik", A, A)' in message


def _lineless(exc):
    """`exc` with a traceback entry whose line Python reports as None (as 3.11 does for a frame stopped on a
    lineless cleanup instruction)."""
    import types
    try:
        raise exc
    except type(exc) as caught:
        frame = caught.__traceback__.tb_frame
    entry = types.TracebackType(None, frame, 10 ** 6, -1)
    assert entry.tb_lineno is None
    return exc.with_traceback(entry)


@pytest.mark.parametrize("kind", ["astjax", "other"])
def test_tracebacks_leaving_astjax_give_every_entry_a_line(kind):
    """pytest (and any tool printing a traceback) fails on an entry whose line is None: every exception leaving
    a public transformation, and the exceptions chained to it, has lines throughout."""
    from astjax.errors import AstjaxError, api_boundary

    def raises():
        inner = _lineless(ValueError("inside generated code"))
        outer = _lineless(AstjaxError("refused") if kind == "astjax" else RuntimeError("failed"))
        raise outer from inner

    with pytest.raises((AstjaxError, RuntimeError)) as info:
        api_boundary(raises)()
    exc = info.value
    while exc is not None:
        tb = exc.__traceback__
        while tb is not None:
            assert tb.tb_lineno is not None
            tb = tb.tb_next
        exc = exc.__cause__


@pytest.mark.xfail(strict=True, reason="raises on purpose: its report must be written (tests/conftest.py)")
def test_a_failing_test_whose_traceback_has_a_lineless_entry_is_reported():
    raise _lineless(RuntimeError("a traceback entry without a line"))
