"""An adjoint assigned and then accumulated into, printed as one sum.

    bc = _b1[0]                 ->      bc = _b1[0] + _b1[1]
    bc += _b1[1]

    bprediction = -(bq * _t3)   ->      bprediction = -(bq * _t3) + bq * label
    bprediction += bq * label

Only where the statements between (comments, or plain assignments without calls) neither read nor write
the variable nor anything the added expression reads, where the added expression does not read the
variable, and the sum stays within one line of 88 characters; `b = e; b += -f` prints `b = e - f`. A
`+=` of an ndarray adds in place, a `+` makes a new array: the same numbers; `specialize.py` checks the
result anyway.
"""
import gast

from ..codegen.unparse import unparse

__all__ = ["sum_accumulations"]

_WIDTH = 88


def sum_accumulations(function_node):
    for owner in list(gast.walk(function_node)):
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
        if (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)
                and isinstance(second, gast.AugAssign) and isinstance(second.op, gast.Add)
                and isinstance(second.target, gast.Name) and second.target.id == first.targets[0].id
                and not _reads(second.value, second.target.id) and not _reads(first.value, "__comment__")
                and not any(_assigned(s) & _names(second.value) for s in between)):
            total = _sum(first.value, second.value)
            merged = gast.Assign(targets=first.targets, value=total, type_comment=None)
            if len(unparse(merged).strip()) + 4 * depth <= _WIDTH:
                first.value = total
                del block[j]
                continue
        i += 1


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
    return not _reads(stmt.value, name) and not any(isinstance(n, gast.Call) for n in gast.walk(stmt.value))


def _assigned(stmt):
    if _is_comment(stmt):
        return set()
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    return {t.id for t in targets if isinstance(t, gast.Name)}


def _names(expr):
    return {n.id for n in gast.walk(expr) if isinstance(n, gast.Name)}


def _sum(left, right):
    """`left + right`, written `left - e` where `right` is `-e` (or a product led by a negation)."""
    from ..optimize.constant_folding import _without_leading_negation
    positive = _without_leading_negation(right)
    if positive is not None:
        return gast.BinOp(left=left, op=gast.Sub(), right=positive)
    return gast.BinOp(left=left, op=gast.Add(), right=right)


def _reads(expr, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(expr))


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
