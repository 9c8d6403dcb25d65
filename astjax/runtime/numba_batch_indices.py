"""Numba lowerings of the index and pad-width helpers that vmap's and the derivatives' generated code calls.

`batch_take_index(idx)` (vmap of `x[i]` with a batched integer index `i` into an unbatched `x`: the batched
code reads `x[batch_take_index(i)]`): the integer array itself; any other index array raises the reference's
RuntimeRefusal (a boolean mask selects a different number of elements per example), and the call runs on the
reference backend, which refuses it naming the user's line.

`batch_pad_width(pad_width, ndim)` (vmap of jnp.pad): the batched array's pad width, one pair per axis.

`axis_pad(x, axis, before, after)` (rules/signal_helpers.py: the pad width of diff's and trapezoid's
derivatives): a tuple of (before, after) pairs, (0, 0) off a literal axis, which pad's lowering reads; and
`diff_kept(a, axis, prepend)`, the positions of `a` that diff's adjoint keeps.
"""
from numba import types

from ..rules.batching import batch_take_index as _take_index_reference
from ..rules.batching_axes import batch_pad_width as _pad_width_reference
from ..rules.signal_helpers import axis_pad as _axis_pad_reference, diff_kept as _diff_kept_reference
from .numba_build import implementation as _impl
from .numba_build import STUBS, lowers  # noqa: F401 (STUBS: jit/lower/numba_calls.py binds batch_take_rows)
from .numba_typing import dtype_of, is_array, is_none, literal_value


@lowers("batch_take_index", ("idx",), reference=_take_index_reference)
def _batch_take_index(idx):
    """batch_take_index: an integer index (array or number) as it is; another array refused at run time."""
    from ..errors import RuntimeRefusal
    if isinstance(types.unliteral(idx), types.Integer) and not isinstance(types.unliteral(idx), types.Boolean):
        return _impl(("idx",), ["return idx"])
    if not is_array(idx) or dtype_of(idx) is None:
        return None
    if dtype_of(idx).kind in "iu":
        return _impl(("idx",), ["return idx"])
    return _impl(("idx",), ["raise RuntimeRefusal('vmap: a batched index must be an integer array')"],
                 RuntimeRefusal=RuntimeRefusal)


@lowers("axis_pad", ("x", "axis", "before", "after"), reference=_axis_pad_reference, prefer_literal=True)
def _axis_pad(x, axis, before, after):
    """axis_pad: ((0, 0), ..., (before, after), ..., (0, 0)) for an array x and a literal axis."""
    if not is_array(x) or x.ndim == 0:
        return None
    axis_value = literal_value(axis, None)
    if not isinstance(axis_value, int) or isinstance(axis_value, bool) or not -x.ndim <= axis_value < x.ndim:
        return None
    if not all(isinstance(types.unliteral(t), types.Integer) for t in (before, after)):
        return None
    axis_value %= x.ndim
    pairs = ", ".join("(int(before), int(after))" if d == axis_value else "(0, 0)" for d in range(x.ndim))
    return _impl(("x", "axis", "before", "after"), [f"return ({pairs},)"])


def _take_rows_reference(x, idx):
    import numpy as np
    return np.asarray(x)[np.arange(np.shape(x)[0]), np.asarray(idx)]


@lowers("batch_take_rows", ("x", "idx"), reference=_take_rows_reference)
def _batch_take_rows(x, idx):
    """`x[jnp.arange(B), batch_take_index(idx)]` (vmap of `x[i]`, both batched, i one integer per example):
    row idx[b] of example b, as NumPy's pair of index arrays reads it (Numba takes one index array only).
    An index out of range raises IndexError, as NumPy does."""
    if not (is_array(x) and x.ndim >= 2 and dtype_of(x) is not None and is_array(idx) and idx.ndim == 1
            and dtype_of(idx) is not None and dtype_of(idx).kind in "iu"):
        return None
    return _impl(("x", "idx"), [
        "if idx.shape[0] != x.shape[0]:",
        "    raise IndexError('shape mismatch: indexing arrays could not be broadcast together')",
        "out = np.empty((x.shape[0],) + x.shape[2:], x.dtype)",
        "for b in range(x.shape[0]):",
        "    k = idx[b]",
        "    if not -x.shape[1] <= k < x.shape[1]:",
        "        raise IndexError('index is out of bounds')",
        "    out[b] = x[b, k]",
        "return out"])


def _pair_type(t):
    return isinstance(t, types.BaseTuple) and len(t.types) == 2 and \
        all(isinstance(types.unliteral(e), types.Integer) for e in t.types)


@lowers("batch_pad_width", ("pad_width", "ndim"), reference=_pad_width_reference, prefer_literal=True)
def _batch_pad_width(pad_width, ndim):
    """batch_pad_width (vmap of jnp.pad): ((0, 0),) and one (before, after) pair per axis of the example, from
    an int or a pair (with a literal ndim) or a pair per axis (a pair per axis of another count raises
    NumPy's ValueError, as the reference's broadcast does)."""
    count = literal_value(ndim, None)
    if isinstance(types.unliteral(pad_width), types.Integer):
        pairs = ["(int(pad_width), int(pad_width))"] * count if isinstance(count, int) else None
        check = []
    elif _pair_type(pad_width):
        pairs = ["(int(pad_width[0]), int(pad_width[1]))"] * count if isinstance(count, int) else None
        check = []
    elif isinstance(pad_width, types.BaseTuple) and pad_width.types and all(_pair_type(p) for p in pad_width.types):
        pairs = [f"(int(pad_width[{k}][0]), int(pad_width[{k}][1]))" for k in range(len(pad_width.types))]
        check = [f"if ndim != {len(pairs)}:", "    raise ValueError('pad_width does not fit the array')"]
    else:
        return None
    if pairs is None:
        return None
    return _impl(("pad_width", "ndim"), check + [f"return ((0, 0), {', '.join(pairs)},)"])


@lowers("diff_kept", ("a", "axis", "prepend"), reference=_diff_kept_reference, prefer_literal=True)
def _diff_kept(a, axis, prepend):
    """diff_kept: the positions of a along a literal axis within [prepend, a, append] (int64, as np.arange)."""
    if not is_array(a) or a.ndim == 0:
        return None
    axis_value = literal_value(axis, None)
    if not isinstance(axis_value, int) or isinstance(axis_value, bool) or not -a.ndim <= axis_value < a.ndim:
        return None
    axis_value %= a.ndim
    if is_none(prepend):
        before = "0"
    elif isinstance(prepend, (types.Number, types.Boolean)) or (is_array(prepend) and prepend.ndim == 0):
        before = "1"
    elif is_array(prepend) and prepend.ndim == a.ndim:
        before = f"prepend.shape[{axis_value}]"
    else:
        return None
    return _impl(("a", "axis", "prepend"), [f"before = {before}",
                                            f"return np.arange(before, before + a.shape[{axis_value}])"])
