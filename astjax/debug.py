"""`astjax.debug.print`: jax.debug.print's spelling, for code written for JAX.

astjax runs Python, so a plain `print` works inside grad and vmap already; `debug.print(fmt, *args,
**kwargs)` prints `fmt.format(*args, **kwargs)` the same way. It is a primitive without a derivative
(rules/nondifferentiable.py), kept wherever the function's primal values are computed. Under jit it is
refused, as `print` is: run the function inside `astjax.disable_jit()` to see each call.
"""
import builtins

__all__ = ["print"]


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001 -- jax.debug.print's name
    """Print `fmt.format(*args, **kwargs)` (`ordered` is accepted: astjax runs statements in order)."""
    builtins.print(fmt.format(*args, **kwargs))
