"""Selection and ordering: where, take, sort, argsort.

`where(c, x, y)` promotes x and y as JAX does (Python scalars stay weak);
`take` fills out-of-bounds positions (NaN for floats) like JAX's default
mode="fill" instead of raising; indices returned are int32.
"""
import numpy as np

from ._promote import (
    I32,
    check_no_out as _check_no_out,
    nd as _nd,
    out as _out,
    plain as _plain,
    promote as _promote,
)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """`x` where `condition` holds, else `y`; with one argument, its nonzero indices (JAX's `size` and
    `fill_value` as in nonzero)."""
    if x is None and y is None:
        from ._integer import nonzero
        return nonzero(condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise TypeError("where: size and fill_value go with the one-argument form where(condition)")
    if x is None or y is None:
        raise TypeError("where: pass both x and y (or neither, for the indices of the "
                        "nonzero elements of condition).")
    x, y = _promote(x, y)
    return _out(np.where(_plain(condition), _plain(x), _plain(y)))


def _fill_value(dtype, fill_value):
    if fill_value is not None:
        return fill_value
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """NumPy's take; out-of-bounds indices give `fill_value` (default NaN for
    floats) as in JAX's default mode="fill"; mode="clip"/"wrap" as in NumPy."""
    _check_no_out(out, "take")
    a = _nd(a)
    indices = _nd(indices)
    if mode in ("clip", "wrap"):
        return _out(np.take(a, indices, axis=axis, mode=mode))
    if mode not in (None, "fill", "raise", "promise_in_bounds"):
        raise ValueError(f"take: unsupported mode {mode!r}; use 'fill' (the default), "
                         f"'clip', 'wrap' or 'promise_in_bounds'.")
    try:
        return _out(np.take(a, indices, axis=axis))
    except IndexError:
        if mode in ("raise", "promise_in_bounds"):
            raise
    # Out of bounds: take at a safe index, then fill the invalid positions.
    flat = a.ravel() if axis is None else a
    ax = 0 if axis is None else axis % a.ndim
    n = flat.shape[ax]
    valid = (indices >= -n) & (indices < n)
    result = np.take(flat, np.where(valid, indices, 0), axis=ax)
    mask = valid.reshape((1,) * ax + valid.shape + (1,) * (flat.ndim - ax - 1))
    return _out(np.where(mask, result, np.asarray(_fill_value(a.dtype, fill_value), a.dtype)))


def take_along_axis(arr, indices, axis):
    """NumPy's take_along_axis."""
    return _out(np.take_along_axis(_nd(arr), _nd(indices), axis))


def sort(a, axis=-1, kind=None, order=None, *, stable=True, descending=False):
    """NumPy's sort (stable by default, as JAX's); `descending=True` reverses it."""
    a = _nd(a)
    if axis is None:
        a, axis = a.ravel(), 0
    result = np.sort(a, axis, kind=kind or ("stable" if stable else None), order=order)
    return _out(np.flip(result, axis) if descending else result)


def argsort(a, axis=-1, kind=None, order=None, *, stable=True, descending=False):
    """NumPy's argsort with int32 indices; stable by default, as JAX's."""
    a = _nd(a)
    if axis is None:
        a, axis = a.ravel(), 0
    kind = kind or ("stable" if stable else None)
    if not descending:
        return _out(np.argsort(a, axis, kind=kind, order=order).astype(I32))
    # Descending and stable: sort the reversed array, then map indices back.
    idx = np.argsort(np.flip(a, axis), axis, kind=kind, order=order)
    return _out(np.flip(a.shape[axis] - 1 - idx, axis).astype(I32))


def compress(condition, a, axis=None):
    """NumPy's compress: the entries of `a` (flattened when axis is None) where `condition` holds."""
    return _out(np.compress(_nd(condition), _nd(a), axis))


def extract(condition, arr):
    """NumPy's extract: the entries of flattened `arr` where flattened `condition` is nonzero."""
    return _out(np.extract(_nd(condition), _nd(arr)))


def choose(a, choices, mode="raise"):
    """NumPy's choose (not differentiable here: refused under a derivative)."""
    from ._promote import promote_all
    return _out(np.choose(_nd(a), promote_all([_nd(c) for c in choices]), mode=mode))


def select(condlist, choicelist, default=0):
    """NumPy's select (not differentiable here: refused under a derivative)."""
    from ._promote import promote_all
    choices = promote_all([_nd(c) for c in choicelist])
    dtype = choices[0].dtype if choices else np.dtype(np.float32)
    return _out(np.select([_nd(c) for c in condlist], choices, np.asarray(default, dtype)))
