"""An adjoint accumulated into one item is written as adding into that item.

    bx = 0.0                                        ->      bx = jnp.zeros((3,))
    for i in reversed(range(len(x))):                       for i in reversed(range(len(x))):
        bx += jnp.zeros((3,)).at[i].set(bx_i)                   bx = bx.at[i].add(bx_i)

The adjoint of reading `x[i]` is a zero array with `bx_i` at `i`; a teacher adds `bx_i` into `bx[i]`
(astjax arrays are immutable, so `bx = bx.at[i].add(bx_i)`). Only where every assignment of the adjoint
gives it the update's shape: a `0.0` start (written `jnp.zeros(shape)`), `jnp.zeros`/`jnp.ones` of that
shape, an elementwise expression of such arrays, `at_set` or `.at[i].set` of one, parameters of that
shape (from the specialization) and numbers, or another such update; and only for plain indices
(numbers, slices, loop indices of `range`, sums of those), since `.at[i].add` adds twice where an index
array repeats an item and `.at[i].set` does not.
"""
import copy

import gast
from ..codegen.node_walk import walk

__all__ = ["write_index_adjoints"]


def write_index_adjoints(function_node, arguments=None):
    shapes = {k: tuple(getattr(v, "shape", ())) for k, v in (arguments or {}).items()
              if hasattr(v, "shape") or isinstance(v, (int, float))}
    loop_indices = _range_indices(function_node)
    stores = {}
    direct = set()
    for node in walk(function_node):
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            for target in (node.targets if isinstance(node, gast.Assign) else [node.target]):
                if isinstance(target, gast.Name):
                    stores.setdefault(target.id, []).append(node)
                    direct.add(id(target))
    for n in walk(function_node):          # any other binding (a for target, a tuple item): unsure
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)) and id(n) not in direct:
            stores.setdefault(n.id, []).append(None)
    rewritten = {}
    for name, assigned in stores.items():
        updates = [s for s in assigned if s is not None and _update(s, name) is not None]
        if not updates or None in assigned:
            continue
        shape = _literal_shape(_update(updates[0], name)[0])
        if shape is None or any(_literal_shape(_update(s, name)[0]) != shape for s in updates):
            continue
        if not all(_plain_index(_update(s, name)[1], loop_indices) for s in updates):
            continue
        others = [s for s in assigned if not any(s is u for u in updates)]
        if not all(_keeps_shape(s, name, shape, shapes, stores) for s in others):
            continue
        for s in others:
            if isinstance(s.value, gast.Constant):
                s.value = _zeros(_update(updates[0], name)[0])
        for s in updates:
            rewritten[id(s)] = _rewrite(s, name)
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list):
                block[:] = [rewritten.get(id(s), s) for s in block]
    return function_node


def _update(stmt, name):
    """(shape node, index, value) where `stmt` is `name += jnp.zeros(S).at[i].set(e)` (or `name = name + ...`)."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) and isinstance(stmt.target, gast.Name) \
            and stmt.target.id == name:
        added = stmt.value
    elif (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
          and stmt.targets[0].id == name and isinstance(stmt.value, gast.BinOp) and isinstance(stmt.value.op, gast.Add)
          and isinstance(stmt.value.left, gast.Name) and stmt.value.left.id == name):
        added = stmt.value.right
    else:
        return None
    # jnp.zeros(S).at[i].set(e)
    if not (isinstance(added, gast.Call) and isinstance(added.func, gast.Attribute) and added.func.attr == "set"
            and len(added.args) == 1 and not added.keywords and isinstance(added.func.value, gast.Subscript)):
        return None
    at = added.func.value.value
    if not (isinstance(at, gast.Attribute) and at.attr == "at" and _is_jnp_call(at.value, "zeros")):
        return None
    if any(isinstance(n, gast.Name) and n.id == name for n in walk(added)):
        return None
    return at.value.args[0], added.func.value.slice, added.args[0]


def _rewrite(stmt, name):
    _, index, value = _update(stmt, name)
    target = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
    at = gast.Subscript(value=gast.Attribute(value=target, attr="at", ctx=gast.Load()), slice=index, ctx=gast.Load())
    call = gast.Call(func=gast.Attribute(value=at, attr="add", ctx=gast.Load()), args=[value], keywords=[])
    return gast.Assign(targets=[gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)],
                       value=call, type_comment=None)


def _keeps_shape(stmt, name, shape, shapes, stores):
    """Whether `stmt` (another assignment of `name`) leaves it an array of the update's shape."""
    if isinstance(stmt, gast.AugAssign):
        own = isinstance(stmt.value, gast.Name) and stmt.value.id == name          # `bh += bh`
        got = shape if own else _shape_of(stmt.value, shapes, stores, set())
        return isinstance(stmt.op, (gast.Add, gast.Sub, gast.Mult)) and got in ((), shape)
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return False
    if isinstance(stmt.value, gast.Constant) and stmt.value.value == 0.0 and type(stmt.value.value) is float:
        return True
    return _shape_of(stmt.value, shapes, stores, {name}) == shape


def _shape_of(expr, shapes, stores, seen):
    """The shape (a tuple of ints) `expr` has for the specialization, or None where unsure."""
    if isinstance(expr, gast.Constant):
        return () if type(expr.value) in (int, float) else None
    if isinstance(expr, gast.Name):
        assigned = stores.get(expr.id)
        if not assigned:
            return shapes.get(expr.id)
        if expr.id in seen or len(assigned) != 1 or not isinstance(assigned[0], gast.Assign):
            return None
        return _shape_of(assigned[0].value, shapes, stores, seen | {expr.id})
    if _is_jnp_call(expr, "zeros") or _is_jnp_call(expr, "ones"):
        return _literal_shape(expr.args[0])
    if (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr in ("set", "add")
            and isinstance(expr.func.value, gast.Subscript) and isinstance(expr.func.value.value, gast.Attribute)
            and expr.func.value.value.attr == "at"):
        return _shape_of(expr.func.value.value.value, shapes, stores, seen)     # x.at[i].set(v) has x's shape
    if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == "at_set" and expr.args:
        return _shape_of(expr.args[0], shapes, stores, seen)          # at_set(x, i, v) has x's shape
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)):
        left, right = (_shape_of(e, shapes, stores, seen) for e in (expr.left, expr.right))
        if left is None or right is None:
            return None
        return left if right == () else right if left == () else left if left == right else None
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        return _shape_of(expr.operand, shapes, stores, seen)
    return None


def _literal_shape(node):
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) and type(e.value) is int for e in node.elts):
        return tuple(e.value for e in node.elts)
    return None


def _zeros(shape_node):
    jnp = gast.Name(id="jnp", ctx=gast.Load(), annotation=None, type_comment=None)
    return gast.Call(func=gast.Attribute(value=jnp, attr="zeros", ctx=gast.Load()), args=[copy.deepcopy(shape_node)],
                     keywords=[])


def _plain_index(index, loop_indices):
    if isinstance(index, gast.Tuple):
        return all(_plain_index(e, loop_indices) for e in index.elts)
    if isinstance(index, gast.Slice):
        return all(part is None or _plain_index(part, loop_indices) for part in (index.lower, index.upper, index.step))
    if isinstance(index, gast.Constant):
        return type(index.value) is int
    if isinstance(index, gast.Name):
        return index.id in loop_indices
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub)):
        return _plain_index(index.left, loop_indices) and _plain_index(index.right, loop_indices)
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):
        return _plain_index(index.operand, loop_indices)
    return False


def _range_indices(function_node):
    """Names bound only as the index of a `for` over `range(...)` (or `reversed(range(...))`): integers."""
    ranges, bindings = {}, {}
    for node in walk(function_node):
        if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            it = node.iter
            if _is_name_call(it, "reversed") and len(it.args) == 1:
                it = it.args[0]
            if _is_name_call(it, "range"):
                ranges[node.target.id] = ranges.get(node.target.id, 0) + 1
    for n in walk(function_node):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            bindings[n.id] = bindings.get(n.id, 0) + 1
    return {name for name, count in ranges.items() if bindings.get(name) == count}


def _is_name_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _is_jnp_call(expr, attr):
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr == attr
            and isinstance(expr.func.value, gast.Name) and expr.func.value.id == "jnp" and len(expr.args) == 1
            and not expr.keywords)

