"""astjax.lax: JAX's lower-level operations with their JAX names and arguments.

    from astjax import lax

    _control     fori_loop, while_loop, cond, scan, switch, map (Python control flow under transformations)
    _elementwise stop_gradient, clamp, rsqrt, integer_pow, exp2, logistic, erf, div, and lax's names for
                 astjax.numpy's functions (add, sub, mul, max, exp, ...)
    _shape       broadcast_in_dim, reshape, squeeze, expand_dims, transpose, rev, pad, concatenate
    _slicing     slice, slice_in_dim, index_in_dim, dynamic_slice, dynamic_update_slice and their _in_dim forms,
                 select
    _linear      dot_general, conv_general_dilated, conv, reduce_window, cumsum, cumprod, cummax, cummin,
                 sort (one array, or a tuple by its first num_keys), top_k
    _scan        associative_scan
    _solves      custom_root, custom_linear_solve (derivatives by the implicit function theorem; normalize/custom_roots.py)
    _aliases     lax's names for astjax.numpy / astjax.scipy.special functions (acosh, lgamma, erf_inv, ...)
    ..lax_reduce_sort reduce (add, mul, max, min), written in Python from primitives
    ..lax_composites  reduce_sum/max/min/prod, argmax, dot, iota, full, split, cumlogsumexp, sort_key_val, ...
                 written in Python from primitives and transformed like the user's code
    internal     the functions derivative rules call (window gathers, scatters, layouts)

Every function here is a primitive with rules (astjax/rules/lax_rules.py),
shares a primitive with astjax.numpy, or is control flow that normalization
turns into Python loops and branches. Anything else is refused under a
derivative, as everywhere in astjax.
"""
from . import internal
from ._aliases import (
    acosh, asinh, atanh, bessel_i0e, bessel_i1e, betainc, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, conj,
    digamma, erf_inv, erfc, igamma, igammac, imag, lgamma, polygamma, real, reciprocal, zeta,
)
from ._collectives import all_gather, axis_index, pmax, pmean, pmin, psum, psum_scatter
from ._control import cond, fori_loop, map, scan, switch, while_loop
from ._elementwise import (
    abs, acos, add, asin, atan, atan2, cbrt, ceil, clamp, cos, cosh, div, eq, erf, exp, exp2, expm1, floor, ge,
    gt, integer_pow, is_finite, le, log, log1p, logistic, lt, max, min, mul, ne, neg, pow, rem, round, rsqrt,
    sign, sin, sinh, sqrt, square, stop_gradient, sub, tan, tanh,
)
from ._linear import (
    conv, conv_general_dilated, cummax, cummin, cumprod, cumsum, dot_general, reduce_window, sort, top_k,
)
from ..lax_reduce_sort import reduce
from ._scan import associative_scan
from ._solves import custom_linear_solve, custom_root
from ._shape import broadcast_in_dim, concatenate, expand_dims, pad, reshape, rev, squeeze, transpose
from ..lax_composites import (
    argmax, argmin, batch_matmul, broadcast, broadcasted_iota, collapse, convert_element_type, cumlogsumexp, dot,
    full, full_like, iota, reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum, sort_key_val,
    split, tile,
)
from ._slicing import (
    dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_update_slice, dynamic_update_slice_in_dim,
    index_in_dim, select, slice, slice_in_dim,
)

__all__ = [
    # control flow
    # collectives over a named vmap/pmap axis
    "psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "axis_index",
    "fori_loop", "while_loop", "cond", "scan", "switch", "map", "associative_scan",
    # roots and linear solves with implicit derivatives
    "custom_root", "custom_linear_solve",
    # elementwise
    "stop_gradient", "clamp", "rsqrt", "integer_pow", "exp2", "logistic", "erf", "div", "add", "sub", "mul",
    "neg", "max", "min", "pow", "abs", "sign", "exp", "expm1", "log", "log1p", "sqrt", "cbrt", "sin", "cos",
    "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "square", "floor", "ceil", "round", "rem",
    "eq", "ne", "lt", "le", "gt", "ge", "is_finite",
    # shapes
    "broadcast_in_dim", "reshape", "squeeze", "expand_dims", "transpose", "rev", "pad", "concatenate",
    # slicing
    "slice", "slice_in_dim", "index_in_dim", "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
    "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "select",
    # contractions, windows, scans, sorts
    "dot_general", "conv_general_dilated", "conv", "reduce_window", "reduce", "cumsum", "cumprod", "cummax", "cummin",
    "sort", "top_k",
    # the same functions as astjax.numpy's and astjax.scipy.special's (one primitive each)
    "acosh", "asinh", "atanh", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "conj", "real", "imag",
    "reciprocal", "erf_inv", "erfc", "lgamma", "digamma", "igamma", "igammac", "betainc", "zeta", "polygamma",
    "bessel_i0e", "bessel_i1e",
    # written in Python from primitives (astjax/lax_composites.py)
    "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_and", "reduce_or", "argmax", "argmin", "dot",
    "batch_matmul", "full", "full_like", "iota", "broadcasted_iota", "convert_element_type", "broadcast",
    "collapse", "split", "tile", "cumlogsumexp", "sort_key_val",
]
