"""Branches decided by ranks jit observed: the dead ones removed before Numba types them.

A rule's generated code is written for every rank (`if a.ndim - 1 == 0: ... elif b.ndim <= 2: ...
else: reshape/transpose/moveaxis`), and Numba types and compiles every branch, though for one
signature only one runs: compiling the dead ones is most of a cold jit. The first call observed each
variable's type (jit/observe.py), so a rank is known where a variable held one array or NumPy scalar
type throughout; this pass folds

    x.ndim, ndim(x), jnp.ndim(x), np.ndim(x), len(x.shape), len(shape(x))
    + and - of known ints, comparisons of them, `not`, `and`, `or`
    a name assigned once, from a known value

and keeps only the branch an `if` (or `a if c else b`) with a known test takes:

    _t1 = a.ndim - 1 == 0                  _t1 = False
    if _t1: ... elif b.ndim <= 2:    ->    _ret = vmap_matmul_rhs_adjoint(g, a, b, _B1)
        _ret = vmap_matmul_rhs_adjoint(g, a, b, _B1)

Only on what was observed, never a guess: nothing is folded unless every parameter held one type,
and the observation was complete. A callee can be reached with other ranks than the first call saw
(a call site the first call's data did not reach): the pruned function first checks its parameters'
types (`observed_type(a, "('array', 'float64', 2)")`, decided when Numba compiles, so free at run
time) and raises a RankGuardError rather than run a branch written for other ranks; jit then compiles that signature
again with every branch kept (`unpruned`), as it did before this pass. The compiled result is still
checked against the reference backend on the first call (jit/compiled.py).
"""
import copy

import gast
import numpy as np

from ...backends.numba_cpu import JitError
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["prune_known_ranks", "pruned_for_inlining", "RankGuardError", "unpruned", "pruning_disabled"]

_DISABLED = []                # unpruned(): while set, nothing is pruned
GUARDED = []                  # names of the callees pruned behind a guard (jit/compiled.py reads and clears it)
_ROUNDS = 8                   # folding an `if` can make another name single-assigned: a few rounds


class unpruned:
    """Within it, lowering keeps every branch: jit/compiled.py compiles a signature again so when a
    pruned callee's guard fired (a call site the first call did not reach)."""

    def __enter__(self):
        _DISABLED.append(True)

    def __exit__(self, *exc):
        _DISABLED.pop()


def pruning_disabled():
    return bool(_DISABLED)


class RankGuardError(JitError):
    """Raised by compiled code: a function pruned for the ranks the first call saw met other ranks."""

    def __init__(self, message, filename=None, lineno=None, hint=None):
        super().__init__(message, (filename, lineno) if filename is not None else None, hint)

    def at(self, location):
        """This error told at `location` (the jitted function's line) where it points into astjax's own
        source (a rule's helper that vmap or grad transformed)."""
        import os
        package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
        if self.filename is not None and not os.path.abspath(self.filename).startswith(package):
            return self
        return JitError(self.reason, location, self.hint)


def prune_known_ranks(node, context, guard=True):
    """Fold rank facts of this signature in the function `node` and drop the branches they decide;
    whether anything changed."""
    observed = getattr(context.types, "observed", None)
    if _DISABLED or (observed is not None and not observed.complete):
        return False
    params = [a.id for a in node.args.args if isinstance(a, gast.Name)]
    if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.posonlyargs \
            or len(params) != len(node.args.args):
        return False
    guards = {}
    for name in params:
        types = context.types_of(name)
        if len(types) != 1:
            return False                      # a callee called with several signatures stays general
        if not _guardable(next(iter(types))):
            return False
        guards[name] = next(iter(types))
    folder = _Fold(context, params, node)
    changed = False
    for _ in range(_ROUNDS):
        folder.constants = _single_assigned_constants(node, params, folder)
        folder.changed = False
        folder.visit(node)
        if not folder.changed:
            break
        changed = True
    if changed and guard and not getattr(context, "entry", False):     # the entry's types are its signature
        node.body = _guards(node, guards, context) + node.body
        GUARDED.append(node.name)
    return changed


def pruned_for_inlining(fn, callee, stmt, caller, context, observed):
    """A pruned copy of the callee's function node `fn`, to write into the caller (whose statements are
    `caller`) at `stmt` (`target = callee(...)`), or `fn` itself where that is not known safe.

    Without a guard, so only where this call site is known to pass the types the callee held: the
    target is assigned nowhere else in the caller and was observed (so this statement ran), and the
    callee's parameters held one type each (so it ran with those)."""
    if not hasattr(context, "entry"):          # only jit's CPU build (jit/compiled.py) marks its contexts
        return fn
    if _DISABLED or not observed.complete or not isinstance(stmt, gast.Assign) or len(stmt.targets) != 1 \
            or not isinstance(stmt.targets[0], gast.Name):
        return fn
    target = stmt.targets[0].id
    stores = sum(1 for s in caller for n in walk(s) if isinstance(n, gast.Name) and n.id == target
                 and isinstance(n.ctx, (gast.Store, gast.Del)))
    if stores != 1 or not context.types_of(target):
        return fn
    from . import LoweringContext
    from ...runtime.numba_batching import fold_batch_shapes
    callee_context = LoweringContext(callee, observed.for_code(callee.__code__), context.error)
    pruned = copy.deepcopy(fn)
    if not prune_known_ranks(pruned, callee_context, guard=False):
        return fn
    fold_batch_shapes(pruned, callee_context)          # as the callee's own lowering would
    if callee_context.bindings:
        return fn
    return pruned


def _guardable(t):
    """Whether compiled code can check that a value has the abstract type `t` (numba_support.observed_type)."""
    if t[0] in ("array", "scalar", "weak", "none"):
        return True
    return t[0] == "tuple" and all(_guardable(item) for item in t[1])


def _guards(node, guards, context):
    """`if not (observed_type(p, "<type>") and ...): raise RankGuardError(...)`: each parameter has the
    type the first call saw (so every variable has the rank the folds read), decided when Numba compiles."""
    from ..numba_support import observed_type
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    check = context.bind("_rank_guard_type", observed_type, taken)
    tests = [f"{check}({name}, {repr(t)!r})" for name, t in guards.items()]
    first = node.body[0] if node.body else node
    located = context.error("", first, None)
    message = (f"jit compiled `{node.name}` for the types of the arguments the first call passed it; "
               f"a later call reached it with others")
    hint = "call the jitted function first with arguments that reach every call, or run it without jit"
    label = context.bind("_rank_guard_error", RankGuardError, taken)
    text = (f"if not ({' and '.join(tests)}):\n"
            f"    raise {label}({message!r}, {located.filename!r}, {located.lineno!r}, {hint!r})\n")
    stmt = gast.parse(text).body[0]
    for n in walk(stmt):
        if hasattr(n, "lineno"):
            gast.copy_location(n, first)
    return [stmt]


def _single_assigned_constants(node, params, folder):
    """{name: value} of the locals assigned exactly once, by `name = <known value>`."""
    stores = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            for name in n.names:
                stores[name] = stores.get(name, 0) + 2
    folder.stores = stores       # a name assigned twice may hold two ranks (Numba types each version)
    constants = {}
    folder.constants = {}
    for n in walk(node):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) \
                and stores.get(n.targets[0].id) == 1:
            value = folder.value(n.value)
            if value is not None:
                constants[n.targets[0].id] = value
    return constants


class _Fold(NodeTransformer):
    def __init__(self, context, params, node):
        self.context = context
        self.constants = {}
        self.stores = {}
        self.changed = False
        self.numpy_ndims = {np.ndim}
        try:
            import astjax.numpy as jnp
            self.numpy_ndims.add(jnp.ndim)
        except Exception:        # noqa: BLE001
            pass

    # ------------------------------------------------------------ what is known
    def _rank(self, expr, attribute):
        """The rank of a plain name holding one observed type (None when not known)."""
        if not isinstance(expr, gast.Name) or self.stores.get(expr.id, 0) > 1:
            return None
        types = self.context.types_of(expr.id)
        if len(types) != 1:
            return None
        t = next(iter(types))
        if t[0] == "array":
            return t[2]
        if t[0] == "scalar" and (not attribute or t[1] != "bool"):       # a Python bool has no .ndim
            return 0
        if t[0] == "weak" and not attribute:
            return 0
        return None

    def _resolves_to(self, func, wanted):
        if isinstance(func, gast.Name):
            obj = self.context.namespace.get(func.id)
        elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            obj = getattr(self.context.namespace.get(func.value.id), func.attr, None)
        else:
            return False
        try:
            return obj in wanted
        except TypeError:
            return False

    def _is_len(self, func):
        return isinstance(func, gast.Name) and func.id == "len" and self.context.namespace.get("len", len) is len

    def value(self, expr):
        """The int or bool `expr` has for this signature, or None."""
        if isinstance(expr, gast.Constant) and type(expr.value) in (int, bool):
            return expr.value
        if isinstance(expr, gast.Name):
            return self.constants.get(expr.id)
        if isinstance(expr, gast.Attribute) and expr.attr == "ndim" and isinstance(expr.ctx, gast.Load):
            return self._rank(expr.value, attribute=True)
        if isinstance(expr, gast.Call) and len(expr.args) == 1 and not expr.keywords:
            arg = expr.args[0]
            if self._resolves_to(expr.func, self.numpy_ndims):
                return self._rank(arg, attribute=False)
            if self._is_len(expr.func):
                if isinstance(arg, gast.Attribute) and arg.attr == "shape":
                    return self._rank(arg.value, attribute=True)
                if isinstance(arg, gast.Call) and len(arg.args) == 1 and not arg.keywords and \
                        self._resolves_to(arg.func, {np.shape} | self._shapes()):
                    return self._rank(arg.args[0], attribute=False)
            return None
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
            left, right = self.value(expr.left), self.value(expr.right)
            if type(left) is not int or type(right) is not int:
                return None
            return left + right if isinstance(expr.op, gast.Add) else left - right
        if isinstance(expr, gast.UnaryOp):
            operand = self.value(expr.operand)
            if operand is None:
                return None
            if isinstance(expr.op, gast.Not):
                return not operand
            if isinstance(expr.op, gast.USub) and type(operand) is int:
                return -operand
            return None
        if isinstance(expr, gast.Compare):
            values = [self.value(expr.left)] + [self.value(c) for c in expr.comparators]
            if any(type(v) is not int for v in values):
                return None
            results = [compare_ranks(op, a, b) for op, a, b in zip(expr.ops, values, values[1:])]
            if None in results:
                return None            # `is`, `in`: not folded
            return all(results)
        if isinstance(expr, gast.BoolOp):
            values = [self.value(v) for v in expr.values]
            if any(v is None for v in values):
                return None
            result = values[0]
            for v in values[1:]:
                result = (result and v) if isinstance(expr.op, gast.And) else (result or v)
            return result
        return None

    def _shapes(self):
        try:
            import astjax.numpy as jnp
            return {jnp.shape}
        except Exception:        # noqa: BLE001
            return set()

    # ------------------------------------------------------------ pruning
    def _known_test(self, test):
        value = self.value(test)
        return None if value is None else bool(value)

    def visit_If(self, node):
        self.generic_visit(node)
        known = self._known_test(node.test)
        if known is None:
            return node
        self.changed = True
        kept = node.body if known else node.orelse
        return kept if kept else gast.Pass()

    def visit_IfExp(self, node):
        self.generic_visit(node)
        known = self._known_test(node.test)
        if known is None:
            return node
        self.changed = True
        return node.body if known else node.orelse

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.constants:
            self.changed = True
            return gast.copy_location(gast.Constant(value=self.constants[node.id], kind=None), node)
        return node

    def visit_Assign(self, node):
        # `_t1 = a.ndim - 1 == 0` stays an assignment (its uses read the constant)
        node.value = self.visit(node.value)
        value = self.value(node.value)
        if value is not None and not isinstance(node.value, gast.Constant):
            self.changed = True
            node.value = gast.copy_location(gast.Constant(value=value, kind=None), node.value)
        return node


def compare_ranks(op, a, b):
    """`a op b` for a comparison operator of gast, or None for another operator."""
    if isinstance(op, gast.Eq):
        return a == b
    if isinstance(op, gast.NotEq):
        return a != b
    if isinstance(op, gast.Lt):
        return a < b
    if isinstance(op, gast.LtE):
        return a <= b
    if isinstance(op, gast.Gt):
        return a > b
    if isinstance(op, gast.GtE):
        return a >= b
    return None
