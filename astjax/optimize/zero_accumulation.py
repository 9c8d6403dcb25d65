"""An adjoint that starts at zero and receives one contribution is just that contribution.

    bx = jnp.zeros_like(x)          ->   bx = by * jnp.cos(x)
    bx += by * jnp.cos(x)
"""
import gast

from .effects import reads

__all__ = ["fold_zero_accumulation"]


def fold_zero_accumulation(function_node):
    _block(function_node.body)
    return function_node


def _is_zero(value):
    if isinstance(value, gast.Constant) and value.value == 0.0 and not isinstance(value.value, bool):
        return True
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id in ("zero_like", "zeros_shaped")
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "zeros_like")


def _block(block):
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _block(inner)
    # The names each statement mentions, computed once: the search below is then a set lookup
    # per statement (generated code of a third derivative has thousands of statements).
    mentions = [_names(stmt) for stmt in block]
    i = 0
    while i < len(block):
        stmt = block[i]
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and _is_zero(stmt.value):
            variable = stmt.targets[0].id
            for j in range(i + 1, len(block)):
                if variable not in mentions[j]:
                    continue
                later = block[j]
                if (isinstance(later, gast.AugAssign) and later.target.id == variable
                        and isinstance(later.op, gast.Add) and variable not in reads(later.value)):
                    block[j] = gast.copy_location(
                        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None,
                                                       type_comment=None)], value=later.value, type_comment=None),
                        later)
                    del block[i]
                    del mentions[i]
                    i -= 1
                break
        i += 1


def _names(stmt):
    return {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)}
