"""Batching rule (vmap) for meshgrid: each input, batched or not, is each example's flattened coordinates; its
grid is the input reshaped to lie along its own axis after the batch axis (xy indexing swaps the first two),
then broadcast to the batch of grids (a sparse grid keeps its unit axes). A shape helper writes both shapes,
so the grids are a reshape and a broadcast_to of the inputs, with their derivatives.
"""
import copy

import gast
import numpy as np

from ..analyses.batching import ARRAY
from .batching import _call, _const, _name, _tuple
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["batch_meshgrid_shapes"]


def batch_meshgrid_shapes(size, shapes, batched, sparse, indexing):
    """For meshgrid of inputs of `shapes` (batched ones with the batch first): per input, the shape its
    values are reshaped to and the shape of its batched grid."""
    size = int(size)
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    lengths = [int(np.prod(s[1:] if b else s)) for s, b in zip(shapes, batched)]
    count = len(lengths)
    axes = list(range(count))
    if indexing == "xy" and count > 1:
        axes[0], axes[1] = 1, 0
    full = [1] * count
    for i, n in enumerate(lengths):
        full[axes[i]] = n
    out = []
    for i, (n, b) in enumerate(zip(lengths, batched)):
        lay = [1] * count
        lay[axes[i]] = n
        grid = lay if sparse else full
        out.append(((size if b else 1,) + tuple(lay), (size,) + tuple(grid)))
    return tuple(out)


primitive("batch_meshgrid_shapes", batch_meshgrid_shapes, operands=(), differentiable=False, reason=SHAPES)


def _inputs(app):
    xi = app.bound.get("xi")
    return list(xi.elts) if isinstance(xi, (gast.Tuple, gast.List)) else None


def _meshgrid_rule(bt, target, app):
    b = app.bound
    inputs = _inputs(app)
    if not inputs or any(not isinstance(x, gast.Name) or (bt.is_batched(x) and bt.kind(x) != ARRAY) for x in inputs):
        return None
    if not any(bt.is_batched(x) for x in inputs) or any(
            bt.is_batched(n) for k, n in b.items() if k != "xi") or not all(
            isinstance(b.get(k, _const(None)), gast.Constant) for k in ("sparse", "indexing")):
        return None
    out = []
    shapes = bt.fresh("_grid_shapes")
    out.append(bt.assign(shapes, _call(
        bt.helper(batch_meshgrid_shapes), bt.B, _tuple(*[_call("jnp.shape", copy.deepcopy(x)) for x in inputs]),
        _tuple(*[_const(bt.is_batched(x)) for x in inputs]), copy.deepcopy(b.get("sparse", _const(False))),
        copy.deepcopy(b.get("indexing", _const("xy"))))))
    grids = []
    for i, x in enumerate(inputs):
        pair = gast.Subscript(value=_name(shapes), slice=_const(i), ctx=gast.Load())
        laid = bt.fresh(f"{x.id}_laid")
        out.append(bt.assign(laid, _call("jnp.reshape", copy.deepcopy(x), gast.Subscript(
            value=copy.deepcopy(pair), slice=_const(0), ctx=gast.Load()))))
        grid = bt.fresh(f"{x.id}_grid")
        out.append(bt.assign(grid, _call("jnp.broadcast_to", _name(laid), gast.Subscript(
            value=copy.deepcopy(pair), slice=_const(1), ctx=gast.Load()))))
        grids.append(_name(grid))
    out.append(bt.assign(target, gast.List(elts=grids, ctx=gast.Load())))
    return out


def _meshgrid_result(batching, bound):
    xi = bound.get("xi")
    if not isinstance(xi, (gast.Tuple, gast.List)) or not xi.elts:
        return None, None
    return tuple([len(xi.elts)] * len(xi.elts)), None


def _register():
    from .batching_axes import _declared
    if "meshgrid" in PRIMITIVES and PRIMITIVES["meshgrid"].batch is None:
        defbatch(PRIMITIVES["meshgrid"], _declared(_meshgrid_rule, _meshgrid_result))


_register()
