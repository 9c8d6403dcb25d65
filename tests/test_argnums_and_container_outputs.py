"""argnums given as NumPy integers, and grad of a function that returns a list or a dict.

JAX reads each argnum with `operator.index`, so `argnums=np.int64(1)` (a position computed with NumPy)
means 1; astjax refused it with "'numpy.int64' object is not iterable". grad of a function returning a
list or a dict raised an internal message about a list's adjoint; it now says what JAX says (gradients
are defined for scalar outputs) and what to write instead.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

X = np.array([1.0, 2.0, -0.5])
Y = np.array([3.0, 4.0, 0.25])


def weighted(x, y):
    return jnp.sum(jnp.sin(x) * y * y)


def pair(x, y):
    return jnp.sin(x) * y


@pytest.mark.parametrize("argnums", [np.int64(1), np.int32(1), (np.int64(0), np.int16(1))],
                         ids=["int64", "int32", "tuple"])
def test_numpy_integer_argnums_mean_their_position(argnums):
    plain = int(argnums) if np.ndim(argnums) == 0 and not isinstance(argnums, tuple) else tuple(map(int, argnums))
    for transform, f in ((astjax.grad, weighted), (astjax.jacrev, pair), (astjax.jacfwd, pair)):
        got, want = transform(f, argnums=argnums)(X, Y), transform(f, argnums=plain)(X, Y)
        for g, w in zip(got if isinstance(plain, tuple) else (got,), want if isinstance(plain, tuple) else (want,)):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    value, g = astjax.value_and_grad(weighted, argnums=argnums)(X, Y)
    np.testing.assert_allclose(value, weighted(X, Y))
    if not isinstance(plain, tuple):
        np.testing.assert_allclose(g, 2.0 * np.sin(X) * Y, rtol=1e-12)       # d/dy of sum(sin(x) y^2)


def returns_a_list(x):
    return [jnp.sum(x)]


def returns_a_dict(x):
    out = {"total": jnp.sum(x * x)}
    return out


@pytest.mark.parametrize("fn", [returns_a_list, returns_a_dict], ids=lambda f: f.__name__)
def test_grad_of_a_list_or_dict_output_says_gradients_need_a_scalar(fn):
    for transform in (astjax.grad, astjax.value_and_grad):
        with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions") as info:
            transform(fn)(X)
        assert "jnp.sum" in str(info.value) and "astjax.jacrev" in str(info.value)
