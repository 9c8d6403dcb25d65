"""Regressions for what attacks14 found (tests/adversarial/attacks14.py has the corpus): a list or dict changed
through what a call returns (`d.setdefault(k, []).append(v)`, `d.get(k).append(v)`, `helper(d).append(v)`) or a
dict changed by `update`/`setdefault`/`popitem` through another name (`e = d`, `inner = d["a"]`,
`d["a"].update(...)`) kept its value but lost its derivative under grad (a silently wrong gradient): refused at
the line; grad with a negative argnum of a function with a defaulted parameter differentiated the signature's last
parameter (silently wrong): refused, and counted from the parameters where each must be passed; a module-level
list or dict changed in place was read as a constant (grad and jvp gave 0): refused."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

# the corpus's programs (tests/adversarial/attacks14.py runs them as "either" cases): their refusal, its line and
# its advice are pinned here
from adversarial import attacks14 as corpus

X = np.array([0.3, -0.7, 1.1, 0.5])


@pytest.mark.parametrize("fn, line, words", [
    (corpus.helper_returned_list_append, "_list_of(d).append(x[0])", "that `_list_of(d)` returns"),
    (corpus.setdefault_append, "d.setdefault(\"k\", []).append(x[0])", "returns"),
    (corpus.dict_update_through_alias, "e.update({\"b\": x[1] * 4.0})", "`e = dict(e)`"),
    (corpus.inner_dict_update_keyword, "d[\"a\"].update(b=x[1] * 4.0)", "held inside `d`"),
], ids=lambda v: getattr(v, "__name__", "")[:20])
def test_mutation_through_a_call_result_or_another_name_is_refused(fn, line, words):
    """grad gave the gradient of the function without the change (the value was right)."""
    with pytest.raises(AstjaxError) as info:
        astjax.grad(fn)(X.copy())
    message = str(info.value)
    assert corpus.__file__ in message and line in message and words in message, message
    assert "Instead" in message


_HISTORY = []


def global_value_popped(x):
    v = _HISTORY.pop()
    return x[0] * v


@pytest.mark.parametrize("fn, line", [(corpus.global_list_refilled, "_HISTORY.clear()"),
                                      (corpus.global_dict_updated, "_SETTINGS.update(a=x[0] * 3.0)"),
                                      (global_value_popped, "v = _HISTORY.pop()")],
                         ids=lambda v: getattr(v, "__name__", "")[:20])
def test_a_module_level_list_or_dict_changed_in_place_is_refused(fn, line):
    """Read as a constant when transforming: grad and jvp gave 0 (jvp of `_G.append` crashed)."""
    _HISTORY[:] = [1.0]
    for transform in (astjax.grad(fn), lambda v: astjax.jvp(fn, (v,), (np.ones(4),))):
        with pytest.raises(AstjaxError) as info:
            transform(X.copy())
        message = str(info.value)
        assert fn.__code__.co_filename in message and line in message and "defined outside the function" in message, \
            message


def special_method_iadd(x):
    y = x * 1.0
    z = y
    z.__iadd__(1.0)
    return jnp.sum(y * x)


def through_the_class(x):
    d = {"a": x[0]}
    dict.update(d, a=x[1] * 3.0)
    return d["a"] ** 2


def positional_out(x):
    y = x * 1.0
    z = y
    np.add(z, 1.0, z)
    return jnp.sum(y * x)


@pytest.mark.parametrize("fn, words", [(special_method_iadd, "special method `__iadd__`"),
                                       (through_the_class, "through its class `dict`"),
                                       (positional_out, "writes into positionally")],
                         ids=lambda v: getattr(v, "__name__", "")[:20])
def test_in_place_changes_spelled_another_way_are_refused(fn, words):
    """The value itself was wrong for `z.__iadd__(1.0)` (2.04 against 3.24) and `np.add(z, 1.0, z)`."""
    with pytest.raises(AstjaxError, match=words):
        astjax.value_and_grad(fn)(X.copy())


def write_into_copy(x, idx):
    y = x * 1.0
    y[idx][0] = 100.0
    return jnp.sum(y ** 2)


def test_a_write_into_the_copy_advanced_indexing_makes_is_refused():
    """NumPy leaves y unchanged; astjax wrote 100.0 into y (value 10001.95 against 2.04). An integer index writes
    through the row, as NumPy does."""
    with pytest.raises(AstjaxError, match="is a copy") as info:
        astjax.value_and_grad(write_into_copy)(X.copy(), np.array([0, 1]))
    assert "y[idx][0] = 100.0" in str(info.value)
    np.testing.assert_allclose(np.asarray(astjax.grad(write_into_copy)(X.reshape(2, 2).copy(), 1)),
                               2 * np.where(np.arange(4).reshape(2, 2) == 2, 0.0, X.reshape(2, 2)), rtol=1e-12)


def write_into_what_get_returns(x):
    d = {"k": [x[0], x[1]]}
    d.get("k")[0] = x[2] * 3.0
    return sum(d["k"]) ** 2


def test_a_write_into_what_a_method_returns_is_refused():
    """astjax gave the value 0.16 (NumPy 6.76) and a wrong gradient: the write went to a copy."""
    with pytest.raises(AstjaxError, match="writes into what `d.get"):
        astjax.value_and_grad(write_into_what_get_returns)(X.copy())


_CALLS = []


def counts_its_calls(x):
    _CALLS.append(1)          # changed with a constant, never read: no derivative reaches it (allowed, as before)
    return jnp.sum(x ** 2)


def logs_a_computed_value(x):
    _CALLS.append(x[0] * 2.0)     # JAX: a leaked tracer; astjax's jvp crashed (NameError in generated code)
    return jnp.sum(x ** 2)


def test_a_module_level_log_of_constants_works_and_of_values_is_refused():
    np.testing.assert_allclose(np.asarray(astjax.grad(counts_its_calls)(X.copy())), 2 * X, rtol=1e-12)
    with pytest.raises(AstjaxError, match="defined outside the function"):
        astjax.jvp(logs_a_computed_value, (X.copy(),), (np.ones(4),))


def config_update_then_scale(x):
    cfg = {"lr": 0.1}
    cfg.update(lr=0.25)
    out = []
    out.append(x * cfg["lr"])
    return jnp.sum(out[0] ** 2)


def test_a_dict_update_and_an_append_no_other_name_sees_still_work():
    np.testing.assert_allclose(np.asarray(astjax.grad(config_update_then_scale)(X.copy())), 2 * 0.25 ** 2 * X,
                               rtol=1e-12)


def scaled(a, b, scale=1.0):
    return jnp.sum(a ** 2 * b) * scale


def plain(a, b):
    return jnp.sum(a ** 2 * jnp.sin(b))


def test_negative_argnums():
    """-1 is the last positional argument (JAX); with a defaulted parameter its position depends on the call,
    which grad does not know when it builds the derivative: refused (it differentiated `scale`)."""
    a, b = X[:3], X[1:]
    with pytest.raises(TypeError, match="pass non-negative argnums"):
        astjax.grad(scaled, argnums=-1)(a, b)
    with pytest.raises(TypeError, match="out of range"):
        astjax.grad(plain, argnums=-3)
    np.testing.assert_allclose(np.asarray(astjax.grad(plain, argnums=-1)(a, b)), a ** 2 * np.cos(b), rtol=1e-12)
    ga, gb = astjax.value_and_grad(plain, argnums=(-2, -1))(a, b)[1]
    np.testing.assert_allclose(np.asarray(ga), 2 * a * np.sin(b), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(astjax.hessian(plain, argnums=-1)(a, b)), np.diag(-a ** 2 * np.sin(b)),
                               rtol=1e-12, atol=1e-15)
    assert float(astjax.grad(jnp.arctan2, argnums=-1)(0.3, 0.5)) == pytest.approx(-0.3 / 0.34, rel=1e-6)
