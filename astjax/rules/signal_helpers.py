"""The helpers that the signal and polynomial rules (rules/signal.py) call.

Linear and bilinear ones are primitives with rules of their own (so derivatives
of derivatives work); each works on plain NumPy values and returns Arrays.
"""
import math

import numpy as np

from ..array import wrap


def _float(*values):
    return np.result_type(*[np.asarray(v) for v in values], np.float32)


# ------------------------------------------------------------ differences
def _zero_count(extra, shape, axis):
    if extra is None:
        return 0
    return 1 if np.ndim(extra) == 0 else np.shape(extra)[axis]


def _padded(t, axis, before, after):
    width = [(0, 0)] * np.ndim(t)
    width[axis] = (before, after)
    return np.pad(t, width)


def diff_tangent(t, n=1, axis=-1, prepend=None, append=None):
    """The n-th differences of `t` with zeros where diff joined `prepend` / `append` (diff's tangent)."""
    t = np.asarray(t)
    axis = axis % t.ndim
    before, after = _zero_count(prepend, t.shape, axis), _zero_count(append, t.shape, axis)
    return wrap(np.diff(_padded(t, axis, before, after), n, axis))


def diff_adjoint(g, a, n=1, axis=-1, prepend=None, append=None):
    """Transpose of `diff_tangent`: the adjoint of `a` from `y = diff(a, n, axis, prepend, append)`."""
    g = np.asarray(g, dtype=_float(g))
    shape = np.shape(a)
    axis = axis % len(shape)
    for _ in range(n):           # transpose of one difference: x_j gets g_{j-1} - g_j
        g = _padded(g, axis, 1, 0) - _padded(g, axis, 0, 1)
    before = _zero_count(prepend, shape, axis)
    return wrap(np.take(g, np.arange(before, before + shape[axis]), axis=axis))


def ediff1d_span(ary, to_begin=None):
    """The positions of ediff1d's result that hold the differences (between to_begin and to_end)."""
    start = 0 if to_begin is None else np.size(to_begin)
    return slice(start, start + max(np.size(ary) - 1, 0))


def zeroed(v, like):
    """Zeros shaped like `v` (None stays None) in `like`'s float dtype: the tangent of a constant end."""
    return None if v is None else wrap(np.zeros(np.shape(v), dtype=_float(like)))


# ------------------------------------------------------------ Kronecker products
def _kron_layout(a_shape, b_shape):
    d = max(len(a_shape), len(b_shape))
    sa = (1,) * (d - len(a_shape)) + tuple(a_shape)
    sb = (1,) * (d - len(b_shape)) + tuple(b_shape)
    interleaved = [n for pair in zip(sa, sb) for n in pair]
    return d, sa, sb, interleaved


def kron_lhs_adjoint(g, a, b):
    """The adjoint of `a` from `y = kron(a, b)`: each block of g contracted with b."""
    d, sa, sb, interleaved = _kron_layout(np.shape(a), np.shape(b))
    blocks = np.asarray(g).reshape(interleaved)
    bb = np.asarray(b).reshape([n for s in sb for n in (1, s)])
    return wrap((blocks * bb).sum(axis=tuple(range(1, 2 * d, 2))).reshape(np.shape(a)))


def kron_rhs_adjoint(g, a, b):
    """The adjoint of `b` from `y = kron(a, b)`: the blocks of g weighted by a's entries, summed."""
    d, sa, sb, interleaved = _kron_layout(np.shape(a), np.shape(b))
    blocks = np.asarray(g).reshape(interleaved)
    aa = np.asarray(a).reshape([n for s in sa for n in (s, 1)])
    return wrap((blocks * aa).sum(axis=tuple(range(0, 2 * d, 2))).reshape(np.shape(b)))


# ------------------------------------------------------------ convolution and correlation
def _conv_window(m, n, mode, flipped):
    """(offset, length) of the result of convolve/correlate (flipped) within the full convolution."""
    full, short = m + n - 1, min(m, n)
    if mode == "full":
        return 0, full
    if mode == "same":
        crop = short - 1
        offset = crop - crop // 2 if (flipped and m < n) else crop // 2
        return offset, max(m, n)
    if mode == "valid":
        return short - 1, full - 2 * (short - 1)
    raise ValueError(f"convolve/correlate: mode must be 'full', 'same' or 'valid', got {mode!r}")


def _kernel(v, flipped):
    v = np.asarray(v)
    return v[::-1] if flipped else v


def conv_general(a, v, mode="full", flipped=False):
    """convolve(a, v, mode), or correlate(a, v, mode) when `flipped`: bilinear in a and v."""
    a, v = np.asarray(a), np.asarray(v)
    offset, length = _conv_window(a.size, v.size, mode, flipped)
    return wrap(np.convolve(a, _kernel(v, flipped))[offset:offset + length])


def _embedded(g, m, n, mode, flipped):
    g = np.asarray(g)
    offset, length = _conv_window(m, n, mode, flipped)
    out = np.zeros(m + n - 1, dtype=_float(g))
    out[offset:offset + length] = g
    return out


def conv_lhs_adjoint(g, a, v, mode="full", flipped=False):
    """The adjoint of `a` from `y = conv_general(a, v, mode, flipped)`."""
    full = _embedded(g, np.size(a), np.size(v), mode, flipped)
    return wrap(np.correlate(full, _kernel(v, flipped), "valid"))


def conv_rhs_adjoint(g, a, v, mode="full", flipped=False):
    """The adjoint of `v` from `y = conv_general(a, v, mode, flipped)`."""
    full = _embedded(g, np.size(a), np.size(v), mode, flipped)
    return wrap(_kernel(np.correlate(full, np.asarray(a), "valid"), flipped).copy())


# ------------------------------------------------------------ linear interpolation
def _segments(x, xp):
    """For each x: its segment's left knot, its position t in the segment, and where it lies."""
    x, xp = np.asarray(x), np.asarray(xp)
    if xp.ndim != 1 or xp.size < 2:
        raise ValueError(f"interp: astjax differentiates with at least two knots xp (1-d), got shape {xp.shape}")
    idx = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, xp.size - 2)
    width = xp[idx + 1] - xp[idx]
    t = (x - xp[idx]) / width
    return idx, t, width, x < xp[0], x > xp[-1]


def interp_linear(x, xp, c, left=None, right=None):
    """W(x) c: the interpolant of the values c at x, without the constants left/right (linear in c)."""
    idx, t, _, below, above = _segments(x, xp)
    c = np.asarray(c)
    inside = ~(below | above)
    value = np.where(inside, (1 - t) * c[idx] + t * c[idx + 1], 0.0)
    if left is None:
        value = np.where(below, c[0], value)
    if right is None:
        value = np.where(above, c[-1], value)
    return wrap(np.asarray(value, dtype=_float(c)))


def interp_transpose(g, x, xp, c, left=None, right=None):
    """W(x)^T g: the adjoint of the values c from `interp_linear(x, xp, c)`."""
    idx, t, _, below, above = _segments(x, xp)
    g = np.broadcast_to(np.asarray(g), np.shape(x))
    inside = ~(below | above)
    out = np.zeros(np.shape(c), dtype=_float(g, c))
    np.add.at(out, idx[inside], ((1 - t) * g)[inside])
    np.add.at(out, idx[inside] + 1, (t * g)[inside])
    if left is None:
        out[0] += g[below].sum()
    if right is None:
        out[-1] += g[above].sum()
    return wrap(out)


def interp_slope(x, xp, c, left=None, right=None):
    """The slope of the interpolant of c at x: (c[i+1] - c[i]) / (xp[i+1] - xp[i]) inside, 0 outside."""
    idx, _, width, below, above = _segments(x, xp)
    c = np.asarray(c)
    slope = np.where(below | above, 0.0, (c[idx + 1] - c[idx]) / width)
    return wrap(np.asarray(slope, dtype=_float(c)))


def interp_slope_transpose(g, x, xp, c, left=None, right=None):
    """The adjoint of c from `interp_slope(x, xp, c)` (linear in c)."""
    idx, _, width, below, above = _segments(x, xp)
    g = np.broadcast_to(np.asarray(g), np.shape(x))
    inside = ~(below | above)
    out = np.zeros(np.shape(c), dtype=_float(g, c))
    np.add.at(out, idx[inside] + 1, (g / width)[inside])
    np.add.at(out, idx[inside], -(g / width)[inside])
    return wrap(out)


# ------------------------------------------------------------ polynomials
def _falling(n, m, up):
    """Per coefficient of a length-n polynomial: d!/(d-m)! (derivative) or d!/(d+m)! (antiderivative)."""
    degrees = np.arange(n - 1, -1, -1)
    if up:
        return np.array([math.factorial(d) / math.factorial(d + m) for d in degrees])
    return np.array([math.factorial(d) / math.factorial(d - m) if d >= m else 0.0 for d in degrees])


def polyder_adjoint(g, p, m=1):
    """Transpose of `polyder(p, m)`: the adjoint of the coefficients p."""
    n = np.size(p)
    g = np.asarray(g)
    out = np.zeros(n, dtype=_float(g))
    out[:max(n - m, 0)] = g * _falling(n, m, False)[:max(n - m, 0)]
    return wrap(out)


def polyint_adjoint(g, p, m=1):
    """Transpose of p -> polyint(p, m) (the constants k carry no derivative): the adjoint of p."""
    n = np.size(p)
    g = np.asarray(g)
    return wrap(np.asarray(g[:n] * _falling(n, m, True), dtype=_float(g)))


def poly_tail(g, a):
    """The last len(a) coefficients of g: where polyadd put a."""
    g = np.asarray(g)
    return wrap(g[g.shape[0] - np.shape(a)[0]:].copy())


def poly_tail_adjoint(p, g):
    """Transpose of `poly_tail`: p aligned to the end of zeros shaped like g."""
    p = np.asarray(p)
    out = np.zeros(np.shape(g), dtype=_float(p))
    out[out.shape[0] - p.shape[0]:] = p
    return wrap(out)


def last_axis_pad(x, before, after):
    """The pad_width that pads only the last axis of x."""
    return [(0, 0)] * (np.ndim(x) - 1) + [(before, after)]
