"""The helpers that the signal and polynomial rules (rules/signal.py) call.

`conv_general` is a primitive with rules of its own; the rest compute only
shapes, pad widths, index sets or constant factors (declared
non-differentiable). The adjoints built from them are composites in
rules/signal.py, so derivatives of derivatives transform them like user code.
"""
import math

import numpy as np

from ..array import wrap


def _float(*values):
    return np.result_type(*[np.asarray(v) for v in values], np.float32)


# ------------------------------------------------------------ differences
def _count(extra, axis):
    if extra is None:
        return 0
    return 1 if np.ndim(extra) == 0 else np.shape(extra)[axis]


def axis_pad(x, axis, before, after):
    """The pad_width that pads only `axis` of x, by before / after."""
    width = [(0, 0)] * np.ndim(x)
    width[axis] = (int(before), int(after))
    return width


def diff_pad(x, axis, prepend=None, append=None):
    """The zeros diff's tangent needs where diff joined prepend / append (a pad_width)."""
    axis = axis % np.ndim(x)
    return axis_pad(x, axis, _count(prepend, axis), _count(append, axis))


def diff_kept(a, axis, prepend=None):
    """The positions of a within the joined array [prepend, a, append] along axis."""
    axis = axis % np.ndim(a)
    before = _count(prepend, axis)
    return np.arange(before, before + np.shape(a)[axis])


def ediff1d_span(ary, to_begin=None):
    """The positions of ediff1d's result that hold the differences (between to_begin and to_end)."""
    start = 0 if to_begin is None else np.size(to_begin)
    return slice(start, start + max(np.size(ary) - 1, 0))


def zeroed(v, like):
    """Zeros shaped like `v` (None stays None) in `like`'s float dtype: the tangent of a constant."""
    return None if v is None else wrap(np.zeros(np.shape(v), dtype=_float(like)))


# ------------------------------------------------------------ Kronecker products
def _kron_layout(a, b):
    a_shape, b_shape = np.shape(a), np.shape(b)
    d = max(len(a_shape), len(b_shape))
    sa = (1,) * (d - len(a_shape)) + tuple(a_shape)
    sb = (1,) * (d - len(b_shape)) + tuple(b_shape)
    return d, sa, sb


def kron_blocks(a, b):
    """The shape (a0, b0, a1, b1, ...) that splits kron(a, b) into its blocks."""
    _, sa, sb = _kron_layout(a, b)
    return tuple(n for pair in zip(sa, sb) for n in pair)


def kron_spread(a, b, which):
    """The shape that lines factor `which` ("a" or "b") up with kron_blocks(a, b) (1 on the other's axes)."""
    _, sa, sb = _kron_layout(a, b)
    return tuple(n for x, y in zip(sa, sb) for n in ((x, 1) if which == "a" else (1, y)))


def kron_axes(a, b, which):
    """The axes of kron_blocks(a, b) that belong to factor `which` ("a": even, "b": odd)."""
    d, _, _ = _kron_layout(a, b)
    return tuple(range(0 if which == "a" else 1, 2 * d, 2))


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


def conv_pad(a, v, mode="full", flipped=False):
    """The pad_width that places a result of conv_general(a, v, mode, flipped) within the full convolution."""
    m, n = np.size(a), np.size(v)
    offset, length = _conv_window(m, n, mode, flipped)
    return [(offset, m + n - 1 - offset - length)]


# ------------------------------------------------------------ linear interpolation
def _segments(x, xp):
    x, xp = np.asarray(x), np.asarray(xp)
    if xp.ndim != 1 or xp.size < 2:
        raise ValueError(f"interp: astjax differentiates with at least two knots xp (1-d), got shape {xp.shape}")
    return x, xp


def interp_index(x, xp):
    """The left knot of the segment each x lies in (at a knot: the segment to its right; clipped to the ends)."""
    x, xp = _segments(x, xp)
    return np.clip(np.searchsorted(xp, x, side="right") - 1, 0, xp.size - 2)


def interp_below(x, xp):
    """Where x lies left of the first knot."""
    x, xp = _segments(x, xp)
    return x < xp[0]


def interp_above(x, xp):
    """Where x lies right of the last knot."""
    x, xp = _segments(x, xp)
    return x > xp[-1]


# ------------------------------------------------------------ polynomials
def _factorials(p, m, up):
    n = np.size(p)
    degrees = np.arange(n - 1, -1, -1)
    if up:
        factors = [math.factorial(d) / math.factorial(d + m) for d in degrees]
    else:
        factors = [math.factorial(d) / math.factorial(d - m) for d in degrees if d >= m]
    return wrap(np.asarray(factors, dtype=_float(p)))


def polyder_factors(p, m=1):
    """d!/(d-m)! for each coefficient of p that survives m derivatives (in p's float dtype)."""
    return _factorials(p, m, False)


def polyint_factors(p, m=1):
    """d!/(d+m)! for each coefficient of p (in p's float dtype)."""
    return _factorials(p, m, True)


def leading(p, m):
    """The first len(p) - m positions (the coefficients polyder keeps, or polyint's part from p)."""
    return slice(0, max(np.size(p) - int(m), 0))


def poly_tail_span(g, a):
    """The last len(a) positions of g: where polyadd put a."""
    return slice(np.shape(g)[0] - np.shape(a)[0], None)


def poly_lead(g, a):
    """The pad_width that aligns a to the end of g."""
    return [(np.shape(g)[0] - np.shape(a)[0], 0)]


# ------------------------------------------------------------ numerical gradient
def _gradient_axes(f, axis):
    ndim = np.ndim(f)
    if axis is None:
        return tuple(range(ndim)), ndim == 1
    if isinstance(axis, (tuple, list)):
        return tuple(a % ndim for a in axis), len(axis) == 1 and False
    return (axis % ndim,), True


def _spacings(varargs, count):
    if len(varargs) == 0:
        return [1.0] * count
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return [varargs[0]] * count
    if len(varargs) != count:
        raise TypeError(f"gradient: give one spacing, or one per axis ({count}), got {len(varargs)}")
    return list(varargs)


def _gradient_transpose(g, n, spacing, edge_order, axis):
    """M^T g along axis, for M the matrix of np.gradient along an axis of length n.

    Each row of M reads at most three neighbouring entries (distinct mod 3), so M is recovered from
    np.gradient of three comb vectors: M[i, j] = gradient(comb_{j mod 3})[i] on row i's window.
    """
    combs = np.stack([np.gradient((np.arange(n) % 3 == r).astype(np.float64), spacing, edge_order=edge_order)
                      for r in range(3)])
    rows, cols = [], []
    for i in range(n):
        if i == 0:
            window = range(0, edge_order + 1)
        elif i == n - 1:
            window = range(n - 1 - edge_order, n)
        else:
            window = (i - 1, i, i + 1)
        for j in window:
            rows.append(i)
            cols.append(j)
    rows, cols = np.array(rows), np.array(cols)
    values = combs[cols % 3, rows]
    moved = np.moveaxis(np.asarray(g), axis, 0)
    out = np.zeros(moved.shape, dtype=_float(g))
    np.add.at(out, cols, values.reshape((-1,) + (1,) * (moved.ndim - 1)) * moved[rows])
    return np.moveaxis(out, 0, axis)


def gradient_adjoint(g, f, varargs=(), axis=None, edge_order=1):
    """The adjoint of f from `y = gradient(f, *varargs, axis=axis, edge_order=edge_order)` (y one array or a list)."""
    from .helpers import TreeAdjoint
    axes, single = _gradient_axes(f, axis)
    spacings = _spacings(tuple(varargs), len(axes))
    if single:
        parts = [g]
    elif isinstance(g, TreeAdjoint):
        parts = [g.items.get(k, 0.0) for k in range(len(axes))]
    else:
        parts = list(g)
    out = np.zeros(np.shape(f), dtype=_float(*[p for p in parts]))
    for part, ax, spacing in zip(parts, axes, spacings):
        if np.ndim(part) == 0 and not np.any(part):
            continue
        out += _gradient_transpose(np.broadcast_to(part, np.shape(f)), np.shape(f)[ax], spacing, edge_order, ax)
    return wrap(out)


def gradient_items(t, varargs=(), axis=None, edge_order=1):
    """np.gradient of t, as the adjoint of gradient_adjoint's g: one array, or a list adjoint of them."""
    from .helpers import TreeAdjoint
    axes, single = _gradient_axes(t, axis)
    result = np.gradient(np.asarray(t), *varargs, axis=axis, edge_order=edge_order)
    if single:
        return wrap(np.asarray(result))
    return TreeAdjoint({k: wrap(np.asarray(r)) for k, r in enumerate(result)})
