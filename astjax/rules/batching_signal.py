"""Batching rules (vmap) for 1-D convolutions and polynomial arithmetic: convolve, correlate, polymul, polyadd,
polysub.

convolve(a, v, mode) of 1-D arrays is a window of the full convolution, full[n] = sum_k a[k] v[n - k] over the
pairs (k, n - k) inside both arrays; correlate is the full convolution of a with conj(v[::-1]). A shape helper
lists, for each output position, the pairs it sums (a's index, the kernel's index, and whether the pair
exists), and where the window of each mode starts: found by asking NumPy's own function on stand-ins of the
same lengths, so the modes (and NumPy's swap of a shorter `a`) are NumPy's by construction. The batched result
is then `sum(where(valid, take(a, ia), 0) * where(valid, take(k, ik), 0), axis=-1)`: one gather of each operand,
batched or not, and no product of a value with a padding zero (an inf stays an inf, and gradients through
the masked pairs are zeros, not nan). polymul is convolve's full mode; polyadd/polysub pad the shorter operand
in front along the last axis.

Operands must be 1-D per example (known ranks); anything else loops over the batch.
"""
import copy

import gast
import numpy as np

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["batch_convolve_pairs", "batch_poly_widths"]


def batch_convolve_pairs(name, n, m, mode):
    """For `name` ("convolve" or "correlate") of 1-D arrays of lengths n and m in `mode`: per output position
    (rows) the pairs of the full convolution it sums, as (a's index, kernel's index, valid) arrays of shape
    (length, min(n, m)); padding pairs have index 0 and valid False."""
    n, m = int(n), int(m)
    if n < 1 or m < 1:
        raise ValueError(f"{name}: needs two non-empty 1-d arrays, got lengths {n} and {m}.")
    function = np.convolve if name == "convolve" else np.correlate
    probe_a = np.arange(1.0, n + 1.0) ** 0.5
    probe_v = np.arange(1.0, m + 1.0) ** 1.5
    kernel = probe_v if name == "convolve" else probe_v[::-1]
    full = np.convolve(probe_a, kernel, "full")
    window = function(probe_a, probe_v, mode)
    starts = [s for s in range(len(full) - len(window) + 1)
              if np.allclose(full[s:s + len(window)], window, rtol=1e-13, atol=0.0)]
    if len(starts) != 1:
        raise ValueError(f"{name}: mode {mode!r} is not a window of the full convolution")
    rows = np.arange(starts[0], starts[0] + len(window))[:, None]
    width = min(n, m)
    ia = np.maximum(rows - (m - 1), 0) + np.arange(width)[None, :]
    valid = (ia <= np.minimum(rows, n - 1)) & (ia >= 0)
    ik = rows - ia
    valid &= (ik >= 0) & (ik < m)
    return np.where(valid, ia, 0), np.where(valid, ik, 0), valid


def batch_poly_widths(shape1, shape2):
    """jnp.pad widths that align two stacks of coefficient vectors (last axis) to the end: the shorter one
    gets zeros in front, as polyadd/polysub do."""
    n1, n2 = int(shape1[-1]), int(shape2[-1])
    top = max(n1, n2)
    return (((0, 0),) * (len(shape1) - 1) + ((top - n1, 0),), ((0, 0),) * (len(shape2) - 1) + ((top - n2, 0),))


for _fn in (batch_convolve_pairs, batch_poly_widths):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


def _vectors(bt, app, names):
    """Both operands names of 1-D per-example arrays (batched or not), at least one batched, nothing else."""
    b = app.bound
    nodes = [b.get(k) for k in names]
    if any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY or bt.rank(n) != 1 for n in nodes):
        return None
    if not any(bt.is_batched(n) for n in nodes) or any(bt.is_batched(n) for k, n in b.items() if k not in names):
        return None
    return nodes


def _gather_sum(bt, out, target, name, a, v, mode, kernel_ready=False):
    """`target` = the gather-and-sum of a with the kernel; for correlate the kernel is conj(v[::-1]), made
    here unless `kernel_ready` (conv_general's flipped kernel, reversed by its rule and not conjugated)."""
    if name == "correlate" and not kernel_ready:
        kernel = bt.fresh(f"{v.id}_kernel")
        out.append(bt.assign(kernel, _call("jnp.conj", _call("jnp.flip", copy.deepcopy(v), _const(-1)))))
        v = _name(kernel)
    pairs = bt.fresh("_pairs")
    out.append(bt.assign(pairs, _call(bt.helper(batch_convolve_pairs), _const(name), gast.Subscript(
        value=_call("jnp.shape", copy.deepcopy(a)), slice=_const(-1), ctx=gast.Load()), gast.Subscript(
        value=_call("jnp.shape", copy.deepcopy(v)), slice=_const(-1), ctx=gast.Load()), copy.deepcopy(mode))))
    valid = gast.Subscript(value=_name(pairs), slice=_const(2), ctx=gast.Load())
    parts = []
    for node, i in ((a, 0), (v, 1)):
        part = bt.fresh(f"{node.id}_pairs")
        index = gast.Subscript(value=_name(pairs), slice=_const(i), ctx=gast.Load())
        out.append(bt.assign(part, _call("jnp.where", copy.deepcopy(valid), _call(
            "jnp.take", copy.deepcopy(node), index, axis=_const(-1)), _const(0.0))))
        parts.append(_name(part))
    product = bt.fresh("_product")
    out.append(bt.assign(product, gast.BinOp(left=parts[0], op=gast.Mult(), right=parts[1])))
    out.append(bt.assign(target, _call("jnp.sum", _name(product), axis=_const(-1))))
    return out


def _convolve_rule(bt, target, app):
    b = app.bound
    mode = b.get("mode", _const("full" if app.primitive.name == "convolve" else "valid"))
    if not isinstance(mode, (gast.Constant, gast.Name)) or bt.is_batched(mode) or not all(
            _is_const(b.get(k, _const(None)), None) for k in ("precision", "preferred_element_type")):
        return None
    nodes = _vectors(bt, app, ("a", "v"))
    if nodes is None:
        return None
    return _gather_sum(bt, [], target, app.primitive.name, nodes[0], nodes[1], mode)


def _polymul_rule(bt, target, app):
    if not _is_const(app.bound.get("trim_leading_zeros", _const(False)), False):
        return None
    nodes = _vectors(bt, app, ("a1", "a2"))
    if nodes is None:
        return None
    return _gather_sum(bt, [], target, "convolve", nodes[0], nodes[1], _const("full"))


def _polyadd_rule(bt, target, app):
    nodes = _vectors(bt, app, ("a1", "a2"))
    if nodes is None:
        return None
    out = []
    widths = bt.fresh("_widths")
    out.append(bt.assign(widths, _call(bt.helper(batch_poly_widths), _call("jnp.shape", copy.deepcopy(nodes[0])),
                                       _call("jnp.shape", copy.deepcopy(nodes[1])))))
    padded = []
    for i, node in enumerate(nodes):
        fresh = bt.fresh(f"{node.id}_padded")
        out.append(bt.assign(fresh, _call("jnp.pad", copy.deepcopy(node), gast.Subscript(
            value=_name(widths), slice=_const(i), ctx=gast.Load()))))
        padded.append(_name(fresh))
    op = gast.Add() if app.primitive.name == "polyadd" else gast.Sub()
    out.append(bt.assign(target, gast.BinOp(left=padded[0], op=op, right=padded[1])))
    return out


def _vector_result(batching, bound):
    return ARRAY, 1


SIGNAL = {"convolve": _convolve_rule, "correlate": _convolve_rule, "polymul": _polymul_rule,
          "polyadd": _polyadd_rule, "polysub": _polyadd_rule}


def _register():
    from .batching_axes import _declared
    for name, rule in SIGNAL.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            defbatch(PRIMITIVES[name], _declared(rule, _vector_result))


_register()
