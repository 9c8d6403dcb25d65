"""jit's `v = None` placeholders (jit/lower/typed_placeholders.py) and a None result (jit/compiled.py).

A derivative declares the variables its tape saves as `v = None`; that None is pushed and popped back
unread, so compiled code gives it the type the variable holds later. A user's own `w = None` that the
function reads as None is not such a placeholder: before, `if w is None:` was compiled as a test of an
empty array (False: jit returned 0.0 where Python returns 6.0), and a None result came back as nan.
"""
import numpy as np

import astjax
import astjax.numpy as jnp


def maybe_scaled(x, flag):
    w = None
    k = None
    if flag > 0:
        w = x * 2.0
        k = 3
    total = jnp.sum(x) if w is None else jnp.sum(w)
    if k is not None:
        total = total * k
    return total, w


def test_a_users_none_tested_or_returned_stays_none():
    x = np.array([1.0, 2.0, 3.0])
    compiled = astjax.jit(maybe_scaled)
    total, w = compiled(x, 1)                  # the first call observes w as an array and k as an int
    assert float(total) == 36.0
    np.testing.assert_array_equal(w, [2.0, 4.0, 6.0])
    total, w = compiled(x, -1)
    assert float(total) == 6.0 and w is None   # Python: (6.0, None)


def diagonal_pushes(A):
    B = A * 1.0
    for i in range(2):
        B = B.at[i, i + 1].add(B[i, i] * 2.0)      # i + 1 is saved on the tape as a Python int
    return jnp.sum(jnp.tanh(B))


def test_a_saved_python_int_placeholder_takes_the_ints_type():
    A = np.arange(9.0).reshape(3, 3) / 10
    expected = np.asarray(astjax.grad(diagonal_pushes)(A))
    np.testing.assert_allclose(np.asarray(astjax.jit(astjax.grad(diagonal_pushes))(A)), expected, rtol=1e-12)
