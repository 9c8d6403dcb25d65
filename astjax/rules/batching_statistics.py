"""Batching rules (vmap) for cov and corrcoef: NumPy's own steps on a stack of observation matrices. Each example's
variables are rows (a vector is one variable; rowvar=False swaps the last two axes), the mean of each row is
subtracted, c = X conj(X)^T / (N - ddof) is one stacked matmul, and each example's result is squeezed as
NumPy squeezes it (a single variable gives a 0-d covariance); corrcoef divides by the deviations and clips.
y, fweights and aweights, or flags that are not literals, loop over the batch.
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


# The arguments a stacked covariance covers; any other bound argument that is not None loops over the batch.
_COVERED = {"m", "x", "rowvar", "bias", "ddof"}


def _covariances(bt, out, b, m):
    """The statements of each example's unsqueezed covariance matrix (B, v, v), appended to `out`; its name,
    or None when the call is not covered."""
    if not isinstance(m, gast.Name) or bt.kind(m) != ARRAY or not bt.is_batched(m) or bt.rank(m) not in (1, 2):
        return None
    if any(not _is_const(b[k], None) for k in set(b) - _COVERED):
        return None               # a second data argument (`y2`, as the rule table names it), weights, ...
    flags = {k: b.get(k, _const(d)) for k, d in (("rowvar", True), ("bias", False), ("ddof", None))}
    if any(not isinstance(v, gast.Constant) for v in flags.values()):
        return None

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
    return let("_scaled", gast.BinOp(left=product, op=gast.Mult(), right=scale))


def _squeezed(bt, out, target, value):
    out.append(bt.assign(target, _call("jnp.reshape", value, _call(
        bt.helper(batch_squeezed_shape), _call("jnp.shape", copy.deepcopy(value))))))
    return out


def _cov_rule(bt, target, app):
    out = []
    scaled = _covariances(bt, out, app.bound, app.bound.get("m"))
    return None if scaled is None else _squeezed(bt, out, target, scaled)


def _corrcoef_rule(bt, target, app):
    """corrcoef: the covariances divided by the standard deviations of their row and column, the real part
    (and a complex result's imaginary part) clipped to [-1, 1], as NumPy does (a single variable's c / c
    comes out as (c / s) / s, the same up to rounding)."""
    b = app.bound
    out = []
    c = _covariances(bt, out, b, b.get("x"))
    if c is None:
        return None

    def let(base, value):
        name = bt.fresh(base)
        out.append(bt.assign(name, value))
        return _name(name)
    d = let("_variances", _call("jnp.diagonal", copy.deepcopy(c), axis1=_const(1), axis2=_const(2)))
    sd = let("_deviations", _call("jnp.sqrt", _call("jnp.real", d)))
    rows = let("_by_rows", gast.BinOp(left=copy.deepcopy(c), op=gast.Div(), right=_call(
        "jnp.expand_dims", copy.deepcopy(sd), _const(2))))
    both = let("_by_both", gast.BinOp(left=rows, op=gast.Div(), right=_call("jnp.expand_dims", copy.deepcopy(sd),
                                                                             _const(1))))
    clipped = bt.fresh("_clipped")
    real = _call("jnp.clip", _call("jnp.real", copy.deepcopy(both)), _const(-1.0), _const(1.0))
    imag = _call("jnp.clip", _call("jnp.imag", copy.deepcopy(both)), _const(-1.0), _const(1.0))
    out.append(gast.If(test=_call("jnp.iscomplexobj", copy.deepcopy(both)), body=[bt.assign(clipped, gast.BinOp(
        left=real, op=gast.Add(), right=gast.BinOp(left=_const(1j), op=gast.Mult(), right=imag)))],
        orelse=[bt.assign(clipped, copy.deepcopy(real))]))
    return _squeezed(bt, out, target, _name(clipped))


def _cov_result(batching, bound):
    return ARRAY, None         # squeezed: a single variable gives 0-d, known only from the shape


def _register():
    from .batching_axes import _declared
    for name, rule in (("cov", _cov_rule), ("corrcoef", _corrcoef_rule)):
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, _cov_result))


_register()
