"""Rules of astjax.lax's own primitives (lax's names that astjax.numpy already has share its primitives).

Names are prefixed `lax_` so they never clash with astjax.numpy's primitives.
Linear operations come in pairs, each the other's transpose (a slice and the
scatter into zeros, a window gather and its scatter-add), so every rule calls
only primitives and derivatives of derivatives work. The convolution's and
dot_general's adjoints are short functions written from primitives
(COMPOSITES), as JAX transposes them: contractions of the output's adjoint
with the other operand.
"""
import numpy as np

from .. import lax
from .. import numpy as jnp
from ..lax import internal
from .creation import cumprod_adjoint, cumprod_tangent
from .helpers import invert_permutation
from .linalg import COMPOSITES
from .nondifferentiable import BOOLEAN, INTEGER, NOTHING, PIECEWISE, SHAPES, nondifferentiable
from .registry import PRIMITIVES, defjvp, deflowering, defvjp, parse_expression, primitive



def rules(name, impl, operands, vjp, jvp, shape_params=(), **kwargs):
    """Register a primitive `name` computed by `impl` with one vjp rule per operand and jvp rules."""
    prim = primitive(name, impl, operands=operands, **kwargs)
    defvjp(prim, *((vjp,) if isinstance(vjp, str) else vjp))
    defjvp(prim, *((jvp,) if isinstance(jvp, str) else jvp))
    prim.shape_params = prim.shape_params | frozenset(shape_params)
    return prim


def elementwise(name, impl, operands, vjp, jvp, **kwargs):
    """An elementwise primitive. lax's binary operations take operands of one shape (astjax also lets them
    broadcast, the adjoints summed back), so only the unary ones are marked elementwise for vmap."""
    prim = rules(name, impl, operands, vjp, jvp, unbroadcast=len(operands) > 1, **kwargs)
    prim.elementwise = len(operands) == 1
    return prim


# ------------------------------------------------------------- elementwise
# stop_gradient passes its value and stops its derivative: rules that say the derivative is zero (`zero_like`
# is 0.0 for a container, so a pytree operand gets no adjoint either).
rules("lax_stop_gradient", lax.stop_gradient, ("x",), "bx += zero_like(x)", "dx -> zero_like(dx)")
# jit runs it as the value itself (jnp.piecewise's rewrite stops the derivative of the element it fills with)
deflowering(PRIMITIVES["lax_stop_gradient"], numba="astjax.runtime.numba_cpu:positive")
nondifferentiable("lax_round", lax.round, PIECEWISE)
# As lax: the operand's slope is 1 strictly inside (min, max); min's where it is above x (and below max);
# max's where it is below x.
elementwise("lax_clamp", lax.clamp, ("min", "x", "max"),
            ["bmin += by * jnp.logical_and(min > x, min < max)", "bx += by * jnp.logical_and(x > min, x < max)",
             "bmax += by * (max < x)"],
            ["dmin -> dmin * jnp.logical_and(min > x, min < max)", "dx -> dx * jnp.logical_and(x > min, x < max)",
             "dmax -> dmax * (max < x)"])
elementwise("lax_rsqrt", lax.rsqrt, ("x",), "bx += by * -0.5 * y / x", "dy = dx * -0.5 * y / x")
elementwise("lax_integer_pow", lax.integer_pow, ("x",),
            "bx += by * exponent * lax.integer_pow(x, lax.internal.lower_exponent(exponent))",
            "dy = dx * exponent * lax.integer_pow(x, lax.internal.lower_exponent(exponent))",
            signature=lambda x, exponent: None)
elementwise("lax_exp2", lax.exp2, ("x",), "bx += by * y * 0.6931471805599453", "dy = dx * y * 0.6931471805599453")
elementwise("lax_logistic", lax.logistic, ("x",), "bx += by * y * (1.0 - y)", "dy = dx * y * (1.0 - y)")
elementwise("lax_erf", lax.erf, ("x",), "bx += by * 1.1283791670955126 * jnp.exp(-(x * x))",
            "dy = dx * 1.1283791670955126 * jnp.exp(-(x * x))")
elementwise("lax_div", lax.div, ("x1", "x2"), ["bx1 += by / x2", "bx2 += -by * y / x2"],
            ["dx1 -> dx1 / x2", "dx2 -> -dx2 / x2 * y"], signature=lambda x1, x2: None)
elementwise("lax_rem", lax.rem, ("x1", "x2"), ["bx1 += by", "bx2 += -by * jnp.trunc(x1 / x2)"],
            ["dx1 -> dx1", "dx2 -> -dx2 * jnp.trunc(x1 / x2)"], signature=lambda x1, x2: None)
elementwise("lax_select", lax.select, ("on_true", "on_false"),
            ["bon_true += jnp.where(pred, by, 0.0)", "bon_false += jnp.where(pred, 0.0, by)"],
            "dy = jnp.where(pred, don_true, 0.0) + jnp.where(pred, 0.0, don_false)", broadcasts_with=("pred",))

# ------------------------------------------------------------------ shapes
rules("lax_broadcast_in_dim", lax.broadcast_in_dim, ("operand",),
      "boperand += lax.internal.broadcast_in_dim_adjoint(by, jnp.shape(operand), broadcast_dimensions)",
      "dy = lax.broadcast_in_dim(doperand, shape, broadcast_dimensions)")
rules("lax_broadcast_in_dim_adjoint", internal.broadcast_in_dim_adjoint, ("g",),
      "bg += lax.broadcast_in_dim(by, jnp.shape(g), broadcast_dimensions)",
      "dy = lax.internal.broadcast_in_dim_adjoint(dg, operand_shape, broadcast_dimensions)",
      shape_params=("operand_shape",))
rules("lax_reshape", lax.reshape, ("operand",),
      "boperand += lax.internal.reshape_adjoint(by, jnp.shape(operand), dimensions)",
      "dy = lax.reshape(doperand, new_sizes, dimensions)")
rules("lax_reshape_adjoint", internal.reshape_adjoint, ("g",),
      "bg += lax.reshape(by, jnp.shape(g), dimensions)",
      "dy = lax.internal.reshape_adjoint(dg, operand_shape, dimensions)", shape_params=("operand_shape",))
rules("lax_squeeze", lax.squeeze, ("array",), "barray += jnp.reshape(by, jnp.shape(array))",
      "dy = lax.squeeze(darray, dimensions)")
rules("lax_expand_dims", lax.expand_dims, ("array",), "barray += jnp.reshape(by, jnp.shape(array))",
      "dy = lax.expand_dims(darray, dimensions)")
rules("lax_transpose", lax.transpose, ("operand",),
      "boperand += lax.transpose(by, invert_permutation(permutation))", "dy = lax.transpose(doperand, permutation)")
rules("lax_rev", lax.rev, ("operand",), "boperand += lax.rev(by, dimensions)", "dy = lax.rev(doperand, dimensions)")
rules("lax_pad", lax.pad, ("operand", "padding_value"),
      ["boperand += lax.internal.pad_operand_adjoint(by, jnp.shape(operand), padding_config)",
       "bpadding_value += jnp.sum(by) - jnp.sum(lax.internal.pad_operand_adjoint(by, jnp.shape(operand), "
       "padding_config))"],
      ["doperand -> lax.pad(doperand, 0.0, padding_config)",
       "dpadding_value -> lax.pad(jnp.zeros_like(operand), dpadding_value, padding_config)"])
rules("lax_pad_operand_adjoint", internal.pad_operand_adjoint, ("g",), "bg += lax.pad(by, 0.0, padding_config)",
      "dy = lax.internal.pad_operand_adjoint(dg, operand_shape, padding_config)", shape_params=("operand_shape",))
_concatenate = primitive("lax_concatenate", lax.concatenate, operands=("operands",), sequence_operand="operands")
defvjp(_concatenate, "boperands += concatenate_adjoint(by, operands, dimension)")
defjvp(_concatenate, "dy = lax.concatenate(doperands, dimension)")
_concatenate.sequence_vjp = parse_expression("concatenate_part(by, operands, k, dimension)")

# ----------------------------------------------------------------- slicing
rules("lax_slice", lax.slice, ("operand",),
      "boperand += index_adjoint(operand, lax.internal.static_index(jnp.ndim(operand), start_indices, "
      "limit_indices, strides), by)",
      "dy = lax.slice(doperand, start_indices, limit_indices, strides)")
rules("lax_slice_in_dim", lax.slice_in_dim, ("operand",),
      "boperand += index_adjoint(operand, lax.internal.in_dim_index(jnp.ndim(operand), start_index, limit_index, "
      "stride, axis), by)",
      "dy = lax.slice_in_dim(doperand, start_index, limit_index, stride, axis)")
rules("lax_index_in_dim", lax.index_in_dim, ("operand",),
      "boperand += index_adjoint(operand, lax.internal.index_in_dim_index(jnp.shape(operand), index, axis, keepdims), "
      "by)",
      "dy = lax.index_in_dim(doperand, index, axis, keepdims)")
rules("lax_dynamic_update_slice", lax.dynamic_update_slice, ("operand", "update"),
      ["boperand += lax.dynamic_update_slice(by, jnp.zeros_like(update), start_indices)",
       "bupdate += lax.dynamic_slice(by, start_indices, jnp.shape(update))"],
      ["doperand -> lax.dynamic_update_slice(doperand, jnp.zeros_like(update), start_indices)",
       "dupdate -> lax.dynamic_update_slice(jnp.zeros_like(operand), dupdate, start_indices)"])
_IN_DIM_STARTS = "lax.internal.in_dim_starts(jnp.ndim(operand), {}, axis)"
rules("lax_dynamic_slice_in_dim", lax.dynamic_slice_in_dim, ("operand",),
      f"boperand += dynamic_slice_adjoint(by, operand, {_IN_DIM_STARTS.format('start_index')})",
      "dy = lax.dynamic_slice_in_dim(doperand, start_index, slice_size, axis)")
rules("lax_dynamic_update_slice_in_dim", lax.dynamic_update_slice_in_dim, ("operand", "update"),
      ["boperand += lax.dynamic_update_slice_in_dim(by, jnp.zeros_like(update), start_index, axis)",
       f"bupdate += lax.dynamic_slice(by, {_IN_DIM_STARTS.format('start_index')}, jnp.shape(update))"],
      ["doperand -> lax.dynamic_update_slice_in_dim(doperand, jnp.zeros_like(update), start_index, axis)",
       "dupdate -> lax.dynamic_update_slice_in_dim(jnp.zeros_like(operand), dupdate, start_index, axis)"])
rules("lax_dynamic_index_in_dim", lax.dynamic_index_in_dim, ("operand",),
      "boperand += dynamic_slice_adjoint(jnp.reshape(by, lax.internal.kept_dim_shape(jnp.shape(operand), axis)), "
      f"operand, {_IN_DIM_STARTS.format('index')})",
      "dy = lax.dynamic_index_in_dim(doperand, index, axis, keepdims)")

# The check normalization puts before the loops of lax.scan and lax.map: an identity on one array.
rules("lax_leading_axis_array", internal.leading_axis_array, ("xs",), "bxs += by", "dy = dxs")
# ... and on each step's ys item when ys is bound to one name: an identity on one array.
rules("lax_scan_step_output", internal.scan_step_output, ("value",), "bvalue += by", "dy = dvalue")
# Under jit both are the identity on one array (`positive` declines a tuple, so jit refuses one as the
# reference backend does).
for _name in ("lax_leading_axis_array", "lax_scan_step_output"):
    deflowering(PRIMITIVES[_name], numba="astjax.runtime.numba_cpu:positive")
# ... and after each step on the carry: its type must stay the initial carry's (JAX's TypeError otherwise).
nondifferentiable("lax_scan_carry_check", internal.scan_carry_check, NOTHING, guard=True,
                  effect="checks that a lax.scan's carry keeps its type")
deflowering(PRIMITIVES["lax_scan_carry_check"], numba="astjax.runtime.numba_cpu:scan_carry_check")

# ------------------------------------------------------------ dot_general
rules("lax_dot_general", lax.dot_general, ("lhs", "rhs"),
      ["blhs += lax.transpose(lax.dot_general(by, rhs, lax.internal.dot_general_transpose(jnp.ndim(lhs), "
       "jnp.ndim(rhs), dimension_numbers, 0)[0]), lax.internal.dot_general_transpose(jnp.ndim(lhs), jnp.ndim(rhs), "
       "dimension_numbers, 0)[1])",
       "brhs += lax.transpose(lax.dot_general(by, lhs, lax.internal.dot_general_transpose(jnp.ndim(lhs), "
       "jnp.ndim(rhs), dimension_numbers, 1)[0]), lax.internal.dot_general_transpose(jnp.ndim(lhs), jnp.ndim(rhs), "
       "dimension_numbers, 1)[1])"],
      "dy = lax.dot_general(dlhs, rhs, dimension_numbers) + lax.dot_general(lhs, drhs, dimension_numbers)")


# ------------------------------------------------------------ convolutions
def lax_conv_lhs_adjoint(g, lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers):
    """The adjoint of a convolution's input: the output's adjoint through the kernel, scattered back to the
    windows it came from (written from primitives so that it can be differentiated again)."""
    layout = lax.internal.conv_layout(jnp.ndim(lhs), dimension_numbers)
    kernel = lax.transpose(rhs, layout[1])
    grad_out = lax.transpose(g, lax.internal.inverse_permutation(layout[2]))
    rows = lax.reshape(grad_out, lax.internal.rows_shape(grad_out))
    weights = lax.reshape(kernel, lax.internal.rows_shape(kernel))
    patch_grad = lax.transpose(lax.dot_general(rows, weights, (((1,), (0,)), ((), ()))), (0, 2, 1, 3))
    lhs_shape = lax.internal.permuted_shape(lhs, layout[0])
    lhs_grad = lax.internal.window_patches_adjoint(patch_grad, lhs_shape, lax.internal.spatial_shape(kernel),
                                                   window_strides, padding, lhs_dilation, rhs_dilation)
    return lax.transpose(lhs_grad, lax.internal.inverse_permutation(layout[0]))


def lax_conv_rhs_adjoint(g, lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers):
    """The adjoint of a convolution's kernel: the output's adjoint contracted with the input windows."""
    layout = lax.internal.conv_layout(jnp.ndim(lhs), dimension_numbers)
    inputs = lax.transpose(lhs, layout[0])
    grad_out = lax.transpose(g, lax.internal.inverse_permutation(layout[2]))
    kernel_shape = lax.internal.permuted_shape(rhs, layout[1])
    kernel = lax.transpose(rhs, layout[1])
    patches = lax.internal.window_patches(inputs, lax.internal.spatial_shape(kernel), window_strides, padding,
                                          lhs_dilation, rhs_dilation, 0.0)
    rows = lax.reshape(grad_out, lax.internal.rows_shape(grad_out))
    kernel_grad = lax.reshape(lax.dot_general(rows, patches, (((0, 2), (0, 2)), ((), ()))), kernel_shape)
    return lax.transpose(kernel_grad, lax.internal.inverse_permutation(layout[1]))


COMPOSITES.update({f.__name__: f for f in (lax_conv_lhs_adjoint, lax_conv_rhs_adjoint)})
_CONV = "window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers"
rules("lax_conv_general_dilated", lax.conv_general_dilated, ("lhs", "rhs"),
      [f"blhs += lax_conv_lhs_adjoint(by, lhs, rhs, {_CONV})", f"brhs += lax_conv_rhs_adjoint(by, lhs, rhs, {_CONV})"],
      [f"dlhs -> lax.conv_general_dilated(dlhs, rhs, {_CONV}, feature_group_count, batch_group_count)",
       f"drhs -> lax.conv_general_dilated(lhs, drhs, {_CONV}, feature_group_count, batch_group_count)"])
rules("lax_conv", lax.conv, ("lhs", "rhs"),
      ["blhs += lax_conv_lhs_adjoint(by, lhs, rhs, window_strides, padding, None, None, None)",
       "brhs += lax_conv_rhs_adjoint(by, lhs, rhs, window_strides, padding, None, None, None)"],
      ["dlhs -> lax.conv(dlhs, rhs, window_strides, padding)", "drhs -> lax.conv(lhs, drhs, window_strides, padding)"])
_WINDOW = "window, strides, padding, base_dilation, window_dilation"
rules("lax_window_patches", internal.window_patches, ("x",),
      f"bx += lax.internal.window_patches_adjoint(by, jnp.shape(x), {_WINDOW})",
      f"dy = lax.internal.window_patches(dx, {_WINDOW}, 0.0)")
rules("lax_window_patches_adjoint", internal.window_patches_adjoint, ("g",),
      f"bg += lax.internal.window_patches(by, {_WINDOW}, 0.0)",
      f"dy = lax.internal.window_patches_adjoint(dg, x_shape, {_WINDOW})", shape_params=("x_shape",))

# ----------------------------------------------------------- reduce_window
_REDUCE = "window_dimensions, window_strides, padding, base_dilation, window_dilation"
_HITS = f"lax.internal.window_hits(operand, y, init_value, computation, {_REDUCE})"
# A max (min) sends its derivative to the window elements that attain it, shared equally among ties.
_WEIGHTS = f"({_HITS} / lax.internal.window_ties(operand, y, init_value, computation, {_REDUCE}))"
rules("lax_reduce_window", lax.reduce_window, ("operand",),
      f"boperand += lax.internal.window_patches_adjoint(jnp.reshape(by, (-1, 1)) * {_WEIGHTS}, jnp.shape(operand), "
      f"{_REDUCE})",
      f"dy = jnp.reshape(jnp.sum(lax.internal.window_patches(doperand, {_REDUCE}, 0.0) * {_WEIGHTS}, -1), "
      "jnp.shape(y))")


# ----------------------------------------------------- scans and sorts
def lax_cumprod_adjoint(g, operand, axis, reverse):
    """The adjoint of lax.cumprod's operand (exact where elements are zero): cumprod_adjoint, reversed if need be."""
    if reverse:
        flipped = cumprod_adjoint(lax.rev(g, (axis,)), lax.rev(operand, (axis,)), axis)
        return lax.rev(flipped, (axis,))
    return cumprod_adjoint(g, operand, axis)


def lax_cumprod_tangent(t, operand, axis, reverse):
    """The tangent of lax.cumprod for a tangent `t` of its operand."""
    if reverse:
        flipped = cumprod_tangent(lax.rev(t, (axis,)), lax.rev(operand, (axis,)), axis)
        return lax.rev(flipped, (axis,))
    return cumprod_tangent(t, operand, axis)


COMPOSITES.update({f.__name__: f for f in (lax_cumprod_adjoint, lax_cumprod_tangent)})
rules("lax_cumsum", lax.cumsum, ("operand",), "boperand += lax.cumsum(by, axis, lax.internal.opposite(reverse))",
      "dy = lax.cumsum(doperand, axis, reverse)")
rules("lax_cumprod", lax.cumprod, ("operand",), "boperand += lax_cumprod_adjoint(by, operand, axis, reverse)",
      "dy = lax_cumprod_tangent(doperand, operand, axis, reverse)")
# A running max/min's derivative flows to the element it holds (refused at a tie: see cumulative_argext).
for _name, _largest in (("cummax", True), ("cummin", False)):
    _arg = f"lax.internal.cumulative_argext(operand, axis, reverse, {_largest})"
    rules(f"lax_{_name}", getattr(lax, _name), ("operand",),
          f"boperand += lax.internal.scatter_along(by, {_arg}, axis, jnp.shape(operand))",
          f"dy = lax.internal.gather_along(doperand, {_arg}, axis)")


def _accumulate_as_numpy(running, ufunc_name):
    """`np.maximum.accumulate(array, axis=0)` (NumPy's spelling of a running max/min) as astjax computes it."""
    def accumulate(array, axis=0, dtype=None, out=None):
        if dtype is not None or out is not None:
            raise NotImplementedError(f"np.{ufunc_name}.accumulate with dtype= or out= is not supported by astjax")
        return running(array, axis)
    accumulate.__name__ = f"{ufunc_name}_accumulate"
    accumulate.__doc__ = f"np.{ufunc_name}.accumulate: running {ufunc_name} values along `axis`."
    return accumulate


for _ufunc, _name, _largest in ((np.maximum, "maximum", True), (np.minimum, "minimum", False)):
    _arg = f"lax.internal.cumulative_argext(array, axis, False, {_largest})"
    rules(f"{_name}_accumulate", _accumulate_as_numpy(getattr(lax, "cummax" if _largest else "cummin"), _name),
          ("array",), f"barray += lax.internal.scatter_along(by, {_arg}, axis, jnp.shape(array))",
          f"dy = lax.internal.gather_along(darray, {_arg}, axis)", aliases=(_ufunc.accumulate,))
# A sort's derivative follows its (stable) permutation; a tuple's, the permutation of its first num_keys
# (lax_sort_adjoint / lax_sort_tangent: astjax/rules/lax_reduce_sort.py).
rules("lax_sort", lax.sort, ("operand",), "boperand += lax_sort_adjoint(by, operand, dimension, num_keys)",
      "dy = lax_sort_tangent(doperand, operand, y, dimension, num_keys)")
rules("lax_gather_along", internal.gather_along, ("t",),
      "bt += lax.internal.scatter_along(by, indices, axis, jnp.shape(t))",
      "dy = lax.internal.gather_along(dt, indices, axis)")
rules("lax_scatter_along", internal.scatter_along, ("g",), "bg += lax.internal.gather_along(by, indices, axis)",
      "dy = lax.internal.scatter_along(dg, indices, axis, shape)")

# ----------------------------------------------- helpers that read only shapes, orders or flags
for _helper, _reason in (
        ("in_dim_starts", INTEGER), ("static_index", INTEGER), ("in_dim_index", INTEGER),
        ("index_in_dim_index", INTEGER), ("kept_dim_shape", SHAPES), ("lower_exponent", INTEGER),
        ("opposite", BOOLEAN), ("permuted_shape", SHAPES), ("inverse_permutation", INTEGER), ("spatial_shape", SHAPES),
        ("rows_shape", SHAPES), ("conv_layout", SHAPES), ("dot_general_transpose", SHAPES),
        ("cumulative_argext", INTEGER), ("top_k_indices", INTEGER), ("reduction_kind", INTEGER),
        ("window_hits", INTEGER), ("window_ties", INTEGER)):
    nondifferentiable(f"lax_{_helper}", getattr(internal, _helper), _reason)

# Running extrema and what their derivatives call compile under jit (runtime/numba_running.py).
for _name in ("lax_cummax", "lax_cummin", "maximum_accumulate", "minimum_accumulate", "lax_cumulative_argext",
              "lax_scatter_along", "lax_gather_along"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")

# lax's own names for what astjax.numpy already computes need no entry: they are the same functions.
__all__ = ["rules", "elementwise"]
