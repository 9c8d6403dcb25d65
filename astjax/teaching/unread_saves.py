"""Drop tape saves the reverse sweep never reads, in the printed view specialized to example arguments.

    push(_tape, a)          # forward sweep          ->   (gone)
    a = a * b
    ...
    a = pop(_tape)          # reverse sweep, `a` never read again   ->   (gone)
    ba = ba * b

The tape plan restores every variable the forward sweep overwrites, whether or not a later
adjoint reads it. A pop whose value nothing reads afterwards (nothing later in the function, nothing
anywhere in a loop around it) is noise to a student; it can go together with the push that fed it.
Which push feeds which pop is taken from a run: each push and pop site gets a label, the function
runs on the example arguments, and a pop site is dropped only when every value it took came from
one push site whose every value went to it (so removing both leaves every other pair as it was).
A site the run did not reach stays. `specialize.py` checks the result reproduces the general code.
"""
import copy

import gast

__all__ = ["drop_unread_saves"]


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
    if not drop:
        return function_node
    sites = _sites(function_node)
    doomed = {id(sites[kind][index]) for kind, index in drop}
    _filter_blocks(function_node, lambda stmt: id(_site_call(stmt)) not in doomed)
    if not any(isinstance(n, gast.Name) and n.id == "_tape" and isinstance(n.ctx, gast.Load)
               for n in gast.walk(function_node)):
        _filter_blocks(function_node, lambda stmt: not _creates_tape(stmt))
    return function_node


# ------------------------------------------------------------------ which pops are unread
def _unread_pops(function_node):
    """Indices (among pop sites, in walk order) of pops whose target no later or enclosing-loop code reads."""
    order = _statements_in_order(function_node.body, loops=())
    pops = _sites(function_node)["pop"]
    unread = []
    for index, call in enumerate(pops):
        position = next((i for i, (stmt, _) in enumerate(order) if _site_call(stmt) is call), None)
        if position is None:
            continue
        stmt, loops = order[position]
        target = stmt.targets[0].id
        later = [s for s, _ in order[position + 1:]] + list(loops)
        if not any(_reads(s, target) for s in later):
            unread.append(index)
    return unread


def _statements_in_order(block, loops):
    """(statement, enclosing loops) for every statement, nested ones right after their parent."""
    out = []
    for stmt in block:
        out.append((stmt, loops))
        inner = loops + (stmt,) if isinstance(stmt, (gast.For, gast.While)) else loops
        for field in ("body", "orelse"):
            nested = getattr(stmt, field, None)
            if isinstance(nested, list) and nested and isinstance(nested[0], gast.stmt):
                out.extend(_statements_in_order(nested, inner))
    return out


def _reads(stmt, name):
    if isinstance(stmt, (gast.If, gast.While)):
        parts = [stmt.test]
    elif isinstance(stmt, gast.For):
        parts = [stmt.iter] + stmt.body + stmt.orelse
    else:
        parts = [stmt]
    if isinstance(stmt, (gast.If, gast.While)):
        parts += stmt.body + stmt.orelse
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for part in parts for n in gast.walk(part))


# ------------------------------------------------------------------ which push feeds which pop
def _observed_pairs(function_node, namespace, arguments):
    """({pop site: {push sites}}, {push site: {pop sites}}) seen running on `arguments`, or None."""
    from ..backends.python import compile_function
    from .specialize import _copy
    labelled = copy.deepcopy(function_node)
    sites = _sites(labelled)
    for k, call in enumerate(sites["push"]):
        call.func = gast.Name(id=f"__astjax_push_{k}", ctx=gast.Load(), annotation=None, type_comment=None)
    for j, call in enumerate(sites["pop"]):
        call.func = gast.Name(id=f"__astjax_pop_{j}", ctx=gast.Load(), annotation=None, type_comment=None)
    popped_from, pushed_to = {}, {}
    recorders = {}
    for k in range(len(sites["push"])):
        recorders[f"__astjax_push_{k}"] = lambda tape, value, k=k: tape.append((k, value))

    def pop_at(j):
        def pop(tape):
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
    return popped_from, pushed_to


# ------------------------------------------------------------------ sites
def _sites(function_node):
    """{"push": [Call], "pop": [Call]}: the tape's call sites in walk order."""
    out = {"push": [], "pop": []}
    for node in gast.walk(function_node):
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
            and stmt.targets[0].id == "_tape" and _is_call(stmt.value, "Tape"))


def _filter_blocks(node, keep):
    for child in gast.walk(node):
        for field in ("body", "orelse"):
            block = getattr(child, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                kept = [s for s in block if keep(s)]
                setattr(child, field, kept or [gast.Pass()])
