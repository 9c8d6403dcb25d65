"""A branch's forward and reverse halves printed as one `if` where nothing runs between them.

    a_gt_0 = a > 0                          a_gt_0 = a > 0
    if a_gt_0:                              ba = 1.0
        a_lt_10 = a < 10           ->       if a_gt_0:
    ba = 1.0                                    a_lt_10 = a < 10
    if a_gt_0:                                  if a_lt_10:
        if a_lt_10:                                 ba = ba * a + ba * a
            ba = ba * a + ba * a            else:
    else:                                       ba = ba * 3.0
        ba = ba * 3.0

The reverse sweep tests a branch's flag twice: once going forward, once coming back. Where the branch is
the last thing the forward sweep does that the reverse sweep undoes, a teacher writes one `if` holding
both halves. Two `if` statements of one block with the same test fuse when the statements between them
can run before the first one: they neither read nor write what its branches write, do not write what
they read, have no effects (a push or pop), nothing between writes what the test reads, and the first
branches do not jump (`return`, `raise`, `break`, `continue`). Blocks that became neighbours inside the
fused branches fuse again (an `elif` chain), and a push there followed by its pop with nothing in
between is cleanup's to remove.
"""
import gast

from ..optimize.effects import has_effects
from ..codegen.node_walk import walk

__all__ = ["fuse_branches"]


def fuse_branches(function_node):
    _blocks(function_node.body)
    return function_node


def _blocks(block):
    _fuse(block)
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                _blocks(inner)


def _fuse(block):
    i = 0
    while i < len(block):
        first = block[i]
        if isinstance(first, gast.If):
            j = _partner(block, i)
            if j is not None:
                between = block[i + 1:j]
                second = block[j]
                first.body = first.body + second.body
                first.orelse = first.orelse + second.orelse
                block[i:j + 1] = between + [first]
                _fuse(first.body)
                _fuse(first.orelse)
                continue
        i += 1


def _partner(block, i):
    """The index of the `if` that fuses with `block[i]`, or None."""
    first = block[i]
    test = gast.dump(first.test)
    written = _writes(first)
    read = _reads(first)
    test_reads = _reads_expr(first.test)
    if test_reads & written or _has_effects(first.test) or _jumps(first):
        return None
    for j in range(i + 1, len(block)):
        stmt = block[j]
        if isinstance(stmt, gast.If) and gast.dump(stmt.test) == test:
            return j
        if _is_comment(stmt):
            continue
        if not isinstance(stmt, (gast.Assign, gast.AugAssign)) or _has_effects(stmt):
            return None
        if _writes(stmt) & (written | read | test_reads) or _reads(stmt) & written:
            return None
    return None


def _jumps(stmt):
    """A `return`, `raise`, `break` or `continue` in the first branch would skip what moves before it."""
    return any(isinstance(n, (gast.Return, gast.Raise, gast.Break, gast.Continue)) for n in walk(stmt))


def _has_effects(stmt):
    return any(isinstance(n, gast.Call) and has_effects(n) for n in walk(stmt))


def _writes(stmt):
    out = set()
    for node in walk(stmt):
        if isinstance(node, gast.Assign):
            for target in node.targets:
                out |= _stored(target)
        elif isinstance(node, (gast.AugAssign, gast.For)):
            out |= _stored(node.target)
        elif isinstance(node, gast.NamedExpr):
            out |= _stored(node.target)
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and has_effects(node):
            out |= _stored(node.func.value)       # `xs.append(v)` changes xs
    return out


def _stored(target):
    if isinstance(target, gast.Name):
        return {target.id}
    if isinstance(target, (gast.Subscript, gast.Attribute, gast.Starred)):
        return _stored(target.value)
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(*[_stored(e) for e in target.elts]) if target.elts else set()
    return set()


def _reads(stmt):
    return {n.id for n in walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} | {
        n.target.id for n in walk(stmt) if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)}


def _reads_expr(expr):
    return {n.id for n in walk(expr) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
