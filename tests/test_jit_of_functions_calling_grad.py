"""jit of a function that calls grad: the derivative names of the generated gradient it calls stay known.

jit compiles its own normalized copy of each generated function; that copy lost the list of adjoint
names, so an adjoint that starts as 0.0 (`bb = 0.0`) was refused as if it were a user variable, with a
message about `bb`, a name the user never wrote. The copy keeps the names; what is refused is said in
the user's terms. A loop over a list of layers of one type compiles (the list's adjoint is one adjoint
per item: runtime/numba_list_adjoints.py); layers of mixed ranks are refused.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x):
    return jnp.sum(predict(params, x) ** 2)


def step(params, x):
    g = astjax.grad(loss)(params, x)
    return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, g)]


def test_a_loop_over_layers_compiles_and_agrees():
    params = [(np.full((3, 4), 0.1), np.zeros(4)), (np.full((4, 2), 0.2), np.zeros(2))]
    x = np.ones((2, 3))
    got, want = astjax.jit(step)(params, x), step(params, x)
    for (w, b), (w0, b0) in zip(got, want):
        np.testing.assert_allclose(w, w0, rtol=1e-12)
        np.testing.assert_allclose(b, b0, rtol=1e-12)


def test_a_loop_over_layers_of_mixed_ranks_is_refused_in_the_users_terms():
    params = [(np.full((3, 4), 0.1), np.float64(0.0)), (np.full((4, 2), 0.2), np.zeros(2)),
              (np.full((2, 2), 0.3), np.zeros(2))]
    with pytest.raises(JitError) as info:
        astjax.jit(step)(params, np.ones((2, 3)))
    message = str(info.value)
    assert "one type" in message and "`bb`" not in message
