"""A loop that only scales an adjoint by the same factor is one power.

    for i in reversed(range(n + 1)):        ->      ba = ba * 3.0 ** (n + 1)
        ba = ba * 3.0
    for _k1 in range(_n1):                  ->      ba = ba * 0.5 ** _n1
        ba = ba * 0.5

The reverse sweep of `a = a * 3.0` in a loop multiplies the adjoint by 3.0 once per iteration; a
teacher writes the product of all of them, `3.0 ** (n + 1)`. Only for a `for` over `range(stop)` (or
`reversed(range(stop))`) whose body (comments aside) is the one statement `v = v * c`, `v = c * v` or
`v *= c`, v an adjoint `b<name>` (the forward sweep keeps the user's loop) and `c` a number or a name
the loop does not assign, read in neither the factor nor anything else the loop index. The iteration
count is `stop` where it cannot be negative (a count, `len(...)`, sums of those), else
`max(stop, 0)`: an integer argument is guarded even where the example's value was non-negative, since
the printed source serves every value of it (`range(n + 1)` runs no iteration for n < -1, where
`3.0 ** (n + 1)` is not 1). The comments of the body stay, above
the power.
"""
import gast
from ..codegen.node_walk import walk

__all__ = ["fold_scaling_loops"]


def fold_scaling_loops(function_node, arguments=None):
    counters = _counters(function_node)
    names = {n.id for n in walk(function_node) if isinstance(n, gast.Name)}
    adjoints = {n for n in names if n.startswith("b") and n[1:] in names}
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _block(block, counters, adjoints)
    return function_node


def _block(block, nonnegative, adjoints):
    i = 0
    while i < len(block):
        replacement = _fold(block[i], nonnegative, adjoints)
        if replacement is not None:
            block[i:i + 1] = replacement
            i += len(replacement)
        else:
            i += 1


def _fold(loop, nonnegative, adjoints):
    if not (isinstance(loop, gast.For) and not loop.orelse and isinstance(loop.target, gast.Name)):
        return None
    stop = _range_stop(loop.iter)
    real = [s for s in loop.body if not _is_comment(s)]
    if stop is None or len(real) != 1:
        return None
    scaled = _scaling(real[0])
    if scaled is None:
        return None
    name, factor = scaled
    if name not in adjoints:
        return None              # the forward sweep keeps the user's loop
    if isinstance(factor, gast.Name) and factor.id in (name, loop.target.id):
        return None
    count = stop if _nonnegative(stop, nonnegative) else _call("max", [stop, gast.Constant(value=0, kind=None)])
    power = gast.BinOp(left=factor, op=gast.Pow(), right=count)
    assign = gast.Assign(targets=[_name(name, gast.Store())],
                         value=gast.BinOp(left=_name(name, gast.Load()), op=gast.Mult(), right=power),
                         type_comment=None)
    return [s for s in loop.body if _is_comment(s)] + [assign]


def _range_stop(expr):
    """`stop` of `range(stop)` or `reversed(range(stop))`, else None."""
    if _is_call(expr, "reversed") and len(expr.args) == 1:
        expr = expr.args[0]
    if _is_call(expr, "range") and len(expr.args) == 1 and not isinstance(expr.args[0], gast.Starred):
        return expr.args[0]
    return None


def _scaling(stmt):
    """(v, c) for `v = v * c`, `v = c * v` or `v *= c` with c a number or a name, else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Mult) and isinstance(stmt.target, gast.Name):
        name, factor = stmt.target.id, stmt.value
    elif (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
          and isinstance(stmt.value, gast.BinOp) and isinstance(stmt.value.op, gast.Mult)):
        name, (left, right) = stmt.targets[0].id, (stmt.value.left, stmt.value.right)
        if isinstance(left, gast.Name) and left.id == name:
            factor = right
        elif isinstance(right, gast.Name) and right.id == name:
            factor = left
        else:
            return None
    else:
        return None
    number = isinstance(factor, gast.Constant) and type(factor.value) in (int, float)
    if not (number or isinstance(factor, gast.Name)):
        return None
    return name, factor


def _nonnegative(expr, names):
    if isinstance(expr, gast.Constant):
        return type(expr.value) is int and expr.value >= 0
    if isinstance(expr, gast.Name):
        return expr.id in names
    if _is_call(expr, "len"):
        return True
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Mult)):
        return _nonnegative(expr.left, names) and _nonnegative(expr.right, names)
    return False


def _counters(function_node):
    """Names only ever assigned `0` and `name + 1` (`name += 1`): iteration counts, never negative."""
    assigned = {}
    for node in walk(function_node):
        if isinstance(node, gast.Assign):
            for target in node.targets:
                for n in walk(target):
                    if isinstance(n, gast.Name):
                        ok = target is n and (_is_int(node.value, 0) or _is_increment(node.value, n.id))
                        assigned.setdefault(n.id, []).append(ok)
        elif isinstance(node, gast.AugAssign):
            for n in walk(node.target):
                if isinstance(n, gast.Name):
                    ok = node.target is n and isinstance(node.op, gast.Add) and _is_int(node.value, 1)
                    assigned.setdefault(n.id, []).append(ok)
        elif isinstance(node, (gast.For, gast.comprehension)):
            for n in walk(node.target):
                if isinstance(n, gast.Name):
                    assigned.setdefault(n.id, []).append(False)
        elif isinstance(node, (gast.With, gast.NamedExpr, gast.AnnAssign, gast.Import, gast.ImportFrom)):
            for n in walk(node):
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                    assigned.setdefault(n.id, []).append(False)
    parameters = _parameter_names(function_node)
    return {name for name, oks in assigned.items() if all(oks) and name not in parameters}


def _stored_names(function_node):
    """Names the function assigns (its parameters are `Param`, not counted)."""
    return {n.id for n in walk(function_node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}


def _parameter_names(function_node):
    args = function_node.args
    return {a.id for a in args.args + args.kwonlyargs + args.posonlyargs + [args.vararg, args.kwarg] if a}


def _is_increment(expr, name):
    return (isinstance(expr, gast.BinOp) and isinstance(expr.op, gast.Add) and isinstance(expr.left, gast.Name)
            and expr.left.id == name and _is_int(expr.right, 1))


def _is_int(expr, value):
    return isinstance(expr, gast.Constant) and type(expr.value) is int and expr.value == value


def _is_call(expr, name):
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name
            and not expr.keywords)


def _call(name, args):
    return gast.Call(func=_name(name, gast.Load()), args=args, keywords=[])


def _name(name, ctx):
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
