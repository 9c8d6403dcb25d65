"""Give placeholder values the type their variable holds later.

Generated code declares saved variables as `v = None` and starts adjoints at
`bv = 0.0` (products at `y = 1.0`); Python does not mind that the name later
holds an array, Numba does (a variable has one type). Where the first call
observed that `v` holds exactly one type with a dtype, the constant becomes a
value of that type:

    window = None      ->   window = np.zeros((0, 0), np.float32)
    bkernel = 0.0      ->   bkernel = np.zeros((1, 1), np.float32)
    y = 1.0            ->   y = np.float32(1.0)
    i_plus_1 = None    ->   i_plus_1 = 0          (a saved Python int: Numba's int64)

A zero adjoint or tangent standing for an array has shape (1, ..., 1): it
broadcasts against whatever it meets exactly as the scalar did, and the
transformation's wrapper gives the result its argument's shape. A user's
variable that starts as a number and becomes an array is lowered only as a loop
carry updated elementwise (lower/number_carries.py, which guards the loop that
runs zero times); elsewhere it is refused: the (1, ..., 1) stand-in would change
the shape of a result that returns it unchanged. A `None` placeholder is
only ever pushed on the tape and popped back unread, so its value is free. Only the reverse driver's own
declarations are such placeholders (transforms/reverse/driver.py marks them, derivation.py records them
on the generated function, inline_callees carries them through a callee's renaming): a user's `w = None`
stays None, Numba's optional type, so a path that reads it as a number raises TypeError as Python does
instead of computing with a stand-in.
"""
import re

import gast

from ..observe import WEAK_FLOAT, WEAK_INT
from .number_carries import carry_from_number
from .weak_kinds import WEAK_KINDS
from ...codegen.node_walk import walk

__all__ = ["type_placeholders", "placeholder"]

_RETURNED_VALUE = re.compile(r"_ret\d*")


def type_placeholders(node, context):
    carries = []
    none_tested = _names_tested_for_none(node)
    tape_placeholders = getattr(context, "tape_placeholders", frozenset())
    unobserved = _UnobservedTypes(node, context)      # read before any placeholder below is replaced
    for stmt in walk(node):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Constant)):
            continue
        value = stmt.value.value
        if not (value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))):
            continue
        name = stmt.targets[0].id
        if value is None and (name in none_tested or name not in tape_placeholders):
            continue       # a user's None (or one `if w is None:` reads) stays None: Numba's optional type
        target = context.lowered_type(name)
        if target is None and value is None and not context.types_of(name) - {("none",)}:
            target = unobserved.of_name(name)     # set only on a branch the first call did not take
        derivatives = getattr(context.generated, "__astjax_derivative_names__", frozenset())
        if target is None and name in derivatives:
            target = _array_of_zero_rank_too(context.types_of(name))
        if target == ("object", "TreeAdjoint") and name in derivatives and value == 0:
            zeros = _tuple_adjoint_zero(context.lowered_type(name[1:]))
            if zeros is None and "zero_like" in context.namespace and _set_once_before(node, stmt, name[1:]):
                zeros = gast.Call(func=gast.Name(id="zero_like", ctx=gast.Load(), annotation=None, type_comment=None),
                                  args=[gast.Name(id=name[1:], ctx=gast.Load(), annotation=None, type_comment=None)],
                                  keywords=[])           # a list (a tuple in compiled code): its zeros
            if zeros is not None:               # the zero adjoint of a tuple: one zero per item
                stmt.value = zeros
            continue
        if value is None and target in WEAK_KINDS:     # a saved loop counter (`i_plus_1 = None`): its number's type
            stmt.value = gast.Constant(value=0 if target == WEAK_INT else 0.0, kind=None)
            continue
        if target is None or target in WEAK_KINDS:
            continue
        if value is not None and target[0] == "array" and name not in derivatives:
            if _RETURNED_VALUE.fullmatch(name):      # frontend/normalize/control_flow.py's single return
                raise context.error(
                    f"this function returns the number {value!r} here and an array on another path; compiled code "
                    f"gives a result one type, and an array standing for the number would change the result's shape",
                    stmt, "return an array here too (for example `jnp.ones_like(x)` or `jnp.full(shape, "
                    f"{value!r})`), or run without jit")
            carries.append((stmt, name, value, target))
            continue
        replacement = placeholder(target, 0 if value is None else 1, value or 0)
        if replacement is not None:
            stmt.value = replacement
    for stmt, name, value, target in carries:      # a loop carry that becomes an array (lower/number_carries.py)
        if not carry_from_number(node, stmt, name, value, target, context):
            raise context.error(
                f"`{name}` starts as the number {value!r} and later holds an array; compiled code gives a variable "
                f"one type, and an array standing for the number would change the result's shape where the "
                f"number is returned as it is (jit lowers only a carry that one top-level loop updates elementwise "
                f"in its body, `{name} = {name} + row`, not inside an `if`)", stmt,
                f"start `{name}` as an array (for example `jnp.ones_like(x)` or `jnp.zeros(shape)`), or run without jit")


class _UnobservedTypes:
    """The type of a tape placeholder the first call never saw set (`_t1 = x[i]` in an `else` it did not take),
    read from the one expression the function assigns it: an item of an observed array at integer
    positions, and elementwise arithmetic or calls of one dtype on such values. None where that is not
    plain. The placeholder's value is never read, so a wrong guess can only make Numba's typing fail (a
    refusal), never change a number; the first call's check still compares every result."""

    def __init__(self, function, context):
        self.context, self.reading = context, set()
        self.values = {}
        for n in walk(function):
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) \
                    and not (isinstance(n.value, gast.Constant) and n.value.value is None) \
                    and not _is_pop(n.value):
                self.values.setdefault(n.targets[0].id, []).append(n.value)
            elif isinstance(n, (gast.AugAssign, gast.For, gast.AnnAssign, gast.NamedExpr)) or \
                    (isinstance(n, gast.Assign) and not all(isinstance(t, gast.Name) for t in n.targets)):
                for t in walk(n.target if hasattr(n, "target") else gast.Tuple(elts=n.targets, ctx=gast.Store())):
                    if isinstance(t, gast.Name):
                        self.values.setdefault(t.id, []).append(None)     # not one plain expression

    def of_name(self, name):
        observed = self.context.lowered_type(name)
        if observed is not None:
            return observed if observed[0] in ("array", "scalar") or observed in WEAK_KINDS else None
        values = self.values.get(name, [])
        if len(values) != 1 or values[0] is None or name in self.reading:
            return None
        self.reading.add(name)
        try:
            return self.of(values[0])
        finally:
            self.reading.discard(name)

    def of(self, expr):
        if isinstance(expr, gast.Constant):
            return WEAK_FLOAT if type(expr.value) is float else WEAK_INT if type(expr.value) is int else None
        if isinstance(expr, gast.Name):
            return self.of_name(expr.id)
        if isinstance(expr, gast.Subscript):
            base = self.of(expr.value)
            positions = expr.slice.elts if isinstance(expr.slice, gast.Tuple) else [expr.slice]
            if base is None or base[0] != "array" or len(positions) > base[2] or \
                    any(self._index_kind(p) is None for p in positions):
                return None
            rank = base[2] - len(positions)
            return ("array", base[1], rank) if rank else ("scalar", base[1])
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            return self.of(expr.operand)
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub, gast.Mult, gast.Pow)):
            return self._elementwise([expr.left, expr.right], floating=False)
        if isinstance(expr, gast.Call) and not expr.keywords:
            from ...rules import lookup_callable
            from .dtypes import FLOATING, static_value
            prim = lookup_callable(static_value(expr.func, self.context.namespace))
            if prim is not None and prim.elementwise and prim.name not in ("where",):
                return self._elementwise(expr.args, floating=prim.name in FLOATING)
        return None

    def _index_kind(self, position):
        kind = self.of(position)
        if kind == WEAK_INT or (kind is not None and kind[0] == "scalar" and kind[1].startswith(("int", "uint"))):
            return kind
        return None

    def _elementwise(self, operands, floating):
        kinds = [self.of(o) for o in operands]
        if any(k is None for k in kinds):
            return None
        strong = [k for k in kinds if k not in WEAK_KINDS]
        dtypes = {k[1] for k in strong}
        if len(dtypes) != 1:
            return None
        dtype = dtypes.pop()
        if floating and not dtype.startswith("float"):
            return None
        rank = max(k[2] if k[0] == "array" else 0 for k in strong)
        return ("array", dtype, rank) if rank else ("scalar", dtype)


def _is_pop(value):
    """`pop(_tape)`: the reverse sweep restoring a saved value (of the type the forward sweep gave it)."""
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id == "pop" \
        and len(value.args) == 1 and not value.keywords


def _names_tested_for_none(node):
    """Names the function compares with None (`w is None`, `best is not None`, `k == None`), tests for
    truth (`if w:`, `not w`, `w or x`), asks the type of, or returns as they are: a user's own `w = None`
    read as None, never a placeholder's free value (its None must stay None)."""
    tested = set()

    def names(expr):
        return {expr.id} if isinstance(expr, gast.Name) else set()

    for n in walk(node):
        if isinstance(n, gast.Compare):
            operands = [n.left] + list(n.comparators)
            if any(isinstance(o, gast.Constant) and o.value is None for o in operands):
                for o in operands:
                    tested |= names(o)
        elif isinstance(n, (gast.If, gast.While, gast.IfExp, gast.Assert)):
            tested |= names(n.test)
        elif isinstance(n, gast.BoolOp):
            for v in n.values:
                tested |= names(v)
        elif isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not):
            tested |= names(n.operand)
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in ("isinstance", "type", "bool"):
            for a in n.args[:1]:
                tested |= names(a)
        elif isinstance(n, gast.Return) and n.value is not None:       # `return w`, `return total, w`
            for v in (n.value.elts if isinstance(n.value, (gast.Tuple, gast.List)) else [n.value]):
                tested |= names(v)
    return tested


def _array_of_zero_rank_too(types):
    """The array type of an adjoint seen as an array and as a scalar of its dtype: the scalar is the zero
    a loop's last reverse step makes from the saved shape `()` of a `None` placeholder (compiled code
    gives that placeholder the array's type, so its zero is an array too). None otherwise."""
    strong = {t for t in types if t not in WEAK_KINDS}
    arrays = [t for t in strong if t[0] == "array"]
    if len(arrays) != 1 or strong - {arrays[0], ("scalar", arrays[0][1])}:
        return None
    return arrays[0]


def _tuple_adjoint_zero(primal_type):
    """The zero adjoint `bv = 0.0` of a variable `v` holding a tuple, as compiled code holds a tuple's adjoint
    (runtime/numba_list_adjoints.py): a tuple with each item's zero in its float dtype, arrays of shape
    (1, ..., 1) (they broadcast as the 0.0 did). None when v is not seen to hold one tuple type."""
    if primal_type is None or primal_type[0] != "tuple":
        return None
    items = []
    for item in primal_type[1]:
        if item[0] == "tuple":
            items.append(_tuple_adjoint_zero(item))
        elif item[0] == "array":
            items.append(placeholder(("array", _float_name(item[1]), item[2]), 1))
        elif item[0] == "scalar":
            items.append(placeholder(("scalar", _float_name(item[1])), 1))
        elif item in (WEAK_FLOAT, WEAK_INT):
            items.append(placeholder(("scalar", "float64"), 1))
        else:
            return None
        if items[-1] is None:
            return None
    return gast.Tuple(elts=items, ctx=gast.Load())


def _set_once_before(function, stmt, variable):
    """Whether `variable` holds one value wherever the top-level statement `stmt` runs: a parameter never
    assigned, or a variable assigned once, by a top-level statement before `stmt`."""
    if not any(s is stmt for s in function.body):
        return False
    stores = [n for n in walk(function) if isinstance(n, gast.Name) and n.id == variable
              and isinstance(n.ctx, (gast.Store, gast.Del))]
    if any(a.id == variable for a in function.args.args):
        return not stores
    if len(stores) != 1:
        return False
    for top in function.body:
        if top is stmt:
            return False
        if isinstance(top, gast.Assign) and len(top.targets) == 1 and top.targets[0] is stores[0]:
            return True
    return False


def _float_name(dtype):
    import numpy as np
    return np.result_type(np.dtype(dtype), np.float32).name


def placeholder(abstract_type, length, value=0):
    """An expression of `abstract_type` holding `value`, arrays with every dimension `length` long
    (0: an empty placeholder; 1: a value that broadcasts like the scalar it stands for); None if impossible."""
    kind = abstract_type[0]
    if kind == "array":
        dtype, ndim = abstract_type[1], abstract_type[2]
        shape = ", ".join([str(length)] * ndim) + ("," if ndim == 1 else "")
        if value == 0:
            return gast.parse(f"np.zeros(({shape}), np.{dtype})").body[0].value
        return gast.parse(f"np.full(({shape}), {value!r}, np.{dtype})").body[0].value
    if kind == "scalar":
        return gast.parse(f"np.{abstract_type[1]}({value!r})").body[0].value
    if abstract_type == WEAK_FLOAT:
        return gast.Constant(value=0.0, kind=None)
    if abstract_type == WEAK_INT:
        return gast.Constant(value=0, kind=None)
    if kind == "tuple":
        items = [placeholder(item, length) for item in abstract_type[1]]
        if any(item is None for item in items):
            return None
        return gast.Tuple(elts=items, ctx=gast.Load())
    return None
