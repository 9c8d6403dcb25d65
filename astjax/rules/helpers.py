"""Small array functions that derivative rules call, besides `astjax.numpy`.

Each is a primitive with rules of its own (see the rule families), so code that
calls them can be differentiated again. Generated source calls them by their
bare names: `bx += unbroadcast(by * w, x)`.
"""
import numpy as np

from ..array import Array, wrap
from ..numpy._dtypes import inexact_zero  # noqa: F401 (a primitive: scipy.stats promotes with it)

__all__ = ["batch_broadcast", "inexact_zero", "well_conditioned", "square_unless_reduced", "lone_zero", "lone_zero_derivative", "sum_adjoint", "sum_items", "take_adjoint", "take_positions", "pad_constant_adjoint", "pad_constant_tangent", "einsum_ellipsis_adjoint", "unbroadcast_to", "cumsum_adjoint", "trace_adjoint", "tree_item_adjoint", "stack_items", "concatenate_items", "array_items", "field_of_adjoint",
           "attribute_adjoint", "item_adjoint", "stack_adjoint", "concatenate_adjoint", "array_adjoint", "broadcast_like", "TreeAdjoint", "index_adjoint", "index_adjoint_part", "materialize", "unbroadcast", "unreduce", "reduced_size", "invert_permutation", "pad_adjoint",
           "distinct_index", "at_set", "at_add", "at_multiply", "at_get", "part_at", "placed_at", "cleared_at", "zero_tangent", "getitem", "clip_mask", "clip_lower_weight", "clip_upper_weight", "extremum_mask",
           "astype", "dynamic_slice_adjoint", "stack_part", "concatenate_part", "to_float",
           "stack_part_adjoint", "concatenate_part_adjoint",
           "zero_like", "zeros_shaped", "diagonal_adjoint", "repeat_adjoint", "linspace_weights", "meshgrid_axes", "meshgrid_list",
           "tree_leaves_of", "tree_leaves_adjoint", "adjoint_leaves", "leaves_adjoint", "shaped_gradient", "leaves_like", "tree_rebuilt", "cotangent_like", "unique_index", "adjugate",
           "spectral_direction", "no_higher_derivative", "cast_adjoint", "dict_keys", "sorted_keys", "key_order", "key_extremum", "zip_star_length", "list_items", "tuple_items", "iterated", "sequence_part", "unshared_item", "not_a_view", "has_key",
           "array_holder", "not_a_row", "basic_index", "checked_isinstance", "checked_isscalar", "checked_hasattr", "checked_memory_attribute", "checked_type", "checked_identity", "checked_id", "checked_repr", "checked_callee", "inplace_result", "pad_tangent"]


def batch_broadcast(value, size, likes):
    """`value` repeated along a new axis 0 of `size` (vmap: an unbatched value meeting batched ones).

    A Python float (a literal `s = 0.1`, grad's seed `bout = 1.0`, a float argument) is weakly typed per
    example: it takes the dtype of the array it meets (`0.1 * x` is float64 for a float64 x). Repeated, it
    must be an array, so it takes the widest float dtype among the function's array arguments `likes`
    (float32 when none is a float array): astjax's default float32 would round 0.1 in a float64 program.
    Anything else is broadcast as `jnp.broadcast_to` does."""
    if type(value) is float:
        floats = [np.result_type(like) for like in likes
                  if isinstance(like, (np.ndarray, np.generic)) and np.issubdtype(np.result_type(like), np.floating)]
        return wrap(np.full((int(size),), value, dtype=np.result_type(*floats) if floats else np.float32))
    from .. import numpy as jnp
    return jnp.broadcast_to(value, (int(size),) + np.shape(value))


def weak_array(g, like):
    """`g` as an array. A Python scalar (the 1.0 seed, a bare 0.0 adjoint) is weakly typed, as in JAX:
    it takes the float dtype of `like`, so a float32 computation gets no float64 intermediates."""
    if isinstance(g, (int, float)) and not isinstance(g, (bool, np.generic)):
        try:
            dtype = np.asarray(like).dtype if isinstance(like, (list, tuple)) else np.result_type(like)
        except (TypeError, ValueError):
            dtype = None
        return np.asarray(g, dtype=dtype if dtype is not None and np.issubdtype(dtype, np.inexact) else np.float32)
    return np.asarray(g)


def unbroadcast(g, x):
    """Sum `g` over the axes along which `x` was broadcast, giving `g` the shape of `x`."""
    if isinstance(x, (list, tuple)) and (isinstance(g, TreeAdjoint) and g.length not in (None, len(x))
                                         or isinstance(g, np.ndarray) and g.ndim == np.ndim(x) > 0
                                         and g.shape[0] != len(x)):
        # a list's adjoint (or its rows, where it was read as an array) of another length: `+` joined lists
        _refuse_sequence_arithmetic()
    if isinstance(g, (TreeAdjoint, list, tuple)) or isinstance(x, TreeAdjoint):
        return g                  # adjoints of containers add item by item; nothing was broadcast
    shape = np.shape(x)
    g = weak_array(g, x)
    if g.shape == shape:
        return wrap(g)
    if g.ndim < len(shape):       # a zero adjoint not yet shaped: it only needs broadcasting up
        return wrap(np.broadcast_to(g, shape))
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1)
    summed = g.sum(axis=axes, keepdims=True) if axes else g
    if summed.size != int(np.prod(shape)):
        # a zero adjoint not yet shaped, lifted to the batch's rank by vmap ((B, 1) for x of (B, n)): as above,
        # it only needs broadcasting up (np.broadcast_to raises if the shapes do not broadcast)
        return wrap(np.broadcast_to(summed, shape))
    return wrap(summed.reshape(shape))


def _refuse_sequence_arithmetic():
    """The adjoint of a list reached an arithmetic operand that is a list or tuple of another length (or was
    scaled): the `+` (or `*`) joined or repeated sequences, which the arithmetic rules cannot tell from adding
    numbers; each operand would get the whole result's adjoint (`functools.reduce(operator.add, lists)`
    gave a silently wrong gradient)."""
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal("astjax: arithmetic here (`+`, `*`, `sum`, `max`/`min`) joins, repeats or compares "
                         "lists or tuples whose types astjax could not see where it transformed the code (a "
                         "lambda's or helper's parameters, reduce, accumulate), and its derivative cannot follow "
                         "that. Instead: build the list with `append` or a comprehension (`[v for part in parts for "
                         "v in part]`), join arrays with jnp.concatenate, or compare items one by one.")


def unbroadcast_to(g, shape):
    """`unbroadcast` given the shape itself (the tape kept only the shape of the operand).

    A list's adjoint of another length than the operand's: the operand was a list or tuple that `+` joined."""
    if isinstance(g, TreeAdjoint) and g.length is not None and len(tuple(shape)) > 0 and tuple(shape)[0] != g.length:
        _refuse_sequence_arithmetic()
    if isinstance(g, (TreeAdjoint, list, tuple)):
        return g
    return unbroadcast(g, np.empty(tuple(shape), dtype=np.bool_) if tuple(shape) else np.bool_(False))


def unreduce(g, x, axis=None, keepdims=False, where=None):
    """Broadcast the result `g` of a reduction of `x` back to the shape of `x` (zero outside `where`).

    A Python float `g` (the seed `bout = 1.0`) is weakly typed, as in JAX: it takes x's float dtype. A 0-d
    `g` broadcasts as it is: a reduction over an axis gives it only as a bare 0.0, where nothing reached
    the result (an item of a helper's returned tuple the caller does not read).
    """
    g = weak_array(g, x)
    shape = np.shape(x)
    if axis is not None and not keepdims and np.ndim(g):
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(a % len(shape) for a in axes)
        g = np.expand_dims(g, axes)
    g = np.broadcast_to(g, shape)
    if where is not None:
        g = np.where(where, g, np.zeros((), dtype=g.dtype))
    return wrap(g)


def reduced_size(x, axis=None, ddof=0, correction=None, where=None):
    """How many elements a reduction over `axis` combines, less `ddof` (or `correction`, as in var/std).

    With a `where` mask the count differs per reduced slice: an array shaped like the
    reduction's result with keepdims=True.
    """
    shape = np.shape(x)
    less = ddof if correction is None else correction
    if where is not None:
        return wrap(np.sum(np.broadcast_to(where, shape), axis=axis, keepdims=True) - less)
    if axis is None:
        count = int(np.prod(shape, dtype=np.int64))
    else:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    return count - less


def invert_permutation(axes, ndim=None):
    """The axes that undo `transpose(x, axes)` (None undoes None)."""
    if axes is None:
        return None
    axes = [int(a) % len(axes) for a in axes]     # transpose accepts negative axes
    return tuple(int(i) for i in np.argsort(axes))


def pad_adjoint(g, pad_width, mode="constant"):
    """Transpose of `jnp.pad`: crop `g`, folding edge-padded cells back onto the edge (and reflected or wrapped
    cells back onto the cells they copy)."""
    g = np.asarray(g)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2) if np.ndim(pad_width) else
                             np.asarray([[pad_width, pad_width]]), (g.ndim, 2))
    if mode not in ("constant", "edge"):
        return _copied_pad_adjoint(g, widths, mode)
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
        g = inner
    return wrap(g)


_COPYING_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")
_NONLINEAR_PAD_MODES = ("maximum", "minimum", "median", "empty")


def pad_tangent(t, pad_width, mode="constant"):
    """The tangent of `jnp.pad(x, pad_width, mode)`: the tangent padded the same way, where that is linear in x.

    `maximum`, `minimum` and `median` pad with a statistic that is not linear (the maximum of the tangents is not
    the tangent of the maximum) and `empty` with whatever memory holds: refused (padding the tangent with its own
    maximum once gave a silently wrong jvp)."""
    if mode in _NONLINEAR_PAD_MODES:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"astjax has no derivative for jnp.pad with mode={mode!r} (its padding is not linear in "
                             "the array). Instead: mode 'constant', 'edge', 'reflect', 'symmetric', 'wrap', 'mean' or "
                             "'linear_ramp', or pad with jnp.concatenate and the value you need.")
    from .. import numpy as jnp
    return jnp.pad(t, pad_width, mode)


def _pad_sides(shape, pad_width):
    """For `jnp.pad(zeros(shape), pad_width)`: each cell's side as 2 * axis + (0 before, 1 after), -1 inside,
    as NumPy fills them (axis by axis, so a corner belongs to the last axis that padded it)."""
    ndim = len(shape)
    sides = np.arange(2 * ndim).reshape(ndim, 2)
    return np.pad(np.full(shape, -1, dtype=np.int64), pad_width, mode="constant", constant_values=sides)


def pad_constant_adjoint(g, array, pad_width, constant_values):
    """The adjoint of `constant_values` in `jnp.pad(array, pad_width, constant_values=...)`: the sum of `g` over
    the cells each value filled, shaped like `constant_values` (a scalar, a (before, after) pair, or pairs)."""
    g = np.asarray(g)
    sides = _pad_sides(np.shape(array), pad_width)
    ndim = np.ndim(array)
    per_side = np.array([g[sides == k].sum() for k in range(2 * ndim)], dtype=np.result_type(g, np.float32))
    return wrap(unbroadcast(per_side.reshape(ndim, 2), np.empty(np.shape(constant_values))))


def pad_constant_tangent(t, array, pad_width):
    """The tangent of `jnp.pad(array, pad_width, constant_values=c)` for a tangent `t` of `c`: `t` in the padded
    cells, zero inside."""
    t = np.asarray(t)
    ndim = np.ndim(array)
    per_side = np.broadcast_to(t, (ndim, 2)) if t.ndim else np.full((ndim, 2), t)
    sides = _pad_sides(np.shape(array), pad_width)
    out = np.where(sides >= 0, np.asarray(per_side).reshape(-1)[np.maximum(sides, 0)], 0)
    return wrap(out.astype(np.result_type(t, np.float32)))


def _einsum_labels_for_ellipsis(subscripts, shapes):
    """`subscripts` with each `...` written out as letters for the operands' `shapes` (NumPy's broadcasting:
    the ellipses align on the right; an implicit output puts the ellipsis axes first)."""
    text = subscripts.replace(" ", "")
    left, arrow, output = text.partition("->")
    inputs = left.split(",")
    spans = [len(shape) - len(spec.replace("...", "")) for spec, shape in zip(inputs, shapes)]
    width = max([n for spec, n in zip(inputs, spans) if "..." in spec] or [0])
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in text]
    ellipsis = "".join(free[:width])
    inputs = [spec.replace("...", ellipsis[width - n:] if n else "") for spec, n in zip(inputs, spans)]
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(inputs).replace(ellipsis, "") if ellipsis else "".join(inputs)
        named = "".join(c for c in left.replace("...", "").replace(",", "") if c.isalpha())
        output = ellipsis + "".join(sorted(c for c in set(named) if named.count(c) == 1))
        del letters
    return ",".join(inputs) + "->" + output


def einsum_ellipsis_adjoint(g, k, subscripts, *operands):
    """The adjoint of operand k of `jnp.einsum(subscripts, *operands)` where subscripts hold `...`: the
    ellipsis written out for these operands' ranks, then the explicit rule (an axis operand k broadcast
    from length 1 is summed back)."""
    from .. import numpy as jnp
    from .linalg import einsum_vjp_rule
    arrays = [np.asarray(o) for o in operands]
    explicit = _einsum_labels_for_ellipsis(subscripts, [a.shape for a in arrays])
    inputs = explicit.split("->")[0].split(",")
    sizes = {}
    for spec, a in zip(inputs, arrays):
        for c, n in zip(spec, a.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    widened = [np.broadcast_to(a, tuple(sizes[c] for c in spec)) for spec, a in zip(inputs, arrays)]
    rule = einsum_vjp_rule(explicit, k, len(arrays))
    names = {"jnp": jnp, "by": g, **{f"o{i}": w for i, w in enumerate(widened)}}
    adjoint = np.asarray(eval(rule, names))     # the rule einsum itself uses, for the written-out labels
    return wrap(unbroadcast(adjoint, arrays[k]).reshape(arrays[k].shape))


def _copied_pad_adjoint(g, widths, mode):
    """Transpose of a pad whose cells are copies of the array's (`reflect`, `symmetric`, `wrap`): pad the array's
    flat positions the same way, then add each cell of `g` back onto the position it was copied from."""
    if mode not in _COPYING_PAD_MODES:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"astjax has no derivative for jnp.pad with mode={mode!r}. Instead: mode 'constant', "
                             f"'edge', 'reflect', 'symmetric' or 'wrap', or build the padding with jnp.concatenate.")
    shape = tuple(int(n - before - after) for n, (before, after) in zip(g.shape, widths))
    source = np.pad(np.arange(int(np.prod(shape))).reshape(shape), [tuple(w) for w in widths], mode=mode)
    out = np.zeros(int(np.prod(shape)), dtype=np.result_type(g, np.float32))
    np.add.at(out, source.ravel(), g.ravel())
    return wrap(out.reshape(shape))


class TreeAdjoint:
    """The adjoint of a tuple, list, dict or namedtuple: the adjoints of the items reached so far.

    Adjoints add up with `+=`; items never reached count as zero. Reading an
    item (`t[k]`, or a namedtuple field `t.name`) gives its adjoint, so code
    generated for a second derivative can use it as the container it stands
    for. The API turns it back into that container (`materialize`).
    """

    __slots__ = ("items", "fields", "length")
    __array_ufunc__ = None      # `zeros + adjoint` calls __radd__ here, never an object array around it

    def __init__(self, items, fields=None, length=None):
        self.items = items
        self.fields = fields
        self.length = length    # the length of the list read (index_adjoint), where known: `+` may not join it

    def __add__(self, other):
        if isinstance(other, (dict, list, tuple)) or other is None:   # a custom_vjp's bwd gave a plain tree
            other = TreeAdjoint.of(other)
        if isinstance(other, TreeAdjoint):
            items = dict(self.items)
            for key, value in other.items.items():
                items[key] = items[key] + value if key in items else value
            lengths = {self.length, other.length} - {None}
            return TreeAdjoint(items, self.fields or other.fields, lengths.pop() if len(lengths) == 1 else None)
        if np.ndim(other) == 0 and not np.any(other):
            return self
        if np.ndim(other) > 0 and all(isinstance(k, (int, np.integer)) for k in self.items):
            # The same list was also read as an array (`np.sum(xs)`): add the items into its rows.
            out = np.array(other, dtype=np.result_type(other, np.float32))
            for key, value in self.items.items():
                out[key] += np.asarray(value)
            return wrap(out)
        return NotImplemented

    __radd__ = __add__
    __array_ufunc__ = None      # `array + TreeAdjoint` must come here, never broadcast over an object

    def __mul__(self, other):
        # A list's adjoint scaled: the list was repeated (`xs * 2`) where its type was not seen.
        _refuse_sequence_arithmetic()

    __rmul__ = __mul__

    @staticmethod
    def of(tree):
        """A cotangent pytree written by user code (a custom_vjp's bwd returns plain dicts, lists, tuples and
        None for zero) as the adjoint generated code holds: containers as TreeAdjoints, None as 0.0."""
        if tree is None:
            return 0.0
        if isinstance(tree, dict):
            return TreeAdjoint({k: TreeAdjoint.of(v) for k, v in tree.items()})
        if isinstance(tree, (tuple, list)):
            return TreeAdjoint({i: TreeAdjoint.of(v) for i, v in enumerate(tree)}, getattr(tree, "_fields", None))
        return tree

    def __getitem__(self, key):
        if isinstance(key, slice):      # the transpose of a list slice's adjoint needs the list's length
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal("a higher-order derivative through a slice of a Python list (`xs[1:]`, or "
                                 "`xs.pop()` / `xs.insert(...)`, which astjax writes with slices) is not "
                                 "supported. Instead: keep the values in an array (`jnp.stack(xs)`), or index "
                                 "the items one by one.")
        return self.items.get(key, 0.0)

    def __iter__(self):
        # Without this, iteration would go through __getitem__, which never runs out (unreached items are 0.0).
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("astjax: the adjoint of a tuple, list or dict holds only the items reached so far and "
                             "cannot be iterated or unpacked; index its items instead")

    def __getattr__(self, name):
        fields = object.__getattribute__(self, "fields")
        if fields and name in fields:
            return self.items.get(fields.index(name), 0.0)
        raise AttributeError(name)

    def __repr__(self):
        return f"TreeAdjoint({self.items!r})"


def _adjoint_dtype(primal, g):
    """The dtype of zeros shaped like `primal` that receive the adjoint `g`: the primal's float dtype
    takes part, since a Python float `g` (an adjoint computed from Python numbers) with float32 alone
    would give float32 and round a float64 adjoint (jacrev(grad(f)) through lax.scan lost digits)."""
    try:
        primal_dtype = primal.dtype if hasattr(primal, "dtype") else np.asarray(primal).dtype   # `A.flat` too
    except (TypeError, ValueError):
        primal_dtype = None
    if primal_dtype is not None and np.issubdtype(primal_dtype, np.inexact):
        return np.result_type(primal_dtype, g)
    return np.result_type(g, np.float32)


def index_adjoint(x, idx, g):
    """The adjoint of `x` from `y = x[idx]`: `g` put back at `idx`, zeros elsewhere."""
    if isinstance(x, (tuple, list)) and isinstance(idx, slice):
        positions = range(len(x))[idx]       # x[a:b] is a shorter list: its adjoint re-keyed to x's positions
        items = g.items if isinstance(g, TreeAdjoint) else {}
        # Keys past the slice's end belong to items appended to it later, whose adjoints the reversed
        # appends have already taken (`xs = xs[:-1]; xs.append(v)`, as `xs.pop()` is normalized): dropped.
        return TreeAdjoint({positions[k]: value for k, value in items.items() if k < len(positions)}, length=len(x))
    if isinstance(x, (tuple, list)) and isinstance(idx, (int, np.integer)):
        return TreeAdjoint({int(idx) % len(x): g}, length=len(x))      # x[-1] is x[len(x) - 1]
    if isinstance(x, (tuple, list, dict, TreeAdjoint)):
        return TreeAdjoint({idx: g})
    out = np.zeros(np.shape(x), dtype=_adjoint_dtype(x, g))
    np.add.at(out, _plain(idx), np.asarray(g))
    return wrap(out)


def index_adjoint_part(g, x, idx):
    """Transpose of `index_adjoint(x, idx, g)`: the part of `g` (an adjoint shaped like `x`) at `idx`.

    For a list or tuple `x`, index_adjoint keyed item `idx` by its position (`x[-1]` is item
    len(x) - 1), so the part is read at that position too; a bare zero adjoint has a zero part.
    """
    if isinstance(x, (tuple, list)) and isinstance(idx, (int, np.integer)):
        idx = int(idx) % len(x)
    if isinstance(g, dict) or g is None:       # a custom_vjp's bwd gave a plain dict (or None)
        g = TreeAdjoint.of(g)
    if isinstance(g, TreeAdjoint):
        return g[idx]
    if np.ndim(g) == 0 and not np.any(g):
        return 0.0
    if isinstance(x, (tuple, list)) and isinstance(idx, int):
        return item_adjoint(g, idx)
    return g[idx]


def attribute_adjoint(x, attr, g):
    """The adjoint of a namedtuple `x` from `y = x.attr`: `g` in that field."""
    fields = getattr(type(x), "_fields", None)
    if fields is None or attr not in fields:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"astjax differentiates attribute reads of namedtuples only, not "
                             f"`{type(x).__name__}.{attr}`. Instead: index the array (`A.ravel()[k]`, `A[i, j]`), "
                             "or read the field of a namedtuple.")
    return TreeAdjoint({fields.index(attr): g}, fields)


def item_adjoint(adjoint, i):
    """Item i of the adjoint of a list (zero when nothing reached it).

    A rule that read the list as an array (`np.sum(xs)`, `jnp.array(rows)`)
    gave it an array adjoint: item i is then that array's row i.
    """
    if isinstance(adjoint, dict) or adjoint is None:     # a custom_vjp's bwd gave a plain dict (or None)
        adjoint = TreeAdjoint.of(adjoint)
    if isinstance(adjoint, TreeAdjoint):
        return adjoint.items.get(i, 0.0)
    if isinstance(adjoint, (tuple, list)):      # a namedtuple (or list) of cotangents: its item, whatever its shape
        return TreeAdjoint.of(adjoint[i])
    if np.ndim(adjoint) == 0:
        if np.any(adjoint):
            raise ContainerSeedError(container_seed_message("list", adjoint))
        return 0.0
    return wrap(np.asarray(adjoint)[i])


def stack_adjoint(g, axis=0):
    """The adjoint of the list passed to `jnp.stack`: the slices of `g`."""
    g = np.asarray(g)
    return TreeAdjoint({i: wrap(np.take(g, i, axis=axis)) for i in range(g.shape[axis])}, length=g.shape[axis])


def concatenate_adjoint(g, arrays, axis=0):
    """The adjoint of the list passed to `jnp.concatenate`: the pieces of `g`."""
    return TreeAdjoint({k: concatenate_part(g, arrays, k, axis) for k in range(len(arrays))}, length=len(arrays))


def array_adjoint(g, object):
    """The adjoint of `jnp.array(object)`: `g` itself, or its rows for a list of arrays."""
    if isinstance(object, (list, tuple)):
        return stack_adjoint(g)
    return g


def tree_item_adjoint(i, g):
    """Transpose of `item_adjoint`: `g` as the adjoint of item i of a list."""
    return TreeAdjoint({i: g})


def stack_items(t, like, axis=0):
    """Transpose of `stack_adjoint`: the items of a list adjoint stacked (zeros where none arrived)."""
    like = np.asarray(like)
    items = t.items if isinstance(t, TreeAdjoint) else {}
    parts = [np.broadcast_to(np.asarray(items.get(i, 0.0)), np.take(like, i, axis=axis).shape)
             for i in range(like.shape[axis])]
    return wrap(np.stack(parts, axis=axis))


def concatenate_items(t, like, arrays, axis=0):
    """Transpose of `concatenate_adjoint`: the pieces of a list adjoint joined again."""
    items = t.items if isinstance(t, TreeAdjoint) else {}
    parts = [np.broadcast_to(np.asarray(items.get(k, 0.0)), np.shape(a)) for k, a in enumerate(arrays)]
    return wrap(np.concatenate(parts, axis=axis))


def array_items(t, like, object):
    """Transpose of `array_adjoint`."""
    if isinstance(object, (list, tuple)):
        return stack_items(t, like)
    return t


def field_of_adjoint(t, x, attr):
    """Transpose of `attribute_adjoint`: the adjoint of the field `attr` of a namedtuple adjoint."""
    index = type(x)._fields.index(attr)
    return t.items.get(index, 0.0) if isinstance(t, TreeAdjoint) else 0.0


def _rows_as_items(g, like):
    """The items of a list or tuple whose adjoint is an array (it was read as one: `jnp.sort(xs)`): its rows.
    A zero is no item; any other array that is not one row per item cannot be split, and is refused rather
    than dropped (it once became a gradient of zeros)."""
    if np.ndim(g) == 0 and not np.any(g):
        return {}
    if isinstance(like, (tuple, list)) and np.ndim(g) > 0 and np.shape(g)[0] == len(like):
        return {k: g[k] for k in range(len(like))}
    from ..errors import AstjaxError
    raise AstjaxError(f"astjax: the derivative of a {type(like).__name__} came out as an array of shape "
                      f"{np.shape(g)}, which does not split into its items; pass the value as an array instead")


def materialize(g, like):
    """An adjoint shaped like `like`: containers rebuilt, zeros filled in (for None too: a custom_vjp's bwd
    may return None for a zero cotangent, as in JAX), scalars broadcast."""
    if like is None:        # None is an empty pytree node (JAX): its gradient is None, with no leaf of its own
        return None
    if g is None:
        g = 0.0
    if type(g) is Array and isinstance(like, np.ndarray) and g.shape == like.shape and g.dtype == like.dtype:
        return g
    if isinstance(like, (tuple, list, dict)):
        if isinstance(g, (tuple, list, dict)):      # a plain cotangent tree (a custom_vjp's bwd returned it)
            g = TreeAdjoint.of(g)
        if isinstance(g, TreeAdjoint) and isinstance(like, (tuple, list)) and g.length not in (None, len(like)):
            _refuse_sequence_arithmetic()
        items = g.items if isinstance(g, TreeAdjoint) else _rows_as_items(g, like)
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
    if np.iscomplexobj(g) and dtype.kind != "c":
        from ..errors import AstjaxError
        raise AstjaxError("a complex derivative reached a real value: astjax would have to drop its imaginary "
                          "part, a wrong number; differentiate the real and imaginary parts separately")
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


def distinct_index(x, idx, where):
    """`idx`, after checking that it names no position of `x` twice (else an AstjaxError naming `where`).

    NumPy's `y[idx] += v` and `y[idx] = v` write each position once however often `idx`
    repeats it; the functional updates astjax lowers them to (and their derivatives)
    are only the same when no position repeats.
    """
    from ..errors import AstjaxError
    if isinstance(x, (list, tuple, dict)):
        return idx                  # one item of a container: at_set and friends check the index themselves
    plain = _plain(idx)
    hits = np.zeros(np.shape(x), dtype=np.int64)
    np.add.at(hits, plain, 1)
    if hits.size and hits.max() > 1:
        raise AstjaxError(f"{where}: the index repeats a position; NumPy applies this update once per position, "
                          "not once per repetition, and astjax refuses it. Instead: make the indices unique, or "
                          "use np.add.at(y, index, v) to add once per repetition.")
    return idx


def _no_truncation(x, v):
    """Writing floats into an integer array truncates them (NumPy), which has no derivative: refuse."""
    if (np.issubdtype(np.asarray(x).dtype, np.integer) or np.asarray(x).dtype == np.bool_) and \
            np.issubdtype(np.asarray(v).dtype, np.inexact):
        from ..errors import AstjaxError
        raise AstjaxError(f"a {np.asarray(v).dtype} value is written into an array of {np.asarray(x).dtype}: "
                          "NumPy truncates it, which has no derivative, and astjax refuses it. Instead: make the "
                          "array a float array, or convert the value explicitly (int(...), .astype(int)).")


def _list_position(x, idx):
    """`idx` as a position of the list `x` (`x[-1]` is `x[len(x) - 1]`): an integer, as Python requires."""
    if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"an item of a Python list is updated at the index {idx!r}; astjax follows item "
                             "updates of lists at an integer index only. Instead: keep the values in an array "
                             "(`xs = jnp.stack(xs)`, then `xs = xs.at[index].set(v)`).")
    n = len(x)
    if not -n <= idx < n:
        raise IndexError("list assignment index out of range")
    return int(idx) % n


def _updated_item(x, idx, update, combine):
    """A copy of the list `x` with item idx replaced by `combine(old item)`; a tuple cannot be updated
    (Python's TypeError) and a dict's items are refused. (`xs[i] = v` on a list is normalized to
    `xs = at_set(xs, i, v)` like an array's; the aliasing pass checked that no other name sees the list.)"""
    if isinstance(x, tuple):
        raise TypeError(f"'{type(x).__name__}' object does not support item assignment")
    if isinstance(x, dict):
        # `d[k] = v` is `d = {**d, k: v}` (a new key goes last, as in Python); `d[k] += v` needs k in d.
        # The aliasing pass checked that no other name sees the dict.
        _dict_key(idx)
        if idx not in x and update != "xs[i] = v":
            raise KeyError(idx)
        out = dict(x)
        out[idx] = combine(x.get(idx))
        return out
    out = list(x)
    i = _list_position(x, idx)
    out[i] = combine(x[i])
    return out


def at_set(x, idx, v):
    """`x.at[idx].set(v)`, as a function; for a list, a copy with item idx replaced."""
    if isinstance(x, (list, tuple, dict)):
        return _updated_item(x, idx, "xs[i] = v", lambda old: v)
    _no_truncation(x, v)
    return wrap(x).at[idx].set(v)


def at_add(x, idx, v):
    """`x.at[idx].add(v)`, as a function; for a list, a copy with v added to item idx."""
    if isinstance(x, list) and isinstance(x[_list_position(x, idx)], np.ndarray):
        _no_other_item_shares(x, _list_position(x, idx))
    if isinstance(x, (list, tuple, dict)):
        return _updated_item(x, idx, "xs[i] += v", lambda old: old + v)
    _no_truncation(x, v)
    return wrap(x).at[idx].add(v)


def _no_other_item_shares(x, i):
    """`xs[i] += v` adds into the array xs[i] in place (NumPy): another item that is that array, or a
    view of it, would change too, which a new list with item i replaced does not do: refuse that."""
    item = x[i]
    for k, other in enumerate(x):
        if k != i and isinstance(other, np.ndarray) and (other is item or np.shares_memory(other, item)):
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal(
                f"`xs[{i}] += v` adds into the array at position {i} of the list in place, and the item at "
                f"position {k} is that array too (or a view of it): NumPy would change both, and astjax refuses "
                "it. Instead: write `xs[i] = xs[i] + v`, or build the list from separate arrays (`.copy()`).")


def at_multiply(x, idx, v):
    """`x.at[idx].multiply(v)`, as a function (arrays only: `xs[i] *= v` on a list is refused)."""
    if isinstance(x, tuple):
        raise TypeError(f"'{type(x).__name__}' object does not support item assignment")
    if isinstance(x, (list, dict)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"an item of a Python {type(x).__name__} is multiplied in place (`xs[i] *= v`); "
                             "astjax refuses it. Instead: write `xs[i] = xs[i] * v`.")
    _no_truncation(x, v)
    return wrap(x).at[idx].multiply(v)


def _in_bounds_mask(shape, idx):
    """For an integer or integer-array index (or a tuple of them): the broadcast index arrays and a mask
    of the positions inside `shape` (JAX drops `.at[]` updates outside it). None for any other index."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    if len(parts) > len(shape) or not all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool)
            or (isinstance(p, np.ndarray) and p.dtype.kind in "iu") for p in parts):
        return None
    arrays = np.broadcast_arrays(*[np.asarray(p) for p in parts])
    valid = np.ones(arrays[0].shape, dtype=bool)
    for p, n in zip(arrays, shape):
        valid &= (p >= -n) & (p < n)
    return arrays, valid


def _is_sequence(x):
    return isinstance(x, (list, tuple))


def _dict_key(key):
    """A dict's key as astjax follows it: a string, an integer or None (hashable, no derivative)."""
    if isinstance(key, (str, int, np.integer, type(None))) and not isinstance(key, bool):
        return key
    if isinstance(key, tuple) and all(_dict_key(k) is k for k in key):
        return key
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"an item of a Python dict is updated at the key {key!r}; astjax follows dict items at "
                         "string or integer keys (or tuples of them) only. Instead: use a string or integer key.")


def has_key(d, key):
    """`key in d` for a dict (normalization writes `d.get(k, v)` with it); anything else is refused."""
    if not isinstance(d, dict):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"`.get(...)` is called on a {type(d).__name__}, not a dict; astjax follows `.get` of "
                             "dicts only. Instead: pass a dict, or index the value directly.")
    return key in d


def dict_keys(d):
    """`list(d.keys())` of a dict, in its order (normalization writes `for k, v in d.items()` with it).

    The keys are the dict's structure (a pytree's), not values: they carry no derivative."""
    if not isinstance(d, dict):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"`.keys()`, `.items()` or `.values()` is called on a {type(d).__name__}, not a "
                             "dict; astjax follows these methods of dicts only. Instead: pass a dict.")
    return list(d)


def iterated(x):
    """Check, before a `for` loop over `x`, that astjax iterates it as Python does (by position).

    Loops over sequences become `for i in range(len(x)): v = x[i]`: for a dict that would read its
    values at the keys 0, 1, ... rather than its keys, so a dict (or set) is refused."""
    if isinstance(x, (dict, set, frozenset)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"a `for` loop iterates a {type(x).__name__} directly; astjax iterates dicts through "
                             "their methods only. Instead: `for k in d.keys()`, `for k, v in d.items()`, "
                             "`for v in d.values()` or `for k in sorted(d)`.")


def _held_by_the_original(x):
    """The objects the original program may hold where the transformed one holds the astjax Array `x`: a NumPy
    array, an astjax Array and, for a 0-d value, a NumPy scalar (an item of an array) or a Python number."""
    array = np.asarray(x)
    if array.ndim:
        return (x, array)
    return (x, array, array[()], array.item())


def checked_isinstance(obj, classinfo):
    """`isinstance(obj, classinfo)`, refused where the answer depends on which of those objects obj is.

    `isinstance(x[0], float)` is True for the np.float64 the original program reads from a NumPy array and False
    for astjax's 0-d Array: the transformed function could take the other branch."""
    if not isinstance(obj, Array):
        return isinstance(obj, classinfo)
    answers = {isinstance(held, classinfo) for held in _held_by_the_original(obj)}
    if len(answers) > 1:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`isinstance(v, {getattr(classinfo, '__name__', classinfo)})` on a value astjax holds as an array "
            f"(shape {np.shape(obj)}, {obj.dtype}): the original program may hold a NumPy array, a NumPy scalar or a "
            "Python number there, and the answer differs between them. Instead: test the shape or dtype "
            "(`jnp.ndim(v) == 0`, `jnp.issubdtype(v.dtype, jnp.floating)`), or decide outside the function.")
    return answers.pop()


def checked_isscalar(element):
    """NumPy's `np.isscalar(element)`, refused where the answer depends on which object the original holds.

    `np.isscalar(x[0])` is True for the np.float64 the original program reads from a NumPy array and False for
    astjax's 0-d Array (and for a 0-d NumPy array): the transformed function could take the other branch."""
    if not isinstance(element, Array):
        return np.isscalar(element)
    answers = {bool(np.isscalar(held)) for held in _held_by_the_original(element)}
    if len(answers) > 1:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`np.isscalar(v)` on a value astjax holds as an array (shape {np.shape(element)}, {element.dtype}): the "
            "original program may hold a NumPy scalar (True) or a 0-d array (False) there. Instead: test the "
            "shape (`jnp.ndim(v) == 0`), or use `jnp.isscalar`, which counts 0-d arrays as scalars (as JAX does).")
    return answers.pop()


def checked_hasattr(obj, attribute):
    """`hasattr(obj, attribute)`, refused where the answer depends on which object the original holds
    (`hasattr(x[0], "__len__")` is False for a NumPy scalar, True for an array)."""
    if not isinstance(obj, Array):
        return hasattr(obj, attribute)
    answers = {hasattr(held, attribute) for held in _held_by_the_original(obj)}
    if len(answers) > 1:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`hasattr(v, {attribute!r})` on a value astjax holds as an array (shape {np.shape(obj)}, {obj.dtype}): "
            "the original program may hold a NumPy array, a NumPy scalar or a Python number there, and the answer "
            "differs between them. Instead: test the shape or dtype (`jnp.ndim(v) == 0`), or decide outside the "
            "function.")
    return answers.pop()


MEMORY_ATTRIBUTES = frozenset({"base", "flags", "ctypes", "data", "strides", "__array_interface__"})


def checked_memory_attribute(obj, attribute):
    """`obj.base`, `obj.flags`, ...: refused for an astjax Array, which is a view of the memory NumPy gave it
    (its base is never None, it never owns its data): the original program's array answers otherwise."""
    if isinstance(obj, Array):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`v.{attribute}` of a value astjax holds as an array (shape {np.shape(obj)}, {obj.dtype}): it describes "
            "how astjax stores the array, not how the original program's NumPy array is stored. Instead: decide "
            "outside the function, or copy explicitly where a copy is needed.")
    return getattr(obj, attribute)


def checked_type(obj):
    """`type(obj)`, refused for a value astjax holds as an Array (the original program's is another type)."""
    if isinstance(obj, Array):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`type(v)` of a value astjax holds as an array (shape {np.shape(obj)}, {obj.dtype}): the original "
            "program holds a NumPy array, a NumPy scalar or a Python number there, of another type. Instead: test "
            "the shape or dtype (`jnp.ndim(v)`, `v.dtype`), or decide outside the function.")
    return type(obj)


def checked_identity(a, b):
    """`a is b`, refused where both are arrays or numbers and one is a value astjax holds as an array: the program
    holds other objects there (`np.asarray(x) is x` is True for its ndarray x, False for an astjax Array; the
    generated code may hold one object where the program computes two equal ones)."""
    numeric = (np.ndarray, np.generic, int, float, complex)
    if (isinstance(a, Array) or isinstance(b, Array)) and isinstance(a, numeric) and isinstance(b, numeric):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            "`a is b` between arrays, one a value astjax holds as an array (shape "
            f"{np.shape(a if isinstance(a, Array) else b)}): which object each is differs between the original "
            "program and astjax's (`np.asarray(x) is x` holds for a NumPy array, not for astjax's). Instead: "
            "compare values (`jnp.array_equal(a, b)`), or pass a flag that says which case holds.")
    return a is b


def checked_id(obj):
    """`id(obj)`, refused for a value astjax holds as an array: the program holds another object there (a cache
    keyed by it, or `id(a) == id(b)`, would answer otherwise)."""
    if isinstance(obj, Array):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`id(v)` of a value astjax holds as an array (shape {np.shape(obj)}): the original program holds another "
            "object there. Instead: key a cache by something the program computes (a name, an index), or compare "
            "values (`jnp.array_equal(a, b)`).")
    return id(obj)


def checked_repr(obj):
    """`repr(obj)`, refused for a value astjax holds as an array: "Array([...], dtype=...)" where the program's
    NumPy array reads "array([...])" (a test of the text would take the other branch)."""
    if isinstance(obj, Array):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`repr(v)` of a value astjax holds as an array (shape {np.shape(obj)}): it reads 'Array(...)' where the "
            "original program's NumPy array reads 'array(...)'. Instead: `str(v)` (the same text for both), or "
            "test the shape or dtype.")
    return repr(obj)


_CHECKED_CALLEES = {}


def checked_callee(fn):
    """`fn` itself, refused where it is a user function the primal code would call as written on astjax Arrays
    although it reads differently on them than on NumPy arrays (an item write, a type, storage or identity test:
    transforms/primal_calls.py): reached through a local name or a list, it is known only when it runs."""
    import types
    code = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(code, types.FunctionType) or (code.__module__ or "").partition(".")[0] == "astjax" \
            or getattr(code, "__astjax_function_source__", None) is not None:
        return fn
    if code not in _CHECKED_CALLEES:
        from ..transforms.primal_calls import reads_differently_on_arrays
        _CHECKED_CALLEES[code] = reads_differently_on_arrays(code)
    if _CHECKED_CALLEES[code]:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"`{code.__name__}` is called through a local name or a container, on values astjax holds as arrays: "
            "it writes into an item, or tests a value's type, storage or identity, which answers otherwise on "
            "astjax's arrays than on the program's NumPy arrays. Instead: call it by its module-level name "
            f"(`{code.__name__}(...)`), which astjax rewrites to keep NumPy's semantics.")
    return fn


def jacobian_input(x):
    """`x` itself when it is one array or number; a Jacobian that another transformation differentiates,
    batches or compiles (jacobian_source.py) runs a loop over the entries of one array, and would read a dict,
    list or tuple as one entry (a Jacobian of the wrong shape, silently): refused here instead."""
    from ..tree_util import tree_leaves
    leaves = tree_leaves(x)
    if len(leaves) != 1 or leaves[0] is not x:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            f"a Jacobian (jacfwd or jacrev) that is transformed again (by grad, jacfwd, jacrev, vmap or jit) "
            f"takes and returns single arrays, and got a {type(x).__name__}: call astjax.hessian for second "
            f"derivatives of a function of a pytree, or flatten the pytree with "
            f"astjax.flatten_util.ravel_pytree first")
    return x


def inplace_result(old, new):
    """The value of `x` after `x op= e` (normalized to `x = inplace_result(x, x op e)`) where x may be a NumPy array.

    NumPy writes the result into x: it keeps x's shape (a result that broadcasts to more elements is NumPy's
    ValueError) and x's dtype (`float32_array += float64_values` rounds to float32; floats into an integer array
    are NumPy's UFuncTypeError). astjax's functional `x = x op e` would silently keep the wider result: keep
    NumPy's dtype for a NumPy array, and refuse what NumPy refuses."""
    if not isinstance(old, np.ndarray) or isinstance(new, TreeAdjoint):
        return new
    result = np.asarray(new)
    if result.shape != old.shape:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"`x op= e` on an array of shape {old.shape} gives shape {result.shape}: NumPy writes "
                             "the result into x and raises (non-broadcastable output operand). Instead: "
                             "`x = x + e` to make a new, larger array.")
    if type(old) is np.ndarray and result.dtype != old.dtype:       # a NumPy array: NumPy keeps its dtype
        if not np.can_cast(result.dtype, old.dtype, "same_kind"):
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal(f"`x op= e` writes {result.dtype} values into a NumPy array of {old.dtype}: NumPy "
                                 "raises (UFuncTypeError). Instead: `x = x + e`, or make x a float array.")
        return result.astype(old.dtype)
    return new


def sequence_part(part):
    """True for a list or tuple that `sum(parts, [])` joins (frontend/normalize/sequence_sums.py); anything
    else is refused, where Python's own `[] + part` would raise or broadcast an array."""
    if isinstance(part, (list, tuple)):
        return True
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"`sum(parts, [])` here adds a value of type {type(part).__name__} to a list, which Python refuses "
                         "(or broadcasts, for an array); astjax joins lists and tuples only. Instead: "
                         "jnp.concatenate(parts) for arrays.")


def unshared_item(xs, i):
    """Before `xs[i][j] = v` (normalized to `row = xs[i]; row[j] = v; xs[i] = row`): refuse when another
    item of xs is that same object (`[row] * 2`, `[row, row]`), which Python would change too."""
    if isinstance(xs, (list, tuple)) and isinstance(i, (int, np.integer)) and -len(xs) <= i < len(xs):
        item = xs[i]
        if not isinstance(item, (list, dict, np.ndarray)):
            return
        for k, other in enumerate(xs):
            if k != i % len(xs) and (other is item or isinstance(item, np.ndarray) and isinstance(other, np.ndarray)
                                     and np.shares_memory(item, other)):
                from ..errors import RuntimeRefusal
                raise RuntimeRefusal(
                    f"`xs[{i}][...] = v` changes the object at position {i} of the list in place, and the item at "
                    f"position {k} is that object too: Python would change both, and astjax refuses it. Instead: "
                    "build the rows separately (`[[0.0] * n for _ in range(m)]`, not `[[0.0] * n] * m`).")


def array_holder(x):
    """Before `y = x.copy()` whose items are later updated in place (`y[i] += v`): refuse unless `x` is an
    array. An array's copy owns its memory; a list's copy is shallow, so `+=` on its item would change
    an array the original list holds too (NumPy's in-place add), which astjax does not follow."""
    if not isinstance(x, (np.ndarray, np.generic, int, float)) and type(x).__name__ != "Array":
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"`y = x.copy()` copies a {type(x).__name__}, and `y[i] += v` later changes an "
                             "item in place: the items of a shallow copy are the original's own arrays, which "
                             "NumPy would change too, and astjax refuses it. Instead: write the item anew "
                             "(`y[i] = y[i] + v`), or copy the items (`[v.copy() for v in x]`).")


def not_a_row(y, b):
    """Before `y op= e` where `y = b[i]` was read: refuse unless `y` is a number NumPy would rebind. An item
    of an array is a number (a copy); a row of an array, or an array held in a list, is changed in place
    by NumPy along with `b`."""
    if isinstance(y, (bool, int, float, complex, np.generic)):
        return
    if isinstance(b, np.ndarray) and isinstance(y, np.ndarray) and np.ndim(y) == 0:
        return          # astjax's own 0-d array for NumPy's scalar item
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal("`y = b[i]` is an array that `b` holds (a row of it, or an item of a list), and "
                         "`y op= e` changes it in place: NumPy would change `b` too, and astjax refuses it. "
                         "Instead: write `y = y - e` (a new array), or copy it first (`y = b[i].copy()`).")


def basic_index(index):
    """Before `y[a][b] = v` where `a` may be an array: refuse an advanced index (an integer or boolean array, 0-d
    too, a list, a bool), with which `y[a]` is a copy NumPy writes into, leaving `y` unchanged (astjax would change
    `y`). A NumPy integer (`np.int64(1)`) is an integer: `y[a]` is a view."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, (list, bool, np.bool_, np.ndarray)):
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal("`y[a][b] = v` with `a` an array, a list or a mask: `y[a]` is a copy, which NumPy "
                                 "writes into, leaving `y` unchanged, and astjax refuses it. Instead: index once "
                                 "(`y[a[b]] = v`), or name the copy (`part = y[a]`) and write into that.")


def not_a_view(value, target):
    """Before `a[i], a[j] = a[j], a[i]`: refuse a right-hand value that is a NumPy view of the array the
    assignments write into (NumPy would read the already-overwritten memory; astjax the old values)."""
    if isinstance(value, np.ndarray) and isinstance(target, np.ndarray) and np.shares_memory(value, target):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("a value assigned by a tuple assignment is a view of the array it is written into "
                             "(`A[0], A[1] = A[1], A[0]` on rows): NumPy overwrites it before it is read, and astjax "
                             "refuses it. Instead: copy the values first (`A[[0, 1]] = A[[1, 0]]`, or `.copy()`).")


def tuple_items(x):
    """`tuple(...)` of a list (normalization writes `tuple(v * 2 for v in xs)` as `tuple_items([v * 2 for v in
    xs])`): the same items, as a tuple."""
    if isinstance(x, (list, tuple)):
        return tuple(x)
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"`tuple(...)` is called on a {type(x).__name__}; astjax differentiates tuple() of a "
                         "list, tuple, comprehension or generator only. Instead: build the tuple from its items.")


def list_items(x):
    """What `list(x)` iterates (normalization writes `list(xs)` as `[v for v in list_items(xs)]`): `x` itself
    when it is a list, tuple or array of one or more dimensions (its rows, read by indexing, so the adjoint
    of each row reaches the array); the items of a range, zip, enumerate, ... (whose values no derivative
    reaches: astjax refuses those calls on values that carry one). A dict (Python lists its keys) is refused."""
    if isinstance(x, (list, tuple)):
        return x
    if isinstance(x, np.ndarray) and x.ndim > 0:
        return x
    if not isinstance(x, (dict, np.ndarray, np.generic)) and hasattr(x, "__iter__"):
        return list(x)
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"`list(...)` is called on a {type(x).__name__}; astjax copies lists, tuples and arrays "
                         "with it only. Instead: `list(d.keys())` for a dict's keys.")


def sorted_keys(x):
    """`sorted(x)` for the keys of a dict, or a list of strings or integers (no derivative flows through keys).

    Sorting values that carry a derivative (floats, arrays) is refused: `jnp.sort` does that."""
    if isinstance(x, dict):
        return sorted(x)
    if isinstance(x, (list, tuple, range)) and all(type(v) in (str, int, float) or isinstance(v, np.integer)
                                                   for v in x):
        return sorted(x)            # keys, or plain Python numbers (constants: a traced value is an array)
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"`sorted(...)` is called on a {type(x).__name__} that is not a dict or a list of string "
                         "or integer keys; astjax sorts keys only, since sorting values would need a derivative "
                         "of the permutation. Instead: use jnp.sort(jnp.stack(xs)) for values.")


def _ordered_source(source, what):
    """Refuse what `key_order`/`key_extremum` cannot gather from: a dict or set (Python orders its keys)."""
    if isinstance(source, (list, tuple)) or (isinstance(source, np.ndarray) and source.ndim > 0):
        return len(source)
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(f"`{what}` is called on a {type(source).__name__}; astjax orders lists, tuples and "
                         "arrays with it. Instead: order the keys (`sorted(d.keys(), key=...)`) or `list(...)` "
                         "the items first.")


def key_order(source, keys, reverse):
    """The positions of `source`'s items in Python's `sorted(source, key=..., reverse=reverse)` order (keys
    None: the items are their own keys). Python's stable sort on the same keys, so ties keep their order."""
    n = _ordered_source(source, "sorted")
    keys = source if keys is None else keys
    return sorted(range(n), key=lambda i: keys[i], reverse=bool(reverse))


def key_extremum(source, keys, largest):
    """The position of Python's `max(source, key=...)` (largest) or `min(...)`: the first extremal key."""
    n = _ordered_source(source, "max" if largest else "min")
    if n == 0:
        raise ValueError(f"{'max' if largest else 'min'}() iterable argument is empty")
    return (max if largest else min)(range(n), key=lambda i: keys[i])


def zip_star_length(rows):
    """How many tuples `zip(*rows)` makes: the length of the shortest row (0 without rows). Rows that are not
    sequences (the numbers of a 1-D array) are refused, as zip refuses them."""
    if isinstance(rows, dict) or not (isinstance(rows, (list, tuple)) or (isinstance(rows, np.ndarray)
                                                                          and rows.ndim > 0)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"`zip(*rows)` is called on a {type(rows).__name__}; astjax transposes a list or tuple "
                             "of sequences, or an array of two or more dimensions, with it.")
    lengths = []
    for row in rows:
        if not (isinstance(row, (list, tuple)) or (isinstance(row, np.ndarray) and row.ndim > 0)):
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal(f"`zip(*rows)` is called on rows that are {type(row).__name__}s, not sequences: "
                                 "zip takes iterables. Instead: iterate the rows themselves.")
        lengths.append(len(row))
    return min(lengths) if lengths else 0


def part_at(g, x, idx):
    """The part of `g` (an adjoint or tangent of x) at the position an `.at[idx]` update of x wrote.

    For an array, `g[idx]` with zeros where idx is out of bounds: JAX drops such an update, so
    its value gets no adjoint (NumPy's `g[idx]` would raise). For a list, item idx of its adjoint
    (a TreeAdjoint, or an array when the list was also read as one) or of its tangent.
    """
    if isinstance(x, dict):                       # item `idx` of a dict's adjoint (TreeAdjoint) or tangent (dict)
        if isinstance(g, TreeAdjoint):
            return g.items.get(idx, 0.0)
        if isinstance(g, dict):
            return g.get(idx, 0.0)
        return _zero_dict_adjoint(g)
    if _is_sequence(x):
        i = _list_position(x, idx)
        if isinstance(g, TreeAdjoint):
            return g.items.get(i, 0.0)
        if _is_sequence(g):
            return g[i]
        if np.ndim(g) == 0:
            return g                              # an adjoint nothing reached (0.0)
        return wrap(np.asarray(g)[i])
    g = np.asarray(g)
    if g.ndim == 0 and np.ndim(x) > 0:
        g = np.broadcast_to(g, np.shape(x))
    plain = _plain(idx)
    found = _in_bounds_mask(g.shape, plain)
    if found is None or found[1].all():
        return wrap(g[plain])
    arrays, valid = found
    rest = g.shape[len(arrays):]
    if not valid.any():
        return wrap(np.zeros(valid.shape + rest, dtype=g.dtype))
    picked = g[tuple(np.where(valid, p, 0) for p in arrays)]
    mask = valid.reshape(valid.shape + (1,) * len(rest))
    return wrap(np.where(mask, picked, np.zeros((), dtype=g.dtype)))


def placed_at(p, x, idx):
    """Transpose of `part_at`: `p` put at position idx of zeros shaped like x (out-of-bounds parts
    dropped, repeated positions added up); for a list, the adjoint of its item idx."""
    if isinstance(x, dict):
        return TreeAdjoint({_dict_key(idx): p})
    if _is_sequence(x):
        return TreeAdjoint({_list_position(x, idx): p})
    zeros = np.zeros(np.shape(x), dtype=_adjoint_dtype(x, p))
    return wrap(zeros).at[idx].add(p)


def cleared_at(g, x, idx):
    """`g` (an adjoint or tangent of x) with position idx set to zero: the part the update kept."""
    if isinstance(x, dict):
        if isinstance(g, TreeAdjoint):
            return TreeAdjoint({k: v for k, v in g.items.items() if k != idx}, g.fields)
        if isinstance(g, dict):
            return {k: (zero_tangent(v) if k == idx else v) for k, v in g.items()}
        return _zero_dict_adjoint(g)
    if _is_sequence(x):
        i = _list_position(x, idx)
        if isinstance(g, TreeAdjoint):
            return TreeAdjoint({k: v for k, v in g.items.items() if k != i}, g.fields, g.length)
        if _is_sequence(g):
            out = list(g)
            out[i] = zero_tangent(g[i])
            return out
        if np.ndim(g) == 0:
            return g                              # an adjoint nothing reached (0.0)
        return wrap(g).at[i].set(0.0)
    if np.ndim(g) == 0 and np.ndim(x) > 0:
        g = np.broadcast_to(np.asarray(g), np.shape(x))
    return wrap(g).at[idx].set(0.0)


class ContainerSeedError(TypeError):
    """grad's seed met an output that is a list or a dict (api.py names the function's return line)."""


def container_seed_message(kind, adjoint):
    """The error of a list's or dict's adjoint that is a nonzero scalar: grad's seed 1.0 met an output that is a
    container (a name holding it: a literal is refused where it is returned)."""
    return (f"astjax: a {kind}'s adjoint is the scalar {adjoint!r}, which cannot be split into its items. "
            f"Gradient only defined for scalar-output functions: where the differentiated function returns a list "
            f"or a dict, return one float scalar (`jnp.sum(...)` of the items), or use astjax.vjp / astjax.jacrev "
            f"for a container of outputs.")


def _zero_dict_adjoint(g):
    """A dict's adjoint that is not a TreeAdjoint must be the bare 0.0 nothing reached yet."""
    if np.ndim(g) == 0 and not np.any(g):
        return g
    raise ContainerSeedError(container_seed_message("dict", g))


def zero_tangent(x):
    """The zero tangent of x: zeros shaped like an array; a list (tuple) of them for a list (tuple)."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(zero_tangent(e) for e in x)
    if isinstance(x, tuple):        # a namedtuple: field by field
        return type(x)(*[zero_tangent(e) for e in x])
    if type(x) is dict:
        return {k: zero_tangent(v) for k, v in x.items()}
    if isinstance(x, TreeAdjoint):    # a gradient of a container argument (jacrev(grad(f)) of f(params))
        return TreeAdjoint({k: zero_tangent(v) for k, v in x.items.items()}, x.fields)
    if x is None or isinstance(x, (str, bytes)) or callable(x):     # a record's name or method: no tangent
        return None
    return wrap(np.zeros(np.shape(x), dtype=np.result_type(x, np.float32)))


def clip_mask(a, a_min=None, a_max=None, min=None, max=None):
    """1.0 where `clip(a, a_min, a_max)` passes `a` through, 0.0 where it clips, 0.5 on a bound.

    As in JAX, where clip is maximum then minimum and each shares a tie's gradient equally.
    `min` / `max` are the keyword spellings of the bounds (jnp.clip(a, min=..., max=...)).
    """
    a_min = a_min if min is None else min
    a_max = a_max if max is None else max
    a = np.asarray(a)
    dtype = a.dtype if np.issubdtype(a.dtype, np.inexact) else np.float32
    mask = np.ones(a.shape, dtype=dtype)
    if a_min is not None:
        mask = mask * np.where(a > a_min, 1.0, np.where(a == a_min, 0.5, 0.0)).astype(dtype)
    if a_max is not None:
        mask = mask * np.where(a < a_max, 1.0, np.where(a == a_max, 0.5, 0.0)).astype(dtype)
    return wrap(mask)


def _tie_weight(u, v, dtype):
    """d max(u, v) / du as JAX shares it: 1 where u wins, 0.5 on a tie, 0 where v wins."""
    return np.where(u > v, 1.0, np.where(u == v, 0.5, 0.0)).astype(dtype)


def _clip_weight_dtype(*values):
    dtype = np.result_type(*[np.asarray(v) for v in values if v is not None])
    return dtype if np.issubdtype(dtype, np.inexact) else np.float32


def clip_lower_weight(a, a_min=None, a_max=None, min=None, max=None):
    """d clip(a, lo, hi) / d lo: clip is minimum(maximum(a, lo), hi), so lo counts where it beats `a`
    and the result is not then cut by `hi` (ties share half, as in JAX)."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    dtype = _clip_weight_dtype(a, lo, hi)
    weight = _tie_weight(np.asarray(lo), np.asarray(a), dtype)
    if hi is not None:
        weight = weight * _tie_weight(np.asarray(hi), np.maximum(a, lo), dtype)
    return wrap(weight)


def clip_upper_weight(a, a_min=None, a_max=None, min=None, max=None):
    """d clip(a, lo, hi) / d hi: 1 where `hi` cuts maximum(a, lo), 0.5 on a tie."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    dtype = _clip_weight_dtype(a, lo, hi)
    kept = np.asarray(a) if lo is None else np.maximum(a, lo)
    return wrap(_tie_weight(kept, np.asarray(hi), dtype))


def extremum_mask(a, y, axis=None, keepdims=False):
    """Where `a` attains its max/min `y`, each tie weighted 1/count (as JAX shares the gradient)."""
    a = np.asarray(a)
    hit = (a == np.asarray(unreduce(y, a, axis, keepdims))).astype(a.dtype)
    count = hit.sum(axis=axis, keepdims=True)
    return wrap(hit / np.maximum(count, 1))     # no hit: `initial` was the extremum, no gradient


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
    if isinstance(t, TreeAdjoint) or any(isinstance(o, (TreeAdjoint, tuple, list, dict)) for o in operands):
        return t                  # the tangent of a container adds item by item; nothing is broadcast
    shape = np.broadcast_shapes(*(np.shape(o) for o in operands))
    t = weak_array(t, operands[0]) if operands else np.asarray(t)
    return wrap(t if t.shape == shape else np.broadcast_to(t, shape))


def cumsum_adjoint(g, a, axis=None):
    """Transpose of `cumsum`: the sum of `g` from each position to the end (then shaped like `a`)."""
    g = np.asarray(g)
    if axis is None:
        return wrap(np.flip(np.cumsum(np.flip(g.ravel()))).reshape(np.shape(a)))
    return wrap(np.flip(np.cumsum(np.flip(g, axis), axis), axis))


def trace_adjoint(g, a, offset=0, axis1=0, axis2=1):
    """Transpose of `trace`: `g` placed on the diagonal of zeros shaped like `a`."""
    a_shape = np.shape(a)
    out = np.zeros(a_shape, dtype=_adjoint_dtype(a, g))
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    n, m = moved.shape[-2:]
    rows = np.arange(max(0, -offset), min(n, m - offset))
    moved[..., rows, rows + offset] = np.asarray(g)[..., None]
    return wrap(out)


def take_positions(indices, n, mode=None):
    """Where `take(a, indices, mode=mode)` reads along an axis of length n: negative indices counted from
    the end, "wrap" taken modulo n, "clip" clamped; for "fill" (JAX's default) an index out of range
    reads nothing (-1 here, and `kept` is False there)."""
    indices = np.asarray(indices).astype(np.intp)
    if mode == "wrap":
        return np.mod(indices, n) if n else indices, np.ones(indices.shape, dtype=bool)
    if mode == "clip":
        return np.clip(indices, 0, max(n - 1, 0)), np.ones(indices.shape, dtype=bool)
    kept = (indices >= -n) & (indices < n)
    return np.where(kept, np.where(indices < 0, indices + n, indices), -1), kept


def take_adjoint(g, a, indices, axis=None, mode=None):
    """Transpose of `take`: `g` added back at `indices` (repeats add up) in zeros shaped like `a`; an index
    out of range under mode "fill" (JAX's default) read a fill value, so its part of `g` goes nowhere."""
    out = np.zeros(np.shape(a), dtype=_adjoint_dtype(a, g))
    ax = None if axis is None else axis % max(out.ndim, 1)
    indices, kept = take_positions(indices, out.size if ax is None else out.shape[ax], mode)
    if not kept.all():     # g's axes: a's before `axis`, then the indices', then a's after it
        mask = kept if ax is None else kept.reshape((1,) * ax + kept.shape + (1,) * (out.ndim - ax - 1))
        g = np.where(mask, g, 0)
        indices = np.where(kept, indices, 0)
    if axis is None:
        np.add.at(out.reshape(-1), indices.reshape(-1), np.asarray(g).reshape(-1))
    else:
        axis = axis % out.ndim
        np.add.at(out, (slice(None),) * axis + (indices,), np.asarray(g))
    return wrap(out)


def sum_adjoint(g, iterable):
    """The adjoint of a list passed to the builtin `sum`: `g` for every item, summed to its shape.

    An array iterated by `sum` (`sum(x)`, `sum(A)` adds A's rows) gets an array adjoint: `g`, summed to
    the shape of one row, in every row (a list-shaped adjoint could not become the array's gradient)."""
    if isinstance(iterable, np.ndarray) and not isinstance(g, TreeAdjoint):
        row = np.empty(iterable.shape[1:], dtype=np.bool_) if iterable.ndim > 1 else np.bool_(False)
        per_row = np.asarray(unbroadcast(g, row))
        dtype = np.result_type(per_row, iterable) if iterable.dtype.kind in "fc" else per_row.dtype
        return wrap(np.broadcast_to(per_row.astype(dtype, copy=False), iterable.shape).copy())
    if any(isinstance(item, (tuple, list, dict)) for item in iterable):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("the builtin `sum` here concatenates lists or tuples, and astjax differentiates the "
                             "builtin sum of numbers and arrays only. Instead: write the start as a literal "
                             "(`sum(parts, [])`, which astjax differentiates), or flatten with a comprehension "
                             "(`[v for part in parts for v in part]`).")
    return TreeAdjoint({k: unbroadcast(g, item) for k, item in enumerate(iterable)}, length=len(iterable))


def sum_items(t, like, iterable):
    """Transpose of `sum_adjoint`: the items of a list adjoint, each broadcast to `like`'s shape, added."""
    if isinstance(iterable, np.ndarray) and not isinstance(t, TreeAdjoint) and np.ndim(t) == iterable.ndim > 0:
        total = np.sum(np.asarray(t), axis=0)         # an array's adjoint: its rows, added
        return wrap(np.broadcast_to(total, np.shape(like)).astype(np.result_type(total, like, np.float32)))
    items = t.items if isinstance(t, TreeAdjoint) else {}
    total = np.zeros(np.shape(like), dtype=np.result_type(like, np.float32))
    for value in items.values():
        total = total + np.asarray(value)
    return wrap(total)


def to_float(x):
    """`float(x)` that keeps a 0-d array's precision."""
    return wrap(np.asarray(x, dtype=np.result_type(x, np.float32)))


def zeros_shaped(shape, like):
    """Zeros of a saved shape, in the floating dtype of `like` (an adjoint of the same variable).

    A tuple, list or dict variable (its adjoint `like` is one, or a TreeAdjoint) gets 0.0 as in zero_like:
    its saved shape would make an array of float32 zeros that then absorbs the items' adjoints."""
    if isinstance(like, (tuple, list, dict, TreeAdjoint)):
        return 0.0
    dtype = np.result_type(like, np.float32) if isinstance(like, np.ndarray) else np.float32
    return wrap(np.zeros(tuple(shape), dtype=dtype))


def zero_like(x):
    """The adjoint nothing has reached yet: zeros shaped like `x`.

    A tuple, list or dict gets 0.0 (its adjoint grows item by item, see
    TreeAdjoint) and a tape an empty tape.
    """
    from .control import Tape
    if isinstance(x, Tape):
        return Tape()
    if x is None or isinstance(x, (tuple, list, dict, TreeAdjoint)):
        return 0.0
    return wrap(np.zeros(np.shape(x), dtype=np.result_type(x, np.float32)))


def _plain(idx):
    if isinstance(idx, tuple):
        return tuple(_plain(i) for i in idx)
    return np.asarray(idx) if isinstance(idx, np.ndarray) else idx


def diagonal_adjoint(g, a, offset=0, axis1=0, axis2=1):
    """Transpose of `diagonal`: `g` written on that diagonal of zeros shaped like `a`."""
    out = np.zeros(np.shape(a), dtype=_adjoint_dtype(a, g))
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    n, m = moved.shape[-2:]
    rows = np.arange(max(0, -offset), min(n, m - offset))
    moved[..., rows, rows + offset] = np.asarray(g)
    return wrap(out)


def repeat_adjoint(g, a, repeats, axis=None):
    """Transpose of `repeat`: each element's copies summed back (shaped like `a`)."""
    g = np.asarray(g)
    shape = np.shape(a)
    ax = 0 if axis is None else axis % max(len(shape), 1)
    length = int(np.prod(shape)) if axis is None else shape[ax]
    counts = np.broadcast_to(np.asarray(repeats), (length,))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    summed = np.add.reduceat(g, starts, axis=ax) if g.shape[ax] else np.zeros_like(g)
    summed = np.where(np.expand_dims(counts, tuple(i for i in range(g.ndim) if i != ax)) == 0, 0, summed)
    return wrap(summed.reshape(shape))


def linspace_weights(y, num, endpoint=True, axis=0):
    """How far along each sample of `linspace(start, stop, num, endpoint, axis)` lies: 0 at start, 1 at stop.

    Shaped to broadcast against the result `y` (num along `axis`, 1 elsewhere), in y's dtype.
    """
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    shape = [1] * np.ndim(y)
    shape[axis] = num
    return wrap(t.reshape(shape).astype(np.result_type(y, np.float32)))


def meshgrid_axes(k, y, indexing="xy"):
    """The axes of grid k of `meshgrid` along which input k is *not* laid out (the axes its adjoint sums)."""
    count = len(y)
    along = k
    if indexing == "xy" and count >= 2 and k < 2:
        along = 1 - k
    return tuple(i for i in range(count) if i != along)


def meshgrid_list(xs, sparse=False, indexing="xy"):
    """`jnp.meshgrid(*xs)`: the grids of a list of inputs (the tangent rule of meshgrid)."""
    from .. import numpy as jnp
    return jnp.meshgrid(*xs, sparse=sparse, indexing=indexing)


def tree_leaves_of(tree):
    """`tree_util.tree_leaves(tree)`, also for a tree of adjoints (a TreeAdjoint stands for its container)."""
    from .. import tree_util
    if isinstance(tree, TreeAdjoint):
        return [leaf for key in sorted(tree.items, key=_sort_key) for leaf in tree_leaves_of(tree.items[key])]
    return tree_util.tree_leaves(tree)


def adjoint_leaves(g, tree):
    """The leaves of `g`, an adjoint or a tangent of `tree`, in the order of `tree`'s leaves.

    An adjoint holds only the items reached so far: flattening it alone would
    drop the others and shift the rest onto the wrong leaves, so it is first
    filled out to `tree`'s structure (unreached items are zeros).
    """
    from .. import tree_util
    treedef = tree_util.tree_structure(tree)
    if isinstance(g, TreeAdjoint) or (isinstance(tree, (tuple, list, dict)) and not isinstance(g, (tuple, list, dict))):
        g = materialize(g, tree)
    return treedef.flatten_up_to(g)


def cotangent_like(g, like):
    """The cotangent a custom_vjp's bwd receives: shaped like the output `like` (a tuple output's
    cotangent a tuple, zeros where nothing reached it), as JAX passes it."""
    return materialize(g, like)


def leaves_like(tree, like):
    """The leaves of `tree`, which must have the structure of `like` (tree_map's other trees)."""
    from .. import tree_util
    structure, expected = tree_util.tree_structure(tree), tree_util.tree_structure(like)
    if structure != expected:
        raise ValueError(f"tree_map: a tree has structure {structure}, which does not match the first "
                         f"tree's structure {expected}")
    return tree_util.tree_leaves(tree)


def tree_rebuilt(like, leaves):
    """A tree of `like`'s structure holding `leaves` (tree_map's result, from its mapped leaves)."""
    from .. import tree_util
    return tree_util.tree_unflatten(tree_util.tree_structure(like), list(leaves))


def shaped_gradient(result, gradient_function, args):
    """The result of the generated code of `grad(f)` (or value_and_grad) called inside jitted code,
    shaped as the API returns it: a container's gradient rebuilt from the items it reached, unreached
    gradients as zeros. (Numba, which takes arrays only, compiles this as `result` itself.)"""
    from ..api import _materialize_grads
    transform = gradient_function.__astjax_transform__
    args = list(args)
    if transform.kind == "value_and_grad":
        return result[0], _materialize_grads(transform, result[1], args)
    if transform.has_aux:
        return _materialize_grads(transform, result[0], args), result[1]
    return _materialize_grads(transform, result, args)


def leaves_adjoint(g, tree):
    """`adjoint_leaves(g, tree)` as the adjoint of the list of leaves (a TreeAdjoint, item k for leaf k)."""
    return TreeAdjoint(dict(enumerate(adjoint_leaves(g, tree))))


def tree_leaves_adjoint(tree, g):
    """Transpose of `tree_leaves`: item k of the list adjoint `g` becomes the adjoint of leaf k of `tree`."""
    from .. import tree_util
    leaves, treedef = tree_util.tree_flatten(tree)
    return _container_adjoint(treedef.unflatten([item_adjoint(g, k) for k in range(len(leaves))]))


def _container_adjoint(value):
    """A tree of adjoints as the TreeAdjoint the adjoint sweep accumulates for a container."""
    if isinstance(value, dict):
        return TreeAdjoint({k: _container_adjoint(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        fields = getattr(type(value), "_fields", None)
        return TreeAdjoint({i: _container_adjoint(v) for i, v in enumerate(value)},
                           list(fields) if fields else None)
    return value


def _sort_key(key):
    return (str(type(key)), key)


def unique_index(idx, x):
    """`idx`, once checked to name no element of `x` twice.

    The rules of `.at[idx].multiply/max/min` hold for distinct positions only;
    with a repeated position they would be wrong, so that is an error.
    """
    if _is_sequence(x) or isinstance(x, dict):
        return idx                              # a list's (dict's) item is updated at one position (key)
    positions = np.asarray(part_at(np.arange(np.size(x)).reshape(np.shape(x)) + 1, x, idx))
    positions = positions[positions > 0]        # out-of-bounds positions (0 here) are dropped, never repeated
    if np.size(positions) != np.unique(positions).size:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("the derivative of x.at[idx].set/multiply/max/min with an index that repeats a "
                             f"position ({idx!r}) is not supported (set keeps one of the values written there, "
                             "and which one is not specified); combine the repeated updates first")
    return idx


def adjugate(a):
    """The adjugate of a (batch of) square matrices, exact for singular ones too: det(a) inv(a) if invertible.

    From the SVD a = U S V^T: adj(a) = det(U) det(V) V diag(prod_{j != i} s_j) U^T.
    """
    a = np.asarray(a)
    u, s, vt = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1) if n > 1 \
        else np.ones_like(s)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    v = np.swapaxes(vt, -1, -2)
    out = (v * others[..., None, :]) @ np.swapaxes(u, -1, -2) * sign[..., None, None]
    return wrap(out.astype(np.result_type(a, np.float32)))


def spectral_direction(x):
    """u v^T for the top singular pair of the matrix x: the gradient of its spectral norm."""
    u, _, vt = np.linalg.svd(np.asarray(x))
    return wrap(np.outer(u[:, 0], vt[0]).astype(np.result_type(x, np.float32)))


def no_higher_derivative(t, what):
    """Stands in the rules of a primitive whose own derivative astjax does not have: an error if reached."""
    raise NotImplementedError(f"astjax: the second derivative of {what} is not supported")


def cast_adjoint(g, like):
    """`g`, or zeros when the cast's result `like` is integer or boolean: a cast to int carries no derivative."""
    if np.issubdtype(np.result_type(like), np.inexact):
        return g
    return wrap(np.zeros(np.shape(g), dtype=np.result_type(g, np.float32)))


def lone_zero(a, axis=None, keepdims=False):
    """1.0 where a slice of `a` along `axis` holds exactly one zero, else 0.0 (shaped like prod's result)."""
    a = np.asarray(a)
    dtype = a.dtype if a.dtype.kind == "f" else np.float64
    return wrap((np.sum(a == 0.0, axis=axis, keepdims=keepdims) == 1).astype(dtype))


PROD_AT_ZEROS = ("astjax: the second derivative of prod at a slice holding two or more zeros is not supported "
                 "(prod's first-derivative formula is exact there, its derivative is not); move the point off "
                 "the zeros or write the product as explicit multiplications")


def lone_zero_derivative(t, a, axis=None, keepdims=False, like=None):
    """Zeros shaped like `like`: lone_zero is piecewise constant. But prod's second derivative is not
    exact at a slice with two or more zeros, so reaching one is refused rather than answered with 0."""
    from ..errors import RuntimeRefusal
    if np.any(np.sum(np.asarray(a) == 0.0, axis=axis) >= 2):
        raise RuntimeRefusal(PROD_AT_ZEROS)
    return wrap(np.zeros_like(np.asarray(like), dtype=np.result_type(like, t)))


def square_unless_reduced(a, full_matrices):
    """`a` itself, after checking that svd's full_matrices=True gives the reduced factors: it does for a
    square matrix; for any other the extra columns have no derivative (JAX refuses too)."""
    if full_matrices and np.shape(a)[-1] != np.shape(a)[-2]:
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(f"astjax: the derivative of jnp.linalg.svd with full_matrices=True of a "
                             f"{np.shape(a)[-2]}x{np.shape(a)[-1]} matrix is not defined (its extra singular "
                             f"vectors are arbitrary); pass full_matrices=False, or compute_uv=False for the "
                             f"singular values alone")
    return a


def well_conditioned(a, what):
    """`a` itself, after checking that its inverse can be trusted: the second derivatives of det go through
    det(a) inv(a), which is exact for an invertible `a` but raises or loses every digit at a singular or
    nearly singular one. Refused there rather than answered wrongly."""
    from ..errors import RuntimeRefusal
    matrix = np.asarray(a)
    dtype = matrix.dtype if matrix.dtype.kind == "f" else np.dtype(np.float64)
    with np.errstate(all="ignore"):
        condition = np.linalg.cond(matrix.astype(np.float64)) if matrix.size else 1.0
    if not np.all(np.isfinite(condition)) or np.max(condition) * np.finfo(dtype).eps > 1e-3:
        raise RuntimeRefusal(f"astjax: the second derivative of {what} at a singular or nearly singular matrix "
                             f"(condition number {np.max(condition):.3g}) is not supported: its formula goes "
                             f"through the inverse, which would give wrong digits there")
    return a
