"""Recompute a saved window in the reverse sweep instead of keeping a copy of it on the tape.

The blur's derivative saves every tap's window before overwriting it, and restores it tap by tap:

    for i in range(ker_h):                          for i in range(ker_h - 1, -1, -1):
        for j in range(ker_w):                          for j in range(ker_w - 1, -1, -1):
            _tape_window.append(window)                     ... b_t2 * window ...
            window = dynamic_slice(padded, (i, j), s)       window = _tape_window.pop()

81 copies of the image, kept alive until the reverse sweep. A window is a view of an array nobody
rebinds or writes, at offsets that are loop counters, so the reverse sweep recomputes it where it
reads it (`... b_t2 * dynamic_slice(padded, (i, j), s) ...`) and the push and pop go; the fused loop
then reads the window in place (fuse_elementwise), no copy at all.

Why it is the same program. Before its pop, a reverse iteration reads the value the forward
iteration with the same loop counters assigned (that is what the tape restores), and that value is
the expression recomputed: its loop counters are the reverse loops' own (names assigned only as
targets of range loops, the ones around the pop), and every other name it reads is a parameter or
assigned once, outside every loop, and never written into. Reads of the window anywhere else in the
reverse nest, or after it, would see a different value without the pops: then nothing changes.
"""
import copy

import gast

from ...rules import lookup_callable
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["recompute_windows"]

RECOMPUTABLE = ("dynamic_slice",)


def recompute_windows(node, context):
    for stack in _stacks(node):
        _recompute(node, stack, context)


def _stacks(node):
    return sorted({n.func.value.id for n in walk(node) if isinstance(n, gast.Call)
                   and isinstance(n.func, gast.Attribute) and n.func.attr == "append"
                   and isinstance(n.func.value, gast.Name) and n.func.value.id.startswith("_tape_")})


def _recompute(node, stack, context):
    parents = _parents(node)
    pushes, pops, others = [], [], []
    for n in walk(node):
        if isinstance(n, gast.Name) and n.id == stack:
            owner = _statement_of(n, parents)
            if _is_push(owner, stack):
                pushes.append(owner)
            elif _is_pop(owner, stack):
                pops.append(owner)
            elif not (isinstance(owner, gast.Assign) and owner in node.body):     # the empty stack it starts as
                others.append(owner)
    if len(pushes) != 1 or len(pops) != 1 or others:
        return
    push, pop = pushes[0], pops[0]
    saved = push.value.args[0]
    if not (isinstance(saved, gast.Name) and pop.targets[0].id == saved.id):
        return
    name = saved.id
    forward_body = _body_holding(push, parents)
    at = forward_body.index(push)
    if at + 1 >= len(forward_body):
        return
    definition = forward_body[at + 1]
    if not (isinstance(definition, gast.Assign) and len(definition.targets) == 1
            and isinstance(definition.targets[0], gast.Name) and definition.targets[0].id == name):
        return
    value = definition.value
    if not (isinstance(value, gast.Call) and not value.keywords):
        return
    stores = _stores(node)
    prim = lookup_callable(context.static_object(value.func))
    if prim is None or prim.name not in RECOMPUTABLE:
        return
    if any(stores.get(n.id) for n in walk(value.func) if isinstance(n, gast.Name)):
        return                                         # the function is a local: not the primitive for sure
    reverse_loops = _enclosing_loops(pop, parents)
    counters = {loop.target.id for loop in reverse_loops if _range_loop(loop)}
    for read in {n.id for a in value.args for n in walk(a) if isinstance(n, gast.Name)}:
        if read == name:
            return
        if read in counters:
            if read not in _counters_of(_enclosing_loops(definition, parents)) or not all(isinstance(s, gast.For) and _range_loop(s) for s in stores.get(read, [])):
                return
            continue
        if read in _counters_of(_enclosing_loops(definition, parents)):
            return                                     # a counter of the forward nest the reverse one lacks
        places = stores.get(read, [])
        params = {a.id for a in node.args.args}
        if read in params and places:
            return
        if read not in params and not (len(places) == 1 and isinstance(places[0], gast.Assign)
                                       and places[0] in node.body and node.body.index(places[0]) < _top(definition, node, parents)):
            return
        if _written_into(node, read):
            return
    reverse_body = _body_holding(pop, parents)
    before = reverse_body[:reverse_body.index(pop)]
    outermost = reverse_loops[-1] if reverse_loops else None
    if outermost is None or outermost not in node.body:
        return
    allowed = {id(n) for s in before for n in walk(s)}
    for n in walk(node):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
            if id(n) in allowed or n is saved:
                continue
            top = _top_statement(n, node, parents)
            if node.body.index(top) >= node.body.index(outermost):
                return                                 # read in the reverse nest between pops, or after it
    for s in before:
        _replace_reads(s, name, value)
    _remove(push, parents)
    _remove(pop, parents)
    node.body[:] = [s for s in node.body if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                                                 and isinstance(s.targets[0], gast.Name) and s.targets[0].id == stack)]



def _replace_reads(stmt, name, value):
    class Replace(NodeTransformer):
        def visit_Name(self, n):
            if n.id == name and isinstance(n.ctx, gast.Load):
                return copy.deepcopy(value)
            return n
    Replace().visit(stmt)


def _parents(node):
    parents = {}
    for parent in walk(node):
        for child in gast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


def _statement_of(n, parents):
    while not isinstance(n, gast.stmt):
        n = parents[id(n)]
    return n


def _body_holding(stmt, parents):
    parent = parents[id(stmt)]
    for field in ("body", "orelse"):
        body = getattr(parent, field, None)
        if isinstance(body, list) and any(s is stmt for s in body):
            return body
    raise AssertionError("a statement outside its parent's bodies")


def _enclosing_loops(stmt, parents):
    """The loops around `stmt`, innermost first."""
    loops, n = [], stmt
    while id(n) in parents:
        n = parents[id(n)]
        if isinstance(n, (gast.For, gast.While)):
            loops.append(n)
    return loops


def _counters_of(loops):
    return {loop.target.id for loop in loops if isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)}


def _range_loop(loop):
    """`for k in range(...)` or, as the reverse sweep runs it, `for k in reversed(range(...))`."""
    if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)):
        return False
    it = loop.iter
    if _call_of(it, "reversed") and len(it.args) == 1:
        it = it.args[0]
    return _call_of(it, "range")


def _call_of(expr, name):
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name
            and not expr.keywords)


def _top_statement(n, node, parents):
    while parents.get(id(n)) is not node:
        n = parents[id(n)]
    return n


def _top(stmt, node, parents):
    return node.body.index(_top_statement(stmt, node, parents))


def _stores(node):
    """name -> the statements that bind it (assignments, loop targets, augmented assignments, ...)."""
    stores = {}
    for n in walk(node):
        targets = []
        if isinstance(n, (gast.Assign,)):
            targets = n.targets
        elif isinstance(n, (gast.AugAssign, gast.AnnAssign, gast.For)):
            targets = [n.target]
        elif isinstance(n, (gast.comprehension, gast.NamedExpr)):
            targets = [n.target]
        elif isinstance(n, gast.With):
            targets = [item.optional_vars for item in n.items if item.optional_vars is not None]
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n is not node:
            stores.setdefault(n.name, []).append(n)
        for t in targets:
            for name in walk(t):
                if isinstance(name, gast.Name) and isinstance(name.ctx, gast.Store):
                    stores.setdefault(name.id, []).append(n)
    return stores


def _written_into(node, name):
    """`name[...] = ...`, `name.attr = ...` or a call of a method on it (which might write in place)."""
    for n in walk(node):
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del)):
            base = n.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name) and base.id == name:
                return True
        if (isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                and n.func.value.id == name):
            return True
    return False


def _is_push(stmt, stack):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name) and stmt.value.func.value.id == stack
            and len(stmt.value.args) == 1)


def _is_pop(stmt, stack):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Attribute)
            and stmt.value.func.attr == "pop" and not stmt.value.args
            and isinstance(stmt.value.func.value, gast.Name) and stmt.value.func.value.id == stack)


def _remove(stmt, parents):
    body = _body_holding(stmt, parents)
    body[:] = [s for s in body if s is not stmt]
    if not body:
        body.append(gast.Pass())
