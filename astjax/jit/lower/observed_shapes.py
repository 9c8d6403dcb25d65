"""Run-time shape tests the first call saw hold: the other branch compiled only when a call needs it.

A fused loop runs where its operands have the loop's shape, else the statement as it was (NumPy's
broadcasting): `h = _fused_1(a.shape, a, b) if b.shape == a.shape else a * b`. Numba types and
compiles both branches, and the unfused one (broadcasting array expressions, a tap loop of window
copies beside a stencil kernel) was a third of the blur's and a quarter of the MLP gradient's own
compile, for a branch the benchmark never runs.

The first call observed the shape of every array and the value of every int (jit/observe.py,
`facts`). Where a test reads only names that held one such value, and it held for those values, the
test becomes a guard: the fused call's shape argument is `checked_shape(a.shape, b.shape == a.shape)`,
which raises a RankGuardError when the test fails, and jit/compiled.py then compiles the signature
again with every branch kept (`known_ranks.unpruned`, as for a pruned rank branch). A guess, never a
fact compiled in: the test still runs on every call, and a call it does not hold for runs the unfused
statement of the recompiled version. A name a pass introduced counts where the pass recorded an
observed name that always has its shape (`context.same_shape`: `_product_1 = dot(x, w)` beside
`h = tanh(_product_1)`); names the first call did not see with one value (loop counters, other
names a pass introduced) leave the branch as it was.
"""
import gast

from ...codegen.node_walk import walk
from .known_ranks import RankGuardError, compare_ranks, pruning_disabled

__all__ = ["holds_as_observed", "checked_shape_call", "guarded_shape", "guard_statement"]

_MESSAGE = "a fused loop met operand shapes other than the first call's"


def holds_as_observed(test, context):
    """Whether `test` (a shape comparison the lowering wrote) held for the values the first call saw.
    False where unknown, and always False with pruning disabled (the recompiled version keeps both)."""
    if pruning_disabled():
        return False
    values = _observed_values(context)
    if values is None:
        return False
    try:
        return _evaluate(test, values) is True
    except _Unknown:
        return False


def checked_shape_call(shape, test, context, taken):
    """`_rank_guard_shape(shape, test)` (numba_support.checked_shape): the loop's shape, after the guard."""
    from ..numba_support import checked_shape
    label = context.bind("_rank_guard_shape", checked_shape, taken)      # numba_calls leaves `_rank_guard*` be
    return gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None),
                     args=[shape, test], keywords=[])


def guarded_shape(arg, context):
    """(shape, test) of a `checked_shape(shape, test)` argument, or None."""
    from ..numba_support import checked_shape
    if (isinstance(arg, gast.Call) and isinstance(arg.func, gast.Name) and len(arg.args) == 2
            and context.bindings.get(arg.func.id) is checked_shape):
        return arg.args[0], arg.args[1]
    return None


def guard_statement(context, taken, like):
    """`raise RankGuardError(...)`, for the branch a guarded test leaves."""
    label = context.bind("_rank_guard_error", RankGuardError, taken)
    stmt = gast.parse(f"raise {label}({_MESSAGE!r})").body[0]
    for n in walk(stmt):
        if hasattr(n, "lineno"):
            gast.copy_location(n, like)
    return stmt


class _Unknown(Exception):
    pass


class _Shaped:
    def __init__(self, shape):
        self.shape = shape


def _observed_values(context):
    """{name: its one observed value} (an int, or an object with the one observed shape), or None."""
    observed = getattr(context.types, "observed", None)
    if observed is None or not hasattr(observed, "facts_for"):
        return None
    values = {}
    for name, held in observed.facts_for(context.generated.__code__).items():
        if len(held) != 1:
            continue
        fact = next(iter(held))
        if fact is None:
            continue
        values[name] = fact[1] if fact[0] == "int" else _Shaped(tuple(fact[1]))
    for name, like in getattr(context, "same_shape", {}).items():     # a pass's name holding a value of
        if name not in values and isinstance(values.get(like), _Shaped):   # the shape of one observed name
            values[name] = values[like]
    return values


def _evaluate(node, values):
    """The value of a shape test made of names, `.shape`, constant subscripts, tuples, comparisons and
    `and`/`or`/`not`; _Unknown for anything else or any name not observed with one value."""
    if isinstance(node, gast.Name):
        if node.id not in values:
            raise _Unknown
        return values[node.id]
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        base = _evaluate(node.value, values)
        if not isinstance(base, _Shaped):
            raise _Unknown
        return base.shape
    if isinstance(node, gast.Subscript):
        base, index = _evaluate(node.value, values), _evaluate(node.slice, values)
        if not isinstance(base, tuple) or type(index) is not int or not -len(base) <= index < len(base):
            raise _Unknown
        return base[index]
    if isinstance(node, gast.Tuple):
        return tuple(_evaluate(e, values) for e in node.elts)
    if isinstance(node, gast.Compare):
        left = _evaluate(node.left, values)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(right_node, values)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, gast.BoolOp):
        results = [_evaluate(v, values) for v in node.values]
        if not all(type(r) is bool for r in results):
            raise _Unknown
        return all(results) if isinstance(node.op, gast.And) else any(results)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        result = _evaluate(node.operand, values)
        if type(result) is not bool:
            raise _Unknown
        return not result
    raise _Unknown


def _compare(op, left, right):
    """A comparison of observed ints (or, for == and !=, two shapes), known_ranks' comparison of ranks;
    anything else is unknown."""
    if isinstance(op, (gast.Eq, gast.NotEq)):
        if type(left) is not type(right) or not isinstance(left, (int, tuple)):
            raise _Unknown
    elif type(left) is not int or type(right) is not int:
        raise _Unknown
    result = compare_ranks(op, left, right)
    if result is None:
        raise _Unknown
    return result
