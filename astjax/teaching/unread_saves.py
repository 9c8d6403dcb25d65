"""Drop tape saves the reverse sweep never reads, in the printed view specialized to example arguments.

    push(_tape, a)          # forward sweep          ->   (gone)
    a = a * b
    ...
    a = pop(_tape)          # reverse sweep, `a` never read again   ->   (gone)
    ba = ba * b

The tape plan restores every variable the forward sweep overwrites, whether or not a later
adjoint reads it. A pop whose value nothing reads afterwards (every path from it assigns the variable
again before reading it, or reads it never; a loop around it counts as running again) is noise to a
student; it can go together with the push that fed it.
Which push feeds which pop is taken from a run: each push and pop site gets a label, the function
runs on the example arguments, and a pop site is dropped only when every value it took came from
one push site whose every value went to it (so removing both leaves every other pair as it was).
A pop site the run did not reach is paired with the one push in the mirrored branch of the forward
sweep (the same branch flags, no loop around either), or stays. Likewise every save of a variable that only its restores assign
(the statement that overwrote it was dead code and is gone) goes, where the run paired its pushes
and pops only with each other. `specialize.py` checks the result reproduces the general code.
"""
import copy

import gast
from ..codegen.node_walk import walk

__all__ = ["drop_unread_saves", "drop_idle_saves", "observed_tape_traffic"]


def drop_unread_saves(function_node, namespace, arguments):
    """Remove unread pops and the pushes paired with them from `function_node` (in place)."""
    unread = _unread_pops(function_node)
    if not unread:
        return function_node
    pairs = _observed_pairs(function_node, namespace, arguments)
    if pairs is None:
        return function_node
    popped_from, pushed_to = pairs
    drop = set()
    for j in unread:
        sources = popped_from.get(j)
        if sources and all(pushed_to.get(k) == {j} for k in sources):
            drop.add(("pop", j))
            drop.update(("push", k) for k in sources)
        elif not sources:
            k = _mirrored_push(function_node, j, pushed_to)
            if k is not None:
                drop.update({("pop", j), ("push", k)})
    sites = _sites(function_node)
    drop |= _saves_of_unchanged(function_node, sites, popped_from, pushed_to)
    if not drop:
        return function_node
    doomed = {id(sites[kind][index]) for kind, index in drop}
    _filter_blocks(function_node, lambda stmt: id(_site_call(stmt)) not in doomed)
    read = {n.id for n in walk(function_node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    _filter_blocks(function_node, lambda stmt: not (_creates_tape(stmt) and stmt.targets[0].id not in read))
    return function_node


def _mirrored_push(function_node, j, pushed_to):
    """For pop site j that the run did not reach: the one push site in the mirrored branch of the
    forward sweep (the same branch flags, each assigned once; no loop around either), or None."""
    sites = _sites(function_node)
    parents = {}
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                for stmt in block:
                    parents[id(stmt)] = (owner, field, block)
    statements = {id(_site_call(s)): s for s in walk(function_node) if _site_call(s) is not None}

    def path(call):
        stmt, steps = statements[id(call)], []
        block = parents[id(stmt)][2]
        while stmt is not function_node:
            owner, field, _ = parents[id(stmt)]
            if owner is function_node:
                break
            if not isinstance(owner, gast.If) or not isinstance(owner.test, gast.Name) \
                    or _stores_count(function_node, owner.test.id) != 1:
                return None, None
            steps.append((owner.test.id, field))
            stmt = owner
        return tuple(steps), block
    pop_path, pop_block = path(sites["pop"][j])
    if not pop_path or sum(1 for s in pop_block if _site_call(s) is not None) != 1:
        return None
    variable = statements[id(sites["pop"][j])].targets[0].id
    found = []
    for k, call in enumerate(sites["push"]):
        push_path, push_block = path(call)
        if push_path == pop_path and isinstance(call.args[1], gast.Name) and call.args[1].id == variable:
            found.append((k, push_block))
    if len(found) != 1 or pushed_to.get(found[0][0]):
        return None
    k, push_block = found[0]
    return k if sum(1 for s in push_block if _site_call(s) is not None) == 1 else None


def _stores_count(function_node, name):
    return sum(1 for n in walk(function_node) if isinstance(n, gast.Name) and n.id == name
               and isinstance(n.ctx, gast.Store))


def _saves_of_unchanged(function_node, sites, popped_from, pushed_to):
    """Every save of a variable nothing but its restores assigns (the statement that overwrote it was
    dead and is gone): each pop gives back the value the variable already holds. The run must show its
    pushes and pops paired only with each other."""
    out = set()
    by_variable = {}
    for k, call in enumerate(sites["push"]):
        if isinstance(call.args[1], gast.Name):
            by_variable.setdefault(call.args[1].id, ([], []))[0].append(k)
    pop_targets = {}
    for j, call in enumerate(sites["pop"]):
        pop_targets[id(call)] = j
    for node in walk(function_node):
        if isinstance(node, gast.Assign) and id(node.value) in pop_targets and node.targets[0].id in by_variable:
            by_variable[node.targets[0].id][1].append(pop_targets[id(node.value)])
    for variable, (pushes, pops) in by_variable.items():
        stores = [n for n in walk(function_node) if isinstance(n, gast.Name) and n.id == variable
                  and not isinstance(n.ctx, (gast.Load, gast.Param))]
        restores = [n for n in walk(function_node) if isinstance(n, gast.Assign) and id(n.value) in pop_targets
                    and n.targets[0].id == variable]
        if len(stores) != len(restores):
            continue
        if any(not popped_from.get(j, set()) <= set(pushes) for j in pops) or \
                any(not pushed_to.get(k, set()) <= set(pops) for k in pushes):
            continue
        out.update(("push", k) for k in pushes)
        out.update(("pop", j) for j in pops)
    return out


def drop_idle_saves(function_node):
    """`push(_tape, x)` and a later `x = pop(_tape)` in the same block, with nothing between them that
    assigns x, touches the tape or leaves the block (break, continue, return, raise): the pop gives back the value x holds (the statement that overwrote
    x was dead code and is gone). Both go. Each tape on its own: a second derivative's tangent tape
    (`push(_tape, a); push(d_tape, da); a = pop(_tape); da = pop(d_tape)`) pairs with itself, and a
    tape nothing reads any more is not created."""
    changed = True
    while changed:
        changed = False
        for owner in list(walk(function_node)):
            for field in ("body", "orelse"):
                block = getattr(owner, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt) and _idle_pair(block):
                    changed = True
    read = {n.id for n in walk(function_node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    _filter_blocks(function_node, lambda stmt: not (_creates_tape(stmt) and stmt.targets[0].id not in read))
    return function_node


def _idle_pair(block):
    for p, stmt in enumerate(block):
        call = _site_call(stmt)
        if (call is None or call.func.id != "push" or not isinstance(call.args[1], gast.Name)
                or not isinstance(call.args[0], gast.Name)):
            continue
        name, tape = call.args[1].id, call.args[0].id
        for q in range(p + 1, len(block)):
            later = block[q]
            later_call = _site_call(later)
            if (later_call is not None and later_call.func.id == "pop" and later.targets[0].id == name
                    and isinstance(later_call.args[0], gast.Name) and later_call.args[0].id == tape):
                del block[q]
                del block[p]
                if not block:
                    block.append(gast.Pass())
                return True
            if _stores(later, name) or any(isinstance(n, gast.Name) and n.id == tape
                                           or isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Raise))
                                           for n in walk(later)):
                break
    return False


# ------------------------------------------------------------------ which pops are unread
READ, KILLED, OPEN = "read", "killed", "open"


def _unread_pops(function_node):
    """Indices (among pop sites, in walk order) of pops whose value nothing can read: from the pop on,
    every path reaches the function's end or a plain assignment of the variable before reading it
    (a loop around the pop may run again: its whole body counts as coming after)."""
    parents = {}
    for owner in walk(function_node):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                for position, stmt in enumerate(block):
                    parents[id(stmt)] = (owner, block, position)
    unread = []
    for index, call in enumerate(_sites(function_node)["pop"]):
        stmt = next((s for s in walk(function_node) if _site_call(s) is call), None)
        if stmt is not None and not _read_after(stmt, stmt.targets[0].id, parents, function_node):
            unread.append(index)
    return unread


def _read_after(stmt, name, parents, function_node):
    while stmt is not function_node:
        owner, block, position = parents[id(stmt)]
        outcome = _scan(block[position + 1:], name)
        if outcome == READ:
            return True
        if outcome == KILLED:
            return False
        if isinstance(owner, (gast.For, gast.While)):
            if _scan(owner.body, name) == READ or _loads(getattr(owner, "test", None), name):
                return True
        elif not isinstance(owner, (gast.If, gast.FunctionDef)):
            return True                         # a with or try block: assume it is read
        stmt = owner
    return False


def _scan(block, name):
    """Whether running `block` reads `name` before assigning it (READ), assigns it first (KILLED), or neither."""
    for stmt in block:
        if isinstance(stmt, gast.If):
            if _loads(stmt.test, name):
                return READ
            outcomes = (_scan(stmt.body, name), _scan(stmt.orelse, name))
            if READ in outcomes:
                return READ
            if outcomes == (KILLED, KILLED):
                return KILLED
        elif isinstance(stmt, (gast.For, gast.While)):
            head = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            if _loads(head, name) or _scan(stmt.body, name) == READ or _scan(stmt.orelse, name) == READ:
                return READ
            if isinstance(stmt, gast.For) and _stores(stmt.target, name):
                return READ                      # a loop variable of that name: too clever to follow
        elif isinstance(stmt, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign, gast.Raise, gast.Assert,
                               gast.Pass)):
            if _loads(stmt, name) or isinstance(stmt, gast.AugAssign) and _stores(stmt.target, name):
                return READ
            if isinstance(stmt, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name
                                                     for t in stmt.targets):
                return KILLED
        elif _loads(stmt, name) or _stores(stmt, name):
            return READ
    return OPEN


def _loads(node, name):
    return node is not None and any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                                    for n in walk(node))


def _stores(node, name):
    return any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) for n in walk(node))


# ------------------------------------------------------------------ which push feeds which pop
def _observed_pairs(function_node, namespace, arguments):
    """({pop site: {push sites}}, {push site: {pop sites}}) seen running on `arguments`, or None."""
    traffic = observed_tape_traffic(function_node, namespace, arguments)
    return None if traffic is None else traffic[:2]


def observed_tape_traffic(function_node, namespace, arguments):
    """({pop site: {push sites}}, {push site: {pop sites}}, {("push" or "pop", site): how many times it
    ran}) seen running on `arguments`, or None; sites are numbered as `_sites` lists them."""
    from ..backends.python import compile_function
    from .specialize import _copy
    labelled = copy.deepcopy(function_node)
    sites = _sites(labelled)
    for k, call in enumerate(sites["push"]):
        call.func = gast.Name(id=f"__astjax_push_{k}", ctx=gast.Load(), annotation=None, type_comment=None)
    for j, call in enumerate(sites["pop"]):
        call.func = gast.Name(id=f"__astjax_pop_{j}", ctx=gast.Load(), annotation=None, type_comment=None)
    popped_from, pushed_to, counts = {}, {}, {}
    recorders = {}

    def push_at(k):
        def push(tape, value):
            counts[("push", k)] = counts.get(("push", k), 0) + 1
            tape.append((k, value))
        return push
    for k in range(len(sites["push"])):
        recorders[f"__astjax_push_{k}"] = push_at(k)

    def pop_at(j):
        def pop(tape):
            counts[("pop", j)] = counts.get(("pop", j), 0) + 1
            k, value = tape.pop()
            popped_from.setdefault(j, set()).add(k)
            pushed_to.setdefault(k, set()).add(j)
            return value
        return pop
    for j in range(len(sites["pop"])):
        recorders[f"__astjax_pop_{j}"] = pop_at(j)
    run_namespace = {**namespace, **recorders}
    try:
        fn, _ = compile_function(labelled, run_namespace, label=f"{function_node.name}_tape_pairs")
        fn(**{name: _copy(value) for name, value in arguments.items()})
    except Exception:      # noqa: BLE001 -- a run that fails tells nothing: keep every save
        return None
    return popped_from, pushed_to, counts


# ------------------------------------------------------------------ sites
def _sites(function_node):
    """{"push": [Call], "pop": [Call]}: the tape's call sites in walk order."""
    out = {"push": [], "pop": []}
    for node in walk(function_node):
        if isinstance(node, (gast.Expr, gast.Assign)):
            call = _site_call(node)
            if call is not None:
                out[call.func.id].append(call)
    return out


def _site_call(stmt):
    """The `push(_tape, x)` of an expression statement or the `pop(_tape)` of `v = pop(_tape)`."""
    if isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push"):
        return stmt.value
    if (isinstance(stmt, gast.Assign) and _is_call(stmt.value, "pop") and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)):
        return stmt.value
    return None


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _creates_tape(stmt):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and _is_call(stmt.value, "Tape"))


def _filter_blocks(node, keep):
    for child in walk(node):
        for field in ("body", "orelse"):
            block = getattr(child, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                kept = [s for s in block if keep(s)]
                setattr(child, field, kept or [gast.Pass()])
