"""`nonlocal` names that a local function only rebinds: the inlined body rebinds the enclosing name.

    total = 0.0                          total = 0.0
    def add(v):                          for v in x:
        nonlocal total         ->            add_v = v * v
        total = total + v                    total = total + add_v
    for v in x:
        add(v * v)

A local function is inlined where it is called (one_primitive_per_statement.py),
its own variables prefixed with its name. A name it declares `nonlocal` is not
its own (it is not prefixed), so the inlined assignment rebinds the enclosing
function's variable at the call, which is what Python's `nonlocal` does.
Only a `nonlocal` statement at the top of the local function's body, whose
names the function only rebinds to the result of arithmetic (`total = total + v`,
a new value that shares no memory: the aliasing checks, run before inlining,
never see the enclosing name rebound) is accepted: an in-place
update through it (`total += v` on an array, `total[0] = v`, `total.append(v)`)
changes an object other names may hold, which the aliasing checks (run before
inlining) cannot see, so it stays refused.
"""
import gast

from .eager_calls import _MUTATORS
from ...codegen.node_walk import walk

__all__ = ["accept_nonlocal_rebinding", "without_nonlocal", "nonlocal_names"]


def accept_nonlocal_rebinding(fdef):
    """Mark `fdef` (a local function) as inlinable with its `nonlocal` statements dropped, where they
    declare names it only rebinds; otherwise leave it (the `nonlocal` statement is refused later)."""
    declared = {n for s in fdef.body if isinstance(s, gast.Nonlocal) for n in s.names}
    if not declared:
        return
    for node in walk(fdef):
        if node is not fdef and isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            return                              # a scope inside: its reads of the name are not inlined here
        if isinstance(node, gast.Nonlocal) and not any(node is s for s in fdef.body):
            return
        if isinstance(node, gast.AugAssign) and _base(node.target) in declared:
            return
        if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, (gast.Store, gast.Del)) \
                and _base(node) in declared:
            return
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _MUTATORS and _base(node.func.value) in declared:
            return
        if isinstance(node, gast.Name) and node.id in declared and isinstance(node.ctx, gast.Del):
            return
        if isinstance(node, gast.Name) and node.id in declared and isinstance(node.ctx, gast.Store) \
                and not any(isinstance(a, gast.Assign) and a.targets == [node]
                            and isinstance(a.value, (gast.BinOp, gast.UnaryOp, gast.Constant))
                            for a in walk(fdef)):
            return                              # only `total = <arithmetic>`: a new value, sharing no memory
    fdef.nonlocal_rebinds = frozenset(declared)


def without_nonlocal(fdef, body):
    """`body` (statements of `fdef`) without its `nonlocal` statements, where accepted."""
    if not getattr(fdef, "nonlocal_rebinds", False):
        return body
    return [s for s in body if not isinstance(s, gast.Nonlocal)]


def nonlocal_names(fdef):
    """The enclosing function's names `fdef` rebinds (never renamed when it is inlined)."""
    return getattr(fdef, "nonlocal_rebinds", frozenset())


def _base(node):
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None
