"""A value computed from saved values is computed again where they are restored, not saved itself.

    for i in range(3):                      ->      for i in range(3):
        aa = a * a                                      aa = a * a
        push(_tape, a)                                  push(_tape, a)
        a = aa * a                                      a = aa * a
        push(_tape, aa)                             ...
    ...                                             for i in reversed(range(3)):
    for i in reversed(range(3)):                        a = pop(_tape)
        aa = pop(_tape)                                 aa = a * a
        a = pop(_tape)                                  ...
        ...

`a * a` costs less to compute than to save and restore, and a teacher writes it again. Only for a
`t = e` in a loop body (e arithmetic: no call but the library's `jnp.`/`np.` functions, no container
that could change in place, and `t` read before its save only as an operand of arithmetic),
saved by the one `push(_tape, t)` of the function and restored by its one `t = pop(_tape)` in another
loop's body, where every name `e` reads is either never assigned in the function or saved by a
`push(_tape, a)` after `t = e` in the same body with nothing assigning `a` in between, and restored
by an `a = pop(_tape)` after `t = pop(_tape)` in the restoring body with nothing reading `t` in
between (each body saving and restoring `a` once, so the restore is that save's): `t = e` goes right after the last of those restores.
"""
import copy

import gast
from ..codegen.node_walk import walk

__all__ = ["recompute_saved_values"]


def recompute_saved_values(function_node):
    blocks = _blocks(function_node)
    stored = {}
    for n in walk(function_node):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stored[n.id] = stored.get(n.id, 0) + 1
    pushes = [n for n in walk(function_node) if _is_call(n, "push")]
    for forward in blocks:
        for i, stmt in enumerate(forward):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
                continue
            t = stmt.targets[0].id
            if stored.get(t) != 2 or not _arithmetic(stmt.value):
                continue
            saves_of_t = [p for p in pushes if len(p.args) == 2 and isinstance(p.args[1], gast.Name) and p.args[1].id == t]
            m = _index_of_push(forward, t, i)
            if len(saves_of_t) != 1 or m is None or not _read_only_as_operand(forward, i, m, t):
                continue
            reads = {n.id for n in walk(stmt.value) if isinstance(n, gast.Name)}
            saved = {a for a in reads if a in stored}
            if not all(_pushed_unchanged(forward, i, a) and _saves_in(forward, a) == 1 for a in saved):
                continue
            restore = _restore_site(blocks, forward, t, saved)
            if restore is None:
                continue
            block, r, after = restore
            if not all(_restores_in(block, a) == 1 for a in saved):
                continue                  # which restore feeds which save is then not plain
            del forward[m]
            block.insert(after + 1, copy.deepcopy(stmt))
            del block[r]
            return recompute_saved_values(function_node)
    return function_node


def _arithmetic(expr):
    for n in walk(expr):
        if isinstance(n, gast.Call):
            func = n.func
            if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                    and func.value.id in ("jnp", "np")):
                return False
        elif isinstance(n, (gast.NamedExpr, gast.Lambda, gast.Yield, gast.Await, gast.ListComp, gast.GeneratorExp,
                            gast.SetComp, gast.DictComp, gast.List, gast.Dict, gast.Set)):
            return False          # a container may be changed in place after it is saved (`t.append(v)`)
    return True


def _read_only_as_operand(block, i, m, name):
    """Whether block[i + 1:m] reads `name` only as an operand of arithmetic or a comparison (nothing
    that could change it in place, like `name.append(v)` or a call taking it)."""
    operands, reads = set(), set()
    for stmt in block[i + 1:m]:
        for n in walk(stmt):
            if isinstance(n, gast.BinOp):
                operands |= {id(n.left), id(n.right)}
            elif isinstance(n, gast.UnaryOp):
                operands.add(id(n.operand))
            elif isinstance(n, gast.Compare):
                operands |= {id(n.left)} | {id(c) for c in n.comparators}
            elif _is_call(n, "push"):
                operands |= {id(a) for a in n.args[1:]}
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
                reads.add(id(n))
    return reads <= operands


def _index_of_push(block, name, after):
    for j in range(after + 1, len(block)):
        if _pushed(block[j]) == name:
            return j
        if _stores(block[j], name):
            return None
    return None


def _pushed_unchanged(block, i, name):
    """Whether `push(_tape, name)` follows block[i] with nothing assigning `name` in between."""
    for j in range(i + 1, len(block)):
        if _pushed(block[j]) == name:
            return True
        if _stores(block[j], name):
            return False
    return False


def _restore_site(blocks, forward, t, saved):
    """(block, index of `t = pop(_tape)`, index of the last restore of `saved` after it), or None."""
    for block in blocks:
        if block is forward:
            continue
        for r, stmt in enumerate(block):
            if _popped(stmt) != t:
                continue
            positions = {}
            for j in range(r + 1, len(block)):
                name = _popped(block[j])
                if name in saved and name not in positions:
                    positions[name] = j
                if len(positions) == len(saved):
                    break
            if len(positions) != len(saved):
                return None
            last = max(positions.values()) if positions else r
            if any(isinstance(n, gast.Name) and n.id == t for s in block[r + 1:last + 1] for n in walk(s)):
                return None
            if any(_stores(s, a) for a, j in positions.items() for s in block[j + 1:last + 1]):
                return None
            return block, r, last
    return None


def _saves_in(block, name):
    return sum(1 for s in block for n in walk(s) if _is_call(n, "push") and len(n.args) == 2
               and isinstance(n.args[1], gast.Name) and n.args[1].id == name)


def _restores_in(block, name):
    return sum(1 for s in block for n in walk(s) if isinstance(n, gast.Assign) and _popped(n) == name)


def _pushed(stmt):
    if (isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push") and len(stmt.value.args) == 2
            and isinstance(stmt.value.args[1], gast.Name)):
        return stmt.value.args[1].id
    return None


def _popped(stmt):
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and _is_call(stmt.value, "pop")):
        return stmt.targets[0].id
    return None


def _stores(stmt, name):
    return any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) for n in walk(stmt))


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _blocks(function_node):
    out = []
    for owner in walk(function_node):
        if isinstance(owner, (gast.For, gast.While)):
            out.append(owner.body)
    return out
