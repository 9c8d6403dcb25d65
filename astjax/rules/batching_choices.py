"""Batching rules (vmap) for choosing among arrays: select, choose, compress, extract.

select(condlist, choicelist, default) and choose(a, choices) are elementwise across their lists' items: when
every batched item has the per-example rank of the highest one (an unbatched item of lower or equal rank
broadcasts against the batch as it does per example, from the last axis), the same call batches them; with
lists written in the call, batched items of lower or unknown rank get unit axes after the batch axis first. Their
lists are read by the rule item by item (`reads_tuples`), so a list written in the call needs no loop.
compress with an unbatched condition keeps the same entries of every example: its axis shifts past the batch
axis (axis=None: each example flattened, axis 1); extract is compress of the flattened condition (`!= 0`, as
NumPy's nonzero) on each example flattened.
"""
import copy

import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _tuple
from .batching_axes import AxisShift, _rank_of
from .registry import PRIMITIVES, defbatch

__all__ = ["CHOICES"]


def _ranks(bt, node):
    """[(batched, rank)] of a list operand's items (a name holding a list, or a list in the call), or None
    when an item's rank is unknown."""
    if isinstance(node, (gast.List, gast.Tuple)):
        items = [(bt.is_batched(e), 0 if isinstance(e, gast.Constant) else bt.rank(e)) for e in node.elts
                 if isinstance(e, (gast.Name, gast.Constant))]
        return items if len(items) == len(node.elts) and all(r is not None for _, r in items) else None
    if isinstance(node, gast.Name) and isinstance(bt.kind(node), tuple):
        leaves = bt.kind(node)
        if not leaves or not all(isinstance(r, int) and not isinstance(r, bool) for r in leaves):
            return None
        return [(bt.is_batched(node), r) for r in leaves]
    return None


def _aligned(bt, app, lists, arrays):
    """Whether every batched item (of the lists and the single arrays) has the highest per-example rank."""
    items = []
    for k in lists:
        found = _ranks(bt, app.bound.get(k))
        if found is None:
            return False
        items += found
    for k in arrays:
        node = app.bound.get(k, _const(0))
        if isinstance(node, gast.Constant):
            if not isinstance(node.value, (int, float, complex, bool)):
                return False
            items.append((False, 0))
        elif isinstance(node, gast.Name) and bt.kind(node) == ARRAY and bt.rank(node) is not None:
            items.append((bt.is_batched(node), bt.rank(node)))
        else:
            return False
    top = max(r for _, r in items)
    return any(b for b, _ in items) and all(r == top for b, r in items if b)


def _lifted_call(bt, target, app, lists, arrays):
    """The same call, each batched item (of lists written in the call, and the single arrays) given unit
    axes after the batch axis up to the highest per-example rank of all items, computed when it runs
    (`batch_shape`), as the elementwise rule does: NumPy's broadcasting then lines the batch axes up."""
    from .batching import batch_shape
    b = app.bound
    items = []
    for k in lists:
        node = b.get(k)
        if not isinstance(node, (gast.List, gast.Tuple)) or not all(
                isinstance(e, (gast.Name, gast.Constant)) for e in node.elts):
            return None
        items += [e for e in node.elts if isinstance(e, gast.Name)]
    items += [b[k] for k in arrays if isinstance(b.get(k), gast.Name)]
    if any(bt.is_batched(e) and bt.kind(e) != ARRAY for e in items) or not any(bt.is_batched(e) for e in items):
        return None

    def per_example_ndim(e):
        ndim = _call("jnp.ndim", copy.deepcopy(e))
        return gast.BinOp(left=ndim, op=gast.Sub(), right=_const(1)) if bt.is_batched(e) else ndim
    out, renamed = [], {}
    for e in items:
        if not bt.is_batched(e) or e.id in renamed:
            continue
        fresh = bt.fresh(f"{e.id}_")
        out.append(bt.assign(fresh, _call("jnp.reshape", copy.deepcopy(e), _call(
            bt.helper(batch_shape), _call("jnp.shape", copy.deepcopy(e)),
            *[per_example_ndim(o) for o in items if o is not e]))))
        renamed[e.id] = fresh
    from ..codegen.templates import rename_loads
    out.append(bt.assign(target, rename_loads(copy.deepcopy(app.node), renamed)))
    return out


def _select_rule(bt, target, app):
    if _aligned(bt, app, ("condlist", "choicelist"), ("default",)):
        return [bt.assign(target, copy.deepcopy(app.node))]
    return _lifted_call(bt, target, app, ("condlist", "choicelist"), ("default",))


def _choose_rule(bt, target, app):
    if bt.is_batched(app.bound.get("mode", _const("raise"))):
        return None
    if _aligned(bt, app, ("choices",), ("a",)):
        return [bt.assign(target, copy.deepcopy(app.node))]
    return _lifted_call(bt, target, app, ("choices",), ("a",))


def _choice_result(lists, arrays):
    def result(batching, bound):
        ranks = []
        for k in lists:
            node = bound.get(k)
            kind = batching.kind(node) if isinstance(node, gast.Name) else None
            if isinstance(node, (gast.List, gast.Tuple)):
                ranks += [batching.rank(e) if isinstance(e, gast.Name) else 0 for e in node.elts]
            elif isinstance(kind, tuple):
                ranks += [r if isinstance(r, int) and not isinstance(r, bool) else None for r in kind]
            else:
                return ARRAY, None
        for k in arrays:
            node = bound.get(k, _const(0))
            ranks.append(0 if isinstance(node, gast.Constant) else batching.rank(node))
        return ARRAY, (max(ranks) if ranks and None not in ranks else None)
    return result


def _extract_rule(bt, target, app):
    b = app.bound
    condition, arr = b["condition"], b["arr"]
    if bt.is_batched(condition) or not isinstance(arr, gast.Name) or bt.kind(arr) != ARRAY or not bt.is_batched(arr):
        return None
    out = []
    flat = bt.fresh(f"{arr.id}_flat")
    out.append(bt.assign(flat, _call("jnp.reshape", copy.deepcopy(arr), _tuple(bt.B, _const(-1)))))
    kept = bt.fresh("_kept")
    out.append(bt.assign(kept, gast.Compare(left=_call("jnp.ravel", copy.deepcopy(condition)), ops=[gast.NotEq()],
                                            comparators=[_const(0)])))
    out.append(bt.assign(target, _call("jnp.compress", _name(kept), _name(flat), axis=_const(1))))
    return out


def _compress_result(batching, bound):
    if _is_const(bound.get("axis", _const(None)), None):
        return ARRAY, 1
    return ARRAY, _rank_of(batching, bound, "a")


CHOICES = {
    "select": (_select_rule, _choice_result(("condlist", "choicelist"), ("default",)), ("condlist", "choicelist")),
    "choose": (_choose_rule, _choice_result(("choices",), ("a",)), ("choices",)),
    "compress": (AxisShift("a", none="flatten").rule, _compress_result, ()),
    "extract": (_extract_rule, lambda batching, bound: (ARRAY, 1), ()),
}


def _register():
    from .batching_axes import _declared
    for name, (rule, result, lists) in CHOICES.items():
        if name in PRIMITIVES and PRIMITIVES[name].batch is None:
            declared = _declared(rule, result)
            if lists:
                declared.reads_tuples = lists       # transforms/vmap.py: the lists need not loop
            defbatch(PRIMITIVES[name], declared)


_register()
