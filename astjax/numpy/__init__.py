"""astjax.numpy: JAX's NumPy API, computed by NumPy with JAX's dtype rules.

    import astjax.numpy as jnp

Every function returns an `astjax.Array` (0-d results included) and follows
JAX's dtypes: float32/int32 defaults, Python scalars weakly typed, and
integers promoting to the float they meet. NumPy arrays passed in keep their
dtype, so a float64 ndarray is how a user asks for double precision.

Each function is a plain Python function defined once in one of the modules
below (never an alias of a NumPy ufunc), so rule tables can key on it:

    _elementwise  arithmetic, transcendental, comparison, logical, clip, round
    _reductions   sum, mean, max, argmax, var, cumsum, all, allclose, nan*, ptp, ...
    _statistics   quantile, percentile, median (and nan*), average, cov, corrcoef
    _integer      bitwise, gcd/lcm, predicates, searchsorted, bincount, nonzero, sets
    _creation     array, zeros, arange, linspace, eye, meshgrid, diag, ...
    _shape        reshape, transpose, concatenate, stack, pad, tile, ...
    _utilities    windows, unravel_index, lexsort, argpartition, broadcast_shapes
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
    arange, array, asanyarray, asarray, asarray_chkfinite, ascontiguousarray, require, astype, copy, diag, empty, empty_like, eye, full, full_like,
    identity, linspace, meshgrid, ones, ones_like, tril, triu, zeros, zeros_like,
)
from ._creation import (
    diag_indices, diag_indices_from, diagflat, geomspace, indices, ix_, logspace, tri, tril_indices,
    tril_indices_from, triu_indices, triu_indices_from, vander,
)
from ._dtypes import (
    bool_, can_cast, common_type, complex64, complex128, complexfloating, dtype, finfo, float16, float32,
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
from ._elementwise import (
    acos, acosh, asin, asinh, atan, atan2, atanh, conj, conjugate, copysign, deg2rad, degrees, fabs,
    fix, float_power, fmax, fmin, fmod, heaviside, i0, imag, ldexp, logaddexp2, nan_to_num, nextafter,
    pow, rad2deg, radians, real, rint, signbit, sinc, spacing,
)
from ._integer import (
    argwhere, array_equal, array_equiv, bincount, bitwise_and, bitwise_count, bitwise_invert,
    bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, digitize,
    flatnonzero, gcd, intersect1d, invert, iscomplex, iscomplexobj, isin, isneginf, isposinf, isreal,
    isrealobj, lcm, left_shift, nonzero, packbits, right_shift, searchsorted, setdiff1d, setxor1d,
    union1d, unique, unique_all, unique_counts, unique_inverse, unique_values, unpackbits,
)
from ._reductions import (
    count_nonzero, cumulative_prod, cumulative_sum, nanargmax, nanargmin, nancumprod, nancumsum,
    nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar, ptp,
)
from ._statistics import (
    average, corrcoef, cov, median, nanmedian, nanpercentile, nanquantile, percentile, quantile,
)
from ._indexing import argsort, sort, take, take_along_axis, where
from ._utilities import (
    argpartition, bartlett, blackman, broadcast_shapes, hamming, hanning, isscalar, iterable, lexsort,
    ravel_multi_index, unravel_index,
)
from ._indexing import choose, compress, extract, select
from ._linalg import dot, einsum, inner, matmul, outer, tensordot, trace, vdot
from ._reductions import (
    all, allclose, amax, amin, any, argmax, argmin, cumprod, cumsum, isclose, max, mean,
    min, prod, std, sum, var,
)
from ._shape import (
    broadcast_to, concatenate, diagonal, expand_dims, flip, hstack, moveaxis, ndim, pad, ravel, repeat,
    reshape, roll, shape, size, split, squeeze, stack, swapaxes, tile, transpose, vstack,
)
from ._shape import (
    append, array_split, atleast_1d, atleast_2d, atleast_3d, block, broadcast_arrays, column_stack, concat,
    delete, dsplit, dstack, fliplr, flipud, hsplit, insert, matrix_transpose, permute_dims, resize, rollaxis,
    rot90, row_stack, trim_zeros, unstack, vsplit,
)
from ._more import (  # noqa: F401 (issue 9: the last jax.numpy functions)
    angle, apply_along_axis, apply_over_axes, array_repr, array_str, copyto, divmod, einsum_path, fill_diagonal, frexp,
    from_dlpack, frombuffer, fromfile, fromfunction, fromiter, fromstring, get_printoptions, histogram, histogram2d,
    histogram_bin_edges, histogramdd, isdtype, kaiser, load, mask_indices, matvec, modf, partition, piecewise, place,
    poly, polydiv, polyfit, printoptions, put, put_along_axis, roots, save, savez, set_printoptions, sort_complex, unwrap, vecdot,
    vecmat, vectorize)
from ._scalar_types import (  # noqa: F401 (jax.numpy's remaining type names)
    ComplexWarning, cdouble, character, complex_, csingle, double, flexible, float_, frompyfunc, int_, object_,
    single, ufunc, uint,
)
from ._index_tricks import c_, euler_gamma, index_exp, mgrid, ogrid, r_, s_  # noqa: F401
from ._scalar_types import ml_dtypes_present as _ml_dtypes_present
from ._signal import (
    convolve, correlate, cross, diff, ediff1d, gradient, interp, kron, polyadd, polyder, polyint, polymul,
    polysub, polyval, trapezoid,
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
__all__ += [  # issue 9: math, statistics and integer functions
    'acos',
    'acosh',
    'asin',
    'asinh',
    'atan',
    'atan2',
    'atanh',
    'conj',
    'conjugate',
    'copysign',
    'deg2rad',
    'degrees',
    'fabs',
    'fix',
    'float_power',
    'fmax',
    'fmin',
    'fmod',
    'heaviside',
    'i0',
    'imag',
    'ldexp',
    'logaddexp2',
    'nan_to_num',
    'nextafter',
    'pow',
    'rad2deg',
    'radians',
    'real',
    'rint',
    'signbit',
    'sinc',
    'spacing',
    'argwhere',
    'array_equal',
    'array_equiv',
    'bincount',
    'bitwise_and',
    'bitwise_count',
    'bitwise_invert',
    'bitwise_left_shift',
    'bitwise_not',
    'bitwise_or',
    'bitwise_right_shift',
    'bitwise_xor',
    'digitize',
    'flatnonzero',
    'gcd',
    'intersect1d',
    'invert',
    'iscomplex',
    'iscomplexobj',
    'isin',
    'isneginf',
    'isposinf',
    'isreal',
    'isrealobj',
    'lcm',
    'left_shift',
    'nonzero',
    'packbits',
    'right_shift',
    'searchsorted',
    'setdiff1d',
    'setxor1d',
    'union1d',
    'unique',
    'unique_all',
    'unique_counts',
    'unique_inverse',
    'unique_values',
    'unpackbits',
    'count_nonzero',
    'cumulative_prod',
    'cumulative_sum',
    'nanargmax',
    'nanargmin',
    'nancumprod',
    'nancumsum',
    'nanmax',
    'nanmean',
    'nanmin',
    'nanprod',
    'nanstd',
    'nansum',
    'nanvar',
    'ptp',
    'average',
    'corrcoef',
    'cov',
    'median',
    'nanmedian',
    'nanpercentile',
    'nanquantile',
    'percentile',
    'quantile',
]
__all__ += [  # shapes, stacking, signals (issue 9)
    'append', 'array_split', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'block', 'broadcast_arrays', 'choose',
    'column_stack', 'compress', 'concat', 'convolve', 'correlate', 'cross', 'delete', 'diag_indices',
    'diag_indices_from', 'diagflat', 'diff', 'dsplit', 'dstack', 'ediff1d', 'extract', 'fliplr', 'flipud',
    'geomspace', 'gradient', 'hsplit', 'indices', 'insert', 'interp', 'ix_', 'kron', 'logspace',
    'matrix_transpose', 'permute_dims', 'polyadd', 'polyder', 'polyint', 'polymul', 'polysub', 'polyval',
    'resize', 'rollaxis', 'rot90', 'row_stack', 'select', 'trapezoid', 'tri', 'tril_indices',
    'tril_indices_from', 'trim_zeros', 'triu_indices', 'triu_indices_from', 'unstack', 'vander', 'vsplit',
]
__all__ += [  # windows, index arithmetic, shape queries (no derivative)
    'argpartition', 'bartlett', 'blackman', 'broadcast_shapes', 'hamming', 'hanning', 'isscalar', 'iterable',
    'lexsort', 'ravel_multi_index', 'unravel_index',
]
__all__ += [  # the last jax.numpy functions (issue 9): astjax/numpy/_more.py
    'angle', 'apply_along_axis', 'apply_over_axes', 'array_repr', 'array_str', 'divmod', 'einsum_path',
    'fill_diagonal', 'frexp', 'from_dlpack', 'frombuffer', 'fromfile', 'fromfunction', 'fromiter', 'fromstring',
    'get_printoptions', 'histogram', 'histogram2d', 'histogram_bin_edges', 'histogramdd', 'isdtype', 'kaiser',
    'load', 'mask_indices', 'matvec', 'modf', 'partition', 'piecewise', 'place', 'poly', 'polydiv', 'polyfit',
    'printoptions', 'put', 'put_along_axis', 'roots', 'save', 'savez', 'set_printoptions', 'sort_complex', 'unwrap', 'vecdot',
    'vecmat', 'vectorize',
]
__all__ += [  # identity-like conversions and dtype queries (numpy's names JAX lacks or has)
    'asanyarray', 'asarray_chkfinite', 'ascontiguousarray', 'common_type', 'copyto', 'require',
]
__all__ += [  # jax.numpy's remaining type names and frompyfunc: astjax/numpy/_scalar_types.py
    'ComplexWarning', 'cdouble', 'character', 'complex_', 'csingle', 'double', 'flexible', 'float_', 'frompyfunc',
    'int_', 'object_', 'single', 'ufunc', 'uint',
]
__all__ += [  # index tricks: astjax/numpy/_index_tricks.py
    'c_', 'euler_gamma', 'index_exp', 'mgrid', 'ogrid', 'r_', 's_',
]
globals().update(_ml_dtypes_present())      # bfloat16, float8_*, int4, ... where ml_dtypes is installed
__all__ += sorted(_ml_dtypes_present())
