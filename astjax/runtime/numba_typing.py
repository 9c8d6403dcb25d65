"""Typing-time facts for the Numba lowerings: which NumPy values a Numba type may stand for.

A lowering must give the dtype that the primitive's reference implementation
(`prim.impl`) gives. Rather than restating JAX's promotion rules, a lowering
asks the reference implementation itself: it calls `prim.impl` on one-element
stand-ins of every value a Numba type may hold and reads the result's dtype.

Numba cannot tell a Python scalar (weakly typed in JAX: `float32_array * 2.0`
is float32) from a NumPy scalar of the same type (`np.float64(2.0)` is not
weak): both are `float64` (or `int64`).

* An integer literal written in the compiled source arrives as `Literal[int]`:
  a Python int, weak.
* Any other `int64` stands for both a Python int (a shape, a loop index) and an
  np.int64; where the two readings give different results the lowering
  declines the types (Numba's typing fails, jit refuses the line).
* A `float64` scalar is read as np.float64 (a 0-d float64 value): Numba has no
  float literals, so the jit pass must give every weak Python float the dtype
  it takes (`np.float32(2.0)` in float32 code) before it reaches a lowering.
  `AMBIGUOUS_FLOATS = True` reads float64 scalars both ways instead (declining
  where the readings differ).
"""
import itertools
import warnings

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

AMBIGUOUS_INTS = True          # an int64 scalar may be a Python int or an np.int64
AMBIGUOUS_FLOATS = False       # a float64 scalar is an np.float64 (the jit pass types weak floats)
SUPPORTED_KINDS = "biuf"       # bool, ints, floats (float16 and complex are declined)


def dtype_of(numba_type):
    """The NumPy dtype of a Numba scalar or array type, or None."""
    if isinstance(numba_type, types.Array):
        numba_type = numba_type.dtype
    try:
        dtype = as_dtype(numba_type)
    except Exception:       # noqa: BLE001 (Numba raises NumbaNotImplementedError and others)
        return None
    if dtype.kind not in SUPPORTED_KINDS or dtype == np.float16:
        return None
    return dtype


def is_none(numba_type):
    """An argument that is None (passed as a literal or left out)."""
    if isinstance(numba_type, types.Omitted):
        return numba_type.value is None
    return isinstance(numba_type, types.NoneType) or numba_type is None


def literal_value(numba_type, default=None):
    """The Python value of a literal (int, bool, str, tuple of literals, None); `default` when not literal."""
    if is_none(numba_type):
        return None
    if isinstance(numba_type, types.Omitted):
        return numba_type.value
    if isinstance(numba_type, types.Literal):
        return numba_type.literal_value
    if isinstance(numba_type, types.BaseTuple) and not isinstance(numba_type, types.BaseNamedTuple):
        values = [literal_value(t, _MISSING) for t in numba_type.types]
        return default if any(v is _MISSING for v in values) else tuple(values)
    return default


_MISSING = object()


def is_scalar(numba_type):
    return isinstance(numba_type, (types.Number, types.Boolean))


def is_array(numba_type):
    return isinstance(numba_type, types.Array)


def stand_ins(numba_type):
    """The values `numba_type` may stand for, as one-element examples; None when declined."""
    if is_none(numba_type):
        return [None]
    if isinstance(numba_type, types.Array):
        dtype = dtype_of(numba_type)
        return None if dtype is None else [np.ones((1,) * numba_type.ndim, dtype=dtype)]
    if isinstance(numba_type, types.BooleanLiteral):
        return [bool(numba_type.literal_value)]
    if isinstance(numba_type, types.IntegerLiteral):
        return [int(numba_type.literal_value)]
    if isinstance(numba_type, types.Boolean):
        return [np.bool_(True)]
    if isinstance(numba_type, (types.Integer, types.Float)):
        dtype = dtype_of(numba_type)
        if dtype is None:
            return None
        strong = dtype.type(1)
        if AMBIGUOUS_INTS and numba_type == types.int64:
            return [1, strong]
        if AMBIGUOUS_FLOATS and numba_type == types.float64:
            return [1.0, strong]
        return [strong]
    if isinstance(numba_type, types.NumberClass):
        dtype = dtype_of(numba_type.instance_type)
        return None if dtype is None else [dtype.type]
    if isinstance(numba_type, types.DType):
        dtype = dtype_of(numba_type.dtype)
        return None if dtype is None else [dtype]
    value = literal_value(numba_type, _MISSING)
    if value is not _MISSING:
        return [value]
    if isinstance(numba_type, types.BaseTuple) and not isinstance(numba_type, types.BaseNamedTuple):
        parts = [stand_ins(t) for t in numba_type.types]
        if any(p is None for p in parts):
            return None
        return [tuple(combination) for combination in itertools.product(*parts)]
    return None


def agreed(function, *numba_types):
    """`function` applied to every reading of the arguments: the one result they agree on, else None.

    `function` maps stand-in values to something hashable (a dtype, a tuple);
    it may raise, which declines those types.
    """
    options = [stand_ins(t) for t in numba_types]
    if any(o is None for o in options):
        return None
    results = set()
    for combination in itertools.product(*options):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                results.add(function(*combination))
        except Exception:       # noqa: BLE001 (the reference refuses these values: so does the lowering)
            return None
    return results.pop() if len(results) == 1 else None


def result_dtype(impl, *numba_types):
    """The dtype of `impl(*stand-ins)`, when every reading agrees on it; else None."""
    def dtype(*values):
        result = np.asarray(impl(*values))
        if result.dtype.kind not in SUPPORTED_KINDS or result.dtype == np.float16:
            raise TypeError("unsupported dtype")
        return result.dtype
    return agreed(dtype, *numba_types)


def result_shape_dtype(impl, *numba_types):
    """(ndim, dtype) of `impl(*stand-ins)`, when every reading agrees; else None."""
    def ndim_dtype(*values):
        result = np.asarray(impl(*values))
        if result.dtype.kind not in SUPPORTED_KINDS or result.dtype == np.float16:
            raise TypeError("unsupported dtype")
        return result.ndim, result.dtype
    return agreed(ndim_dtype, *numba_types)
