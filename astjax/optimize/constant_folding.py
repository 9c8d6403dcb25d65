"""Constant folding and algebraic identities that rules leave behind.

    by * 2 * x ** (2 - 1)               ->   by * 2 * x
    x ** jnp.where(2 == 0.0, 1.0, 2 - 1) ->   x
    1.0 * e, e * 1.0, e ** 1            ->   e
    -(-e), -(-a * b / c)                ->   e, a * b / c
    -(1.0 / b)                          ->   -1.0 / b
    broadcast_like(dt, *(a, b))         ->   broadcast_like(dt, a, b)
"""
import operator

import gast
from ..codegen.node_walk import NodeTransformer

__all__ = ["fold_constants"]

_OPS = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Pow: operator.pow}
_COMPARISONS = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
                gast.Gt: operator.gt, gast.GtE: operator.ge}


def fold_constants(function_node):
    return _Fold().visit(function_node)


def _const(node, value=None):
    if not isinstance(node, gast.Constant) or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return False
    return value is None or node.value == value


def _without_leading_negation(node):
    """`e` for `-e`, and `a * b / c` for `-a * b / c` (the sign of a product is its first factor's); else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return node.operand
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        left = _without_leading_negation(node.left)
        if left is not None:
            return gast.BinOp(left=left, op=node.op, right=node.right)
    return None


class _Fold(NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        op = type(node.op)
        if _const(node.left) and _const(node.right) and op in _OPS:
            try:
                value = _OPS[op](node.left.value, node.right.value)
            except (OverflowError, ZeroDivisionError, ValueError):
                return node
            if isinstance(value, (int, float)) and abs(value) < 1e15:
                return gast.Constant(value=value, kind=None)
        if op is gast.Pow and _const(node.right, 1):
            return node.left
        if op is gast.Mult and _const(node.right, 1):
            return node.left
        if op is gast.Mult and _const(node.left, 1):
            return node.right
        if op is gast.Div and _const(node.right, 1):
            return node.left
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub):
            positive = _without_leading_negation(node.operand)
            if positive is not None:      # -(-a * b / c)  ->  a * b / c
                return positive
            if _const(node.operand):
                return gast.Constant(value=-node.operand.value, kind=None)
            if isinstance(node.operand, gast.BinOp) and isinstance(node.operand.op, (gast.Mult, gast.Div)) \
                    and _const(node.operand.left):      # -(1.0 / b)  ->  -1.0 / b
                return gast.BinOp(left=gast.Constant(value=-node.operand.left.value, kind=None),
                                  op=node.operand.op, right=node.operand.right)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and _const(node.left) and _const(node.comparators[0]) \
                and type(node.ops[0]) in _COMPARISONS:
            value = _COMPARISONS[type(node.ops[0])](node.left.value, node.comparators[0].value)
            return gast.Constant(value=bool(value), kind=None)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if any(isinstance(a, gast.Starred) and isinstance(a.value, (gast.Tuple, gast.List)) for a in node.args):
            node.args = [e for a in node.args                      # f(t, *(a, b))  ->  f(t, a, b)
                         for e in (a.value.elts if isinstance(a, gast.Starred)
                                   and isinstance(a.value, (gast.Tuple, gast.List)) else [a])]
        func = node.func
        is_where = isinstance(func, gast.Attribute) and func.attr == "where" and \
            isinstance(func.value, gast.Name) and func.value.id == "jnp"
        if is_where and len(node.args) == 3 and isinstance(node.args[0], gast.Constant) \
                and isinstance(node.args[0].value, bool):
            return node.args[1] if node.args[0].value else node.args[2]
        return node
