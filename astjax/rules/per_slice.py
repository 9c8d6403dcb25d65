"""Shape helpers of the per-slice rewriting of apply_along_axis and piecewise
(frontend/normalize/per_slice_calls.py): they read shapes only, so they carry no derivative."""
import numpy as np

from .. import numpy as jnp
from .nondifferentiable import SHAPES, no_derivative, nondifferentiable

__all__ = ["along_axis_shape", "along_axis_sources", "along_axis_destinations", "piecewise_dtype",
           "piecewise_pieces_dtype"]


def along_axis_shape(arr, axis, rows_result):
    """The shape of apply_along_axis's result before its axes move: the slices' positions (arr's shape
    without `axis`) then the shape of one slice's result."""
    shape = list(np.shape(arr))
    del shape[int(axis) % len(shape)]
    return tuple(shape) + tuple(np.shape(rows_result)[1:])


def along_axis_sources(arr, rows_result):
    """The axes of one slice's result in that shape (they follow the slices' positions)."""
    lead = np.ndim(arr) - 1
    return list(range(lead, lead + np.ndim(rows_result) - 1))


def along_axis_destinations(arr, axis, rows_result):
    """Where they go: starting at `axis`, as NumPy's and JAX's apply_along_axis place them."""
    axis = int(axis) % np.ndim(arr)
    return list(range(axis, axis + np.ndim(rows_result) - 1))


def piecewise_dtype(x):
    """piecewise's result dtype: x's, float32 for integers and booleans (astjax.numpy.piecewise's)."""
    dtype = np.asarray(x).dtype if not hasattr(x, "dtype") else np.dtype(x.dtype)
    return np.dtype(np.float32) if dtype.kind in "biu" else dtype


def piecewise_pieces_dtype(x):
    """The dtype each piece's values are cast to before they are written: x's, as NumPy and JAX write them
    into an array of x's dtype (an integer x truncates a piece's 0.5 to 0, a boolean x makes 1.5 True),
    before astjax's result takes piecewise_dtype."""
    return np.asarray(x).dtype if not hasattr(x, "dtype") else np.dtype(x.dtype)


for _helper in (along_axis_shape, along_axis_sources, along_axis_destinations, piecewise_dtype,
                piecewise_pieces_dtype):
    nondifferentiable(_helper.__name__, _helper, SHAPES)


def along_axis_result(rows_result, arr, axis):
    """apply_along_axis's result from the stacked results of its rows: back to the slices' positions,
    one slice's result axes at `axis`. Plain astjax code (reshape, moveaxis): the transformations read it
    as a callee, so derivatives pass through it."""
    reshaped = jnp.reshape(rows_result, along_axis_shape(arr, axis, rows_result))
    return jnp.moveaxis(reshaped, along_axis_sources(arr, rows_result), along_axis_destinations(arr, axis, rows_result))


# The calls frontend/normalize/per_slice_calls.py cannot rewrite stay refused where a derivative reaches them:
no_derivative("astjax differentiates it by rewriting the call, which needs the function known when transforming "
              "(defined at module level, not a lambda or a local function), the axis a constant, the array a "
              "name and no keyword arguments for the function",
              "write it that way (`jnp.apply_along_axis(g, 1, x, w)` with g defined at module level), or use "
              "astjax.vmap over the slices", jnp.apply_along_axis)
no_derivative("astjax differentiates it by rewriting the call, which needs literal lists of conditions (names or "
              "comparisons of names and constants, not Python bools) and of pieces (functions defined at module level, or numbers), "
              "the array a name and no keyword arguments for the functions",
              "write it that way (`jnp.piecewise(x, [x < 0], [g, 0.0])`), or use jnp.where", jnp.piecewise)
