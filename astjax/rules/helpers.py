"""Small array functions that derivative rules call, besides `astjax.numpy`.

Each is a primitive with rules of its own (see the rule families), so code that
calls them can be differentiated again. Generated source calls them by their
bare names: `bx += unbroadcast(by * w, x)`.
"""
import numpy as np

from ..array import wrap

__all__ = ["attribute_adjoint", "item_adjoint", "stack_adjoint", "concatenate_adjoint", "array_adjoint", "broadcast_like", "TreeAdjoint", "index_adjoint", "materialize", "unbroadcast", "unreduce", "reduced_size", "invert_permutation", "pad_adjoint",
           "at_set", "at_add", "at_multiply", "at_get", "getitem", "clip_mask", "extremum_mask",
           "astype", "dynamic_slice_adjoint", "stack_part", "concatenate_part", "to_float",
           "stack_part_adjoint", "concatenate_part_adjoint",
           "zero_like"]


def unbroadcast(g, x):
    """Sum `g` over the axes along which `x` was broadcast, giving `g` the shape of `x`."""
    shape = np.shape(x)
    g = np.asarray(g)
    if g.shape == shape:
        return wrap(g)
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1)
    summed = g.sum(axis=axes, keepdims=True) if axes else g
    return wrap(summed.reshape(shape))


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast the result `g` of a reduction of `x` back to the shape of `x`."""
    g = np.asarray(g)
    shape = np.shape(x)
    if axis is not None and not keepdims:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(a % len(shape) for a in axes)
        g = np.expand_dims(g, axes)
    return wrap(np.broadcast_to(g, shape))


def reduced_size(x, axis=None):
    """How many elements a reduction over `axis` combines."""
    shape = np.shape(x)
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def invert_permutation(axes, ndim=None):
    """The axes that undo `transpose(x, axes)` (None undoes None)."""
    if axes is None:
        return None
    return tuple(int(i) for i in np.argsort(axes))


def pad_adjoint(g, pad_width, mode="constant"):
    """Transpose of `jnp.pad`: crop `g`, folding edge-padded cells back onto the edge."""
    g = np.asarray(g)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2) if np.ndim(pad_width) else
                             np.asarray([[pad_width, pad_width]]), (g.ndim, 2))
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        n = g.shape[axis] - before - after
        inner = np.take(g, np.arange(before, before + n), axis=axis)
        if mode == "edge":
            head = np.take(g, np.arange(0, before), axis=axis).sum(axis=axis, keepdims=True)
            tail = np.take(g, np.arange(before + n, g.shape[axis]), axis=axis).sum(axis=axis, keepdims=True)
            index = [slice(None)] * g.ndim
            inner = inner.copy()
            index[axis] = slice(0, 1)
            inner[tuple(index)] += head
            index[axis] = slice(n - 1, n)
            inner[tuple(index)] += tail
        elif mode != "constant":
            raise NotImplementedError(f"no derivative for jnp.pad with mode={mode!r}; use 'constant' or 'edge'")
        g = inner
    return wrap(g)


class TreeAdjoint:
    """The adjoint of a tuple, list or dict: the adjoints of the items reached so far.

    Adjoints add up with `+=`; items never reached count as zero. The API turns
    it back into the container the user passed (`materialize`).
    """

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def __add__(self, other):
        if isinstance(other, TreeAdjoint):
            items = dict(self.items)
            for key, value in other.items.items():
                items[key] = items[key] + value if key in items else value
            return TreeAdjoint(items)
        if np.ndim(other) == 0 and not np.any(other):
            return self
        return NotImplemented

    __radd__ = __add__

    def __repr__(self):
        return f"TreeAdjoint({self.items!r})"


def index_adjoint(x, idx, g):
    """The adjoint of `x` from `y = x[idx]`: `g` put back at `idx`, zeros elsewhere."""
    if isinstance(x, (tuple, list, dict)):
        return TreeAdjoint({idx: g})
    out = np.zeros(np.shape(x), dtype=np.result_type(g, np.float32))
    np.add.at(out, _plain(idx), np.asarray(g))
    return wrap(out)


def attribute_adjoint(x, attr, g):
    """The adjoint of a namedtuple `x` from `y = x.attr`: `g` in that field."""
    fields = getattr(type(x), "_fields", None)
    if fields is None or attr not in fields:
        raise TypeError(f"astjax differentiates attribute reads of namedtuples only, not `{type(x).__name__}.{attr}`")
    return TreeAdjoint({fields.index(attr): g})


def item_adjoint(adjoint, i):
    """Item i of the adjoint of a list (zero when nothing reached it)."""
    if isinstance(adjoint, TreeAdjoint):
        return adjoint.items.get(i, 0.0)
    return 0.0


def stack_adjoint(g, axis=0):
    """The adjoint of the list passed to `jnp.stack`: the slices of `g`."""
    g = np.asarray(g)
    return TreeAdjoint({i: wrap(np.take(g, i, axis=axis)) for i in range(g.shape[axis])})


def concatenate_adjoint(g, arrays, axis=0):
    """The adjoint of the list passed to `jnp.concatenate`: the pieces of `g`."""
    return TreeAdjoint({k: concatenate_part(g, arrays, k, axis) for k in range(len(arrays))})


def array_adjoint(g, object):
    """The adjoint of `jnp.array(object)`: `g` itself, or its rows for a list of arrays."""
    if isinstance(object, (list, tuple)):
        return stack_adjoint(g)
    return g


def materialize(g, like):
    """An adjoint shaped like `like`: containers rebuilt, zeros filled in, scalars broadcast."""
    if isinstance(like, (tuple, list, dict)):
        items = g.items if isinstance(g, TreeAdjoint) else {}
        keys = like.keys() if isinstance(like, dict) else range(len(like))
        values = {k: materialize(items.get(k, 0.0), like[k]) for k in keys}
        if isinstance(like, dict):
            return type(like)(values) if type(like) is not dict else values
        seq = [values[k] for k in keys]
        if hasattr(like, "_fields"):
            return type(like)(*seq)
        return type(like)(seq)
    dtype = np.result_type(like) if np.issubdtype(np.result_type(like), np.inexact) else np.float32
    if isinstance(like, (float, int)) and not isinstance(like, bool):
        dtype = np.float32
    g = np.asarray(g, dtype=dtype)
    shape = np.shape(like)
    if g.shape != shape:
        g = np.broadcast_to(g, shape)
    return wrap(g)


def getitem(x, idx):
    """`x[idx]`, as a function."""
    return wrap(np.asarray(x)[_plain(idx)])


def at_get(x, idx):
    return getitem(x, idx)


def at_set(x, idx, v):
    """`x.at[idx].set(v)`, as a function."""
    return wrap(x).at[idx].set(v)


def at_add(x, idx, v):
    """`x.at[idx].add(v)`, as a function."""
    return wrap(x).at[idx].add(v)


def at_multiply(x, idx, v):
    """`x.at[idx].multiply(v)`, as a function."""
    return wrap(x).at[idx].multiply(v)


def clip_mask(a, a_min=None, a_max=None):
    """1.0 where `clip(a, a_min, a_max)` passes `a` through, else 0.0."""
    a = np.asarray(a)
    mask = np.ones(a.shape, dtype=bool)
    if a_min is not None:
        mask &= a >= a_min
    if a_max is not None:
        mask &= a <= a_max
    return wrap(mask.astype(a.dtype if np.issubdtype(a.dtype, np.inexact) else np.float32))


def extremum_mask(a, y, axis=None, keepdims=False):
    """Where `a` attains its max/min `y`, each tie weighted 1/count (as JAX shares the gradient)."""
    a = np.asarray(a)
    hit = (a == np.asarray(unreduce(y, a, axis, keepdims))).astype(a.dtype)
    count = hit.sum(axis=axis, keepdims=True)
    return wrap(hit / count)


def astype(x, dtype):
    """`x.astype(dtype)`, as a function."""
    return wrap(np.asarray(x).astype(dtype))


def dynamic_slice_adjoint(g, operand, start_indices):
    """Transpose of `lax.dynamic_slice`: `g` placed at `start_indices` in zeros shaped like `operand`."""
    out = np.zeros(np.shape(operand), dtype=np.result_type(g))
    starts = _clamped_starts(np.shape(operand), np.shape(g), start_indices)
    out[tuple(slice(s, s + n) for s, n in zip(starts, np.shape(g)))] += np.asarray(g)
    return wrap(out)


def _clamped_starts(shape, sizes, start_indices):
    return [int(min(max(int(s), 0), n - k)) for s, n, k in zip(start_indices, shape, sizes)]


def stack_part(g, k, axis=0):
    """The slice of `stack`'s adjoint `g` that belongs to its k-th input."""
    return wrap(np.take(np.asarray(g), k, axis=axis))


def concatenate_part(g, arrays, k, axis=0):
    """The slice of `concatenate`'s adjoint `g` that belongs to its k-th input."""
    sizes = [np.shape(a)[axis] if np.ndim(a) else 1 for a in arrays]
    start = sum(sizes[:k])
    return wrap(np.take(np.asarray(g), np.arange(start, start + sizes[k]), axis=axis))


def stack_part_adjoint(p, g, k, axis=0):
    """Transpose of `stack_part`: `p` placed at position k of zeros shaped like `g`."""
    out = np.zeros(np.shape(g), dtype=np.result_type(p, np.float32))
    index = [slice(None)] * out.ndim
    index[axis] = k
    out[tuple(index)] = np.asarray(p)
    return wrap(out)


def concatenate_part_adjoint(p, g, arrays, k, axis=0):
    """Transpose of `concatenate_part`: `p` placed at input k's rows of zeros shaped like `g`."""
    sizes = [np.shape(a)[axis] if np.ndim(a) else 1 for a in arrays]
    start = sum(sizes[:k])
    out = np.zeros(np.shape(g), dtype=np.result_type(p, np.float32))
    index = [slice(None)] * out.ndim
    index[axis] = slice(start, start + sizes[k])
    out[tuple(index)] = np.asarray(p)
    return wrap(out)


def broadcast_like(t, *operands):
    """`t` broadcast to the shape the operands broadcast to (a tangent of a broadcasting primitive)."""
    shape = np.broadcast_shapes(*(np.shape(o) for o in operands))
    t = np.asarray(t)
    return wrap(t if t.shape == shape else np.broadcast_to(t, shape))


def to_float(x):
    """`float(x)` that keeps a 0-d array's precision."""
    return wrap(np.asarray(x, dtype=np.result_type(x, np.float32)))


def zero_like(x):
    """A zero of the same shape and float dtype as `x` (the adjoint nothing has reached)."""
    return wrap(np.zeros(np.shape(x), dtype=np.result_type(x, np.float32)))


def _plain(idx):
    if isinstance(idx, tuple):
        return tuple(_plain(i) for i in idx)
    return np.asarray(idx) if isinstance(idx, np.ndarray) else idx
