"""An adjoint assigned and then accumulated into, printed as one sum.

    bc = _b1[0]                 ->      bc = _b1[0] + _b1[1]
    bc += _b1[1]

    bprediction = -(bq * _t3)   ->      bprediction = -(bq * _t3) + bq * label
    bprediction += bq * label

Only for adjacent statements (comments between are fine) where the added expression does not read
the variable and the sum stays within one line of 88 characters. A `+=` of an ndarray adds in place,
a `+` makes a new array: the same numbers; `specialize.py` checks the result anyway.
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
        while j < len(block) and _is_comment(block[j]):
            j += 1
        second = block[j] if j < len(block) else None
        if (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)
                and isinstance(second, gast.AugAssign) and isinstance(second.op, gast.Add)
                and isinstance(second.target, gast.Name) and second.target.id == first.targets[0].id
                and not _reads(second.value, second.target.id) and not _reads(first.value, "__comment__")):
            total = gast.BinOp(left=first.value, op=gast.Add(), right=second.value)
            merged = gast.Assign(targets=first.targets, value=total, type_comment=None)
            if len(unparse(merged).strip()) + 4 * depth <= _WIDTH:
                first.value = total
                del block[j]
                continue
        i += 1


def _reads(expr, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(expr))


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
