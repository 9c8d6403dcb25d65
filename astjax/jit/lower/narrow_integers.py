"""Operations on integers narrower than 64 bits wrap as in NumPy and JAX.

Numba computes `int8`, `int16`, `int32` (and unsigned) scalars in int64, and fuses an expression on
such arrays into one loop that does the same (jit/narrow_integers.py). Where the first call observed
that an operator's result has a narrow integer dtype, the operator is wrapped so that compiled code
keeps that dtype between operations:

    out = (a * b + np.int32(3)) // np.int32(2)
 -> out = wrap_narrow(wrap_narrow(a * b + np.int32(3), np.int32) // np.int32(2), np.int32)

Boolean arrays too: NumPy's `a + b` of two bool arrays is `a or b` and `a * b` is `a and b`, where
Numba's array expressions add them as ints (`(a + b) * 3` gave 6 for True, True); such a sum or product
is wrapped to bool. `+ - *` of two boolean scalars the function computed is refused: the first call's
types do not tell a Python bool (`True + True` is 2) from NumPy's (True).

`+ - * & | ^ <<` and unary `-`, `~` give the same bits whether their operands were wrapped or not (they
are exact modulo 2 ** bits), so a chain of them is wrapped once, where its value meets anything else
(`//`, `%`, `>>`, `**`, a comparison, a call): on arrays it stays one fused loop.

and `acc += e` on a narrow integer becomes `acc = wrap_narrow(acc + e, np.int32)`. `/` of integer (or
boolean) operands becomes `integer_true_divide(a, b, np.float64)`, which divides arrays in that dtype:
NumPy's float64 (Numba's `/` of two int16 arrays is float32), or the float32 the first call saw the
assigned name hold (astjax arrays of int32 divide as JAX's), and `a // b` of int64 operands becomes
`jnp.floor_divide(a, b)` (of arrays; `int64_floor_divide(a, b)` of scalars), whose lowering gives NumPy's wrapped `iinfo(int64).min // -1` (LLVM's division
there is undefined: Numba gave 0). Comparisons and operations on Python numbers are left alone.
"""
import gast

from ..observe import WEAK_FLOAT
from .dtypes import DtypeReader
from ...codegen.node_walk import NodeTransformer, walk

__all__ = ["wrap_narrow_integers", "NARROW_INTEGERS"]

NARROW_INTEGERS = ("int8", "int16", "int32", "uint8", "uint16", "uint32")

_WRAPPED = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod, gast.Pow, gast.LShift, gast.RShift,
            gast.BitAnd, gast.BitOr, gast.BitXor)
# Exact modulo 2 ** bits: wrapping their operands first changes no bit of their result.
_RING = (gast.Add, gast.Sub, gast.Mult, gast.LShift, gast.BitAnd, gast.BitOr, gast.BitXor, gast.USub, gast.Invert)
# On booleans (NumPy: `+` is or, `*` is and, `& | ^` are logical): the operators whose result is a bool; a
# chain of `+` and `*` on non-negative ints is nonzero exactly when the or/and chain is True.
_BOOLEAN_WRAPPED = (gast.Add, gast.Mult, gast.BitAnd, gast.BitOr, gast.BitXor)
_BOOLEAN_RING = (gast.Add, gast.Mult)
# On two boolean scalars: NumPy's meaning (or, and; `-` raises) differs from Python's (ints).
_AMBIGUOUS_ON_BOOLEANS = (gast.Add, gast.Sub, gast.Mult)


def wrap_narrow_integers(node, context):
    _NarrowIntegers(context, node).visit(node)


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


class _NarrowIntegers(NodeTransformer):
    def __init__(self, context, function):
        self.context = context
        reader = DtypeReader(context, function)
        self.dtype, self.weak = reader.dtype, reader.weak
        self.parameters = {a.id for a in function.args.args}

    def narrow(self, operands):
        """The narrow integer dtype the operation on `operands` has, or None."""
        kinds = [self.weak(o) for o in operands]
        if all(kinds):
            return None                 # Python numbers: lower/python_numbers.py keeps Python's meaning
        if WEAK_FLOAT in kinds:
            return None                 # `(x > 0) * 1.0`: a float
        dtypes = {"bool" if isinstance(o, gast.Compare) else self.dtype(o) for o in operands if not self.weak(o)}
        if len(dtypes) != 1:
            return None
        dtype = dtypes.pop()
        if dtype == "bool":             # `(x > 0) + 1` is an int; a bool scalar may be Python's (True + True is 2)
            return None if any(kinds) or not any(self.array(o) for o in operands) else dtype
        return dtype if dtype in NARROW_INTEGERS else None

    def array(self, expr):
        """Whether the first call saw `expr` hold an array (of one or more dimensions)."""
        if isinstance(expr, gast.Name):
            types = self.context.types_of(expr.id)
            return bool(types) and all(t[0] == "array" for t in types)
        if isinstance(expr, gast.Compare):
            return any(self.array(o) for o in [expr.left, *expr.comparators])
        if isinstance(expr, gast.BinOp):
            return self.array(expr.left) or self.array(expr.right)
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == "wrap_narrow":
            return self.array(expr.args[0])
        return False

    def wrap(self, expr, dtype, like):
        cast = gast.Attribute(value=_load("np"), attr="bool_" if dtype == "bool" else dtype, ctx=gast.Load())
        call = gast.copy_location(gast.Call(func=_load("wrap_narrow"), args=[expr, cast], keywords=[]), like)
        call.ring_dtype = dtype if isinstance(getattr(expr, "op", None), self.ring(dtype)) else None
        return call

    @staticmethod
    def ring(dtype):
        return _BOOLEAN_RING if dtype == "bool" else _RING

    def unwrapped(self, operand, dtype):
        """`operand` without the wrap of a ring operation of `dtype` (the ring operation reading it wraps)."""
        return operand.args[0] if getattr(operand, "ring_dtype", None) == dtype else operand

    def refuse_boolean_scalars(self, operands, op, node):
        """`+`, `-`, `*` of two boolean scalars computed in the function (`(x[0] > 0) + (x[1] > 0)`): NumPy's
        bools give `or` and `and` (`np.True_ + np.True_` is True), Python's give ints (2), and the first call's
        types do not tell them apart, so compiled code could take the other meaning on a later call. (A bool
        argument is unambiguous: a Python bool and a NumPy bool are different signatures.)"""
        if not isinstance(op, _AMBIGUOUS_ON_BOOLEANS) or any(self.weak(o) for o in operands):
            return
        if all(isinstance(o, gast.Name) and o.id in self.parameters for o in operands):
            return
        if all(("bool" if isinstance(o, gast.Compare) else self.dtype(o)) == "bool" and not self.array(o)
               for o in operands):
            symbol = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*"}[type(op)]
            raise self.context.error(
                f"jit cannot tell whether the booleans meeting at `{symbol}` here are NumPy's (`+` is or, `*` is "
                "and) or Python's (`True + True` is 2): the first call's types look the same", node,
                "write what you mean: `a | b` or `a & b` for NumPy's meaning, `int(a) + int(b)` for a count")

    def integer_division(self, node):
        """Whether `a / b` may divide integer or boolean arrays: an operand is known to be an integer or a
        boolean and none is known to be a float (integer_true_divide reads the operand types again when
        Numba compiles it; two scalars divide as before)."""
        if not isinstance(node.op, gast.Div) or WEAK_FLOAT in (self.weak(node.left), self.weak(node.right)):
            return False
        dtypes = {"bool" if isinstance(o, gast.Compare) else self.dtype(o) for o in (node.left, node.right)
                  if not self.weak(o)}
        integral = {d for d in dtypes if d is not None and d.startswith(("int", "uint", "bool"))}
        return bool(integral) and integral == dtypes - {None}

    def int64_floor_division(self, node):
        """Whether `a // b` divides in int64 (Numba's `//` gives 0 for iinfo(int64).min // -1): an operand is
        int64 and the other a signed integer or a Python int (with uint64 NumPy divides in float64)."""
        if not isinstance(node.op, gast.FloorDiv) or all(self.weak(o) for o in (node.left, node.right)):
            return False
        dtypes = {self.dtype(o) for o in (node.left, node.right) if not self.weak(o)} - {None}
        return "int64" in dtypes and dtypes <= {"int8", "int16", "int32", "int64"}

    def visit_BinOp(self, node):
        if self.int64_floor_division(node):
            self.generic_visit(node)
            if any(self.array(o) for o in (node.left, node.right)):
                function = gast.Attribute(value=_load("jnp"), attr="floor_divide", ctx=gast.Load())
            else:
                function = _load("int64_floor_divide")
            return gast.copy_location(gast.Call(func=function, args=[node.left, node.right], keywords=[]), node)
        if self.integer_division(node):
            self.generic_visit(node)
            dtype = getattr(node, "observed_float", None) or "float64"
            cast = gast.Attribute(value=_load("np"), attr=dtype, ctx=gast.Load())
            call = gast.Call(func=_load("integer_true_divide"), args=[node.left, node.right, cast], keywords=[])
            return gast.copy_location(call, node)
        self.refuse_boolean_scalars([node.left, node.right], node.op, node)
        dtype = self.narrow([node.left, node.right]) if isinstance(node.op, _WRAPPED) else None
        if dtype == "bool" and not isinstance(node.op, _BOOLEAN_WRAPPED):
            dtype = None                # `//`, `%`, `**` of booleans are NumPy int8: Numba's int is right
        self.generic_visit(node)
        if dtype and isinstance(node.op, self.ring(dtype)):
            node.left, node.right = self.unwrapped(node.left, dtype), self.unwrapped(node.right, dtype)
        return self.wrap(node, dtype, node) if dtype else node

    def visit_Assign(self, node):
        """`out = ... a / b ...`: the float dtype the first call saw `out` hold is the one a division in its
        value gives (float32 where the operands were astjax arrays of int32, JAX's rule, so `s = s + i / n`
        keeps s float32; float64 for NumPy's, which nothing narrows again)."""
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            kind = self.context.lowered_type(node.targets[0].id)
            if kind is not None and kind[0] in ("array", "scalar") and kind[1] in ("float32", "float64"):
                for n in walk(node.value):
                    if isinstance(n, gast.BinOp) and isinstance(n.op, gast.Div):
                        n.observed_float = kind[1]
        self.generic_visit(node)
        return node

    def visit_UnaryOp(self, node):
        dtype = self.narrow([node.operand]) if isinstance(node.op, (gast.USub, gast.Invert)) else None
        dtype = None if dtype == "bool" else dtype          # `-` raises for booleans; `~` is not
        self.generic_visit(node)
        if dtype:
            node.operand = self.unwrapped(node.operand, dtype)
        return self.wrap(node, dtype, node) if dtype else node

    def visit_Call(self, node):
        is_power = isinstance(node.func, gast.Name) and node.func.id == "np_int_pow" and len(node.args) == 2
        dtype = self.narrow(node.args) if is_power else None
        dtype = None if dtype == "bool" else dtype
        self.generic_visit(node)
        return self.wrap(node, dtype, node) if dtype else node

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name):
            self.refuse_boolean_scalars([node.target, node.value], node.op, node)
        dtype = (self.narrow([node.target, node.value])
                 if isinstance(node.target, gast.Name) and isinstance(node.op, _WRAPPED) else None)
        if dtype == "bool" and not isinstance(node.op, _BOOLEAN_WRAPPED):
            dtype = None
        self.generic_visit(node)
        if not dtype:
            return node
        value = self.wrap(gast.BinOp(left=_load(node.target.id), op=node.op, right=node.value), dtype, node)
        return gast.copy_location(gast.Assign(targets=[node.target], value=value, type_comment=None), node)
