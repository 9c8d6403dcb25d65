"""Derivative rules of vmap's loop over examples: `example_of` and `stack_examples` are linear maps.

Where vmap has no batching rule for a statement it computes it example by example
(transforms/vmap.py's loop_statement):

    _results1 = []
    for _b1 in range(_B):
        _results1.append(opaque(example_of(t, _b1)))
    y = stack_examples(_results1)

So that `grad` of a function calling vmap (per-batch losses, `jnp.sum(vmap(f)(xs))`) differentiates
that loop, both helpers are primitives here. Picking example b and stacking examples are linear, and
each is the other's transpose:

    example_of(tree, b)       adjoint: by placed at example b of zeros shaped like tree
    stack_examples(results)   adjoint: example k of by, for each item k of the list

They work on any pytree (an array, a tuple, list, dict or namedtuple of arrays), and so do the
helpers below, which take adjoints and tangents in every form a derivative gives them: an array, a
TreeAdjoint (the adjoint of a container), a tuple or dict of tangents, or a bare 0.0 that stands for
zeros. Each helper is a primitive with rules of its own, so second derivatives work as well.
"""
import numpy as np

from ..array import wrap
from .batching import batch_getitem, batch_index, example_of, stack_examples
from .helpers import TreeAdjoint, index_adjoint, index_adjoint_part
from .registry import defjvp, deflowering, defvjp, parse_expression, primitive

__all__ = ["example_part", "example_placed", "examples_split", "examples_joined", "stack_like_examples",
           "batch_getitem_adjoint", "batch_getitem_part"]


def _is_zero(value):
    """A bare zero (Python number or 0-d array): the adjoint or tangent of a value nothing reached."""
    return isinstance(value, (int, float, np.ndarray, np.generic)) and np.ndim(value) == 0 and not np.any(value)


def _no_number(value):
    """None, a slice, a string: values in a pytree that hold no number (no adjoint, no tangent)."""
    return value is None or isinstance(value, (slice, str, type(Ellipsis)))


def _items(tree):
    """(key, item) pairs of a container, with the fields of a namedtuple (None otherwise)."""
    if isinstance(tree, dict):
        return list(tree.items()), None
    return list(enumerate(tree)), getattr(type(tree), "_fields", None)


def _rebuild(like, items):
    """A container of like's type holding `items` (a dict key -> item)."""
    if isinstance(like, dict):
        return type(like)((k, items[k]) for k in like)
    values = [items[k] for k in range(len(like))]
    return type(like)(*values) if hasattr(type(like), "_fields") else type(like)(values)


def _part_of(g, key):
    """Item `key` of an adjoint or tangent of a container (zero where nothing reached it)."""
    if _is_zero(g) or g is None:
        return 0.0
    if isinstance(g, TreeAdjoint):
        return g.items.get(key, 0.0)
    if isinstance(g, dict):
        return g.get(key, 0.0)
    return g[key]


def example_part(g, b):
    """Example `b` of a batched adjoint or tangent (every leaf carries the batch on axis 0)."""
    if _is_zero(g) or _no_number(g):
        return g
    if isinstance(g, TreeAdjoint):
        return TreeAdjoint({k: example_part(v, b) for k, v in g.items.items()}, g.fields)
    if isinstance(g, (tuple, list, dict)):
        items, _ = _items(g)
        return _rebuild(g, {k: example_part(v, b) for k, v in items})
    return wrap(np.asarray(g)[b])


def example_placed(g, tree, b):
    """Transpose of `example_of(tree, b)`: the adjoint `g` of example b, placed at b of zeros shaped like
    the batched `tree` (a TreeAdjoint holding only the items g reached, for a container)."""
    if _is_zero(g) or _no_number(g) or _no_number(tree):
        return 0.0
    if isinstance(tree, (tuple, list, dict)):
        items, fields = _items(tree)
        placed = {}
        for key, item in items:
            part = _part_of(g, key)
            if not _is_zero(part) and not _no_number(part):
                placed[key] = example_placed(part, item, b)
        return TreeAdjoint(placed, fields)
    tree = np.asarray(tree)
    out = np.zeros(tree.shape, dtype=np.result_type(tree, g, np.float32))
    out[b] = np.asarray(g)
    return wrap(out)


def examples_split(g, results):
    """The adjoint of the list `results` stacked by `stack_examples`: item k is example k of `g`."""
    return TreeAdjoint({k: example_part(g, k) for k in range(len(results))})


def stack_like_examples(parts, results):
    """The adjoints or tangents `parts` of the per-example values `results`, stacked as stack_examples
    stacks those values: a bare zero part becomes zeros shaped like its example (so a zero never stands
    in a stacked array with a wrong shape). `parts` is a list, or a TreeAdjoint keyed by position."""
    if isinstance(parts, TreeAdjoint):
        parts = [parts.items.get(k, 0.0) for k in range(len(results))]
    elif _is_zero(parts):
        parts = [0.0] * len(results)
    first = results[0]
    if _no_number(first):
        return None
    if isinstance(first, (tuple, list, dict)):
        items, fields = _items(first)
        stacked = {k: stack_like_examples([_part_of(p, k) for p in parts], [_part_of(r, k) for r in results])
                   for k, _ in items}
        if any(isinstance(p, TreeAdjoint) for p in parts):
            return TreeAdjoint({k: v for k, v in stacked.items() if v is not None}, fields)
        return _rebuild(first, stacked)
    arrays = []
    for part, like in zip(parts, results):
        like = np.asarray(like)
        arrays.append(np.zeros(like.shape, dtype=np.result_type(like, np.float32)) if _is_zero(part) or part is None
                      else np.broadcast_to(np.asarray(part), like.shape))
    return wrap(np.stack(arrays))


def examples_joined(t, results):
    """Transpose of `examples_split`: the items of a list adjoint stacked (zeros where none arrived)."""
    return stack_like_examples(t, results)


def _is_container(x):
    return isinstance(x, (tuple, list, dict, TreeAdjoint))


def batch_getitem_adjoint(g, x, idx):
    """Transpose of `batch_getitem(x, idx)`: `g` put back at item idx of a container x, or at `x[:, idx]`
    of a batched array x (zeros elsewhere)."""
    if _is_container(x):
        return index_adjoint(x, idx, g)
    if _is_zero(g):
        return 0.0
    return index_adjoint(x, batch_index(idx, np.shape(x)[0]), g)


def batch_getitem_part(g, x, idx):
    """`batch_getitem` of an adjoint or tangent `g` of x (a bare zero stays zero): transpose of
    batch_getitem_adjoint, and the tangent of batch_getitem."""
    if _is_container(x):
        return index_adjoint_part(g, x, idx)
    if _is_zero(g):
        return 0.0
    return wrap(np.asarray(g)[batch_index(idx, np.shape(g)[0])])


_getitem = primitive("batch_getitem", batch_getitem, operands=("x",), index_params=("idx",),
                     signature=lambda x, idx: None)
defvjp(_getitem, "bx += batch_getitem_adjoint(by, x, idx)")
defjvp(_getitem, "dy = batch_getitem_part(dx, x, idx)")
_getitem_adjoint = primitive("batch_getitem_adjoint", batch_getitem_adjoint, operands=("g",), shape_params=("x",),
                             index_params=("idx",))
defvjp(_getitem_adjoint, "bg += batch_getitem_part(by, x, idx)")
defjvp(_getitem_adjoint, "dy = batch_getitem_adjoint(dg, x, idx)")
_getitem_part = primitive("batch_getitem_part", batch_getitem_part, operands=("g",), shape_params=("x",),
                          index_params=("idx",))
defvjp(_getitem_part, "bg += batch_getitem_adjoint(by, x, idx)")
defjvp(_getitem_part, "dy = batch_getitem_part(dg, x, idx)")

_example_of = primitive("example_of", example_of, operands=("tree",), signature=lambda tree, b: None)
defvjp(_example_of, "btree += example_placed(by, tree, b)")
defjvp(_example_of, "dy = example_part(dtree, b)")
deflowering(_example_of, numba="astjax.runtime.numba_cpu:example_of")

_stack = primitive("stack_examples", stack_examples, operands=("results",), sequence_operand="results",
                   signature=lambda results: None)
defvjp(_stack, "bresults += examples_split(by, results)")
defjvp(_stack, "dy = stack_like_examples(dresults, results)")
deflowering(_stack, numba="astjax.runtime.numba_cpu:stack_examples")

_part = primitive("example_part", example_part, operands=("g",))
defvjp(_part, "bg += example_placed(by, g, b)")
defjvp(_part, "dy = example_part(dg, b)")

_placed = primitive("example_placed", example_placed, operands=("g",), shape_params=("tree",))
defvjp(_placed, "bg += example_part(by, b)")
defjvp(_placed, "dy = example_placed(dg, tree, b)")

_split = primitive("examples_split", examples_split, operands=("g",), shape_params=("results",))
defvjp(_split, "bg += examples_joined(by, results)")
defjvp(_split, "dy = examples_split(dg, results)")

_joined = primitive("examples_joined", examples_joined, operands=("t",), shape_params=("results",))
defvjp(_joined, "bt += examples_split(by, results)")
defjvp(_joined, "dy = examples_joined(dt, results)")

_stack_like = primitive("stack_like_examples", stack_like_examples, operands=("parts",), sequence_operand="parts",
                        shape_params=("results",))
defvjp(_stack_like, "bparts += examples_split(by, results)")
defjvp(_stack_like, "dy = stack_like_examples(dparts, results)")

for _prim in (_example_of, _stack, _part, _placed, _split, _joined, _stack_like, _getitem, _getitem_adjoint,
              _getitem_part):
    _prim.accepts_scalar_zero = True        # their rules take a bare 0.0 adjoint as zeros
_stack.sequence_vjp = _stack_like.sequence_vjp = parse_expression("example_part(by, k)")   # a literal list: item k
NAMES = {f.__name__: f for f in (example_part, example_placed, examples_split, examples_joined, stack_like_examples,
                                 batch_getitem_adjoint, batch_getitem_part)}
