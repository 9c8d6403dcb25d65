"""vmap of a call of a custom_jvp function: a custom_jvp built for the batch, as JAX batches one.

    y = f(x, w)        (f a custom_jvp; x batched, w not)
 -> y = f_batched(x, w)
       f_batched.fun = vmap(f.fun, in_axes=(0, None))
       f_batched.jvp = vmap(f.jvp, in_axes=((0, None), (0, None)))

so the value is each example's f, and a derivative taken later (`grad(vmap(g))`, `jvp(vmap(g))`) uses f's own
rule on each example, never f's body. Reverse mode transposes the batched rule as custom_jvp does, but once
per entry of ONE example's arguments (the unit tangent at that entry in every example at once: the examples'
Jacobians are the blocks of the batch's block-diagonal one), so its cost is one example's, each rule call
vectorized over the batch; an unbatched argument's cotangent is summed over the examples. Arguments that are
not arrays, or a rule whose output is not one array, are transposed entry by entry of the whole batch (right,
and slower).
"""
import numpy as np

from .custom_derivatives import TRANSPOSE_LIMIT, custom_jvp

__all__ = ["batchable", "batched_custom_jvp"]


def batchable(custom, call):
    """Whether vmap builds the batched custom_jvp for `call` (a gast.Call of `custom`): a rule, no
    nondiff_argnums, no keywords, and a function of exactly that many plain positional parameters (a function
    with *args or keyword-only parameters, as lax.custom_root's, keeps the loop)."""
    import inspect
    if custom.jvp is None or custom.nondiff_argnums or call.keywords:
        return False
    try:
        params = list(inspect.signature(custom.fun).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(params) == len(call.args) and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)

_BUILT = {}


def batched_custom_jvp(custom, axes):
    """The custom_jvp computing `custom` over a batch, argument i batched on axis 0 where axes[i] == 0 (None:
    shared by every example); the same object for the same (custom, axes)."""
    key = (id(custom), axes)
    if key not in _BUILT or _BUILT[key][0] is not custom:
        _BUILT[key] = (custom, _BatchedCustomJvp(custom, axes))
    return _BUILT[key][1]


class _BatchedCustomJvp(custom_jvp):
    """custom's function and rule vmapped over the batched arguments (module docstring)."""

    def __init__(self, custom, axes):
        from .vmap_api import vmap
        batched = vmap(custom.fun, in_axes=axes)

        def fun(*args):
            """custom's function over the batch; example by example where vmap refuses it when it runs (a
            statement giving the examples results of different shapes, which plain Python computes alone)."""
            from .errors import RuntimeRefusal
            try:
                return batched(*args)
            except RuntimeRefusal:
                return _stacked([custom(*self._example(args, b)) for b in range(self._size(args))])
        fun.__name__ = getattr(custom.fun, "__name__", "f")
        super().__init__(fun)
        self.__name__ = getattr(custom, "__name__", "f")
        self.custom, self.axes = custom, axes
        self.jvp = _batched_rule(custom, axes)

    def _size(self, args):
        return next(np.shape(a)[0] for a, axis in zip(args, self.axes) if axis == 0)

    def _example(self, args, b):
        return [a[b] if axis == 0 else a for a, axis in zip(args, self.axes)]

    def repeated_calls(self):
        return self.custom.repeated_calls()

    def transposed_jvp(self, g, *primals):
        """J^T g per example: for each entry j of one example's float arguments, the batched rule at the unit
        tangent e_j in every example, paired with each example's g (an unbatched argument's pairing summed over
        the batch); custom's own transpose example by example where vmap refuses the rule when it runs."""
        from .errors import RuntimeRefusal
        try:
            return self._batched_transpose(g, *primals)
        except RuntimeRefusal as exc:
            if "once per input entry" in str(exc):
                raise
        if any(isinstance(p, (dict, list, tuple)) for p in primals) or isinstance(g, (dict, list, tuple)):
            return super().transposed_jvp(g, *primals)
        size = self._size(primals)
        gg = np.asarray(g)
        examples = [self.custom.transposed_jvp(gg[b] if gg.ndim else gg, *self._example(primals, b))
                    for b in range(size)]
        out = []
        for i, axis in enumerate(self.axes):
            items = [np.asarray(e[i]) for e in examples]
            out.append(_wrapped(np.stack(items) if axis == 0 else np.sum(items, axis=0)))
        return tuple(out)

    def _batched_transpose(self, g, *primals):
        from .errors import RuntimeRefusal
        from .tree_util import tree_leaves
        if any(isinstance(p, (dict, list, tuple)) for p in primals) or isinstance(g, (dict, list, tuple)) or \
                not all(np.ndim(p) >= (1 if a == 0 else 0) for p, a in zip(primals, self.axes)):
            return super().transposed_jvp(g, *primals)
        plain = [np.asarray(p) for p in primals]
        gg = np.asarray(g)
        if gg.dtype == object or np.iscomplexobj(gg) or any(np.iscomplexobj(p) for p in plain):
            return super().transposed_jvp(g, *primals)
        floats = [np.issubdtype(p.dtype, np.inexact) for p in plain]
        shapes = [p.shape[1:] if a == 0 else p.shape for p, a in zip(plain, self.axes)]
        total = sum(int(np.prod(s)) for s, f in zip(shapes, floats) if f)
        if total > TRANSPOSE_LIMIT:
            raise RuntimeRefusal(
                f"custom_jvp function `{self.__name__}` under reverse mode runs its jvp rule once per input entry "
                f"({total} per example here, more than {TRANSPOSE_LIMIT}); give it a reverse-mode rule with "
                "@astjax.custom_vjp, or differentiate with jvp/jacfwd")
        zeros = [np.zeros(p.shape, dtype=p.dtype if f else np.float32) for p, f in zip(plain, floats)]
        cotangents = []
        with self.repeated_calls():
            for i, (p, f, shape, axis) in enumerate(zip(plain, floats, shapes, self.axes)):
                out = np.zeros(p.shape, dtype=np.result_type(p, gg) if f else np.float32)
                for j in (np.ndindex(shape) if f else ()):
                    unit = np.zeros(p.shape, dtype=p.dtype)
                    where = (slice(None),) + j if axis == 0 else j
                    unit[where] = 1
                    tangents = list(zeros)
                    tangents[i] = unit
                    t = self.jvp(tuple(primals), tuple(tangents))[1]
                    if len(tree_leaves(t)) != 1 or isinstance(t, (dict, list, tuple)):
                        return super().transposed_jvp(g, *primals)
                    product = gg * np.asarray(t)
                    per_example = np.sum(np.reshape(product, (np.shape(product)[0], -1)), axis=1)
                    out[where] = per_example if axis == 0 else np.sum(per_example)
                cotangents.append(_wrapped(out))
        return tuple(cotangents)


def _wrapped(x):
    from .array import wrap
    return wrap(x)


def _stacked(results):
    """The examples' results (arrays or tuples of them) stacked on a new axis 0."""
    from . import numpy as jnp
    from .tree_util import tree_map
    return tree_map(lambda *leaves: jnp.stack(leaves), *results)


def _batched_rule(custom, axes):
    """`rule(primals, tangents)`: custom's rule vmapped over the batched arguments and their tangents, as
    generated functions with source (so grad and jvp transform it again, as a second derivative through
    custom_jvp_rule_gradient does): a rule of flat arguments vmapped with one axis per argument, called by
    a rule of the two tuples."""
    import gast

    from .backends.python import compile_function
    from .vmap_api import vmap
    name = getattr(custom, "__name__", "f")
    name = name if name.isidentifier() else "f"
    n = len(axes)
    primals, tangents = [f"p{i}" for i in range(n)], [f"t{i}" for i in range(n)]
    flat_text = (f"def {name}_rule_flat({', '.join(primals + tangents)}):\n"
                 f"    return _rule(({''.join(p + ', ' for p in primals)}), ({''.join(t + ', ' for t in tangents)}))\n")
    flat, _ = compile_function(gast.parse(flat_text).body[0], {"_rule": custom.jvp}, label=f"{name}_rule_flat")
    batched = vmap(flat, in_axes=tuple(axes) + tuple(axes))
    text = (f"def {name}_batched_rule(primals, tangents):\n"
            f"    return _flat({', '.join([f'primals[{i}]' for i in range(n)] + [f'tangents[{i}]' for i in range(n)])})\n")
    rule, _ = compile_function(gast.parse(text).body[0], {"_flat": batched}, label=f"{name}_batched_rule")
    return rule
