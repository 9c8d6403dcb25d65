"""A call of vmap in a derivative's primal sweep becomes a call of the batched function it ran.

jit of a plain function has its `vmap(f)(x)` calls redirected when it is normalized (the identity
transformation of transforms/derivation.py compiles `jit_vmap_f`), but a derivative's primal sweep keeps them
as run-time calls: jnp.piecewise and jnp.apply_along_axis (frontend/normalize/per_slice_calls.py) write

    _t4 = vmap1(square)(x[x_lt_0])                  ->   _t4 = vmap_square(x[x_lt_0])
    _t2 = vmap1(row_sum, in_axes=(0, None))(_t1, w) ->   _t2 = vmap_row_sum(_t1, w)

and vmap at run time moves axes, checks the batch sizes and calls the batched source it generated for the
arguments' ranks (vmap_api.py). For mapped axes 0 or None and out_axes 0 there is nothing to move, and the
batched function is a generated function like any other: compiled code calls it as a callee. Which one is
taken from the first call: the batched function of `f` (vmap_api's table, per mapping and ranks) that the
reference run called and the observer typed. A call whose function or axes are not literal, that the first
call did not reach, or where two batched versions of `f` ran (two ranks) stays as it is, and jit refuses
it at its line (never a guess).
"""
import gast

from ...codegen.node_walk import NodeTransformer, walk

__all__ = ["call_batched_functions"]


def call_batched_functions(node, context):
    """Rewrite `vmap(f, in_axes=...)(args)` into a call of the generated batched function the first call ran."""
    from ...vmap_api import vmap
    if not any(fn is vmap for fn in context.namespace.values()):
        return node
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    return _Calls(context, vmap, taken).visit(node)


class _Calls(NodeTransformer):
    def __init__(self, context, vmap, taken):
        self.context, self.vmap, self.taken = context, vmap, taken

    def visit_Call(self, node):
        self.generic_visit(node)
        inner = node.func
        if not (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name)
                and self.context.namespace.get(inner.func.id) is self.vmap and len(inner.args) == 1
                and not node.keywords
                and not any(isinstance(a, gast.Starred) for a in node.args)):
            return node
        fun = self._static(inner.args[0])
        options = {}
        for keyword in inner.keywords:
            try:
                options[keyword.arg] = gast.literal_eval(keyword.value)
            except ValueError:
                return node
        if fun is None or set(options) - {"in_axes", "out_axes"} or options.get("out_axes", 0) != 0:
            return node
        axes = options.get("in_axes", 0)
        axes = axes if isinstance(axes, tuple) else (axes,) * len(node.args)
        if len(axes) != len(node.args) or any(a not in (0, None) or type(a) is bool for a in axes):
            return node
        batched = self._ran(fun, tuple(a is not None for a in axes))
        if batched is None:
            return node
        label = self.context.bind(batched.__name__, batched, self.taken)
        node.func = gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None)
        return node

    def _static(self, expr):
        """The global `f` or `module.f` names (jnp.sin), or None."""
        if isinstance(expr, gast.Name):
            return None if expr.id in self.taken - set(self.context.namespace) else self.context.namespace.get(expr.id)
        if isinstance(expr, gast.Attribute):
            base = self._static(expr.value)
            return None if base is None else getattr(base, expr.attr, None)
        return None

    def _ran(self, fun, mapped):
        """The one batched version of `fun`, for this mapping, that the reference run called; else None."""
        from ...api import derivation_cache_key
        from ...vmap_api import _BUILT
        try:
            transform = self.vmap(fun).__astjax_transform__
            table = _BUILT.get(derivation_cache_key(transform.fun), {})
        except Exception:        # noqa: BLE001 -- not a function vmap takes: left for jit to refuse
            return None
        if transform.leading or transform.keywords or transform.packing is not None:
            return None
        observed = self.context.types.observed
        found = []
        for (spec, out_none, axis_name), derivation in list(table.items()):
            if out_none or axis_name is not None or tuple(s.batched for s in spec) != mapped:
                continue
            generated = derivation.functions[derivation.sources[-1][0]]
            if observed.types.get(generated.__code__):
                found.append(generated)
        return found[0] if len({g.__code__ for g in found}) == 1 else None     # one source, compiled once
