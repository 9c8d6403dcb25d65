"""A branch that only picks a value for one name is one assignment.

    if a * a / 3.0 > 0:                 ->      b = 3.0 if a * a / 3.0 > 0 else 4.0
        b = 3.0
    else:
        b = 4.0

Only where each branch is exactly one assignment to the same name, with no comment (a `# from line N`
comment pairs a branch with the user's line, and explain lays them side by side), nothing in the test
or the values has an effect, and the line stays within 88 characters. A conditional expression
evaluates only the value its test picks, as the `if` did.
"""
import gast

from ..codegen.unparse import unparse
from ..optimize.effects import has_effects
from ..codegen.node_walk import walk

__all__ = ["conditional_assignments"]

_WIDTH = 88


def conditional_assignments(function_node):
    _blocks(function_node, 0)
    return function_node


def _blocks(owner, depth):
    for field in ("body", "orelse"):
        block = getattr(owner, field, None)
        if not (isinstance(block, list) and block and isinstance(block[0], gast.stmt)):
            continue
        for i, stmt in enumerate(block):
            _blocks(stmt, depth + 1)
            merged = _merged(stmt)
            if merged is not None and len(unparse(merged).strip()) + 4 * (depth + 1) <= _WIDTH:
                block[i] = merged


def _merged(stmt):
    if not (isinstance(stmt, gast.If) and len(stmt.body) == 1 and len(stmt.orelse) == 1):
        return None
    first, second = stmt.body[0], stmt.orelse[0]
    if not (_single_assignment(first) and _single_assignment(second)
            and first.targets[0].id == second.targets[0].id):
        return None
    if any(_effects(e) for e in (stmt.test, first.value, second.value)):
        return None
    value = gast.IfExp(test=stmt.test, body=first.value, orelse=second.value)
    return gast.Assign(targets=first.targets, value=value, type_comment=None)


def _single_assignment(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)


def _effects(expr):
    return any(isinstance(n, gast.Call) and has_effects(n) for n in walk(expr))
