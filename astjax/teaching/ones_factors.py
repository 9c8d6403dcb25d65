"""A seed of ones multiplying a value of its own shape is that value.

    by = jnp.ones((4,))                             ->      by = 1.0 - y * y
    by = by * (1.0 - y * y)

    bp = jnp.full((2, 4), -1.0) / p                 ->      bp = -1.0 / p

The reverse sweep starts from `jnp.ones(shape)` (the adjoint of `jnp.sum`) and multiplies it along;
a teacher writes the factor. Which operators met operands of one shape is what the run saw: for each
`a * b` (`+`, `-`, `/`) of the generated code, `specialize._Fold` marks the node with the shape when
both operands were arrays of that shape at every execution (`_astjax_operand_shape`), and the mark
stays on the node through the cleanup passes. Where one operand of a marked node is `jnp.ones(S)` or
`jnp.full(S, c)` with S that shape (possibly scaled by numbers: `jnp.ones(S) / 8 * 2`), the other
operand already has the shape, so the number `1.0` or `c` in its place gives the same array; likewise
`e + jnp.zeros(S)` is `e`; and `v = jnp.ones(S)` followed by `v = v * e` is `v = e`. `specialize.py` checks the result.
"""
import ast

import gast

from ..optimize.constant_folding import fold_constants
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["MARK", "fold_ones_factors"]

MARK = "_astjax_operand_shape"


def fold_ones_factors(function_node, changed=False):
    """Fold in place. Return the node, or with `changed=True` whether anything was folded."""
    before = gast.dump(function_node) if changed else None
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                _seeds(block)
    _Inline().visit(function_node)
    fold_constants(function_node, ones_of_any_dtype=True)
    return gast.dump(function_node) != before if changed else function_node


def _filled(expr, shape):
    """The number `jnp.ones(shape)` / `jnp.full(shape, c)` holds in every item, or None."""
    if not (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute)
            and isinstance(expr.func.value, gast.Name) and expr.func.value.id == "jnp" and not expr.keywords):
        return None
    try:
        first = ast.literal_eval(gast.unparse(expr.args[0])) if expr.args else None
    except (ValueError, SyntaxError, TypeError, AttributeError):
        return None
    if isinstance(first, int):
        first = (first,)
    if first != shape:
        return None
    if expr.func.attr == "ones" and len(expr.args) == 1:
        return 1.0
    if expr.func.attr == "full" and len(expr.args) == 2:
        try:
            value = ast.literal_eval(gast.unparse(expr.args[1]))
        except (ValueError, SyntaxError, TypeError, AttributeError):
            return None
        return float(value) if type(value) in (int, float) else None
    return None


def _zeros(expr, shape):
    """`jnp.zeros(shape)` (float32)."""
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr == "zeros"
            and isinstance(expr.func.value, gast.Name) and expr.func.value.id == "jnp" and len(expr.args) == 1
            and not expr.keywords and _shape_literal(expr.args[0]) == shape)


def _shape_literal(node):
    try:
        value = ast.literal_eval(gast.unparse(node))
    except (ValueError, SyntaxError, TypeError, AttributeError):
        return None
    return (value,) if isinstance(value, int) else value


def _scaled_fill(expr, shape):
    """`expr` with its `jnp.ones(shape)` leaf replaced by a number, where `expr` is that leaf times or over
    numbers (`jnp.ones(S) / 8 * 2`); else None."""
    number = _filled(expr, shape)
    if number is not None:
        return gast.Constant(value=number, kind=None)
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Mult, gast.Div)) and \
            isinstance(expr.right, gast.Constant) and type(expr.right.value) in (int, float):
        left = _scaled_fill(expr.left, shape)
        if left is not None:
            return gast.BinOp(left=left, op=expr.op, right=expr.right)
    return None


class _Inline(NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        shape = getattr(node, MARK, None)
        if shape is None or not isinstance(node.op, (gast.Mult, gast.Div, gast.Add, gast.Sub)):
            return node
        if isinstance(node.op, (gast.Add, gast.Sub)) and _zeros(node.right, shape):
            return node.left                  # e + jnp.zeros(S) with e of shape S: e
        if isinstance(node.op, gast.Add) and _zeros(node.left, shape):
            return node.right
        for side, other in (("left", "right"), ("right", "left")):
            number = _scaled_fill(getattr(node, side), shape)
            if number is not None and _fill_free(getattr(node, other), shape):
                if isinstance(node.op, gast.Mult):
                    return _product(number, getattr(node, other))
                setattr(node, side, number)
                return node
        return node


def _product(scale, expr):
    """`scale * expr` written as a teacher does: `1.0 / 8 * 2` times e is `2.0 * e / 8`, 1.0 times e is e."""
    numerator, denominator = 1.0, 1
    while isinstance(scale, gast.BinOp):
        if isinstance(scale.op, gast.Mult):
            numerator *= scale.right.value
        else:
            denominator *= scale.right.value
        scale = scale.left
    numerator *= scale.value
    out = expr if numerator == 1.0 else gast.BinOp(left=gast.Constant(value=numerator, kind=None), op=gast.Mult(),
                                                   right=expr)
    if denominator != 1:
        out = gast.BinOp(left=out, op=gast.Div(), right=gast.Constant(value=denominator, kind=None))
    return out


def _fill_free(expr, shape):
    """The other operand is not itself a fill of the shape (one of the two must keep it)."""
    return _scaled_fill(expr, shape) is None


def _seeds(block):
    """`v = jnp.ones(S)` and next `v = v * e` (a marked node): `v = e`."""
    i = 0
    while i < len(block):
        first = block[i]
        j = i + 1
        while j < len(block) and _is_comment(block[j]):
            j += 1
        second = block[j] if j < len(block) else None
        if (_assigns_name(first) and _assigns_name(second) and first.targets[0].id == second.targets[0].id
                and isinstance(second.value, gast.BinOp) and getattr(second.value, MARK, None) is not None):
            name, node = first.targets[0].id, second.value
            shape = getattr(node, MARK)
            for side, other in (("left", "right"), ("right", "left")):
                operand = getattr(node, side)
                if (isinstance(operand, gast.Name) and operand.id == name
                        and not any(isinstance(n, gast.Name) and n.id == name for n in walk(getattr(node, other)))
                        and _filled(first.value, shape) is not None and _fill_free(getattr(node, other), shape)):
                    setattr(node, side, gast.Constant(value=_filled(first.value, shape), kind=None))
                    del block[i]
                    break
            else:
                i += 1
            continue
        i += 1


def _assigns_name(stmt):
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
