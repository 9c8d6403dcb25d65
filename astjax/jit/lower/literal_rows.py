"""Lists of values held in a name and read only as rows of an array literal, as tuples.

    _l1 = [c, -s]                   ->   _l1 = (c, -s)
    _l2 = [s, c]                         _l2 = (s, c)
    R = jnp.array([_l1, _l2])            R = jnp.array([_l1, _l2])

Normalization names the rows of `jnp.array([[c, -s], [s, c]])` (and its tangents' and adjoints'
rows); Numba types a list of lists as no array-building call accepts, while the lowering of
`array` stacks nested tuples of values. Only a name stored once, never changed in place, and read
nowhere but as an item of a list or tuple literal passed to an array-building call (which reads a
tuple as it reads a list) is changed: the program's values are the same.
"""
import gast

from ...codegen.node_walk import walk

__all__ = ["rows_as_tuples"]

_BUILDERS = {"array", "asarray", "stack", "vstack", "hstack", "column_stack", "row_stack"}


def rows_as_tuples(node, context=None):
    parents = {}
    stores = {}
    for parent in walk(node):
        for child in gast.iter_child_nodes(parent):
            parents[id(child)] = parent
        if isinstance(parent, gast.Name) and not isinstance(parent.ctx, gast.Load):
            stores[parent.id] = stores.get(parent.id, 0) + 1
    candidates = {}
    for stmt in walk(node):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                and isinstance(stmt.value, gast.List) and _plain_items(stmt.value) \
                and stores.get(stmt.targets[0].id) == 1:
            candidates[stmt.targets[0].id] = stmt
    if not candidates:
        return node
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in candidates \
                and not _read_as_a_row(n, parents):
            del candidates[n.id]
    for stmt in candidates.values():
        stmt.value = _as_tuple(stmt.value)
    return node


def _plain_items(literal):
    """A list literal of expressions (nested list literals allowed), without `*` unpacking."""
    return all(_plain_items(e) if isinstance(e, gast.List) else not isinstance(e, gast.Starred)
               for e in literal.elts)


def _read_as_a_row(name, parents):
    """`name` is an item of a list or tuple literal that is a positional argument of an array-building call."""
    literal = parents.get(id(name))
    if not isinstance(literal, (gast.List, gast.Tuple)) or not any(e is name for e in literal.elts):
        return False
    call = parents.get(id(literal))
    if not isinstance(call, gast.Call) or not any(a is literal for a in call.args):
        return False
    func = call.func
    return isinstance(func, gast.Attribute) and func.attr in _BUILDERS and isinstance(func.value, gast.Name) \
        and func.value.id in ("np", "jnp", "np_", "numpy")


def _as_tuple(literal):
    return gast.Tuple(elts=[_as_tuple(e) if isinstance(e, gast.List) else e for e in literal.elts], ctx=gast.Load())
