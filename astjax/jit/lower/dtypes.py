"""What the lowering passes know of an expression's type: weakly typed Python number, or its dtype.

Names read the types the first call observed; a name the first call never assigned (a branch it did
not take: `if approximate:` in gelu's adjoint) and that the function assigns exactly once reads the
dtype of the expression it is assigned, so weak numbers in an untaken branch take the dtype they
will meet there too. Expressions follow JAX's rules
for the primitives whose result dtype is their operands' (elementwise
arithmetic, reductions, products, reshapes), int -> float32 for the
transcendental functions, bool for comparisons.
"""
import builtins
import numbers

import gast

from ..observe import WEAK_FLOAT, WEAK_INT
from ...codegen.node_walk import walk

__all__ = ["DtypeReader", "is_cast", "static_value", "ARITHMETIC"]

ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.Mod, gast.FloorDiv)
BOOLEAN = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite"}
FLOATING = {"divide", "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sqrt", "log1p", "expm1", "log2",
            "log10", "arcsin", "arccos", "arctan", "arctan2"}
# Primitives whose result has the dtype of the operand at this position (or all listed positions).
DTYPE_OF_ARGUMENT = {"unreduce": (1,), "unbroadcast": (1,), "unbroadcast_to": (0,), "sum": (0,), "mean": (0,),
                     "max": (0,), "min": (0,), "prod": (0,), "transpose": (0,), "reshape": (0,), "ravel": (0,),
                     "squeeze": (0,), "expand_dims": (0,), "dot": (0, 1), "matmul": (0, 1), "outer": (0, 1),
                     "inner": (0, 1), "getitem": (0,), "dynamic_slice": (0,), "pad": (0,), "zeros_like": (0,),
                     "ones_like": (0,), "index_adjoint": (2,)}


class DtypeReader:
    def __init__(self, context, function=None):
        self.context = context
        self.function = function          # the function node being lowered: unobserved names read their definition
        self._definitions = None
        self._reading = set()

    def _definition(self, name):
        """The one value assigned to `name` in the function (a plain `name = value`), or None."""
        if self.function is None:
            return None
        if self._definitions is None:
            stores, values = {}, {}
            for n in walk(self.function):
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                    stores[n.id] = stores.get(n.id, 0) + 1
                if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                    values[n.targets[0].id] = n.value
            for a in self.function.args.args:
                if isinstance(a, gast.Name):
                    stores[a.id] = stores.get(a.id, 0) + 1
            self._definitions = {k: v for k, v in values.items() if stores.get(k) == 1}
        return self._definitions.get(name)

    def weak(self, expr):
        """WEAK_FLOAT / WEAK_INT when `expr` is a Python number, else None."""
        if isinstance(expr, gast.Constant):
            if isinstance(expr.value, bool) or not isinstance(expr.value, (int, float)):
                return None
            return WEAK_FLOAT if isinstance(expr.value, float) else WEAK_INT
        if isinstance(expr, gast.Name):
            types = self.context.types_of(expr.id)
            if types:
                if types <= {WEAK_FLOAT, WEAK_INT}:
                    return WEAK_FLOAT if WEAK_FLOAT in types else WEAK_INT
                return None
            value = self.context.namespace.get(expr.id)
            if isinstance(value, numbers.Number) and not isinstance(value, bool) and isinstance(value, (int, float)):
                return WEAK_FLOAT if isinstance(value, float) else WEAK_INT
            return None
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            return self.weak(expr.operand)
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id in ("len", "int"):
            if self.context.namespace.get(expr.func.id, getattr(builtins, expr.func.id)) is getattr(builtins, expr.func.id):
                return WEAK_INT             # a length, or int() of a number: a Python int
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, ARITHMETIC):
            left, right = self.weak(expr.left), self.weak(expr.right)
            if left and right:
                return WEAK_FLOAT if WEAK_FLOAT in (left, right) or isinstance(expr.op, gast.Div) else WEAK_INT
        return None

    def dtype(self, expr):
        """The dtype name of a strongly typed expression, or None when unknown."""
        if isinstance(expr, gast.Name):
            types = self.context.types_of(expr.id)
            if not types and expr.id not in self._reading:
                value = self._definition(expr.id)
                if value is not None and not self.weak(value):
                    self._reading.add(expr.id)
                    try:
                        return self.dtype(value)
                    finally:
                        self._reading.discard(expr.id)
            kinds = {t[1] for t in types if t[0] in ("array", "scalar")}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(expr, gast.UnaryOp):
            return self.dtype(expr.operand)
        if isinstance(expr, gast.Subscript):
            return self.dtype(expr.value)
        if isinstance(expr, gast.Call) and is_cast(expr) and isinstance(expr.func, gast.Attribute):
            return expr.func.attr
        operands = []
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, ARITHMETIC):
            operands = [expr.left, expr.right]
        elif isinstance(expr, gast.Call):
            from ...rules import lookup_callable
            prim = lookup_callable(static_value(expr.func, self.context.namespace))
            if prim is None or prim.name in BOOLEAN:
                return None
            if prim.name == "astype":
                return _static_dtype(expr.args[1], self.context.namespace) if len(expr.args) > 1 else None
            if prim.name in DTYPE_OF_ARGUMENT:
                positions = DTYPE_OF_ARGUMENT[prim.name]
                if any(p >= len(expr.args) for p in positions):
                    return None
                operands = [expr.args[p] for p in positions]
            elif not prim.elementwise:
                return None
            else:
                operands = list(expr.args[1:]) if prim.name == "where" else list(expr.args)
            if prim.name in FLOATING:
                dtypes = {self.dtype(o) for o in operands if not self.weak(o)}
                dtype = dtypes.pop() if len(dtypes) == 1 else None
                return dtype if dtype is None or dtype.startswith("float") else "float32"
        dtypes = {self.dtype(o) for o in operands if not self.weak(o)}
        dtype = dtypes.pop() if len(dtypes) == 1 else None
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, gast.Div) and dtype is not None \
                and not dtype.startswith(("float", "complex")):
            # `a / b` of integers (or booleans) is a float (narrow_integers.py divides in the float the first
            # call saw, else NumPy's float64): read as the operands' int16, `a / b + a * b` was wrapped whole
            return getattr(expr, "observed_float", None) or "float64"
        return dtype


def is_cast(call):
    """`np.float32(...)` and the like, which the lowering passes write."""
    func = call.func
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "np"
            and func.attr in ("float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64", "bool_"))


def _static_dtype(expr, namespace):
    """The dtype name `astype(x, jnp.int32)` names (a dtype, a scalar type or its name), or None."""
    import numpy as np
    value = expr.value if isinstance(expr, gast.Constant) else static_value(expr, namespace)
    try:
        return np.dtype(value).name if value is not None else None
    except TypeError:
        return None


def static_value(func, namespace):
    if isinstance(func, gast.Name):
        return namespace.get(func.id, getattr(builtins, func.id, None))
    if isinstance(func, gast.Attribute):
        base = static_value(func.value, namespace)
        return getattr(base, func.attr, None) if base is not None else None
    return None
