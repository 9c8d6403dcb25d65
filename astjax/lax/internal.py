"""Functions that derivative rules of lax primitives call (each a primitive itself; not public API).

Rule templates name them `lax.internal.<name>`.
"""
import numpy as np

from ._linear import (conv_canonical, conv_layout, cumulative_argext, dot_general_subscripts, dot_general_transpose,
                      gather_along, reduction_kind, scatter_along, top_k_indices, window_hits, window_ties)
from ._shape import broadcast_in_dim_adjoint, in_dim_shape, pad_operand_adjoint, reshape_adjoint
from ._scan_outputs import scan_carry_check, scan_step_output
from ._slicing import leading_axis_array, in_dim_index, in_dim_starts, index_in_dim_index, kept_dim_shape, static_index
from ._reduce_sort import lexsort_order
from ._windows import window_geometry, window_out_shape, window_padding, window_patches, window_patches_adjoint

__all__ = ["conv_canonical", "conv_layout", "cumulative_argext", "dot_general_subscripts", "gather_along",
           "reduction_kind", "scatter_along", "top_k_indices", "broadcast_in_dim_adjoint", "in_dim_shape",
           "pad_operand_adjoint", "reshape_adjoint", "in_dim_index", "in_dim_starts", "static_index",
           "window_geometry", "window_out_shape", "window_padding", "window_patches", "window_patches_adjoint",
           "dot_general_transpose", "window_hits", "window_ties", "index_in_dim_index", "kept_dim_shape", "lower_exponent",
           "opposite", "permuted_shape", "leading_axis_array", "inverse_permutation", "spatial_shape", "rows_shape",
           "scan_step_output", "scan_carry_check", "lexsort_order"]


def lower_exponent(exponent):
    """The exponent of integer_pow's derivative: exponent - 1, or 0 for exponent 0 (whose slope is 0)."""
    return int(exponent) - 1 if int(exponent) else 0


def opposite(flag):
    """`not flag`: a reversed scan's adjoint runs the other way."""
    return not flag


def permuted_shape(x, permutation):
    """The shape of `transpose(x, permutation)`."""
    shape = np.shape(x)
    return tuple(shape[int(i)] for i in permutation)


def inverse_permutation(permutation):
    """The permutation that undoes `permutation`."""
    return tuple(int(i) for i in np.argsort([int(p) for p in permutation]))


def spatial_shape(x):
    """The dimensions of x after the first two (a convolution's spatial ones)."""
    return tuple(np.shape(x)[2:])


def rows_shape(x):
    """(n0, n1, product of the rest) for x of shape (n0, n1, ...): spatial dimensions flattened into one."""
    shape = np.shape(x)
    return (shape[0], shape[1], int(np.prod(shape[2:], dtype=np.int64)))
