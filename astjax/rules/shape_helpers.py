"""The helpers that the shape and stacking rules (rules/structural.py) call.

Linear ones (`take_along_axis_adjoint`, `split_adjoint`, ...) are primitives
with rules of their own; `sorted_tangent` / `sorted_adjoint` are composites
(astjax code over primitives, transformed like user code when differentiated
again); the others compute only shapes, axes or index sets and are declared
non-differentiable. Each works on plain NumPy values and returns Arrays.
"""
import numpy as np

from .. import numpy as jnp
from ..array import wrap
from .helpers import TreeAdjoint

_PROMOTE = {"hstack": np.atleast_1d, "vstack": np.atleast_2d, "dstack": np.atleast_3d}


def _float_dtype(g):
    return np.result_type(g, np.float32)


# ------------------------------------------------------------ shapes, axes and index sets (no derivative)
def joined_like(arrays, how, axis=None):
    """Stand-ins (zeros, shape only) for the inputs of `how` (hstack, ...) as it reshaped them before joining."""
    if how == "append":
        return [np.zeros(np.shape(a) if axis is not None else (np.size(a),)) for a in arrays]
    if how == "column_stack":
        return [np.zeros((np.size(a), 1) if np.ndim(a) < 2 else np.shape(a)) for a in arrays]
    return [np.zeros(_PROMOTE[how](np.zeros(np.shape(a))).shape) for a in arrays]


def joined_axis(arrays, how, axis=None):
    """The axis along which `how` joins its (reshaped) inputs."""
    if how == "append":
        return 0 if axis is None else axis
    if how == "hstack":
        return 0 if np.ndim(arrays[0]) <= 1 else 1
    return {"vstack": 0, "dstack": 2, "column_stack": 1}[how]


def negated_shift(shift):
    """The shift that undoes `roll(x, shift)`."""
    return tuple(-int(s) for s in shift) if isinstance(shift, (tuple, list)) else -np.asarray(shift).astype(np.int64)


def rollaxis_destination(a, axis, start=0):
    """Where `rollaxis(a, axis, start)` puts `axis`: moveaxis(a, axis, destination) is the same array."""
    n = np.ndim(a)
    axis, start = axis % n, start + n if start < 0 else start
    return start - 1 if start > axis else start


def resize_indices(a, new_shape):
    """The flat positions of `a` that `resize(a, new_shape)` reads, in order."""
    total = int(np.prod(new_shape))
    return np.arange(total) % max(np.size(a), 1)


def nonzero_indices(condition):
    """The positions where the flattened `condition` is nonzero (what compress and extract keep)."""
    return np.flatnonzero(np.asarray(condition))


def kept_indices(arr, obj, axis=None):
    """The positions along axis (of the flattened arr when None) that `delete(arr, obj, axis)` keeps."""
    shape = np.shape(arr)
    return np.delete(np.arange(int(np.prod(shape)) if axis is None else shape[axis]), obj)


def tile_blocks(A, reps):
    """The shape (r0, s0, r1, s1, ...) that splits tile(A, reps) into its copies."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = np.shape(A)
    d = max(len(reps), len(shape))
    full_shape = (1,) * (d - len(shape)) + tuple(shape)
    full_reps = (1,) * (d - len(reps)) + reps
    return tuple(int(n) for pair in zip(full_reps, full_shape) for n in pair)


def tile_axes(A, reps):
    """The axes of tile_blocks(A, reps) that count the copies."""
    return tuple(range(0, len(tile_blocks(A, reps)), 2))


def sort_order(a, axis=-1, descending=False):
    """The (stable) order in which `sort(a, axis, descending=...)` reads `a`; axis None: of the flattened a."""
    a = np.asarray(a)
    if axis is None:
        a, axis = a.ravel(), 0
    if not descending:
        return np.argsort(a, axis, kind="stable")
    idx = np.argsort(np.flip(a, axis), axis, kind="stable")
    return np.flip(a.shape[axis] - 1 - idx, axis)


def select_mask(condlist, k=0):
    """Where `select` takes choice k: condition k holds and no earlier one does."""
    conditions = [np.asarray(c, dtype=bool) for c in condlist]
    mask = conditions[k]
    for earlier in conditions[:k]:
        mask = mask & ~earlier
    return mask


def select_default_mask(condlist):
    """Where `select` takes its default: no condition holds."""
    mask = np.asarray(True)
    for condition in condlist:
        mask = mask & ~np.asarray(condition, dtype=bool)
    return mask


def zeros_like_shape(x, like):
    """Zeros shaped like `x` in the floating dtype of `like` (the missing tangent of one operand)."""
    return wrap(np.zeros(np.shape(x), dtype=_float_dtype(like)))


# ------------------------------------------------------------ linear helpers (primitives with rules)
def take_along_axis_adjoint(g, arr, indices, axis):
    """Transpose of `take_along_axis(arr, indices, axis)`: `g` added back where it read (repeats add up)."""
    out = np.zeros(np.shape(arr), dtype=_float_dtype(g))
    flat = out.reshape(-1) if axis is None else out
    ax = 0 if axis is None else axis % out.ndim
    indices = np.asarray(indices)
    grids = np.indices(indices.shape, sparse=True)
    index = tuple(indices if i == ax else grids[i] for i in range(indices.ndim))
    np.add.at(flat, index, np.asarray(g))
    return wrap(out)


def sorted_tangent(t, order, axis=-1):
    """`t` read in the order `order` along axis (the tangent of a sort); a composite of primitives."""
    if axis is None:
        return jnp.take_along_axis(jnp.ravel(t), order, 0)
    return jnp.take_along_axis(t, order, axis)


def sorted_adjoint(g, a, order, axis=-1):
    """Transpose of `sorted_tangent`: `g` put back where each sorted element came from; a composite."""
    if axis is None:
        return jnp.reshape(take_along_axis_adjoint(g, jnp.ravel(a), order, 0), jnp.shape(a))
    return take_along_axis_adjoint(g, a, order, axis)


def _split_axis(x, axis, how):
    if how == "hsplit":
        return 1 if np.ndim(x) > 1 else 0
    return {"vsplit": 0, "dsplit": 2}.get(how, axis)


def split_parts(x, indices_or_sections, axis=0, how="split"):
    """The pieces of `x` as `how` cuts it (split, hsplit, ...; "unstack": the slices along axis, a tuple)."""
    x = np.asarray(x)
    if how == "unstack":
        return tuple(wrap(np.take(x, i, axis=axis)) for i in range(x.shape[axis]))
    return [wrap(p) for p in np.array_split(x, indices_or_sections, _split_axis(x, axis, how))]


def split_items(x, indices_or_sections, axis=0, how="split"):
    """The pieces of `x` as a list adjoint (the adjoint of the list that `split_adjoint` joins)."""
    return TreeAdjoint(dict(enumerate(split_parts(x, indices_or_sections, axis, how))))


def split_adjoint(g, ary, indices_or_sections, axis=0, how="split"):
    """Transpose of `split_parts`: the pieces of a list adjoint joined back (zeros where none arrived)."""
    shape = np.shape(ary)
    stand_in = np.zeros(shape)
    if how == "unstack":
        pieces = [np.take(stand_in, i, axis=axis) for i in range(shape[axis])]
    else:
        pieces = np.array_split(stand_in, indices_or_sections, _split_axis(stand_in, axis, how))
    if isinstance(g, TreeAdjoint):
        items = [g.items.get(k, 0.0) for k in range(len(pieces))]
    elif isinstance(g, (list, tuple)):
        items = list(g)
    elif np.ndim(g) == 0 and not np.any(g):
        items = [0.0] * len(pieces)
    else:
        raise TypeError(f"astjax: the adjoint of a split is a list of pieces, got {type(g).__name__}")
    if len(items) != len(pieces):
        raise ValueError(f"astjax: {len(items)} adjoint pieces for a split into {len(pieces)}")
    dtype = np.result_type(*[np.asarray(i) for i in items], np.float32)
    parts = [np.broadcast_to(np.asarray(item, dtype=dtype), piece.shape) for item, piece in zip(items, pieces)]
    if how == "unstack":
        return wrap(np.stack(parts, axis=axis))
    return wrap(np.concatenate(parts, axis=_split_axis(stand_in, axis, how)))
