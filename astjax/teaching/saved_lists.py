"""A loop's tape of one variable is a list of its saved values, read back in the reverse loop's header.

    _tape = Tape()                              a_saved = []
    for i in range(n):                          for i in range(n):
        push(_tape, a)                              a_saved.append(a)
        a = a * a                       ->          a = a * a
    ba = 1.0                                    ba = 1.0
    for i in reversed(range(n)):                for a in reversed(a_saved):
        a = pop(_tape)                              ba = 2 * (ba * a)
        ba = 2 * (ba * a)

A teacher keeps the values a loop overwrites in a list and walks it backwards. Only for a tape made
once at the top of the function (`_tape = Tape()`) and used by exactly one `push(_tape, v)` and one
`v = pop(_tape)` of the same name `v`, where the push sits in a top-level statement before the
reverse loop nest and the pop is the first statement of that nest: `for` loops (no `else`, no
`break` or `continue`), each but the innermost holding only the next one, at the top level of the
function, over `range`/`reversed(range(...))` of plain values, whose counters nothing in the nest
reads. Every value the reverse sweep pushes it pops (that is how grad writes the tape), and this
tape's only pop runs once per iteration of a nest that runs once, after every push: so the nest
runs once per saved value, and `for v in reversed(v_saved)` gives the same values in the same order.
A save the loop makes only where a test of the saved value holds (`if a < 20:` in both sweeps) is made
inside the forward `if`, and the reverse loop runs only over those values (`_save_under_test`).
Two such pops at the top of one nest read as `for a, da in zip(reversed(a_saved), reversed(da_saved))`.
"""
import gast

from ..codegen.naming import names_in
from ..codegen.node_walk import walk

__all__ = ["read_saves_in_loop_headers"]

_PLAIN_CALLS = {"range", "reversed", "len", "max", "min"}


def read_saves_in_loop_headers(function_node):
    body = function_node.body
    used = set(names_in(function_node))
    for index, nest in enumerate(body):
        if not isinstance(nest, gast.For):
            continue
        loops = _nest(nest)
        if loops is None:
            continue
        inner = loops[-1].body
        taken = []
        for stmt in [s for s in inner if not _is_comment(s)]:
            tape_name = _popped_tape(stmt)
            if tape_name is None:
                break
            plan = _plan(function_node, body, index, tape_name, stmt)
            if plan is None or any(plan[2] == p[2] for _, p in taken):
                break
            taken.append((stmt, plan))
        if not taken:
            continue
        targets, iters = [], []
        for stmt, (make, push, name) in taken:
            saved = _fresh(name + "_saved", used)
            used.add(saved)
            make.value = gast.List(elts=[], ctx=gast.Load())
            make.targets[0].id = saved
            push.value = gast.Call(func=gast.Attribute(value=_load(saved), attr="append", ctx=gast.Load()),
                                   args=[_load(name)], keywords=[])
            targets.append(gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None))
            iters.append(gast.Call(func=_load("reversed"), args=[_load(saved)], keywords=[]))
        inner[:] = [s for s in inner if not any(s is t for t, _ in taken)]
        if len(targets) == 1:
            nest.target, nest.iter = targets[0], iters[0]
        else:
            nest.target = gast.Tuple(elts=targets, ctx=gast.Store())
            nest.iter = gast.Call(func=_load("zip"), args=iters, keywords=[])
        if len(loops) > 1:
            nest.body = [s for l in loops[:-1] for s in l.body if _is_comment(s)] + inner
        if not [s for s in nest.body if not _is_comment(s)]:
            nest.body.append(gast.Pass())
        if len(taken) == 1:
            _save_under_test(function_node, nest, taken[0][1][1])
    return function_node


def _save_under_test(function_node, nest, append):
    """`a_saved.append(a); if a < 20: ...` forward and `for a in reversed(a_saved): if a < 20: ...` (no
    `else`) as the append inside the forward `if` and the reverse loop without the test: the values the
    test turns away are the ones the reverse step skips. Only where the test is the same expression of
    the saved variable and of names nothing in the function assigns, with no call but a library one."""
    real = [s for s in nest.body if not _is_comment(s)]
    if len(real) != 1 or not isinstance(real[0], gast.If) or real[0].orelse:
        return
    test = real[0].test
    assigned = {n.id for n in walk(function_node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    for n in walk(test):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                                             and n.func.value.id in ("jnp", "np")):
            return
        if isinstance(n, (gast.NamedExpr, gast.Lambda)):
            return
        if isinstance(n, gast.Name) and n.id != nest.target.id and n.id in assigned:
            return
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if not (isinstance(block, list) and any(s is append for s in block)):
                continue
            at = next(i for i, s in enumerate(block) if s is append)
            following = [s for s in block[at + 1:] if not _is_comment(s)]
            if not following or not isinstance(following[0], gast.If) or following[0].orelse \
                    or gast.dump(following[0].test) != gast.dump(test):
                return
            del block[at]
            following[0].body.insert(0, append)
            nest.body = [s for s in nest.body if _is_comment(s)] + real[0].body
            return


def _nest(loop):
    """The loops of a reverse nest starting at `loop` (see the module docstring), or None."""
    loops = [loop]
    while True:
        current = loops[-1]
        if current.orelse or not isinstance(current.target, gast.Name) or not _plain(current.iter):
            return None
        real = [s for s in current.body if not _is_comment(s)]
        if len(real) == 1 and isinstance(real[0], gast.For):
            loops.append(real[0])
            continue
        break
    counters = {l.target.id for l in loops}
    for l in loops:
        for n in walk(l.iter if l is not loop else gast.Pass()):
            if isinstance(n, gast.Name) and n.id in counters:
                return None
    for n in walk(loops[-1]):
        if isinstance(n, (gast.Break, gast.Continue)):
            return None
    for s in loops[-1].body:
        for n in walk(s):
            if isinstance(n, gast.Name) and n.id in counters:
                return None
    return loops


def _plain(expr):
    """A loop iterable the nest may drop: `range`, `reversed`, `len`, numbers and names, nothing else."""
    for n in walk(expr):
        if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in _PLAIN_CALLS):
            return False
        if not isinstance(n, (gast.Call, gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Load,
                              gast.operator, gast.unaryop, gast.Attribute, gast.Subscript)):
            return False
    return isinstance(expr, gast.Call)


def _popped_tape(stmt):
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name)
            and stmt.value.func.id == "pop" and len(stmt.value.args) == 1 and not stmt.value.keywords
            and isinstance(stmt.value.args[0], gast.Name)):
        return stmt.value.args[0].id
    return None


def _plan(function_node, body, index, tape, pop_stmt):
    """(the `Tape()` assignment, the push statement, the variable) where `tape` qualifies, else None."""
    name = pop_stmt.targets[0].id
    makes = [s for s in body if isinstance(s, gast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], gast.Name) and s.targets[0].id == tape]
    if len(makes) != 1 or not _is_call(makes[0].value, "Tape") or body.index(makes[0]) > index:
        return None
    pushes, uses = [], 0
    for stmt in walk(function_node):
        if isinstance(stmt, gast.Name) and stmt.id == tape:
            uses += 1
        if isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push") and len(stmt.value.args) == 2 \
                and isinstance(stmt.value.args[0], gast.Name) and stmt.value.args[0].id == tape:
            pushes.append(stmt)
    if len(pushes) != 1 or uses != 3:        # made, pushed, popped: nothing else touches it
        return None
    push = pushes[0]
    if not (isinstance(push.value.args[1], gast.Name) and push.value.args[1].id == name):
        return None
    before = body[:index]
    if not any(n is push for s in before for n in walk(s)):
        return None
    return makes[0], push, name


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _fresh(base, used):
    name, k = base, 2
    while name in used:
        name, k = f"{base}{k}", k + 1
    return name


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
