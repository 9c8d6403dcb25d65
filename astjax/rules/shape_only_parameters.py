"""Which parameters of the shape helpers are read only for their shape, ndim, dtype or type, never their values.

vmap computes a helper whose result depends only on shapes (reason SHAPES, analyses/batching.py's
`_of_shapes_only`) once, for example 0, when every batched argument of the call lands in a parameter listed
here: each example's value there has the same shape and dtype, so every example gets the same answer. A batched
argument anywhere else is read by value (a size, an order, an offset, pivots, a mask): the statement then runs
per example. Refuse by default: a helper missing here, or a parameter forgotten, costs a loop, never a wrong
number. Each entry was read off the helper's implementation; a parameter a helper does not have is an error
at import.
"""
from .registry import PRIMITIVES

__all__ = ["READS_SHAPES_OF"]

_DTYPE = ("dtype",)

READS_SHAPES_OF = {
    # creation: the dtype argument is read as a dtype (the shape, N, M, k, n are sizes: read by value)
    **{name: _DTYPE for name in ("zeros", "ones", "empty", "eye", "tri", "identity", "hadamard", "scipy_hadamard",
                                 "batch_companion_ones", "isdtype")},
    # dtypes and types of arrays
    "finfo": ("dtype",), "iinfo": ("int_type",), "promote_types": ("a", "b"), "result_type": ("args",),
    "issubdtype": ("arg1", "arg2"), "can_cast": ("from_", "to"), "common_type": ("arrays",),
    "iscomplexobj": ("x",), "isrealobj": ("x",), "isscalar": ("element",), "iterable": ("y",),
    "checked_type": ("obj",), "sequence_part": ("part",),
    "piecewise_dtype": ("x",), "piecewise_pieces_dtype": ("x",), "batch_float_dtype": ("arrays",),
    "batch_float_result": ("x",), "batch_result_dtype": ("arrays",), "batch_kaiser_root": ("beta",),
    # zeros and stand-ins shaped like an array, in an array's dtype
    "zero_tangent": ("x",), "zeroed": ("v", "like"), "zeros_like_shape": ("x", "like"), "zeros_shaped": ("like",),
    "inexact_zero": ("operands",), "joined_like": ("arrays",), "joined_axis": ("arrays",),
    "triangle_mask": ("x",), "linspace_weights": ("y",), "meshgrid_axes": ("y",),
    # axes, pad widths and spans computed from shapes
    "along_axis_destinations": ("arr", "rows_result"), "along_axis_shape": ("arr", "rows_result"),
    "along_axis_sources": ("arr", "rows_result"), "axis_pad": ("x",), "diff_pad": ("x", "prepend", "append"),
    "diff_kept": ("a", "prepend"), "ediff1d_span": ("ary", "to_begin"), "conv_pad": ("a", "v"),
    "kron_axes": ("a", "b"), "kron_blocks": ("a", "b"), "kron_spread": ("a", "b"),
    "tile_axes": ("A",), "tile_blocks": ("A",), "leading": ("p",), "polyder_factors": ("p",),
    "polyint_factors": ("p",), "poly_lead": ("g", "a"), "poly_tail_span": ("g", "a"),
    "lax_permuted_shape": ("x",), "lax_rows_shape": ("x",), "lax_spatial_shape": ("x",),
    "einsum_path": ("operands",), "batch_lstsq_cutoff": ("a",), "batch_size_of": ("tree",),
    # not declared, so read by value: checked_memory_attribute's `obj` (`v.base` of one example is storage, which
    # the examples need not share), batch_place_plan's mask, batch_put_plan's indices, batch_same_flag's flags.
    # index helpers (integer results) that read only an operand's shape
    "tril_indices_from": ("arr",), "triu_indices_from": ("arr",), "diag_indices_from": ("arr",),
}


def _declare():
    for name, params in READS_SHAPES_OF.items():
        prim = PRIMITIVES[name]
        missing = [p for p in params if prim.signature is None or p not in prim.signature.parameters]
        if missing:
            raise TypeError(f"rules/shape_only_parameters.py: {name} has no parameter {missing[0]!r}")
        prim.reads_shapes_of = frozenset(params)


_declare()
