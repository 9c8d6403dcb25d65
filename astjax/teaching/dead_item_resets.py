"""An adjoint item reset to zero after its last read is not printed.

    for i in reversed(range(len(x))):       ->      for i in reversed(range(len(x))):
        bx_i = by[i]                                    bx_i = by[i]
        by = by.at[i].set(0.0)                          bx = bx.at[i].add(bx_i)
        bx = bx.at[i].add(bx_i)

The reverse of `y[i] = x[i]` hands `by[i]` to `x[i]` and zeroes it, since the value the item held
before the assignment got none of it. When nothing reads that item again the zero is never seen. Only
for a reset `v = v.at[e].set(0)` (or `v = v.at[e].set(0) + rest`, which becomes `v = v + rest`) in a
`for` over `range(...)` (or its `reversed`), not itself inside a loop, whose body does not assign its
index `i`, with `e` one of `i`, `i + c`, `i - c` (c an integer) or a name the body assigns that once
before reading it, where every other read of `v` in the function is before the loop (in its block) or
`v[e]` in a statement of the same loop body before the reset, and the loop assigns `v` nowhere else:
each iteration reads its own item first, no later iteration reads it (a range repeats no index), and
nothing after the loop reads `v`.
"""
import gast
from ..codegen.node_walk import walk

__all__ = ["drop_dead_item_resets"]


def drop_dead_item_resets(function_node):
    for loop, inside_loop in _loops(function_node, False):
        if inside_loop or loop.orelse or not isinstance(loop.target, gast.Name) or not _over_range(loop.iter):
            continue
        index = loop.target.id
        if any(isinstance(n, gast.Name) and n.id == index and not isinstance(n.ctx, gast.Load)
               for s in loop.body for n in walk(s)):
            continue
        aliases = _index_aliases(function_node, loop, index)
        for k, stmt in enumerate(loop.body):
            found = _reset(stmt, index, aliases)
            if found is None or not _only_earlier_item_reads(function_node, loop, k, *found):
                continue
            name = found[0]
            if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
                   for s in loop.body if s is not stmt for n in walk(s)):
                continue
            if isinstance(stmt.value, gast.BinOp):           # v = v.at[e].set(0) + rest  ->  v = v + rest
                stmt.value.left = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
            else:
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


def _index_aliases(function_node, loop, index):
    """Names the loop body assigns once, `i + c` and the like (`t_plus_1 = t + 1`), before any of its
    statements reads them: an item index as good as the expression."""
    counts = {}
    for stmt in loop.body:
        for n in walk(stmt):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                counts[n.id] = counts.get(n.id, 0) + 1
    aliases = set()
    for i, s in enumerate(loop.body):
        if (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
                and counts.get(s.targets[0].id) == 1 and _own_item(s.value, index, ())):
            name = s.targets[0].id
            if not any(isinstance(n, gast.Name) and n.id == name for t in loop.body[:i] for n in walk(t)):
                aliases.add(name)
    return aliases


def _reset(stmt, index, aliases=()):
    """(v, the item's index) for `v = v.at[e].set(0)` or `v = v.at[e].set(0) + rest`, e an index of the
    loop that names each iteration's own item (`i`, `i + 1`, `i - 2`), else None."""
    value = _reset_call(stmt)
    if value is None:
        return None
    sub = value.func.value
    name = stmt.targets[0].id
    if not (isinstance(sub, gast.Subscript) and _own_item(sub.slice, index, aliases)
            and isinstance(sub.value, gast.Attribute) and sub.value.attr == "at"
            and isinstance(sub.value.value, gast.Name) and sub.value.value.id == name):
        return None
    return name, sub.slice


def _reset_call(stmt):
    """The `v.at[e].set(0)` of `v = v.at[e].set(0)` or `v = v.at[e].set(0) + rest`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    value = stmt.value
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
        value = value.left
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "set"
            and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], gast.Constant)
            and type(value.args[0].value) in (int, float) and value.args[0].value == 0):
        return None
    return value


def _own_item(expr, index, aliases):
    """`i`, `i + c`, `c + i` or `i - c` (c an integer), or a name in `aliases` assigned one of those: a
    different item for each value of `i`."""
    if isinstance(expr, gast.Name):
        return expr.id == index or expr.id in aliases
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
        pairs = [(expr.left, expr.right)] + ([(expr.right, expr.left)] if isinstance(expr.op, gast.Add) else [])
        return any(isinstance(a, gast.Name) and a.id == index and isinstance(b, gast.Constant) and type(b.value) is int
                   for a, b in pairs)
    return False


def _only_earlier_item_reads(function_node, loop, k, name, item):
    """Whether every read of `name` but the reset's own is `name[item]` in loop.body[:k]."""
    allowed = set()
    for stmt in loop.body[:k]:
        for n in walk(stmt):
            if (isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and n.value.id == name
                    and gast.dump(n.slice) == gast.dump(item) and isinstance(n.ctx, gast.Load)):
                allowed.add(id(n.value))
    allowed.add(id(_reset_call(loop.body[k]).func.value.value.value))
    for stmt in _before(function_node, loop):           # reads before the loop see no reset
        allowed |= {id(n) for n in walk(stmt) if isinstance(n, gast.Name) and n.id == name}
    return all(id(n) in allowed for n in walk(function_node)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load))


def _before(function_node, loop):
    """The statements before `loop` in the block that holds it."""
    for owner in walk(function_node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and any(s is loop for s in block):
                return block[:[i for i, s in enumerate(block) if s is loop][0]]
    return []


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name
