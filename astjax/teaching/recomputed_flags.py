"""A branch flag the reverse sweep can recompute from a value it restores is not saved.

    a_lt_20 = a < 20                ->      push(_tape, a)
    if a_lt_20:                             if a < 20:
        push(_tape, a)                          a = a * a
        a = a * a                           ...
    push(_tape, a_lt_20)                    a = pop(_tape)
    ...                                     if a < 20:
    a_lt_20 = pop(_tape)                        ba = ba * a + ba * a
    if a_lt_20:
        a = pop(_tape)
        ba = ba * a + ba * a

When the taken branch saves the very value its test reads, saving that value before the `if` (taken or
not) lets the reverse sweep restore it and test it again: one save per iteration instead of two, and
the test written where a teacher writes it. Only where the flag `f = test` is read by nothing but the
forward `if f:` right after it, the `push(_tape, f)` right after that `if`, and the reverse `if f:` right
after `f = pop(_tape)`; each `if` has no `else`; the forward branch saves one value, `x`, first, and the
reverse branch restores one, `x`, first; and the test reads `x` and otherwise only names the function
never assigns, calling nothing but the library's `jnp.`/`np.` functions. The tape then holds `x`
where it held `x` (if taken) and `f`, in the same order.
"""
import copy

import gast
from ..codegen.node_walk import walk

__all__ = ["recompute_flags"]


def recompute_flags(function_node):
    blocks = _blocks(function_node)
    stored = {}
    loads = {}
    for n in walk(function_node):
        if isinstance(n, gast.Name):
            (loads if isinstance(n.ctx, gast.Load) else stored).setdefault(n.id, []).append(n)
    for block in blocks:
        for k, stmt in enumerate(list(block)):
            flag = _popped_name(stmt)
            if flag is None or len(stored.get(flag, ())) != 2 or len(loads.get(flag, ())) != 3:
                continue
            reverse = _next_if(block, k, flag)
            forward = _forward_site(blocks, flag)
            if reverse is None or forward is None or forward[0] is block:
                continue
            fblock, fi, fif, fj, saved = forward
            test = fblock[fi].value
            if not _test_reads_only(test, saved, stored):
                continue
            rif = block[reverse]
            restore = _first_real(rif.body)
            if not (_popped_name(restore) == saved and _count_tape(rif.body, "pop") == 1):
                continue
            # forward: `push(_tape, x)` before the `if test:`; the flag and its push go
            push_stmt = _first_real(fif.body)
            fif.body.remove(push_stmt)
            if not [s for s in fif.body if not _is_comment(s)]:
                fif.body.append(gast.Pass())
            fif.test = test
            del fblock[fj]                       # push(_tape, f)
            fblock[fi] = push_stmt               # f = test
            # reverse: `x = pop(_tape)` before the `if test:`; the flag's pop goes
            rif.body.remove(restore)
            if not [s for s in rif.body if not _is_comment(s)]:
                rif.body.append(gast.Pass())
            rif.test = copy.deepcopy(test)
            block[k] = restore
            return recompute_flags(function_node)
    return function_node


def _forward_site(blocks, flag):
    """(block, index of `f = test`, the `if f:`, index of `push(_tape, f)`, x) for the forward half."""
    for block in blocks:
        for i, stmt in enumerate(block):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id == flag and _popped_name(stmt) is None):
                continue
            if i + 2 >= len(block):
                return None
            fif, push = block[i + 1], block[i + 2]
            if not (_is_if_on(fif, flag) and _pushed(push) == flag):
                return None
            first = _first_real(fif.body)
            saved = _pushed(first)
            if saved is None or _count_tape(fif.body, "push") != 1:
                return None
            return block, i, fif, i + 2, saved
    return None


def _next_if(block, k, flag):
    j = k + 1
    while j < len(block) and _is_comment(block[j]):
        j += 1
    if j < len(block) and _is_if_on(block[j], flag):
        return j
    return None


def _is_if_on(stmt, flag):
    return (isinstance(stmt, gast.If) and not stmt.orelse and isinstance(stmt.test, gast.Name)
            and stmt.test.id == flag)


def _test_reads_only(test, saved, stored):
    """The test reads `saved` and names nothing assigns, and calls only the library's `jnp.`/`np.`
    functions (`len(xs)` of a list appended to after its save would change)."""
    for n in walk(test):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                                             and n.func.value.id in ("jnp", "np")):
            return False
    names = {n.id for n in walk(test) if isinstance(n, gast.Name)}
    return saved in names and all(name == saved or name not in stored for name in names)


def _first_real(body):
    for s in body:
        if not _is_comment(s):
            return s
    return None


def _popped_name(stmt):
    """`x` for `x = pop(_tape)`, else None."""
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and _is_call(stmt.value, "pop")):
        return stmt.targets[0].id
    return None


def _pushed(stmt):
    """`x` for `push(_tape, x)` with x a name, else None."""
    if (isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push") and len(stmt.value.args) == 2
            and isinstance(stmt.value.args[1], gast.Name)):
        return stmt.value.args[1].id
    return None


def _count_tape(body, which):
    return sum(1 for s in body for n in walk(s) if _is_call(n, which))


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _blocks(function_node):
    out = []
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                out.append(block)
    return out


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
