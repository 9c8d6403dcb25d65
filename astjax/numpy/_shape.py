"""Shape manipulation: reshape, concatenate, pad, ... returning Arrays.

Results are views where NumPy's are (Arrays are immutable, so sharing memory
is safe). Joining functions promote their inputs on JAX's lattice
(`concatenate([int32, float32])` is float32). Errors name the shapes
involved and what would work instead.
"""
import numpy as np

from ._promote import (
    _concrete,
    arg as _arg,
    dtype_arg as _dtype_arg,
    key_of as _key_of,
    lub_of as _lub_of,
    nd as _nd,
    out as _out,
    promote_all as _promote_all,
)


def shape(a):
    """The shape of `a` as a tuple of Python ints."""
    return np.shape(a)


def ndim(a):
    """The number of dimensions of `a` (a Python int)."""
    return np.ndim(a)


def size(a, axis=None):
    """The number of elements of `a`, or its length along `axis` (a Python int)."""
    return np.size(a, axis)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """NumPy's reshape (`newshape=` is accepted as an old alias of `shape`)."""
    if newshape is not None:
        if shape is not None:
            raise TypeError("reshape: pass the new shape once, as shape= (not also newshape=).")
        shape = newshape
    if shape is None:
        raise TypeError("reshape: missing the new shape, e.g. reshape(a, (2, 3)).")
    a = _arg(a)
    try:
        return _out(a.reshape(shape, order=order))
    except ValueError as e:
        raise ValueError(
            f"reshape: cannot reshape an array of shape {a.shape} ({a.size} elements) "
            f"into shape {shape!r}: the number of elements must stay the same; use -1 "
            f"for one dimension to have it inferred from the others."
        ) from e


def ravel(a, order="C"):
    """`a` flattened to one dimension."""
    return _out(_arg(a).ravel(order))


def transpose(a, axes=None):
    """NumPy's transpose: axes reversed, or permuted as `axes` says."""
    return _out(_arg(a).transpose(axes))


def swapaxes(a, axis1, axis2):
    """NumPy's swapaxes."""
    return _out(_arg(a).swapaxes(axis1, axis2))


def moveaxis(a, source, destination):
    """NumPy's moveaxis."""
    return _out(np.moveaxis(_nd(a), source, destination))


def expand_dims(a, axis):
    """NumPy's expand_dims (`axis` may be a tuple)."""
    return _out(np.expand_dims(_nd(a), axis))


def squeeze(a, axis=None):
    """NumPy's squeeze: drop length-1 axes (all of them, or those in `axis`)."""
    a = _arg(a)
    try:
        return _out(a.squeeze(axis))
    except ValueError as e:
        raise ValueError(
            f"squeeze: cannot squeeze axis {axis!r} of an array of shape {a.shape}: only "
            f"axes of length 1 can be removed (use reshape to change other axes)."
        ) from e


def broadcast_to(array, shape):
    """NumPy's broadcast_to (a read-only view)."""
    array = _nd(array)
    try:
        return _out(np.broadcast_to(array, shape))
    except ValueError as e:
        raise ValueError(
            f"broadcast_to: cannot broadcast an array of shape {array.shape} to shape "
            f"{shape!r}: each dimension must be equal or 1 in the input, aligned from "
            f"the right."
        ) from e


def _join(numpy_fn, name, arrays, axis, dtype, same_shape):
    if isinstance(arrays, np.ndarray):
        arrays = list(arrays)
    arrays = list(arrays)
    if any(type(x) in (int, float, complex) for x in arrays):
        # a Python number among arrays is weak, as in JAX: it takes the arrays' dtype (`stack([x64, 0.1])` is
        # float64 with 0.1 exact), rather than becoming a float32 array first
        target = _concrete(_lub_of([_key_of(x) for x in arrays]))
        arrays = [_nd(x).astype(target, copy=False) if type(x) not in (int, float, complex)
                  else np.asarray(x, dtype=target) for x in arrays]
    arrays = _promote_all(_nd(x) for x in arrays)
    if not arrays:
        raise ValueError(f"{name}: need at least one array to join, got an empty sequence.")
    if any(x.dtype == object for x in arrays):
        # a dict, a gradient tree or any other object joined as one "entry" would be an object array, which no
        # astjax operation computes with correctly (JAX has no such arrays): refused, not joined
        odd = next(type(x.flat[0]).__name__ if x.size else "object" for x in arrays if x.dtype == object)
        raise TypeError(f"{name}: the items must be arrays or numbers, got a {odd}; join the arrays a pytree holds "
                        f"leaf by leaf (astjax.tree_util.tree_map(lambda *xs: jnp.{name}(xs), *trees)).")
    if dtype is not None:
        dtype = _dtype_arg(dtype)
        arrays = [x.astype(dtype, copy=False) for x in arrays]
    try:
        return _out(numpy_fn(arrays) if axis is None else numpy_fn(arrays, axis=axis))
    except ValueError as e:
        shapes = ", ".join(str(x.shape) for x in arrays)
        rule = ("all arrays must have the same shape" if same_shape else
                f"all arrays need the same number of dimensions and the same size in "
                f"every dimension except axis {axis}")
        message = (f"{name}: cannot join arrays of shapes [{shapes}]{'' if axis is None else f' along axis {axis}'}: "
                   f"{rule} (NumPy says: {e}).")
        if same_shape:
            from ..errors import RuntimeRefusal      # a ValueError too, as JAX raises
            raise RuntimeRefusal(message + " Under vmap, a statement astjax computes example by example gave the "
                                 "examples results of different shapes (a boolean mask, or nonzero, selects a "
                                 "different number of elements in each; a size read from a batched value, as "
                                 "jnp.arange(n) or jnp.zeros(n), asks for a different length), which no batched "
                                 "array holds: vmap refuses it, as JAX does. Instead: keep the shape fixed "
                                 "(jnp.where(mask, x, 0.0) rather than x[mask]; a size from an unbatched argument "
                                 "or a shape).") from e
        raise ValueError(message) from e


def concatenate(arrays, axis=0, dtype=None):
    """NumPy's concatenate with JAX's type promotion."""
    if axis is None:
        return _join(np.concatenate, "concatenate", [_nd(x).ravel() for x in arrays], 0,
                     dtype, False)
    return _join(np.concatenate, "concatenate", arrays, axis, dtype, False)


def stack(arrays, axis=0, dtype=None):
    """NumPy's stack with JAX's type promotion."""
    return _join(np.stack, "stack", arrays, axis, dtype, True)


def hstack(tup, dtype=None):
    """NumPy's hstack with JAX's type promotion."""
    return _join(np.hstack, "hstack", tup, None, dtype, False)


def vstack(tup, dtype=None):
    """NumPy's vstack with JAX's type promotion."""
    return _join(np.vstack, "vstack", tup, None, dtype, False)


def split(ary, indices_or_sections, axis=0):
    """NumPy's split, as a list of Arrays."""
    return [_out(x) for x in np.split(_nd(ary), indices_or_sections, axis)]


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty")


def pad(array, pad_width, mode="constant", **kwargs):
    """NumPy's pad; mode "constant" (with constant_values), "edge", or NumPy's others."""
    if not callable(mode) and mode not in _PAD_MODES:
        raise ValueError(f"pad: unsupported mode {mode!r}; use one of "
                         f"{', '.join(map(repr, _PAD_MODES))} or a callable.")
    array = _nd(array)
    if mode == "empty":
        mode = "constant"  # deterministic, as JAX (it fills with zeros)
    try:
        return _out(np.pad(array, pad_width, mode=mode, **kwargs))
    except (ValueError, TypeError) as e:
        raise (TypeError if isinstance(e, TypeError) else ValueError)(
            f"pad: cannot pad an array of shape {array.shape} with pad_width={pad_width!r}, "
            f"mode={mode!r}, {kwargs or 'no keyword arguments'}: {e}. pad_width is an int, "
            f"a (before, after) pair, or one pair per axis; only mode='constant' takes "
            f"constant_values."
        ) from e


def tile(A, reps):
    """NumPy's tile."""
    return _out(np.tile(_nd(A), reps))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """NumPy's repeat; `total_repeat_length` truncates, or repeats the last value."""
    a = _nd(a)
    result = np.repeat(a, _nd(repeats) if isinstance(repeats, np.ndarray) else repeats, axis)
    if total_repeat_length is not None:
        ax = 0 if axis is None else axis
        n = result.shape[ax]
        if n > total_repeat_length:
            result = np.take(result, np.arange(total_repeat_length), axis=ax)
        elif n < total_repeat_length:
            pad_width = [(0, 0)] * result.ndim
            pad_width[ax] = (0, total_repeat_length - n)
            result = np.pad(result, pad_width, mode="edge")
    return _out(result)


def flip(m, axis=None):
    """NumPy's flip (a view)."""
    return _out(np.flip(_nd(m), axis))


def roll(a, shift, axis=None):
    """NumPy's roll."""
    return _out(np.roll(_nd(a), shift, axis))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's diagonal (a new array, not a read-only view)."""
    return _out(np.diagonal(_nd(a), offset, axis1, axis2).copy())


# --------------------------------------------------------- more joining and splitting
def column_stack(tup):
    """NumPy's column_stack (1-d inputs become columns) with JAX's type promotion."""
    return _join(np.column_stack, "column_stack", tup, None, None, False)


def dstack(tup, dtype=None):
    """NumPy's dstack (join along a third axis) with JAX's type promotion."""
    return _join(np.dstack, "dstack", tup, None, dtype, False)


def row_stack(tup, dtype=None):
    """The old name of vstack."""
    return vstack(tup, dtype)


def concat(arrays, /, *, axis=0):
    """The Array API name of concatenate."""
    return concatenate(arrays, axis)


def append(arr, values, axis=None):
    """NumPy's append: `values` joined after `arr` (both flattened when axis is None)."""
    arr, values = _promote_all([_nd(arr), _nd(values)])
    if axis is None:
        return _out(np.concatenate([arr.ravel(), values.ravel()]))
    return _out(np.concatenate([arr, values], axis=axis))


def block(arrays):
    """NumPy's block: nested lists of arrays assembled (not differentiable: refused under a derivative)."""
    def leaves(x):
        return [y for item in x for y in leaves(item)] if isinstance(x, list) else [x]

    dtype = _promote_all(_nd(x) for x in leaves(arrays))[0].dtype if leaves(arrays) else None

    def cast(x):
        return [cast(item) for item in x] if isinstance(x, list) else _nd(x).astype(dtype, copy=False)

    return _out(np.block(cast(arrays)))


def block_flat(arrays, layout):
    """np.block of the nested lists `layout` describes, leaf j being arrays[j] (`block([[a, b], [c, d]])` is
    `block_flat([a, b, c, d], ((0, 1), (2, 3)))`): the form astjax's normalization writes a literal block in."""
    return block(_nested(list(arrays), layout))


def _nested(leaves, layout):
    return [_nested(leaves, item) for item in layout] if isinstance(layout, (tuple, list)) else leaves[layout]


def array_split(ary, indices_or_sections, axis=0):
    """NumPy's array_split (unequal parts allowed), as a list of Arrays."""
    return [_out(x) for x in np.array_split(_nd(ary), indices_or_sections, axis)]


def hsplit(ary, indices_or_sections):
    """NumPy's hsplit, as a list of Arrays."""
    return [_out(x) for x in np.hsplit(_nd(ary), indices_or_sections)]


def vsplit(ary, indices_or_sections):
    """NumPy's vsplit, as a list of Arrays."""
    return [_out(x) for x in np.vsplit(_nd(ary), indices_or_sections)]


def dsplit(ary, indices_or_sections):
    """NumPy's dsplit, as a list of Arrays."""
    return [_out(x) for x in np.dsplit(_nd(ary), indices_or_sections)]


def unstack(x, /, *, axis=0):
    """The slices of `x` along `axis`, as a tuple of Arrays (the inverse of stack)."""
    return tuple(_out(np.take(_nd(x), i, axis=axis)) for i in range(np.shape(x)[axis]))


def _atleast(numpy_fn, arys):
    results = [_out(numpy_fn(_nd(a))) for a in arys]
    return results[0] if len(results) == 1 else results


def atleast_1d(*arys):
    """NumPy's atleast_1d: one Array for one input, else a list."""
    return _atleast(np.atleast_1d, arys)


def atleast_2d(*arys):
    """NumPy's atleast_2d: one Array for one input, else a list."""
    return _atleast(np.atleast_2d, arys)


def atleast_3d(*arys):
    """NumPy's atleast_3d: one Array for one input, else a list."""
    return _atleast(np.atleast_3d, arys)


def broadcast_arrays(*args):
    """NumPy's broadcast_arrays, as a list of Arrays (copies: Arrays are immutable anyway)."""
    return [_out(np.array(x)) for x in np.broadcast_arrays(*(_nd(a) for a in args))]


# --------------------------------------------------------- rearranging
def fliplr(m):
    """NumPy's fliplr: columns in reverse order."""
    return _out(np.fliplr(_nd(m)))


def flipud(m):
    """NumPy's flipud: rows in reverse order."""
    return _out(np.flipud(_nd(m)))


def rot90(m, k=1, axes=(0, 1)):
    """NumPy's rot90: `m` turned k quarter turns in the plane of `axes`."""
    return _out(np.rot90(_nd(m), k, axes))


def rollaxis(a, axis, start=0):
    """NumPy's rollaxis (prefer moveaxis)."""
    return _out(np.rollaxis(_nd(a), axis, start))


def permute_dims(a, /, axes=None):
    """The Array API name of transpose."""
    return transpose(a, axes)


def matrix_transpose(x, /):
    """The last two axes swapped (a stack of matrices transposed)."""
    x = _nd(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: needs an array of at least 2 dimensions, got shape {x.shape}.")
    return _out(np.swapaxes(x, -1, -2))


def resize(a, new_shape):
    """NumPy's resize: `a`'s elements repeated cyclically to fill `new_shape`."""
    return _out(np.resize(_nd(a), new_shape))


def delete(arr, obj, axis=None):
    """NumPy's delete: `arr` without the entries `obj` (flattened when axis is None)."""
    return _out(np.delete(_nd(arr), _nd(obj) if not isinstance(obj, (int, slice)) else obj, axis))


def insert(arr, obj, values, axis=None):
    """NumPy's insert with JAX's type promotion (not differentiable: refused under a derivative)."""
    arr, values = _promote_all([_nd(arr), _nd(values)])
    return _out(np.insert(arr, obj, values, axis))


def trim_zeros(filt, trim="fb"):
    """NumPy's trim_zeros (its result's shape depends on values: refused under a derivative)."""
    return _out(np.trim_zeros(_nd(filt), trim))
