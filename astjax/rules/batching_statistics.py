"""Batching rule (vmap) for cov: NumPy's own steps on a stack of observation matrices. Each example's
variables are rows (a vector is one variable; rowvar=False swaps the last two axes), the mean of each row is
subtracted, c = X conj(X)^T / (N - ddof) is one stacked matmul, and each example's result is squeezed as
NumPy squeezes it (a single variable gives a 0-d covariance). y, fweights and aweights, or flags that are not
literals, loop over the batch.
"""
import copy

import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _tuple
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["batch_cov_scale", "batch_squeezed_shape"]


def batch_cov_scale(n, ddof, bias):
    """1 / (n - ddof) as np.cov scales (ddof None: 0 for bias, else 1; a non-positive count scales by 1/0)."""
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    fact = max(int(n) - ddof, 0)
    import numpy as np
    with np.errstate(divide="ignore"):
        return float(np.true_divide(1.0, fact))      # a Python float: weak, the stack keeps its dtype


def batch_squeezed_shape(shape):
    """A batched shape with each example's unit axes dropped (np.squeeze per example)."""
    return (int(shape[0]),) + tuple(int(n) for n in shape[1:] if int(n) != 1)


for _fn in (batch_cov_scale, batch_squeezed_shape):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


def _cov_rule(bt, target, app):
    b = app.bound
    m = b.get("m")
    if not isinstance(m, gast.Name) or bt.kind(m) != ARRAY or not bt.is_batched(m) or bt.rank(m) not in (1, 2):
        return None
    if any(not _is_const(b.get(k, _const(None)), None) for k in ("y", "fweights", "aweights")):
        return None
    flags = {k: b.get(k, _const(d)) for k, d in (("rowvar", True), ("bias", False), ("ddof", None))}
    if any(not isinstance(v, gast.Constant) for v in flags.values()):
        return None
    out = []

    def let(base, value):
        name = bt.fresh(base)
        out.append(bt.assign(name, value))
        return _name(name)
    zero = let("_zero", _call("inexact_zero", _tuple(copy.deepcopy(m))))
    x = let(f"{m.id}_inexact", gast.BinOp(left=copy.deepcopy(m), op=gast.Add(), right=zero))
    if bt.rank(m) == 1:
        x = let(f"{m.id}_rows", _call("jnp.expand_dims", x, _const(1)))
    elif flags["rowvar"].value is False:
        x = let(f"{m.id}_rows", _call("jnp.swapaxes", x, _const(1), _const(2)))
    mean = let("_mean", _call("jnp.mean", copy.deepcopy(x), axis=_const(-1), keepdims=_const(True)))
    centered = let("_centered", gast.BinOp(left=copy.deepcopy(x), op=gast.Sub(), right=mean))
    product = let("_product", gast.BinOp(left=copy.deepcopy(centered), op=gast.MatMult(), right=_call(
        "jnp.conj", _call("jnp.swapaxes", copy.deepcopy(centered), _const(1), _const(2)))))
    scale = let("_scale", _call(bt.helper(batch_cov_scale), gast.Subscript(
        value=_call("jnp.shape", copy.deepcopy(centered)), slice=_const(-1), ctx=gast.Load()),
        copy.deepcopy(flags["ddof"]), copy.deepcopy(flags["bias"])))
    scaled = let("_scaled", gast.BinOp(left=product, op=gast.Mult(), right=scale))
    out.append(bt.assign(target, _call("jnp.reshape", scaled, _call(
        bt.helper(batch_squeezed_shape), _call("jnp.shape", copy.deepcopy(scaled))))))
    return out


def _cov_result(batching, bound):
    return ARRAY, None         # squeezed: a single variable gives 0-d, known only from the shape


def _register():
    from .batching_axes import _declared
    if "cov" in PRIMITIVES and PRIMITIVES["cov"].batch is None:
        defbatch(PRIMITIVES["cov"], _declared(_cov_rule, _cov_result))


_register()
