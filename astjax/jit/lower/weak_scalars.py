"""Python numbers keep JAX's weak typing when compiled.

In the reference backend a Python float meeting a float32 array gives float32
(`2.5 * x`), as in JAX; Numba would compute in float64 and return float64. A
value is weak when it is a literal, a global holding a Python number, or a
local the first call saw hold only Python numbers. Where a weak value meets a
value with a dtype (an operator, a comparison, an elementwise primitive), it
is cast to the dtype JAX would give it:

    out = scale * _t5          ->   out = np.float32(scale) * _t5
    _t1 = x > 0.1              ->   _t1 = x > np.float32(0.1)
    out = a * k                ->   out = a * weak_int(k, np.int8)     (a an int8 array, k a Python int)

An int that is not a literal is range-checked (`weak_int`, jit/narrow_integers.py): NumPy raises
OverflowError for `int8_array * 300`, where the cast alone would wrap 300 to 44 (a literal is checked by
the first call, which runs the reference).

A weak float alone in a primitive call is a float32, JAX's default (not in a call of
Python's `math` module, which computes in float64 as Python does).
Where the partner's type was not observed, `weak_like(c, partner)` decides
when Numba compiles.
"""
import copy

import gast

from ..observe import WEAK_FLOAT
from .dtypes import ARITHMETIC as _ARITHMETIC, DtypeReader, is_cast as _is_cast, static_value as _static
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["cast_weak_scalars"]


def cast_weak_scalars(node, context):
    _Caster(context, node).visit(node)


class _Caster(NodeTransformer):
    def __init__(self, context, function=None):
        self.context = context
        reader = DtypeReader(context, function)
        self.weak, self.strong_dtype = reader.weak, reader.dtype

    # -------------------------------------------------------------- where weak meets strong
    def cast(self, weak_expr, kind, partner):
        dtype = self.strong_dtype(partner)
        target = _weak_result(kind, dtype) if dtype is not None else None
        if target is not None and target.startswith(("int", "uint")) and not isinstance(weak_expr, gast.Constant):
            return _call("weak_int", weak_expr, gast.parse(f"np.{target}").body[0].value)   # range-checked
        if target is not None:
            return _call(f"np.{target}", weak_expr)
        if isinstance(partner, gast.Name):
            return _call("weak_like", weak_expr, copy.deepcopy(partner))
        # Not worth computing the partner twice for its dtype: Numba promotes (possibly to float64, more
        # precise than the reference); the result is cast to the reference's dtype at the boundary.
        return weak_expr

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
        from ...rules import lookup_callable
        target = _static(node.func, self.context.namespace)
        prim = lookup_callable(target)
        if prim is not None and prim.promotes_tuple_items:
            return self.cast_tuple_items(node)
        if prim is not None and prim.sequence_operand and _weak_float_is_float32(target):
            return self.cast_literal_items(node, prim)
        args = list(node.args)
        kinds = [self.weak(a) for a in args]
        if not any(kinds) or _is_cast(node):
            return node
        if prim is None or not prim.differentiable or _is_python_math(target) or self._reads_a_tuple(args):
            return node
        strong = [a for a, k in zip(args, kinds) if not k and isinstance(a, gast.Name)]
        bound = prim.bind(args, {k.arg: k.value for k in node.keywords}) or {}
        operands = {id(bound[name]) for name in prim.operands if name in bound}
        if not strong:        # `clip(x @ w, 0.0, 1.0)`: the weak number meets that expression's dtype
            strong = [a for a, k in zip(args, kinds) if not k and id(a) in operands and not isinstance(a, gast.Constant)
                      and self.strong_dtype(a) is not None]
        # `unreduce(bout, rows @ rows_T)`: a helper whose dtype is that of an argument other than its operands
        others = [a for a, k in zip(args, kinds) if not k and id(a) not in operands and not isinstance(a, gast.Constant)]
        # a comparison is a bool (`where(z == 0.0, 0.5, 1.0)`, maximum's derivative: float32 as in JAX, where
        # Numba's float64 made the MLP's whole adjoint float64 and its float32 matmul refuse to type)
        other_dtypes = {"bool" if isinstance(a, gast.Compare) else self.strong_dtype(a) for a in others}
        numpy_own = _numpy_own(target)
        for i, (arg, kind) in enumerate(zip(args, kinds)):
            if not kind or id(arg) not in operands:
                continue
            if strong and numpy_own and not str(self.strong_dtype(strong[0])).startswith(("float", "int", "uint")):
                continue         # NumPy's `np.where(c, 0.1, 0.2)` of a bool c: a float64 (int64), as Numba computes
            if strong:
                args[i] = self.cast(arg, kind, strong[0])
            elif kind == WEAK_FLOAT and len(other_dtypes) == 1 and str(next(iter(other_dtypes))).startswith("float"):
                args[i] = _call(f"np.{next(iter(other_dtypes))}", arg)
            elif kind == WEAK_FLOAT and any(not str(d).startswith(("float", "int", "uint", "bool")) for d in other_dtypes):
                continue         # its dtype is not known here: Numba's float64, cast to the reference's at the boundary
            elif kind == WEAK_FLOAT and not _numpy_own(target):
                args[i] = _call("np.float32", arg)
        node.args = args
        return node

    def _reads_a_tuple(self, args):
        """A call on a tuple (`index_adjoint(carry, 0, b)`: a tuple's adjoint) has no dtype for a weak number
        to take: it keeps the Python number, as the reference backend does, and the lowering types it. A
        while loop's state `(0, 1.0)` that later holds `(1, np.float64)` is a tuple of two observed types."""
        for arg in args:
            kinds = self.context.types_of(arg.id) - {("none",)} if isinstance(arg, gast.Name) else set()
            if kinds and all(kind[0] == "tuple" for kind in kinds):
                return True
        return False

    def cast_tuple_items(self, node):
        """`inexact_zero((x, loc, 1.5))`: the weak numbers in the tuple take the dtype they would beside its
        first value with a dtype (float32 when none has one), as in the operators' promotion."""
        if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], gast.Tuple):
            return node
        items = node.args[0].elts
        kinds = [self.weak(item) for item in items]
        strong = [item for item, kind in zip(items, kinds) if not kind and isinstance(item, gast.Name)]
        for i, (item, kind) in enumerate(zip(items, kinds)):
            if kind and strong:
                items[i] = self.cast(item, kind, strong[0])
            elif kind == WEAK_FLOAT:
                items[i] = _call("np.float32", item)
        return node


    def cast_literal_items(self, node, prim):
        """`jnp.array([0.1, 0.2])`: Python floats in the literal (nested tuples included) are weak, as in
        JAX: float32 when no item has a dtype, else the dtype they take beside the first item that has
        one. Without the cast Numba stacks them in float64, and the compiled code computes with values
        the reference rounded to float32 (a difference the first call's check may not see)."""
        bound = prim.bind(list(node.args), {k.arg: k.value for k in node.keywords}) or {}
        literal = bound.get(prim.sequence_operand)
        dtype = bound.get("dtype")
        if not isinstance(literal, (gast.Tuple, gast.List)) or not (dtype is None or _is_none(dtype)):
            return node
        items = _tuple_leaves(literal)
        kinds = [self.weak(item) for item in items]
        strong = [item for item, kind in zip(items, kinds) if not kind]
        dtypes = [self.strong_dtype(item) for item in strong]
        if any(d is None for d in dtypes):
            return node                       # an item of unknown dtype: Numba promotes as before
        for item, kind in zip(items, kinds):
            if kind != WEAK_FLOAT:
                continue
            target = _weak_result(kind, dtypes[0]) if dtypes else "float32"
            if target is not None:
                _replace(literal, item, _call(f"np.{target}", copy.deepcopy(item)))
        return node


def _weak_float_is_float32(target):
    """Whether `target` (jnp.array, jnp.asarray) makes a list of Python floats float32, as JAX does
    (np.array makes float64: nothing to cast)."""
    try:
        import numpy as np
        return np.asarray(target([0.5])).dtype == np.float32
    except Exception:  # noqa: BLE001 -- not a function of a list: not this case
        return False


def _is_none(expr):
    return isinstance(expr, gast.Constant) and expr.value is None


def _tuple_leaves(node):
    if isinstance(node, (gast.Tuple, gast.List)):
        return [leaf for elt in node.elts for leaf in _tuple_leaves(elt)]
    return [node]


def _replace(tree, old, new):
    for parent in walk(tree):
        if isinstance(parent, (gast.Tuple, gast.List)):
            parent.elts = [new if elt is old else elt for elt in parent.elts]


def _numpy_own(target):
    """NumPy's own function (`np.where(c, 0.1, 0.2)`): a Python float there is a float64, as NumPy makes it (the
    float32 cast, JAX's weak float, gave 0.1 rounded to float32 in a float64 result: within the first call's
    relative 1e-7, so silently)."""
    import numpy as np
    return isinstance(target, np.ufunc) or (getattr(target, "__module__", None) or "").split(".")[0] == "numpy"


def _is_python_math(target):
    """`math.sqrt` and its kin compute a Python float in float64 (and raise where NumPy gives nan):
    jit/lower/python_numbers.py keeps that meaning, so a Python float argument is not cast to float32."""
    return getattr(target, "__module__", None) == "math"


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






def _call(name, *args):
    func = gast.parse(name).body[0].value
    return gast.Call(func=func, args=list(args), keywords=[])
