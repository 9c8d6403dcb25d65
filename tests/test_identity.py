"""Function identity and scoping: astjax differentiates the code the function runs, or refuses.

Each case checks the value against running the original function and the
derivative against central finite differences in float64 (and forward mode
against reverse mode where both apply).
"""
import functools
import importlib.util
import linecache
import sys
import textwrap

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def finite_difference(f, x, eps=1e-6):
    """Central differences of a scalar function in float64."""
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)
    out = np.zeros_like(flat)
    for i in range(flat.size):
        step = np.zeros_like(flat)
        step[i] = eps
        out[i] = (float(f((flat + step).reshape(x.shape))) - float(f((flat - step).reshape(x.shape)))) / (2 * eps)
    return out.reshape(x.shape)


def check(f, x):
    """grad(f)(x) and jvp(f) agree with finite differences; value_and_grad's value with f(x)."""
    x = np.asarray(x, dtype=np.float64)
    value, gradient = astjax.value_and_grad(f)(x)
    np.testing.assert_allclose(np.asarray(value), np.asarray(f(x)), rtol=1e-12)
    expected = finite_difference(f, x)
    np.testing.assert_allclose(np.asarray(gradient), expected, rtol=1e-6, atol=1e-8)
    tangent = np.ones_like(x)
    _, forward = astjax.jvp(f, (x,), (tangent,))
    np.testing.assert_allclose(float(forward), float(np.sum(expected * tangent)), rtol=1e-6, atol=1e-8)
    return gradient


def define(text, filename, namespace=None):
    """Execute `text` as if typed in a notebook cell named `filename` (linecache holds its text)."""
    text = textwrap.dedent(text)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"jnp": jnp, "np": np} if namespace is None else namespace
    exec(compile(text, filename, "exec"), namespace)
    return namespace


# --- 1. function identity -----------------------------------------------------------------------

def test_two_lambdas_on_one_line_are_told_apart():
    a, b = (lambda x: x * 2.), (lambda x: x * 3.)
    assert float(check(a, 1.5)) == pytest.approx(2.0)
    assert float(check(b, 1.5)) == pytest.approx(3.0)


def test_nested_lambdas_on_one_line():
    scaled_square = lambda k: (lambda y: y * y * k)
    assert float(check(scaled_square(3.0), 2.0)) == pytest.approx(12.0)
    assert float(check(scaled_square(5.0), 2.0)) == pytest.approx(20.0)


def test_redefined_cell_is_refused_for_the_old_function():
    old = define("def f(x):\n    return x * 2.0\n", "<identity-cell-1>")["f"]
    new = define("def f(x):\n    return x * x * 5.0\n", "<identity-cell-1>")["f"]
    assert float(check(new, 1.5)) == pytest.approx(15.0)
    with pytest.raises(AstjaxError, match="has changed since it was defined"):
        astjax.grad(old)(1.0)


def test_file_changed_after_import_is_refused(tmp_path):
    path = tmp_path / "identity_changed_module.py"
    path.write_text("def f(x):\n    return x * 2.0\n")
    spec = importlib.util.spec_from_file_location("identity_changed_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text("def f(x):\n    return x * 7.0\n")
    linecache.checkcache(str(path))
    with pytest.raises(AstjaxError, match="re-run its definition"):
        astjax.grad(module.f)(1.0)
    sys.modules.pop("identity_changed_module", None)


def test_same_text_same_code_is_accepted():
    f = define("def f(x):\n    return jnp.sin(x) * 2.0\n", "<identity-cell-2>")["f"]
    check(f, 0.3)
    f_again = define("def f(x):\n    return jnp.sin(x) * 2.0\n", "<identity-cell-2>")["f"]
    check(f, 0.3)
    check(f_again, 0.7)


# --- 2. decorated functions ---------------------------------------------------------------------

def _doubling(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 2 * fn(*args, **kwargs)
    return wrapper


def _doubling_explicit(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


def test_decorator_with_star_args_is_differentiated_with_its_wrapper_not_dropped():
    @_doubling
    def f(x):
        return x * x

    assert float(astjax.grad(f)(3.0)) == pytest.approx(12.0)        # 2 * d(x^2): the wrapper's 2 kept
    primal, tangent = astjax.jvp(f, (3.0,), (1.0,))
    assert (float(primal), float(tangent)) == pytest.approx((18.0, 12.0))


def test_decorator_with_star_args_around_defaults_is_refused_not_dropped():
    @_doubling
    def f(x, c=2.0):
        return x * c

    with pytest.raises(AstjaxError, match="wrapped by a decorator"):
        astjax.grad(f)(3.0)


def test_decorator_with_explicit_parameters_is_differentiated_with_its_wrapper():
    @_doubling_explicit
    def f(x):
        return x * x * x

    assert float(check(f, 1.5)) == pytest.approx(2.0 * 3 * 1.5 ** 2)


# --- 3. default arguments -----------------------------------------------------------------------

def test_defaults_are_the_values_bound_at_definition():
    namespace = define("""
        C = 2.0
        def g(x, c=C):
            return c * x * x
        def h(x):
            return g(x) + g(x, 1.0)
        C = 5.0
    """, "<identity-defaults>")
    g, h = namespace["g"], namespace["h"]
    assert float(check(g, 1.5)) == pytest.approx(2 * 2.0 * 1.5)
    assert float(check(h, 1.5)) == pytest.approx(2 * 3.0 * 1.5)


def test_jvp_with_a_default_parameter_not_passed():
    def g(x, c=2.0):
        return c * x * x

    value, tangent = astjax.jvp(g, (1.5,), (0.5,))
    assert float(value) == pytest.approx(g(1.5))
    assert float(tangent) == pytest.approx(2 * 2.0 * 1.5 * 0.5)
    value, tangent = astjax.jvp(g, (1.5, 3.0), (0.5, 1.0))
    assert float(value) == pytest.approx(g(1.5, 3.0))
    assert float(tangent) == pytest.approx(2 * 3.0 * 1.5 * 0.5 + 1.5 ** 2)


def test_reassigned_defaults_rebuild_the_derivative():
    def g(x, c=2.0):
        return c * x * x

    gradient = astjax.grad(g)
    assert float(gradient(1.0)) == pytest.approx(4.0)
    g.__defaults__ = (3.0,)
    assert float(gradient(1.0)) == pytest.approx(6.0)


# --- 4. globals and closure cells rebound after the first transform -----------------------------

def test_rebound_global_is_read_again():
    namespace = define("""
        K = 2.0
        def f(x):
            return K * jnp.sin(x)
    """, "<identity-global>")
    f = namespace["f"]
    gradient = astjax.grad(f)
    assert float(gradient(0.5)) == pytest.approx(2.0 * np.cos(0.5), rel=1e-6)
    namespace["K"] = 3.0
    assert float(gradient(0.5)) == pytest.approx(3.0 * np.cos(0.5), rel=1e-6)
    assert float(astjax.grad(f)(0.5)) == pytest.approx(3.0 * np.cos(0.5), rel=1e-6)
    check(f, 0.5)


def test_rebound_global_function_is_called_anew():
    namespace = define("""
        def helper(x):
            return x * x
        def f(x):
            return helper(x) * 2.0
    """, "<identity-global-function>")
    f = namespace["f"]
    gradient = astjax.grad(f)
    assert float(gradient(1.5)) == pytest.approx(6.0)
    define("""
        def helper(x):
            return jnp.sin(x)
    """, "<identity-global-function-2>", namespace)
    assert float(gradient(1.5)) == pytest.approx(2.0 * np.cos(1.5), rel=1e-6)
    _, tangent = astjax.jvp(f, (1.5,), (1.0,))
    assert float(tangent) == pytest.approx(2.0 * np.cos(1.5), rel=1e-6)


def test_rebound_global_read_by_a_callee_and_under_a_second_grad():
    namespace = define("""
        K = 2.0
        def helper(x):
            return K * x * x * x
        def f(x):
            return helper(x) + x
    """, "<identity-global-callee>")
    f = namespace["f"]
    first, second = astjax.grad(f), astjax.grad(astjax.grad(f))
    assert float(first(1.0)) == pytest.approx(7.0)
    assert float(second(1.0)) == pytest.approx(12.0)
    namespace["K"] = 3.0
    assert float(first(1.0)) == pytest.approx(10.0)
    assert float(second(1.0)) == pytest.approx(18.0)


def test_rebound_closure_cell_is_read_again():
    def make():
        k = 2.0

        def inner(x):
            return k * x * x

        def set_k(value):
            nonlocal k
            k = value
        return inner, set_k

    inner, set_k = make()
    gradient = astjax.grad(inner)
    assert float(gradient(1.0)) == pytest.approx(4.0)
    set_k(7.0)
    assert float(gradient(1.0)) == pytest.approx(14.0)
    _, tangent = astjax.jvp(inner, (1.0,), (1.0,))
    assert float(tangent) == pytest.approx(14.0)
    check(inner, 0.7)


def test_global_defined_later_that_shadows_a_builtin_is_noticed():
    namespace = define("""
        def f(x):
            return abs(x) * x
    """, "<identity-shadow-builtin>")
    f = namespace["f"]
    gradient = astjax.grad(f)
    assert float(gradient(-2.0)) == pytest.approx(4.0)
    namespace["abs"] = lambda v: v * v
    assert float(gradient(-2.0)) == pytest.approx(12.0)


# --- 5. scoping ---------------------------------------------------------------------------------

def test_comprehension_variable_does_not_leak():
    def f(x):
        i = 10.0
        ys = [x * x * i for i in range(3)]
        return jnp.sum(jnp.stack(ys)) * i

    assert float(check(f, 1.5)) == pytest.approx(10.0 * 2 * 1.5 * 3)


def test_generator_variable_does_not_leak():
    def f(x):
        v = x * 2.0
        s = sum(v * x for v in [x, x * x])
        return s + v

    check(f, 1.5)


def test_nested_comprehensions_keep_their_own_variables():
    def f(x):
        i = 3.0
        ys = [[x * i * j for j in range(2)] for i in range(3)]
        return ys[2][1] + ys[1][1] + i * x

    check(f, 1.5)


def test_local_lambda_rebound_to_a_new_body():
    def f(x):
        g = lambda t: t * 2.0
        y = g(x)
        g = lambda t: t * t * x
        return y + g(x)

    assert float(check(f, 1.5)) == pytest.approx(2.0 + 3 * 1.5 ** 2)


def test_local_def_redefined_uses_the_body_in_force_at_each_call():
    def f(x):
        def g(t):
            return t * 2.0
        y = g(x)

        def g(t):
            return jnp.sin(t)

        def h(t):
            return g(t) * 10.0
        return y + g(x) + h(x)

    check(f, 0.7)


def test_local_function_redefined_after_a_caller_is_refused():
    def f(x):
        def g(t):
            return t * 2.0

        def h(t):
            return g(t) * 10.0

        def g(t):
            return t * t
        return h(x)

    with pytest.raises(AstjaxError, match="defined again"):
        astjax.grad(f)(1.0)


def test_local_function_rebound_to_a_value_is_refused():
    def f(x):
        g = lambda t: t * 2.0
        y = g(x)
        g = jnp.sin
        return y + g(x)

    with pytest.raises(AstjaxError, match="rebound to a value"):
        astjax.grad(f)(1.0)


def test_unpacking_an_array_into_its_own_name():
    def f(x):
        x, w = x
        return x * w * w

    check(f, [2.0, 3.0])


def test_unpacking_rows_of_a_matrix():
    def f(x):
        a, b = x
        return jnp.sum(a * jnp.sin(b))

    check(f, np.arange(6.0).reshape(2, 3) / 5)


def test_unpacking_the_wrong_length_raises_as_python_does():
    def f(x):
        x, w = x
        return x * w

    with pytest.raises(Exception):
        f(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(AssertionError, match="another length"):
        astjax.grad(f)(np.array([1.0, 2.0, 3.0]))


# --- 5b. user names that clash with names generated code uses -----------------------------------

CLASHING = ["push", "pop", "range", "len", "unbroadcast", "Tape", "zero_like", "item_adjoint", "index_adjoint",
            "jnp", "np", "sum", "reversed"]


def _check_both_modes(f, x):
    """grad and jvp of `f` at `x` against finite differences, value against `f`."""
    return check(f, x)


@pytest.mark.parametrize("clash", CLASHING)
def test_local_variable_named_like_a_generated_helper(clash):
    namespace = define(f"""
        import astjax.numpy as _numpy
        def f(x):
            {clash} = x * 2.0
            s = 1.0
            for i in _numpy.arange(3):
                s = s * {clash} + _numpy.sin(x) * i
            ys = [x * k for k in [1.0, 2.0]]
            return s + ys[1] * {clash}
    """, f"<identity-clash-local-{clash}>", namespace={})
    _check_both_modes(namespace["f"], 0.7)


@pytest.mark.parametrize("clash", ["push", "pop", "Tape", "unbroadcast", "len", "jnp"])
def test_parameter_named_like_a_generated_helper(clash):
    namespace = define(f"""
        import astjax.numpy as _numpy
        def f({clash}):
            s = 1.0
            for i in _numpy.arange(3):
                s = s * {clash} + _numpy.cos({clash})
            return s
    """, f"<identity-clash-param-{clash}>", namespace={})
    _check_both_modes(namespace["f"], 0.7)


def test_global_functions_named_push_and_pop():
    namespace = define("""
        import astjax.numpy as jnp
        def push(v):
            return v * 3.0
        def pop(v):
            return jnp.sin(v)
        def f(x):
            s = 1.0
            for i in range(3):
                s = s * push(x) + pop(s)
            return s
    """, "<identity-clash-global-functions>", namespace={})
    _check_both_modes(namespace["f"], 0.4)


def test_module_level_range_and_len_redefined():
    namespace = define("""
        import builtins
        import astjax.numpy as jnp
        def range(n):
            return builtins.range(n - 1)
        def len(v):
            return 2
        def f(x):
            s = 1.0
            for i in range(4):
                s = s * x + jnp.sin(x) * len(x)
            return s
    """, "<identity-clash-range>", namespace={})
    f = namespace["f"]
    value = _check_both_modes(f, 0.4)
    assert np.isfinite(value)


def test_nested_binding_of_a_reserved_name_while_the_global_is_used():
    namespace = define("""
        import astjax.numpy as jnp
        def push(v):
            return v * 3.0
        def f(x):
            g = lambda push: push * x
            s = 1.0
            for i in range(2):
                s = s * g(x) + push(x)
            return s
    """, "<identity-clash-nested>", namespace={})
    _check_both_modes(namespace["f"], 0.6)


def test_user_names_like_generated_callee_and_default_names():
    def g(x, c=2.0):
        return c * x * x

    def f(x):
        _default = x * 3.0
        vjp_g = x + 1.0
        jvp_g = x * x
        return g(x) * _default + vjp_g * jvp_g

    check(f, 0.8)


def test_rebound_global_read_by_a_method_under_a_second_grad():
    namespace = define("""
        K = 2.0
        class Model:
            def loss(self, x):
                return K * x * x * x
    """, "<identity-global-method>")
    model = namespace["Model"]()
    first, second = astjax.grad(model.loss), astjax.grad(astjax.grad(model.loss))
    assert float(first(1.0)) == pytest.approx(6.0)
    assert float(second(1.0)) == pytest.approx(12.0)
    namespace["K"] = 3.0
    assert float(first(1.0)) == pytest.approx(9.0)
    assert float(second(1.0)) == pytest.approx(18.0)


def test_lambdas_swapped_on_a_redefined_line_are_refused():
    namespace = define("a, b = (lambda x: x * 2.0), (lambda x: x * 3.0)\n", "<identity-swapped-lambdas>")
    old_b = namespace["b"]
    define("a, b = (lambda x: x * 3.0), (lambda x: x * 2.0)\n", "<identity-swapped-lambdas>")
    with pytest.raises(AstjaxError, match="has changed since it was defined"):
        astjax.grad(old_b)(1.0)


def test_rebound_function_of_a_user_module_is_called_anew(tmp_path, monkeypatch):
    (tmp_path / "identity_helpers_module.py").write_text("def helper(x):\n    return x * x\n")
    (tmp_path / "identity_user_module.py").write_text(
        "import identity_helpers_module as helpers\n\ndef f(x):\n    return helpers.helper(x) * 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import identity_helpers_module
    import identity_user_module
    f = identity_user_module.f
    gradient = astjax.grad(f)
    assert float(gradient(1.5)) == pytest.approx(6.0)
    identity_helpers_module.helper = lambda x: x * x * x
    assert float(gradient(1.5)) == pytest.approx(2.0 * 3 * 1.5 ** 2)
    check(f, 1.5)
    for module in ("identity_helpers_module", "identity_user_module"):
        sys.modules.pop(module, None)


def test_forward_over_reverse_with_a_default_parameter():
    def g(x, c=2.0):
        return c * x * x * x

    value, tangent = astjax.jvp(astjax.grad(g), (1.0,), (1.0,))
    assert float(value) == pytest.approx(6.0)
    assert float(tangent) == pytest.approx(12.0)
    assert float(astjax.hessian(g)(1.0)) == pytest.approx(12.0)


def test_comprehension_with_several_loops_and_conditions():
    def f(x):
        i = 5.0
        ys = [x * k * j for k in range(3) for j in range(k, 3) if j > 0 if k < 2]
        zs = [x ** k for k in range(5) if k % 2 == 0]
        return sum(ys) + sum(zs) * i

    check(f, 1.3)


def test_comprehension_over_a_list_of_values_with_a_condition():
    """`b is not a` between two arrays asks which object each is, which the transformed program does not keep
    (`y = x * 1.0` folds to `x`; `np.asarray(x)` of an astjax Array is a new array): refused when the function
    runs, at the user's line (normalize/type_inspection.py). The same sum over positions works."""
    def f(x):
        xs = [x, 2.0 * x, x * x]
        return sum(a * b for a in xs for b in xs if b is not a)

    with pytest.raises(AstjaxError, match="between arrays") as refused:
        astjax.grad(f)(1.3)
    assert "if b is not a" in str(refused.value)

    def g(x):
        xs = [x, 2.0 * x, x * x]
        return sum(xs[i] * xs[j] for i in range(3) for j in range(3) if i != j)

    check(g, 1.3)


def test_parameter_named_like_a_builtin_keeps_its_keyword():
    def scaled(x, min, max):
        s = 0.0
        for i in range(3):
            s = s + jnp.clip(x * i, min, max) * x
        return s

    expected = finite_difference(lambda v: scaled(v, -1.0, 2.0), 0.9)
    assert float(astjax.grad(scaled)(0.9, -1.0, max=2.0)) == pytest.approx(float(expected), rel=1e-6)
    assert float(astjax.grad(scaled)(0.9, min=-1.0, max=2.0)) == pytest.approx(float(expected), rel=1e-6)
    bound = functools.partial(scaled, min=-1.0, max=2.0)
    assert float(astjax.grad(bound)(0.9)) == pytest.approx(float(expected), rel=1e-6)
    _, tangent = astjax.jvp(bound, (0.9,), (1.0,))
    assert float(tangent) == pytest.approx(float(expected), rel=1e-6)


def test_a_global_named_like_a_comprehension_variable_does_not_force_rebuilds():
    namespace = define("""
        i = 0
        def f(x):
            ys = [x * i for i in range(3)]
            return ys[2] * x
    """, "<identity-global-i>")
    f = namespace["f"]
    gradient = astjax.grad(f)
    transform = gradient.__astjax_transform__
    assert float(gradient(1.5)) == pytest.approx(6.0)
    built = transform.derivation("value_and_grad")
    for step in range(3):
        namespace["i"] = step + 1
        assert float(gradient(1.5)) == pytest.approx(6.0)
    assert transform.derivation("value_and_grad") is built


def test_pullback_belongs_to_the_function_when_vjp_was_called():
    namespace = define("""
        K = 2.0
        def f(x):
            return K * x * x
    """, "<identity-pullback>")
    f = namespace["f"]
    output, pullback = astjax.vjp(f, 1.5)
    namespace["K"] = 3.0
    assert float(output) == pytest.approx(2.0 * 1.5 ** 2)
    assert float(pullback(1.0)[0]) == pytest.approx(2.0 * 2 * 1.5)
    output, pullback = astjax.vjp(f, 1.5)
    assert float(pullback(1.0)[0]) == pytest.approx(3.0 * 2 * 1.5)
