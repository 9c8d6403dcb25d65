"""Batching rules (vmap): how each primitive computes a whole batch at once.

A batched value holds the batch on axis 0. A rule receives the statement
`target = prim(...)` of the per-example function and returns the statements
that compute `target` for the whole batch, calling only primitives (so that
`grad(vmap(f))` and `vmap(vmap(f))` transform vmap's output like any source),
or None: then vmap loops over the batch for that statement (never a wrong
number). Most primitives need no line here:

- elementwise ones (`sin`, `+`, `where`, comparisons): the batch axis passes
  through; a batched operand of lower per-example rank than another operand
  gets unit axes after axis 0, so NumPy's broadcasting lines the batch axes up
  (a per-example scalar of shape (B,) meeting an (n,) array becomes (B, 1));
- reductions (`sum`, `mean`, `max`, `argmax`, ...): `axis` shifts by one,
  `axis=None` becomes every axis but 0.

Hand-written rules follow, registered with `defbatch`: dot and matmul become
one matrix product (`vmap(jnp.dot, in_axes=(None, 0))` is `vectors @ matrix.T`),
indexing with an unbatched index is `x[:, i]`, and so on. The small helpers
below (`batch_shape`, `batch_axis`, ...) compute shapes and axes only; they are
primitives with no derivative, like `jnp.shape`.

The `bt` argument of a rule is the transformation (transforms/vmap.py): it
says which operands are batched (`bt.is_batched`), their per-example ranks
(`bt.rank`), gives fresh names and the batch size (`bt.B`).
"""
import copy

import gast
import numpy as np

from .. import numpy as jnp
from ..analyses.batching import ARRAY, is_container, is_elementwise
from ..array import wrap
from . import helpers
from .registry import PRIMITIVES, defbatch, defjvp, deflowering, defvjp, primitive

__all__ = ["batch_shape", "batch_part_rank", "batch_axis", "batch_permutation", "batch_index", "batch_prepend", "example_of",
           "stack_adjoint_examples",
           "stack_examples", "broadcast_batch", "generic_rule"]

from .nondifferentiable import INTEGER, SHAPES   # noqa: E402 (the reasons the table states)


# ---------------------------------------------------------------- runtime helpers (shapes and axes only)
def batch_shape(shape, *ranks):
    """`shape` (batch first) with unit axes after the batch axis, so the per-example part has at least
    the largest of `ranks` axes: (B, n) lifted to per-example rank 3 is (B, 1, 1, n)."""
    shape = tuple(int(n) for n in shape)
    missing = max([int(r) for r in ranks] + [0]) - (len(shape) - 1)
    return shape[:1] + (1,) * max(missing, 0) + shape[1:]


def batch_axis(axis, ndim):
    """A per-example `axis` (None, an int or a tuple) as an axis of the batched array of `ndim` axes."""
    if axis is None:
        return tuple(range(1, int(ndim)))
    if isinstance(axis, (tuple, list)):
        return tuple(batch_axis(a, ndim) for a in axis)
    axis = int(axis)
    return axis + 1 if axis >= 0 else axis


def batch_permutation(axes, ndim):
    """The transpose permutation of a batched array for a per-example `axes` (None reverses them)."""
    ndim = int(ndim)
    if axes is None:
        return (0,) + tuple(range(ndim - 1, 0, -1))
    return (0,) + tuple(int(a) % (ndim - 1) + 1 for a in axes)


def batch_prepend(size, shape):
    """`(size,) + shape` for a shape given as an int or a tuple."""
    return (int(size),) + ((int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape))


def batch_index(idx, size=None):
    """The index of a batched array for a per-example index: `:` in front, the rest as they are.

    An index whose array parts (and the integers beside them) are separated by a slice, `None` or `...`
    puts NumPy's advanced-index axes first, in front of the batch axis. There the batch axis becomes an
    advanced index too, `arange(size)` shaped (size, 1, ...) in front of the others' broadcast shape, so the
    result (and an `.at[]` update's value) is (batch, advanced axes, sliced axes), as per example.
    """
    parts = idx if isinstance(idx, tuple) else (idx,)
    if _splits_advanced(parts):
        if size is None:
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal("vmap: an index whose array parts are separated by a slice (NumPy moves their "
                                 "axes first) needs the batch size here, which this call does not know. Instead: "
                                 "write the index parts next to each other, or index with jnp.take.")
        shapes = [(int(np.count_nonzero(p)),) if np.asarray(p).dtype == bool else np.shape(p)
                  for p in parts if _is_advanced(p)]
        rank = len(np.broadcast_shapes(*shapes))
        return (np.arange(int(size)).reshape((int(size),) + (1,) * rank),) + parts
    return (slice(None),) + parts


def _is_advanced(p):
    return not isinstance(p, slice) and p is not None and p is not Ellipsis


def _splits_advanced(parts):
    """Whether NumPy moves the advanced-index axes of `parts` to the front: some part is an array (integers
    and 0-d arrays alone index as basic), and the array and integer parts are not next to each other."""
    positions = [i for i, p in enumerate(parts) if _is_advanced(p)]
    if len(positions) < 2 or positions[-1] - positions[0] + 1 == len(positions):
        return False
    if not any(np.ndim(p) > 0 for i, p in enumerate(parts) if i in positions):
        return False
    if any(np.ndim(p) == 0 and np.asarray(p).dtype == bool for p in parts if _is_advanced(p)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("vmap: an index with a boolean scalar beside separated array parts is not batched "
                             "(NumPy's placement of its axis there is irregular). Instead: drop the boolean scalar.")
    return True


def batch_part_rank(shape, idx):
    """The per-example rank of `x[idx]` for a batched x of `shape` and a batched index `(:, ...)`, also
    where idx is out of bounds (an `.at[]` update drops those parts, as JAX): its integer parts are
    clipped into range first, which changes no rank."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    clipped, axis = [], 0
    for p in parts:
        if p is None or isinstance(p, slice) or p is Ellipsis or np.asarray(p).dtype == bool:
            clipped.append(p)
        else:
            n = shape[axis] if axis < len(shape) else 1
            clipped.append(np.clip(np.asarray(p), -n, max(n - 1, 0)))
        if p is not None and p is not Ellipsis:
            axis += np.ndim(p) if np.asarray(p).dtype == bool and not isinstance(p, slice) else 1
    return np.broadcast_to(np.empty((), dtype=bool), tuple(shape))[tuple(clipped)].ndim - 1


def batch_take_index(idx):
    """A batched index into an unbatched array: only integer indices pick one element per example."""
    if np.asarray(idx).dtype.kind not in "iu":
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("vmap: a batched index must be an integer array (a boolean mask selects a different "
                             "number of elements in each example, which no batched array holds). Instead: keep "
                             "the shape fixed (jnp.where(mask, x, 0.0) rather than x[mask]).")
    return idx


def batch_getitem(x, idx):
    """`x[idx]` of a batched value whose kind vmap could not tell: a container's item, an array's `x[:, idx]`."""
    from .helpers import TreeAdjoint
    if isinstance(x, (tuple, list, dict, TreeAdjoint)):
        return x[idx]
    return x[batch_index(idx, np.shape(x)[0])]


def example_of(tree, b):
    """Example `b` of a batched tuple, list or dict (every leaf carries the batch on axis 0)."""
    from .helpers import TreeAdjoint
    if isinstance(tree, TreeAdjoint):
        return TreeAdjoint({k: v if _python_zero(v) else example_of(v, b) for k, v in tree.items.items()},
                           tree.fields)
    if isinstance(tree, dict):
        return type(tree)((k, example_of(v, b)) for k, v in tree.items())
    if isinstance(tree, (tuple, list)):
        items = [example_of(v, b) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if _same_for_every_example(tree):
        return tree
    return tree[b]


def _same_for_every_example(value):
    """None (a custom_vjp's empty residual), a slice, `...` or a string (a key, an index a tape keeps):
    values that hold no number, so a batched name holding one holds the same value for every example."""
    return value is None or isinstance(value, (slice, str, type(Ellipsis)))


def stack_examples(results):
    """The per-example results of a statement vmap could not batch, stacked on a new axis 0
    (containers leaf by leaf)."""
    from .helpers import TreeAdjoint
    first = results[0] if results else None
    if isinstance(first, TreeAdjoint) or (any(isinstance(r, TreeAdjoint) for r in results)):
        keys = {k for r in results if isinstance(r, TreeAdjoint) for k in r.items}
        fields = next(r.fields for r in results if isinstance(r, TreeAdjoint))
        items = {k: [_zero_for(r, k, results) for r in results] for k in keys}
        return TreeAdjoint({k: 0.0 if all(_python_zero(v) for v in vs) else stack_adjoint_examples(vs)
                            for k, vs in items.items()}, fields)
    if isinstance(first, dict):
        return type(first)((k, stack_examples([r[k] for r in results])) for k in first)
    if isinstance(first, (tuple, list)):
        items = [stack_examples([r[i] for r in results]) for i in range(len(first))]
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    if _same_for_every_example(first) and all(type(r) is type(first) and r == first for r in results):
        return first
    arrays = [np.asarray(r) for r in results]
    try:
        return wrap(np.stack(arrays))
    except ValueError:
        from ..numpy import stack
        stack(arrays)        # raises the refusal that says why the examples' shapes differ
        raise


def stack_adjoint_examples(results):
    """The per-example results of a derivative (vmap of grad's source, looped over the batch), stacked as
    stack_examples does. A derivative's zero adjoint may be a bare `0.0`, which stands for zeros of any
    shape (the example whose loop ran no iteration): it takes the shape and dtype of the other examples'
    arrays, as grad's own wrapper would make it."""
    first = results[0] if results else None
    if isinstance(first, (tuple, list)) and not hasattr(first, "_fields") and all(
            isinstance(r, type(first)) and len(r) == len(first) for r in results):
        return type(first)(stack_adjoint_examples([r[i] for r in results]) for i in range(len(first)))
    shaped = [r for r in results if isinstance(r, np.ndarray) and np.ndim(r) > 0]
    if shaped and len(shaped) < len(results) and all(np.shape(r) == np.shape(shaped[0]) for r in shaped):
        like = shaped[0]
        results = [r if r is like or (isinstance(r, np.ndarray) and np.ndim(r) > 0) or not _bare_zero(r)
                   else np.zeros(np.shape(like), dtype=np.result_type(like)) for r in results]
    return stack_examples(results)


def _python_zero(value):
    """An adjoint tree's bare zero item (a Python 0.0 standing for zeros of any shape): the same for every
    example, and it must stay bare (as a batched (B,) array it would meet another example's (B, n) item as a
    per-example scalar, which only broadcasts by luck)."""
    return type(value) in (int, float, complex) and value == 0


def _bare_zero(value):
    return isinstance(value, (int, float, np.ndarray, np.generic)) and np.ndim(value) == 0 and value == 0


def _zero_for(result, key, results):
    """Item `key` of one example's adjoint tree; zeros shaped like another example's item where it has none."""
    from .helpers import TreeAdjoint
    if isinstance(result, TreeAdjoint) and key in result.items:
        return result.items[key]
    like = next(r.items[key] for r in results if isinstance(r, TreeAdjoint) and key in r.items)
    return np.zeros_like(np.asarray(like)) if not isinstance(like, (TreeAdjoint, tuple, list, dict)) else like * 0


def broadcast_batch(tree, size):
    """An unbatched value (array, or every leaf of a container) repeated along a new axis 0 of `size`."""
    from .helpers import TreeAdjoint
    if isinstance(tree, TreeAdjoint):
        return TreeAdjoint({k: v if _python_zero(v) else broadcast_batch(v, size) for k, v in tree.items.items()},
                           tree.fields)
    if isinstance(tree, dict):
        return type(tree)((k, broadcast_batch(v, size)) for k, v in tree.items())
    if isinstance(tree, (tuple, list)):
        items = [broadcast_batch(v, size) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if _same_for_every_example(tree):
        return tree
    value = np.asarray(tree)
    return wrap(np.broadcast_to(value, (int(size),) + value.shape))


def batch_size_of(tree):
    """The batch size of a batched value: the length of axis 0 of its first leaf (a None in a container is an
    empty subtree, as in JAX's pytrees, not a leaf)."""
    if isinstance(tree, (tuple, list, dict)):
        from .. import tree_util
        leaves = tree_util.tree_leaves(tree)
        if not leaves:
            from ..errors import RuntimeRefusal
            raise RuntimeRefusal(
                "vmap cannot tell the batch size here: the only batched argument of this function is an empty "
                "tuple or list (a per-example shape `()`), which carries no batch axis; pass the function an "
                "array that carries the batch, or compute this part outside vmap")
        tree = leaves[0]
    return int(np.shape(tree)[0])


for _fn in (batch_shape, batch_axis, batch_permutation, batch_prepend, batch_index, batch_size_of, batch_part_rank):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)
# An unbatched value repeated along the batch (rules/helpers.batch_broadcast): linear in `value`, as broadcast_to.
_batch_broadcast = primitive("batch_broadcast", helpers.batch_broadcast, operands=("value",),
                             shape_params=("size", "likes"))
defvjp(_batch_broadcast, "bvalue += unbroadcast(by, value)")
defjvp(_batch_broadcast, "dy = batch_broadcast(dvalue, size, likes)")
deflowering(_batch_broadcast, numba="astjax.runtime.numba_cpu:batch_broadcast")
deflowering(PRIMITIVES["batch_prepend"], numba="astjax.runtime.numba_cpu:batch_prepend")
primitive("batch_take_index", batch_take_index, operands=(), differentiable=False, reason=INTEGER)
deflowering(PRIMITIVES["batch_take_index"], numba="astjax.runtime.numba_cpu:batch_take_index")
# example_of, stack_examples and broadcast_batch carry values (not only shapes) and have no derivative
# rules: they count as library code, so a transformation that meets them refuses at that line instead of
# transforming their source (grad of a vmap that looped over the batch of tuples).
for _fn in (example_of, stack_examples, stack_adjoint_examples, broadcast_batch, batch_getitem):
    _fn.__module__ = "astjax.lax"
HELPERS = {f.__name__: f for f in (batch_shape, batch_axis, batch_permutation, batch_prepend, batch_index, batch_part_rank,
                                    batch_take_index, batch_size_of, batch_getitem, example_of, stack_examples,
                                    broadcast_batch, stack_adjoint_examples)}


# ---------------------------------------------------------------- node helpers
def _name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _const(value):
    return gast.Constant(value=value, kind=None)


def _call(func, *args, **keywords):
    if isinstance(func, str):
        parts = func.split(".")
        node = _name(parts[0])
        for attr in parts[1:]:
            node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
        func = node
    return gast.Call(func=func, args=list(args), keywords=[gast.keyword(arg=k, value=v) for k, v in keywords.items()])


def _tuple(*elts):
    return gast.Tuple(elts=list(elts), ctx=gast.Load())


def _is_const(node, *values):
    return isinstance(node, gast.Constant) and any(node.value is v or (type(node.value) is type(v) and node.value == v)
                                                   for v in values)


def _static_int(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and _static_int(node.operand) is not None:
        return -_static_int(node.operand)
    return None


def _shift(axis_node, bt, array):
    """A per-example axis argument as the batched array's axis (statically when it is written as a literal)."""
    k = _static_int(axis_node)
    if k is not None:
        return _const(k + 1 if k >= 0 else k)
    if isinstance(axis_node, gast.Tuple) and all(_static_int(e) is not None for e in axis_node.elts):
        return _tuple(*[_const(_static_int(e) + 1 if _static_int(e) >= 0 else _static_int(e)) for e in axis_node.elts])
    if _is_const(axis_node, None) and bt.rank(array) is not None:
        return _tuple(*[_const(i) for i in range(1, bt.rank(array) + 1)])
    return _call(bt.helper(batch_axis), copy.deepcopy(axis_node), _call("jnp.ndim", copy.deepcopy(array)))


def _rebuild(app, bt, replace, keep_defaults=True):
    """The statement's call written through `jnp.<name>` with bound arguments replaced by `replace`."""
    prim = app.primitive
    impl_name = getattr(jnp, prim.name, None)
    if impl_name is not prim.impl:
        return None
    params = list(prim.signature.parameters.values())
    args, keywords = [], {}
    for p in params:
        if p.name not in app.bound:
            continue
        node = replace.get(p.name, app.bound[p.name])
        if p.kind is p.VAR_POSITIONAL:
            return None
        if p.default is not p.empty and _is_const(node, p.default) and p.name not in replace:
            continue
        if p.kind is p.POSITIONAL_ONLY or (not keywords and p.default is p.empty):
            args.append(copy.deepcopy(node))
        else:
            keywords[p.name] = copy.deepcopy(node)
    return _call(f"jnp.{prim.name}", *args, **keywords)


# ---------------------------------------------------------------- generic rules
def elementwise_rule(bt, target, app):
    """The batch axis passes through; batched operands of lower per-example rank get unit axes after it."""
    from ..analyses.batching import _array_params
    prim = app.primitive
    bound = app.bound or {}
    arrays = _array_params(prim, bound)        # the same parameters the analysis reads ranks from
    if any(bt.is_batched(n) for k, n in bound.items() if k not in arrays):
        return None         # a batched dtype or axis: loop over the batch
    if any(is_container(bt.kind(bound[k])) for k in arrays):
        if prim.name == "add":       # adjoints of containers (TreeAdjoint) add item by item
            return [bt.assign(target, copy.deepcopy(app.node))]
        return None
    if prim.name == "add" and any(bt.is_batched(bound[k]) and bt.kind(bound[k]) is None and bt.rank(bound[k]) is None
                                  for k in arrays):
        return None         # maybe an adjoint tree (of a tuple result): reshaping it as an array would break it
    if any(not isinstance(bound[k], (gast.Name, gast.Constant)) for k in arrays if bt.is_batched(bound[k])):
        return None
    value = copy.deepcopy(app.node)
    out = []
    shape_of = prim.result_shape_of
    if shape_of in bound and isinstance(bound[shape_of], gast.Name) and not bt.is_batched(bound[shape_of]):
        # full_like(a, v) with only v batched: the result takes a's shape, so a needs the batch axis too
        from ..codegen.templates import rename_loads
        value = rename_loads(value, {bound[shape_of].id: bt.batched(bound[shape_of], out).id})
    if isinstance(value, gast.Call):
        func = bt.static(value.func)
        if func is not prim.impl and func not in (getattr(np, prim.name, None),):
            if getattr(jnp, prim.name, None) is not prim.impl:
                return None     # math.sin, float(): no array version under this name
            value.func = _call(f"jnp.{prim.name}").func
    operands = [bound[k] for k in arrays if not _is_const(bound[k], None) and not (
        isinstance(bound[k], gast.Constant) and isinstance(bound[k].value, (int, float, bool)))]
    if len(operands) > 1:
        ranks = [bt.rank(n) for n in operands]
        renamed = {}
        for node, rank in zip(operands, ranks):
            if not bt.is_batched(node) or not isinstance(node, gast.Name) or node.id in renamed:
                continue
            others = [(o, r) for o, r in zip(operands, ranks) if o is not node]
            if rank is not None and all(r is not None for _, r in others):
                missing = max([r for _, r in others] + [rank]) - rank
                if missing == 0:
                    continue
                lifted = _call("jnp.expand_dims", _name(node.id), _tuple(*[_const(i) for i in range(1, missing + 1)]))
            else:
                others_rank = [_call("jnp.ndim", copy.deepcopy(o)) if not bt.is_batched(o) else gast.BinOp(
                    left=_call("jnp.ndim", copy.deepcopy(o)), op=gast.Sub(), right=_const(1)) for o, _ in others]
                lifted = _call("jnp.reshape", _name(node.id), _call(bt.helper(batch_shape), _call(
                    "jnp.shape", _name(node.id)), *others_rank))
            fresh = bt.fresh(f"{node.id}_")
            out.append(bt.assign(fresh, lifted))
            renamed[node.id] = fresh
        from ..codegen.templates import rename_loads
        value = rename_loads(value, renamed)
    out.append(bt.assign(target, value))
    return out



_REDUCTIONS = {"sum", "mean", "prod", "max", "min", "var", "std", "all", "any", "argmax", "argmin", "cumsum",
               "cumprod", "nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanvar", "nanstd", "ptp", "median",
               "nanmedian", "nancumsum", "nancumprod"}
# Not percentile/quantile (an array q puts its axis first, ahead of the batch) nor average (weights shaped like a).
_FLATTENING = {"argmax", "argmin", "cumsum", "cumprod", "nancumsum", "nancumprod"}      # axis=None: the flattened array


def reduction_rule(bt, target, app):
    """`axis` shifts past the batch axis; axis=None reduces every axis but the batch axis."""
    prim = app.primitive
    bound = dict(app.bound)
    array = bound.get("a")
    if not isinstance(array, gast.Name) or not bt.is_batched(array):
        return None
    if bt.kind(array) != ARRAY:
        return None         # a list of batched arrays holds the batch on axis 1, not 0: loop over the batch
    if any(bt.is_batched(n) for k, n in bound.items() if k != "a"):
        return None
    for k in ("where", "out", "initial"):
        if k in bound and not _is_const(bound[k], None):
            if not (k == "initial" and isinstance(bound[k], gast.Constant)):
                return None
    axis = bound.get("axis", _const(None))
    out = []
    if _is_const(axis, None) and prim.name in _FLATTENING:
        if _is_const(bound.get("keepdims", _const(False)), True):
            return None
        flat = bt.fresh(f"{array.id}_flat")
        out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(array), _tuple(bt.B, _const(-1)))))
        array, new_axis = _name(flat), _const(1)
    else:
        new_axis = _shift(axis, bt, array)
    call = _rebuild(app, bt, {"a": array, "axis": new_axis})
    if call is None:
        return None
    out.append(bt.assign(target, call))
    return out


def generic_rule(prim):
    """The rule vmap uses for `prim`: its own, else the elementwise or reduction rule, else None."""
    if prim.batch is not None:
        return prim.batch
    if is_elementwise(prim):
        return elementwise_rule
    if prim.name in _REDUCTIONS:
        return reduction_rule
    return None


# ---------------------------------------------------------------- products
def _align(bt, out, node, to_rank, rank):
    """`node` (batched) with unit axes after the batch axis up to per-example rank `to_rank`."""
    if to_rank <= rank:
        return node
    fresh = bt.fresh(f"{node.id}_")
    out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(node),
                                      _tuple(*[_const(i) for i in range(1, to_rank - rank + 1)]))))
    return _name(fresh)


def _product(bt, target, x1, x2, kind):
    """`target = x1 @ x2` (kind "matmul") or `jnp.dot(x1, x2)` (kind "dot") over the batch, as one product."""
    b1, b2 = bt.is_batched(x1), bt.is_batched(x2)
    r1, r2 = bt.rank(x1), bt.rank(x2)
    if r1 is None or r2 is None or not isinstance(x1, (gast.Name, gast.Constant)) or not isinstance(
            x2, (gast.Name, gast.Constant)):
        return None
    if r1 == 0 or r2 == 0:
        if kind == "matmul":
            return None
        # dot with a scalar is a product; a batched operand of lower per-example rank gets unit axes
        # after the batch axis, else (B,) * (B, n) would broadcast the batch against the n axis
        out = []
        if b1 and isinstance(x1, gast.Name):
            x1 = _align(bt, out, x1, r2, r1)
        if b2 and isinstance(x2, gast.Name):
            x2 = _align(bt, out, x2, r1, r2)
        out.append(bt.assign(target, gast.BinOp(left=copy.deepcopy(x1), op=gast.Mult(), right=copy.deepcopy(x2))))
        return out
    if kind == "dot" and (r1 > 2 or r2 > 2):
        return None                 # dot's N-d contraction differs from matmul's batching
    out = []

    def mm(a, b):
        return gast.BinOp(left=copy.deepcopy(a), op=gast.MatMult(), right=copy.deepcopy(b))

    if b1 and not b2:
        if r2 > 2:
            if r1 == 1:
                return None
            x1 = _align(bt, out, x1, r2, r1)
        out.append(bt.assign(target, mm(x1, x2)))
        return out
    if b2 and not b1:
        if r2 == 1:
            if r1 == 1:
                out.append(bt.assign(target, mm(x2, x1)))
            elif r1 == 2:      # (matrix @ vectors.T).T: NumPy's fastest layout for this product
                product = bt.fresh("_product")
                out.append(bt.assign(product, mm(x1, _call("jnp.transpose", copy.deepcopy(x2)))))
                out.append(bt.assign(target, _call("jnp.transpose", _name(product))))
            else:
                return None
            return out
        if r1 > r2:
            x2 = _align(bt, out, x2, r1, r2)
        out.append(bt.assign(target, mm(x1, x2)))
        return out
    # both batched
    if r1 == 1 and r2 == 1:
        product = bt.fresh("_product")
        out.append(bt.assign(product, gast.BinOp(left=copy.deepcopy(x1), op=gast.Mult(), right=copy.deepcopy(x2))))
        out.append(bt.assign(target, _call("jnp.sum", _name(product), axis=_const(-1))))
        return out
    squeeze = None
    if r1 == 1:
        fresh = bt.fresh(f"{x1.id}_row")
        out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(x1), _const(-2))))
        x1, r1, squeeze = _name(fresh), 2, -2
    elif r2 == 1:
        fresh = bt.fresh(f"{x2.id}_column")
        out.append(bt.assign(fresh, _call("jnp.expand_dims", copy.deepcopy(x2), _const(-1))))
        x2, r2, squeeze = _name(fresh), 2, -1
    x1 = _align(bt, out, x1, r2, r1)
    x2 = _align(bt, out, x2, r1, r2)
    if squeeze is None:
        out.append(bt.assign(target, mm(x1, x2)))
    else:
        fresh = bt.fresh("_product")
        out.append(bt.assign(fresh, mm(x1, x2)))
        out.append(bt.assign(target, _call("jnp.squeeze", _name(fresh), _const(squeeze))))
    return out


def _matmul_rule(bt, target, app):
    b = app.bound
    if not _is_const(b.get("precision", _const(None)), None) or not _is_const(
            b.get("preferred_element_type", _const(None)), None):
        return None
    return _product(bt, target, b["x1"], b["x2"], "matmul")


def _dot_rule(bt, target, app):
    b = app.bound
    if not _is_const(b.get("precision", _const(None)), None) or not _is_const(
            b.get("preferred_element_type", _const(None)), None):
        return None
    return _product(bt, target, b["a"], b["b"], "dot")


def _inner_rule(bt, target, app):
    a, b = app.bound["a"], app.bound["b"]
    ra, rb = bt.rank(a), bt.rank(b)
    if ra is None or rb is None or ra == 0 or rb == 0:
        return None
    if bt.is_batched(a) and not bt.is_batched(b):
        return [bt.assign(target, _call("jnp.inner", copy.deepcopy(a), copy.deepcopy(b)))]
    if bt.is_batched(b) and not bt.is_batched(a) and ra == 1:
        return [bt.assign(target, _call("jnp.inner", copy.deepcopy(b), copy.deepcopy(a)))]
    if ra == 1 and rb == 1:
        return _product(bt, target, a, b, "dot")
    return None


def _outer_rule(bt, target, app):
    a, b = app.bound["a"], app.bound["b"]
    out = []
    parts = []
    for node, axis in ((a, 2), (b, 1)):
        if bt.is_batched(node):
            flat = bt.fresh("_flat")
            out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(node), _tuple(bt.B, _const(-1)))))
            column = bt.fresh("_flat")
            out.append(bt.assign(column, _call("jnp.expand_dims", _name(flat), _const(axis))))
            parts.append(_name(column))
        else:
            flat = bt.fresh("_flat")
            out.append(bt.assign(flat, _call("jnp.ravel", copy.deepcopy(node))))
            if axis == 2:
                column = bt.fresh("_flat")
                out.append(bt.assign(column, _call("jnp.expand_dims", _name(flat), _const(1))))
                flat = column
            parts.append(_name(flat))
    out.append(bt.assign(target, gast.BinOp(left=parts[0], op=gast.Mult(), right=parts[1])))
    return out


# ---------------------------------------------------------------- shapes and structure
def _only_first_batched(bt, app, first):
    return bt.is_batched(app.bound[first]) and not any(
        bt.is_batched(n) for k, n in app.bound.items() if k != first)


def _shape_rule(bt, target, app):
    """A shape query of a batched array answers for one example: the same for all of them."""
    prim = app.primitive
    if isinstance(app.node, gast.Attribute):          # x.shape, x.ndim, x.size
        x, attr = app.node.value, app.node.attr
    else:
        if not app.bound or not bt.is_batched(next(iter(app.bound.values()))):
            return None
        x, attr = next(iter(app.bound.values())), prim.name
    if bt.kind(x) not in (ARRAY,) and bt.kind(x) is not None:
        return [bt.assign(target, copy.deepcopy(app.node))] if prim.name == "builtin_len" else None
    if attr == "shape":
        value = gast.Subscript(value=_call("jnp.shape", copy.deepcopy(x)), slice=gast.Slice(
            lower=_const(1), upper=None, step=None), ctx=gast.Load())
    elif attr == "ndim":
        value = gast.BinOp(left=_call("jnp.ndim", copy.deepcopy(x)), op=gast.Sub(), right=_const(1))
    elif attr == "size" and _is_const((app.bound or {}).get("axis", _const(None)), None):
        value = gast.BinOp(left=_call("jnp.size", copy.deepcopy(x)), op=gast.FloorDiv(), right=bt.B)
    elif attr == "size":
        value = _call("jnp.size", copy.deepcopy(x), _shift(app.bound["axis"], bt, x))
    elif attr == "dtype":
        return [bt.assign(target, copy.deepcopy(app.node))]
    elif attr == "builtin_len":
        if bt.kind(x) is None:
            return None
        value = gast.Subscript(value=_call("jnp.shape", copy.deepcopy(x)), slice=_const(1), ctx=gast.Load())
    else:
        return None
    return [bt.assign(target, value)]


def _reduced_size_rule(bt, target, app):
    b = app.bound
    if not _only_first_batched(bt, app, "x") or not all(_is_const(b.get(k, _const(None)), None)
                                                       for k in ("where", "correction")):
        return None
    if bt.kind(b["x"]) != ARRAY:
        return None         # a list of batched arrays: computed for one example (the same for all)
    return [bt.assign(target, _call("reduced_size", copy.deepcopy(b["x"]), _shift(b.get("axis", _const(None)), bt, b["x"]),
                                    copy.deepcopy(b.get("ddof", _const(0)))))]


def _axes_rule(*params, none=None):
    """Structural primitives whose axis parameters shift past the batch axis."""
    def rule(bt, target, app):
        first = app.primitive.operands[0]
        if not _only_first_batched(bt, app, first):
            return None
        replace = {}
        for p in params:
            node = app.bound.get(p, _const(None))
            if _is_const(node, None):
                if none == "refuse":
                    return None
                if none == "all":
                    replace[p] = _shift(node, bt, app.bound[first])
                continue
            replace[p] = _shift(node, bt, app.bound[first])
        call = _rebuild(app, bt, replace)
        return None if call is None else [bt.assign(target, call)]
    return rule


def _transpose_rule(bt, target, app):
    a = app.bound["a"]
    if not _only_first_batched(bt, app, "a"):
        return None
    axes = app.bound.get("axes", _const(None))
    if bt.rank(a) is not None and (_is_const(axes, None) or isinstance(axes, gast.Tuple)):
        r = bt.rank(a)
        if _is_const(axes, None):
            perm = (0,) + tuple(range(r, 0, -1))
        elif all(_static_int(e) is not None for e in axes.elts):
            perm = (0,) + tuple(_static_int(e) % r + 1 for e in axes.elts)
        else:
            perm = None
        if perm is not None:
            return [bt.assign(target, _call("jnp.transpose", copy.deepcopy(a), _tuple(*[_const(i) for i in perm])))]
    return [bt.assign(target, _call("jnp.transpose", copy.deepcopy(a), _call(
        bt.helper(batch_permutation), copy.deepcopy(axes), _call("jnp.ndim", copy.deepcopy(a)))))]


def _reshape_rule(bt, target, app):
    b = app.bound
    if not _only_first_batched(bt, app, "a") or not _is_const(b.get("order", _const("C")), "C"):
        return None
    shape = b.get("shape")
    if _is_const(shape, None):
        shape = b.get("newshape")
    if isinstance(shape, gast.Tuple):
        new = _tuple(bt.B, *copy.deepcopy(shape.elts))
    elif _static_int(shape) is not None:
        new = _tuple(bt.B, _const(_static_int(shape)))
    else:
        new = _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(shape))
    return [bt.assign(target, _call("jnp.reshape", copy.deepcopy(b["a"]), new))]


def _ravel_rule(bt, target, app):
    if not _only_first_batched(bt, app, "a") or not _is_const(app.bound.get("order", _const("C")), "C"):
        return None
    return [bt.assign(target, _call("jnp.reshape", copy.deepcopy(app.bound["a"]), _tuple(bt.B, _const(-1))))]


def _sequence_rule(bt, target, app):
    """stack / concatenate: unbatched items are broadcast, the axis shifts."""
    prim = app.primitive
    seq = app.bound[prim.sequence_operand]
    axis = app.bound.get("axis", _const(0))
    if bt.is_batched(axis) or _is_const(axis, None):
        return None
    out = []
    if isinstance(seq, (gast.List, gast.Tuple)):
        items = []
        for element in seq.elts:
            if not isinstance(element, (gast.Name, gast.Constant)):
                return None
            items.append(bt.batched(element, out))
        seq = gast.List(elts=items, ctx=gast.Load())
    elif not (isinstance(seq, gast.Name) and bt.is_batched(seq) and is_container(bt.kind(seq))):
        return None         # a batched array is a sequence over its axis 1 (`jnp.stack(x)`): loop over the batch
    shifted = _static_int(axis)
    new_axis = _const(shifted + 1 if shifted >= 0 else shifted) if shifted is not None else _call(
        bt.helper(batch_axis), copy.deepcopy(axis), _const(2 ** 20))
    if shifted is None:
        return None
    out.append(bt.assign(target, _call(f"jnp.{prim.name}", seq, axis=new_axis)))
    return out


def _batch_index_call(bt, idx):
    """`batch_index(idx)`, given the batch size where the index might have array parts separated by a slice
    (then the batch axis is an advanced index too, see batch_index): a tuple with two or more parts that are
    not written as slices, or a name that may hold a tuple."""
    from ..codegen.templates import index_expression
    expression = index_expression(copy.deepcopy(idx))
    if isinstance(idx, gast.Tuple):
        loose = [p for p in idx.elts if not isinstance(p, gast.Slice) and not _is_const(p, None, Ellipsis)]
        split = len(loose) > 1
    else:
        split = bt.kind(idx) != ARRAY
    return _call(bt.helper(batch_index), expression, bt.B) if split else _call(bt.helper(batch_index), expression)


def _getitem_rule(bt, target, app):
    x, idx = app.bound["x"], app.bound["idx"]
    kind = bt.kind(x)
    if (kind is not None and kind != ARRAY) or (_names_a_key(idx) and not bt.is_batched(idx)):
        # a tuple, list, dict or tape: its items carry the batch (`g['w']` of a gradient grad computed inside
        # the function, an adjoint tree the analysis took for an array: `g[:, 'w']` crashed)
        if bt.is_batched(idx):
            return None
        return [bt.assign(target, copy.deepcopy(app.node))]
    if not bt.is_batched(idx):
        if not isinstance(x, gast.Name):
            return None
        if kind is None and bt.is_batched(x):      # an array or a container: told apart when it runs
            from ..codegen.templates import index_expression
            return [bt.assign(target, _call(bt.helper(batch_getitem), copy.deepcopy(x),
                                            index_expression(copy.deepcopy(idx))))]
        parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
        static = all(isinstance(p, (gast.Slice, gast.Constant)) for p in parts)
        if static:
            new = _tuple(gast.Slice(lower=None, upper=None, step=None), *copy.deepcopy(parts))
        else:
            from ..codegen.templates import index_expression
            new = _batch_index_call(bt, idx)
        return [bt.assign(target, gast.Subscript(value=copy.deepcopy(x), slice=new, ctx=gast.Load()))]
    if not isinstance(idx, gast.Name):
        return None
    if not bt.is_batched(x):
        return [bt.assign(target, gast.Subscript(value=copy.deepcopy(x), slice=_call(
            bt.helper(batch_take_index), copy.deepcopy(idx)), ctx=gast.Load()))]
    if bt.rank(idx) == 0:
        return [bt.assign(target, gast.Subscript(value=copy.deepcopy(x), slice=_tuple(
            _call("jnp.arange", bt.B), _call(bt.helper(batch_take_index), copy.deepcopy(idx))), ctx=gast.Load()))]
    return None


def _names_a_key(idx):
    """Whether an index holds a string constant: `d['w']` reads a dict, whatever kind the analysis gave `d`
    (a callee's parameter may be a dict the analysis took for an array); `(:, 'w')` would index an array."""
    parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
    return any(isinstance(p, gast.Constant) and isinstance(p.value, str) for p in parts)


def _at_rule(bt, target, app):
    """x.at[idx].set(v) with an unbatched index: the batched index puts `:` first; v lines up with x[idx]."""
    x, idx, v = app.bound["x"], app.bound["idx"], app.bound.get("v")
    if bt.is_batched(idx) or not isinstance(x, gast.Name) or (v is not None and not isinstance(
            v, (gast.Name, gast.Constant))):
        return None
    if bt.kind(x) != ARRAY or _names_a_key(idx):   # a dict's or list's item (`holder['w'] = row`), or a value
        return None                                 # of unknown kind: `(:, 'w')` would index an array; set
                                                    # example by example
    from ..codegen.templates import index_expression
    out = []
    x = bt.batched(x, out)
    index = bt.fresh("_index")
    parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
    if all(isinstance(p, (gast.Slice, gast.Constant)) for p in parts):
        out.append(bt.assign(index, index_expression(_tuple(gast.Slice(lower=None, upper=None, step=None),
                                                            *copy.deepcopy(parts)))))
    else:
        out.append(bt.assign(index, _batch_index_call(bt, idx)))
    from ..analyses.batching import _index_rank
    part_rank = _index_rank(bt.rank(app.bound["x"]), idx, bt.batching)
    if v is not None and bt.is_batched(v) and part_rank is not None and bt.rank(v) is not None:
        if part_rank > bt.rank(v):
            v = _align(bt, out, v, part_rank, bt.rank(v))
    elif v is not None and bt.is_batched(v):
        fresh = bt.fresh(f"{v.id}_")
        out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(v), _call(
            bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(v)),
            _call(bt.helper(batch_part_rank), _call("jnp.shape", copy.deepcopy(x)), _name(index))))))
        v = _name(fresh)
    args = [x, _name(index)] + ([copy.deepcopy(v)] if v is not None else [])
    out.append(bt.assign(target, _call(app.primitive.name, *args)))
    return out


def _dynamic_slice_rule(bt, target, app):
    b = app.bound
    if not _only_first_batched(bt, app, "operand"):
        return None
    starts, sizes = b["start_indices"], b["slice_sizes"]
    new_starts = _call(bt.helper(batch_prepend), _const(0), copy.deepcopy(starts))
    new_sizes = _call(bt.helper(batch_prepend), bt.B, copy.deepcopy(sizes))
    return [bt.assign(target, _call("lax.dynamic_slice", copy.deepcopy(b["operand"]), new_starts, new_sizes))]


def _broadcast_to_rule(bt, target, app):
    b = app.bound
    if not _only_first_batched(bt, app, "array") or not isinstance(b["array"], gast.Name):
        return None
    shape = b["shape"]
    out = []
    fresh = bt.fresh(f"{b['array'].id}_")
    rank = _call("len", copy.deepcopy(shape)) if not _static_int(shape) is not None else _const(1)
    out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(b["array"]), _call(
        bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(b["array"])), rank))))
    out.append(bt.assign(target, _call("jnp.broadcast_to", _name(fresh), _call(bt.helper(batch_prepend), bt.B,
                                                                               copy.deepcopy(shape)))))
    return out


def _unbroadcast_rule(bt, target, app):
    """unbroadcast(g, x): sum g down to x's per-example shape, the batch axis kept."""
    g, x = app.bound["g"], app.bound["x"]
    if not isinstance(g, (gast.Name, gast.Constant)) or not isinstance(x, gast.Name):
        return None
    if is_container(bt.kind(x)) or (isinstance(g, gast.Name) and is_container(bt.kind(g))):
        return None
    out = []
    rg, rx = bt.rank(g), bt.rank(x)
    if rg is not None and rx is not None and bt.is_batched(g):
        if rg > rx:           # per-example leading axes that x lacks: summed first
            summed = bt.fresh(f"{g.id}_sum")
            out.append(bt.assign(summed, _call("jnp.sum", copy.deepcopy(g), axis=_tuple(
                *[_const(i) for i in range(1, rg - rx + 1)]))))
            g = _name(summed)
        elif rg < rx:
            g = _align(bt, out, g, rx, rg)
        if bt.is_batched(x):
            out.append(bt.assign(target, _call("unbroadcast", copy.deepcopy(g), copy.deepcopy(x))))
        else:
            out.append(bt.assign(target, _call("unbroadcast_to", copy.deepcopy(g), gast.BinOp(
                left=_tuple(bt.B), op=gast.Add(), right=_call("jnp.shape", copy.deepcopy(x))))))
        return out
    g = bt.batched(g, out)
    x = bt.batched(x, out)
    aligned = bt.fresh(f"{g.id}_")
    out.append(bt.assign(aligned, _call("jnp.reshape", copy.deepcopy(g), _call(
        bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(g)),
        gast.BinOp(left=_call("jnp.ndim", copy.deepcopy(x)), op=gast.Sub(), right=_const(1))))))
    lifted = bt.fresh("_shape")
    out.append(bt.assign(lifted, _call(bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(x)), gast.BinOp(
        left=_call("jnp.ndim", _name(aligned)), op=gast.Sub(), right=_const(1)))))
    summed = bt.fresh("_summed")
    out.append(bt.assign(summed, _call("unbroadcast_to", _name(aligned), _name(lifted))))
    out.append(bt.assign(target, _call("jnp.reshape", _name(summed), _call("jnp.shape", copy.deepcopy(x)))))
    return out


def _unreduce_rule(bt, target, app):
    b = app.bound
    g, x = b["g"], b["x"]
    if not _is_const(b.get("where", _const(None)), None) or bt.is_batched(b.get("axis", _const(None))):
        return None
    if not isinstance(x, gast.Name) or not isinstance(g, (gast.Name, gast.Constant)):
        return None
    if bt.kind(x) != ARRAY:
        return None         # x a list of arrays (`jnp.mean([a, b], axis=0)`): its batch is not on axis 0
    out = []
    keep = _is_const(b.get("keepdims", _const(False)), True)
    if not bt.is_batched(g) and bt.is_batched(x) and (keep or _is_const(b.get("axis", _const(None)), None)):
        return [bt.assign(target, _call("unreduce", copy.deepcopy(g), copy.deepcopy(x)))]   # g broadcasts as it is
    g = bt.batched(g, out)
    x = bt.batched(x, out)
    axis = _shift(b.get("axis", _const(None)), bt, x)
    keepdims = copy.deepcopy(b.get("keepdims", _const(False)))
    out.append(bt.assign(target, _call("unreduce", g, x, axis, keepdims)))
    return out


def _index_adjoint_rule(bt, target, app):
    b = app.bound
    x, idx, g = b["x"], b["idx"], b["g"]
    if is_container(bt.kind(x)) and not bt.is_batched(idx) and isinstance(g, gast.Name):
        out = []        # an adjoint tree: its items carry the batch
        return out + [bt.assign(target, _call("index_adjoint", copy.deepcopy(x), copy.deepcopy(idx),
                                              bt.batched(g, out)))]
    if bt.is_batched(idx) or not isinstance(x, gast.Name) or bt.kind(x) != ARRAY or _names_a_key(idx):
        return None
    if isinstance(g, gast.Name) and bt.kind(g) not in (ARRAY, None) and not isinstance(bt.kind(g), int):
        return None         # an adjoint tree for an array's part: example by example
    from ..codegen.templates import index_expression
    out = []
    x = bt.batched(x, out)
    new_index = _batch_index_call(bt, idx)
    if isinstance(g, gast.Name):
        # g of lower per-example rank than x[idx] (a zero adjoint `0.0` of an empty slice's items): unit
        # axes after the batch axis, so it broadcasts as it does per example
        index = bt.fresh("_index")
        out.append(bt.assign(index, new_index))
        new_index = _name(index)
        g = bt.batched(g, out)
        fresh = bt.fresh(f"{g.id}_")
        out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(g), _call(
            bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(g)),
            _call(bt.helper(batch_part_rank), _call("jnp.shape", copy.deepcopy(x)), _name(index))))))
        g = _name(fresh)
    elif not isinstance(g, gast.Constant):
        return None
    out.append(bt.assign(target, _call("index_adjoint", x, new_index, copy.deepcopy(g))))
    return out


def _unique_index_rule(bt, target, app):
    """`unique_index(idx, x)` returns idx after checking it against x's shape, which every example shares:
    with idx unbatched the result is unbatched, checked against the first example."""
    idx, x = app.bound["idx"], app.bound["x"]
    if bt.is_batched(idx):
        return None
    first = _call(bt.helper(example_of), copy.deepcopy(x), _const(0)) if bt.is_batched(x) else copy.deepcopy(x)
    return [bt.assign(target, _call("unique_index", copy.deepcopy(idx), first))]


def _to_float_rule(bt, target, app):
    """`float(x)` of a batched x: the helper that keeps each example's value and dtype (float() of a
    batch would fail, or for a batch of one silently drop the batch axis)."""
    from .helpers import to_float
    x = app.bound["x"]
    if not isinstance(x, gast.Name) or bt.kind(x) != ARRAY:
        return None
    return [bt.assign(target, _call(bt.helper(to_float), copy.deepcopy(x)))]


def _where_rule(bt, target, app):
    """jnp.where(c, a, b) is elementwise; the one-argument form (indices) loops over the batch."""
    if any(_is_const(app.bound.get(k, _const(None)), None) for k in ("x1", "x2")):
        return None
    return elementwise_rule(bt, target, app)


def _unchanged_rule(bt, target, app):
    """The result has the shape of its first operand and reads nothing else per example."""
    return [bt.assign(target, copy.deepcopy(app.node))]


def _stacked_matrices_rule(bt, target, app):
    """A linalg function of one array of matrices (the last two axes) reads each leading index alone, as
    NumPy's do: a leading batch axis is one more stack axis, and the same call batches it."""
    first = app.primitive.operands[0]
    if first not in app.bound or not _only_first_batched(bt, app, first) or bt.kind(app.bound[first]) != ARRAY:
        return None
    return [bt.assign(target, copy.deepcopy(app.node))]


# The stack-reading linalg functions with one array result (tests/test_vmap_linalg_stacks.py checks each
# against a loop, value and gradient). Tuple results (eigh, svd, qr, slogdet) still loop.
STACKED_MATRICES = ("inv", "det", "pinv", "matrix_power", "expm", "cholesky", "numpy_cholesky", "eigvalsh",
                    "numpy_eigvalsh")


def _array_only_rule(bt, target, app):
    """zero_like(x) of an array: the same call; of a container (an adjoint tree): example by example."""
    first = next(iter(app.bound.values()), None)
    if bt.kind(first) != ARRAY:
        return None
    return [bt.assign(target, copy.deepcopy(app.node))]


def _result_like_rule(bt, target, app):
    """zeros_like(a) and friends: batched when `a` is, and the same call gives it."""
    if any(k in app.bound and not _is_const(app.bound[k], None) for k in ("shape",)):
        return None
    return [bt.assign(target, copy.deepcopy(app.node))]


def _batch_broadcast_rule(bt, target, app):
    """batch_broadcast(value, size, likes) in a function vmapped again (vmap of vmap): `likes` only gives a
    dtype, the same for every example. An unbatched value gives the same array to every example; a batched
    one is repeated along the inner batch axis, after the outer one."""
    value, size = app.bound["value"], app.bound["size"]
    if bt.is_batched(size) or not isinstance(value, (gast.Name, gast.Constant)):
        return None
    if not bt.is_batched(value):
        return [bt.assign(target, copy.deepcopy(app.node)),
                bt.assign(target, _call("jnp.broadcast_to", _name(target), gast.BinOp(
                    left=_tuple(bt.B), op=gast.Add(), right=_call("jnp.shape", _name(target)))))]
    shape = gast.BinOp(left=_tuple(bt.B, copy.deepcopy(size)), op=gast.Add(), right=gast.Subscript(
        value=_call("jnp.shape", copy.deepcopy(value)), slice=gast.Slice(lower=_const(1), upper=None, step=None),
        ctx=gast.Load()))
    return [bt.assign(target, _call("jnp.broadcast_to", _call("jnp.expand_dims", copy.deepcopy(value), _const(1)),
                                    shape))]


def _push_like(bt, target, app):
    return None


def _register():
    rules = {
        "matmul": _matmul_rule, "dot": _dot_rule, "inner": _inner_rule, "outer": _outer_rule,
        "shape": _shape_rule, "ndim": _shape_rule, "size": _shape_rule, "builtin_len": _shape_rule,
        "reduced_size": _reduced_size_rule,
        "transpose": _transpose_rule, "reshape": _reshape_rule, "ravel": _ravel_rule,
        "moveaxis": _axes_rule("source", "destination"), "swapaxes": _axes_rule("axis1", "axis2"),
        "expand_dims": _axes_rule("axis"), "squeeze": _axes_rule("axis", none="refuse"),
        "flip": _axes_rule("axis", none="all"),
        "stack": _sequence_rule, "concatenate": _sequence_rule,
        "getitem": _getitem_rule, "at_set": _at_rule, "at_add": _at_rule, "at_multiply": _at_rule,
        "dynamic_slice": _dynamic_slice_rule, "broadcast_to": _broadcast_to_rule, "batch_broadcast": _batch_broadcast_rule,
        "unbroadcast": _unbroadcast_rule, "unreduce": _unreduce_rule, "index_adjoint": _index_adjoint_rule,
        "zero_like": _array_only_rule, "to_float": _to_float_rule, "where": _where_rule, "astype": _unchanged_rule, "copy": _unchanged_rule,
        "zeros_like": _result_like_rule, "ones_like": _result_like_rule, "empty_like": _result_like_rule,
        "unique_index": _unique_index_rule,
    }
    rules.update({name: _stacked_matrices_rule for name in STACKED_MATRICES})
    _index_adjoint_rule.reads_tuples = ("g",)   # transforms/vmap.py: an adjoint tree stored as an item whole
    for name, rule in rules.items():
        if name in PRIMITIVES:
            defbatch(PRIMITIVES[name], rule)


_register()
