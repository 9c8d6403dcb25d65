"""Windows over the trailing dimensions of an array: the gather behind convolutions and reduce_window.

`window_patches(x, ...)` lays out every window of `x`'s last d dimensions as
one row: the result has shape (*leading, P, K), P the number of output
positions and K the number of window elements. Padding, base (input) dilation
and window dilation are index arithmetic; a position in padding or between
dilated elements reads `fill`. `window_patches_adjoint` is its transpose
(a scatter-add; fill positions receive nothing). Both are primitives with
rules, so a convolution's derivatives can be differentiated again.
"""
import numpy as np

from ..array import wrap
from ..numpy._promote import nd

__all__ = ["window_padding", "window_geometry", "window_patches", "window_patches_adjoint", "window_out_shape"]


def window_padding(in_shape, window, strides, padding, window_dilation=None, base_dilation=None):
    """(low, high) pairs from 'VALID', 'SAME', 'SAME_LOWER' or explicit pairs, as lax computes them."""
    d = len(in_shape)
    window_dilation = (1,) * d if window_dilation is None else tuple(window_dilation)
    if isinstance(padding, str):
        if base_dilation is not None and any(int(b) != 1 for b in base_dilation):
            raise ValueError("string padding is not supported with an input (lhs/base) dilation; "
                             "pass explicit (low, high) pairs")
        kind = padding.upper()
        if kind == "VALID":
            return ((0, 0),) * d
        if kind not in ("SAME", "SAME_LOWER"):
            raise ValueError(f"padding must be 'VALID', 'SAME', 'SAME_LOWER' or (low, high) pairs, got {padding!r}")
        pads = []
        for n, k, s, r in zip(in_shape, window, strides, window_dilation):
            span = (int(k) - 1) * int(r) + 1
            out = -(-int(n) // int(s))
            total = max((out - 1) * int(s) + span - int(n), 0)
            low = total // 2 if kind == "SAME" else total - total // 2
            pads.append((low, total - low))
        return tuple(pads)
    pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    if len(pads) != d:
        raise ValueError(f"padding has {len(pads)} (low, high) pairs for {d} windowed dimensions")
    return pads


def _sources(n, k, stride, low, high, base, rate):
    """src[o, j]: which element of a dimension of size n window o's element j reads (-1 for fill)."""
    padded = (n - 1) * base + 1 + low + high if n else low + high
    span = (k - 1) * rate + 1
    count = max((padded - span) // stride + 1, 0)
    where = np.arange(count)[:, None] * stride + np.arange(k)[None, :] * rate - low
    src = np.where((where >= 0) & (where % base == 0), where // base, -1)
    return np.where(src < n, src, -1)


def window_geometry(in_shape, window, strides, padding, base_dilation=None, window_dilation=None):
    """(flat source index of shape (P, K) with M meaning fill, output spatial shape, M)."""
    d = len(window)
    in_shape = tuple(int(n) for n in in_shape)
    strides = (1,) * d if strides is None else tuple(int(s) for s in strides)
    base = (1,) * d if base_dilation is None else tuple(int(b) for b in base_dilation)
    rate = (1,) * d if window_dilation is None else tuple(int(r) for r in window_dilation)
    pads = window_padding(in_shape, window, strides, padding, rate, base)
    sources = [_sources(n, int(k), s, lo, hi, b, r) for n, k, s, (lo, hi), b, r in
               zip(in_shape, window, strides, pads, base, rate)]
    out_shape = tuple(src.shape[0] for src in sources)
    flat = np.zeros(out_shape + tuple(int(k) for k in window), dtype=np.int64)
    valid = np.ones(flat.shape, dtype=bool)
    place = int(np.prod(in_shape, dtype=np.int64))
    for i, src in enumerate(sources):
        place //= in_shape[i] if in_shape[i] else 1
        shape = [1] * (2 * d)
        shape[i], shape[d + i] = src.shape
        src = src.reshape(shape)
        flat = flat + np.maximum(src, 0) * place
        valid = valid & (src >= 0)
    size = int(np.prod(in_shape, dtype=np.int64))
    flat = np.where(valid, flat, size)
    rows = int(np.prod(out_shape, dtype=np.int64))
    return flat.reshape(rows, int(np.prod(window, dtype=np.int64))), out_shape, size


def window_out_shape(in_shape, window, strides, padding, base_dilation=None, window_dilation=None):
    """The shape of the windowed dimensions after the windowing."""
    return window_geometry(in_shape, window, strides, padding, base_dilation, window_dilation)[1]


def window_patches(x, window, strides, padding, base_dilation=None, window_dilation=None, fill=0.0):
    """Every window of x's last len(window) dimensions as a row: shape (*leading, P, K)."""
    x = nd(x)
    d = len(window)
    lead, spatial = x.shape[:x.ndim - d], x.shape[x.ndim - d:]
    index, _, size = window_geometry(spatial, window, strides, padding, base_dilation, window_dilation)
    flat = x.reshape(lead + (size,))
    extended = np.concatenate([flat, np.full(lead + (1,), fill, dtype=x.dtype)], axis=-1)
    return wrap(extended[..., index])


def window_patches_adjoint(g, x_shape, window, strides, padding, base_dilation=None, window_dilation=None):
    """Transpose of window_patches in x: each row element added back where it was read from."""
    g = nd(g)
    d = len(window)
    x_shape = tuple(int(n) for n in x_shape)
    lead, spatial = x_shape[:len(x_shape) - d], x_shape[len(x_shape) - d:]
    index, _, size = window_geometry(spatial, window, strides, padding, base_dilation, window_dilation)
    count = int(np.prod(lead, dtype=np.int64))
    out = np.zeros((count, size + 1), dtype=g.dtype)
    rows = np.arange(count)[:, None, None]
    np.add.at(out, (rows, index[None]), g.reshape((count,) + index.shape))
    return wrap(out[:, :size].reshape(x_shape))
