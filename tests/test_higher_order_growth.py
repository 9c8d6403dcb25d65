"""What keeps nested derivatives small, and what it must not drop.

grad(grad(f)) leaves out the inner gradient's output check only where the output
provably has the shape of x (just checked to be a scalar); a temporary holding a
negated name is substituted where it is read, unless something in between changes it.
"""
import ast

import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.optimize.forward_substitution import substitute_temporaries

WEIGHTS = np.array([1.0, 2.0, 3.0])


def quotient(x):
    return (1 - jnp.exp(-2 * x)) / (1 + jnp.exp(-2 * x))


def scaled_by_a_global_array(x):
    return jnp.sin(x) * WEIGHTS


def last_row(x):
    out = x
    for row in jnp.ones((2, 3)) * x:
        out = row
    return jnp.cos(out)


def added_in_place(x):
    out = jnp.sin(x)
    out += WEIGHTS
    return out


def scaled_pair(x):
    return x * WEIGHTS, 1.0


def unpacked(x):
    out = jnp.sin(x)
    if x > 0.5:
        out, unused = scaled_pair(x)
    return out


def maybe_a_vector(x):
    out = jnp.sin(x)
    if x > 0.5:
        out = out * jnp.ones(2)
    return out


def test_the_output_check_goes_where_the_output_has_the_shape_of_x():
    g = astjax.grad(astjax.grad(quotient))
    np.testing.assert_allclose(float(g(jnp.array(np.float64(0.3)))), -2 * np.tanh(0.3) * (1 - np.tanh(0.3) ** 2), rtol=1e-12)
    text = astjax.source(g)
    assert text.count("jnp.ndim(") == 1 and "jnp.ndim(x)" in text


@pytest.mark.parametrize("fn", [scaled_by_a_global_array, last_row, maybe_a_vector, added_in_place, unpacked])
def test_the_output_check_stays_where_the_output_may_be_an_array(fn):
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        astjax.grad(astjax.grad(fn))(jnp.array(0.9))


def _substituted(text):
    node = gast.parse(text).body[0]
    substitute_temporaries(node)
    return ast.unparse(gast.gast_to_ast(node))


def test_a_negated_name_is_substituted_where_it_is_read():
    text = _substituted("def f(a, b):\n    _t2 = -a\n    y = _t2 * b\n    z = _t2 / b\n    return y + z\n")
    assert "_t2" not in text and text.count("-a") == 2


@pytest.mark.parametrize("body", [
    "_t2 = -a\n    y = _t2 * b\n    a = b\n    return y + _t2",               # a changes before the last read
    "_t2 = -a\n    y = b\n    for i in range(3):\n        y = y + _t2\n    return y",      # read in a loop
    "_t2 = -a\n    y = b\n    if b > 0:\n        y = _t2\n    return y + _t2",             # read in a branch
    "y = -a\n    return y * b + y",                                            # the user's own name
    "_t2 = -a\n    y = _t2 * b\n    a[0] = b\n    return y + _t2",            # a changes in place
    "_t2 = -a\n    y = _t2 * b\n    a.sort()\n    return y + _t2",
])
def test_a_negated_name_stays_where_substituting_would_change_it(body):
    text = _substituted(f"def f(a, b):\n    {body}\n")
    assert "    _t2 = -a\n" in text or "    y = -a\n" in text, text
