"""`astjax.checkpoint` (also `remat`): JAX's rematerialization decorator, the identity here.

In JAX, `checkpoint(f)` trades memory for compute: the reverse pass recomputes f's intermediates
instead of storing them. The values and derivatives are those of f either way, so astjax returns f
itself: its generated reverse pass saves what its tape analysis says it needs. The keywords
(`prevent_cse`, `policy`, `static_argnums`) are accepted and have nothing to change.
"""
__all__ = ["checkpoint", "remat"]


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """`fun` itself (usable as `@checkpoint` or `@checkpoint(policy=...)`): same values, same derivatives."""
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
    if not callable(fun):
        raise TypeError(f"checkpoint takes a function, got {type(fun).__name__}")
    return fun


remat = checkpoint

# `astjax.remat(jnp.sin)(x)` inside a transformed function is evaluated when transforming (its argument
# is known then), so the function it returns is differentiated like any callee.
checkpoint.__astjax_static_call__ = True
