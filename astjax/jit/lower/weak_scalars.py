"""Python numbers keep JAX's weak typing when compiled.

In the reference backend a Python float meeting a float32 array gives float32
(`2.5 * x`), as in JAX; Numba would compute in float64 and return float64. A
value is weak when it is a literal, a global holding a Python number, or a
local the first call saw hold only Python numbers. Where a weak value meets a
value with a dtype (an operator, a comparison, an elementwise primitive), it
is cast to the dtype JAX would give it:

    out = scale * _t5          ->   out = np.float32(scale) * _t5
    _t1 = x > 0.1              ->   _t1 = x > np.float32(0.1)

A weak float alone in a primitive call is a float32, JAX's default.
Where the partner's type was not observed, `weak_like(c, partner)` decides
when Numba compiles.
"""
import copy
import numbers

import gast

from ..observe import WEAK_FLOAT, WEAK_INT

__all__ = ["cast_weak_scalars"]

# Elementwise primitives with boolean results, and those whose integer operands give float32.
_BOOLEAN = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
            "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite"}
_FLOATING = {"divide", "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sqrt", "log1p", "expm1", "log2",
             "log10", "arcsin", "arccos", "arctan", "arctan2"}
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.Mod, gast.FloorDiv)


def cast_weak_scalars(node, context):
    _Caster(context).visit(node)


class _Caster(gast.NodeTransformer):
    def __init__(self, context):
        self.context = context

    # -------------------------------------------------------------- what is weak
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
            import builtins
            if self.context.namespace.get(expr.func.id, getattr(builtins, expr.func.id)) is getattr(builtins, expr.func.id):
                return WEAK_INT             # a length, or int() of a number: a Python int
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ARITHMETIC):
            left, right = self.weak(expr.left), self.weak(expr.right)
            if left and right:
                return WEAK_FLOAT if WEAK_FLOAT in (left, right) or isinstance(expr.op, gast.Div) else WEAK_INT
        return None

    def strong_dtype(self, expr):
        """The dtype name of a strongly typed operand, from the types the first call saw; None when unknown."""
        if isinstance(expr, gast.Name):
            kinds = {t[1] for t in self.context.types_of(expr.id) if t[0] in ("array", "scalar")}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(expr, gast.UnaryOp):
            return self.strong_dtype(expr.operand)
        if isinstance(expr, gast.Subscript):
            return self.strong_dtype(expr.value)
        if isinstance(expr, gast.Call) and _is_cast(expr) and isinstance(expr.func, gast.Attribute):
            return expr.func.attr
        operands = []
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ARITHMETIC):
            operands = [expr.left, expr.right]
        elif isinstance(expr, gast.Call):
            from ...rules import lookup_callable
            prim = lookup_callable(_static(expr.func, self.context.namespace))
            if prim is None or not prim.elementwise or prim.name in _BOOLEAN:
                return None
            operands = list(expr.args[1:]) if prim.name == "where" else list(expr.args)
            if prim.name in _FLOATING:
                dtypes = {self.strong_dtype(o) for o in operands if not self.weak(o)}
                dtype = dtypes.pop() if len(dtypes) == 1 else None
                return dtype if dtype is None or dtype.startswith("float") else "float32"
        dtypes = {self.strong_dtype(o) for o in operands if not self.weak(o)}
        return dtypes.pop() if len(dtypes) == 1 else None

    # -------------------------------------------------------------- where weak meets strong
    def cast(self, weak_expr, kind, partner):
        dtype = self.strong_dtype(partner)
        target = _weak_result(kind, dtype) if dtype is not None else None
        if target is None:
            return _call("weak_like", weak_expr, copy.deepcopy(partner))
        return _call(f"np.{target}", weak_expr)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, _ARITHMETIC):
            return node
        left, right = self.weak(node.left), self.weak(node.right)
        if left and not right:
            node.left = self.cast(node.left, left, node.right)
        elif right and not left:
            node.right = self.cast(node.right, right, node.left)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        operands = [node.left] + list(node.comparators)
        kinds = [self.weak(o) for o in operands]
        strong = [o for o, k in zip(operands, kinds) if not k]
        if not strong or all(kinds[i] is None for i in range(len(kinds))):
            return node
        partner = strong[0]
        cast = [self.cast(o, k, partner) if k else o for o, k in zip(operands, kinds)]
        node.left, node.comparators = cast[0], cast[1:]
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        args = list(node.args)
        kinds = [self.weak(a) for a in args]
        if not any(kinds) or _is_cast(node):
            return node
        from ...rules import lookup_callable
        prim = lookup_callable(_static(node.func, self.context.namespace))
        if prim is None or not prim.differentiable:
            return node
        strong = [a for a, k in zip(args, kinds) if not k and isinstance(a, gast.Name)]
        bound = prim.bind(args, {k.arg: k.value for k in node.keywords}) or {}
        operands = {id(bound[name]) for name in prim.operands if name in bound}
        for i, (arg, kind) in enumerate(zip(args, kinds)):
            if not kind or id(arg) not in operands:
                continue
            if strong:
                args[i] = self.cast(arg, kind, strong[0])
            elif kind == WEAK_FLOAT:
                args[i] = _call("np.float32", arg)
        node.args = args
        return node


def _weak_result(kind, dtype):
    """The dtype a weak Python number takes beside a value of `dtype` (JAX's promotion lattice)."""
    if dtype.startswith("float"):
        return dtype
    if dtype.startswith("complex"):
        return None
    if kind == WEAK_FLOAT:
        return "float32"
    if dtype.startswith(("int", "uint")):
        return dtype
    return "int32" if dtype == "bool" else None


def _is_cast(call):
    return isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name) and call.func.value.id == "np"


def _static(func, namespace):
    if isinstance(func, gast.Name):
        import builtins
        return namespace.get(func.id, getattr(builtins, func.id, None))
    if isinstance(func, gast.Attribute):
        base = _static(func.value, namespace)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _call(name, *args):
    func = gast.parse(name).body[0].value
    return gast.Call(func=func, args=list(args), keywords=[])
