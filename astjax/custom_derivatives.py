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

`nondiff_argnums` works as in JAX: `bwd(*nondiff_args, residuals, g)` returns cotangents for the other
arguments only, and a custom_jvp rule is `jvp(*nondiff_args, primals, tangents)` over the others. The
rules are adapted to the plain protocol by generated one-screen functions (`_nondiff_fwd_bwd`,
`_nondiff_jvp`), so a higher derivative differentiates them like any source. A value that depends on
the differentiated input, passed at a nondiff position, is refused where the call is transformed (JAX
raises UnexpectedTracerError there).
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
        self.nondiff_argnums = _checked_nondiff(fun, nondiff_argnums)

    def defvjp(self, fwd, bwd):
        """Use `fwd(*args) -> (output, residuals)` and `bwd(residuals, g) -> tuple of cotangents`
        (with nondiff_argnums: `bwd(*nondiff_args, residuals, g)`, cotangents of the other arguments)."""
        if not (callable(fwd) and callable(bwd)):
            raise TypeError("defvjp takes two functions, fwd and bwd")
        if self.nondiff_argnums:
            fwd, bwd = _nondiff_fwd_bwd(self, fwd, bwd)
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
        self.nondiff_argnums = _checked_nondiff(fun, nondiff_argnums)

    def defjvp(self, jvp):
        """Use `jvp(primals, tangents) -> (output, output_tangent)` (with nondiff_argnums:
        `jvp(*nondiff_args, primals, tangents)` over the other arguments); returns the rule (usable as a
        decorator)."""
        if not callable(jvp):
            raise TypeError("defjvp takes a function")
        self.jvp = _nondiff_jvp(self, jvp) if self.nondiff_argnums else jvp
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
        if self.nondiff_argnums:
            raise TypeError(f"defjvps: `{self.__name__}` has nondiff_argnums; write one rule with defjvp")
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
        e_ij: the rule is run once per entry of the float leaves of the primals (at most TRANSPOSE_LIMIT entries
        in all), as plain Python, so its own calls are not differentiated. Integer leaves get zero cotangents.
        A pytree primal (a dict, list or tuple of arrays) gets its cotangent as a tree of the same structure."""
        import numpy as np

        from . import numpy as jnp
        from . import tree_util
        from .errors import RuntimeRefusal
        trees = [tree_util.tree_flatten(p) for p in primals]
        plain = [[np.asarray(leaf) for leaf in leaves] for leaves, _ in trees]
        floats = [[np.issubdtype(leaf.dtype, np.inexact) for leaf in leaves] for leaves in plain]
        every = [leaf for leaves in plain for leaf in leaves]
        if np.iscomplexobj(np.asarray(g)) or any(np.iscomplexobj(leaf) for leaf in every):
            raise RuntimeRefusal(f"custom_jvp function `{self.__name__}`: astjax has no complex differentiation")
        total = sum(leaf.size for leaves, fs in zip(plain, floats) for leaf, f in zip(leaves, fs) if f)
        if total > TRANSPOSE_LIMIT:
            raise RuntimeRefusal(
                f"custom_jvp function `{self.__name__}` under reverse mode runs its jvp rule once per input entry "
                f"({total} here, more than {TRANSPOSE_LIMIT}); give it a reverse-mode rule with "
                "@astjax.custom_vjp, or differentiate with jvp/jacfwd")
        zeros = [[jnp.zeros(leaf.shape, dtype=leaf.dtype if f else np.float32) for leaf, f in zip(leaves, fs)]
                 for leaves, fs in zip(plain, floats)]
        treedefs = [treedef for _, treedef in trees]
        with self.repeated_calls():
            return self._transposed(g, primals, plain, floats, zeros, treedefs)

    def repeated_calls(self):
        """A context in which the rule is run many times at the same primals (lax/_solves.py caches there)."""
        import contextlib
        return contextlib.nullcontext()

    def _transposed(self, g, primals, plain, floats, zeros, treedefs):
        import numpy as np

        from . import numpy as jnp
        from . import tree_util
        from .rules.helpers import TreeAdjoint
        zero_trees = [tree_util.tree_unflatten(treedef, leaves) for treedef, leaves in zip(treedefs, zeros)]
        cotangents = []
        for i, (leaves, fs, treedef) in enumerate(zip(plain, floats, treedefs)):
            parts = []
            for k, (p, f) in enumerate(zip(leaves, fs)):
                out = np.zeros(p.shape, dtype=np.result_type(p, np.asarray(g)) if f else np.float32)
                if f:
                    for j in np.ndindex(p.shape):
                        unit = np.zeros(p.shape, dtype=p.dtype)
                        unit[j] = 1
                        unit_leaves = list(zeros[i])
                        unit_leaves[k] = jnp.asarray(unit)
                        tangents = list(zero_trees)
                        tangents[i] = tree_util.tree_unflatten(treedef, unit_leaves)
                        out[j] = _pairing(g, self.jvp(tuple(primals), tuple(tangents))[1])
                parts.append(jnp.asarray(out))
            tree = tree_util.tree_unflatten(treedef, parts)
            cotangents.append(TreeAdjoint.of(tree) if isinstance(tree, (dict, list, tuple)) else tree)
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


def _checked_nondiff(fun, nondiff_argnums):
    """nondiff_argnums as a sorted tuple of positions of `fun`'s positional parameters."""
    if isinstance(nondiff_argnums, int):
        nondiff_argnums = (nondiff_argnums,)
    positions = tuple(sorted(set(nondiff_argnums)))
    if not positions:
        return ()
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in positions):
        raise TypeError(f"nondiff_argnums must be integers, got {nondiff_argnums!r}")
    params = list(inspect.signature(fun).parameters.values())
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        raise TypeError(f"nondiff_argnums: `{getattr(fun, '__name__', fun)}` must take positional parameters only")
    if positions[0] < 0 or positions[-1] >= len(params):
        raise ValueError(f"nondiff_argnums {positions} out of range for `{getattr(fun, '__name__', fun)}`, "
                         f"which takes {len(params)} arguments")
    return positions


def _generated(text, namespace, label):
    import gast

    from .backends.python import compile_function
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=label)
    return fn


def _nondiff_fwd_bwd(custom, fwd, bwd):
    """fwd and bwd of a custom_vjp with nondiff_argnums, in the plain protocol (one cotangent per argument,
    None at a nondiff position). For `f(fn, x)` with nondiff_argnums=(0,):

        def f_fwd(_p0, _p1):
            _out, _res = _fwd(_p0, _p1)
            return _out, (_res, (_p0,))          # the nondiff values travel with the residuals

        def f_bwd(_saved, g):
            _res, (_p0,) = _saved
            _c = _cotangents(_bwd(_p0, _res, g), 1, 'f')
            return None, _c[0]
    """
    n = len(inspect.signature(custom.fun).parameters)
    params = [f"_p{i}" for i in range(n)]
    nondiff = [params[i] for i in custom.nondiff_argnums]
    kept = ", ".join(nondiff) + ","
    name = getattr(custom.fun, "__name__", "f")
    name = name if name.isidentifier() else "f"
    fwd_text = (f"def {name}_fwd({', '.join(params)}):\n"
                f"    _out, _res = _fwd({', '.join(params)})\n"
                f"    return _out, (_res, ({kept}))\n")
    others = [i for i in range(n) if i not in custom.nondiff_argnums]
    cotangents, k = [], 0
    for i in range(n):
        if i in custom.nondiff_argnums:
            cotangents.append("None")
        else:
            cotangents.append(f"_c[{k}]")
            k += 1
    bwd_text = (f"def {name}_bwd(_saved, g):\n"
                f"    _res, ({kept}) = _saved\n"
                f"    _c = _cotangents(_bwd({', '.join(nondiff)}, _res, g), {len(others)}, {name!r})\n"
                f"    return {', '.join(cotangents)},\n")
    namespace = {"_fwd": fwd, "_bwd": bwd, "_cotangents": _cotangents}
    return _generated(fwd_text, namespace, f"{name}_fwd"), _generated(bwd_text, namespace, f"{name}_bwd")


def _cotangents(c, count, name):
    """A nondiff bwd's result, checked: a tuple with one cotangent per differentiable argument."""
    if not isinstance(c, (tuple, list)) or len(c) != count:
        raise TypeError(f"custom_vjp `{name}`: bwd must return a tuple of {count} cotangent(s), one per "
                        f"argument not in nondiff_argnums, got {type(c).__name__}"
                        + (f" of length {len(c)}" if isinstance(c, (tuple, list)) else ""))
    return c


def _nondiff_jvp(custom, jvp):
    """The jvp rule of a custom_jvp with nondiff_argnums, in the plain protocol. For `f(fn, x)` with
    nondiff_argnums=(0,):

        def f_jvp(primals, tangents):
            _p0, _p1, = primals
            _t0, _t1, = tangents
            return _jvp(_p0, (_p1,), (_t1,))
    """
    n = len(inspect.signature(custom.fun).parameters)
    params = [f"_p{i}" for i in range(n)]
    tangents = [f"_t{i}" for i in range(n)]
    others = [i for i in range(n) if i not in custom.nondiff_argnums]
    name = getattr(custom.fun, "__name__", "f")
    name = name if name.isidentifier() else "f"
    text = (f"def {name}_jvp(primals, tangents):\n"
            f"    {', '.join(params)}, = primals\n"
            f"    {', '.join(tangents)}, = tangents\n"
            f"    return _jvp({''.join(params[i] + ', ' for i in custom.nondiff_argnums)}"
            f"({''.join(params[i] + ', ' for i in others)}), ({''.join(tangents[i] + ', ' for i in others)}))\n")
    return _generated(text, {"_jvp": jvp}, f"{name}_jvp")


def trampoline(custom):
    """A generated `def f(x, y): return f(x, y)` calling `custom`, so that transforming the custom
    function itself meets it as a call with a rule."""
    import inspect

    import gast

    from .backends.python import compile_function

    params = list(inspect.signature(custom.fun).parameters)
    name = getattr(custom.fun, "__name__", "f")
    name = name if name.isidentifier() else "f"       # a lambda's `<lambda>` is no name to define
    text = f"def {name}({', '.join(params)}):\n    return _custom({', '.join(params)})\n"
    node = gast.parse(text).body[0]
    fn, _ = compile_function(node, {"_custom": custom}, label=f"custom_{name}")
    return fn
