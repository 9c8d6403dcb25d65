"""Bitwise, integer, set and predicate functions: results that are integers, booleans or sets.

Most carry no derivative and are declared non-differentiable in
astjax/rules/nondifferentiable.py (their reason stated there). The set
functions whose results are values of the input (`unique`, `intersect1d`,
`union1d`, `setdiff1d`, `setxor1d`) have no rules: astjax refuses them where
a derivative reaches them and runs them as NumPy does elsewhere.
Integer results are int32, as JAX's default int.
"""
import numpy as np

from ._promote import (
    I32,
    nd as _nd,
    out as _out,
    promote as _promote,
    scalar_arg as _s,
)


def _integers(name, *xs):
    for x in xs:
        if np.result_type(x).kind not in "biu":
            raise TypeError(f"{name} is defined for integer and boolean arrays only, not {np.result_type(x)}")


def _binary_int(ufunc, name):
    def function(x1, x2):
        x1, x2 = _promote(x1, x2)
        _integers(name, x1, x2)
        return _out(ufunc(x1, x2, subok=False))
    function.__name__ = name
    function.__qualname__ = name
    function.__doc__ = f"NumPy's {ufunc.__name__} on integer or boolean arrays, with JAX's type promotion."
    return function


bitwise_and = _binary_int(np.bitwise_and, "bitwise_and")
bitwise_or = _binary_int(np.bitwise_or, "bitwise_or")
bitwise_xor = _binary_int(np.bitwise_xor, "bitwise_xor")
left_shift = _binary_int(np.left_shift, "left_shift")
right_shift = _binary_int(np.right_shift, "right_shift")
gcd = _binary_int(np.gcd, "gcd")
lcm = _binary_int(np.lcm, "lcm")
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def invert(x):
    """Bitwise NOT (logical NOT for booleans)."""
    x = _s(x)
    _integers("invert", x)
    return _out(np.invert(x, subok=False))


bitwise_not = invert
bitwise_invert = invert


def bitwise_count(x):
    """The number of 1 bits in |x| (uint8, as NumPy and JAX)."""
    x = _s(x)
    _integers("bitwise_count", x)
    return _out(np.bitwise_count(x, subok=False))


# --------------------------------------------------------------- predicates


def isneginf(x, out=None):
    """Whether x is -inf (bool)."""
    return _out(np.isneginf(np.asarray(_s(x))))


def isposinf(x, out=None):
    """Whether x is +inf (bool)."""
    return _out(np.isposinf(np.asarray(_s(x))))


def isreal(x):
    """Whether each element has a zero imaginary part (bool)."""
    return _out(np.asarray(np.isreal(np.asarray(_s(x)))))


def iscomplex(x):
    """Whether each element has a nonzero imaginary part (bool)."""
    return _out(np.asarray(np.iscomplex(np.asarray(_s(x)))))


def isrealobj(x):
    """Whether x is not of a complex dtype (a Python bool)."""
    return bool(np.isrealobj(_nd(x)))


def iscomplexobj(x):
    """Whether x is of a complex dtype (a Python bool)."""
    return bool(np.iscomplexobj(_nd(x)))


def array_equal(a1, a2, equal_nan=False):
    """Whether both arrays have one shape and equal elements (a 0-d bool Array, as JAX)."""
    return _out(np.asarray(np.array_equal(_nd(a1), _nd(a2), equal_nan=equal_nan)))


def array_equiv(a1, a2):
    """Whether the arrays broadcast to one shape with equal elements (a 0-d bool Array)."""
    return _out(np.asarray(np.array_equiv(_nd(a1), _nd(a2))))


def isin(element, test_elements, assume_unique=False, invert=False):
    """Whether each element of `element` is in `test_elements` (bool, shaped like `element`)."""
    return _out(np.isin(_nd(element), _nd(test_elements), assume_unique=assume_unique, invert=invert))


# --------------------------------------------------------------- indices


def _i32(x):
    return _out(np.asarray(x, dtype=I32))


def searchsorted(a, v, side="left", sorter=None):
    """Where `v` would be inserted into the sorted `a` (int32)."""
    return _i32(np.searchsorted(_nd(a), _nd(v), side=side, sorter=None if sorter is None else _nd(sorter)))


def digitize(x, bins, right=False):
    """The index of the bin each x falls in (int32)."""
    return _i32(np.digitize(_nd(x), _nd(bins), right=right))


def bincount(x, weights=None, minlength=0, *, length=None):
    """Counts (int32) or weight sums of each non-negative integer in x; `length` fixes the size (JAX)."""
    x = _nd(x)
    _integers("bincount", x)
    if length is not None:
        minlength = length
    w = None if weights is None else _nd(weights)
    if w is not None and w.dtype.kind in "biu":
        w = w.astype(np.float32)
    counts = np.bincount(x.ravel(), None if w is None else w.ravel(), minlength=minlength)
    if length is not None:
        counts = counts[:length]
    if w is None:
        return _i32(counts)
    return _out(counts.astype(w.dtype, copy=False))


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one row each (int32); JAX's `size` cuts or pads the rows
    (with `fill_value`, 0 by default)."""
    rows = np.argwhere(_nd(a))
    if size is not None:
        rows = np.stack([_sized(column, size, fill, "argwhere")
                         for column, fill in zip(rows.T, _fills(fill_value, rows.shape[1]))], axis=1) \
            if rows.shape[1] else np.zeros((int(size), 0), rows.dtype)
    return _i32(rows)


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one int32 array per axis; JAX's `size` cuts or pads each
    (with `fill_value`, 0 by default, or one value per axis)."""
    found = np.nonzero(_nd(a))
    if size is not None:
        found = [_sized(i, size, fill, "nonzero") for i, fill in zip(found, _fills(fill_value, len(found)))]
    return tuple(_i32(i) for i in found)


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of the flattened array (int32); JAX's `size` as in nonzero."""
    found = np.flatnonzero(_nd(a))
    if size is not None:
        found = _sized(found, size, _fills(fill_value, 1)[0], "flatnonzero")
    return _i32(found)


def _fills(fill_value, count):
    """One fill value per index array: JAX takes a scalar or a tuple with one per axis."""
    if fill_value is None:
        return [0] * count
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != count:
            raise ValueError(f"fill_value has {len(fill_value)} values; there are {count} index arrays")
        return list(fill_value)
    return [fill_value] * count


def _sized(indices, size, fill, what):
    """`indices` cut to `size` or padded with `fill` (JAX's static-size form)."""
    size = int(size)
    if size < 0:
        raise ValueError(f"{what}: size must be non-negative, got {size}")
    if indices.size >= size:
        return indices[:size]
    return np.concatenate([indices, np.full(size - indices.size, fill, dtype=indices.dtype)])


def packbits(a, axis=None, bitorder="big"):
    """Pack a boolean/integer array's bits into uint8."""
    return _out(np.packbits(_nd(a), axis=axis, bitorder=bitorder))


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Unpack uint8 elements into bits (uint8)."""
    return _out(np.unpackbits(_nd(a), axis=axis, count=count, bitorder=bitorder))


# --------------------------------------------------------------- sets (no rules: refused under grad)


def _wrap_all(result):
    if isinstance(result, tuple):
        return tuple(_out(np.asarray(r, dtype=I32) if r.dtype.kind in "iu" and i else r)
                     for i, r in enumerate(result))
    return _out(result)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           size=None, fill_value=None, sorted=True):
    """NumPy's unique (sorted unique values; indices and counts as int32).

    With JAX's `size`, the unique values (and their indices and counts) are cut or padded to `size`
    along the unique axis: values padded with `fill_value` (by default the smallest value), indices with the
    first index, counts with 0 (as JAX). `sorted=False` is accepted; the values come sorted all the same.
    """
    result = np.unique(_nd(ar), return_index=return_index, return_inverse=return_inverse,
                       return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    if size is None:
        return _wrap_all(result)
    parts = list(result) if isinstance(result, tuple) else [result]
    size = int(size)
    along = 0 if axis is None else axis
    values = parts[0]
    if values.shape[along] == 0 and fill_value is None:
        raise ValueError("unique: size= with an empty input needs a fill_value")
    fill = np.take(values, [0], axis=along) if fill_value is None else fill_value
    parts[0] = _cut_or_pad(values, size, along, fill)
    position = 1
    for wanted, pad in ((return_index, "first"), (return_inverse, None), (return_counts, 0)):
        if wanted:
            if pad is not None:          # the index of the first value pads indices (as JAX); counts pad 0
                part = parts[position]
                parts[position] = _cut_or_pad(part, size, 0, part[:1] if pad == "first" and part.size else 0)
            position += 1
    return _wrap_all(tuple(parts) if len(parts) > 1 else parts[0])


def _cut_or_pad(a, size, axis, fill):
    """`a` cut to `size` along `axis`, or padded there with `fill` (broadcast across the other axes)."""
    n = a.shape[axis]
    if n >= size:
        return np.take(a, np.arange(size), axis=axis)
    pad_shape = list(a.shape)
    pad_shape[axis] = size - n
    padding = np.broadcast_to(np.asarray(fill, dtype=a.dtype), pad_shape)
    return np.concatenate([a, padding], axis=axis)


def unique_values(x):
    """The sorted unique values of x."""
    return _out(np.unique_values(_nd(x)))


def unique_counts(x):
    """(values, counts) of the unique values of x; counts as int32."""
    r = np.unique_counts(_nd(x))
    return type(r)(_out(r.values), _i32(r.counts))


def unique_inverse(x):
    """(values, inverse_indices) of the unique values of x; indices as int32."""
    r = np.unique_inverse(_nd(x))
    return type(r)(_out(r.values), _i32(r.inverse_indices))


def unique_all(x):
    """(values, indices, inverse_indices, counts) of the unique values of x; integers as int32."""
    r = np.unique_all(_nd(x))
    return type(r)(_out(r.values), _i32(r.indices), _i32(r.inverse_indices), _i32(r.counts))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values found in both arrays."""
    return _wrap_all(np.intersect1d(_nd(ar1), _nd(ar2), assume_unique=assume_unique,
                                    return_indices=return_indices))


def union1d(ar1, ar2):
    """The sorted values found in either array."""
    return _out(np.union1d(_nd(ar1), _nd(ar2)))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ar1 that are not in ar2."""
    return _out(np.setdiff1d(_nd(ar1), _nd(ar2), assume_unique=assume_unique))


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted unique values found in exactly one of the arrays."""
    return _out(np.setxor1d(_nd(ar1), _nd(ar2), assume_unique=assume_unique))
