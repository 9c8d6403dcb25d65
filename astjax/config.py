"""`astjax.config`: the place JAX users reach for `jax.config.update(...)`.

astjax has no global flags of JAX's kind, so `update` says clearly what astjax does instead rather
than accept a flag and silently ignore it (a script that asks for 64-bit floats and quietly gets
32-bit ones would lose precision without a word):

    astjax.config.update("jax_enable_x64", True)
    -> ValueError: ... a float64 NumPy array stays float64 in astjax; Python floats are float32 ...

Setting a flag to the value astjax already behaves as (`jax_enable_x64` False, `jax_platform_name`
"cpu") is accepted.
"""

__all__ = ["config", "update"]

_ALREADY = {"jax_enable_x64": False, "jax_platform_name": "cpu", "jax_platforms": "cpu",
            "jax_disable_jit": False, "jax_debug_nans": False, "jax_debug_infs": False}
_INSTEAD = {
    "jax_enable_x64": "astjax has no 64-bit switch: a float64 NumPy array (or jnp.asarray(x, jnp.float64)) "
                      "stays float64 through every transformation; Python floats and jnp.array(1.0) are float32, "
                      "as in JAX's default mode. Pass float64 arrays where you need 64-bit precision.",
    "jax_platform_name": "astjax computes on the CPU; `jit(f, backend='gpu')` compiles one function for a CUDA "
                         "device (docs/gpu.md).",
    "jax_platforms": "astjax computes on the CPU; `jit(f, backend='gpu')` compiles one function for a CUDA "
                     "device (docs/gpu.md).",
    "jax_disable_jit": "call the function itself instead of its jit (astjax.jit's source is the same Python).",
    "jax_debug_nans": "astjax has no NaN checker; test `jnp.isnan(...)` on the results.",
    "jax_debug_infs": "astjax has no Inf checker; test `jnp.isinf(...)` on the results.",
}


def update(name, value):
    """Accept `name = value` where astjax already behaves so; otherwise a ValueError saying what to do."""
    if name in _ALREADY and value == _ALREADY[name]:
        return
    hint = _INSTEAD.get(name, "astjax has no such flag.")
    raise ValueError(f"astjax.config.update({name!r}, {value!r}) is not supported: {hint}")


class _Config:
    """`astjax.config.update(...)`, as `jax.config.update(...)` is spelled."""

    update = staticmethod(update)

    def __repr__(self):
        return "<astjax.config>"


config = _Config()
