"""Batching rules (vmap) of the adjoint helpers that build or read adjoint trees (rules/helpers.TreeAdjoint, the
adjoint of a list, tuple or dict): what per-example gradients of container parameters reach
(`vmap(grad(loss), in_axes=(None, 0, 0))` with dict or list params, jnp.stack/concatenate/split of a list).

One mechanism: a batched adjoint tree holds the batch on axis 0 of each of its items (zeros stay the bare
0.0 that stands for zeros of any shape), so a helper that only moves items between a tree and an array is the
same call, with the array's axis shifted past the batch axis:

- stack_adjoint(g, axis): the slices of g along axis + 1 are each example's slices, batched;
- concatenate_adjoint(g, arrays, axis): the pieces' sizes are read from `arrays` along the axis written from
  the end, the same axis of a batched and an unbatched item;
- split_adjoint(g, ary, sections, axis, how): the pieces joined along axis + 1, zeros shaped like `ary`
  repeated along the batch (only `split`, `array_split` and `unstack`, whose axis is the one written);
- tree_leaves_adjoint(tree, g): item k of the leaves' adjoint goes to leaf k of `tree`, which only lends
  its structure, the same for every example.

- `a + b` of two adjoint trees (the `+=` that gathers a container's adjoint): the same sum, item by item, an
  unbatched tree first repeated along the batch (so every item of the result carries it); arrays add as
  every elementwise primitive does. A tree is a name transforms/vmap.py's `is_adjoint_tree` vouches for
  (every assignment makes a TreeAdjoint), never just the analysis's kind "tree", which a tree plus an
  array (an array at run time) also has.

Their tree operands are read item by item (`reads_tuples`), so the statement needs no loop over the batch.
Anything else (an array where a tree is expected, a computed axis, hsplit's axis that depends on the rank)
loops over the batch. tests/test_vmap_rules_batch4.py checks them through per-example gradients.
"""
import copy

import gast

from ..analyses.batching import ARRAY, is_container
from .batching import _const, _is_const, _static_int, elementwise_rule
from .batching_adjoints import axis_from_the_end
from .batching_axes import _declared, _rebuilt, _shifted
from .registry import PRIMITIVES, defbatch

__all__ = ["TREES"]


def _tree(batching, bound):
    return "tree", None


def _like_tree(batching, bound):
    """tree_leaves_adjoint's result: an adjoint tree for a container `tree`, the leaf's adjoint (an array)
    for a lone array, unknown when the kind of `tree` is."""
    kind = batching.kind(bound.get("tree"))
    if kind == ARRAY:
        return ARRAY, batching.rank(bound.get("tree"))
    return ("tree", None) if is_container(kind) else (None, None)


def _batched_array(bt, node):
    return isinstance(node, gast.Name) and bt.is_batched(node) and bt.kind(node) == ARRAY


def _batched_tree(bt, node):
    """A batched name that holds an adjoint tree whenever it runs (transforms/vmap.py decides: the kind
    "tree" alone also covers a tree plus an array, which is an array)."""
    is_tree = getattr(bt, "is_adjoint_tree", None)
    return isinstance(node, gast.Name) and bt.is_batched(node) and is_tree is not None and is_tree(node)


def _stack_adjoint_rule(bt, target, app):
    b = app.bound
    g, axis = b.get("g"), _shifted(b.get("axis", _const(0)))
    if not _batched_array(bt, g) or axis is None or bt.is_batched(b.get("axis", _const(0))):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {"axis": axis}))]


def _concatenate_adjoint_rule(bt, target, app):
    b = app.bound
    g, axis = b.get("g"), _static_int(b.get("axis", _const(0)))
    if not _batched_array(bt, g) or axis is None or bt.is_batched(b.get("axis", _const(0))):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {"axis": axis_from_the_end(bt, g, axis)}))]


def _split_adjoint_rule(bt, target, app):
    b = app.bound
    g, ary, how = b.get("g"), b.get("ary"), b.get("how", _const("split"))
    axis = b.get("axis", _const(0))
    if not _batched_tree(bt, g) or not isinstance(ary, gast.Name) or bt.kind(ary) != ARRAY:
        return None
    if not _is_const(how, "split", "array_split", "unstack") or _shifted(axis) is None or any(
            bt.is_batched(b[k]) for k in b if k not in ("g", "ary")):
        return None
    out = []
    batched_ary = bt.batched(ary, out)
    out.append(bt.assign(target, _rebuilt(bt, app, {"ary": batched_ary, "axis": _shifted(axis)})))
    return out


def _tree_leaves_adjoint_rule(bt, target, app):
    b = app.bound
    if not _batched_tree(bt, b.get("g")):
        return None
    return [bt.assign(target, copy.deepcopy(app.node) if isinstance(app.node, gast.Call) else _rebuilt(bt, app, {}))]


def _add_rule(bt, target, app):
    """x1 + x2: two adjoint trees (or containers) item by item, else the elementwise rule."""
    b = app.bound
    nodes = [b.get("x1"), b.get("x2")]
    kinds = [bt.kind(n) if isinstance(n, gast.Name) else None for n in nodes]
    if not any(is_container(k) for k in kinds):
        return elementwise_rule(bt, target, app)
    is_tree = getattr(bt, "is_adjoint_tree", None)
    if is_tree is None or not all(isinstance(n, gast.Name) and is_tree(n) for n in nodes) or not isinstance(
            app.node, gast.BinOp) or not isinstance(app.node.op, gast.Add):
        return None         # a tuple joined to a list, a tree plus an array (a list read as one): a loop
    out = []
    x1, x2 = (bt.batched(n, out) for n in nodes)
    out.append(bt.assign(target, gast.BinOp(left=x1, op=gast.Add(), right=x2)))
    return out


TREES = {
    "stack_adjoint": (_stack_adjoint_rule, _tree, ()),
    "concatenate_adjoint": (_concatenate_adjoint_rule, _tree, ()),
    "split_adjoint": (_split_adjoint_rule, lambda batching, bound: (ARRAY, batching.rank(bound.get("ary"))), ("g",)),
    "tree_leaves_adjoint": (_tree_leaves_adjoint_rule, _like_tree, ("g",)),
}


def _register_add():
    """`add` keeps the elementwise rule for arrays and reads trees item by item (its result kind is the
    analysis's own, so no `result` is declared)."""
    prim = PRIMITIVES.get("add")
    if prim is not None and prim.batch is None:
        _add_rule.reads_tuples = ("x1", "x2")
        defbatch(prim, _add_rule)


def _register():
    for name, (rule, result, trees) in TREES.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            declared = _declared(rule, result)
            declared.reads_tuples = trees           # transforms/vmap.py: the tree's items are read by the rule
            defbatch(PRIMITIVES[name], declared)


_register()
_register_add()
