"""The functions of Python's `operator` module become the operators they name.

    functools.reduce(operator.mul, xs)   ->  ... _r = operator.mul(_r, _s[_i]) ...  ->  _r = _r * _s[_i]
    operator.add(a, b)                   ->  a + b
    operator.neg(a)                      ->  -a

`operator.add(a, b)` is by definition `a + b` (each operand evaluated once, in order), so the
rewrite keeps every meaning Python gives it (list concatenation included); the operators
then get their rules. An operator function used as a value (passed on, stored) stays as it is.
"""
import operator

import gast

from .base import Pass, copy_location

__all__ = ["OperatorFunctions"]

_BINARY = {operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult, operator.truediv: gast.Div,
           operator.floordiv: gast.FloorDiv, operator.mod: gast.Mod, operator.pow: gast.Pow,
           operator.matmul: gast.MatMult, operator.and_: gast.BitAnd, operator.or_: gast.BitOr,
           operator.xor: gast.BitXor, operator.lshift: gast.LShift, operator.rshift: gast.RShift}
_COMPARE = {operator.lt: gast.Lt, operator.le: gast.LtE, operator.gt: gast.Gt, operator.ge: gast.GtE,
            operator.eq: gast.Eq, operator.ne: gast.NotEq}
_UNARY = {operator.neg: gast.USub, operator.pos: gast.UAdd, operator.not_: gast.Not, operator.invert: gast.Invert}


class OperatorFunctions(Pass):
    """Rewrite calls of `operator.add`, `operator.mul`, ... into the operators they name."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            return node
        try:
            fn = self.context.resolver.static_value(node.func)
            known = fn in _BINARY or fn in _COMPARE or fn in _UNARY or fn is operator.getitem
        except TypeError:                     # an unhashable static value: not an operator function
            return node
        if not known:
            return node
        args = node.args
        if len(args) == 2 and fn in _BINARY:
            return copy_location(gast.BinOp(left=args[0], op=_BINARY[fn](), right=args[1]), node)
        if len(args) == 2 and fn in _COMPARE:
            return copy_location(gast.Compare(left=args[0], ops=[_COMPARE[fn]()], comparators=[args[1]]), node)
        if len(args) == 1 and fn in _UNARY:
            return copy_location(gast.UnaryOp(op=_UNARY[fn](), operand=args[0]), node)
        if len(args) == 2 and fn is operator.getitem:
            return copy_location(gast.Subscript(value=args[0], slice=args[1], ctx=gast.Load()), node)
        return node
