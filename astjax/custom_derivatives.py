"""`custom_vjp` and `custom_jvp`: a function that brings its own derivative, as in JAX.

    @astjax.custom_vjp
    def clip_gradient(x):
        return x

    def clip_fwd(x):
        return x, None              # (output, residuals for the backward pass)

    def clip_bwd(residuals, g):
        return (jnp.clip(g, -1.0, 1.0),)   # one cotangent per argument

    clip_gradient.defvjp(clip_fwd, clip_bwd)

Called directly, the function runs its own body. When a transformation meets
a call to it, the generated code calls the rules instead: reverse mode calls
`fwd` in the primal sweep and `bwd` in the adjoint sweep, forward mode calls
the `jvp` rule.
"""
import functools

__all__ = ["custom_vjp", "custom_jvp"]


class custom_vjp:
    """A function with a user-defined reverse-mode rule (`f.defvjp(fwd, bwd)`)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd = None
        self.bwd = None
        if nondiff_argnums:
            raise NotImplementedError("custom_vjp(nondiff_argnums=...) is not supported yet; close over the "
                                      "non-differentiable values instead.")

    def defvjp(self, fwd, bwd):
        """Use `fwd(*args) -> (output, residuals)` and `bwd(residuals, g) -> tuple of cotangents`."""
        self.fwd = fwd
        self.bwd = bwd
        return self

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)


class custom_jvp:
    """A function with a user-defined forward-mode rule (`f.defjvp(jvp)`)."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp = None
        if nondiff_argnums:
            raise NotImplementedError("custom_jvp(nondiff_argnums=...) is not supported yet; close over the "
                                      "non-differentiable values instead.")

    def defjvp(self, jvp):
        """Use `jvp(primals, tangents) -> (output, output_tangent)`; returns the rule (usable as a decorator)."""
        self.jvp = jvp
        return jvp

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)


def trampoline(custom):
    """A generated `def f(x, y): return f(x, y)` calling `custom`, so that transforming the custom
    function itself meets it as a call with a rule."""
    import inspect

    import gast

    from .backends.python import compile_function

    params = list(inspect.signature(custom.fun).parameters)
    name = getattr(custom.fun, "__name__", "f")
    text = f"def {name}({', '.join(params)}):\n    return _custom({', '.join(params)})\n"
    node = gast.parse(text).body[0]
    fn, _ = compile_function(node, {"_custom": custom}, label=f"custom_{name}")
    return fn
