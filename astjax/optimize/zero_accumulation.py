"""An adjoint that starts at zero and receives one contribution is just that contribution.

    bx = jnp.zeros_like(x)          ->   bx = by * jnp.cos(x)
    bx += by * jnp.cos(x)
"""
import gast

from .effects import reads, writes

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
    i = 0
    while i < len(block):
        stmt = block[i]
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _block(inner)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and _is_zero(stmt.value):
            variable = stmt.targets[0].id
            for j in range(i + 1, len(block)):
                later = block[j]
                mentions = variable in reads(later) or variable in writes(later) or any(
                    isinstance(n, gast.AugAssign) and n.target.id == variable for n in gast.walk(later))
                if not mentions:
                    continue
                if (isinstance(later, gast.AugAssign) and later.target.id == variable
                        and isinstance(later.op, gast.Add) and variable not in reads(later.value)):
                    block[j] = gast.copy_location(
                        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None,
                                                       type_comment=None)], value=later.value, type_comment=None),
                        later)
                    del block[i]
                    i -= 1
                break
        i += 1
