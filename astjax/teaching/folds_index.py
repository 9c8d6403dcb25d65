"""Folds of the item-update helpers, for an int index (a loop's index may differ between executions).

    unique_index(i, y)            y an array, i an int            ->  i
    part_at(g, y, i)              g, y float32[3], i in bounds    ->  g[i]
    cleared_at(g, y, i)           g, y float32[3], i in bounds    ->  g.at[i].set(0.0)
    index_adjoint(x, i, g)        x float32[4, 3], i in bounds    ->  jnp.zeros((4, 3)).at[i].set(g)
    index_adjoint(x, slice(1, None), g)                           ->  jnp.zeros((4, 3)).at[1:].set(g)

These are what `y[i] = v` and `v = x[i]` become in the reverse sweep; with an int index in bounds
they are a teacher's `bv = by[i]`, `by[i] = 0`, `bx[i] += bv`. `g[i]` and `g.at[i]` are written only
where `g` was an astjax Array every time (immutable: `bv += ...` then cannot write into `by`). Each fold here also accepts the
several ints a loop index takes (call_sites.CallSites.merged_at: kind "ints"), and only where every
one of them is in bounds (out of bounds the helpers drop the update, as JAX does).
"""
import numpy as np

from ..rules import helpers
from .folds import fold_for, template

__all__ = ["INDEX_FOLDS"]


def _ints(seen):
    """The int values an index took, or None."""
    if seen.kind == "value" and type(seen.value) is int:
        return (seen.value,)
    return seen.value if seen.kind == "ints" else None


def _in_bounds(seen_index, seen_array):
    ints = _ints(seen_index)
    if ints is None or seen_array.kind != "array" or not seen_array.shape:
        return False
    n = seen_array.shape[0]
    return all(-n <= i < n for i in ints)


@fold_for(helpers.unique_index)
def _unique_index(nodes, seen):
    """One int names one position: nothing can repeat."""
    if _ints(seen["idx"]) is not None and seen["x"].kind == "array" and seen["x"].shape:
        return nodes["idx"]
    return None


def _at_one_position(text):
    """A fold to `text` (in g and i) where g is a read-only array shaped like x and i one position inside it."""
    def fold(nodes, seen):
        g, x = seen["g"], seen["x"]
        if g.kind == "array" and "g" not in seen["__writable__"] and g.shape == x.shape and _in_bounds(seen["idx"], x):
            return template(text, g=nodes["g"], i=nodes["idx"])
        return None
    return fold


fold_for(helpers.part_at)(_at_one_position("g[i]"))
fold_for(helpers.cleared_at)(_at_one_position("g.at[i].set(0.0)"))


@fold_for(helpers.index_adjoint)
def _index_adjoint(nodes, seen):
    x, g = seen["x"], seen["g"]
    if not (x.kind == "array" and g.kind == "array" and x.shape):
        return None
    dtype = np.result_type(np.dtype(g.dtype), np.float32).name
    suffix = "" if dtype == "float32" else f", jnp.{dtype}"
    zeros = f"jnp.zeros({x.shape!r}{suffix})"
    if _in_bounds(seen["idx"], x) and g.shape == x.shape[1:]:
        return template(f"{zeros}.at[i].set(g)", i=nodes["idx"], g=nodes["g"])
    written = _constant_slice(nodes["idx"])
    if written is not None and np.empty(x.shape)[written[0]].shape == g.shape:
        return template(f"{zeros}.at[{written[1]}].set(g)", g=nodes["g"])
    return None


def _constant_slice(node):
    """(slice, its text as an index `1:`) for a `slice(...)` call of int or None constants, else None."""
    import gast
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "slice"
            and not node.keywords and 1 <= len(node.args) <= 3
            and all(isinstance(a, gast.Constant) and (a.value is None or type(a.value) is int) for a in node.args)):
        return None
    values = [a.value for a in node.args]
    written = slice(*values)
    parts = ["" if v is None else str(v) for v in (written.start, written.stop, written.step)]
    text = ":".join(parts[:2]) + (f":{parts[2]}" if written.step is not None else "")
    return written, text


INDEX_FOLDS = {helpers.unique_index, helpers.part_at, helpers.cleared_at, helpers.index_adjoint}
