"""Loop temporaries saved the way a person would: recomputed, or pushed after they are computed.

The tape plan saves a loop temporary before each iteration overwrites it, so the first iteration
saves a placeholder and the reverse sweep restores the previous iteration's value at the end of
each step:

    t_plus_1 = None                                    (gone)
    for t in range(3):                                 for t in range(3):
        push(_tape, t_plus_1)                              aa = a * a
        t_plus_1 = t + 1                                   push(_tape, aa)
        push(_tape, aa)             ->                 for t in reversed(range(3)):
        aa = a * a                                         t_plus_1 = t + 1
    for t in reversed(range(3)):                           aa = pop(_tape)
        ...                                                ...
        aa = pop(_tape)
        t_plus_1 = pop(_tape)

Each tape keeps its own order, so a second derivative's tangent tape (`push(d_tape, daa)` beside
`push(_tape, aa)`) neither blocks nor is blocked by the other, and a placeholder may be any constant
(`daa = 0.0`). A temporary computed from the loop index and names that never change (`t + 1`, `inputs[t]`) is computed
again at the start of the reverse step instead of saved. Another one is pushed at the end of the forward
step (after it is computed) and popped at the start of the reverse step. Both hold only where the save
is the first of its forward step and the restore the last of its reverse step (so moving them keeps the
tape's last-in first-out order), which push feeds which pop is what a run on the example arguments
showed (`unread_saves._observed_pairs`), and the temporary is read nowhere but in those two loops. A
while loop (reversed as `for _k1 in range(_n1)`) gets the second form. `specialize.py` checks the result
reproduces the general code.
"""
import copy

import gast

from .unread_saves import _is_call, _observed_pairs, _site_call, _sites
from ..codegen.node_walk import walk

__all__ = ["move_loop_saves"]


def move_loop_saves(function_node, namespace, arguments):
    """Rewrite the loop temporaries' saves of `function_node` in place (see the module docstring)."""
    pairs = _observed_pairs(function_node, namespace, arguments)
    if pairs is None:
        return function_node
    popped_from, pushed_to = pairs
    sites = _sites(function_node)
    waiting = {}
    for j, pop_call in enumerate(sites["pop"]):
        sources = popped_from.get(j)
        if sources and len(sources) == 1 and pushed_to.get(next(iter(sources))) == {j}:
            waiting[j] = (sites["push"][next(iter(sources))], pop_call)
    changed = True
    while changed:               # one rewrite can make another's save the first of its step
        changed = False
        for j, (push_call, pop_call) in list(waiting.items()):
            places = _places(function_node)
            if _rewrite(function_node, places, push_call, pop_call) or \
                    _recompute_in_place(function_node, places, push_call, pop_call):
                del waiting[j]
                changed = True
    return function_node


def _recompute_in_place(function_node, places, push_call, pop_call):
    """A loop temporary already pushed after it is computed (`t_plus_1 = _k1 + 1; ...; push(_tape,
    t_plus_1)`) whose value is recomputable: its restore computes it again where it stood, and the push
    goes. The run paired the two sites only with each other, so the other saves keep their order."""
    push_stmt, pop_stmt = _statement_of(places, push_call), _statement_of(places, pop_call)
    if push_stmt is None or pop_stmt is None or not isinstance(push_call.args[1], gast.Name):
        return False
    variable = push_call.args[1].id
    if pop_stmt.targets[0].id != variable or _tape_of(push_call) is None or _tape_of(pop_call) != _tape_of(push_call):
        return False
    forward_block, forward_loop = places[id(push_stmt)]
    reverse_block, reverse_loop = places[id(pop_stmt)]
    if not (isinstance(forward_loop, gast.For) and isinstance(reverse_loop, gast.For) and forward_loop is not reverse_loop
            and forward_block is forward_loop.body and reverse_block is reverse_loop.body):
        return False
    if _stores_in(forward_loop, variable) != 1 or _jumps(forward_loop) or _jumps(reverse_loop):
        return False
    at = forward_block.index(push_stmt)
    assignment = next((s for s in forward_block[:at] if _assigns(s, variable)), None)
    if assignment is None or not _recomputable(function_node, assignment.value, forward_loop, reverse_loop):
        return False
    value = _in_reverse_index(copy.deepcopy(assignment.value), forward_loop, reverse_loop)
    forward_block.remove(push_stmt)
    if not forward_block:
        forward_block.append(gast.Pass())
    pop_stmt.value = value
    return True


def _rewrite(function_node, places, push_call, pop_call):
    push_stmt, pop_stmt = _statement_of(places, push_call), _statement_of(places, pop_call)
    if push_stmt is None or pop_stmt is None or not isinstance(push_call.args[1], gast.Name):
        return False
    variable = push_call.args[1].id
    if pop_stmt.targets[0].id != variable:
        return False
    forward_block, forward_loop = places[id(push_stmt)]
    reverse_block, reverse_loop = places[id(pop_stmt)]
    if not (isinstance(forward_loop, (gast.For, gast.While)) and isinstance(reverse_loop, gast.For)
            and forward_loop is not reverse_loop
            and forward_block is forward_loop.body and reverse_block is reverse_loop.body):
        return False
    tape = _tape_of(push_call)
    if tape is None or _tape_of(pop_call) != tape:
        return False
    code = [s for s in forward_block if not _is_comment(s)]
    at = next(i for i, s in enumerate(code) if s is push_stmt)
    while at + 1 < len(code) and _other_tape(code[at + 1], tape, variable):
        at += 1                          # (a second derivative's `push(d_tape, da)`, a line not about it)
    assignment = code[at + 1] if at + 1 < len(code) else None
    reverse_code = [s for s in reverse_block if not _is_comment(s)]
    while reverse_code and _other_tape(reverse_code[-1], tape, variable):
        reverse_code.pop()
    if not (_assigns(assignment, variable) and _first_push(code, push_stmt, tape)
            and reverse_code and reverse_code[-1] is pop_stmt):
        return False
    if _stores_in(forward_loop, variable) != 1 or _jumps(forward_loop) or _jumps(reverse_loop):
        return False
    after = {id(n) for s in code[at + 2:] for n in walk(s)}
    inside_reverse = {id(n) for n in walk(reverse_loop)}
    inside_forward = {id(n) for n in walk(forward_loop)}
    placeholders = []
    for node in walk(function_node):
        if not (isinstance(node, gast.Name) and node.id == variable):
            continue
        if isinstance(node.ctx, gast.Load):
            if id(node) in inside_reverse or id(node) in after or node is push_call.args[1]:
                continue
            return False                                 # read elsewhere: the placeholder may matter
    for stmt, (block, _) in _assignments_outside(places, variable, inside_forward | inside_reverse):
        if not (isinstance(stmt.value, gast.Constant) and block is function_node.body):
            return False
        placeholders.append(stmt)
    if _recomputable(function_node, assignment.value, forward_loop, reverse_loop):
        forward_block.remove(push_stmt)
        reverse_block.remove(pop_stmt)
        value = _in_reverse_index(copy.deepcopy(assignment.value), forward_loop, reverse_loop)
        reverse_block.insert(0, gast.Assign(targets=[copy.deepcopy(pop_stmt.targets[0])],
                                            value=value, type_comment=None))
    else:
        forward_block.remove(push_stmt)
        if isinstance(forward_loop, gast.While):
            forward_block.insert(_end_of_saves(forward_block, assignment), push_stmt)
        else:
            forward_block.append(push_stmt)
        reverse_block.remove(pop_stmt)
        reverse_block.insert(0, pop_stmt)
    for stmt in placeholders:
        function_node.body.remove(stmt)
    return True


def _end_of_saves(block, assignment):
    """Where the moved push goes: after the temporary's assignment and every other save of the step
    (the step's last push), before what follows them (a while loop's test, which while_tests.py
    writes back into the header when it ends the body)."""
    last = block.index(assignment)
    for i, stmt in enumerate(block):
        if any(_is_call(n, "push") for n in walk(stmt)):
            last = max(last, i)
    return last + 1


def _places(function_node):
    """{id(statement): (the block holding it, the statement owning that block)}."""
    out = {}
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                for stmt in block:
                    out[id(stmt)] = (block, owner)
    return out


def _statement_of(places, call):
    for block, _ in {id(block): (block, owner) for block, owner in places.values()}.values():
        for stmt in block:
            if _site_call(stmt) is call:
                return stmt
    return None


def _is_comment(stmt):
    return isinstance(stmt, gast.Expr) and _is_call(stmt.value, "__comment__")


def _assigns(stmt, variable):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == variable)


def _first_push(code, push_stmt, tape):
    for stmt in code:
        if stmt is push_stmt:
            return True
        if any((_is_call(n, "push") or _is_call(n, "pop")) and _tape_of(n) == tape for n in walk(stmt)):
            return False
    return False


def _tape_of(call):
    return call.args[0].id if call.args and isinstance(call.args[0], gast.Name) else None


def _other_tape(stmt, tape, variable):
    """A statement that neither names `variable` nor uses `tape` (a push onto another tape among them:
    LIFO order is per tape), and does not jump: a save or restore of `variable` may move across it."""
    return not any((isinstance(n, gast.Name) and n.id in (variable, tape))
                   or isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Raise)) for n in walk(stmt))


def _stores_in(node, variable):
    return sum(1 for n in walk(node) if isinstance(n, gast.Name) and n.id == variable
               and isinstance(n.ctx, gast.Store))


def _jumps(loop):
    return any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in walk(loop))


def _assignments_outside(places, variable, inside):
    blocks = {id(block): (block, owner) for block, owner in places.values()}
    for block, owner in blocks.values():
        for stmt in block:
            if id(stmt) in inside:
                continue
            stored = [n for n in walk(stmt) if isinstance(n, gast.Name) and n.id == variable
                      and isinstance(n.ctx, gast.Store) and id(n) not in inside]
            if stored and not isinstance(stmt, (gast.For, gast.While, gast.If)):
                yield stmt, (block, owner)
    return


def _recomputable(function_node, value, forward_loop, reverse_loop):
    """Whether `value` is cheap and reads only the loop index (the same in both loops) and names that
    are never assigned after the forward loop starts."""
    if not all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.Subscript, gast.Load, gast.operator))
               for n in walk(value)):
        return False
    if not isinstance(forward_loop, gast.For):
        return False                     # a while loop's step has no index to recompute from
    index = forward_loop.target
    if not (isinstance(index, gast.Name) and isinstance(reverse_loop.target, gast.Name)
            and _reverses(reverse_loop.iter, forward_loop.iter)):
        return False
    reverse_index = reverse_loop.target.id         # the same values, maybe another name (`_k1` and `t`)
    if _stores_in(reverse_loop, reverse_index) != 1 or _stores_in(forward_loop, index.id) != 1:
        return False
    if reverse_index != index.id and any(isinstance(n, gast.Name) and n.id == reverse_index for n in walk(value)):
        return False
    for name in {n.id for n in walk(value) if isinstance(n, gast.Name)} - {index.id}:
        top_level = [s for s in function_node.body if _stores_in(s, name)]
        if len(top_level) > 1 or _stores_in(function_node, name) > len(top_level):
            return False
        if top_level and not isinstance(top_level[0], gast.Assign):
            return False
        if top_level and (forward_loop not in function_node.body       # assigned once, before the loop
                          or function_node.body.index(top_level[0]) > function_node.body.index(forward_loop)):
            return False
    return True


def _reverses(reverse_iter, forward_iter):
    """`reversed(<forward_iter>)`, with forward_iter a `range(...)` call."""
    return (_is_call(reverse_iter, "reversed") and len(reverse_iter.args) == 1 and _is_call(forward_iter, "range")
            and gast.dump(reverse_iter.args[0]) == gast.dump(forward_iter))


def _in_reverse_index(value, forward_loop, reverse_loop):
    """`value` (read in the forward loop) with the forward loop's index written as the reverse loop's."""
    forward, reverse = forward_loop.target.id, reverse_loop.target.id
    for n in walk(value):
        if isinstance(n, gast.Name) and n.id == forward:
            n.id = reverse
    return value
