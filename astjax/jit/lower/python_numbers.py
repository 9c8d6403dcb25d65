"""Operators on two Python numbers keep Python's meaning when compiled.

Where both operands of `+ - * / // % ** << >>` (or the operand of unary `-`
and `int()`, or the arguments of a `math` function) are Python numbers
(literals, globals holding numbers, locals the first call saw hold only Python
numbers, items of such tuples, `x.shape[i]`), the operator becomes a helper of
`jit/python_numbers.py` that checks what Numba would silently change: a
Python int past 64 bits, a division by zero, `2 ** -1`, `(-8.0) ** 0.5`:

    r = r * i          ->   r = py_mul(r, i, "/path/user.py:12")
    out = a // b       ->   out = py_floordiv(a, b, "/path/user.py:7")
    half = n // 2      ->   half = n // 2      (a literal positive divisor: nothing to check)
    y = math.sqrt(x)   ->   y = py_math1(math.sqrt(x), x, "/path/user.py:9")
    z = k ** n         ->   z = np_int_pow(k, n)      (k an int array: NumPy raises for n < 0)

The string is the user's line, for the error a refused value raises. Operators
that meet an array or a NumPy scalar keep NumPy's meaning and are left alone.

A line the first call did not run (a branch not taken) has locals of no observed
type: an operator on those (and Python numbers) gets the helper too, with the
line marked "?". The helper is the plain operator for arrays (Numba decides when
it compiles), checks int64 scalars for overflow (refusing where NumPy would wrap
an int64 scalar: jit cannot tell it from a Python int), and refuses a division
by zero (Python raises, NumPy gives inf: jit cannot tell which).
"""
import builtins
import copy

import gast

from ...errors import trace_to_user
from .dtypes import DtypeReader, static_value
from .weak_kinds import WEAK_KINDS
from ...codegen.node_walk import NodeTransformer

__all__ = ["keep_python_arithmetic"]

_HELPERS = {gast.Add: "py_add", gast.Sub: "py_sub", gast.Mult: "py_mul", gast.Div: "py_div",
            gast.FloorDiv: "py_floordiv", gast.Mod: "py_mod", gast.Pow: "py_pow", gast.LShift: "py_lshift",
            gast.RShift: "py_rshift"}


_FOLD = {"py_add": lambda a, b: a + b, "py_sub": lambda a, b: a - b, "py_mul": lambda a, b: a * b,
         "py_neg": lambda a: -a}


def _fold(name, args):
    """The constant `name(*args)` computes when every argument is a number constant whose result fits in
    an int64 or is a float (`-1`, `2 * 3` stay literals, which some Numba signatures need); else None."""
    if name not in _FOLD or not all(isinstance(a, gast.Constant) and type(a.value) in (int, float) for a in args):
        return None
    value = _FOLD[name](*(a.value for a in args))
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        return None
    if value < 0:
        return gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-value, kind=None))
    return gast.Constant(value=value, kind=None)


def _positive_int(node):
    """A literal positive int divisor: `//` and `%` by it can neither divide by zero nor overflow (the
    checks py_floordiv and py_mod compile, with their error paths, at every call site)."""
    return isinstance(node, gast.Constant) and type(node.value) is int and node.value > 0


def _is_python_math(call, namespace):
    return getattr(static_value(call.func, namespace), "__module__", None) == "math"


def keep_python_arithmetic(node, context):
    _PythonArithmetic(context).visit(node)


class _PythonArithmetic(NodeTransformer):
    def __init__(self, context):
        self.context = context
        reader = DtypeReader(context)
        self.weak, self.dtype = reader.weak, reader.dtype
        self.filename = context.generated.__code__.co_filename

    def where(self, node, seen):
        location = trace_to_user(self.filename, getattr(node, "lineno", 0) or 0)
        text = f"{location[0]}:{location[1]}" if location else ""
        return gast.Constant(value=text if seen else "?" + text, kind=None)

    def helper(self, name, args, node, seen=True):
        folded = _fold(name, args)
        if folded is not None:
            return gast.copy_location(folded, node)
        call = gast.Call(func=gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None),
                         args=list(args) + [self.where(node, seen)], keywords=[])
        return gast.copy_location(call, node)

    def kind(self, expr):
        """"python" for a Python number, "unseen" for a value of no observed type, else None."""
        if self.weak(expr):
            return "python"
        if isinstance(expr, gast.Name):
            if not self.context.types_of(expr.id) and expr.id not in self.context.namespace:
                return "unseen"
            return None
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            return self.kind(expr.operand)
        if isinstance(expr, gast.Attribute) and expr.attr in ("size", "ndim"):         # Python ints in NumPy
            return "python"
        if (isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Attribute)
                and expr.value.attr == "shape"):                                        # x.shape[0]
            return "python"
        if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name):    # t[0] of a tuple of ints
            types = self.context.types_of(expr.value.id)
            items = [item for t in types if t[0] in ("tuple", "list") for item in t[1]]
            if types and len(items) and all(t[0] in ("tuple", "list") for t in types) and set(items) <= WEAK_KINDS:
                return "python"
            return None
        if isinstance(expr, gast.Call) and _is_python_math(expr, self.context.namespace) and expr.args:
            kinds = {self.kind(a) for a in expr.args}
            return None if None in kinds else ("unseen" if "unseen" in kinds else "python")
        if isinstance(expr, gast.BinOp) and type(expr.op) in _HELPERS:
            kinds = {self.kind(expr.left), self.kind(expr.right)}
            return None if None in kinds else ("unseen" if "unseen" in kinds else "python")
        return None

    def both(self, left, right):
        """True (Python numbers), False (one unseen), or None (leave the operator alone)."""
        kinds = {self.kind(left), self.kind(right)}
        return None if None in kinds else "unseen" not in kinds

    # Each visit asks whether its operands are Python numbers before rewriting them (a helper call hides it).
    def visit_BinOp(self, node):
        seen = self.both(node.left, node.right)
        integer_power = isinstance(node.op, gast.Pow) and (self.dtype(node.left) or "").startswith(("int", "uint"))
        self.generic_visit(node)
        name = _HELPERS.get(type(node.op))
        if name in ("py_floordiv", "py_mod") and seen is True and _positive_int(node.right):
            return node             # `n // 2`: no zero division, no overflow; Numba's // and % are Python's
        if name and seen is not None:
            return self.helper(name, [node.left, node.right], node, seen)
        if integer_power:                 # NumPy refuses an integer to a negative power; Numba gives 0
            call = gast.Call(func=gast.Name(id="np_int_pow", ctx=gast.Load(), annotation=None, type_comment=None),
                             args=[node.left, node.right], keywords=[])
            return gast.copy_location(call, node)
        return node

    def visit_AugAssign(self, node):
        seen = self.both(node.target, node.value) if isinstance(node.target, gast.Name) else None
        self.generic_visit(node)
        name = _HELPERS.get(type(node.op))
        if name and seen is not None:
            load = gast.Name(id=node.target.id, ctx=gast.Load(), annotation=None, type_comment=None)
            value = self.helper(name, [load, node.value], node, seen)
            return gast.copy_location(gast.Assign(targets=[node.target], value=value, type_comment=None), node)
        return node

    def visit_UnaryOp(self, node):
        kind = self.kind(node.operand)
        self.generic_visit(node)
        if isinstance(node.op, gast.USub) and kind:
            return self.helper("py_neg", [node.operand], node, kind == "python")
        return node

    def visit_Call(self, node):
        python = len(node.args) == 1         # int(x) of any number: int(nan) raises for NumPy's floats too
        math_call = _is_python_math(node, self.context.namespace) and 1 <= len(node.args) <= 2 and all(
            self.kind(a) for a in node.args)
        self.generic_visit(node)
        if math_call:                          # math.sqrt(-1.0): Python raises, Numba gives nan
            return self.helper(f"py_math{len(node.args)}", [node] + [copy.deepcopy(a) for a in node.args], node)
        func = node.func
        if (python and isinstance(func, gast.Name) and func.id == "int" and not node.keywords
                and self.context.namespace.get("int", builtins.int) is builtins.int):
            return self.helper("py_int", node.args, node)
        return node
