"""Constant folding and algebraic identities that rules leave behind.

    by * 2 * x ** (2 - 1)               ->   by * 2 * x
    x ** jnp.where(2 == 0.0, 1.0, 2 - 1) ->   x
    e * 1, e ** 1                       ->   e    (not for a boolean e: `True * 1` is the int 1)
    1.0 * e, e * 1.0, e / 1             ->   e    (only for a float e: `(x > 0) * 1.0` is a float 0 or 1, and
                                                  `img * 1.0 - ref * 1.0` on uint8 images must not wrap)

A fold that changes a value's dtype changes its arithmetic (`b1 + b2` of booleans is `or`), so a factor
1.0 is dropped only from an expression that is a float whatever the arguments' dtypes: float arithmetic,
a transcendental function, an item of a float, a name every assignment gives such a value, a parameter
grad differentiates (it refuses integer ones: `cleanup(float_params=...)`). The teaching views, which print
code specialized to arguments they have seen and run it again to compare, fold every factor 1
(`ones_of_any_dtype`).
    -(-e), -(-a * b / c)                ->   e, a * b / c
    -(1.0 / b)                          ->   -1.0 / b
    broadcast_like(dt, *(a, b))         ->   broadcast_like(dt, a, b)
"""
import operator

import gast
from ..codegen.node_walk import NodeTransformer, nodes

__all__ = ["fold_constants"]

_OPS = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Pow: operator.pow}
_COMPARISONS = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
                gast.Gt: operator.gt, gast.GtE: operator.ge}


def fold_constants(function_node, ones_of_any_dtype=False, float_params=()):
    """`float_params`: parameters that hold floats (or containers of floats) whenever the function runs,
    as grad's differentiated ones do (grad refuses an integer one before running its code)."""
    return _Fold(function_node, ones_of_any_dtype, float_params).visit(function_node)


# Calls whose result is boolean whatever their operands (jnp.isnan(x), jnp.logical_and(a, b)).
_BOOLEAN_CALLS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
                  "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "isclose", "signbit",
                  "isneginf", "isposinf", "isreal", "iscomplex", "bool_", "bool"}


def _boolean(expr, names):
    """Whether `expr` may hold a boolean (a comparison, `and`/`or`/`not`, a boolean call, a name holding one)."""
    if isinstance(expr, (gast.Compare, gast.BoolOp)):
        return True
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, bool)
    if isinstance(expr, gast.UnaryOp):
        return isinstance(expr.op, gast.Not) or _boolean(expr.operand, names)
    if isinstance(expr, gast.Name):
        return expr.id in names
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
        return _boolean(expr.left, names) or _boolean(expr.right, names)
    if isinstance(expr, gast.IfExp):
        return _boolean(expr.body, names) or _boolean(expr.orelse, names)
    if isinstance(expr, gast.Call):
        func = expr.func
        name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
        if name in _BOOLEAN_CALLS or (name == "where" and len(expr.args) == 3
                                      and any(_boolean(a, names) for a in expr.args[1:])):
            return True
        if name == "astype" and expr.args and _boolean(expr.args[0], names | {"bool"}):
            return True
    return False


def _boolean_names(function_node):
    """The names some assignment gives a value that may be boolean (to a fixed point through copies)."""
    assigns = [n for n in nodes(function_node) if isinstance(n, gast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], gast.Name)]
    names = set()
    while True:
        more = {a.targets[0].id for a in assigns if a.targets[0].id not in names and _boolean(a.value, names)}
        if not more:
            return names
        names |= more


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


# Calls whose result is a float whatever their operands' dtypes (an int or bool argument gives float32).
_FLOAT = gast.Constant(value=1.0, kind=None)     # stands for a value known to be a float (a float parameter)

_FLOAT_CALLS = {"exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sqrt", "log1p", "expm1", "log2",
                "log10", "arcsin", "arccos", "arctan", "arctan2", "sigmoid", "exp2", "cbrt", "erf", "erfc",
                "divide", "true_divide", "mean", "var", "std", "float32", "float64"}


def _surely_float(expr, names):
    """Whether `expr` is a float (or complex) whatever the dtypes of the function's arguments."""
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, (float, complex))
    if isinstance(expr, gast.Name):
        return expr.id in names
    if isinstance(expr, gast.Subscript):          # an item or a slice of floats: floats
        return _surely_float(expr.value, names)
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
        return _surely_float(expr.operand, names)
    if isinstance(expr, gast.BinOp):
        if isinstance(expr.op, gast.Div):
            return True
        if isinstance(expr.op, (gast.Add, gast.Sub, gast.Mult, gast.Pow)):
            return _surely_float(expr.left, names) or _surely_float(expr.right, names)
        return False
    if isinstance(expr, gast.Call):
        func = expr.func
        name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
        return name in _FLOAT_CALLS and not expr.keywords
    return False


def _float_names(function_node, float_params=()):
    """The names every assignment of which gives a float (a parameter only if in `float_params`): to a
    fixed point."""
    values = {}
    every = list(nodes(function_node))
    for n in every:
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Param) and n.id in float_params:
            values.setdefault(n.id, []).append(_FLOAT)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)):
            values.setdefault(n.id, []).append(None)        # a parameter, a loop target, a tuple item: unknown
    for n in every:
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            values[n.targets[0].id].remove(None)            # the plain assignment's own Store
    names = set()
    while True:
        more = {k for k, vs in values.items() if k not in names and vs
                and all(v is not None and _surely_float(v, names) for v in vs)}
        if not more:
            return names
        names |= more


class _Fold(NodeTransformer):
    def __init__(self, function_node, ones_of_any_dtype, float_params):
        self.function_node = function_node
        self.ones_of_any_dtype = ones_of_any_dtype
        self.float_params = float_params
        self._names = None        # (boolean names, float names), found when a factor 1 first asks for them

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
        if op is gast.Pow and _const(node.right, 1) and self.keeps_dtype(node.left, node.right):
            return node.left
        if op is gast.Mult and _const(node.right, 1) and self.keeps_dtype(node.left, node.right):
            return node.left
        if op is gast.Mult and _const(node.left, 1) and self.keeps_dtype(node.right, node.left):
            return node.right
        if op is gast.Div and _const(node.right, 1) and self.keeps_dtype(node.left, gast.Constant(value=1.0)):
            return node.left
        return node

    def keeps_dtype(self, kept, one):
        """Whether `kept` has the dtype of `kept * one` (or `kept ** one`) for the constant `one`."""
        if self.ones_of_any_dtype:          # the teaching views: any dtype
            return True
        if self._names is None:
            self._names = (_boolean_names(self.function_node), _float_names(self.function_node, self.float_params))
        boolean_names, float_names = self._names
        if isinstance(one.value, float):
            return _surely_float(kept, float_names)
        return not _boolean(kept, boolean_names)

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
