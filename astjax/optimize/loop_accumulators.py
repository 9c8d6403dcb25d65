"""An adjoint a loop body zeroes at the end of every iteration is assigned, not accumulated, at its start.

    b_t3 = 0.0                              (removed: nothing reads it)
    for _i1 in reversed(range(n)):          for _i1 in reversed(range(n)):
        b_t3 += bh * (1.0 - h * h)    ->        b_t3 = bh * (1.0 - h * h)
        bW += jnp.outer(b_t3, x)                bW += jnp.outer(b_t3, x)
        b_t3 = 0.0                              (removed)

This is exact when `b_t3` is zero every time the `+=` runs: the reset is the
body's last statement mentioning it, nothing (`break`, `continue`, `return`)
can skip the reset, and everywhere outside the loop `b_t3` is only set to zero
(so it is zero when the loop starts, and its value after the loop is never
read). The reverse sweep of a loop writes exactly this for the adjoints of
temporaries computed inside the loop.
"""
import gast

from .zero_accumulation import _is_shaped_zero, _is_zero, _may_be_bare_zero

__all__ = ["fold_loop_accumulators"]


def fold_loop_accumulators(function_node):
    for loop in [n for n in gast.walk(function_node) if isinstance(n, (gast.For, gast.While))]:
        if _can_skip_the_end(loop):
            continue
        for variable in _reset_at_the_end(loop):
            if _only_zeroed_outside(function_node, loop, variable):
                _fold(loop, variable)
    return function_node


def _reset_at_the_end(loop):
    """Variables whose last mention in the loop body is a top-level `v = <zero>`."""
    found = []
    seen_later = set()
    for stmt in reversed(loop.body):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and _is_zero(stmt.value) and stmt.targets[0].id not in seen_later):
            found.append(stmt.targets[0].id)
        seen_later |= _names(stmt)
    return found


def _fold(loop, variable):
    """Turn the body's first mention of `variable`, a top-level `v += e`, into `v = e`; drop the reset."""
    first = next(i for i, stmt in enumerate(loop.body) if variable in _names(stmt))
    last = max(i for i, stmt in enumerate(loop.body) if variable in _names(stmt))
    stmt, reset = loop.body[first], loop.body[last]
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name) and stmt.target.id == variable
            and variable not in _names(stmt.value) and first < last):
        return
    if _is_shaped_zero(reset.value) and _may_be_bare_zero(stmt.value):
        return          # the contribution may be a bare 0.0 where the reset gave a shaped zero
    loop.body[first] = gast.copy_location(
        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None, type_comment=None)],
                    value=stmt.value, type_comment=None), stmt)
    del loop.body[last]


def _only_zeroed_outside(function_node, loop, variable):
    """Whether every statement outside `loop` mentioning `variable` sets it to zero (a `zeros_shaped`
    reading it for its dtype included), and the loop's header does not mention it."""
    header = [loop.test] if isinstance(loop, gast.While) else [loop.target, loop.iter]
    if any(variable in _names(part) for part in header):
        return False
    allowed = {id(n) for stmt in loop.body for n in gast.walk(stmt)}    # an `else:` block runs after the loop
    for stmt in gast.walk(function_node):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id == variable and _is_zero(stmt.value)):
            allowed.update(id(n) for n in gast.walk(stmt))
    return all(id(n) in allowed for n in gast.walk(function_node) if isinstance(n, gast.Name) and n.id == variable)


def _can_skip_the_end(loop):
    """Whether some iteration may end before the body's last statement and the loop go on (break,
    continue; return too, to be safe; a raise ends the whole call)."""
    def walk(stmts, nested):
        for stmt in stmts:
            if isinstance(stmt, gast.Return) or (not nested and isinstance(stmt, (gast.Break, gast.Continue))):
                return True
            if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                continue
            inner_nested = nested or isinstance(stmt, (gast.For, gast.While))
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(stmt, field, None)
                if isinstance(block, list) and walk(block, inner_nested):
                    return True
        return False
    return walk(loop.body, False)


def _names(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
