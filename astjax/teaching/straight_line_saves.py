"""A value saved on the tape in straight-line code keeps its name; what overwrites it gets a new one.

    _tape = Tape()                              y = x ** 2.0
    y = x ** 2.0                                x1 = at_set(x, 0, y[1] * y[2])
    push(_tape, x)                      ->      ...
    x = at_set(x, 0, y[1] * y[2])               by = bxy * x1
    ...                                         ...
    by = bxy * x                                return bx + by * 2.0 * x
    x = pop(_tape)
    ...
    return bx + by * 2.0 * x

A tape is what a loop needs to remember one value per iteration; outside loops a teacher names the
new value instead (`x1`). Only where the tape is made, pushed to and popped from in the function's
top-level statements and nowhere else, each `push(_tape, x)` (x a name) is matched by a later
`x = pop(_tape)` in last-in first-out order, and between them `x` is assigned once, by a plain
top-level assignment: that assignment and the reads after it up to the pop are renamed, and the push
and the pop go (the tape too, once nothing is pushed on it).
"""
import gast

from ..codegen.naming import names_in
from ..codegen.node_walk import walk

__all__ = ["name_straight_line_saves"]


def name_straight_line_saves(function_node):
    body = function_node.body
    tape = _tape_name(body)
    if tape is None or not _only_top_level(function_node, tape):
        return function_node
    pairs = _pairs(body, tape)
    if pairs is None:
        return function_node
    used = set(names_in(function_node))
    dropped = []
    for p, q, name in pairs:
        w = _single_assignment(body, p, q, name, pairs)
        if w is None:
            continue
        new = _fresh(name, used)
        used.add(new)
        body[w].targets[0].id = new
        for stmt in body[w + 1:q]:
            for n in walk(stmt):
                if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
                    n.id = new
        dropped += [body[p], body[q]]
    if not dropped:
        return function_node
    body[:] = [s for s in body if not any(s is d for d in dropped)]
    if not any(_is_tape_call(n, tape) for s in body for n in walk(s)):
        body[:] = [s for s in body if not _makes_tape(s, tape)]
    return function_node


def _tape_name(body):
    for stmt in body:
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name)
                and stmt.value.func.id == "Tape" and not stmt.value.args):
            return stmt.targets[0].id
    return None


def _only_top_level(function_node, tape):
    """Whether every use of `tape` is a top-level `tape = Tape()`, `push(tape, name)` or `name = pop(tape)`."""
    allowed = set()
    for stmt in function_node.body:
        if _makes_tape(stmt, tape) or _pushed(stmt, tape) is not None or _popped(stmt, tape) is not None:
            allowed |= {id(n) for n in walk(stmt) if isinstance(n, gast.Name) and n.id == tape}
    return all(id(n) in allowed for n in walk(function_node) if isinstance(n, gast.Name) and n.id == tape)


def _pairs(body, tape):
    """[(push index, pop index, name)] matched last in, first out; None if any do not match."""
    stack, pairs = [], []
    for i, stmt in enumerate(body):
        pushed, popped = _pushed(stmt, tape), _popped(stmt, tape)
        if pushed is not None:
            stack.append((i, pushed))
        elif popped is not None:
            if not stack or stack[-1][1] != popped:
                return None
            p, name = stack.pop()
            pairs.append((p, i, name))
    return None if stack else pairs


def _single_assignment(body, p, q, name, pairs):
    """The index of the one plain top-level `name = e` between p and q, None unless exactly that."""
    if any(other != (p, q, name) and other[2] == name and not (other[1] < p or other[0] > q) for other in pairs):
        return None
    found = None
    for i in range(p + 1, q):
        stores = [n for n in walk(body[i]) if isinstance(n, gast.Name) and n.id == name
                  and not isinstance(n.ctx, gast.Load)]
        if not stores:
            continue
        stmt = body[i]
        if (found is not None or not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1
                or stmt.targets[0] is not stores[0] or len(stores) != 1):
            return None
        found = i
    return found


def _fresh(name, used):
    k = 1
    while f"{name}{k}" in used:
        k += 1
    return f"{name}{k}"


def _makes_tape(stmt, tape):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == tape and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "Tape")


def _pushed(stmt, tape):
    if (isinstance(stmt, gast.Expr) and _is_tape_call(stmt.value, tape, "push") and len(stmt.value.args) == 2
            and isinstance(stmt.value.args[1], gast.Name)):
        return stmt.value.args[1].id
    return None


def _popped(stmt, tape):
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and _is_tape_call(stmt.value, tape, "pop") and len(stmt.value.args) == 1):
        return stmt.targets[0].id
    return None


def _is_tape_call(node, tape, which=None):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id in ((which,) if which else ("push", "pop")) and node.args
            and isinstance(node.args[0], gast.Name) and node.args[0].id == tape)
