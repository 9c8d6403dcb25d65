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
function, over `range`/`reversed(range(...))` of plain values, whose counters nothing in the
innermost body reads (an inner header may: `for j in reversed(range(i))` only counts, and goes). Every value the reverse sweep pushes it pops (that is how grad writes the tape), and this
tape's only pop runs once per iteration of a nest that runs once, after every push: so the nest
runs once per saved value, and `for v in reversed(v_saved)` gives the same values in the same order.
A save the loop makes only where a test of the saved value holds (`if a < 20:` in both sweeps) is made
inside the forward `if`, and the reverse loop runs only over those values (`_save_under_test`).
A tape that other saves share gives a loop its own list where the run saw this push feed this pop
only, every value (`unread_saves.observed_tape_traffic`): the values a stack hands one pop site are
the ones its partner pushed, in the same order, whatever else the stack holds between. Where a tape
would stay beside such a list (its other saves stay pushed), no tape is split: one way of saving. A tape pushed
to once and popped once, in no loop, holds one value: it is a name (`a0 = a`, or `da0 = 1.0` where a
number was pushed; `a = a0` where it is restored, or `a0` read in its place where nothing after the restore's block reads `a`).
A branch flag saved each iteration and restored to test the reverse branch (`f = pop(_tape); if f:`)
goes where the saves under the forward branch become lists: the list holds a value for each iteration
the branch ran, and only those iterations did anything in reverse.
Two such pops at the top of one nest read as `for a, da in zip(reversed(a_saved), reversed(da_saved))`.
"""
import copy

import gast

from ..codegen.naming import names_in
from ..codegen.node_walk import walk

__all__ = ["read_saves_in_loop_headers"]

_PLAIN_CALLS = {"range", "reversed", "len", "max", "min"}


def read_saves_in_loop_headers(function_node, namespace=None, arguments=None):
    before = copy.deepcopy(function_node.body)
    split = _read_saves(function_node, namespace, arguments)
    if split and any(_is_call(n, "Tape") for n in walk(function_node)):
        function_node.body = before          # a list beside a tape that keeps other saves: one way of saving
        _read_saves(function_node, None, None)
    return function_node


def _read_saves(function_node, namespace, arguments):
    """The pass; True if it gave a loop a list of its own out of a tape that other saves share."""
    split = False
    body = function_node.body
    used = set(names_in(function_node))
    traffic = _Traffic(function_node, namespace, arguments)
    for index, nest in enumerate(list(body)):
        index = next(i for i, s in enumerate(body) if s is nest)
        if not isinstance(nest, gast.For):
            continue
        loops = _nest(nest)
        if loops is None:
            continue
        inner = loops[-1].body
        flag = _flag_save(function_node, body, index, inner)
        if flag is not None:
            inner = flag[2].body           # the saves under the flag's `if` give the iterations it took
        taken, passed = [], []
        for stmt in [s for s in inner if not _is_comment(s)]:
            tape_name = _popped_tape(stmt)
            if tape_name is None:
                passed.append(stmt)          # a pop further down may still come first, if this leaves it be
                continue
            plan = _plan(function_node, body, index, tape_name, stmt, traffic)
            if plan is None or any(plan[2] == p[2] for _, p in taken) or not _free_of(passed, plan[2], tape_name):
                break
            taken.append((stmt, plan))
        if not taken:
            continue
        if flag is not None and _read_after(body, nest, {p[2] for _, p in taken} | {flag[1].targets[0].id}):
            continue                 # the skipped iterations restored them too: their last values differ
        if flag is not None:
            flag_push, flag_pop, flag_if = flag
            block, at = _block_of(function_node, flag_push)
            del block[at]
            if not block:
                block.append(gast.Pass())
        targets, iters = [], []
        for stmt, (make, push, name) in taken:
            saved = _fresh(name + "_saved", used)
            used.add(saved)
            empty = gast.Assign(targets=[gast.Name(id=saved, ctx=gast.Store(), annotation=None, type_comment=None)],
                                value=gast.List(elts=[], ctx=gast.Load()), type_comment=None)
            if make is None:                   # the tape keeps other saves: the list starts before the push
                split = True
                at = next(i for i, s in enumerate(body) if any(n is push for n in walk(s)))
                body.insert(at, empty)
            else:
                body[next(i for i, s in enumerate(body) if s is make)] = empty
            push.value = gast.Call(func=gast.Attribute(value=_load(saved), attr="append", ctx=gast.Load()),
                                   args=[_load(name)], keywords=[])
            targets.append(gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None))
            iters.append(gast.Call(func=_load("reversed"), args=[_load(saved)], keywords=[]))
        inner[:] = [s for s in inner if not any(s is t for t, _ in taken)]
        if flag is not None:
            loops[-1].body = [s for s in loops[-1].body if _is_comment(s)] + inner
        if len(targets) == 1:
            nest.target, nest.iter = targets[0], iters[0]
        else:
            nest.target = gast.Tuple(elts=targets, ctx=gast.Store())
            nest.iter = gast.Call(func=_load("zip"), args=iters, keywords=[])
        if len(loops) > 1:
            nest.body = [s for l in loops[:-1] for s in l.body if _is_comment(s)] + inner
        if not [s for s in nest.body if not _is_comment(s)]:
            nest.body.append(gast.Pass())
        if flag is not None:
            _inline_flag(function_node, flag[1].targets[0].id)
        if len(taken) == 1:
            _save_under_test(function_node, nest, taken[0][1][1])
    _one_value_saves(function_node, used)
    _drop_unread_counters(function_node)
    for make in list(body):        # a tape every save of which is now a list or a name
        if (isinstance(make, gast.Assign) and len(make.targets) == 1 and isinstance(make.targets[0], gast.Name)
                and _is_call(make.value, "Tape")
                and sum(1 for n in walk(function_node) if isinstance(n, gast.Name) and n.id == make.targets[0].id) == 1):
            body.remove(make)
    return split


def _read_after(body, nest, names):
    """Whether a top-level statement after `nest` mentions one of `names`."""
    at = next(i for i, s in enumerate(body) if s is nest)
    return any(isinstance(n, gast.Name) and n.id in names for s in body[at + 1:] for n in walk(s))


def _flag_save(function_node, body, index, inner):
    """(the flag's push, its pop, the reverse `if`) where the reverse body is `f = pop(_tape); if f: ...`
    (no `else`, `f` read nowhere in it) and `f` is pushed once, on that tape, in a top-level statement
    before the nest: an iteration the branch skipped saved nothing under it, and restores nothing."""
    real = [s for s in inner if not _is_comment(s)]
    if len(real) != 2 or _popped_tape(real[0]) is None or not isinstance(real[1], gast.If) or real[1].orelse:
        return None
    pop, test = real[0], real[1]
    name, tape = pop.targets[0].id, pop.value.args[0].id
    if not (isinstance(test.test, gast.Name) and test.test.id == name) or any(
            isinstance(n, gast.Name) and n.id == name for s in test.body for n in walk(s)):
        return None
    pushes = [s for s in walk(function_node) if isinstance(s, gast.Expr) and _is_call(s.value, "push")
              and len(s.value.args) == 2 and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id == tape
              and isinstance(s.value.args[1], gast.Name) and s.value.args[1].id == name]
    if len(pushes) != 1 or not any(n is pushes[0] for s in body[:index] for n in walk(s)):
        return None
    return pushes[0], pop, test


def _inline_flag(function_node, name):
    """`f = a < 3.0; if f:` with `f` read nowhere else: `if a < 3.0:`."""
    loads = [n for n in walk(function_node) if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)]
    stores = [n for n in walk(function_node) if isinstance(n, gast.Name) and n.id == name
              and not isinstance(n.ctx, gast.Load)]
    if len(loads) != 1 or len(stores) != 1:
        return
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block[:-1]):
                nxt = block[i + 1]
                if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is stores[0]
                        and isinstance(nxt, gast.If) and nxt.test is loads[0]):
                    nxt.test = stmt.value
                    del block[i]
                    return


def _drop_unread_counters(function_node):
    """A counter (`_n1 = 0`, `_n1 = _n1 + 1`) that only its own steps read counted the iterations a
    reverse loop read: with the saves in the header, nothing reads it, and it goes."""
    statements = {}
    other = set()
    for node in walk(function_node):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            name, value = node.targets[0].id, node.value
            if isinstance(value, gast.Constant) and type(value.value) is int or (
                    isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
                    and isinstance(value.left, gast.Name) and value.left.id == name
                    and isinstance(value.right, gast.Constant) and type(value.right.value) is int):
                statements.setdefault(name, []).append(node)
                continue
    counted = {id(n) for stmts in statements.values() for s in stmts for n in walk(s)}
    for n in walk(function_node):
        if isinstance(n, gast.Name) and id(n) not in counted:
            other.add(n.id)
    doomed = {id(s) for name, stmts in statements.items() if name.startswith("_") and name not in other
              for s in stmts}
    if not doomed:
        return
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                block[:] = [s for s in block if id(s) not in doomed] or [gast.Pass()]


def _free_of(stmts, name, tape):
    """Whether `stmts` neither read nor write `name` nor use `tape`, nor have effects: a pop of `name`
    after them may come before them."""
    for s in stmts:
        for n in walk(s):
            if isinstance(n, gast.Name) and n.id in (name, tape):
                return False
            if isinstance(n, gast.Call) and not (isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                                                 and n.func.value.id in ("jnp", "np")):
                return False
            if isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Raise, gast.NamedExpr)):
                return False
    return True


def _one_value_saves(function_node, used):
    """A tape pushed to once and popped once, in no loop, holds one value: a name (`a0 = a` where the
    value is saved; its reads after the restore read `a0` where nothing after reads the restored `a`)."""
    body = function_node.body
    in_loops = {id(n) for loop in walk(function_node) if isinstance(loop, (gast.For, gast.While))
                for n in walk(loop)}
    for make in list(body):
        if not (isinstance(make, gast.Assign) and len(make.targets) == 1 and isinstance(make.targets[0], gast.Name)
                and _is_call(make.value, "Tape")):
            continue
        tape = make.targets[0].id
        pushes = [s for s in walk(function_node) if isinstance(s, gast.Expr) and _is_call(s.value, "push")
                  and len(s.value.args) == 2 and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id == tape]
        pops = [s for s in walk(function_node) if _popped_tape(s) == tape]
        uses = sum(1 for n in walk(function_node) if isinstance(n, gast.Name) and n.id == tape)
        if len(pushes) != 1 or len(pops) != 1 or uses != 3:
            continue
        push, pop = pushes[0], pops[0]
        name = pop.targets[0].id
        value = push.value.args[1]
        if id(push) in in_loops or id(pop) in in_loops or not (
                isinstance(value, gast.Name) and value.id == name
                or isinstance(value, gast.Constant) and type(value.value) in (int, float)):
            continue
        tops = [next(i for i, s in enumerate(body) if any(n is stmt for n in walk(s))) for stmt in (push, pop)]
        if not body.index(make) < tops[0] < tops[1]:
            continue
        saved = _fresh(name + "0", used)
        used.add(saved)
        push_block, at = _block_of(function_node, push)
        push_block[at] = gast.Assign(targets=[gast.Name(id=saved, ctx=gast.Store(), annotation=None,
                                                        type_comment=None)], value=value, type_comment=None)
        pop.value = _load(saved)
        body.remove(make)
        _read_the_save(function_node, body[tops[1] - 1], pop, name, saved)


def _read_the_save(function_node, top, restore, name, saved):
    """`a = a0` and then reads of `a` in its block only: those read `a0`, and the restore goes."""
    block, at = _block_of(function_node, restore)
    after = block[at + 1:]
    inside = {id(n) for s in after for n in walk(s)}
    body = function_node.body
    later = body[next(i for i, s in enumerate(body) if s is top) + 1:]
    loads = [n for n in walk(top) if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)]
    if any(id(n) not in inside for n in loads):
        return
    if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) for s in after
           for n in walk(s)):
        return
    if any(isinstance(n, gast.Name) and n.id == name for s in later for n in walk(s)):
        return
    for n in loads:
        n.id = saved
    del block[at]


def _block_of(function_node, stmt):
    for owner in walk(function_node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(owner, field, None)
            if isinstance(block, list):
                for i, s in enumerate(block):
                    if s is stmt:
                        return block, i
    raise ValueError("statement not in the function")


def _save_under_test(function_node, nest, append):
    """`a_saved.append(a); if a < 20: ...` forward and `for a in reversed(a_saved): if a < 20: ...` (no
    `else`) as the append inside the forward `if` and the reverse loop without the test: the values the
    test turns away are the ones the reverse step skips. Only where the test is the same expression of
    the saved variable and of names nothing in the function assigns, with no call but a library one."""
    real = [s for s in nest.body if not _is_comment(s)]
    if len(real) != 1 or not isinstance(real[0], gast.If) or real[0].orelse:
        return
    if _read_after(function_node.body, nest, {nest.target.id}):
        return                       # after the loop it holds the first value saved, not the first kept
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
    counters = {l.target.id for l in loops}       # an inner header may read them: the headers go
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


def _plan(function_node, body, index, tape, pop_stmt, traffic):
    """(the `Tape()` assignment or None where the tape keeps other saves, the push statement, the
    variable) where `tape` qualifies, else None."""
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
    if uses != 1 + len(pushes) + _pops(function_node, tape):
        return None                  # the tape is used other than made, pushed to and popped from
    if len(pushes) == 1 and uses == 3:
        push, make = pushes[0], makes[0]
        if traffic.available() and traffic.only_partner(pop_stmt.value) is not push:
            return None              # the run saw the push run other than once per pop
    else:
        push, make = traffic.only_partner(pop_stmt.value), None
        if push is None:
            return None
    if not (isinstance(push.value.args[1], gast.Name) and push.value.args[1].id == name):
        return None
    before = body[:index]
    if not any(n is push for s in before for n in walk(s)):
        return None
    return make, push, name


def _pops(function_node, tape):
    return sum(1 for n in walk(function_node) if _is_call(n, "pop") and len(n.args) == 1
               and isinstance(n.args[0], gast.Name) and n.args[0].id == tape)


class _Traffic:
    """Which push feeds which pop, seen in a run (`unread_saves.observed_tape_traffic`), asked lazily."""

    def __init__(self, function_node, namespace, arguments):
        self.function_node, self.namespace, self.arguments = function_node, namespace, arguments
        self.seen = False

    def available(self):
        return self.namespace is not None and self.arguments is not None

    def only_partner(self, pop_call):
        """The push statement whose every value, and nothing else, the pop `pop_call` took (as many
        pops as pushes), or None."""
        from .unread_saves import _sites, observed_tape_traffic
        if not self.seen:
            self.seen = True
            self.traffic = None
            if self.namespace is not None and self.arguments is not None:
                self.sites = _sites(self.function_node)
                self.traffic = observed_tape_traffic(self.function_node, self.namespace, self.arguments)
        if self.traffic is None:
            return None
        popped_from, pushed_to, counts = self.traffic
        j = next((j for j, call in enumerate(self.sites["pop"]) if call is pop_call), None)
        if j is None or len(popped_from.get(j, ())) != 1:
            return None
        (k,) = popped_from[j]
        if pushed_to.get(k) != {j} or counts.get(("push", k)) != counts.get(("pop", j)):
            return None
        call = self.sites["push"][k]
        return next((s for s in walk(self.function_node) if isinstance(s, gast.Expr) and s.value is call), None)


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
