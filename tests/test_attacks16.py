"""Regressions for what the sixteenth red team fixed (tests/adversarial/attacks16.py has its corpus).

jacrev of a function with an integer or boolean output returned zeros (JAX raises TypeError); jvp took an
integer tangent for a float primal and went on (JAX raises TypeError); grad of a function returning a list or a
dict raised from a runtime helper without naming the user's line; vmap of a function that calls grad with
respect to a dict and reads an item of the gradient crashed (`g[:, 'w']`), and returning that gradient out of
vmap crashed deep inside; examples/wave.py imported as a module named `wave` (a standard module's name) was
taken for the standard library ("no derivative rule for loss")."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

X = np.array([0.5, 1.5])


def integer_output(x):
    return jnp.floor(x).astype(jnp.int32)


def boolean_output(x):
    return x > 1.0


@pytest.mark.parametrize("fn", [integer_output, boolean_output], ids=lambda f: f.__name__)
def test_jacrev_of_an_integer_or_boolean_output_raises_as_jax(fn):
    """jacrev returned a zero Jacobian (JAX: TypeError "jacrev requires real-valued outputs")."""
    with pytest.raises(TypeError, match="jacrev requires real-valued outputs"):
        astjax.jacrev(fn)(X)


def test_jacfwd_keeps_jax_integer_zeros_and_refuses_a_boolean_output():
    """JAX's jacfwd gives integer zeros for an integer output (its tangent is zero); a boolean one fails there."""
    jacobian = astjax.jacfwd(integer_output)(X)
    assert np.asarray(jacobian).dtype.kind == "i" and not np.any(jacobian)
    with pytest.raises(TypeError, match="jacfwd requires real-valued outputs"):
        astjax.jacfwd(boolean_output)(X)


def doubled(x):
    return x * 2.0


@pytest.mark.parametrize("primal, tangent", [(1.0, 1), (X, np.array([1, 0])), (X, np.array([True, False]))],
                         ids=["python_int", "int_array", "bool_array"])
def test_jvp_refuses_an_integer_or_boolean_tangent_of_a_float_primal(primal, tangent):
    """astjax cast the tangent to the primal's dtype and went on; JAX raises TypeError (in both its modes)."""
    with pytest.raises(TypeError, match="primal and tangent arguments to jvp do not match"):
        astjax.jvp(doubled, (primal,), (tangent,))


def test_jvp_casts_a_float_tangent_of_another_width_as_jax_default_mode():
    value, tangent = astjax.jvp(doubled, (X.astype(np.float32),), (np.array([1.0, 0.5]),))
    assert tangent.dtype == np.float32
    np.testing.assert_allclose(tangent, [2.0, 1.0])


def returns_a_named_list(x):
    out = [x[0] * 2.0, x[1]]
    return out


def returns_a_dict_literal(x):
    y = x * 3.0
    return {"a": y[0], "b": y[1]}


@pytest.mark.parametrize("fn, line", [(returns_a_named_list, "return out"),
                                      (returns_a_dict_literal, 'return {"a": y[0], "b": y[1]}')],
                         ids=lambda v: getattr(v, "__name__", "")[:20])
def test_grad_of_a_list_or_dict_output_names_the_return_line(fn, line):
    for transform in (astjax.grad, astjax.value_and_grad):
        with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions") as info:
            transform(fn)(X)
        message = str(info.value)
        assert isinstance(info.value, AstjaxError) and __file__ in message and line in message, message
        assert "jnp.sum" in message and "astjax.jacrev" in message


def dict_loss(p, x):
    return jnp.sum(jnp.tanh(p["w"] * x + p["b"]) ** 2)


def gradient_items(p, x):
    g = astjax.grad(dict_loss)(p, x)
    return g["w"], g["b"]


def whole_gradient(p, x):
    return astjax.grad(dict_loss)(p, x)


P = {"w": np.array([0.5, -0.3, 0.2]), "b": np.array(0.1)}
XS = np.arange(6.0).reshape(2, 3) / 5


def test_vmap_of_a_function_reading_items_of_a_dict_gradient_matches_the_loop():
    """Crashed with `unhashable type: 'slice'` (the gradient, an adjoint tree, was read as a batched array)."""
    w, b = astjax.vmap(gradient_items, in_axes=(None, 0))(P, XS)
    for k, x in enumerate(XS):
        w_k, b_k = gradient_items(P, x)
        np.testing.assert_allclose(w[k], w_k, rtol=1e-12)
        np.testing.assert_allclose(b[k], b_k, rtol=1e-12)


def test_vmap_of_a_function_returning_a_dict_gradient_is_refused_at_its_return_line():
    """Crashed deep in vmap's output placement (`out_axes=0 is out of range for an output of rank -1`)."""
    with pytest.raises(AstjaxError) as info:
        astjax.vmap(whole_gradient, in_axes=(None, 0))(P, XS)
    message = str(info.value)
    assert __file__ in message and "return astjax.grad(dict_loss)(p, x)" in message and "g['w']" in message


def test_a_user_module_named_like_a_standard_module_is_the_users_code(tmp_path, monkeypatch):
    """examples/wave.py imported as `wave` (the standard library has a `wave`): grad said "no derivative rule
    for loss", since the module's name alone made it the standard library's."""
    source = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "wave.py")
    path = tmp_path / "wave.py"
    path.write_text(open(source).read())
    spec = importlib.util.spec_from_file_location("wave", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "wave", module)
    spec.loader.exec_module(module)
    u0 = module.initial_pulse(6)
    target = np.linspace(-0.1, 0.1, 6)
    gradient = np.asarray(astjax.grad(module.loss)(u0, target, 3))
    eps = 1e-6
    numeric = [(module.loss(u0 + eps * e, target, 3) - module.loss(u0 - eps * e, target, 3)) / (2 * eps)
               for e in np.eye(6)]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-9)


def _fill_first(c):
    y = c.copy()
    y[0] = 5.0
    return y


def _scaled_by_type(v):
    return v * 2.0 if type(v) is np.ndarray else v * 3.0


def with_a_helper_writing_a_copy(x, c):
    return np.sum(x * _fill_first(c))


def with_a_helper_testing_the_type(x, c):
    return np.sum(x * _scaled_by_type(c))


@pytest.mark.parametrize("fn", [with_a_helper_writing_a_copy, with_a_helper_testing_the_type],
                         ids=lambda f: f.__name__)
def test_vjp_and_jacrev_compute_the_output_as_the_program_does(fn):
    """vjp's output (and jacrev's) came from running the helpers on astjax Arrays (JAX's semantics): a write into
    a copy crashed, `type(v) is np.ndarray` took the other branch (vjp's output was silently wrong)."""
    x, c = np.array([0.3, -0.7]), np.array([1.0, 2.0])
    expected = fn(x, c.copy())
    np.testing.assert_allclose(astjax.vjp(fn, x, c)[0], expected, rtol=1e-12)
    np.testing.assert_allclose(astjax.jacrev(fn)(x, c), astjax.grad(fn)(x, c), rtol=1e-12)


def power_zero_by_numpy(a):
    return np.sum(np.linalg.matrix_power(a, 0) * a) + np.sum(np.linalg.matrix_power(a, 2))


def test_numpy_matrix_power_zero_runs_under_grad():
    """NumPy's matrix_power(a, 0) writes into an `empty_like` of its argument: under grad it crashed ("astjax
    arrays are immutable"); it is astjax.numpy's now, as np.gradient and np.roll are."""
    a = np.array([[1.0, 0.3], [0.2, 0.5]])
    np.testing.assert_allclose(astjax.grad(power_zero_by_numpy)(a), np.eye(2) + (a.sum(0)[None, :] + a.sum(1)[:, None]).T,
                               rtol=1e-12)


def _count_clipped(v):
    y = v.copy()
    y[y < 0] = 0.0
    return int(np.count_nonzero(y))


def _factor_by_type(v):
    return 2.0 if type(v) is np.ndarray else 3.0


def scaled_by_a_count(x):
    return np.sum(x ** 2) * _count_clipped(x)


def scaled_by_a_type_test(x):
    return np.sum(x ** 2) * _factor_by_type(x)


def test_the_primal_sweep_runs_user_functions_as_normalized():
    """grad's primal sweep called helpers as written, on astjax Arrays: a write into a copy crashed, and a
    `type(v) is np.ndarray` test took the other branch (value 5.37 and gradient 3 * 2x, where the program gives
    3.58 and 2 * 2x: silently wrong). Now the helpers' normalized versions run: NumPy's semantics, or a refusal."""
    x = np.array([0.3, -0.7, 1.1])
    value, gradient = astjax.value_and_grad(scaled_by_a_count)(x)
    np.testing.assert_allclose(value, scaled_by_a_count(x), rtol=1e-12)
    np.testing.assert_allclose(gradient, 2.0 * 2.0 * x, rtol=1e-12)
    with pytest.raises(AstjaxError, match=r"`type\(v\)`"):
        astjax.value_and_grad(scaled_by_a_type_test)(x)
