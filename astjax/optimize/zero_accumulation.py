"""An adjoint that starts at zero and receives one contribution is just that contribution.

    bx = jnp.zeros_like(x)          ->   bx = by * jnp.cos(x)
    bx += by * jnp.cos(x)

Also when the contribution is made in one branch of an `if` and nothing outside
the zero and that `if` mentions the adjoint:

    bt = 0.0                        ->   if not n_eq_0:
    if not n_eq_0:                           bt = b_ret * x
        bt += b_ret * x                      bx += vjp_f(bt, x)
        bx += vjp_f(bt, x)
"""
import gast

from .effects import reads
from ..codegen.node_walk import name_ids, nodes, walk

__all__ = ["fold_zero_accumulation"]


def fold_zero_accumulation(function_node):
    mentions = {}
    for node in nodes(function_node):
        if isinstance(node, gast.Name):
            mentions[node.id] = mentions.get(node.id, 0) + 1
    _block(function_node.body, mentions)
    return function_node


def _is_zero(value):
    if isinstance(value, gast.Constant) and value.value == 0.0 and not isinstance(value.value, bool):
        return True
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id in ("zero_like", "zeros_shaped")
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "zeros_like")


def _is_shaped_zero(value):
    return not isinstance(value, gast.Constant)


def _may_be_bare_zero(value):
    """`item_adjoint(...)` gives a bare 0.0 for an item nothing reached: the shaped zero must stay."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
            and value.func.id == "item_adjoint")


def _block(block, total):
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _block(inner, total)
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
                        and isinstance(later.op, gast.Add) and variable not in reads(later.value)
                        and not (_is_shaped_zero(stmt.value) and _may_be_bare_zero(later.value))):
                    block[j] = gast.copy_location(
                        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None,
                                                       type_comment=None)], value=later.value, type_comment=None),
                        later)
                    del block[i]
                    del mentions[i]
                    i -= 1
                elif isinstance(later, gast.If) and _fold_into_branch(stmt, later, variable, total):
                    del block[i]
                    del mentions[i]
                    i -= 1
                break
        i += 1


def _fold_into_branch(init, branch, variable, total):
    """`v = 0; if c: v += e; ...` -> `if c: v = e; ...` where only these two statements mention v."""
    def count(node):
        return sum(1 for n in walk(node) if isinstance(n, gast.Name) and n.id == variable)
    if count(init) + count(branch) != total.get(variable, 0) or count(branch.test):
        return False
    arms = [arm for arm in (branch.body, branch.orelse) if any(count(s) for s in arm)]
    if len(arms) != 1:
        return False
    arm = arms[0]
    first = next(k for k, s in enumerate(arm) if count(s))
    later = arm[first]
    if not (isinstance(later, gast.AugAssign) and isinstance(later.target, gast.Name) and later.target.id == variable
            and isinstance(later.op, gast.Add) and variable not in reads(later.value)
            and not (_is_shaped_zero(init.value) and _may_be_bare_zero(later.value))):
        return False
    arm[first] = gast.copy_location(
        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None, type_comment=None)],
                    value=later.value, type_comment=None), later)
    return True


def _names(stmt):
    return name_ids(stmt)
