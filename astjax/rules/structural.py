"""Structural primitives: they move values around without computing new ones.

Their adjoints move the adjoint back: a reshape's adjoint reshapes back, a
slice's adjoint scatters into zeros, a pad's adjoint crops. All are linear,
so each tangent rule applies the primitive itself to the tangent.
"""
import numpy as np

from .. import numpy as jnp
from .. import lax
from . import helpers
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, deflowering, defjvp, defvjp, parse_expression, primitive


def structural(name, impl, operand, vjp, jvp, **kwargs):
    prim = primitive(name, impl, operands=(operand,), **kwargs)
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    return prim


structural("reshape", jnp.reshape, "a", "ba += jnp.reshape(by, jnp.shape(a), order)",
           "dy = jnp.reshape(da, jnp.shape(y), order)", aliases=(np.reshape,))
structural("ravel", jnp.ravel, "a", "ba += jnp.reshape(by, jnp.shape(a), order)",
           "dy = jnp.ravel(da, order)", aliases=(np.ravel,))
structural("expand_dims", jnp.expand_dims, "a", "ba += jnp.reshape(by, jnp.shape(a))",
           "dy = jnp.reshape(da, jnp.shape(y))", aliases=(np.expand_dims,))
structural("squeeze", jnp.squeeze, "a", "ba += jnp.reshape(by, jnp.shape(a))",
           "dy = jnp.reshape(da, jnp.shape(y))", aliases=(np.squeeze,))
structural("transpose", jnp.transpose, "a", "ba += jnp.transpose(by, invert_permutation(axes))",
           "dy = jnp.transpose(da, axes)", aliases=(np.transpose,))
structural("swapaxes", jnp.swapaxes, "a", "ba += jnp.swapaxes(by, axis1, axis2)",
           "dy = jnp.swapaxes(da, axis1, axis2)", aliases=(np.swapaxes,))
structural("moveaxis", jnp.moveaxis, "a", "ba += jnp.moveaxis(by, destination, source)",
           "dy = jnp.moveaxis(da, source, destination)", aliases=(np.moveaxis,))
structural("flip", jnp.flip, "m", "bm += jnp.flip(by, axis)",
           "dy = jnp.flip(dm, axis)", aliases=(np.flip,))
structural("broadcast_to", jnp.broadcast_to, "array", "barray += unbroadcast(by, array)",
           "dy = jnp.broadcast_to(darray, shape)", aliases=(np.broadcast_to,))
# The constant of mode "constant" may carry a derivative too: each value's adjoint sums `by` over the cells it
# filled (a corner belongs to the last axis that padded it, as NumPy fills axis by axis).
_pad = primitive("pad", jnp.pad, operands=("array", "constant_values"), aliases=(np.pad,),
                 signature=lambda array, pad_width, mode="constant", constant_values=0: None)
defvjp(_pad, "barray += pad_adjoint(by, pad_width, mode)",
       "bconstant_values += pad_constant_adjoint(by, array, pad_width, constant_values)")
defjvp(_pad, "darray -> pad_tangent(darray, pad_width, mode)",
       "dconstant_values -> pad_constant_tangent(dconstant_values, array, pad_width)")
structural("pad_constant_tangent", helpers.pad_constant_tangent, "t",
           "bt += pad_constant_adjoint(by, array, pad_width, t)", "dy = pad_constant_tangent(dt, array, pad_width)",
           shape_params=("array",))
structural("pad_constant_adjoint", helpers.pad_constant_adjoint, "g",
           "bg += pad_constant_tangent(by, array, pad_width)",
           "dy = pad_constant_adjoint(dg, array, pad_width, constant_values)", shape_params=("array", "constant_values"))
structural("pad_tangent", helpers.pad_tangent, "t", "bt += pad_adjoint(by, pad_width, mode)",
           "dy = pad_tangent(dt, pad_width, mode)", signature=lambda t, pad_width, mode="constant": None)
structural("pad_adjoint", helpers.pad_adjoint, "g", "bg += jnp.pad(by, pad_width, mode)",
           "dy = pad_adjoint(dg, pad_width, mode)")
structural("cast_adjoint", helpers.cast_adjoint, "g", "bg += cast_adjoint(by, like)",
           "dy = cast_adjoint(dg, like)", shape_params=("like",))
structural("astype", helpers.astype, "x", "bx += cast_adjoint(by, y)", "dy = cast_adjoint(astype(dx, dtype), y)",
           result_shape_of="x", aliases=(jnp.astype,)
           if hasattr(jnp, "astype") else ())
# copy of a list of arrays (`xs.copy()` on a list parameter becomes jnp.copy(xs)) is a stacked array, as jnp.array
structural("copy", jnp.copy, "a", "ba += array_adjoint(by, a)", "dy = jnp.copy(da)", aliases=(np.copy,),
           result_shape_of="a", sequence_operand="a")
# What jacobian_source.py's loops read: one array (a pytree there is refused, see helpers.jacobian_input).
_jacobian_input = structural("jacobian_input", helpers.jacobian_input, "x", "bx += by", "dy = dx", result_shape_of="x")
_jacobian_input.elementwise = True
deflowering(_jacobian_input, numba="astjax.runtime.numba_cpu:positive")
# `x op= e` on a name bound to a NumPy array (frontend/normalize/augmented_assignment.py): NumPy's shape and dtype.
structural("inplace_result", helpers.inplace_result, "new", "bnew += by", "dy = dnew", shape_params=("old",),
           result_shape_of="old")
structural("array", jnp.array, "object", "bobject += array_adjoint(cast_adjoint(by, y), object)",
           "dy = cast_adjoint(jnp.array(dobject), y)",
           aliases=(jnp.asarray, np.array, np.asarray), sequence_operand="object",
           signature=lambda object, dtype=None: None)

# Functions of a list of arrays: one adjoint per element (k is its position).
for _name in ("stack", "concatenate"):
    _prim = primitive(_name, getattr(jnp, _name), operands=("arrays",), sequence_operand="arrays",
                      aliases=(getattr(np, _name),) + ((jnp.concat, np.concat) if _name == "concatenate" else ()),
                      signature=lambda arrays, axis=0: None)
    defjvp(_prim, f"dy = jnp.{_name}(darrays, axis)")
defvjp(PRIMITIVES["stack"], "barrays += stack_adjoint(by, axis)")
defvjp(PRIMITIVES["concatenate"], "barrays += concatenate_adjoint(by, arrays, axis)")
for _name, _part in {"stack": "stack_part(by, k, axis)",
                     "concatenate": "concatenate_part(by, arrays, k, axis)",
                     "array": "stack_part(cast_adjoint(by, y), k)"}.items():
    PRIMITIVES[_name].sequence_vjp = parse_expression(_part)
structural("stack_part", helpers.stack_part, "g", "bg += stack_part_adjoint(by, g, k, axis)",
           "dy = stack_part(dg, k, axis)")
structural("stack_part_adjoint", helpers.stack_part_adjoint, "p", "bp += stack_part(by, k, axis)",
           "dy = stack_part_adjoint(dp, g, k, axis)")
structural("concatenate_part", helpers.concatenate_part, "g",
           "bg += concatenate_part_adjoint(by, g, arrays, k, axis)",
           "dy = concatenate_part(dg, arrays, k, axis)")
structural("concatenate_part_adjoint", helpers.concatenate_part_adjoint, "p",
           "bp += concatenate_part(by, arrays, k, axis)",
           "dy = concatenate_part_adjoint(dp, g, arrays, k, axis)")

# Indexing and functional updates: `x[idx]`, `x.at[idx].set(v)`, `x.at[idx].add(v)`.
getitem = structural("getitem", helpers.getitem, "x", "bx += index_adjoint(x, idx, by)",
                     "dy = dx[idx]", aliases=(helpers.at_get,), index_params=("idx",))
# An update at an out-of-bounds index is dropped (as in JAX): `part_at(by, x, idx)` is `by[idx]` with
# zeros there, so the dropped value gets no adjoint and x keeps its own at every position. For a Python
# list (`xs[i] = v` normalizes to `xs = at_set(xs, i, v)`) the same helpers take item i of its adjoint
# or tangent. The tangent of an update is the update of the tangents (`joint_jvp`: one term, since `+`
# would concatenate the tangents of a list).
at_set = primitive("at_set", helpers.at_set, operands=("x", "v"), index_params=("idx",))
# With a repeated position only one of the values written there is kept, and which one is not specified
# (JAX) or is the last (NumPy): v's adjoint refuses that (unique_index) rather than guess.
defvjp(at_set, "bx += cleared_at(by, x, idx)", "bv += unbroadcast(part_at(by, x, unique_index(idx, x)), v)")
at_set.joint_jvp = parse_expression("at_set(dx, idx, dv)")
at_add = primitive("at_add", helpers.at_add, operands=("x", "v"), index_params=("idx",))
defvjp(at_add, "bx += by", "bv += unbroadcast(part_at(by, x, idx), v)")
at_add.joint_jvp = parse_expression("at_add(dx, idx, dv)")
at_multiply = primitive("at_multiply", helpers.at_multiply, operands=("x", "v"), index_params=("idx",))
# v's rule holds for distinct positions (with a repeat it would need the other factors too): normalization
# writes a user's `x.at[idx].multiply(v)` as `x.at[unique_index(idx, x)].multiply(v)`, which checks that.
defvjp(at_multiply, "bx += by.at[idx].multiply(v)", "bv += unbroadcast(part_at(by, x, idx) * part_at(x, x, idx), v)")
defjvp(at_multiply, "dy = dx.at[idx].multiply(v) + jnp.zeros_like(y).at[idx].add(dv) * x")
structural("part_at", helpers.part_at, "g", "bg += placed_at(by, x, idx)", "dy = part_at(dg, x, idx)",
           index_params=("idx",), shape_params=("x",))
structural("placed_at", helpers.placed_at, "p", "bp += part_at(by, x, idx)", "dy = placed_at(dp, x, idx)",
           index_params=("idx",), shape_params=("x",))
structural("cleared_at", helpers.cleared_at, "g", "bg += cleared_at(by, x, idx)", "dy = cleared_at(dg, x, idx)",
           index_params=("idx",), shape_params=("x",))
for _lowered in ("part_at", "placed_at", "cleared_at"):     # an array and slices (runtime/numba_adjoints.py)
    deflowering(PRIMITIVES[_lowered], numba="astjax.runtime.numba_cpu:" + _lowered)
primitive("zero_tangent", helpers.zero_tangent, operands=(), differentiable=False, reason=SHAPES)

structural("attribute", getattr, "x", "bx += attribute_adjoint(x, attr, by)", "dy = getattr(dx, attr)",
           signature=lambda x, attr: None)
# The transpose reads the part at idx with the list's own positions (`xs[-1]` was keyed len(xs) - 1), and
# a bare zero adjoint as zeros: `by[idx]` read key -1 of a list's adjoint as zero (jacrev(grad(f)) of
# `y = hs[-1]` gave zeros).
structural("index_adjoint", helpers.index_adjoint, "g", "bg += index_adjoint_part(by, x, idx)",
           "dy = index_adjoint(x, idx, dg)", signature=lambda x, idx, g: None)
structural("index_adjoint_part", helpers.index_adjoint_part, "g", "bg += index_adjoint(x, idx, by)",
           "dy = index_adjoint_part(dg, x, idx)", signature=lambda g, x, idx: None)
structural("dynamic_slice", lax.dynamic_slice, "operand",
           "boperand += dynamic_slice_adjoint(by, operand, start_indices)",
           "dy = lax.dynamic_slice(doperand, start_indices, slice_sizes)")
structural("dynamic_slice_adjoint", helpers.dynamic_slice_adjoint, "g",
           "bg += lax.dynamic_slice(by, start_indices, jnp.shape(g))",
           "dy = dynamic_slice_adjoint(dg, operand, start_indices)")

# The helpers that rules themselves call are primitives too, so derivatives of derivatives work.
# Their transpose broadcasts back to g's shape; g an adjoint of a container (a TreeAdjoint, which they pass
# through as it is) gets `by` as it is: broadcast_like does both (jnp.broadcast_to made an object array of it).
structural("unbroadcast", helpers.unbroadcast, "g", "bg += broadcast_like(by, g)",
           "dy = unbroadcast(dg, x)")
structural("unbroadcast_to", helpers.unbroadcast_to, "g", "bg += broadcast_like(by, g)",
           "dy = unbroadcast_to(dg, shape)")
structural("unreduce", helpers.unreduce, "g", "bg += jnp.sum(by, axis, keepdims=keepdims, where=where)",
           "dy = unreduce(dg, x, axis, keepdims, where)")
structural("broadcast_like", helpers.broadcast_like, "t", "bt += unbroadcast(by, t)",
           "dy = broadcast_like(dt, *operands)")

# The adjoints of lists and namedtuples are built by helpers too; their transposes rebuild arrays.
# The tangent of an item is shaped like the item: the tangent tree may lack an item the adjoint tree has (a
# bare 0.0: nothing that varies reached it), and the rules reading it reshape it (hessian of eigh, svd).
structural("item_adjoint", helpers.item_adjoint, "adjoint", "badjoint += tree_item_adjoint(i, by)",
           "dy = broadcast_like(item_adjoint(dadjoint, i), y)")
# `list(xs)` is normalized to `[v for v in list_items(xs)]` (normalize/container_idioms.py): xs itself, after
# checking it is a list or tuple (Python would list a dict's keys, an array's rows).
structural("list_items", helpers.list_items, "x", "bx += by", "dy = dx")
# `tuple(v * 2 for v in xs)` is normalized to `tuple_items([v * 2 for v in xs])`: the list's items, as a tuple.
structural("tuple_items", helpers.tuple_items, "x", "bx += by", "dy = dx")
structural("tree_item_adjoint", helpers.tree_item_adjoint, "g", "bg += item_adjoint(by, i)",
           "dy = tree_item_adjoint(i, dg)")
structural("stack_adjoint", helpers.stack_adjoint, "g", "bg += stack_items(by, g, axis)",
           "dy = stack_adjoint(dg, axis)")
structural("stack_items", helpers.stack_items, "t", "bt += stack_adjoint(by, axis)",
           "dy = stack_items(dt, like, axis)")
structural("concatenate_adjoint", helpers.concatenate_adjoint, "g", "bg += concatenate_items(by, g, arrays, axis)",
           "dy = concatenate_adjoint(dg, arrays, axis)")
structural("concatenate_items", helpers.concatenate_items, "t", "bt += concatenate_adjoint(by, arrays, axis)",
           "dy = concatenate_items(dt, like, arrays, axis)")
structural("array_adjoint", helpers.array_adjoint, "g", "bg += array_items(by, g, object)",
           "dy = array_adjoint(dg, object)")
structural("array_items", helpers.array_items, "t", "bt += array_adjoint(by, object)",
           "dy = array_items(dt, like, object)")
structural("attribute_adjoint", helpers.attribute_adjoint, "g", "bg += field_of_adjoint(by, x, attr)",
           "dy = attribute_adjoint(x, attr, dg)")
structural("field_of_adjoint", helpers.field_of_adjoint, "t", "bt += attribute_adjoint(x, attr, by)",
           "dy = field_of_adjoint(dt, x, attr)")

# Gathers: `take`'s adjoint scatter-adds back where the gather read (repeated indices add up).
# mode "wrap"/"clip" read an index modulo or clamped; "fill" (JAX's default) reads a constant out of range,
# whose derivative is zero (so the tangent fills with 0 and the adjoint drops those positions).
structural("take", jnp.take, "a", "ba += take_adjoint(by, a, indices, axis, mode)",
           "dy = jnp.take(da, indices, axis, mode=mode, fill_value=0)", aliases=(np.take,),
           signature=lambda a, indices, axis=None, out=None, mode=None, unique_indices=False,
           indices_are_sorted=False, fill_value=None: None)
structural("take_adjoint", helpers.take_adjoint, "g", "bg += jnp.take(by, indices, axis, mode=mode, fill_value=0)",
           "dy = take_adjoint(dg, a, indices, axis, mode)")

# These rules only broadcast or scatter `by`, so a bare 0.0 adjoint works in them.
for _name in ("getitem", "transpose", "attribute", "unreduce", "unbroadcast", "index_adjoint_part"):
    PRIMITIVES[_name].accepts_scalar_zero = True

# Parameters these helpers read only for a shape or a structure: they may hold values that carry a
# derivative (the primal `x` of `unbroadcast(g, x)`), which stays exact since only the shape is read.
_SHAPE_PARAMS = {
    "array_adjoint": ("object",), "array_items": ("like", "object"), "attribute_adjoint": ("x",),
    "broadcast_like": ("operands",), "concatenate_adjoint": ("arrays",), "concatenate_items": ("like", "arrays"),
    "concatenate_part": ("arrays",), "concatenate_part_adjoint": ("g", "arrays"), "dynamic_slice_adjoint": ("operand",),
    "field_of_adjoint": ("x",), "index_adjoint": ("x",), "index_adjoint_part": ("x",), "stack_items": ("like",), "stack_part_adjoint": ("g",),
    "take_adjoint": ("a",), "unbroadcast": ("x",), "unreduce": ("x",),
}
for _name, _params in _SHAPE_PARAMS.items():
    PRIMITIVES[_name].shape_params = PRIMITIVES[_name].shape_params | frozenset(_params)

# Their Numba lowerings (astjax/runtime/numba_cpu.py), used by jit.
for _name in ("reshape", "ravel", "expand_dims", "squeeze", "transpose", "swapaxes", "moveaxis", "flip", "broadcast_to",
              "pad", "pad_tangent", "pad_adjoint", "pad_constant_tangent", "pad_constant_adjoint", "cast_adjoint", "astype", "copy", "stack", "concatenate", "stack_part",
              "stack_part_adjoint", "concatenate_part", "concatenate_part_adjoint", "getitem", "at_set", "at_add",
              "at_multiply", "index_adjoint", "index_adjoint_part", "dynamic_slice", "dynamic_slice_adjoint", "unbroadcast",
              "unbroadcast_to", "unreduce", "broadcast_like", "take", "take_adjoint", "array",
              "stack_adjoint", "item_adjoint", "array_adjoint"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")


# ================================================================ shapes, stacking and rearranging (issue 9)
# Linear maps: each tangent rule applies the map itself; each adjoint applies its transpose, written with
# primitives that have rules of their own (so grad of grad works). Helpers that compute only shapes,
# axes or index sets are declared non-differentiable below.
from . import shape_helpers as _sh   # noqa: E402
from .nondifferentiable import BOOLEAN, INTEGER, nondifferentiable  # noqa: E402

for _name, _reason in (("joined_like", SHAPES), ("joined_axis", SHAPES), ("negated_shift", INTEGER),
                       ("rollaxis_destination", INTEGER), ("resize_indices", INTEGER), ("kept_indices", INTEGER),
                       ("tile_blocks", SHAPES), ("tile_axes", SHAPES),
                       ("nonzero_indices", INTEGER), ("sort_order", INTEGER), ("zeros_like_shape", SHAPES),
                       ("select_mask", BOOLEAN), ("select_default_mask", BOOLEAN)):
    nondifferentiable(_name, getattr(_sh, _name), _reason)

structural("fliplr", jnp.fliplr, "m", "bm += jnp.fliplr(by)", "dy = jnp.fliplr(dm)", aliases=(np.fliplr,))
structural("flipud", jnp.flipud, "m", "bm += jnp.flipud(by)", "dy = jnp.flipud(dm)", aliases=(np.flipud,))
structural("rot90", jnp.rot90, "m", "bm += jnp.rot90(by, -k, axes)", "dy = jnp.rot90(dm, k, axes)",
           aliases=(np.rot90,))
structural("rollaxis", jnp.rollaxis, "a", "ba += jnp.moveaxis(by, rollaxis_destination(a, axis, start), axis)",
           "dy = jnp.rollaxis(da, axis, start)", aliases=(np.rollaxis,))
structural("permute_dims", jnp.permute_dims, "a", "ba += jnp.transpose(by, invert_permutation(axes))",
           "dy = jnp.transpose(da, axes)", aliases=(np.permute_dims,), signature=lambda a, axes=None: None)
structural("matrix_transpose", jnp.matrix_transpose, "x", "bx += jnp.matrix_transpose(by)",
           "dy = jnp.matrix_transpose(dx)", aliases=(np.matrix_transpose,), signature=lambda x: None)
# One input only: with several, atleast_*d returns a list (refused under a derivative: the call does not bind).
for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    structural(_name, getattr(jnp, _name), "a", "ba += jnp.reshape(by, jnp.shape(a))",
               "dy = jnp.reshape(da, jnp.shape(y))", aliases=(getattr(np, _name),), signature=lambda a: None)
structural("roll", jnp.roll, "a", "ba += jnp.roll(by, negated_shift(shift), axis)", "dy = jnp.roll(da, shift, axis)",
           aliases=(np.roll,), signature=lambda a, shift, axis=None: None)
for _name in ("roll", "negated_shift"):         # Numba lowerings: astjax/runtime/numba_rearranging.py
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")
structural("tile", jnp.tile, "A", "bA += jnp.reshape(jnp.sum(jnp.reshape(by, tile_blocks(A, reps)), tile_axes(A, reps)), "
           "jnp.shape(A))", "dy = jnp.tile(dA, reps)", aliases=(np.tile,))
structural("tril", jnp.tril, "m", "bm += jnp.tril(by, k)", "dy = jnp.tril(dm, k)", aliases=(np.tril,))
structural("triu", jnp.triu, "m", "bm += jnp.triu(by, k)", "dy = jnp.triu(dm, k)", aliases=(np.triu,))
structural("diagflat", jnp.diagflat, "v", "bv += jnp.reshape(jnp.diagonal(by, k), jnp.shape(v))",
           "dy = jnp.diagflat(dv, k)", aliases=(np.diagflat,))
structural("resize", jnp.resize, "a",
           "ba += jnp.reshape(take_adjoint(jnp.ravel(by), jnp.ravel(a), resize_indices(a, new_shape), 0), jnp.shape(a))",
           "dy = jnp.resize(da, new_shape)", aliases=(np.resize,), shape_params=("new_shape",))
structural("delete", jnp.delete, "arr", "barr += take_adjoint(by, arr, kept_indices(arr, obj, axis), axis)",
           "dy = jnp.delete(darr, obj, axis)", aliases=(np.delete,))
structural("take_along_axis", jnp.take_along_axis, "arr", "barr += take_along_axis_adjoint(by, arr, indices, axis)",
           "dy = jnp.take_along_axis(darr, indices, axis)", aliases=(np.take_along_axis,))
structural("take_along_axis_adjoint", _sh.take_along_axis_adjoint, "g", "bg += jnp.take_along_axis(by, indices, axis)",
           "dy = take_along_axis_adjoint(dg, arr, indices, axis)", shape_params=("arr",))
# sort: the gather of its own order (ties: one of the tied inputs gets the adjoint, as in JAX).
_sort = structural("sort", jnp.sort, "a", "ba += sorted_adjoint(by, a, sort_order(a, axis, descending), axis)",
                   "dy = sorted_tangent(da, sort_order(a, axis, descending), axis)", aliases=(np.sort,),
                   signature=lambda a, axis=-1, kind=None, order=None, *, stable=True, descending=False: None)
_sort.static_check = lambda bound: (
    None if getattr(bound.get("order"), "value", None) is None else
    ("sort(..., order=...) sorts structured arrays, which astjax does not differentiate", "sort a plain array"))
structural("compress", jnp.compress, "a", "ba += take_adjoint(by, a, nonzero_indices(condition), axis)",
           "dy = jnp.compress(condition, da, axis)", aliases=(np.compress,))
structural("extract", jnp.extract, "arr", "barr += take_adjoint(by, arr, nonzero_indices(condition), None)",
           "dy = jnp.extract(condition, darr)", aliases=(np.extract,))

# select: each choice's adjoint is `by` where that choice was taken (the first condition that holds).
_select = primitive("select", jnp.select, operands=("choicelist", "default"), sequence_operand="choicelist",
                    aliases=(np.select,))
defvjp(_select, "bdefault += unbroadcast(jnp.where(select_default_mask(condlist), by, 0.0), default)")
defjvp(_select, "dy = jnp.select(condlist, dchoicelist, 0.0) + jnp.where(select_default_mask(condlist), ddefault, 0.0)")
_select.sequence_vjp = parse_expression("unbroadcast(jnp.where(select_mask(condlist, k), by, 0.0), item)")

# Joining a list: each input's adjoint is its piece of `by`, cut out as concatenate's is from the inputs as
# the function reshaped them (`joined_like`), then given the input's own shape. (A list held in a variable
# is refused in reverse mode: "no derivative with respect to its argument".)
# NumPy 2.5 removed np.row_stack (deprecated since 2.0): alias it only where it still exists.
_VSTACK_ALIASES = (np.vstack, jnp.row_stack) + ((np.row_stack,) if hasattr(np, "row_stack") else ())
_JOINED_PART = "jnp.reshape(concatenate_part(by, joined_like(tup, {how!r}), k, joined_axis(tup, {how!r})), jnp.shape(item))"
for _name, _fn, _aliases, _signature in (
        ("hstack", jnp.hstack, (np.hstack,), lambda tup, dtype=None: None),
        ("vstack", jnp.vstack, _VSTACK_ALIASES, lambda tup, dtype=None: None),
        ("dstack", jnp.dstack, (np.dstack,), lambda tup, dtype=None: None),
        ("column_stack", jnp.column_stack, (np.column_stack,), lambda tup: None)):
    _prim = primitive(_name, _fn, operands=("tup",), sequence_operand="tup", aliases=_aliases, signature=_signature)
    defjvp(_prim, f"dy = jnp.{_name}(dtup)")
    _prim.sequence_vjp = parse_expression(_JOINED_PART.format(how=_name))

_append = primitive("append", jnp.append, operands=("arr", "values"), aliases=(np.append,))
defvjp(_append, "barr += jnp.reshape(concatenate_part(by, joined_like([arr, values], 'append', axis), 0, "
                "joined_axis([arr, values], 'append', axis)), jnp.shape(arr))",
       "bvalues += jnp.reshape(concatenate_part(by, joined_like([arr, values], 'append', axis), 1, "
       "joined_axis([arr, values], 'append', axis)), jnp.shape(values))")
defjvp(_append, "dy = jnp.append(darr, zeros_like_shape(values, darr), axis) + jnp.append(zeros_like_shape(arr, dvalues), dvalues, axis)")

# Splitting: the result is a list; its adjoint (a list adjoint, items missing where nothing arrived) is
# joined back by `split_adjoint`; the tangent is the split of the tangent (`split_parts`).
for _name, _fn, _axis, _signature in (
        ("split", jnp.split, "axis", lambda ary, indices_or_sections, axis=0: None),
        ("array_split", jnp.array_split, "axis", lambda ary, indices_or_sections, axis=0: None),
        ("hsplit", jnp.hsplit, "0", lambda ary, indices_or_sections: None),
        ("vsplit", jnp.vsplit, "0", lambda ary, indices_or_sections: None),
        ("dsplit", jnp.dsplit, "0", lambda ary, indices_or_sections: None)):
    _prim = primitive(_name, _fn, operands=("ary",), aliases=(getattr(np, _name),), signature=_signature,
                      shape_params=("indices_or_sections",))
    _how = "split" if _axis == "axis" else _name
    defvjp(_prim, f"bary += split_adjoint(by, ary, indices_or_sections, {_axis}, {_how!r})")
    defjvp(_prim, f"dy = split_parts(dary, indices_or_sections, {_axis}, {_how!r})")
structural("split_parts", _sh.split_parts, "x", "bx += split_adjoint(by, x, indices_or_sections, axis, how)",
           "dy = split_parts(dx, indices_or_sections, axis, how)", shape_params=("indices_or_sections",))
structural("split_items", _sh.split_items, "x", "bx += split_adjoint(by, x, indices_or_sections, axis, how)",
           "dy = split_items(dx, indices_or_sections, axis, how)", shape_params=("indices_or_sections",))
structural("split_adjoint", _sh.split_adjoint, "g", "bg += split_items(by, indices_or_sections, axis, how)",
           "dy = split_adjoint(dg, ary, indices_or_sections, axis, how)", shape_params=("ary", "indices_or_sections"))
structural("unstack", jnp.unstack, "x", "bx += split_adjoint(by, x, 0, axis, 'unstack')", "dy = split_parts(dx, 0, axis, 'unstack')",
           aliases=(np.unstack,), signature=lambda x, axis=0: None)

# Generated code calls the helpers by their bare names (sorted_adjoint and sorted_tangent are composites).
for _name in ("sort", "argsort", "sort_order", "take_along_axis_adjoint"):     # astjax/runtime/numba_rearranging.py
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")
from .linalg import COMPOSITES  # noqa: E402
COMPOSITES.update({name: getattr(_sh, name) for name in dir(_sh) if not name.startswith("_")
                   and callable(getattr(_sh, name)) and getattr(getattr(_sh, name), "__module__", None) == _sh.__name__})
