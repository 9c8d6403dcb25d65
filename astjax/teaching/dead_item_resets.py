"""An adjoint item reset to zero after its last read is not printed.

    for i in reversed(range(len(x))):       ->      for i in reversed(range(len(x))):
        bx_i = by[i]                                    bx_i = by[i]
        by = by.at[i].set(0.0)                          bx = bx.at[i].add(bx_i)
        bx = bx.at[i].add(bx_i)

The reverse of `y[i] = x[i]` hands `by[i]` to `x[i]` and zeroes it, since the value the item held
before the assignment got none of it. When nothing reads that item again the zero is never seen. Only
for a reset `v = v.at[i].set(0)` in a `for` over `range(...)` (or its `reversed`), not itself inside a
loop, whose body does not assign its index `i`, where every other read of `v` in the function is `v[i]`
in a statement of the same loop body before the reset and the loop assigns `v` nowhere else: each
iteration reads its own item first, no later iteration reads it (a range repeats no index), and
nothing after the loop reads `v`.
"""
import gast

__all__ = ["drop_dead_item_resets"]


def drop_dead_item_resets(function_node):
    for loop, inside_loop in _loops(function_node, False):
        if inside_loop or loop.orelse or not isinstance(loop.target, gast.Name) or not _over_range(loop.iter):
            continue
        index = loop.target.id
        if any(isinstance(n, gast.Name) and n.id == index and not isinstance(n.ctx, gast.Load)
               for s in loop.body for n in gast.walk(s)):
            continue
        for k, stmt in enumerate(loop.body):
            name = _reset(stmt, index)
            if name is None or not _only_earlier_item_reads(function_node, loop, k, name, index):
                continue
            if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
                   for s in loop.body if s is not stmt for n in gast.walk(s)):
                continue
            del loop.body[k]
            if not loop.body:
                loop.body.append(gast.Pass())
            return drop_dead_item_resets(function_node)
    return function_node


def _loops(node, inside):
    """(for loop, whether it is inside another loop) for every `for` of the function."""
    for child in gast.iter_child_nodes(node):
        if isinstance(child, (gast.FunctionDef, gast.Lambda)):
            continue
        if isinstance(child, gast.For):
            yield child, inside
        yield from _loops(child, inside or isinstance(child, (gast.For, gast.While)))


def _over_range(expr):
    if _is_call(expr, "reversed") and len(expr.args) == 1:
        expr = expr.args[0]
    return _is_call(expr, "range")


def _reset(stmt, index):
    """`v` for `v = v.at[index].set(0)`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "set"
            and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], gast.Constant)
            and type(value.args[0].value) in (int, float) and value.args[0].value == 0):
        return None
    sub = value.func.value
    if not (isinstance(sub, gast.Subscript) and isinstance(sub.slice, gast.Name) and sub.slice.id == index
            and isinstance(sub.value, gast.Attribute) and sub.value.attr == "at"
            and isinstance(sub.value.value, gast.Name) and sub.value.value.id == name):
        return None
    return name


def _only_earlier_item_reads(function_node, loop, k, name, index):
    """Whether every read of `name` but the reset's own is `name[index]` in loop.body[:k]."""
    allowed = set()
    for stmt in loop.body[:k]:
        for n in gast.walk(stmt):
            if (isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and n.value.id == name
                    and isinstance(n.slice, gast.Name) and n.slice.id == index and isinstance(n.ctx, gast.Load)):
                allowed.add(id(n.value))
    reset_read = loop.body[k].value.func.value.value.value
    allowed.add(id(reset_read))
    return all(id(n) in allowed for n in gast.walk(function_node)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load))


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name
