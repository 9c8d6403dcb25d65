"""Compositions over a fresh `grad(f)` reuse the generated source (astjax.api.derivation_cache_key).

`grad(f)` returns a new function object at each call, so a cache keyed by that object missed every time
`jvp(grad(f), ...)`, `hessian`-vector products or `vmap(grad(f))` were written inside a loop: each call
generated the source again (tens of milliseconds). They are keyed by the gradient's source instead, which
stays one object while f's gradient is built, and is built again when a global f reads is rebound.
"""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import forward, vmap_api

SCALE = 2.0


def wave(x):
    return jnp.sum(jnp.sin(SCALE * x) ** 2)


def _hvp_exact(scale, x, v):
    return 2 * scale * scale * np.cos(2 * scale * x) * v


def test_jvp_of_a_fresh_grad_generates_its_source_once():
    x = np.linspace(0.1, 1.0, 4)
    first = astjax.jvp(astjax.grad(wave), (x,), (x,))
    key = astjax.api.derivation_cache_key(astjax.grad(wave))
    table = forward._FORWARD[key]
    built = dict(table)
    for _ in range(3):
        again = astjax.jvp(astjax.grad(wave), (x,), (x,))
        np.testing.assert_allclose(again[1], first[1])
    assert dict(table) == built and all(table[m] is built[m] for m in built)
    np.testing.assert_allclose(first[1], _hvp_exact(SCALE, x, x), rtol=1e-12)


def test_a_rebound_global_is_seen_through_the_cache(monkeypatch):
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_allclose(astjax.jvp(astjax.grad(wave), (x,), (x,))[1], _hvp_exact(2.0, x, x), rtol=1e-12)
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    np.testing.assert_allclose(astjax.jvp(astjax.grad(wave), (x,), (x,))[1], _hvp_exact(3.0, x, x), rtol=1e-12)
    np.testing.assert_allclose(astjax.hessian(wave)(x) @ x, _hvp_exact(3.0, x, x), rtol=1e-12)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(wave))(np.stack([x, x])),
                               np.stack([3.0 * np.sin(6.0 * x)] * 2), rtol=1e-12)


def test_vmap_of_a_fresh_grad_is_built_once():
    xs = np.ones((2, 3))
    astjax.vmap(astjax.grad(wave))(xs)
    key = astjax.api.derivation_cache_key(astjax.grad(wave))
    built = {k: v for k, v in vmap_api._BUILT[key].items()}
    astjax.vmap(astjax.grad(wave))(xs)
    assert all(vmap_api._BUILT[key][k] is v for k, v in built.items())


def test_gradients_with_different_arguments_or_modes_keep_their_own_entries():
    def f(a, b):
        return jnp.sum(a * b * b)
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    da = astjax.jvp(astjax.grad(f, argnums=0), (a, b), (a, b))[1]
    db = astjax.jvp(astjax.grad(f, argnums=1), (a, b), (a, b))[1]
    np.testing.assert_allclose(da, 2 * b * b)                  # d/dt of b*b along (a, b): 2 b . b
    np.testing.assert_allclose(db, 2 * b * a + 2 * a * b)      # d/dt of 2ab along (a, b)
    value_grad = astjax.jvp(astjax.value_and_grad(f), (a, b), (a, b))
    np.testing.assert_allclose(value_grad[0][1], b * b)
