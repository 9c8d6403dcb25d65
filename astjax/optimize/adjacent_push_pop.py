"""A value pushed on the tape and popped right back is just assigned.

    push(_tape, jnp.shape(bw))      ->   bw_shape = jnp.shape(bw)
    bw_shape = pop(_tape)

This happens where a primal sweep ends with the statement whose old value the
adjoint sweep restores first. Comments in between do not count.
"""
import gast

__all__ = ["fold_adjacent_push_pop"]


def fold_adjacent_push_pop(function_node):
    _block(function_node.body)
    return function_node


def _call_of(node, name):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == name


def _is_comment(stmt):
    return isinstance(stmt, gast.Expr) and _call_of(stmt.value, "__comment__")


def _block(block):
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _block(inner)
    i = 0
    while i < len(block):
        stmt = block[i]
        if isinstance(stmt, gast.Expr) and _call_of(stmt.value, "push") and isinstance(stmt.value.args[0], gast.Name):
            j = i + 1
            while j < len(block) and _is_comment(block[j]):
                j += 1
            later = block[j] if j < len(block) else None
            if (isinstance(later, gast.Assign) and _call_of(later.value, "pop")
                    and isinstance(later.value.args[0], gast.Name)
                    and later.value.args[0].id == stmt.value.args[0].id):
                later.value = stmt.value.args[1]
                del block[i]
                continue
        i += 1
