"""Items of a filled array are its number, and a loop adding a number into every item is a fill.

    bx = jnp.zeros((3,))                            ->      bx = jnp.ones((3,))
    by = jnp.ones((3,))
    for i in reversed(range(len(x))):
        bx = bx.at[i].add(by[i])

The adjoint of `jnp.sum(y)` is ones; `y[i] = x[i]` in a loop over every index passes it item by item.
A teacher writes the result: the gradient is ones. Two steps, each exact:

- `v[i]`, where `v = jnp.ones(S)` (`jnp.full(S, c)`, `jnp.zeros(S)`) is assigned once at the top of the
  function and S has one axis, is the number where it is added into or set in an item of another array
  (`.at[i].add(v[i])`: the result has that array's dtype either way), for a plain index: a number within
  S, or the index of a loop over `range`. Once every read is such an item, the assignment goes.
- `v = jnp.zeros((N,))` followed by a loop `for i in range(E)` (or `reversed(range(E))`) whose only
  statement is `v = v.at[i].add(c)`, with `c` a number and `E` equal to N (`N` written out, or `len(x)`
  of a parameter `x` nothing assigns whose example has N items): every item is `0.0 + c`, which is `c`
  (c not zero), so `v = jnp.full((N,), c)` (`jnp.ones((N,))` for 1.0). The printed text is for the
  example's shapes, as all of a specialized view is.
"""
import gast

from ..codegen.node_walk import walk

__all__ = ["fold_filled_items"]


def fold_filled_items(function_node, arguments=None):
    _constant_items(function_node)
    _filling_loops(function_node, arguments or {})
    return function_node


# ------------------------------------------------------------------ items of a fill
def _constant_items(function_node):
    stores, loads = {}, {}
    for n in walk(function_node):
        if isinstance(n, gast.Name):
            (loads if isinstance(n.ctx, gast.Load) else stores).setdefault(n.id, []).append(n)
    range_indices = _range_indices(function_node)
    for stmt in list(function_node.body):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        name = stmt.targets[0].id
        fill = _fill(stmt.value)
        if fill is None or len(fill[0]) != 1 or len(stores.get(name, ())) != 1:
            continue
        shape, number = fill
        reads = {id(n) for n in loads.get(name, ())}
        sites = []
        for node in walk(function_node):
            if _item_update(node):
                value = node.args[0]
                if (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                        and id(value.value) in reads and _plain(value.slice, shape[0], range_indices)):
                    sites.append(node)
        if not reads or len(sites) != len(reads):
            continue
        for node in sites:
            node.args[0] = gast.Constant(value=number, kind=None)
        function_node.body.remove(stmt)


def _item_update(node):
    """`a.at[i].add(e)` / `.set(e)`."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in ("add", "set")
            and isinstance(node.func.value, gast.Subscript) and isinstance(node.func.value.value, gast.Attribute)
            and node.func.value.value.attr == "at" and len(node.args) == 1 and not node.keywords)


def _plain(index, size, range_indices):
    if isinstance(index, gast.Constant) and type(index.value) is int:
        return -size <= index.value < size
    return isinstance(index, gast.Name) and index.id in range_indices


def _range_indices(function_node):
    """Names that are only ever the target of a `for` over `range(...)` / `reversed(range(...))`."""
    targets, other = set(), set()
    for node in walk(function_node):
        if isinstance(node, gast.For) and isinstance(node.target, gast.Name) and _range_of(node.iter) is not None:
            targets.add(node.target.id)
    for node in walk(function_node):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            owner_ok = any(isinstance(f, gast.For) and f.target is node and _range_of(f.iter) is not None
                           for f in walk(function_node) if isinstance(f, gast.For))
            if not owner_ok:
                other.add(node.id)
    return targets - other


def _range_of(expr):
    """E of `range(E)` or `reversed(range(E))`, else None."""
    if _call_of(expr, "reversed") and len(expr.args) == 1:
        expr = expr.args[0]
    if _call_of(expr, "range") and len(expr.args) == 1:
        return expr.args[0]
    return None


def _call_of(expr, name):
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name
            and not expr.keywords)


def _fill(expr):
    """(shape, number) of `jnp.ones(S)`, `jnp.zeros(S)`, `jnp.full(S, c)` with S and c written out, else None."""
    import ast
    if not (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and isinstance(expr.func.value, gast.Name)
            and expr.func.value.id == "jnp" and expr.args and not expr.keywords):
        return None
    try:
        shape = ast.literal_eval(gast.unparse(expr.args[0]))
        shape = (shape,) if isinstance(shape, int) else shape
        if not (isinstance(shape, tuple) and all(type(s) is int for s in shape)):
            return None
        if expr.func.attr in ("ones", "zeros") and len(expr.args) == 1:
            return shape, 1.0 if expr.func.attr == "ones" else 0.0
        if expr.func.attr == "full" and len(expr.args) == 2:
            number = ast.literal_eval(gast.unparse(expr.args[1]))
            return (shape, float(number)) if type(number) is float else None
    except (ValueError, SyntaxError, TypeError, AttributeError):
        return None
    return None


# ------------------------------------------------------------------ loops that fill
def _filling_loops(function_node, arguments):
    assigned = {n.id for n in walk(function_node) if isinstance(n, gast.Name)
                and not isinstance(n.ctx, (gast.Load, gast.Param))}
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _fill_in_block(block, arguments, assigned)


def _fill_in_block(block, arguments, assigned):
    i = 0
    while i < len(block):
        loop = block[i]
        start = _previous(block, i)
        if isinstance(loop, gast.For) and start is not None and not loop.orelse and isinstance(loop.target, gast.Name):
            first = block[start]
            real = [s for s in loop.body if not _is_comment(s)]
            fill = _fill(first.value) if _assigns_name(first) else None
            if fill is not None and fill[1] == 0.0 and len(fill[0]) == 1 and len(real) == 1:
                name, (size,) = first.targets[0].id, fill[0]
                number = _adds_number(real[0], name, loop.target.id)
                count = _range_of(loop.iter)
                outside = [n for s in block if s is not loop for n in walk(s)
                           if isinstance(n, gast.Name) and n.id == loop.target.id]
                if number is not None and number != 0.0 and count is not None and not outside \
                        and _evaluates_to(count, size, arguments, assigned):
                    comments = [s for s in loop.body if _is_comment(s)]
                    first.value = _full((size,), number)
                    block[i:i + 1] = comments
                    continue
        i += 1


def _previous(block, i):
    j = i - 1
    while j >= 0 and _is_comment(block[j]):
        j -= 1
    return j if j >= 0 else None


def _adds_number(stmt, name, index):
    """c of `name = name.at[index].add(c)` (c a float), else None."""
    if not (_assigns_name(stmt) and stmt.targets[0].id == name and _item_update(stmt.value)
            and stmt.value.func.attr == "add"):
        return None
    sub = stmt.value.func.value
    if not (isinstance(sub.value.value, gast.Name) and sub.value.value.id == name
            and isinstance(sub.slice, gast.Name) and sub.slice.id == index):
        return None
    value = stmt.value.args[0]
    return float(value.value) if isinstance(value, gast.Constant) and type(value.value) is float else None


def _evaluates_to(expr, size, arguments, assigned):
    if isinstance(expr, gast.Constant) and type(expr.value) is int:
        return expr.value == size
    if (_call_of(expr, "len") and len(expr.args) == 1 and isinstance(expr.args[0], gast.Name)
            and expr.args[0].id not in assigned and expr.args[0].id in arguments):
        shape = getattr(arguments[expr.args[0].id], "shape", None)
        return bool(shape) and shape[0] == size
    return False


def _full(shape, number):
    jnp = gast.Name(id="jnp", ctx=gast.Load(), annotation=None, type_comment=None)
    size = gast.Tuple(elts=[gast.Constant(value=s, kind=None) for s in shape], ctx=gast.Load())
    if number == 1.0:
        return gast.Call(func=gast.Attribute(value=jnp, attr="ones", ctx=gast.Load()), args=[size], keywords=[])
    return gast.Call(func=gast.Attribute(value=jnp, attr="full", ctx=gast.Load()),
                     args=[size, gast.Constant(value=number, kind=None)], keywords=[])


def _assigns_name(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
