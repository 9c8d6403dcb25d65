"""astjax.numpy: JAX's NumPy API, computed by NumPy with JAX's dtype rules.

    import astjax.numpy as jnp

Every function returns an `astjax.Array` (0-d results included) and follows
JAX's dtypes: float32/int32 defaults, Python scalars weakly typed, and
integers promoting to the float they meet. NumPy arrays passed in keep their
dtype, so a float64 ndarray is how a user asks for double precision.

Each function is a plain Python function defined once in one of the modules
below (never an alias of a NumPy ufunc), so rule tables can key on it:

    _elementwise  arithmetic, transcendental, comparison, logical, clip, round
    _reductions   sum, mean, max, argmax, var, cumsum, all, allclose, ...
    _creation     array, zeros, arange, linspace, eye, meshgrid, diag, ...
    _shape        reshape, transpose, concatenate, stack, pad, tile, ...
    _linalg       dot, matmul, einsum, outer, inner, vdot, trace
    _indexing     where, take, sort, argsort
    _dtypes       dtype names, result_type, finfo, iinfo, issubdtype
    linalg        norm, inv, solve, det, ... (the `jnp.linalg` namespace)
    fft           fft, rfft, fftfreq, fftshift, ... (the `jnp.fft` namespace)
"""
import numpy as _np

from ..array import Array as ndarray
from . import fft, linalg
from ._creation import (
    arange, array, asarray, astype, copy, diag, empty, empty_like, eye, full, full_like,
    identity, linspace, meshgrid, ones, ones_like, tril, triu, zeros, zeros_like,
)
from ._dtypes import (
    bool_, can_cast, complex64, complex128, complexfloating, dtype, finfo, float16, float32,
    float64, floating, generic, iinfo, inexact, int8, int16, int32, int64, integer,
    issubdtype, number, promote_types, result_type, signedinteger, uint8, uint16, uint32,
    uint64, unsignedinteger,
)
from ._elementwise import (
    abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, around,
    cbrt, ceil, clip, cos, cosh, divide, equal, exp, exp2, expm1, floor, floor_divide,
    greater, greater_equal, hypot, isfinite, isinf, isnan, less, less_equal, log, log1p,
    log2, log10, logaddexp, logical_and, logical_not, logical_or, logical_xor, maximum,
    minimum, mod, multiply, negative, not_equal, positive, power, reciprocal, remainder,
    round, sign, sin, sinh, sqrt, square, subtract, tan, tanh, true_divide, trunc,
)
from ._indexing import argsort, sort, take, take_along_axis, where
from ._linalg import dot, einsum, inner, matmul, outer, tensordot, trace, vdot
from ._reductions import (
    all, allclose, amax, amin, any, argmax, argmin, cumprod, cumsum, isclose, max, mean,
    min, prod, std, sum, var,
)
from ._shape import (
    broadcast_to, concatenate, diagonal, expand_dims, flip, hstack, moveaxis, ndim, pad, ravel, repeat,
    reshape, roll, shape, size, split, squeeze, stack, swapaxes, tile, transpose, vstack,
)

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
bool = bool_  # JAX's `jnp.bool` (shadows the builtin only in this namespace)

__all__ = [
    'abs', 'absolute', 'add', 'all', 'allclose', 'amax', 'amin', 'any', 'arange', 'arccos',
    'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctan2', 'arctanh', 'argmax', 'argmin',
    'argsort', 'around', 'array', 'asarray', 'astype', 'bool', 'bool_', 'broadcast_to',
    'can_cast', 'cbrt', 'ceil', 'clip', 'complex128', 'complex64', 'complexfloating',
    'concatenate', 'copy', 'cos', 'cosh', 'cumprod', 'cumsum', 'diag', 'diagonal', 'divide', 'dot',
    'dtype', 'e', 'einsum', 'empty', 'empty_like', 'equal', 'exp', 'exp2', 'expand_dims',
    'expm1', 'eye', 'finfo', 'flip', 'float16', 'float32', 'float64', 'floating', 'floor',
    'floor_divide', 'full', 'full_like', 'generic', 'greater', 'greater_equal', 'hstack',
    'hypot', 'identity', 'iinfo', 'inexact', 'inf', 'inner', 'int16', 'int32', 'int64',
    'int8', 'integer', 'isclose', 'isfinite', 'isinf', 'isnan', 'issubdtype', 'less',
    'less_equal', 'fft', 'linalg', 'linspace', 'log', 'log10', 'log1p', 'log2', 'logaddexp',
    'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'matmul', 'max', 'maximum',
    'mean', 'meshgrid', 'min', 'minimum', 'mod', 'moveaxis', 'multiply', 'nan', 'ndarray',
    'ndim', 'negative', 'newaxis', 'not_equal', 'number', 'ones', 'ones_like', 'outer',
    'pad', 'pi', 'positive', 'power', 'prod', 'promote_types', 'ravel', 'reciprocal',
    'remainder', 'repeat', 'reshape', 'result_type', 'roll', 'round', 'shape', 'sign',
    'signedinteger', 'sin', 'sinh', 'size', 'sort', 'split', 'sqrt', 'square', 'squeeze',
    'stack', 'std', 'subtract', 'sum', 'swapaxes', 'take', 'take_along_axis', 'tan', 'tanh',
    'tensordot', 'tile', 'trace', 'transpose', 'tril', 'triu', 'true_divide', 'trunc',
    'uint16', 'uint32', 'uint64', 'uint8', 'unsignedinteger', 'var', 'vdot', 'vstack',
    'where', 'zeros', 'zeros_like',
]
