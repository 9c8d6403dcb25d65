"""Arrays assembled from literal pieces: `block` of nested lists, `fromfunction` of a lambda.

    y = jnp.block([[a, b], [c, d]])   ->   y = block_flat([a, b, c, d], ((0, 1), (2, 3)))
    y = jnp.fromfunction(lambda i, j: i * x + j, (2, 3))
                                      ->   y = jnp.indices((2, 3), dtype=jnp.float32)[0] * x
                                                 + jnp.indices((2, 3), dtype=jnp.float32)[1]

The transformations read list operands one element at a time (a literal list
of names), not nested lists, so the nesting moves into a constant `layout`
(leaf j of the nested lists is arrays[j]). `block_flat` computes the same
values as `block` (astjax/numpy/_shape.py) and has rules (rules/more.py). A
`block` whose argument is not a literal list of uniform depth is left as it
is: it runs outside derivatives and is refused where a derivative reaches it.

`fromfunction(f, shape)` calls f once with the index grids, so a lambda
written in place is its body with each parameter replaced by its grid
(float32 for jnp.fromfunction, float64 for np.fromfunction, as each library
makes them); the transformations then read the body like the user's own
code. Another function, a shape that is not a name or literal, or keyword
arguments for f leave the call as it is (refused where a derivative reaches it).
"""
import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["ArrayAssembly", "REWRITTEN"]

# The names this pass rewrites into a primitive (read by the coverage page).
REWRITTEN = {"block": "primitive `block_flat` (a literal nested list)",
             "fromfunction": "a lambda's body on jnp.indices grids (a lambda written in place)"}


class ArrayAssembly(Pass):
    """Rewrite `jnp.block(<literal nested list>)` / `np.block(...)` into `block_flat(leaves, layout)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        from ... import numpy as jnp
        target = self.context.resolver.static_value(node.func)
        if target is jnp.fromfunction or target is np.fromfunction:
            return self._fromfunction(node, numpy=target is np.fromfunction)
        if target is NOT_STATIC or not (target is jnp.block or target is np.block):
            return node
        if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], gast.List):
            return node
        leaves = []
        layout = _layout(node.args[0], leaves)
        if layout is None or not leaves:
            return node
        from ...numpy._shape import block_flat
        label = self.context.resolver.introduce("block_flat", block_flat, self.context.namer)
        call = gast.Call(func=name(label), args=[gast.List(elts=leaves, ctx=gast.Load()), _constant(layout)],
                         keywords=[])
        return copy_location(call, node)


    def _fromfunction(self, node, numpy):
        args = list(node.args)
        keywords = {k.arg: k.value for k in node.keywords}
        if len(args) == 1 and "shape" in keywords:
            args.append(keywords.pop("shape"))
        if len(args) != 2 or set(keywords) - {"dtype"} or not isinstance(args[0], gast.Lambda):
            return node
        function, shape = args
        params = function.args
        if (params.vararg or params.kwarg or params.kwonlyargs or params.defaults or getattr(params, "posonlyargs", None)
                or not _rereadable(shape) or _rebinds(function.body)):
            return node
        if isinstance(shape, (gast.Tuple, gast.List)) and len(shape.elts) != len(params.args):
            return node
        dtype = keywords.get("dtype")
        if dtype is None:
            dtype = gast.Attribute(value=name("jnp"), attr="float64" if numpy else "float32", ctx=gast.Load())
        import copy

        def grid(k):
            indices = gast.Call(func=gast.Attribute(value=name("jnp"), attr="indices", ctx=gast.Load()),
                                args=[copy.deepcopy(shape)], keywords=[gast.keyword(arg="dtype",
                                                                                    value=copy.deepcopy(dtype))])
            return gast.Subscript(value=indices, slice=gast.Constant(value=k, kind=None), ctx=gast.Load())
        grids = {p.id: k for k, p in enumerate(params.args)}
        body = _Substitute(grids, grid).visit(copy.deepcopy(function.body))
        return copy_location(body, node)


class _Substitute(NodeTransformer):
    """Each read of a parameter becomes its grid."""

    def __init__(self, grids, grid):
        self.grids, self.grid = grids, grid

    def visit_Name(self, node):
        if node.id in self.grids and isinstance(node.ctx, gast.Load):
            return copy_location(self.grid(self.grids[node.id]), node)
        return node


def _rereadable(node):
    """Reading `node` twice gives the same value: a name, a constant, or a literal tuple/list of them."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return isinstance(node, (gast.Tuple, gast.List)) and all(_rereadable(e) for e in node.elts)


def _rebinds(body):
    """Whether the lambda's body binds names of its own (a nested lambda, a comprehension, `:=`)."""
    return any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                              gast.NamedExpr)) for n in walk(body))


def _layout(node, leaves):
    """The nesting of a literal list as nested tuples of leaf numbers (leaves appended to `leaves`), or None
    when its depth is not uniform or an item is starred or a tuple (np.block refuses tuples)."""
    if isinstance(node, gast.List):
        items = [_layout(e, leaves) for e in node.elts]
        if not items or any(i is None for i in items):
            return None
        depths = {_depth(i) for i in items}
        return tuple(items) if len(depths) == 1 else None
    if isinstance(node, (gast.Tuple, gast.Starred)):
        return None
    leaves.append(node)
    return len(leaves) - 1


def _depth(layout):
    return 1 + _depth(layout[0]) if isinstance(layout, tuple) else 0


def _constant(layout):
    if isinstance(layout, tuple):
        return gast.Tuple(elts=[_constant(i) for i in layout], ctx=gast.Load())
    return gast.Constant(value=layout, kind=None)
