"""Differences, products of vectors, convolution, interpolation, integration and polynomials.

Each computes with NumPy in JAX's result dtype: float32 stays float32, Python
scalars are weak. Their derivative rules live in astjax/rules/signal.py.
"""
import numpy as np

from ._promote import (
    inexact_all as _inexact_values,
    nd as _nd,
    out as _out,
    plain as _plain,
    promote_all as _promote_all,
)


def _inexact_all(*values):
    return _inexact_values(values)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """NumPy's diff: the n-th differences along `axis` (prepend/append joined first)."""
    a = _nd(a)
    kwargs = {}
    if prepend is not None:
        kwargs["prepend"] = _nd(prepend).astype(a.dtype, copy=False)
    if append is not None:
        kwargs["append"] = _nd(append).astype(a.dtype, copy=False)
    return _out(np.diff(a, n, axis, **kwargs))


def ediff1d(ary, to_end=None, to_begin=None):
    """NumPy's ediff1d: the differences of the flattened array, with optional ends."""
    ary = _nd(ary)
    ends = {k: None if v is None else _nd(v).astype(ary.dtype, copy=False)
            for k, v in (("to_end", to_end), ("to_begin", to_begin))}
    return _out(np.ediff1d(ary, **ends))


def kron(a, b):
    """NumPy's kron: the Kronecker product."""
    a, b = _promote_all([_nd(a), _nd(b)])
    return _out(np.kron(a, b))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross product of 3-vectors (2-vectors give the z component)."""
    a, b = _promote_all([_nd(a), _nd(b)])
    return _out(np.cross(a, b, axisa, axisb, axisc, axis))


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """NumPy's convolve of two 1-d arrays; mode "full", "same" or "valid"."""
    a, v = _inexact_all(a, v)
    _check_1d("convolve", a, v)
    return _out(np.convolve(a, v, mode))


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """NumPy's correlate of two 1-d arrays; mode "valid" (the default), "same" or "full"."""
    a, v = _inexact_all(a, v)
    _check_1d("correlate", a, v)
    return _out(np.correlate(a, v, mode))


def _check_1d(name, a, v):
    if a.ndim != 1 or v.ndim != 1 or a.size == 0 or v.size == 0:
        raise ValueError(f"{name}: needs two non-empty 1-d arrays, got shapes {a.shape} and {v.shape}.")


def interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's interp: the piecewise linear interpolant through (xp, fp) at x."""
    x, xp, fp = _inexact_all(x, xp, fp)
    result = np.interp(x, xp, fp, left, right, period)
    return _out(np.asarray(result, dtype=fp.dtype))


def polyval(p, x, *, unroll=16):
    """NumPy's polyval: p[0] * x**(n-1) + ... + p[n-1]."""
    p, x = _inexact_all(p, x)
    return _out(np.asarray(np.polyval(p, x), dtype=p.dtype))


def polyadd(a1, a2):
    """NumPy's polyadd (the shorter polynomial aligned to the end)."""
    a1, a2 = _promote_all([_nd(a1), _nd(a2)])
    return _out(np.polyadd(a1, a2))


def polysub(a1, a2):
    """NumPy's polysub (the shorter polynomial aligned to the end)."""
    a1, a2 = _promote_all([_nd(a1), _nd(a2)])
    return _out(np.polysub(a1, a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """NumPy's polymul of coefficient vectors (leading zeros kept, as JAX's default)."""
    a1, a2 = _inexact_all(a1, a2)
    return _out(np.convolve(np.atleast_1d(a1), np.atleast_1d(a2)))


def polyder(p, m=1):
    """NumPy's polyder: the m-th derivative's coefficients."""
    p = _inexact_all(p)[0]
    return _out(np.asarray(np.polyder(p, m), dtype=p.dtype))


def polyint(p, m=1, k=None):
    """NumPy's polyint: the m-th antiderivative's coefficients (integration constants k, default 0)."""
    p = _inexact_all(p)[0]
    return _out(np.asarray(np.polyint(p, m, 0 if k is None else _plain(k)), dtype=p.dtype))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's trapezoid: the integral of y by the trapezoid rule (samples at x, or spaced dx)."""
    if x is None:
        y = _inexact_all(y)[0]
        return _out(np.asarray(np.trapezoid(y, None, dx, axis), dtype=y.dtype))
    y, x = _inexact_all(y, x)
    return _out(np.asarray(np.trapezoid(y, x, dx, axis), dtype=y.dtype))


def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's gradient: central differences inside, one-sided at the edges (a list for several axes)."""
    f = _inexact_all(f)[0]
    result = np.gradient(f, *(_plain(v) for v in varargs), axis=axis, edge_order=edge_order)
    if isinstance(result, (list, tuple)):
        return [_out(np.asarray(r, dtype=f.dtype)) for r in result]
    return _out(np.asarray(result, dtype=f.dtype))
