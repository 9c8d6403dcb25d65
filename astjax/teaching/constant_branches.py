"""Branches whose test the example arguments made a constant print as the branch that runs.

    ndim_a_eq_0 = False                              ->   _ret, d_ret = jvp_matmul_lhs_adjoint(g, a, b, dg, da)
    _t1 = ndim_a_eq_0 if ndim_a_eq_0 else False
    if _t1:
        ...
    elif True:
        _ret, d_ret = jvp_matmul_lhs_adjoint(g, a, b, dg, da)
    else:
        ...

A rule written for every shape (`dot` of a scalar, of matrices, of stacks) tests the rank of its
arguments; the folds turn those tests into `True` and `False` for the shapes the student used, and a
second derivative carries them into the derivative of the rule. A teacher writes only the case at
hand. A name every assignment of which that can reach a read is one `True`, `False` or `None` is
replaced by it at the read (the data-flow walk of propagated_constants.py), then `a if True else b`,
`not False`, `True and e`, `False or e` fold, `if True: s else: t` becomes `s`, and the assignments no
read needs go with dead code. Only literal constants are folded, so what runs is what ran.
"""
import gast

from ..optimize.dead_code import remove_dead_code
from .propagated_constants import propagate_constants
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["take_constant_branches"]


def take_constant_branches(function_node):
    """Fold constant tests in `function_node` (in place) until nothing changes; return it."""
    for _ in range(6):
        before = gast.dump(function_node)
        propagate_constants(function_node, kinds=(bool, type(None)))
        _FoldTests().visit(function_node)
        _drop_constant_ifs(function_node)
        remove_dead_code(function_node)
        if gast.dump(function_node) == before:
            break
    return function_node


def _literal(node):
    """(True, value) for a `True`, `False` or `None` literal, else (False, None)."""
    if isinstance(node, gast.Constant) and (node.value is None or isinstance(node.value, bool)):
        return True, node.value
    return False, None


class _FoldTests(NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        known, value = _literal(node.test)
        if known:
            return node.body if value else node.orelse
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        known, value = _literal(node.operand)
        if known and isinstance(node.op, gast.Not):
            return gast.Constant(value=not value, kind=None)
        return node

    def visit_BoolOp(self, node):
        """`True and e` -> `e`, `False and e` -> `False`, `False or e` -> `e`, `True or e` -> `True`
        (a leading literal decides or passes on, as Python evaluates it)."""
        self.generic_visit(node)
        values = list(node.values)
        is_and = isinstance(node.op, gast.And)
        while len(values) > 1:
            known, value = _literal(values[0])
            if not known:
                break
            if bool(value) == is_and:
                values.pop(0)                # passes on to the next operand
            else:
                return values[0]             # decides: its own value is the result
        return values[0] if len(values) == 1 else gast.BoolOp(op=node.op, values=values)


def _drop_constant_ifs(function_node):
    """`if False: s` disappears, `if True: s else: t` becomes `s` (an `elif` too)."""
    take_known_branches(function_node, _literal)


def take_known_branches(function_node, decide):
    """Each `if` whose test `decide` knows ((True, value); (False, None) when it cannot tell) is replaced by
    the branch that value takes: `if False: s` disappears, `if True: s else: t` becomes `s`."""
    for child in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(child, field, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], gast.stmt):
                continue
            kept = []
            for stmt in block:
                known, value = decide(stmt.test) if isinstance(stmt, gast.If) else (False, None)
                if known:
                    kept.extend(stmt.body if value else stmt.orelse)
                else:
                    kept.append(stmt)
            if kept != block:
                setattr(child, field, kept or ([gast.Pass()] if field == "body" else []))


