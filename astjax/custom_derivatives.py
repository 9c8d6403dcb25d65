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
import inspect

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

    def defjvps(self, *jvps):
        """One rule per argument, as JAX's defjvps: `jvps[i](tangent_i, primal_out, *primals)` is argument i's
        contribution to the output tangent (None: the argument contributes nothing); the contributions are
        summed. The combined rule is generated as source (see `_jvp_from_parts`), so that a higher derivative
        can differentiate it. The function's output must be one array (or scalar)."""
        params = list(inspect.signature(self.fun).parameters.values())
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            raise TypeError(f"defjvps: `{self.__name__}` must take positional parameters only")
        if not params:
            raise TypeError(f"defjvps: `{self.__name__}` takes no arguments, so it has no tangents")
        if len(jvps) != len(params):
            raise TypeError(f"defjvps: `{self.__name__}` takes {len(params)} arguments, got {len(jvps)} jvp rules "
                            "(one per argument; None for an argument without a tangent)")
        for j in jvps:
            if j is not None and not callable(j):
                raise TypeError(f"defjvps: each rule must be callable or None, got {j!r}")
        self.jvp = _jvp_from_parts(self, [p.name for p in params], list(jvps))
        return None

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def transposed_jvp(self, g, *primals):
        """Reverse mode of a custom_jvp function, as JAX does it: the transpose of its jvp rule, which is linear
        in the tangents. Cotangent entry j of primal i is `sum(g * jvp(primals, e_ij)[1])` for the unit tangent
        e_ij: the rule is run once per entry of the float primals (at most TRANSPOSE_LIMIT entries in all), as
        plain Python, so its own calls are not differentiated. Integer primals get zero cotangents."""
        import numpy as np

        from . import numpy as jnp
        from .errors import RuntimeRefusal
        plain = [np.asarray(p) for p in primals]
        floats = [np.issubdtype(p.dtype, np.inexact) for p in plain]
        if np.iscomplexobj(np.asarray(g)) or any(np.iscomplexobj(p) for p in plain):
            raise RuntimeRefusal(f"custom_jvp function `{self.__name__}`: astjax has no complex differentiation")
        total = sum(p.size for p, f in zip(plain, floats) if f)
        if total > TRANSPOSE_LIMIT:
            raise RuntimeRefusal(
                f"custom_jvp function `{self.__name__}` under reverse mode runs its jvp rule once per input entry "
                f"({total} here, more than {TRANSPOSE_LIMIT}); give it a reverse-mode rule with "
                "@astjax.custom_vjp, or differentiate with jvp/jacfwd")
        zeros = [jnp.zeros(p.shape, dtype=p.dtype if f else np.float32) for p, f in zip(plain, floats)]
        cotangents = []
        for i, (p, f) in enumerate(zip(plain, floats)):
            out = np.zeros(p.shape, dtype=np.result_type(p, np.asarray(g)) if f else np.float32)
            if f:
                for j in np.ndindex(p.shape):
                    unit = np.zeros(p.shape, dtype=p.dtype)
                    unit[j] = 1
                    tangents = list(zeros)
                    tangents[i] = jnp.asarray(unit)
                    out[j] = _pairing(g, self.jvp(tuple(primals), tuple(tangents))[1])
            cotangents.append(jnp.asarray(out))
        return tuple(cotangents)


TRANSPOSE_LIMIT = 4096


def _jvp_from_parts(custom, params, jvps):
    """The jvp rule `defjvps` builds, generated as source so astjax can differentiate it again:

        def f_jvps(primals, tangents):
            _p0, _p1, = primals
            _t0, _t1, = tangents
            _out = _fun(_p0, _p1)
            return _out, _single(_out, _jvp0(_t0, _out, _p0, _p1)) + _single(_out, _jvp1(_t1, _out, _p0, _p1))
    """
    import gast

    from .backends.python import compile_function

    name = getattr(custom.fun, "__name__", "f")
    name = (name if name.isidentifier() else "f") + "_jvps"
    primals = [f"_p{i}" for i in range(len(params))]        # positional: no clash with the user's names
    tangents = [f"_t{i}" for i in range(len(params))]
    args = ", ".join(primals)
    parts = [f"_single(_out, _jvp{i}({t}, _out, {args}))" for i, (t, j) in enumerate(zip(tangents, jvps))
             if j is not None]
    total = " + ".join(parts) if parts else "_zeros_like(_out)"
    text = (f"def {name}(primals, tangents):\n"
            f"    {args}, = primals\n"
            f"    {', '.join(tangents)}, = tangents\n"
            f"    _out = _fun({args})\n"
            f"    return _out, {total}\n")
    namespace = {"_fun": custom.fun, "_single": _single_output, "_zeros_like": _zeros_like}
    namespace.update({f"_jvp{i}": j for i, j in enumerate(jvps) if j is not None})
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=name)
    return fn


def _single_output(out, tangent):
    """A defjvps rule's tangent, refused where the function's output is a container (summing containers with
    `+` would concatenate them)."""
    if isinstance(out, (tuple, list, dict)) or isinstance(tangent, (tuple, list, dict)):
        raise TypeError("defjvps: the function must return one array (its per-argument tangents are summed); "
                        "for a tuple output write one rule with defjvp")
    return tangent


def _zeros_like(out):
    from . import numpy as jnp
    return jnp.zeros_like(out)


def _pairing(g, tangent):
    """sum(g * tangent), summed over the leaves of a tuple or list output."""
    import numpy as np
    if isinstance(tangent, (tuple, list)):
        return sum(_pairing(a, b) for a, b in zip(g, tangent))
    return float(np.sum(np.asarray(g) * np.asarray(tangent)))


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
