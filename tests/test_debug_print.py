"""astjax.debug.print: jax.debug.print's spelling, rewritten into `print` of an f-string.

Before the rewrite, a `debug.print(...)` statement under grad was a call whose effect the cleanup passes
could not see (an attribute call), so it was dropped: nothing printed.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import debug
from astjax.errors import AstjaxError


def loss(x):
    debug.print("first {} second {b:.2f} {{braces}} {c!r}", x[0], b=x[1], c=2, ordered=True)
    return jnp.sum(x * x)


def needs_a_literal(x, fmt):
    debug.print(fmt, x)
    return jnp.sum(x)


def names_a_missing_field(x):
    debug.print("{missing}", x)
    return jnp.sum(x)


X = np.array([1.0, 2.0])


def test_plain_call_prints_the_formatted_string(capsys):
    loss(X)
    assert capsys.readouterr().out == "first 1.0 second 2.00 {braces} 2\n"


def test_grad_keeps_the_print_and_shows_it_as_an_f_string(capsys):
    np.testing.assert_allclose(astjax.grad(loss)(X), 2 * X)
    assert capsys.readouterr().out == "first 1.0 second 2.00 {braces} 2\n"
    assert "print(" in astjax.source(astjax.grad(loss)) and "debug.print" not in astjax.source(astjax.grad(loss))


def test_forward_mode_prints_too(capsys):
    astjax.jvp(loss, (X,), (X,))
    assert "second 2.00" in capsys.readouterr().out


@pytest.mark.parametrize("fn", [needs_a_literal, names_a_missing_field])
def test_a_format_it_cannot_rewrite_is_refused_at_the_users_line(fn):
    with pytest.raises(AstjaxError, match="debug.print") as info:
        astjax.grad(fn)(X, "{}") if fn is needs_a_literal else astjax.grad(fn)(X)
    assert "test_debug_print.py" in str(info.value)
