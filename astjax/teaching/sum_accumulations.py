"""An adjoint assigned and then accumulated into, printed as one sum.

    bc = _b1[0]                 ->      bc = _b1[0] + _b1[1]
    bc += _b1[1]

    bprediction = -(bq * _t3)   ->      bprediction = -(bq * _t3) + bq * label
    bprediction += bq * label

    ba = ba * aa                ->      baa_a = baa * a
    baa_a = baa * a                     ba = ba * aa + baa_a
    ba = ba + baa_a

Only where the statements between (comments, or plain assignments without calls) neither read nor write
the variable nor anything the added expression reads, where the added expression does not read the
variable, and the sum stays within one line of 88 characters (written where the assignment was, or, where
a statement between computes what is added, where the accumulation was); `b = e; b += -f` prints `b = e - f`. A
`+=` of an ndarray adds in place, a `+` makes a new array: the same numbers; `specialize.py` checks the
result anyway.
"""
import gast

from ..codegen.unparse import unparse
from ..codegen.node_walk import walk

__all__ = ["sum_accumulations"]

_WIDTH = 88


def sum_accumulations(function_node):
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _block(block, _depth(function_node, owner))
    return function_node


def _depth(function_node, owner):
    """How many indentation levels the statements of `owner`'s blocks have (for the line width)."""
    def find(node, level):
        if node is owner:
            return level
        for field in ("body", "orelse"):
            for child in getattr(node, field, None) or []:
                if isinstance(child, gast.stmt):
                    found = find(child, level + 1)
                    if found is not None:
                        return found
        return None
    return find(function_node, 1) or 1


def _block(block, depth):
    i = 0
    while i < len(block):
        first = block[i]
        j = i + 1
        between = []
        while j < len(block) and (_is_comment(block[j]) or _independent(block[j], first)):
            between.append(block[j])
            j += 1
        second = block[j] if j < len(block) else None
        added = _added(second, first)
        if added is not None and not _reads(first.value, "__comment__"):
            total = _sum(first.value, added)
            merged = gast.Assign(targets=first.targets, value=total, type_comment=None)
            fits = len(unparse(merged).strip()) + 4 * depth <= _WIDTH
            if fits and not any(_assigned(s) & _names(added) for s in between):
                first.value = total             # the sum where the assignment was
                del block[j]
                continue
            if fits and not any(_assigned(s) & _names(first.value) for s in between):
                block[j] = merged               # the sum where the accumulation was (`dba = ...` between)
                del block[i]
                continue
        i += 1


def _added(second, first):
    """`e` where `second` is `b += e` or `b = b + e` and `first` assigns `b` (e not reading b), else None."""
    if not (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)):
        return None
    name = first.targets[0].id
    if isinstance(second, gast.AugAssign) and isinstance(second.op, gast.Add) and \
            isinstance(second.target, gast.Name) and second.target.id == name:
        added = second.value
    elif (isinstance(second, gast.Assign) and len(second.targets) == 1 and isinstance(second.targets[0], gast.Name)
          and second.targets[0].id == name and isinstance(second.value, gast.BinOp)
          and isinstance(second.value.op, gast.Add) and isinstance(second.value.left, gast.Name)
          and second.value.left.id == name):
        added = second.value.right
    else:
        return None
    return None if _reads(added, name) else added


def _independent(stmt, first):
    """A plain assignment between `first` and its accumulation that neither reads nor writes its name."""
    if not (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)):
        return False
    if not isinstance(stmt, (gast.Assign, gast.AugAssign)):
        return False
    name = first.targets[0].id
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    if not all(isinstance(t, gast.Name) and t.id != name for t in targets):
        return False
    return not _reads(stmt.value, name) and not any(isinstance(n, gast.Call) for n in walk(stmt.value))


def _assigned(stmt):
    if _is_comment(stmt):
        return set()
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    return {t.id for t in targets if isinstance(t, gast.Name)}


def _names(expr):
    return {n.id for n in walk(expr) if isinstance(n, gast.Name)}


def _sum(left, right):
    """`left + right`, written `left - e` where `right` is `-e` (or a product led by a negation)."""
    from ..optimize.constant_folding import _without_leading_negation
    positive = _without_leading_negation(right)
    if positive is not None:
        return gast.BinOp(left=left, op=gast.Sub(), right=positive)
    return gast.BinOp(left=left, op=gast.Add(), right=right)


def _reads(expr, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(expr))


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
